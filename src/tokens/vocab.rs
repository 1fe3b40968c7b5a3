//! One loaded encoding: `sm-bpe`'s vocabulary (the rank map parsed from the compact file, the
//! splitter and the per-piece cache, built at opt-level 3), with this module's types around it.

use super::count::{Count, Limits};
use super::encoding::{Encoding, TokensError};
use sm_bpe::TokenSpan;

pub(crate) struct Vocabulary(sm_bpe::Vocabulary);

impl Vocabulary {
    /// Parses a compact vocabulary (see `compact.rs`) for `encoding`.
    pub(crate) fn from_compact(encoding: Encoding, data: &[u8]) -> Result<Self, TokensError> {
        sm_bpe::Vocabulary::from_compact(encoding.name(), encoding.pattern(), data)
            .map(Vocabulary)
            .map_err(|err| load_error(encoding, err))
    }

    /// Starts building the vocabulary of `encoding` from its compact file, a step at a time.
    pub(crate) fn builder(encoding: Encoding, data: &[u8]) -> Result<Builder, TokensError> {
        sm_bpe::VocabularyBuilder::new(encoding.name(), encoding.pattern(), data)
            .map(|inner| Builder { encoding, inner })
            .map_err(|err| load_error(encoding, err))
    }

    /// Counts `text`, answering repeated multi-token pieces from the per-piece cache.
    pub(crate) fn count(&self, text: &str, limits: Limits) -> Count {
        to_count(self.0.count(text, limits.max_piece_bytes))
    }

    /// Counts `text`, grown at its end since `growing` was left, recounting only after the
    /// last settled piece boundary (`sm_bpe::Vocabulary::count_growing`).
    pub(crate) fn count_growing(
        &self,
        text: &str,
        limits: Limits,
        growing: &mut sm_bpe::Growing,
    ) -> Count {
        to_count(self.0.count_growing(text, limits.max_piece_bytes, growing))
    }

    /// Counts `text` running BPE on every piece, for tests that the cache changes nothing.
    pub(crate) fn count_without_piece_cache(&self, text: &str, limits: Limits) -> Count {
        to_count(
            self.0
                .count_without_piece_cache(text, limits.max_piece_bytes),
        )
    }

    pub(crate) fn clear_piece_cache(&self) {
        self.0.clear_piece_cache();
    }

    pub(crate) fn tokens_of(&self, text: &str, limits: Limits) -> Vec<TokenSpan> {
        self.0.tokens_of(text, limits.max_piece_bytes)
    }
}

/// A vocabulary being built in steps ([`Vocabulary::builder`]).
pub(crate) struct Builder {
    encoding: Encoding,
    inner: sm_bpe::VocabularyBuilder,
}

impl Builder {
    /// Indexes up to `tokens` more tokens; true once all are.
    pub(crate) fn step(&mut self, tokens: usize) -> Result<bool, TokensError> {
        let encoding = self.encoding;
        self.inner
            .step(tokens)
            .map_err(|err| load_error(encoding, err))
    }

    /// The finished vocabulary.
    pub(crate) fn finish(self) -> Result<Vocabulary, TokensError> {
        let encoding = self.encoding;
        self.inner
            .finish()
            .map(Vocabulary)
            .map_err(|err| load_error(encoding, err))
    }

    pub(crate) fn encoding(&self) -> Encoding {
        self.encoding
    }
}

fn load_error(encoding: Encoding, err: sm_bpe::LoadError) -> TokensError {
    TokensError::Load {
        encoding,
        reason: err.to_string(),
    }
}

fn to_count(tally: sm_bpe::Tally) -> Count {
    let total = u32::try_from(tally.tokens).unwrap_or(u32::MAX);
    if tally.estimated {
        Count::Estimate(total)
    } else {
        Count::Exact(total)
    }
}
