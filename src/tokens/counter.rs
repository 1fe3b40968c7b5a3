//! [`TokenCounter`]: the app's counter, pending until a vocabulary is loaded, rough estimates
//! after a failed load, exact after, with a per-text cache in front.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use super::cache::{Cache, CacheStats, Key};
#[cfg(not(target_arch = "wasm32"))]
use super::compact;
use super::count::{Count, Limits};
use super::encoding::{Encoding, TokensError};
use super::vocab::{Builder, Vocabulary};
use crate::engine::{CountTokens, GrowingCount};
use sm_bpe::TokenSpan;

/// Counts tokens with a lazily loaded vocabulary and a per-text cache.
///
/// Construct it before first paint (that is free), then hand it the vocabulary with
/// [`TokenCounter::load_from`] once the page is visible. Until then counts are
/// [`Count::Pending`]; after [`TokenCounter::fail`] they are rough estimates.
pub struct TokenCounter {
    encoding: Encoding,
    limits: Limits,
    /// Visible to the module's tests, which compare a vocabulary with tiktoken-rs directly.
    pub(super) vocabularies: [OnceLock<Vocabulary>; 2],
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

    /// Starts loading `data`, the compact vocabulary of `encoding`, in steps: the file is parsed
    /// now, and [`Loading::step`] indexes its tokens a bounded number at a time, so the page
    /// can yield to the browser between steps; [`TokenCounter::finish_loading`] installs it.
    /// Counts stay [`Count::Pending`] until then. Equivalent to [`TokenCounter::load_from`].
    pub fn start_loading(&self, encoding: Encoding, data: &[u8]) -> Result<Loading, TokensError> {
        Loading::start(encoding, data)
    }

    /// Installs a vocabulary that [`TokenCounter::start_loading`] began (indexing whatever its
    /// steps left), unless that encoding is loaded already. Counts with it become exact.
    pub fn finish_loading(&self, loading: Loading) -> Result<(), TokensError> {
        let encoding = loading.0.encoding();
        let slot = &self.vocabularies[encoding.index()];
        if slot.get().is_none() {
            let _ = slot.set(loading.0.finish()?);
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

    /// Counts `text` with `encoding`, a text that grew at its end since `growing` was left by
    /// the last call: only what follows the last piece boundary no continuation can move is
    /// counted again, so a reply arriving in pieces costs its new pieces, not its whole length,
    /// each time. Equal to [`TokenCounter::count_with`]. A `growing` left by another encoding,
    /// or before the vocabulary loaded, is started again.
    pub fn count_growing_with(
        &self,
        encoding: Encoding,
        text: &str,
        growing: &mut GrowingCount,
    ) -> Count {
        let Some(vocabulary) = self.vocabularies[encoding.index()].get() else {
            *growing = GrowingCount::default();
            return self.not_loaded(encoding, text);
        };
        let by = encoding.index() as u8 + 1;
        let mut state = if growing.by == by {
            sm_bpe::Growing {
                settled: growing.settled,
                tally: sm_bpe::Tally {
                    tokens: growing.tokens,
                    estimated: growing.estimated,
                },
            }
        } else {
            sm_bpe::Growing::default()
        };
        let count = vocabulary.count_growing(text, self.limits, &mut state);
        *growing = GrowingCount {
            by,
            settled: state.settled,
            tokens: state.tally.tokens,
            estimated: state.tally.estimated,
        };
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

    /// A count while `encoding`'s vocabulary is not loaded: exact for a text of the lesson or
    /// the demos (counted at build time, `prebuilt.rs`), otherwise pending, or an estimate once
    /// the load failed; never 0 for a text it does not know.
    fn not_loaded(&self, encoding: Encoding, text: &str) -> Count {
        if let Some(count) = super::prebuilt_count(encoding, text) {
            Count::Exact(count)
        } else if self.is_failed(encoding) {
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

/// A vocabulary being loaded in steps; see [`TokenCounter::start_loading`].
pub struct Loading(Builder);

/// [`Loading::start`] as a value: what the page's counter module hands over, so that the page's
/// first load calls it without linking it (the vocabulary's parse, the splitter and the BPE
/// merge are in that module; `ui::on_demand`, docs/size.md).
pub type StartLoading = fn(Encoding, &[u8]) -> Result<Loading, TokensError>;

impl Loading {
    /// Starts loading `data`, the compact vocabulary of `encoding`: the file is parsed now, and
    /// [`Loading::step`] indexes its tokens a bounded number at a time; hand it to
    /// [`TokenCounter::finish_loading`] to count with it.
    pub fn start(encoding: Encoding, data: &[u8]) -> Result<Loading, TokensError> {
        Vocabulary::builder(encoding, data).map(Loading)
    }

    /// Indexes up to `tokens` more of the vocabulary's tokens (o200k_base has 199,998), or,
    /// once all are, compiles the splitter in a step of its own; true when done.
    pub fn step(&mut self, tokens: usize) -> Result<bool, TokensError> {
        self.0.step(tokens)
    }
}

impl fmt::Debug for Loading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Loading").field(&self.0.encoding()).finish()
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

    fn count_growing(&self, text: &str, growing: &mut GrowingCount) -> u32 {
        self.count_growing_with(self.encoding, text, growing)
            .value()
            .unwrap_or_else(|| rough_estimate(text))
    }

    fn vocabularies(&self) -> Option<&dyn crate::engine::message::Vocabularies> {
        Some(self)
    }

    /// The encoding in use, once its vocabulary is loaded (until then a count may be an
    /// estimate).
    fn exact_in(&self) -> Option<crate::engine::message::Vocabulary> {
        self.is_loaded(self.encoding)
            .then(|| self.encoding.vocabulary())
    }
}

/// A vocabulary-free estimate: one token per 4 bytes of UTF-8, rounded up (OpenAI's rule of
/// thumb for English; it overestimates scripts that take 3 bytes a character, which is the safe
/// side for a context budget). Only used while the vocabulary loads.
pub fn rough_estimate(text: &str) -> u32 {
    u32::try_from(text.len().div_ceil(4)).unwrap_or(u32::MAX)
}

impl crate::engine::message::Vocabularies for TokenCounter {
    /// The vocabulary's count, or the rough estimate while it is pending (never 0 for a text).
    fn tokens(&self, vocabulary: crate::engine::message::Vocabulary, text: &str) -> u32 {
        self.count_with(Encoding::of(vocabulary), text)
            .value()
            .unwrap_or_else(|| rough_estimate(text))
    }
}
