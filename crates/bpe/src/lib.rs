//! The hot part of Summary Memory's token counter, in a crate of its own so that the app's
//! release profile can build it at opt-level 3 while the rest of the wasm stays at "z" (see the
//! workspace Cargo.toml): code generic over a hasher or a closure is compiled in the crate that
//! instantiates it, so the per-piece cache and the merge loop have to live here to be optimised
//! for speed.
//!
//! - [`compact`]: the vocabulary file format, written at build time and parsed in the browser;
//! - [`Ranks`]: the rank map built straight from that file, and tiktoken's byte-pair merge;
//! - [`Splitter`]: tiktoken's pre-tokenising regexes on a non-backtracking engine;
//! - [`Vocabulary`]: counting piece by piece with a bounded per-piece cache, estimates for
//!   over-long pieces.
//!
//! Pure Rust: no web crates, no I/O, no clock. `summary_memory::tokens` wraps it with the
//! encodings, the loading states and the per-text cache; the tests against tiktoken-rs live
//! there.

pub mod compact;
mod ranks;
mod split;
mod vocab;

pub use ranks::{Rank, Ranks};
pub use split::{Pattern, Pieces, Splitter};
pub use vocab::{LoadError, Tally, TokenSpan, Vocabulary};
