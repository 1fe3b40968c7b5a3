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
use std::sync::Arc;

use regex_automata::nfa::thompson::{self, pikevm};
use regex_automata::util::captures;
use regex_automata::util::pool::Pool;
use regex_automata::{Input, Span};

pub mod literal;

/// The PikeVM's scratch space, one per concurrent search: a pool, as `regex::Regex` keeps one,
/// so a shared pattern (a `static`) is searched from several threads without a lock held long.
type CachePool = Pool<pikevm::Cache, Box<dyn Fn() -> pikevm::Cache + Send + Sync>>;

struct Inner {
    source: String,
    vm: pikevm::PikeVM,
    pool: CachePool,
}

/// A compiled regular expression in `regex` crate syntax. Cheap to clone (shared).
#[derive(Clone)]
pub struct Pattern(Arc<Inner>);

/// How to compile a [`Pattern`], beyond its syntax.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Match letters case-insensitively (Unicode simple case folding), as `(?i)` does.
    pub case_insensitive: bool,
    /// The most heap the compiled NFA may take, in bytes; `None` is `regex`'s default, 10 MiB.
    pub size_limit: Option<usize>,
}

/// Why a pattern does not compile. Its text is `regex::Error`'s for the same pattern.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// Not valid syntax; the text points at the fault, as `regex-syntax` writes it.
    #[error("{0}")]
    Syntax(String),
    /// The compiled form would exceed the size limit.
    #[error("Compiled regex exceeds size limit of {0} bytes.")]
    TooBig(usize),
}

/// `regex`'s default NFA size limit (`regex::RegexBuilder::size_limit`).
const DEFAULT_SIZE_LIMIT: usize = 10 * (1 << 20);

impl Pattern {
    /// Compiles `source` with the default options.
    pub fn new(source: &str) -> Result<Pattern, PatternError> {
        Pattern::with(source, Options::default())
    }

    /// Compiles `source` with `options`.
    pub fn with(source: &str, options: Options) -> Result<Pattern, PatternError> {
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(options.case_insensitive)
            .build()
            .parse(source)
            .map_err(|err| PatternError::Syntax(err.to_string()))?;
        let limit = options.size_limit.unwrap_or(DEFAULT_SIZE_LIMIT);
        // As `regex`'s meta regex configures its NFA: no shrinking, every capture group.
        let config = thompson::Config::new()
            .utf8(true)
            .nfa_size_limit(Some(limit))
            .shrink(false)
            .which_captures(thompson::WhichCaptures::All);
        let nfa = thompson::Compiler::new()
            .configure(config)
            .build_from_hir(&hir)
            .map_err(|err| match err.size_limit() {
                Some(limit) => PatternError::TooBig(limit),
                None => PatternError::Syntax(err.to_string()),
            })?;
        let vm = pikevm::PikeVM::new_from_nfa(nfa)
            .map_err(|err| PatternError::Syntax(err.to_string()))?;
        let for_pool = vm.clone();
        let create: Box<dyn Fn() -> pikevm::Cache + Send + Sync> =
            Box::new(move || for_pool.create_cache());
        Ok(Pattern(Arc::new(Inner {
            source: source.to_owned(),
            vm,
            pool: Pool::new(create),
        })))
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.0.source
    }

    /// Whether `text` holds a match.
    pub fn is_match(&self, text: &str) -> bool {
        let mut cache = self.0.pool.get();
        self.0
            .vm
            .is_match(&mut cache, Input::new(text).earliest(true))
    }

    /// The byte range of the leftmost-first match.
    pub fn find(&self, text: &str) -> Option<Range<usize>> {
        let mut cache = self.0.pool.get();
        self.0
            .vm
            .find(&mut cache, Input::new(text))
            .map(|m| m.range())
    }

    /// The first match's groups.
    pub fn captures<'t>(&self, text: &'t str) -> Option<Captures<'t>> {
        self.captures_at(text, 0)
    }

    /// The first match's groups at or after byte `start`, with the text before `start` still
    /// seen by `\b` and `^`, as `regex::Regex::captures_at`.
    pub fn captures_at<'t>(&self, text: &'t str, start: usize) -> Option<Captures<'t>> {
        let mut cache = self.0.pool.get();
        let mut caps = self.0.vm.create_captures();
        let input = Input::new(text).span(start..text.len());
        self.0.vm.captures(&mut cache, input, &mut caps);
        caps.is_match().then_some(Captures { text, caps })
    }

    /// Every successive non-overlapping match's groups, as `regex::Regex::captures_iter`
    /// (an empty match never splits a character, nor follows a match where it ends).
    pub fn captures_all<'t>(&self, text: &'t str) -> Vec<Captures<'t>> {
        let mut cache = self.0.pool.get();
        self.0
            .vm
            .captures_iter(&mut cache, Input::new(text))
            .map(|caps| Captures { text, caps })
            .collect()
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Pattern").field(&self.0.source).finish()
    }
}

/// One match's capture groups.
pub struct Captures<'t> {
    text: &'t str,
    caps: captures::Captures,
}

/// One group's match: where it is in the text, and its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match<'t> {
    text: &'t str,
    span: Span,
}

impl<'t> Captures<'t> {
    /// Group `index` (0, the whole match), if it took part in the match.
    pub fn get(&self, index: usize) -> Option<Match<'t>> {
        self.caps.get_group(index).map(|span| self.at(span))
    }

    /// The group named `name`, if it took part in the match.
    pub fn name(&self, name: &str) -> Option<Match<'t>> {
        self.caps.get_group_by_name(name).map(|span| self.at(span))
    }

    fn at(&self, span: Span) -> Match<'t> {
        Match {
            text: self.text,
            span,
        }
    }
}

/// The text of group `index`; panics if it did not take part, as `regex::Captures` does.
impl Index<usize> for Captures<'_> {
    type Output = str;

    fn index(&self, index: usize) -> &str {
        let span = self
            .caps
            .get_group(index)
            .unwrap_or_else(|| panic!("no group at index '{index}'"));
        &self.text[span.range()]
    }
}

impl<'t> Match<'t> {
    pub fn start(&self) -> usize {
        self.span.start
    }

    pub fn end(&self) -> usize {
        self.span.end
    }

    pub fn range(&self) -> Range<usize> {
        self.span.range()
    }

    pub fn as_str(&self) -> &'t str {
        &self.text[self.span.range()]
    }
}

/// `text` with every character that has a meaning in a pattern escaped, as `regex::escape`.
pub fn escape(text: &str) -> String {
    regex_syntax::escape(text)
}

#[cfg(test)]
mod tests;
