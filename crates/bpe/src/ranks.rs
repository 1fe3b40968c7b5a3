//! Byte-pair encoding over a compact vocabulary: the rank map, and tiktoken's merge procedure.
//!
//! The map is built straight from the parsed compact form, with no per-token allocation, and is
//! layered by key length, after the `tiktoken` crate's vocabulary (MIT OR Apache-2.0; the idea,
//! not its code): the merge is lookup-bound, most of its lookups are misses, and most keys are
//! short, the initial pair scan's all two bytes long. So
//! - one-byte keys are a table of 256 ranks, two-byte keys a direct table of 65,536: no hash, no
//!   probe, no comparison;
//! - keys of three to eight bytes live inline in an open-addressing slot (the key as a
//!   zero-padded `u64`, its length beside it): a probe is one load and one compare, and a miss
//!   ends at the first empty slot without touching the token bytes;
//! - longer keys keep their full hash in the slot, so the token bytes are read only on a
//!   probable hit.
//!
//! [`RanksBuilder`] indexes the tokens a step at a time, so a page can build the map between
//! frames instead of in one long task. The merge is a port of tiktoken's `_byte_pair_merge` (MIT
//! licence, as vendored in tiktoken-rs 0.12): repeatedly merge the adjacent pair whose
//! concatenation has the lowest rank, the leftmost on a tie. Tests check it against tiktoken-rs
//! token for token.

use std::collections::BinaryHeap;

use crate::compact::{FormatError, Parsed};

/// A token's id in its vocabulary; lower ranks merge first.
pub type Rank = u32;

const EMPTY: Rank = Rank::MAX;

/// Keys up to this many bytes are held inline in a slot.
const INLINE_MAX: usize = 8;

/// One slot of the table of keys longer than two bytes. `len == 0` marks a free slot. For keys
/// of up to [`INLINE_MAX`] bytes `key` is the bytes themselves, zero-padded little-endian (the
/// length tells "ab" from "ab\0"); for longer ones it is the key's full hash.
#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    rank: Rank,
    len: u32,
}

const FREE: Slot = Slot {
    key: 0,
    rank: EMPTY,
    len: 0,
};

/// Every ordinary token of one vocabulary: rank → bytes and bytes → rank.
pub struct Ranks {
    bytes: Vec<u8>,
    starts: Vec<u32>,
    single: [Rank; 256],
    /// Indexed by `first << 8 | second`.
    pair: Vec<Rank>,
    /// Open addressing with linear probing, at most half full.
    table: Vec<Slot>,
    /// `64 - log2(table.len())`: the hash's top bits pick the slot.
    shift: u32,
}

/// Builds a [`Ranks`] a step at a time: [`RanksBuilder::step`] indexes a bounded number of
/// tokens, so a caller on a page's main thread can yield between steps.
pub struct RanksBuilder {
    ranks: Ranks,
    next: Rank,
    count: Rank,
}

impl RanksBuilder {
    /// Starts indexing a parsed vocabulary; nothing is indexed yet.
    pub fn new(parsed: Parsed) -> RanksBuilder {
        let Parsed { bytes, starts } = parsed;
        let count = starts.len().saturating_sub(1);
        let slots = (count * 2).next_power_of_two().max(16);
        RanksBuilder {
            ranks: Ranks {
                bytes,
                starts,
                single: [EMPTY; 256],
                pair: vec![EMPTY; 1 << 16],
                table: vec![FREE; slots],
                shift: 64 - slots.trailing_zeros(),
            },
            next: 0,
            count: count as Rank,
        }
    }

    /// Indexes up to `tokens` more tokens; true once every token is indexed. Fails on a repeated
    /// token.
    pub fn step(&mut self, tokens: usize) -> Result<bool, FormatError> {
        let end = self.count.min(
            self.next
                .saturating_add(tokens.min(Rank::MAX as usize) as Rank),
        );
        for rank in self.next..end {
            self.ranks.insert(rank)?;
        }
        self.next = end;
        Ok(self.next == self.count)
    }

    /// The map, once every token is indexed. Fails on a missing single byte, or if steps remain.
    pub fn finish(mut self) -> Result<Ranks, FormatError> {
        while !self.step(usize::MAX)? {}
        // BPE starts from single bytes, so each must be a token, or a piece could not be encoded.
        for byte in 0..=u8::MAX {
            if self.ranks.single[usize::from(byte)] == EMPTY {
                return Err(FormatError::MissingByte(byte));
            }
        }
        Ok(self.ranks)
    }
}

impl Ranks {
    /// Indexes a parsed vocabulary. Fails on a repeated token or a missing single byte.
    pub fn new(parsed: Parsed) -> Result<Ranks, FormatError> {
        RanksBuilder::new(parsed).finish()
    }

    fn insert(&mut self, rank: Rank) -> Result<(), FormatError> {
        let (start, end) = (
            self.starts[rank as usize] as usize,
            self.starts[rank as usize + 1] as usize,
        );
        let held = match end - start {
            0 => return Ok(()),
            1 => &mut self.single[usize::from(self.bytes[start])],
            2 => {
                let at = usize::from(self.bytes[start]) << 8 | usize::from(self.bytes[start + 1]);
                &mut self.pair[at]
            }
            len => {
                let token = &self.bytes[start..end];
                let (key, hash) = key_and_hash(token);
                let mut slot = (hash >> self.shift) as usize;
                let mask = self.table.len() - 1;
                loop {
                    let s = self.table[slot];
                    if s.len == 0 {
                        self.table[slot] = Slot {
                            key,
                            rank,
                            len: len as u32,
                        };
                        return Ok(());
                    }
                    if s.len == len as u32
                        && s.key == key
                        && (len <= INLINE_MAX || self.bytes_of(s.rank) == token)
                    {
                        return Err(FormatError::Duplicate { rank });
                    }
                    slot = (slot + 1) & mask;
                }
            }
        };
        if *held != EMPTY {
            return Err(FormatError::Duplicate { rank });
        }
        *held = rank;
        Ok(())
    }

    /// The rank of the token whose bytes are exactly `token`.
    #[inline]
    pub fn get(&self, token: &[u8]) -> Option<Rank> {
        let rank = match token.len() {
            0 => return None,
            1 => self.single[usize::from(token[0])],
            2 => self.pair[usize::from(token[0]) << 8 | usize::from(token[1])],
            len => {
                let (key, hash) = key_and_hash(token);
                let mut slot = (hash >> self.shift) as usize;
                let mask = self.table.len() - 1;
                loop {
                    let s = &self.table[slot];
                    if s.len == 0 {
                        return None;
                    }
                    if s.len == len as u32
                        && s.key == key
                        && (len <= INLINE_MAX || self.bytes_of(s.rank) == token)
                    {
                        return Some(s.rank);
                    }
                    slot = (slot + 1) & mask;
                }
            }
        };
        (rank != EMPTY).then_some(rank)
    }

    /// The bytes of `rank` (empty for a rank that holds no token).
    #[inline]
    pub fn bytes_of(&self, rank: Rank) -> &[u8] {
        let r = rank as usize;
        match (self.starts.get(r), self.starts.get(r + 1)) {
            (Some(&start), Some(&end)) => &self.bytes[start as usize..end as usize],
            _ => &[],
        }
    }

    /// The number of tokens BPE turns `piece` into.
    pub fn count(&self, piece: &[u8]) -> usize {
        match piece.len() {
            0 => 0,
            1 => 1,
            _ if self.get(piece).is_some() => 1,
            n if n < LARGE_PIECE => {
                let mut parts = Parts::new();
                merge(self, piece, &mut parts);
                parts.len - 1
            }
            _ => merge_large(self, piece).len(),
        }
    }

    /// The tokens BPE turns `piece` into, appended to `out`.
    pub fn encode(&self, piece: &[u8], out: &mut Vec<Rank>) {
        if piece.is_empty() {
            return;
        }
        if let Some(rank) = self.get(piece) {
            out.push(rank);
            return;
        }
        if piece.len() < LARGE_PIECE {
            let mut parts = Parts::new();
            merge(self, piece, &mut parts);
            let parts = parts.as_slice();
            out.extend(
                parts
                    .windows(2)
                    .map(|w| self.rank_of(&piece[w[0].0 as usize..w[1].0 as usize])),
            );
        } else {
            out.extend(merge_large(self, piece));
        }
    }

    fn rank_of(&self, token: &[u8]) -> Rank {
        // Every part the merge leaves is a token: a single byte or a merged pair it looked up.
        self.get(token).unwrap_or(EMPTY)
    }
}

/// The slot key of a token longer than two bytes, and the hash that places it.
#[inline]
fn key_and_hash(token: &[u8]) -> (u64, u64) {
    if token.len() <= INLINE_MAX {
        let key = inline_key(token);
        let h = key
            .wrapping_add((token.len() as u64).wrapping_mul(0xa24b_aed4_963e_e407))
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (key, h ^ (h >> 29))
    } else {
        let h = hash(token);
        (h, h)
    }
}

/// Three to eight bytes as a zero-padded little-endian `u64`, by two overlapping reads.
#[inline]
fn inline_key(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    if len >= 4 {
        let lo = u64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]));
        let hi = u64::from(u32::from_le_bytes([
            bytes[len - 4],
            bytes[len - 3],
            bytes[len - 2],
            bytes[len - 1],
        ]));
        // The reads overlap on 8 - len bytes, which hold the same bits in both.
        lo | (hi << ((len - 4) * 8))
    } else {
        u64::from(bytes[0]) | u64::from(bytes[1]) << 8 | u64::from(bytes[2]) << 16
    }
}

/// tiktoken switches to its heap-based merge at this piece length.
const LARGE_PIECE: usize = 100;

/// An FxHash-style multiply-rotate hash over 8-byte words: fast for the short keys BPE looks up.
#[inline]
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let w = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        h = (h ^ w).wrapping_mul(K).rotate_left(26);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut buf = [0u8; 8];
        buf[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(buf))
            .wrapping_mul(K)
            .rotate_left(26);
    }
    // The top bits pick the slot, so fold the well-mixed middle bits into them.
    (h ^ (h >> 29)).wrapping_mul(K)
}

/// The part boundaries of a piece shorter than [`LARGE_PIECE`], on the stack: `(start, rank of
/// the pair that starts here)`, ending with the piece's length.
struct Parts {
    items: [(u32, Rank); LARGE_PIECE + 1],
    len: usize,
}

impl Parts {
    fn new() -> Parts {
        Parts {
            items: [(0, Rank::MAX); LARGE_PIECE + 1],
            len: 0,
        }
    }

    fn as_slice(&self) -> &[(u32, Rank)] {
        &self.items[..self.len]
    }
}

/// tiktoken's `_byte_pair_merge` into `parts`. Quadratic, but such pieces are short.
fn merge(ranks: &Ranks, piece: &[u8], parts: &mut Parts) {
    debug_assert!(piece.len() >= 2 && piece.len() < LARGE_PIECE);
    let n = piece.len();
    let items = &mut parts.items;
    let mut min_rank: (Rank, usize) = (Rank::MAX, usize::MAX);
    for i in 0..n - 1 {
        let rank = ranks.pair[usize::from(piece[i]) << 8 | usize::from(piece[i + 1])];
        if rank < min_rank.0 {
            min_rank = (rank, i);
        }
        items[i] = (i as u32, rank);
    }
    items[n - 1] = ((n - 1) as u32, Rank::MAX);
    items[n] = (n as u32, Rank::MAX);
    let mut len = n + 1;

    let get_rank = |items: &[(u32, Rank)], len: usize, i: usize| {
        if i + 3 < len {
            ranks
                .get(&piece[items[i].0 as usize..items[i + 3].0 as usize])
                .unwrap_or(Rank::MAX)
        } else {
            Rank::MAX
        }
    };

    while min_rank.0 != Rank::MAX {
        let i = min_rank.1;
        if i > 0 {
            items[i - 1].1 = get_rank(items, len, i - 1);
        }
        items[i].1 = get_rank(items, len, i);
        items.copy_within(i + 2..len, i + 1);
        len -= 1;

        min_rank = (Rank::MAX, usize::MAX);
        for (i, &(_, rank)) in items[..len - 1].iter().enumerate() {
            if rank < min_rank.0 {
                min_rank = (rank, i);
            }
        }
    }
    parts.len = len;
}

#[derive(Eq, PartialEq, Clone, Copy)]
struct Merge {
    start: usize,
    rank: Rank,
}

impl Ord for Merge {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // A max-heap that pops the lowest rank first, and the leftmost of equal ranks.
        other
            .rank
            .cmp(&self.rank)
            .then_with(|| other.start.cmp(&self.start))
    }
}

impl PartialOrd for Merge {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

struct State {
    prev: usize,
    end: usize,
    next_end: usize,
    next_rank: Rank,
    cur_rank: Rank,
}

/// tiktoken's `_byte_pair_merge_large`: the same merges in O(n log n) with a heap and a linked
/// list over the parts, for long pieces. Returns the ranks.
fn merge_large(ranks: &Ranks, piece: &[u8]) -> Vec<Rank> {
    let mut state = Vec::with_capacity(piece.len());
    state.push(State {
        prev: usize::MAX,
        end: 1,
        next_end: 2,
        next_rank: Rank::MAX,
        cur_rank: Rank::MAX,
    });
    let mut heap = BinaryHeap::with_capacity(piece.len());
    for i in 0..piece.len() - 1 {
        if let Some(rank) = ranks.get(&piece[i..i + 2]) {
            heap.push(Merge { start: i, rank });
            state[i].next_rank = rank;
        }
        state.push(State {
            prev: i,
            end: i + 2,
            next_end: i + 3,
            next_rank: Rank::MAX,
            cur_rank: Rank::MAX,
        });
    }

    let potential_merge =
        |state: &mut Vec<State>, heap: &mut BinaryHeap<Merge>, start: usize, next_end: usize| {
            state[start].next_end = next_end;
            state[start].next_rank = Rank::MAX;
            if next_end <= piece.len()
                && let Some(rank) = ranks.get(&piece[start..next_end])
            {
                heap.push(Merge { start, rank });
                state[start].next_rank = rank;
            }
        };

    while let Some(left) = heap.pop() {
        if left.rank == Rank::MAX {
            break;
        }
        if left.rank != state[left.start].next_rank {
            continue;
        }
        let left_start = left.start;
        let right_start = state[left_start].end;
        let right_end = state[left_start].next_end;
        let right_next_end = state[right_start].next_end;

        state[left_start].cur_rank = state[left_start].next_rank;
        state[left_start].end = right_end;
        potential_merge(&mut state, &mut heap, left_start, right_next_end);
        if right_end < state.len() {
            state[right_end].prev = left_start;
        }
        if left_start > 0 {
            let prev_start = state[left_start].prev;
            potential_merge(&mut state, &mut heap, prev_start, right_end);
        }
        state[right_start].next_rank = Rank::MAX;
    }

    let mut result = Vec::new();
    let mut i = 0;
    while i < state.len() {
        if state[i].cur_rank != Rank::MAX {
            result.push(state[i].cur_rank);
        } else {
            result.push(ranks.rank_of(&piece[i..state[i].end]));
        }
        i = state[i].end;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact;
    use crate::tiny::{self, rank};

    fn tiny_ranks() -> Ranks {
        Ranks::new(compact::parse("tiny", &tiny::compact()).unwrap()).unwrap()
    }

    fn encode(ranks: &Ranks, piece: &str) -> Vec<Rank> {
        let mut out = Vec::new();
        ranks.encode(piece.as_bytes(), &mut out);
        out
    }

    #[test]
    fn the_map_finds_every_token_and_nothing_else() {
        let ranks = tiny_ranks();
        for (r, bytes) in tiny::tokens() {
            assert_eq!(ranks.get(&bytes), Some(r));
            assert_eq!(ranks.bytes_of(r), bytes.as_slice());
        }
        assert_eq!(ranks.get(b"abcd"), None);
        assert_eq!(ranks.get(b""), None);
        assert_eq!(ranks.bytes_of(10_000), b"");
    }

    #[test]
    fn merges_apply_the_lowest_rank_first() {
        let ranks = tiny_ranks();
        let check = |piece: &str, expect: &[Rank]| {
            assert_eq!(encode(&ranks, piece), expect, "{piece:?}");
            assert_eq!(ranks.count(piece.as_bytes()), expect.len(), "{piece:?}");
        };
        // "ab" (256) merges before "bc" (257); then "ab"+"c" is "abc" (258), which beats "cd".
        check("abcd", &[rank("abc"), u32::from(b'd')]);
        // Without the "a", "bc" (257) goes before "cd" (259), leaving "d" alone.
        check("bcd", &[rank("bc"), u32::from(b'd')]);
        // "he" and "ll" first, then "hell", then "hello": one token by merges alone.
        check("hello", &[rank("hello")]);
        check("helo", &[rank("he"), u32::from(b'l'), u32::from(b'o')]);
        // On a tie of ranks the leftmost pair merges: "abab" is "ab" twice.
        check("abab", &[rank("ab"), rank("ab")]);
        check("x", &[u32::from(b'x')]);
        check("", &[]);
    }

    #[test]
    fn long_pieces_merge_the_same_way_with_the_heap() {
        let ranks = tiny_ranks();
        // Past LARGE_PIECE bytes the heap-based merge runs; it must agree with the short one.
        let piece = "abcd".repeat(40);
        assert!(piece.len() >= LARGE_PIECE);
        let long = encode(&ranks, &piece);
        let short: Vec<Rank> = (0..40).flat_map(|_| encode(&ranks, "abcd")).collect();
        assert_eq!(long, short);
        assert_eq!(ranks.count(piece.as_bytes()), 80);
        let hellos = " whello".repeat(20);
        assert_eq!(
            encode(&ranks, &hellos),
            [rank(" w"), rank("hello")].repeat(20)
        );
    }

    #[test]
    fn a_vocabulary_that_bpe_cannot_use_is_refused() {
        let mut tokens = tiny::tokens();
        tokens.push((300, b"ab".to_vec()));
        let data = compact::encode("t", tokens.iter().map(|(r, b)| (*r, b.as_slice()))).unwrap();
        assert!(matches!(
            Ranks::new(compact::parse("t", &data).unwrap()),
            Err(FormatError::Duplicate { rank: 300 })
        ));
        let without_q: Vec<_> = tiny::tokens()
            .into_iter()
            .filter(|(_, b)| b != b"q")
            .collect();
        let data = compact::encode("t", without_q.iter().map(|(r, b)| (*r, b.as_slice()))).unwrap();
        assert!(matches!(
            Ranks::new(compact::parse("t", &data).unwrap()),
            Err(FormatError::MissingByte(b'q'))
        ));
    }
}
