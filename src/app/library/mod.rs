//! The session library: the sessions a browser keeps, with rename, duplicate, delete with undo,
//! and the bookkeeping that keeps two open tabs from overwriting each other.
//!
//! It is pure: ids and timestamps are passed in, and what must be written to storage is returned
//! as data ([`SaveOp`]); the shell performs it and reports back with [`Library::landed`], which
//! also says what to broadcast. Every change bumps the entry's `revision`. A write carries the
//! revision the store last confirmed (`expected`), so the store can refuse a write that is based
//! on a record another tab has since replaced.
//!
//! The list is newest first. A deleted session can be undone, but on a full disk its record is
//! freed at once. [`Library::add_all`] adds an envelope's sessions in one pass, sorting only them
//! and merging them in. The stored [`Record`] is the compact export, read back with no size cap,
//! and kept as stored when it cannot be read. The live chat is kept as it streams
//! ([`LiveSaves`], the save throttle) and resumed with what a reload cut off offered again;
//! [`warn_on_leave`] and [`Library::live_after_conflict`] are the runner's other decisions.
//! [`LibraryTab`] also holds the [`StoreAlert`] every tab shows.
//!
//! Beside [`Library`] (this file): `list.rs`, [`Entries`], the list kept in order as short
//! sorted chunks (a batch merged into the chunks it falls in, a row read by its place), with
//! each import's count; `protocol.rs`, the cross-tab messages; `record.rs`, the
//! stored [`Record`] a write becomes and how one is read back; `sync.rs`, the decisions the
//! shell's runner asks for (load, a landed write, a remote version, a conflict's answer, import,
//! export, the live chat kept and resumed); `tab.rs`, [`LibraryTab`], the open session and what
//! the Inspect tab tells the user ([`Problem`], [`RemoteNotice`]).

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};

use thiserror::Error;

use crate::app::live::LiveSession;
use crate::engine::library_session::{LiveRecord, ProbeSet, Session, SessionSettings};
use crate::engine::memory::MemoryState;
use crate::engine::message::{CountTokens, Role, Vocabulary};

mod list;
mod protocol;
mod record;
mod sync;
mod tab;

pub use list::Entries;
pub use protocol::{Broadcast, Remote, RemoteNotice, SaveOp};
pub use record::{Record, Unreadable};
pub use sync::{
    Imported, LiveAfterConflict, LiveSaves, LiveShape, STREAM_SAVE_BYTES, STREAM_SAVE_MS, SaveWhen,
    check_file_size, warn_on_leave,
};
pub use tab::{FileError, LibraryTab, Problem, StoreAlert};

/// The name a live chat gets when the library first keeps it.
pub const LIVE_NAME: &str = "Live chat";

/// The name a chat continued from session `source` gets when the library first keeps it.
pub fn continued_name(source: &str) -> String {
    format!("Continued from {source}")
}

/// One session kept in the library.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Stable id, chosen by the shell when the session is created; unique per browser.
    pub id: String,
    pub session: Session,
    /// When the entry last changed, in milliseconds since the Unix epoch.
    pub updated_ms: u64,
    /// Counts the changes made to this entry, from 1.
    pub revision: u64,
    /// The import it came from; `None` for a chat, a copy, or a session stored before imports
    /// were recorded.
    pub origin: Option<Origin>,
    /// The vocabulary every message's count is exact in, when the library counted the session
    /// itself with that vocabulary loaded (read from storage, imported, read back after another
    /// tab wrote it; a copy or a rename keeps it); `None` when a count may be an estimate (read
    /// before the vocabulary arrived, or after it failed) or is not known to be any vocabulary's
    /// (a session handed in from the chat, whose counts may predate the vocabulary or an
    /// encoding switch). Never stored: a record's file carries no counts, and is counted afresh
    /// when read back. A corpus run hands the counts to its workers, which keep them when this
    /// is the run's vocabulary ([`crate::app::corpus::lean::Lean::counted_in`]).
    pub counted_in: Option<Vocabulary>,
}

/// Which import a session came from: the file's name, when it was imported, and the session's
/// place among the conversations read from that file (from 0, as the command-line tool numbers
/// them). The sessions of one import share `file` and `imported_ms`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin {
    pub file: String,
    pub imported_ms: u64,
    pub position: u32,
}

/// How long a deleted session can still be brought back, counted from its deletion: a week.
/// Older tombstones are removed from storage when the library loads.
pub const UNDO_KEEP_MS: u64 = 7 * 24 * 60 * 60 * 1000;

/// The last deletion, which undo brings back.
#[derive(Clone, Debug, PartialEq)]
struct Tombstone {
    entry: Entry,
    /// Whether the record is kept in storage marked deleted (so the undo survives a reload and
    /// its space is held until dismissed) or was removed, the undo living in this tab's memory.
    stored: bool,
}

/// Why a library operation was refused. Nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LibraryError {
    /// No session has this id (it was deleted, perhaps in another tab).
    #[error("no session with id {0}; it may have been deleted. Reload to see the current list.")]
    Unknown(String),
    /// The new name is empty or only spaces.
    #[error("a session needs a name; type at least one letter")]
    EmptyName,
    /// The id is already taken.
    #[error("a session with id {0} already exists; try again")]
    DuplicateId(String),
    /// There is no deleted session to bring back.
    #[error("nothing to undo")]
    NothingToUndo,
}

/// All sessions of this browser, newest first, with at most one deletion that can be undone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Library {
    entries: Entries,
    /// The last deleted entry, so that undo can restore it as it was.
    tombstone: Option<Tombstone>,
    /// The last write failed because the browser's storage is full: a deletion then removes the
    /// record at once (its undo is kept in this tab only), so deleting frees space.
    quota_full: bool,
    /// The revision of each record as the store last confirmed it.
    stored: BTreeMap<String, u64>,
    /// Writes not yet performed, oldest first.
    pending: Vec<SaveOp>,
    /// Each entry's place in the order of `entries` (its change time and name; with its id, the
    /// key [`order`] sorts by), so a look-up by id is one hash and a binary search, and adding a
    /// batch touches only the batch's keys (rebuilt whole only when the library is read from
    /// storage).
    index: HashMap<String, (u64, String)>,
}

impl Library {
    /// A library holding what the store returned: every entry counts as saved.
    pub fn from_stored(entries: Vec<Entry>) -> Library {
        Library::from_stored_with_deleted(entries, Vec::new(), 0)
    }

    /// A library holding what the store returned, the live entries and the ones stored as deleted
    /// (with their deletion time). The most recent deletion younger than [`UNDO_KEEP_MS`] can
    /// still be undone; every other deleted record is queued for removal.
    pub fn from_stored_with_deleted(
        entries: Vec<Entry>,
        deleted: Vec<(Entry, u64)>,
        now_ms: u64,
    ) -> Library {
        let stored = entries
            .iter()
            .chain(deleted.iter().map(|(e, _)| e))
            .map(|e| (e.id.clone(), e.revision))
            .collect();
        let mut library = Library {
            entries: Entries::sorted(entries),
            stored,
            ..Library::default()
        };
        let mut deleted = deleted;
        deleted.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.id.cmp(&b.0.id)));
        for (entry, deleted_ms) in deleted {
            let fresh = now_ms.saturating_sub(deleted_ms) < UNDO_KEEP_MS;
            if library.tombstone.is_none() && fresh {
                library.tombstone = Some(Tombstone {
                    entry,
                    stored: true,
                });
            } else {
                library.pending.push(SaveOp::Delete {
                    id: entry.id,
                    expected: None,
                });
            }
        }
        library.reindex();
        library
    }

    /// The sessions, most recently changed first (ties by name, then id, so the order is stable).
    pub fn list(&self) -> &Entries {
        &self.entries
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.position(id).and_then(|i| self.entries.get(i))
    }

    /// Where the entry `id` stands in [`Library::list`].
    fn position(&self, id: &str) -> Option<usize> {
        let (updated_ms, name) = self.index.get(id)?;
        self.entries
            .find(|e| order_keys(sort_key(e), (*updated_ms, name, id)))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The name of the session that [`Library::undo_delete`] would bring back.
    pub fn undoable(&self) -> Option<&str> {
        self.tombstone
            .as_ref()
            .map(|t| t.entry.session.name.as_str())
    }

    /// The name of the deleted session whose record storage still holds for its undo: the space
    /// that dismissing the undo frees.
    pub fn undo_holds_space(&self) -> Option<&str> {
        self.tombstone
            .as_ref()
            .filter(|t| t.stored)
            .map(|t| t.entry.session.name.as_str())
    }

    /// Whether the last write failed on a full storage quota (see [`Library::write_failed`]).
    pub fn quota_full(&self) -> bool {
        self.quota_full
    }

    /// A write failed: on a full quota, later deletions remove their record at once.
    pub fn write_failed(&mut self, error: &crate::app::storage::StoreError) {
        if *error == crate::app::storage::StoreError::QuotaExceeded {
            self.quota_full = true;
        }
    }

    /// Whether this tab holds anything storage does not: a write waiting, or a session whose
    /// write was refused (or never possible). What the page warns about before it is left.
    pub fn unsaved_any(&self) -> bool {
        !self.pending.is_empty()
            || self
                .entries
                .iter()
                .any(|e| self.stored.get(&e.id) != Some(&e.revision))
    }

    /// Adds a new session (an import, a duplicate, a fresh chat).
    pub fn add(&mut self, id: String, session: Session, now_ms: u64) -> Result<(), LibraryError> {
        if self.get(&id).is_some() {
            return Err(LibraryError::DuplicateId(id));
        }
        let entry = Entry {
            id,
            session,
            updated_ms: now_ms,
            revision: 1,
            origin: None,
            counted_in: None,
        };
        self.queue_put(&entry);
        self.merge(vec![entry]);
        Ok(())
    }

    /// Adds many new sessions at once (an envelope's import), each as [`Library::add`] would,
    /// and returns the ids it added, in order; an id already taken (in the library or earlier
    /// in `sessions`) is skipped. The batch alone is sorted and then merged into the chunks of
    /// the list it falls in ([`Entries`]), so an envelope of 10,000 sessions imports in linear
    /// time, and a large file's import, a batch at a time, does not slow as the library grows:
    /// the entries already listed are neither sorted, re-indexed nor moved, but for the one or
    /// two chunks the batch lands in.
    pub fn add_all(
        &mut self,
        sessions: impl IntoIterator<Item = (String, Session)>,
        now_ms: u64,
    ) -> Vec<String> {
        self.add_imported(sessions, None, now_ms)
    }

    /// [`Library::add_all`] for the sessions read from the file named `file` (`None`: from no
    /// file), each recorded as coming from that import, at its place in the file.
    pub fn add_imported(
        &mut self,
        sessions: impl IntoIterator<Item = (String, Session)>,
        file: Option<&str>,
        now_ms: u64,
    ) -> Vec<String> {
        let placed = sessions
            .into_iter()
            .enumerate()
            .map(|(position, (id, session))| (id, session, position as u32));
        self.add_placed(placed, file, now_ms)
    }

    /// [`Library::add_imported`] with each session's place in its file given (a large file's
    /// import adds its sessions a batch at a time, all under the import's `now_ms`).
    pub fn add_placed(
        &mut self,
        sessions: impl IntoIterator<Item = (String, Session, u32)>,
        file: Option<&str>,
        now_ms: u64,
    ) -> Vec<String> {
        let mut taken: HashSet<String> = HashSet::new();
        let fresh: Vec<Entry> = sessions
            .into_iter()
            .filter(|(id, _, _)| !self.index.contains_key(id) && taken.insert(id.clone()))
            .map(|(id, session, position)| Entry {
                id,
                session,
                updated_ms: now_ms,
                revision: 1,
                origin: file.map(|file| Origin {
                    file: file.to_owned(),
                    imported_ms: now_ms,
                    position,
                }),
                counted_in: None,
            })
            .collect();
        let ids: Vec<String> = fresh.iter().map(|e| e.id.clone()).collect();
        {
            let new: HashSet<&str> = ids.iter().map(String::as_str).collect();
            self.pending.retain(
                |op| !matches!(op, SaveOp::Put { entry: e, .. } if new.contains(e.id.as_str())),
            );
        }
        for entry in &fresh {
            self.pending.push(SaveOp::Put {
                entry: Box::new(entry.clone()),
                expected: None,
            });
        }
        self.merge(fresh);
        ids
    }

    /// Replaces a session's content, e.g. after a chat turn. Its counts stay vouched for
    /// ([`Entry::counted_in`]) only while its messages, counts included, are the ones counted.
    pub fn update(&mut self, id: &str, session: Session, now_ms: u64) -> Result<(), LibraryError> {
        let same = self
            .get(id)
            .is_some_and(|e| e.session.memory.archive() == session.memory.archive());
        self.change(id, now_ms, |s| *s = session)?;
        if !same {
            self.set_counted_in(id, None);
        }
        Ok(())
    }

    /// Records the vocabulary `id`'s counts are exact in ([`Entry::counted_in`]; `None`: not
    /// known to be exact). Nothing is written: it is not stored.
    pub fn set_counted_in(&mut self, id: &str, counted_in: Option<Vocabulary>) {
        if let Some(at) = self.position(id) {
            self.entries.set_counted_in(at, counted_in);
        }
    }

    /// Replaces a session's probe set (its probes, prompts and grades), queuing a write only
    /// when it differs from the one kept; whether it did.
    pub fn set_probes(
        &mut self,
        id: &str,
        probes: ProbeSet,
        now_ms: u64,
    ) -> Result<bool, LibraryError> {
        let entry = self
            .get(id)
            .ok_or_else(|| LibraryError::Unknown(id.to_owned()))?;
        if entry.session.probes == probes {
            return Ok(false);
        }
        self.change(id, now_ms, |s| s.probes = probes)?;
        Ok(true)
    }

    /// Gives a session a new name. Surrounding spaces are dropped.
    pub fn rename(&mut self, id: &str, name: &str, now_ms: u64) -> Result<(), LibraryError> {
        let name = name.trim();
        if name.is_empty() {
            return Err(LibraryError::EmptyName);
        }
        self.change(id, now_ms, |s| s.name = name.to_owned())
    }

    /// Copies a session under a new id and the name "… (copy)", so that the same conversation
    /// can be replayed under two policies side by side.
    pub fn duplicate(&mut self, id: &str, new_id: String, now_ms: u64) -> Result<(), LibraryError> {
        let source = self
            .get(id)
            .ok_or_else(|| LibraryError::Unknown(id.to_owned()))?;
        let (mut session, counted_in) = (source.session.clone(), source.counted_in);
        session.name = format!("{} (copy)", session.name);
        self.add(new_id.clone(), session, now_ms)?;
        self.set_counted_in(&new_id, counted_in);
        Ok(())
    }

    /// Removes a session, keeping it as the tombstone that [`Library::undo_delete`] restores.
    /// The tombstone is stored (the same record, marked deleted, not a copy), so the undo
    /// outlives a reload. A second deletion replaces the tombstone, and the older one is removed
    /// for good: only the last deletion can be undone. When the storage quota is full
    /// ([`Library::quota_full`]) the record is removed at once, so deleting frees its space, and
    /// the undo is kept in this tab only (until a reload).
    pub fn delete(&mut self, id: &str, now_ms: u64) -> Result<(), LibraryError> {
        let index = self
            .position(id)
            .ok_or_else(|| LibraryError::Unknown(id.to_owned()))?;
        let mut entry = self.entries.remove(index);
        self.index.remove(&entry.id);
        self.dismiss_undo();
        self.drop_pending(&entry.id);
        // Being deleted is a change of the stored record, checked against other tabs like any.
        entry.revision += 1;
        let stored = !self.quota_full;
        if stored {
            self.pending.push(SaveOp::Bury {
                entry: Box::new(entry.clone()),
                deleted_ms: now_ms,
                expected: None,
            });
        } else {
            self.pending.push(SaveOp::Delete {
                id: entry.id.clone(),
                expected: None,
            });
        }
        self.tombstone = Some(Tombstone { entry, stored });
        Ok(())
    }

    /// Brings back the last deleted session as it was, and returns its id.
    pub fn undo_delete(&mut self) -> Result<String, LibraryError> {
        let Tombstone { mut entry, .. } =
            self.tombstone.take().ok_or(LibraryError::NothingToUndo)?;
        if self.get(&entry.id).is_some() {
            return Err(LibraryError::DuplicateId(entry.id));
        }
        let id = entry.id.clone();
        entry.revision += 1;
        self.drop_pending(&id);
        // A removal still waiting (a deletion under a full quota) must not follow the put back.
        self.pending
            .retain(|op| !matches!(op, SaveOp::Delete { id: d, .. } if *d == id));
        self.queue_put(&entry);
        self.put(entry);
        Ok(id)
    }

    /// Gives up the chance to undo the last deletion, removing its tombstone from storage.
    pub fn dismiss_undo(&mut self) {
        if let Some(Tombstone { entry, .. }) = self.tombstone.take() {
            self.drop_pending(&entry.id);
            self.pending.push(SaveOp::Delete {
                id: entry.id,
                expected: None,
            });
        }
    }

    /// Takes the writes to perform, oldest first, each naming the revision the store last
    /// confirmed. The shell performs them one after another and confirms each before it takes
    /// the next batch, so `expected` is always what the store holds when no other tab wrote.
    pub fn take_pending(&mut self) -> Vec<SaveOp> {
        let mut ops = std::mem::take(&mut self.pending);
        for op in &mut ops {
            match op {
                SaveOp::Put { entry, expected } => *expected = self.stored.get(&entry.id).copied(),
                SaveOp::Delete { id, expected } => {
                    *expected = self.stored.get(id.as_str()).copied()
                }
                SaveOp::Bury {
                    entry, expected, ..
                } => *expected = self.stored.get(&entry.id).copied(),
            }
        }
        ops
    }

    /// Whether writes are waiting.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The store confirmed a [`SaveOp::Put`] of this revision: there was room for it.
    pub fn saved(&mut self, id: &str, revision: u64) {
        self.stored.insert(id.to_owned(), revision);
        self.quota_full = false;
    }

    /// The store confirmed a [`SaveOp::Delete`]. A removal needs no space, so it says nothing
    /// about whether the quota is still full.
    pub fn removed(&mut self, id: &str) {
        self.stored.remove(id);
    }

    fn change(
        &mut self,
        id: &str,
        now_ms: u64,
        edit: impl FnOnce(&mut Session),
    ) -> Result<(), LibraryError> {
        let at = self
            .position(id)
            .ok_or_else(|| LibraryError::Unknown(id.to_owned()))?;
        let mut entry = self.entries.remove(at);
        edit(&mut entry.session);
        entry.revision += 1;
        entry.updated_ms = now_ms;
        self.queue_put(&entry);
        self.put(entry);
        Ok(())
    }

    /// Whether this tab holds a change of `id` that storage does not have yet: a write waiting,
    /// or one that was refused.
    pub fn unsaved(&self, id: &str) -> bool {
        let waiting = self.pending.iter().any(|op| match op {
            SaveOp::Put { entry, .. } | SaveOp::Bury { entry, .. } => entry.id == id,
            SaveOp::Delete { id: d, .. } => d == id,
        });
        let refused = self
            .get(id)
            .is_some_and(|e| self.stored.get(id) != Some(&e.revision));
        waiting || refused
    }

    /// Decides what another tab's write means here.
    pub fn remote(&self, message: &Broadcast) -> Remote {
        let (id, revision) = match message {
            Broadcast::Saved { id, revision } => (id, Some(*revision)),
            Broadcast::Deleted { id } => (id, None),
        };
        let known = self.stored.get(id.as_str()).copied();
        let already = match revision {
            Some(r) => known.is_some_and(|k| k >= r),
            // A deletion is news only while the session is listed here.
            None => self.get(id).is_none(),
        };
        if already {
            Remote::Ignore
        } else if self.unsaved(id) {
            Remote::Conflict(id.clone())
        } else {
            Remote::Reload(id.clone())
        }
    }

    /// Takes what storage holds for `id` (read after another tab wrote it): the live entry, or
    /// nothing when it was deleted there. This tab's unsaved change of it, if any, is dropped.
    pub fn accept_stored(&mut self, id: &str, stored: Option<Entry>) {
        self.drop_pending(id);
        if let Some(at) = self.position(id) {
            self.entries.remove(at);
            self.index.remove(id);
        }
        if self.tombstone.as_ref().is_some_and(|t| t.entry.id == id) {
            self.tombstone = None;
        }
        match stored {
            Some(entry) => {
                self.stored.insert(id.to_owned(), entry.revision);
                self.put(entry);
            }
            None => {
                self.stored.remove(id);
            }
        }
    }

    /// Keeps this tab's version of `id` as a new session `new_id` named "… (copy)", then takes
    /// what storage holds for `id`, so neither tab's change is lost.
    pub fn keep_as_copy(
        &mut self,
        id: &str,
        new_id: String,
        stored: Option<Entry>,
        now_ms: u64,
    ) -> Result<(), LibraryError> {
        let mine = self
            .get(id)
            .ok_or_else(|| LibraryError::Unknown(id.to_owned()))?
            .session
            .clone();
        if self.get(&new_id).is_some() {
            return Err(LibraryError::DuplicateId(new_id));
        }
        self.accept_stored(id, stored);
        let mut copy = mine;
        copy.name = format!("{} (copy)", copy.name);
        self.add(new_id, copy, now_ms)
    }

    /// Keeps the live chat in the library, saved like any session: its memory, its pinned facts
    /// and its [`LiveRecord`](crate::engine::library_session::LiveRecord), added the first time and
    /// updated after every change. A reply still arriving is kept as far as it has arrived, as
    /// an assistant message marked failed (so incomplete, and left out of later requests): a
    /// reload then shows it and offers Retry ([`LiveSession::resume_after_reload`]). Returns the
    /// id it is kept under: `id` while the chat goes on from that session, or a new one from
    /// `new_id` when it is another conversation (a fresh chat, a demo run live, or the saved one
    /// was deleted). An empty chat is not kept, but for one continued from another session's
    /// edition, which is kept from the start so that Inspect links the two.
    pub fn keep_live(
        &mut self,
        id: Option<&str>,
        new_id: impl FnOnce() -> String,
        live: &LiveSession,
        now_ms: u64,
        counter: &dyn CountTokens,
    ) -> Option<String> {
        if live.memory().archive().is_empty() && live.continued_from().is_none() {
            return id.map(str::to_owned);
        }
        let (memory, record) = snapshot(live, now_ms, counter);
        if let Some(id) = id
            && let Some(entry) = self.get(id)
            && continues_kept(&entry.session, &memory)
            && entry.session.continued_from.as_ref() == live.continued_from()
        {
            let saved = &entry.session;
            if saved.memory != memory
                || saved.pinned != live.pinned()
                || saved.live.as_ref() != Some(&record)
            {
                let session = Session {
                    memory,
                    pinned: live.pinned().to_vec(),
                    live: Some(record),
                    ..saved.clone()
                };
                self.update(id, session, now_ms).ok()?;
            }
            return Some(id.to_owned());
        }
        let new = new_id();
        let name = match live.continued_from() {
            Some(from) => continued_name(&from.name),
            None => LIVE_NAME.to_owned(),
        };
        let session = Session {
            pinned: live.pinned().to_vec(),
            live: Some(record),
            continued_from: live.continued_from().cloned(),
            ..Session::new(name, SessionSettings::default(), memory)
        };
        self.add(new.clone(), session, now_ms).ok()?;
        Some(new)
    }

    /// Drops every write of `id` not performed yet; the write queued next replaces them.
    fn drop_pending(&mut self, id: &str) {
        self.pending.retain(|op| match op {
            SaveOp::Put { entry, .. } | SaveOp::Bury { entry, .. } => entry.id != id,
            SaveOp::Delete { .. } => true,
        });
    }

    /// Queues a put. An earlier put of the same entry that has not been performed yet is
    /// dropped, since the new one carries everything it did.
    fn queue_put(&mut self, entry: &Entry) {
        self.pending
            .retain(|op| !matches!(op, SaveOp::Put { entry: e, .. } if e.id == entry.id));
        self.pending.push(SaveOp::Put {
            entry: Box::new(entry.clone()),
            expected: None,
        });
    }

    /// Lists `entry` (an id not listed) at its place, and indexes it.
    fn put(&mut self, entry: Entry) {
        self.index.insert(entry.id.clone(), key(&entry));
        self.entries.insert(entry);
    }

    fn reindex(&mut self) {
        self.index.clear();
        self.index
            .extend(self.entries.iter().map(|e| (e.id.clone(), key(e))));
    }

    /// Puts `fresh` (ids not listed yet) in their places in the sorted list: the batch is
    /// sorted and merged into the chunks it falls in ([`Entries::merge`]), and only its keys
    /// are hashed and indexed.
    fn merge(&mut self, fresh: Vec<Entry>) {
        self.index
            .extend(fresh.iter().map(|e| (e.id.clone(), key(e))));
        self.entries.merge(fresh);
    }
}

/// The order of the list: most recently changed first, ties by name, then by id (unique, so
/// the order is total and the same whichever way the entries came).
fn order(a: &Entry, b: &Entry) -> Ordering {
    order_keys(sort_key(a), sort_key(b))
}

/// What [`order`] sorts an entry by: its change time, name and id.
fn sort_key(e: &Entry) -> (u64, &str, &str) {
    (e.updated_ms, &e.session.name, &e.id)
}

/// [`order`] on two keys, so that [`Library::position`] can find an entry by its key alone.
fn order_keys(a: (u64, &str, &str), b: (u64, &str, &str)) -> Ordering {
    b.0.cmp(&a.0)
        .then_with(|| a.1.cmp(b.1))
        .then_with(|| a.2.cmp(b.2))
}

/// What [`Library::position`] needs besides the id to find an entry.
fn key(e: &Entry) -> (u64, String) {
    (e.updated_ms, e.session.name.clone())
}

/// What the library stores of the live chat now: its memory and record, with a reply still
/// arriving added as an assistant message marked failed. The memory is a copy; a summary the
/// copy's trigger would start is never sent.
pub fn snapshot(
    live: &LiveSession,
    now_ms: u64,
    counter: &dyn CountTokens,
) -> (MemoryState, LiveRecord) {
    let mut memory = live.memory().clone();
    let mut record = live.record().clone();
    if let Some(partial) = live.streaming_message(now_ms, counter) {
        let index = memory.archive().len();
        if memory.add_message(partial).is_ok() {
            record.incomplete.insert(index);
            record.failed.insert(index);
        }
    }
    (memory, record)
}

/// Whether the live memory goes on from the saved session: [`continues`], or the saved session
/// ends with a reply kept while it was arriving (marked failed), which the live chat has since
/// finished, or dropped when nothing but spaces arrived.
pub fn continues_kept(saved: &Session, live: &MemoryState) -> bool {
    if continues(&saved.memory, live) {
        return true;
    }
    let old = saved.memory.archive();
    let Some((last, before)) = old.split_last() else {
        return false;
    };
    let streamed = last.role == Role::Assistant
        && saved
            .live
            .as_ref()
            .is_some_and(|r| r.failed.contains(&before.len()));
    let new = live.archive();
    streamed
        && saved.memory.system_prompt() == live.system_prompt()
        && before.len() <= new.len()
        && before
            .iter()
            .zip(new)
            .all(|(a, b)| a.role == b.role && a.content == b.content)
        && new
            .get(before.len())
            .is_none_or(|m| m.role == Role::Assistant)
}

/// Whether the live memory goes on from the saved one: the same system prompt, and the saved
/// messages (by role and text; counts may differ) are its first ones.
pub fn continues(saved: &MemoryState, live: &MemoryState) -> bool {
    let (old, new) = (saved.archive(), live.archive());
    saved.system_prompt() == live.system_prompt()
        && old.len() <= new.len()
        && old
            .iter()
            .zip(new)
            .all(|(a, b)| a.role == b.role && a.content == b.content)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod sync_tests;

#[cfg(test)]
mod counts_tests;
