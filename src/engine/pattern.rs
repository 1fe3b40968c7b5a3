//! `Pattern`: the regular-expression matcher of the core (a user's regex fact, the figures
//! check, the extractive summariser, error messages), on `regex-automata`'s PikeVM. The patterns
//! the app builds itself (phrases, drift's stems, the must-keep cues) are [`literal`]'s.
//!
//! Why not `regex::Regex`: it is the same parser (`regex-syntax`: Unicode classes, Unicode `\b`
//! and `\w`, Unicode case folding, captures) and the same NFA, but in front of them the `meta`
//! strategy, the lazy DFA, the one-pass DFA, the backtracker and the aho-corasick and memchr
//! prefilters, about 200 KB of the page's first load (docs/size.md) for speed the core does
//! not need: every text it searches is a message or a summary. The PikeVM runs in time linear in
//! the text for any pattern, as `regex` does, and finds the same leftmost-first matches with the
//! same capture groups (`tests` below compares the two on Unicode and case-insensitive
//! patterns). A user's pattern keeps the NFA size limit that bounds its memory.

use std::fmt;
use std::ops::{Index, Range};

pub mod classes;
pub mod literal;

/// A compiled regular expression in `regex-lite` syntax (ASCII `\w`, `\d`, `\s`, `\b` and
/// `(?i)`). Cheap to clone (shared).
#[derive(Clone)]
pub struct Pattern(regex_lite::Regex);

/// How to compile a [`Pattern`], beyond its syntax.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Match ASCII letters case-insensitively, as `(?i)` does.
    pub case_insensitive: bool,
    /// The most heap the compiled program may take, in bytes; `None` is regex-lite's default.
    pub size_limit: Option<usize>,
}

/// Why a pattern does not compile; its text is `regex_lite::Error`'s.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// Not valid syntax (or over the size limit); the text points at the fault.
    #[error("{0}")]
    Syntax(String),
}

impl Pattern {
    /// Compiles `source` with the default options.
    pub fn new(source: &str) -> Result<Pattern, PatternError> {
        Pattern::with(source, Options::default())
    }

    /// Compiles `source` with `options`.
    pub fn with(source: &str, options: Options) -> Result<Pattern, PatternError> {
        let mut builder = regex_lite::RegexBuilder::new(source);
        builder.case_insensitive(options.case_insensitive);
        if let Some(limit) = options.size_limit {
            builder.size_limit(limit);
        }
        builder
            .build()
            .map(Pattern)
            .map_err(|err| PatternError::Syntax(err.to_string()))
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// Whether `text` holds a match.
    pub fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }

    /// The byte range of the leftmost-first match.
    pub fn find(&self, text: &str) -> Option<Range<usize>> {
        self.0.find(text).map(|m| m.range())
    }

    /// The first match's groups.
    pub fn captures<'t>(&self, text: &'t str) -> Option<Captures<'t>> {
        self.0.captures(text).map(Captures)
    }

    /// The first match's groups at or after byte `start`, with the text before `start` still
    /// seen by `\b` and `^`.
    pub fn captures_at<'t>(&self, text: &'t str, start: usize) -> Option<Captures<'t>> {
        self.0.captures_at(text, start).map(Captures)
    }

    /// Every successive non-overlapping match's groups.
    pub fn captures_all<'t>(&self, text: &'t str) -> Vec<Captures<'t>> {
        self.0.captures_iter(text).map(Captures).collect()
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&self.0.as_str()).finish()
    }
}

/// One match's capture groups.
pub struct Captures<'t>(regex_lite::Captures<'t>);

/// One group's match: where it is in the text, and its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match<'t>(regex_lite::Match<'t>);

impl<'t> Captures<'t> {
    /// Group `index` (0, the whole match), if it took part in the match.
    pub fn get(&self, index: usize) -> Option<Match<'t>> {
        self.0.get(index).map(Match)
    }

    /// The group named `name`, if it took part in the match.
    pub fn name(&self, name: &str) -> Option<Match<'t>> {
        self.0.name(name).map(Match)
    }
}

/// The text of group `index`; panics if it did not take part.
impl Index<usize> for Captures<'_> {
    type Output = str;

    fn index(&self, index: usize) -> &str {
        &self.0[index]
    }
}

impl<'t> Match<'t> {
    pub fn start(&self) -> usize {
        self.0.start()
    }

    pub fn end(&self) -> usize {
        self.0.end()
    }

    pub fn range(&self) -> Range<usize> {
        self.0.range()
    }

    pub fn as_str(&self) -> &'t str {
        self.0.as_str()
    }
}

/// `text` with every character that has a meaning in a pattern escaped.
pub fn escape(text: &str) -> String {
    regex_lite::escape(text)
}

#[cfg(test)]
mod tests;
