//! One loaded encoding: `sm-bpe`'s vocabulary (the rank map parsed from the compact file, the
//! splitter and the per-piece cache, built at opt-level 3), with this module's types around it.
//!
//! The counter reaches `sm-bpe` only through the two traits below ([`Bpe`], [`Steps`]), whose
//! objects only [`Vocabulary::builder`] and [`Vocabulary::from_compact`] make. So a build that
//! calls neither from its first load (the page: it starts a vocabulary through the function its
//! counter module hands over, `tokens::StartLoading`) holds none of the splitter's DFA, the BPE
//! merge or the file's parse there: they are linked where the vocabulary is built
//! (docs/size.md).

use super::count::{Count, Limits};
use super::encoding::{Encoding, TokensError};
use sm_bpe::TokenSpan;

/// What counting asks of a loaded vocabulary (`sm_bpe::Vocabulary`'s counting methods).
trait Bpe: Send + Sync {
    fn count(&self, text: &str, max_piece_bytes: usize) -> sm_bpe::Tally;
    fn count_growing(
        &self,
        text: &str,
        max_piece_bytes: usize,
        growing: &mut sm_bpe::Growing,
    ) -> sm_bpe::Tally;
    fn count_without_piece_cache(&self, text: &str, max_piece_bytes: usize) -> sm_bpe::Tally;
    fn clear_piece_cache(&self);
    fn tokens_of(&self, text: &str, max_piece_bytes: usize) -> Vec<TokenSpan>;
}

impl Bpe for sm_bpe::Vocabulary {
    fn count(&self, text: &str, max_piece_bytes: usize) -> sm_bpe::Tally {
        sm_bpe::Vocabulary::count(self, text, max_piece_bytes)
    }

    fn count_growing(
        &self,
        text: &str,
        max_piece_bytes: usize,
        growing: &mut sm_bpe::Growing,
    ) -> sm_bpe::Tally {
        sm_bpe::Vocabulary::count_growing(self, text, max_piece_bytes, growing)
    }

    fn count_without_piece_cache(&self, text: &str, max_piece_bytes: usize) -> sm_bpe::Tally {
        sm_bpe::Vocabulary::count_without_piece_cache(self, text, max_piece_bytes)
    }

    fn clear_piece_cache(&self) {
        sm_bpe::Vocabulary::clear_piece_cache(self);
    }

    fn tokens_of(&self, text: &str, max_piece_bytes: usize) -> Vec<TokenSpan> {
        sm_bpe::Vocabulary::tokens_of(self, text, max_piece_bytes)
    }
}

/// What building a vocabulary in steps asks of `sm_bpe::VocabularyBuilder`.
trait Steps: Send {
    fn step(&mut self, tokens: usize) -> Result<bool, sm_bpe::LoadError>;
    fn finish(self: Box<Self>) -> Result<Vocabulary, sm_bpe::LoadError>;
}

impl Steps for sm_bpe::VocabularyBuilder {
    fn step(&mut self, tokens: usize) -> Result<bool, sm_bpe::LoadError> {
        sm_bpe::VocabularyBuilder::step(self, tokens)
    }

    fn finish(self: Box<Self>) -> Result<Vocabulary, sm_bpe::LoadError> {
        sm_bpe::VocabularyBuilder::finish(*self).map(|v| Vocabulary(Box::new(v)))
    }
}

pub(crate) struct Vocabulary(Box<dyn Bpe>);

impl Vocabulary {
    /// Parses a compact vocabulary (see `compact.rs`) for `encoding`.
    pub(crate) fn from_compact(encoding: Encoding, data: &[u8]) -> Result<Self, TokensError> {
        sm_bpe::Vocabulary::from_compact(encoding.name(), encoding.pattern(), data)
            .map(|v| Vocabulary(Box::new(v)))
            .map_err(|err| load_error(encoding, err))
    }

    /// Starts building the vocabulary of `encoding` from its compact file, a step at a time.
    pub(crate) fn builder(encoding: Encoding, data: &[u8]) -> Result<Builder, TokensError> {
        sm_bpe::VocabularyBuilder::new(encoding.name(), encoding.pattern(), data)
            .map(|inner| Builder {
                encoding,
                inner: Box::new(inner),
            })
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
    inner: Box<dyn Steps>,
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
        self.inner.finish().map_err(|err| load_error(encoding, err))
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
