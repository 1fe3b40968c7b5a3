//! The counts of the demos' and the lesson's texts, computed at build time, so the welcome, the
//! lesson and both offline demos show exact counts without fetching a vocabulary.
//!
//! The table (`demo_counts.rs`, generated) holds, for every text the lesson's steps and the
//! bundled demos count with o200k_base, a 64-bit key of the text ([`text_key`]) and its count.
//! `tests/demo_counts.rs` recomputes it natively with [`TokenCounter`](super::TokenCounter) from
//! tiktoken-rs's vocabulary and fails when the committed table is stale
//! (`SM_BLESS=1 cargo test --test demo_counts` writes it anew). While no vocabulary is loaded,
//! the counter answers from it; any other text stays pending.

use super::Encoding;

mod table {
    include!("demo_counts.rs");
}

/// The key a text has in the table: FNV-1a over its bytes, then its length mixed in, so two
/// texts of the demos colliding would need both to agree.
pub fn text_key(text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash ^ (text.len() as u64).rotate_left(40)
}

/// The count of `text` in `encoding` from the table computed at build time, if it holds it.
pub fn prebuilt_count(encoding: Encoding, text: &str) -> Option<u32> {
    let table = match encoding {
        Encoding::O200kBase => table::O200K_BASE,
        Encoding::Cl100kBase => return None,
    };
    let key = text_key(text);
    table
        .binary_search_by_key(&key, |&(k, _)| k)
        .ok()
        .map(|at| table[at].1)
}

/// How many texts the table holds for `encoding`.
pub fn prebuilt_len(encoding: Encoding) -> usize {
    match encoding {
        Encoding::O200kBase => table::O200K_BASE.len(),
        Encoding::Cl100kBase => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_by_key_with_no_key_twice() {
        let table = table::O200K_BASE;
        assert!(!table.is_empty());
        assert!(table.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn a_text_not_in_the_table_has_no_count_and_cl100k_has_none() {
        assert_eq!(
            prebuilt_count(Encoding::O200kBase, "no demo ever says this: 7f3a"),
            None
        );
        assert_eq!(prebuilt_len(Encoding::Cl100kBase), 0);
    }

    #[test]
    fn keys_differ_for_texts_that_differ() {
        assert_ne!(text_key("a"), text_key("b"));
        assert_ne!(text_key(""), text_key("\0"));
        assert_eq!(text_key("same"), text_key("same"));
    }
}
