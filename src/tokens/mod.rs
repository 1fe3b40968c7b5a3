//! Token counting with tiktoken's algorithm over tiktoken-rs's vocabularies, with a per-text cache.
//!
//! Architecture invariants:
//! - Pure: no web crates, no clock, no I/O. A vocabulary arrives as bytes in the compact format
//!   ([`compact`]); the shell fetches them after first paint and hands them to
//!   [`TokenCounter::load_from`].
//! - The wasm build does not link tiktoken-rs at all (it is a native-only dependency), so none of
//!   its embedded vocabularies can reach the wasm. Natively, tiktoken-rs is the source of the
//!   compact files ([`compact::from_tiktoken`], run at build time) and the reference in tests.
//! - Counting is tiktoken's algorithm, in the `sm-bpe` crate (`crates/bpe`, built at opt-level 3
//!   while the rest of the wasm is built for size): its splitter (tiktoken's regexes on a
//!   non-backtracking engine) cuts the text into pieces, and each piece is looked up or merged
//!   by tiktoken's byte-pair procedure, with a bounded per-piece cache in front.
//! - Counting has `encode_ordinary` semantics: "<|endoftext|>" typed by a user is ordinary text.
//! - No input can panic or run unbounded: pieces longer than [`Limits::max_piece_bytes`] are
//!   estimated instead, and the count says so ([`Count::Estimate`]).
//! - Until a vocabulary is loaded counts are [`Count::Pending`]; if loading failed they are
//!   [`Count::Estimate`]s by [`rough_estimate`], never 0.

mod cache;
mod chat;
pub mod compact;
mod count;
mod vocab;

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::engine::CountTokens;

pub use cache::CacheStats;
pub use chat::{
    ChatCount, ChatTurn, REPLY_PRIMING, TOKENS_PER_MESSAGE, TOKENS_PER_NAME, TurnCount,
};
pub use count::Count;
/// One token of a text, for a view that colours tokens (see [`sm_bpe::TokenSpan`]).
pub use sm_bpe::TokenSpan;

use cache::{Cache, Key};
use vocab::Vocabulary;

/// The BPE vocabularies this app can count with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-5 and the o-series.
    #[default]
    O200kBase,
    /// GPT-4, GPT-3.5-turbo and text-embedding-3.
    Cl100kBase,
}

impl Encoding {
    /// Every supported encoding, the default first.
    pub const ALL: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

    /// The name tiktoken uses: `o200k_base` or `cl100k_base`.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// The pre-tokenising regex of this encoding.
    fn pattern(self) -> sm_bpe::Pattern {
        match self {
            Encoding::O200kBase => sm_bpe::Pattern::O200k,
            Encoding::Cl100kBase => sm_bpe::Pattern::Cl100k,
        }
    }

    fn index(self) -> usize {
        match self {
            Encoding::O200kBase => 0,
            Encoding::Cl100kBase => 1,
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = TokensError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Encoding::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| TokensError::UnknownEncoding(s.to_owned()))
    }
}

/// What can go wrong at the token-counting boundary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokensError {
    /// The vocabulary file could not be fetched or parsed.
    #[error(
        "could not load the {encoding} vocabulary ({reason}). Token counts are rough estimates \
         (≈) until it loads: check the connection and reload the page"
    )]
    Load { encoding: Encoding, reason: String },
    /// A saved setting or a link named an encoding this app does not have.
    #[error("unknown encoding \"{0}\": choose o200k_base or cl100k_base")]
    UnknownEncoding(String),
}

/// Bounds that keep counting fast on any input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Pieces (the units tiktoken's regex splits text into before BPE) longer than this are not
    /// tokenised but estimated. Real text has pieces of a few dozen bytes; only runs such as
    /// thousands of spaces, of one punctuation mark or of one letter come near this.
    pub max_piece_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_piece_bytes: 8 * 1024,
        }
    }
}

/// Counts tokens with a lazily loaded vocabulary and a per-text cache.
///
/// Construct it before first paint (that is free), then hand it the vocabulary with
/// [`TokenCounter::load_from`] once the page is visible. Until then counts are
/// [`Count::Pending`]; after [`TokenCounter::fail`] they are rough estimates.
pub struct TokenCounter {
    encoding: Encoding,
    limits: Limits,
    vocabularies: [OnceLock<Vocabulary>; 2],
    failed: [AtomicBool; 2],
    cache: Mutex<Cache>,
}

impl TokenCounter {
    /// A counter for `encoding` with no vocabulary loaded yet.
    pub fn new(encoding: Encoding) -> Self {
        Self::with_limits(encoding, Limits::default())
    }

    /// A counter with non-default bounds (tests use tiny ones to exercise chunking).
    pub fn with_limits(encoding: Encoding, limits: Limits) -> Self {
        TokenCounter {
            encoding,
            limits,
            vocabularies: [OnceLock::new(), OnceLock::new()],
            failed: [AtomicBool::new(false), AtomicBool::new(false)],
            cache: Mutex::new(Cache::default()),
        }
    }

    /// The encoding that [`TokenCounter::count`] and [`CountTokens::count`] use.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Switches the encoding; counts for both stay cached.
    pub fn set_encoding(&mut self, encoding: Encoding) {
        self.encoding = encoding;
    }

    /// Parses `data`, the compact vocabulary of `encoding` (see [`compact`]), unless that
    /// encoding is loaded already. On success counts with it become exact.
    pub fn load_from(&self, encoding: Encoding, data: &[u8]) -> Result<(), TokensError> {
        let slot = &self.vocabularies[encoding.index()];
        if slot.get().is_none() {
            // Another thread may win the race; its vocabulary is identical, so losing is fine.
            let _ = slot.set(Vocabulary::from_compact(encoding, data)?);
        }
        self.failed[encoding.index()].store(false, Ordering::Relaxed);
        Ok(())
    }

    /// Loads `encoding` from tiktoken-rs's embedded data, through the compact form (native
    /// only: tests, benches and the build).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load(&self, encoding: Encoding) -> Result<(), TokensError> {
        if self.is_loaded(encoding) {
            return Ok(());
        }
        self.load_from(encoding, &compact::from_tiktoken(encoding))
    }

    /// Records that the vocabulary of `encoding` could not be loaded: until a later
    /// [`TokenCounter::load_from`] succeeds, its counts are [`Count::Estimate`]s by
    /// [`rough_estimate`] instead of [`Count::Pending`].
    pub fn fail(&self, encoding: Encoding) {
        if !self.is_loaded(encoding) {
            self.failed[encoding.index()].store(true, Ordering::Relaxed);
        }
    }

    /// Whether [`TokenCounter::load`] has finished for `encoding`.
    pub fn is_loaded(&self, encoding: Encoding) -> bool {
        self.vocabularies[encoding.index()].get().is_some()
    }

    /// Counts `text` with the current encoding, from the cache when it was counted before.
    pub fn count(&self, text: &str) -> Count {
        self.count_with(self.encoding, text)
    }

    /// Counts `text` with `encoding`, from the cache when it was counted before.
    pub fn count_with(&self, encoding: Encoding, text: &str) -> Count {
        let Some(vocabulary) = self.vocabularies[encoding.index()].get() else {
            return self.not_loaded(encoding, text);
        };
        let key = Key::new(encoding, text);
        if let Some(count) = self.cache().get(&key) {
            return count;
        }
        // The lock is not held while tokenising, so a long text does not block other callers.
        let count = vocabulary.count(text, self.limits);
        self.cache().insert(key, count);
        count
    }

    /// Counts `text` with `encoding` without the per-text cache (for benchmarks and checks); the
    /// per-piece cache inside the vocabulary still answers repeated pieces.
    pub fn count_uncached(&self, encoding: Encoding, text: &str) -> Count {
        match self.vocabularies[encoding.index()].get() {
            Some(vocabulary) => vocabulary.count(text, self.limits),
            None => self.not_loaded(encoding, text),
        }
    }

    /// Counts `text` with `encoding` with no cache at all: every piece goes through BPE.
    pub fn count_without_caches(&self, encoding: Encoding, text: &str) -> Count {
        match self.vocabularies[encoding.index()].get() {
            Some(vocabulary) => vocabulary.count_without_piece_cache(text, self.limits),
            None => self.not_loaded(encoding, text),
        }
    }

    /// Whether loading `encoding` failed (and no later load succeeded).
    pub fn is_failed(&self, encoding: Encoding) -> bool {
        self.failed[encoding.index()].load(Ordering::Relaxed)
    }

    fn not_loaded(&self, encoding: Encoding, text: &str) -> Count {
        if self.is_failed(encoding) {
            Count::Estimate(rough_estimate(text))
        } else {
            Count::Pending
        }
    }

    /// The tokens of `text` in the current encoding, or `None` while the vocabulary is not
    /// loaded. Not cached: the view asks for one text at a time.
    pub fn tokens_of(&self, text: &str) -> Option<Vec<TokenSpan>> {
        self.tokens_of_with(self.encoding, text)
    }

    /// The tokens of `text` in `encoding`, or `None` while that vocabulary is not loaded.
    pub fn tokens_of_with(&self, encoding: Encoding, text: &str) -> Option<Vec<TokenSpan>> {
        self.vocabularies[encoding.index()]
            .get()
            .map(|vocabulary| vocabulary.tokens_of(text, self.limits))
    }

    /// Hits and misses of the cache since construction or the last [`TokenCounter::clear_cache`].
    pub fn cache_stats(&self) -> CacheStats {
        self.cache().stats
    }

    /// Forgets every cached count, of texts and of pieces, and resets the statistics.
    pub fn clear_cache(&self) {
        let mut cache = self.cache();
        cache.clear();
        cache.stats = CacheStats::default();
        for vocabulary in self.vocabularies.iter().filter_map(OnceLock::get) {
            vocabulary.clear_piece_cache();
        }
    }

    fn cache(&self) -> MutexGuard<'_, Cache> {
        // A panic elsewhere while the lock was held cannot leave a half-written count behind
        // (insertions are single map operations), so a poisoned lock is still usable.
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Default for TokenCounter {
    /// An `o200k_base` counter with nothing loaded.
    fn default() -> Self {
        TokenCounter::new(Encoding::default())
    }
}

impl fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenCounter")
            .field("encoding", &self.encoding)
            .field("limits", &self.limits)
            .field("o200k_base_loaded", &self.is_loaded(Encoding::O200kBase))
            .field("cl100k_base_loaded", &self.is_loaded(Encoding::Cl100kBase))
            .finish()
    }
}

impl CountTokens for TokenCounter {
    /// The exact count, or the estimate. Before the vocabulary is loaded it returns
    /// [`rough_estimate`], because the engine needs a number and 0 would be a lie.
    fn count(&self, text: &str) -> u32 {
        TokenCounter::count(self, text)
            .value()
            .unwrap_or_else(|| rough_estimate(text))
    }
}

/// A vocabulary-free estimate: one token per 4 bytes of UTF-8, rounded up (OpenAI's rule of
/// thumb for English; it overestimates scripts that take 3 bytes a character, which is the safe
/// side for a context budget). Only used while the vocabulary loads.
pub fn rough_estimate(text: &str) -> u32 {
    u32::try_from(text.len().div_ceil(4)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests;
