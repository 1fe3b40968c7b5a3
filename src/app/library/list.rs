//! [`Entries`], the library's list kept in its order as a run of short sorted chunks, so that
//! adding a batch costs about the batch, not the library: the batch is sorted alone and merged
//! into the chunks it falls in (an import's batch, all of one change time, falls in one or two),
//! the others only stepped over; a single change or deletion moves one chunk's entries. A row is
//! read by its place through the chunks' start places (a binary search), so the virtual list
//! reads any row of 30,000 at once. It also counts the sessions of each import as they come and
//! go, so the corpus picker's groups are read, not recounted over every session.
//!
//! Hand-written over std's `Vec` rather than a crate: what it needs is an order-keyed list also
//! read by place (rank and select) and merged a sorted batch at a time; the ordered maps
//! (`std::collections::BTreeMap`) have no read by place, and the crates that add one bring
//! their own generic tree into the page's first load for what a hundred lines of chunks do.

use std::cmp::Ordering;

use super::{Entry, order};
use crate::engine::message::Vocabulary;

/// About how many entries a chunk holds after a split or a full build; a chunk merged past
/// twice as many is split again. Under test, 4, so that the tests split and merge chunks at
/// every turn.
const CHUNK: usize = if cfg!(test) { 4 } else { 256 };

/// The library's entries in [`order`], read like a slice (`len`, `get`, `iter`, `[i]`).
#[derive(Clone, Default)]
pub struct Entries {
    /// Sorted, each non-empty and at most `2 * CHUNK` long, the last of one before the first of
    /// the next.
    chunks: Vec<Vec<Entry>>,
    /// Where each chunk starts in the whole list.
    starts: Vec<usize>,
    len: usize,
    /// The sessions listed of each import, by (import time, file), oldest first: a sorted
    /// `Vec`, not a map, as a library holds a few imports and the page's first load is kept
    /// small.
    imports: Vec<((u64, String), usize)>,
}

impl Entries {
    /// The list of `entries`, in any order.
    pub(super) fn sorted(mut entries: Vec<Entry>) -> Entries {
        entries.sort_unstable_by(order);
        let mut list = Entries::default();
        for e in &entries {
            list.count(e, true);
        }
        list.len = entries.len();
        list.chunks = split(entries);
        list.restart();
        list
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entry at place `index`.
    pub fn get(&self, index: usize) -> Option<&Entry> {
        if index >= self.len {
            return None;
        }
        let c = self.starts.partition_point(|&s| s <= index) - 1;
        self.chunks[c].get(index - self.starts[c])
    }

    /// Records the vocabulary the entry at place `index` has its counts exact in: the one field
    /// that changes in place, since neither the order nor the imports' counts read it.
    pub(super) fn set_counted_in(&mut self, index: usize, counted_in: Option<Vocabulary>) {
        if index < self.len {
            let c = self.starts.partition_point(|&s| s <= index) - 1;
            self.chunks[c][index - self.starts[c]].counted_in = counted_in;
        }
    }

    /// The entries in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Entry> + Clone {
        self.chunks.iter().flatten()
    }

    /// The entries in order, copied.
    pub fn to_vec(&self) -> Vec<Entry> {
        self.iter().cloned().collect()
    }

    /// Each import's count of listed sessions, by (import time, file), oldest first.
    pub fn imports(&self) -> impl Iterator<Item = (u64, &str, usize)> {
        self.imports
            .iter()
            .map(|((ms, file), n)| (*ms, file.as_str(), *n))
    }

    /// The place of the entry that `probe` says is equal (`Ordering::Equal`), the ones before it
    /// `Less`: a binary search for the chunk, then within it.
    pub(super) fn find(&self, probe: impl Fn(&Entry) -> Ordering) -> Option<usize> {
        let c = self.chunk_of(|e| probe(e) == Ordering::Less);
        let chunk = self.chunks.get(c)?;
        let at = chunk.binary_search_by(probe).ok()?;
        Some(self.starts[c] + at)
    }

    /// Takes the entry at place `index` out.
    pub(super) fn remove(&mut self, index: usize) -> Entry {
        let c = self.starts.partition_point(|&s| s <= index) - 1;
        let entry = self.chunks[c].remove(index - self.starts[c]);
        if self.chunks[c].is_empty() {
            self.chunks.remove(c);
        }
        self.len -= 1;
        self.count(&entry, false);
        self.restart();
        entry
    }

    /// Puts `entry` at its place.
    pub(super) fn insert(&mut self, entry: Entry) {
        self.merge(vec![entry]);
    }

    /// Puts `fresh` at their places: sorted alone, each run of them that falls in one chunk
    /// merged with that chunk (split again when it grows past [`CHUNK`]), the other chunks kept.
    pub(super) fn merge(&mut self, mut fresh: Vec<Entry>) {
        if fresh.is_empty() {
            return;
        }
        fresh.sort_unstable_by(order);
        for e in &fresh {
            self.count(e, true);
        }
        self.len += fresh.len();
        if self.chunks.is_empty() {
            self.chunks = split(fresh);
            self.restart();
            return;
        }
        let last = self.chunks.len() - 1;
        let mut fresh = fresh.into_iter().peekable();
        let old = std::mem::take(&mut self.chunks);
        let mut chunks = Vec::with_capacity(old.len() + 1);
        for (c, chunk) in old.into_iter().enumerate() {
            // The new entries before this chunk's last (all that are left, for the last chunk).
            let mut run = Vec::new();
            while let Some(new) = fresh.next_if(|new| {
                c == last
                    || chunk
                        .last()
                        .is_some_and(|l| order(new, l) == Ordering::Less)
            }) {
                run.push(new);
            }
            if run.is_empty() {
                chunks.push(chunk);
                continue;
            }
            let merged = merge_sorted(chunk, run);
            if merged.len() <= 2 * CHUNK {
                chunks.push(merged);
            } else {
                chunks.extend(split(merged));
            }
        }
        self.chunks = chunks;
        self.restart();
    }

    /// The first chunk holding an entry for which `before` is false (the chunks' count when
    /// none does).
    fn chunk_of(&self, before: impl Fn(&Entry) -> bool) -> usize {
        self.chunks
            .partition_point(|chunk| chunk.last().is_some_and(&before))
    }

    fn restart(&mut self) {
        self.starts.clear();
        let mut at = 0;
        for chunk in &self.chunks {
            self.starts.push(at);
            at += chunk.len();
        }
    }

    /// Counts `e` in (or out of) its import's group.
    fn count(&mut self, e: &Entry, add: bool) {
        let Some(origin) = &e.origin else { return };
        let at = self.imports.binary_search_by(|((ms, file), _)| {
            ms.cmp(&origin.imported_ms)
                .then_with(|| file.as_str().cmp(&origin.file))
        });
        match (at, add) {
            (Ok(i), true) => self.imports[i].1 += 1,
            (Err(i), true) => self
                .imports
                .insert(i, ((origin.imported_ms, origin.file.clone()), 1)),
            (Ok(i), false) => {
                self.imports[i].1 -= 1;
                if self.imports[i].1 == 0 {
                    self.imports.remove(i);
                }
            }
            (Err(_), false) => {}
        }
    }
}

impl std::ops::Index<usize> for Entries {
    type Output = Entry;

    fn index(&self, index: usize) -> &Entry {
        self.get(index).expect("a place within the library's list")
    }
}

impl PartialEq for Entries {
    /// The same entries in the same order, however they are chunked.
    fn eq(&self, other: &Entries) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for Entries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a Entries {
    type Item = &'a Entry;
    type IntoIter = std::iter::Flatten<std::slice::Iter<'a, Vec<Entry>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.chunks.iter().flatten()
    }
}

/// Two sorted runs as one.
fn merge_sorted(a: Vec<Entry>, b: Vec<Entry>) -> Vec<Entry> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => {
                if order(y, x) == Ordering::Less {
                    b.next()
                } else {
                    a.next()
                }
            }
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => break,
        };
        out.extend(next);
    }
    out
}

/// A sorted run as chunks of about [`CHUNK`] each.
fn split(run: Vec<Entry>) -> Vec<Vec<Entry>> {
    if run.len() <= CHUNK {
        return if run.is_empty() { vec![] } else { vec![run] };
    }
    let pieces = run.len().div_ceil(CHUNK);
    let size = run.len().div_ceil(pieces);
    let mut chunks = Vec::with_capacity(pieces);
    let mut run = run.into_iter();
    loop {
        let chunk: Vec<Entry> = run.by_ref().take(size).collect();
        if chunk.is_empty() {
            return chunks;
        }
        chunks.push(chunk);
    }
}
