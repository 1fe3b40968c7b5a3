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
//!
//! One concept per file: [`compact`] names the vocabulary file of each encoding and, natively,
//! writes it from tiktoken-rs's data; `vocab.rs` wraps `sm_bpe::Vocabulary` in this module's
//! [`Count`] (`count.rs`, with the [`Limits`]); `encoding.rs` holds [`Encoding`] and
//! [`TokensError`]; `load_state.rs` holds [`LoadState`], where a vocabulary's loading stands;
//! `counter.rs` holds [`TokenCounter`], which loads at once
//! ([`TokenCounter::load_from`]) or in slices (`start_loading`, `Loading::step`,
//! `finish_loading`), counts a growing text from its settled boundary
//! ([`TokenCounter::count_growing_with`], the state kept in the engine's `GrowingCount`), and
//! turns to rough estimates after `fail`; `chat.rs` adds the chat format's overhead; and
//! `tests.rs` checks the crate against tiktoken-rs (splitter, merge, counts, the piece cache).

mod cache;
mod chat;
pub mod compact;
mod count;
mod counter;
mod encoding;
mod load_state;
mod prebuilt;
mod vocab;

pub use cache::CacheStats;
pub use chat::{
    ChatCount, ChatTurn, REPLY_PRIMING, TOKENS_PER_MESSAGE, TOKENS_PER_NAME, TurnCount,
};
pub use count::{Count, Limits};
pub use counter::{Loading, StartLoading, TokenCounter, rough_estimate};
pub use encoding::{Encoding, TokensError};
pub use load_state::LoadState;
pub use prebuilt::{prebuilt_count, prebuilt_len, text_key};
/// One token of a text, for a view that colours tokens (see [`sm_bpe::TokenSpan`]).
pub use sm_bpe::TokenSpan;

#[cfg(test)]
mod tests;
