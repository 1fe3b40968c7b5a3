//! One loaded encoding: tiktoken-rs's BPE plus our own splitter, and the bounded counting
//! procedure that keeps every input away from tiktoken-rs's panics.

use std::ops::Range;

use tiktoken_rs::CoreBPE;

use super::split::Splitter;
use super::{Count, Encoding, Limits, TokenSpan, TokensError};

pub(crate) struct Vocabulary {
    bpe: CoreBPE,
    splitter: Splitter,
}

/// A stretch of text and how it is handled.
enum Segment {
    /// Whole pieces, none longer than `max_piece_bytes`, which tiktoken-rs splits exactly as it
    /// would split them inside the whole text: safe to give to it.
    Exact(Range<usize>),
    /// One piece longer than `max_piece_bytes`: counted by estimate.
    TooLong(Range<usize>),
}

impl Vocabulary {
    pub(crate) fn load(encoding: Encoding) -> Result<Self, TokensError> {
        let fail = |reason: String| TokensError::Load { encoding, reason };
        // Only these two constructors are called: the by-model lookups in tiktoken-rs would link
        // every vocabulary it embeds into the wasm binary.
        let bpe = match encoding {
            Encoding::O200kBase => tiktoken_rs::o200k_base(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base(),
        }
        .map_err(|e| fail(e.to_string()))?;
        let splitter = Splitter::new(encoding).map_err(fail)?;
        Ok(Vocabulary { bpe, splitter })
    }

    pub(crate) fn count(&self, text: &str, limits: Limits) -> Count {
        let mut total: u64 = 0;
        let mut estimated = false;
        self.segments(text, limits, |segment| match segment {
            Segment::Exact(range) => {
                total += self.bpe.encode_ordinary(&text[range]).len() as u64;
            }
            Segment::TooLong(range) => {
                total += self.estimate_piece(&text[range]);
                estimated = true;
            }
        });
        let total = u32::try_from(total).unwrap_or(u32::MAX);
        if estimated {
            Count::Estimate(total)
        } else {
            Count::Exact(total)
        }
    }

    pub(crate) fn tokens_of(&self, text: &str, limits: Limits) -> Vec<TokenSpan> {
        let mut spans = Vec::new();
        self.segments(text, limits, |segment| match segment {
            Segment::Exact(range) => {
                let mut at = range.start;
                for token in self.bpe.encode_ordinary(&text[range]) {
                    // Every ordinary token decodes to its bytes, and the bytes of a text's tokens
                    // concatenate to the text, so the running offset gives each token's range.
                    let len = self.bpe.decode_bytes(&[token]).map_or(0, |b| b.len());
                    spans.push(TokenSpan {
                        token: Some(token),
                        bytes: at..at + len,
                    });
                    at += len;
                }
            }
            Segment::TooLong(range) => spans.push(TokenSpan {
                token: None,
                bytes: range,
            }),
        });
        spans
    }

    /// Calls `each` with consecutive segments that tile `text`.
    fn segments(&self, text: &str, limits: Limits, mut each: impl FnMut(Segment)) {
        let Limits {
            max_piece_bytes,
            chunk_bytes,
        } = limits;
        // A text no longer than the piece limit cannot hold a longer piece, so it goes to
        // tiktoken-rs whole and the splitter costs nothing for ordinary messages.
        if text.len() <= max_piece_bytes {
            if !text.is_empty() {
                each(Segment::Exact(0..text.len()));
            }
            return;
        }
        // A chunk may only end after a piece whose last character is not whitespace. Inside a
        // chunk tiktoken-rs's regex sees the chunk's end as the end of the text, and only its
        // whitespace alternatives (`\s+$`, `\s+(?!\S)`) behave differently there: ending a chunk
        // on whitespace could merge two whitespace pieces into one (" " + " " before a digit
        // would become "  "). Pieces after the last such safe end are kept in `unsafe_tail`.
        // A single piece is always safe on its own: the regex finds exactly that piece in it.
        let mut chunk_start = 0;
        let mut safe_end = 0;
        let mut unsafe_tail: Vec<Range<usize>> = Vec::new();
        for piece in self.splitter.pieces(text) {
            if piece.len() > max_piece_bytes {
                if safe_end > chunk_start {
                    each(Segment::Exact(chunk_start..safe_end));
                }
                for tail_piece in unsafe_tail.drain(..) {
                    each(Segment::Exact(tail_piece));
                }
                chunk_start = piece.end;
                safe_end = piece.end;
                each(Segment::TooLong(piece));
                continue;
            }
            if piece.end - chunk_start > chunk_bytes && safe_end > chunk_start {
                each(Segment::Exact(chunk_start..safe_end));
                chunk_start = safe_end;
            }
            if text[piece.clone()]
                .chars()
                .next_back()
                .is_some_and(|c| !c.is_whitespace())
            {
                safe_end = piece.end;
                unsafe_tail.clear();
            } else {
                unsafe_tail.push(piece);
            }
        }
        if chunk_start < text.len() {
            each(Segment::Exact(chunk_start..text.len()));
        }
    }

    /// Estimates a piece too long to tokenise in bounded time: it tokenises the piece's first
    /// `ESTIMATE_SAMPLE_BYTES` exactly and scales by length. Such pieces are runs of one kind of
    /// character (whitespace, punctuation, letters without a case change), which BPE splits
    /// into tokens of a steady length, so the sample predicts the rest well: 1 MB of "a" is
    /// estimated at exactly its true count.
    fn estimate_piece(&self, piece: &str) -> u64 {
        let mut cut = ESTIMATE_SAMPLE_BYTES.min(piece.len());
        while !piece.is_char_boundary(cut) {
            cut -= 1;
        }
        let sample = &piece[..cut];
        if sample.is_empty() {
            return 1;
        }
        let sample_tokens = self.bpe.encode_ordinary(sample).len() as u64;
        (sample_tokens * piece.len() as u64).div_ceil(sample.len() as u64)
    }
}

/// How much of an over-long piece is tokenised to estimate the rest.
const ESTIMATE_SAMPLE_BYTES: usize = 1024;
