//! Byte-pair encoding over a compact vocabulary: the rank map, and tiktoken's merge procedure.
//!
//! The map is built straight from the parsed compact form, with no per-token allocation: the
//! tokens' bytes stay in one buffer, and an open-addressing table of ranks indexes them by a hash
//! of their bytes. The merge is a port of tiktoken's `_byte_pair_merge` (MIT licence, as vendored
//! in tiktoken-rs 0.12): repeatedly merge the adjacent pair whose concatenation has the lowest
//! rank, the leftmost on a tie. Tests check it against tiktoken-rs token for token.

use std::collections::BinaryHeap;

use crate::compact::{FormatError, Parsed};

/// A token's id in its vocabulary; lower ranks merge first.
pub type Rank = u32;

const EMPTY: Rank = Rank::MAX;

/// Every ordinary token of one vocabulary: rank → bytes and bytes → rank.
pub struct Ranks {
    bytes: Vec<u8>,
    starts: Vec<u32>,
    /// Open addressing with linear probing; `EMPTY` marks a free slot. Half full at most.
    table: Vec<Rank>,
    /// `64 - log2(table.len())`: the hash's top bits pick the slot.
    shift: u32,
}

impl Ranks {
    /// Indexes a parsed vocabulary. Fails on a repeated token or a missing single byte.
    pub fn new(parsed: Parsed) -> Result<Ranks, FormatError> {
        let Parsed { bytes, starts } = parsed;
        let count = starts.len().saturating_sub(1);
        let slots = (count * 2).next_power_of_two().max(16);
        let mut ranks = Ranks {
            bytes,
            starts,
            table: vec![EMPTY; slots],
            shift: 64 - slots.trailing_zeros(),
        };
        for rank in 0..count as Rank {
            let token = ranks.bytes_of(rank);
            if token.is_empty() {
                continue;
            }
            let mut slot = ranks.slot(token);
            loop {
                let held = ranks.table[slot];
                if held == EMPTY {
                    ranks.table[slot] = rank;
                    break;
                }
                if ranks.bytes_of(held) == token {
                    return Err(FormatError::Duplicate { rank });
                }
                slot = (slot + 1) & (ranks.table.len() - 1);
            }
        }
        // BPE starts from single bytes, so each must be a token, or a piece could not be encoded.
        for byte in 0..=u8::MAX {
            if ranks.get(&[byte]).is_none() {
                return Err(FormatError::MissingByte(byte));
            }
        }
        Ok(ranks)
    }

    /// The rank of the token whose bytes are exactly `token`.
    #[inline]
    pub fn get(&self, token: &[u8]) -> Option<Rank> {
        let mut slot = self.slot(token);
        loop {
            let held = self.table[slot];
            if held == EMPTY {
                return None;
            }
            if self.bytes_of(held) == token {
                return Some(held);
            }
            slot = (slot + 1) & (self.table.len() - 1);
        }
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

    #[inline]
    fn slot(&self, token: &[u8]) -> usize {
        (hash(token) >> self.shift) as usize
    }

    /// The number of tokens BPE turns `piece` into.
    pub fn count(&self, piece: &[u8]) -> usize {
        match piece.len() {
            0 => 0,
            1 => 1,
            _ if self.get(piece).is_some() => 1,
            n if n < LARGE_PIECE => merge(self, piece).len() - 1,
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
            let parts = merge(self, piece);
            out.extend(
                parts
                    .windows(2)
                    .map(|w| self.rank_of(&piece[w[0].0..w[1].0])),
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

/// tiktoken's `_byte_pair_merge`: the piece's part boundaries as `(start, rank of the pair that
/// starts here)`, ending with the piece's length. Quadratic, but pieces here are short.
fn merge(ranks: &Ranks, piece: &[u8]) -> Vec<(usize, Rank)> {
    let mut parts = Vec::with_capacity(piece.len() + 1);
    let mut min_rank: (Rank, usize) = (Rank::MAX, usize::MAX);
    for i in 0..piece.len() - 1 {
        let rank = ranks.get(&piece[i..i + 2]).unwrap_or(Rank::MAX);
        if rank < min_rank.0 {
            min_rank = (rank, i);
        }
        parts.push((i, rank));
    }
    parts.push((piece.len() - 1, Rank::MAX));
    parts.push((piece.len(), Rank::MAX));

    let get_rank = |parts: &Vec<(usize, Rank)>, i: usize| {
        if i + 3 < parts.len() {
            ranks
                .get(&piece[parts[i].0..parts[i + 3].0])
                .unwrap_or(Rank::MAX)
        } else {
            Rank::MAX
        }
    };

    while min_rank.0 != Rank::MAX {
        let i = min_rank.1;
        if i > 0 {
            parts[i - 1].1 = get_rank(&parts, i - 1);
        }
        parts[i].1 = get_rank(&parts, i);
        parts.remove(i + 1);

        min_rank = (Rank::MAX, usize::MAX);
        for (i, &(_, rank)) in parts[..parts.len() - 1].iter().enumerate() {
            if rank < min_rank.0 {
                min_rank = (rank, i);
            }
        }
    }
    parts
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
