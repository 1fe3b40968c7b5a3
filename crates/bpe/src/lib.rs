//! The hot part of Summary Memory's token counter, in a crate of its own so that the app's
//! release profile can build it at opt-level 3 while the rest of the wasm stays at "z" (see the
//! workspace Cargo.toml): code generic over a hasher or a closure is compiled in the crate that
//! instantiates it, so the per-piece cache and the merge loop have to live here to be optimised
//! for speed.
//!
//! - [`compact`]: the vocabulary file format, written at build time and parsed in the browser;
//! - [`Ranks`]: the rank map built straight from that file (layered by key length, see
//!   `ranks.rs`), a step at a time by [`RanksBuilder`], and tiktoken's byte-pair merge;
//! - [`Splitter`]: tiktoken's pre-tokenising regexes on a non-backtracking engine, and
//!   [`Splitter::settled`], the last piece boundary of a growing text that no continuation can
//!   move;
//! - [`Vocabulary`]: counting piece by piece with a bounded per-piece cache, estimates for
//!   over-long pieces, [`Vocabulary::count_growing`] (a growing text recounted only after its
//!   settled boundary, which [`Growing`] keeps), and [`VocabularyBuilder`], which parses,
//!   indexes in steps and compiles the splitter in a step of its own.
//!
//! `cargo test -p sm-bpe` tests each file on a tiny hand-made vocabulary.
//!
//! Pure Rust: no web crates, no I/O, no clock. `summary_memory::tokens` wraps it with the
//! encodings, the loading states and the per-text cache; the tests against tiktoken-rs live
//! there.

pub mod compact;
mod ranks;
mod split;
mod vocab;

pub use ranks::{Rank, Ranks, RanksBuilder};
pub use split::{Pattern, Pieces, Settled, Splitter};
pub use vocab::{Growing, LoadError, Tally, TokenSpan, Vocabulary, VocabularyBuilder};

/// A hand-made vocabulary for this crate's tests: every single byte at ranks 0 to 255 (BPE
/// needs them), then a few merges whose ranks decide the order in which BPE applies them.
#[cfg(test)]
mod tiny {
    use crate::compact;

    /// The merged tokens after the 256 single bytes, in rank order: "ab" is 256, "bc" 257, ...
    pub const MERGES: &[&str] = &["ab", "bc", "abc", "cd", "he", "ll", "hell", "hello", " w"];

    /// The rank of a merged token of [`MERGES`].
    pub fn rank(token: &str) -> u32 {
        256 + MERGES
            .iter()
            .position(|t| *t == token)
            .expect("a tiny token") as u32
    }

    /// `(rank, bytes)` of every token.
    pub fn tokens() -> Vec<(u32, Vec<u8>)> {
        (0..=255u8)
            .map(|b| (u32::from(b), vec![b]))
            .chain(
                MERGES
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (256 + i as u32, t.as_bytes().to_vec())),
            )
            .collect()
    }

    /// The compact file of the tiny vocabulary, named "tiny".
    pub fn compact() -> Vec<u8> {
        let tokens = tokens();
        compact::encode("tiny", tokens.iter().map(|(r, b)| (*r, b.as_slice())))
            .expect("the tiny tokens are short")
    }
}
