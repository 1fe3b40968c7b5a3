//! One loaded encoding: the rank map parsed from the compact vocabulary, our splitter, a bounded
//! per-piece cache, and the bounded counting procedure.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;
use std::sync::{Mutex, MutexGuard};

use crate::compact;
use crate::ranks::{Rank, Ranks, RanksBuilder};
use crate::split::{Pattern, Splitter};

/// One token of a text, for a view that colours tokens.
///
/// `bytes` is a range into the text's UTF-8 bytes. A token may hold part of a character (an
/// emoji is often split over several tokens), so render `String::from_utf8_lossy` of the range,
/// or merge neighbouring spans until they end on a character boundary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenSpan {
    /// The token id, or `None` for an over-long piece that was estimated, not tokenised.
    pub token: Option<Rank>,
    pub bytes: Range<usize>,
}

/// What counting a text found: the number of tokens, and whether part of it was estimated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub tokens: u64,
    /// Some piece was longer than the limit, so `tokens` holds an estimate for it.
    pub estimated: bool,
}

/// Where [`Vocabulary::count_growing`] stands in a growing text: the byte offset of the last
/// settled piece boundary, and the count of the text before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Growing {
    pub settled: usize,
    pub tally: Tally,
}

/// Why a vocabulary could not be built. The messages are those of the two causes.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LoadError {
    /// The compact file is malformed, for another encoding, or not a usable BPE vocabulary.
    #[error(transparent)]
    Format(#[from] compact::FormatError),
    /// The splitter's regex did not compile.
    #[error(transparent)]
    Pattern(#[from] Box<regex_automata::hybrid::BuildError>),
}

pub struct Vocabulary {
    ranks: Ranks,
    splitter: Splitter,
    pieces: Mutex<PieceCache>,
}

/// A stretch of text and how it is handled.
enum Segment {
    /// One piece no longer than `max_piece_bytes`: tokenised exactly.
    Exact(Range<usize>),
    /// One piece longer than `max_piece_bytes`: counted by estimate.
    TooLong(Range<usize>),
}

/// A [`Vocabulary`] being built a step at a time, so that a page can build one between frames:
/// [`VocabularyBuilder::new`] parses the file (one pass over its bytes), each
/// [`VocabularyBuilder::step`] indexes a bounded number of tokens, and
/// [`VocabularyBuilder::finish`] compiles the splitter.
pub struct VocabularyBuilder {
    ranks: RanksBuilder,
    ranks_done: bool,
    pattern: Pattern,
    /// Compiled by the step after the last token is indexed, so that it runs alone.
    splitter: Option<Splitter>,
}

impl VocabularyBuilder {
    /// Parses a compact vocabulary (see `compact.rs`) of the encoding named `name`, to be split
    /// with `pattern`; no token is indexed yet.
    pub fn new(name: &str, pattern: Pattern, data: &[u8]) -> Result<Self, LoadError> {
        let parsed = compact::parse(name, data)?;
        Ok(VocabularyBuilder {
            ranks: RanksBuilder::new(parsed),
            ranks_done: false,
            pattern,
            splitter: None,
        })
    }

    /// Indexes up to `tokens` more tokens, or, once all are, compiles the splitter (a step of
    /// its own); true when nothing is left for [`VocabularyBuilder::finish`] but assembly.
    pub fn step(&mut self, tokens: usize) -> Result<bool, LoadError> {
        if !self.ranks_done {
            self.ranks_done = self.ranks.step(tokens)?;
            return Ok(false);
        }
        if self.splitter.is_none() {
            self.splitter = Some(Splitter::new(self.pattern)?);
        }
        Ok(true)
    }

    /// The vocabulary, indexing whatever the steps left.
    pub fn finish(self) -> Result<Vocabulary, LoadError> {
        let ranks = self.ranks.finish()?;
        let splitter = match self.splitter {
            Some(splitter) => splitter,
            None => Splitter::new(self.pattern)?,
        };
        Ok(Vocabulary {
            ranks,
            splitter,
            pieces: Mutex::new(PieceCache::default()),
        })
    }
}

impl Vocabulary {
    /// Parses a compact vocabulary (see `compact.rs`) of the encoding named `name`, to be split
    /// with `pattern`.
    pub fn from_compact(name: &str, pattern: Pattern, data: &[u8]) -> Result<Self, LoadError> {
        VocabularyBuilder::new(name, pattern, data)?.finish()
    }

    /// Counts `text`, answering repeated multi-token pieces from the per-piece cache.
    pub fn count(&self, text: &str, max_piece_bytes: usize) -> Tally {
        let mut cache = self.piece_cache();
        self.count_by(text, max_piece_bytes, |piece| {
            if let Some(n) = cache.get(piece) {
                return n;
            }
            let n = self.ranks.count(piece);
            cache.insert(piece, n);
            n
        })
    }

    /// Counts `text`, a text that grows at its end (a reply arriving), recounting only what
    /// follows the last piece boundary that no continuation can move ([`Splitter::settled`]).
    /// `growing` holds that boundary and the count before it; pass the same one with each
    /// longer version of the text (a fresh one for a new text). The result equals [`count`]'s
    /// on the whole text; a `growing` that does not fit the text is started again.
    ///
    /// [`count`]: Vocabulary::count
    pub fn count_growing(
        &self,
        text: &str,
        max_piece_bytes: usize,
        growing: &mut Growing,
    ) -> Tally {
        if growing.settled > text.len() || !text.is_char_boundary(growing.settled) {
            *growing = Growing::default();
        }
        let settled = self.splitter.settled(text, growing.settled);
        if !settled.pieces.is_empty() {
            let mut cache = self.piece_cache();
            for piece in settled.pieces {
                let part = self.tally_piece(&text[piece], max_piece_bytes, &mut cache);
                growing.tally.tokens += part.tokens;
                growing.tally.estimated |= part.estimated;
            }
        }
        growing.settled = settled.end;
        let tail = self.count(&text[settled.end..], max_piece_bytes);
        Tally {
            tokens: growing.tally.tokens + tail.tokens,
            estimated: growing.tally.estimated || tail.estimated,
        }
    }

    /// One piece's count, as [`Vocabulary::count`] counts it.
    fn tally_piece(&self, piece: &str, max_piece_bytes: usize, cache: &mut PieceCache) -> Tally {
        if piece.len() > max_piece_bytes {
            return Tally {
                tokens: self.estimate_piece(piece),
                estimated: true,
            };
        }
        let bytes = piece.as_bytes();
        let tokens = if bytes.len() == 1 || self.ranks.get(bytes).is_some() {
            1
        } else if let Some(n) = cache.get(bytes) {
            n as u64
        } else {
            let n = self.ranks.count(bytes);
            cache.insert(bytes, n);
            n as u64
        };
        Tally {
            tokens,
            estimated: false,
        }
    }

    /// Counts `text` running BPE on every piece, for tests that the cache changes nothing.
    pub fn count_without_piece_cache(&self, text: &str, max_piece_bytes: usize) -> Tally {
        self.count_by(text, max_piece_bytes, |piece| self.ranks.count(piece))
    }

    pub fn clear_piece_cache(&self) {
        self.piece_cache().clear();
    }

    /// Counts with `multi` answering the pieces that are not a single token.
    fn count_by(
        &self,
        text: &str,
        max_piece_bytes: usize,
        mut multi: impl FnMut(&[u8]) -> usize,
    ) -> Tally {
        let mut total: u64 = 0;
        let mut estimated = false;
        self.segments(text, max_piece_bytes, |segment| match segment {
            Segment::Exact(range) => {
                let piece = &text.as_bytes()[range];
                // Most pieces are one token (a word with its leading space); those cost one
                // lookup and never touch the cache.
                total += if piece.len() == 1 || self.ranks.get(piece).is_some() {
                    1
                } else {
                    multi(piece) as u64
                };
            }
            Segment::TooLong(range) => {
                total += self.estimate_piece(&text[range]);
                estimated = true;
            }
        });
        Tally {
            tokens: total,
            estimated,
        }
    }

    /// The tokens of `text`, pieces longer than `max_piece_bytes` as one untokenised span.
    pub fn tokens_of(&self, text: &str, max_piece_bytes: usize) -> Vec<TokenSpan> {
        let mut spans = Vec::new();
        let mut ranks = Vec::new();
        self.segments(text, max_piece_bytes, |segment| match segment {
            Segment::Exact(range) => {
                ranks.clear();
                self.ranks
                    .encode(&text.as_bytes()[range.clone()], &mut ranks);
                let mut at = range.start;
                for &token in &ranks {
                    // The bytes of a piece's tokens concatenate to the piece, so the running
                    // offset gives each token's range.
                    let len = self.ranks.bytes_of(token).len();
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

    /// Calls `each` with the pieces of `text`, in order.
    fn segments(&self, text: &str, max_piece_bytes: usize, mut each: impl FnMut(Segment)) {
        for piece in self.splitter.pieces(text) {
            if piece.len() > max_piece_bytes {
                each(Segment::TooLong(piece));
            } else {
                each(Segment::Exact(piece));
            }
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
        let sample_tokens: u64 = self
            .splitter
            .pieces(sample)
            .map(|p| self.ranks.count(&sample.as_bytes()[p]) as u64)
            .sum();
        (sample_tokens * piece.len() as u64).div_ceil(sample.len() as u64)
    }

    /// The rank map, for tests.
    pub fn ranks(&self) -> &Ranks {
        &self.ranks
    }

    fn piece_cache(&self) -> MutexGuard<'_, PieceCache> {
        // Insertions are single map operations, so a poisoned lock holds nothing half-written.
        self.pieces
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// How much of an over-long piece is tokenised to estimate the rest.
const ESTIMATE_SAMPLE_BYTES: usize = 1024;

/// Token counts of pieces that BPE splits into several tokens (a rare word, a number, a run of
/// punctuation, a CJK or Devanagari word), keyed by the piece's bytes. Real text repeats them
/// often, and a lookup is far cheaper than a merge. Bounded in entries and in key bytes: when
/// either bound is reached the cache starts over, which costs only recomputation.
#[derive(Default)]
struct PieceCache {
    map: HashMap<Box<[u8]>, usize, BuildHasherDefault<PieceHasher>>,
    key_bytes: usize,
}

const MAX_CACHED_PIECES: usize = 1 << 15;
const MAX_CACHED_KEY_BYTES: usize = 1 << 20;
/// Longer pieces are not cached: they are rare, and would crowd out the common ones.
const MAX_CACHED_PIECE_LEN: usize = 256;

impl PieceCache {
    fn get(&self, piece: &[u8]) -> Option<usize> {
        self.map.get(piece).copied()
    }

    fn insert(&mut self, piece: &[u8], count: usize) {
        if piece.len() > MAX_CACHED_PIECE_LEN {
            return;
        }
        if self.map.len() >= MAX_CACHED_PIECES
            || self.key_bytes + piece.len() > MAX_CACHED_KEY_BYTES
        {
            self.clear();
        }
        self.key_bytes += piece.len();
        self.map.insert(piece.into(), count);
    }

    fn clear(&mut self) {
        self.map.clear();
        self.key_bytes = 0;
    }
}

/// FxHash over whole words: the keys are short byte strings of the user's own text, so there is
/// no hash flooding to defend against, and SipHash would cost more than the lookup saves.
#[derive(Default)]
struct PieceHasher(u64);

impl Hasher for PieceHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0xf135_7aea_2e62_a9c5;
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let w = u64::from_le_bytes(word.try_into().expect("eight bytes"));
            self.0 = (self.0.rotate_left(26) ^ w).wrapping_mul(K);
        }
        for &b in words.remainder() {
            self.0 = (self.0.rotate_left(26) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (self.0.rotate_left(26) ^ n as u64).wrapping_mul(0xf135_7aea_2e62_a9c5);
    }

    fn finish(&self) -> u64 {
        // The multiply leaves the low bits weakest, and the map picks buckets by them.
        self.0.rotate_left(26)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiny::{self, rank};

    fn tiny_vocab() -> Vocabulary {
        Vocabulary::from_compact("tiny", Pattern::O200k, &tiny::compact()).unwrap()
    }

    const TEXTS: &[&str] = &[
        "hello world",
        "abcd abcd bcd hello helo",
        "  whitespace   runs\n\nand 12345 numbers!!",
        "Ünïcödé bytes merge byte by byte",
        "",
    ];

    #[test]
    fn a_growing_text_counts_like_the_whole_text_at_every_length() {
        let vocab = tiny_vocab();
        for text in TEXTS.iter().chain(&["hello  \n\n  world's 1234567 !!!abc"]) {
            let mut growing = Growing::default();
            let mut last_settled = 0;
            for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                let prefix = &text[..end];
                assert_eq!(
                    vocab.count_growing(prefix, 64, &mut growing),
                    vocab.count(prefix, 64),
                    "{prefix:?}"
                );
                assert!(growing.settled >= last_settled && growing.settled <= end);
                last_settled = growing.settled;
            }
            // By the end of a text with several words, most of it is settled.
            if text.len() > 20 {
                assert!(growing.settled > text.len() / 2, "{text:?}: {growing:?}");
            }
        }
        // A growing state that does not fit the text is started again.
        let mut stale = Growing {
            settled: 999,
            tally: Tally::default(),
        };
        assert_eq!(
            vocab.count_growing("hello", 64, &mut stale),
            vocab.count("hello", 64)
        );
    }

    #[test]
    fn counts_follow_the_pieces_and_their_merges() {
        let vocab = tiny_vocab();
        // "hello" is one token; " world" is " w" then four single bytes.
        assert_eq!(
            vocab.count("hello world", 64),
            Tally {
                tokens: 1 + 5,
                estimated: false
            }
        );
        let spans = vocab.tokens_of("hello world", 64);
        let tokens: Vec<Option<Rank>> = spans.iter().map(|s| s.token).collect();
        assert_eq!(tokens[..2], [Some(rank("hello")), Some(rank(" w"))]);
        assert_eq!(spans[1].bytes, 5..7);
        assert_eq!(spans.last().unwrap().bytes, 10..11);
    }

    #[test]
    fn cached_counts_equal_uncached_ones() {
        let vocab = tiny_vocab();
        for round in 0..2 {
            for text in TEXTS {
                assert_eq!(
                    vocab.count(text, 64),
                    vocab.count_without_piece_cache(text, 64),
                    "round {round}, {text:?}"
                );
                assert_eq!(
                    vocab.count(text, 64).tokens,
                    vocab.tokens_of(text, 64).len() as u64,
                    "{text:?}"
                );
            }
        }
        assert!(!vocab.piece_cache().map.is_empty());
        vocab.clear_piece_cache();
        assert!(vocab.piece_cache().map.is_empty());
        assert_eq!(vocab.piece_cache().key_bytes, 0);
    }

    #[test]
    fn over_long_pieces_are_estimated() {
        let vocab = tiny_vocab();
        let run = "ab".repeat(100);
        let exact = vocab.count(&run, 1000);
        assert_eq!(
            exact,
            Tally {
                tokens: 100,
                estimated: false
            }
        );
        let estimate = vocab.count(&run, 50);
        assert!(estimate.estimated);
        assert_eq!(estimate.tokens, 100, "a steady run is estimated exactly");
        let spans = vocab.tokens_of(&run, 50);
        assert_eq!(
            spans,
            [TokenSpan {
                token: None,
                bytes: 0..200
            }]
        );
    }

    #[test]
    fn the_piece_cache_stays_within_its_bounds() {
        let mut cache = PieceCache::default();
        for i in 0..MAX_CACHED_PIECES + 10 {
            cache.insert(format!("p{i}").as_bytes(), i);
            assert!(cache.map.len() <= MAX_CACHED_PIECES);
        }
        // Reaching the entry bound started the cache over, so the newest pieces are there.
        let last = MAX_CACHED_PIECES + 9;
        assert_eq!(cache.get(format!("p{last}").as_bytes()), Some(last));
        assert_eq!(cache.get(b"p0"), None);

        let mut cache = PieceCache::default();
        let piece = vec![b'k'; MAX_CACHED_PIECE_LEN];
        for i in 0..(MAX_CACHED_KEY_BYTES / MAX_CACHED_PIECE_LEN) * 2 {
            let mut key = piece.clone();
            key[..8].copy_from_slice(&(i as u64).to_le_bytes());
            cache.insert(&key, i);
            assert!(cache.key_bytes <= MAX_CACHED_KEY_BYTES);
            assert_eq!(cache.key_bytes, cache.map.len() * MAX_CACHED_PIECE_LEN);
        }
        // A piece over the length bound is never cached.
        let long = vec![b'z'; MAX_CACHED_PIECE_LEN + 1];
        cache.insert(&long, 1);
        assert_eq!(cache.get(&long), None);
    }

    #[test]
    fn a_vocabulary_built_in_steps_counts_like_one_built_at_once() {
        let mut builder = VocabularyBuilder::new("tiny", Pattern::O200k, &tiny::compact()).unwrap();
        let mut steps = 1;
        while !builder.step(7).unwrap() {
            steps += 1;
        }
        // 256 single bytes and 9 merges, 7 a step, then the splitter's step.
        assert_eq!(steps, (256 + 9usize).div_ceil(7) + 1);
        let stepped = builder.finish().unwrap();
        let whole = tiny_vocab();
        for text in TEXTS {
            assert_eq!(stepped.count(text, 64), whole.count(text, 64), "{text:?}");
            assert_eq!(stepped.tokens_of(text, 64), whole.tokens_of(text, 64));
        }
        // Finishing early indexes the rest.
        let mut early = VocabularyBuilder::new("tiny", Pattern::O200k, &tiny::compact()).unwrap();
        assert!(!early.step(3).unwrap());
        assert_eq!(early.finish().unwrap().count("hello", 64).tokens, 1);
    }

    #[test]
    fn a_bad_file_says_why() {
        let err = Vocabulary::from_compact("o200k_base", Pattern::O200k, &tiny::compact())
            .err()
            .expect("another encoding's name");
        assert_eq!(err.to_string(), "the file holds tiny, not o200k_base");
        let err = Vocabulary::from_compact("tiny", Pattern::O200k, b"nope")
            .err()
            .expect("no header");
        assert!(matches!(
            err,
            LoadError::Format(compact::FormatError::Truncated)
        ));
    }
}
