//! `Pattern`: the regular-expression matcher of the core (a user's regex fact, the figures
//! check, the extractive summariser, error messages), on `regex-lite`. The patterns the app
//! builds itself (phrases, drift's stems, the must-keep cues) are [`literal`]'s.
//!
//! Why regex-lite and not `regex`: `regex` brings regex-syntax's parser and its Unicode tables
//! (classes, case folding, word boundaries: about 290 KB of data) and its engines, and anything in
//! the page that compiles a pattern at runtime keeps all of them in the first load
//! (docs/size.md). regex-lite has the same syntax and the same leftmost-first matches and groups,
//! in time linear in the text, with these differences, which the tests pin down:
//! - `\w`, `\d`, `\s` and `\b` are ASCII (`[0-9A-Za-z_]`, `[0-9]`, `[\t\n\v\f\r ]`); the fixed
//!   patterns spell out the Unicode classes they need ([`classes`]);
//! - `(?i)` folds ASCII letters only: a pattern that asks for it over a letter outside ASCII is
//!   refused ([`PatternError::CaseOutsideAscii`]) rather than silently matched only as written;
//! - there are no `\p{..}` classes ([`PatternError::UnicodeClass`]).
//!
//! A user's pattern keeps a size limit that bounds its memory.

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

/// Why a pattern does not compile.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// Not valid syntax (or over the size limit); the text is regex-lite's and points at the
    /// fault.
    #[error("{0}")]
    Syntax(String),
    /// A `\p{..}` or `\P{..}` class, which this matcher does not have.
    #[error(
        "Unicode classes such as \\p{{L}} are not supported here; list the characters instead, e.g. [a-zA-Zà-ÿ]"
    )]
    UnicodeClass,
    /// `(?i)` over a letter outside ASCII, which it would not fold.
    #[error(
        "(?i) folds only ASCII letters here, so {0:?} would match only as written; write both cases, e.g. [Σσ], or pin the fact as a phrase, which folds every letter"
    )]
    CaseOutsideAscii(char),
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
        let pattern = builder.build().map_err(|err| {
            if has_unicode_class(source) {
                PatternError::UnicodeClass
            } else {
                PatternError::Syntax(err.to_string())
            }
        })?;
        if options.case_insensitive || asks_for_case_folding(source) {
            let cased = |c: &char| !c.is_ascii() && c.to_lowercase().ne(c.to_uppercase());
            if let Some(letter) = source.chars().find(cased) {
                return Err(PatternError::CaseOutsideAscii(letter));
            }
        }
        Ok(Pattern(pattern))
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

/// Whether `source` has a `\p` or `\P` escape (a backslash that is not itself escaped).
fn has_unicode_class(source: &str) -> bool {
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.next(), Some('p' | 'P')) {
            return true;
        }
    }
    false
}

/// Whether a flag group of `source` (`(?i)`, `(?xi:`, `(?i-s)`) turns case folding on.
fn asks_for_case_folding(source: &str) -> bool {
    source.match_indices("(?").any(|(at, _)| {
        source[at + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphabetic() || *c == '-')
            .take_while(|c| *c != '-')
            .any(|c| c == 'i')
    })
}

/// `text` with every character that has a meaning in a pattern escaped.
pub fn escape(text: &str) -> String {
    regex_lite::escape(text)
}

#[cfg(test)]
mod tests;
