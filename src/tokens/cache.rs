//! The per-text count cache.
//!
//! A keystroke changes one text and a new turn adds one, so keying counts by the text means
//! everything else is a hit. Keys are a 64-bit SipHash of the text together with its encoding and
//! byte length: storing a hash instead of the text keeps the cache small, and with the length in
//! the key a wrong hit needs a 64-bit collision between two texts of the same length.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use super::count::Count;
use super::encoding::Encoding;

/// How often the cache answered, for tests and the benchmark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Counts answered from the cache.
    pub hits: u64,
    /// Counts that had to run the tokenizer.
    pub misses: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    encoding: Encoding,
    len: usize,
    hash: u64,
}

impl Key {
    pub(crate) fn new(encoding: Encoding, text: &str) -> Key {
        // DefaultHasher::new() uses fixed keys, so a key is the same in every run; no adversary
        // chooses the texts of one's own conversation, so hash flooding is not a concern.
        let mut hasher = DefaultHasher::new();
        text.hash(&mut hasher);
        Key {
            encoding,
            len: text.len(),
            hash: hasher.finish(),
        }
    }
}

/// Two generations approximate least-recently-used eviction in O(1): when the young generation
/// fills up it becomes the old one, and whatever the old one held that was not used since is
/// dropped. A hit in the old generation moves the entry back to the young one.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    young: HashMap<Key, Count>,
    old: HashMap<Key, Count>,
    pub(crate) stats: CacheStats,
}

/// Entries per generation: a long session has a few hundred messages, and the compose box adds
/// one entry per keystroke, so this keeps every message plus recent drafts.
const GENERATION_CAPACITY: usize = 4096;

impl Cache {
    pub(crate) fn get(&mut self, key: &Key) -> Option<Count> {
        let found = match self.young.get(key) {
            Some(count) => Some(*count),
            None => self
                .old
                .remove(key)
                .inspect(|count| self.insert(*key, *count)),
        };
        match found {
            Some(_) => self.stats.hits += 1,
            None => self.stats.misses += 1,
        }
        found
    }

    pub(crate) fn insert(&mut self, key: Key, count: Count) {
        if self.young.len() >= GENERATION_CAPACITY {
            self.old = std::mem::take(&mut self.young);
        }
        self.young.insert(key, count);
    }

    pub(crate) fn clear(&mut self) {
        self.young.clear();
        self.old.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_used_recently_survives_a_generation_change() {
        let mut cache = Cache::default();
        let keep = Key::new(Encoding::O200kBase, "keep");
        cache.insert(keep, Count::Exact(1));
        for i in 0..GENERATION_CAPACITY {
            cache.insert(
                Key::new(Encoding::O200kBase, &i.to_string()),
                Count::Exact(2),
            );
        }
        // `keep` is now in the old generation; using it moves it back to the young one.
        assert_eq!(cache.get(&keep), Some(Count::Exact(1)));
        for i in 0..GENERATION_CAPACITY {
            cache.insert(
                Key::new(Encoding::Cl100kBase, &i.to_string()),
                Count::Exact(3),
            );
        }
        assert_eq!(cache.get(&keep), Some(Count::Exact(1)));
        assert_eq!(cache.get(&Key::new(Encoding::O200kBase, "0")), None);
        assert_eq!(cache.stats, CacheStats { hits: 2, misses: 1 });
    }

    #[test]
    fn keys_tell_encodings_apart() {
        assert_ne!(
            Key::new(Encoding::O200kBase, "same"),
            Key::new(Encoding::Cl100kBase, "same")
        );
    }
}
