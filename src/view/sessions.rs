//! The session library: the sessions a browser keeps, with rename, duplicate, delete with undo,
//! and the bookkeeping that keeps two open tabs from overwriting each other.
//!
//! It is pure: ids and timestamps are passed in, and what must be written to storage is returned
//! as data ([`SaveOp`]); the shell performs it and reports back with [`Library::saved`] or
//! [`Library::removed`]. Every change bumps the entry's `revision`. A write carries the revision
//! the store last confirmed (`expected`), so the store can refuse a write that is based on a
//! record another tab has since replaced.

use std::collections::BTreeMap;

use thiserror::Error;

use crate::engine::memory::MemoryState;
use crate::engine::session::{Session, SessionSettings};
use crate::view::live::LiveSession;

/// The name a live chat gets when the library first keeps it.
pub const LIVE_NAME: &str = "Live chat";

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
}

/// A write the shell must perform, in order, each as one storage transaction.
#[derive(Clone, Debug, PartialEq)]
pub enum SaveOp {
    /// Store `entry`, replacing the record whose revision is `expected` (`None`: no record).
    Put {
        entry: Box<Entry>,
        expected: Option<u64>,
    },
    /// Remove the record `id`, whose stored revision is `expected`.
    Delete { id: String, expected: Option<u64> },
    /// Store `entry` marked deleted at `deleted_ms`: the tombstone that an undo brings back, kept
    /// in storage so the undo survives a reload.
    Bury {
        entry: Box<Entry>,
        deleted_ms: u64,
        expected: Option<u64>,
    },
}

/// What one tab tells the others after its write landed in storage, over a BroadcastChannel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Broadcast {
    /// The record `id` now holds `revision` (a save, a rename, an undo).
    Saved { id: String, revision: u64 },
    /// The record `id` was deleted (kept as a tombstone, or removed).
    Deleted { id: String },
}

impl Broadcast {
    /// The message as sent: `saved <revision> <id>` or `deleted <id>`.
    pub fn encode(&self) -> String {
        match self {
            Broadcast::Saved { id, revision } => format!("saved {revision} {id}"),
            Broadcast::Deleted { id } => format!("deleted {id}"),
        }
    }

    /// Reads a message; anything else (another version of the app) is ignored.
    pub fn decode(text: &str) -> Option<Broadcast> {
        let (kind, rest) = text.split_once(' ')?;
        match kind {
            "saved" => {
                let (revision, id) = rest.split_once(' ')?;
                Some(Broadcast::Saved {
                    id: id.to_owned(),
                    revision: revision.parse().ok()?,
                })
            }
            "deleted" if !rest.is_empty() => Some(Broadcast::Deleted {
                id: rest.to_owned(),
            }),
            _ => None,
        }
    }
}

/// What this tab does about another tab's write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Remote {
    /// Nothing: this tab already holds that state (its own write, or one it has picked up).
    Ignore,
    /// This tab has no unsaved change of the session: read the record again and show it.
    Reload(String),
    /// This tab has a change of the session that is not saved: ask whether to take the other
    /// tab's version or keep this one as a copy.
    Conflict(String),
}

/// The notice a tab shows after another tab changed a session it lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteNotice {
    pub id: String,
    pub name: String,
    /// This tab had a change of its own that is not saved: offer "reload" or "keep mine as a
    /// copy" instead of replacing it silently.
    pub unsaved: bool,
}

impl RemoteNotice {
    pub fn text(&self) -> String {
        if self.unsaved {
            format!(
                "\u{201c}{}\u{201d} was changed in another tab, and this tab's change of it is not saved. Reload the other tab's version, or keep yours as a copy.",
                self.name
            )
        } else {
            format!(
                "\u{201c}{}\u{201d} was changed in another tab; this tab now shows that version.",
                self.name
            )
        }
    }
}

/// How long a deleted session can still be brought back, counted from its deletion: a week.
/// Older tombstones are removed from storage when the library loads.
pub const UNDO_KEEP_MS: u64 = 7 * 24 * 60 * 60 * 1000;

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
    entries: Vec<Entry>,
    /// The last deleted entry and when it was deleted, so that undo can restore it as it was.
    tombstone: Option<(Entry, u64)>,
    /// The revision of each record as the store last confirmed it.
    stored: BTreeMap<String, u64>,
    /// Writes not yet performed, oldest first.
    pending: Vec<SaveOp>,
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
            entries,
            stored,
            ..Library::default()
        };
        let mut deleted = deleted;
        deleted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.id.cmp(&b.0.id)));
        for (entry, deleted_ms) in deleted {
            let fresh = now_ms.saturating_sub(deleted_ms) < UNDO_KEEP_MS;
            if library.tombstone.is_none() && fresh {
                library.tombstone = Some((entry, deleted_ms));
            } else {
                library.pending.push(SaveOp::Delete {
                    id: entry.id,
                    expected: None,
                });
            }
        }
        library.sort();
        library
    }

    /// The sessions, most recently changed first (ties by name, then id, so the order is stable).
    pub fn list(&self) -> &[Entry] {
        &self.entries
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
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
            .map(|(e, _)| e.session.name.as_str())
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
        };
        self.queue_put(&entry);
        self.entries.push(entry);
        self.sort();
        Ok(())
    }

    /// Replaces a session's content, e.g. after a chat turn.
    pub fn update(&mut self, id: &str, session: Session, now_ms: u64) -> Result<(), LibraryError> {
        self.change(id, now_ms, |s| *s = session)
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
        let mut session = self
            .get(id)
            .ok_or_else(|| LibraryError::Unknown(id.to_owned()))?
            .session
            .clone();
        session.name = format!("{} (copy)", session.name);
        self.add(new_id, session, now_ms)
    }

    /// Removes a session, keeping it as the tombstone that [`Library::undo_delete`] restores.
    /// The tombstone is stored (marked deleted), so the undo outlives a reload. A second
    /// deletion replaces the tombstone, and the older one is removed for good: only the last
    /// deletion can be undone.
    pub fn delete(&mut self, id: &str, now_ms: u64) -> Result<(), LibraryError> {
        let index = self
            .entries
            .iter()
            .position(|e| e.id == id)
            .ok_or_else(|| LibraryError::Unknown(id.to_owned()))?;
        let mut entry = self.entries.remove(index);
        self.dismiss_undo();
        self.drop_pending(&entry.id);
        // Being deleted is a change of the stored record, checked against other tabs like any.
        entry.revision += 1;
        self.pending.push(SaveOp::Bury {
            entry: Box::new(entry.clone()),
            deleted_ms: now_ms,
            expected: None,
        });
        self.tombstone = Some((entry, now_ms));
        Ok(())
    }

    /// Brings back the last deleted session as it was, and returns its id.
    pub fn undo_delete(&mut self) -> Result<String, LibraryError> {
        let (mut entry, _) = self.tombstone.take().ok_or(LibraryError::NothingToUndo)?;
        if self.get(&entry.id).is_some() {
            return Err(LibraryError::DuplicateId(entry.id));
        }
        let id = entry.id.clone();
        entry.revision += 1;
        self.drop_pending(&id);
        self.queue_put(&entry);
        self.entries.push(entry);
        self.sort();
        Ok(id)
    }

    /// Gives up the chance to undo the last deletion, removing its tombstone from storage.
    pub fn dismiss_undo(&mut self) {
        if let Some((old, _)) = self.tombstone.take() {
            self.drop_pending(&old.id);
            self.pending.push(SaveOp::Delete {
                id: old.id,
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

    /// The store confirmed a [`SaveOp::Put`] of this revision.
    pub fn saved(&mut self, id: &str, revision: u64) {
        self.stored.insert(id.to_owned(), revision);
    }

    /// The store confirmed a [`SaveOp::Delete`].
    pub fn removed(&mut self, id: &str) {
        self.stored.remove(id);
    }

    fn change(
        &mut self,
        id: &str,
        now_ms: u64,
        edit: impl FnOnce(&mut Session),
    ) -> Result<(), LibraryError> {
        let entry = self
            .entries
            .iter_mut()
            .find(|e| e.id == id)
            .ok_or_else(|| LibraryError::Unknown(id.to_owned()))?;
        edit(&mut entry.session);
        entry.revision += 1;
        entry.updated_ms = now_ms;
        let entry = entry.clone();
        self.queue_put(&entry);
        self.sort();
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
        self.entries.retain(|e| e.id != id);
        if self.tombstone.as_ref().is_some_and(|(e, _)| e.id == id) {
            self.tombstone = None;
        }
        match stored {
            Some(entry) => {
                self.stored.insert(id.to_owned(), entry.revision);
                self.entries.push(entry);
            }
            None => {
                self.stored.remove(id);
            }
        }
        self.sort();
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
    /// and its [`LiveRecord`](crate::engine::session::LiveRecord), added the first time and
    /// updated after every change. Returns the id it is kept under: `id` while the chat goes on
    /// from that session, or a new one from `new_id` when it is another conversation (a fresh
    /// chat, a demo run live, or the saved one was deleted). An empty chat is not kept.
    pub fn keep_live(
        &mut self,
        id: Option<&str>,
        new_id: impl FnOnce() -> String,
        live: &LiveSession,
        now_ms: u64,
    ) -> Option<String> {
        let memory = live.memory();
        if memory.archive().is_empty() {
            return id.map(str::to_owned);
        }
        if let Some(id) = id
            && let Some(entry) = self.get(id)
            && continues(&entry.session.memory, memory)
        {
            let saved = &entry.session;
            if saved.memory != *memory
                || saved.pinned != live.pinned()
                || saved.live.as_ref() != Some(live.record())
            {
                let session = Session {
                    memory: memory.clone(),
                    pinned: live.pinned().to_vec(),
                    live: Some(live.record().clone()),
                    ..saved.clone()
                };
                self.update(id, session, now_ms).ok()?;
            }
            return Some(id.to_owned());
        }
        let new = new_id();
        let session = Session {
            pinned: live.pinned().to_vec(),
            live: Some(live.record().clone()),
            ..Session::new(LIVE_NAME, SessionSettings::default(), memory.clone())
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

    fn sort(&mut self) {
        self.entries.sort_by(|a, b| {
            b.updated_ms
                .cmp(&a.updated_ms)
                .then_with(|| a.session.name.cmp(&b.session.name))
                .then_with(|| a.id.cmp(&b.id))
        });
    }
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
mod tests {
    use super::*;
    use crate::engine::message::WordCounter;
    use crate::engine::session::import;

    fn session(name: &str) -> Session {
        let mut s = import(
            br#"[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]"#,
            &WordCounter,
        )
        .unwrap();
        s.name = name.into();
        s
    }

    fn names(library: &Library) -> Vec<&str> {
        library
            .list()
            .iter()
            .map(|e| e.session.name.as_str())
            .collect()
    }

    /// Applies every pending write as a store that nobody else writes to would.
    fn store_all(library: &mut Library) -> Vec<SaveOp> {
        let ops = library.take_pending();
        for op in &ops {
            match op {
                SaveOp::Put { entry, .. } | SaveOp::Bury { entry, .. } => {
                    library.saved(&entry.id, entry.revision)
                }
                SaveOp::Delete { id, .. } => library.removed(id),
            }
        }
        ops
    }

    #[test]
    fn newest_change_first_then_by_name() {
        let mut library = Library::default();
        library.add("a".into(), session("Alpha"), 10).unwrap();
        library.add("b".into(), session("Beta"), 30).unwrap();
        library.add("c".into(), session("Gamma"), 30).unwrap();
        assert_eq!(names(&library), ["Beta", "Gamma", "Alpha"]);
        library.rename("a", "  Aleph ", 40).unwrap();
        assert_eq!(names(&library), ["Aleph", "Beta", "Gamma"]);
        assert_eq!(library.get("a").unwrap().revision, 2);
    }

    #[test]
    fn refused_operations_change_nothing() {
        let mut library = Library::default();
        library.add("a".into(), session("Alpha"), 1).unwrap();
        let before = library.clone();
        assert_eq!(library.rename("a", "   ", 2), Err(LibraryError::EmptyName));
        assert_eq!(
            library.rename("zz", "x", 2),
            Err(LibraryError::Unknown("zz".into()))
        );
        assert_eq!(
            library.add("a".into(), session("Other"), 2),
            Err(LibraryError::DuplicateId("a".into()))
        );
        assert_eq!(library.undo_delete(), Err(LibraryError::NothingToUndo));
        assert_eq!(library, before);
    }

    #[test]
    fn a_duplicate_is_an_independent_copy() {
        let mut library = Library::default();
        library.add("a".into(), session("Chat"), 1).unwrap();
        library.duplicate("a", "b".into(), 2).unwrap();
        assert_eq!(names(&library), ["Chat (copy)", "Chat"]);
        library.rename("b", "Policy B", 3).unwrap();
        assert_eq!(library.get("a").unwrap().session.name, "Chat");
        assert_eq!(
            library.get("b").unwrap().session.memory,
            library.get("a").unwrap().session.memory
        );
    }

    #[test]
    fn undo_restores_the_deleted_session_exactly() {
        let mut library = Library::default();
        library.add("a".into(), session("Alpha"), 1).unwrap();
        library.add("b".into(), session("Beta"), 2).unwrap();
        store_all(&mut library);
        let kept = library.get("a").unwrap().clone();
        library.delete("a", 5).unwrap();
        assert_eq!(names(&library), ["Beta"]);
        assert_eq!(library.undoable(), Some("Alpha"));
        assert_eq!(library.undo_delete(), Ok("a".to_owned()));
        let back = library.get("a").unwrap();
        assert_eq!(
            (&back.session, back.updated_ms),
            (&kept.session, kept.updated_ms)
        );
        assert_eq!(library.undoable(), None);
        // Only the last deletion can be undone.
        library.delete("a", 6).unwrap();
        library.delete("b", 7).unwrap();
        assert_eq!(library.undo_delete(), Ok("b".to_owned()));
        assert_eq!(library.undo_delete(), Err(LibraryError::NothingToUndo));
        assert_eq!(names(&library), ["Beta"]);
    }

    #[test]
    fn writes_name_the_revision_the_store_last_confirmed() {
        let mut library = Library::default();
        library.add("a".into(), session("Alpha"), 1).unwrap();
        library.rename("a", "A2", 2).unwrap();
        // Two changes before a save become one put of the newest revision, of a new record.
        let ops = store_all(&mut library);
        assert_eq!(ops.len(), 1);
        let SaveOp::Put { entry, expected } = &ops[0] else {
            panic!("{ops:?}")
        };
        assert_eq!((entry.revision, *expected), (2, None));

        library.rename("a", "A3", 3).unwrap();
        let ops = library.take_pending();
        assert!(
            matches!(&ops[..], [SaveOp::Put { entry, expected: Some(2) }] if entry.revision == 3)
        );
        // The write failed, so it is not confirmed: the next one still names revision 2.
        library.rename("a", "A4", 4).unwrap();
        let ops = store_all(&mut library);
        assert!(
            matches!(&ops[..], [SaveOp::Put { entry, expected: Some(2) }] if entry.revision == 4)
        );

        library.delete("a", 5).unwrap();
        let ops = store_all(&mut library);
        assert!(
            matches!(&ops[..], [SaveOp::Bury { entry, deleted_ms: 5, expected: Some(4) }] if entry.revision == 5),
            "{ops:?}"
        );
        // Undo writes the buried record back, alive.
        library.undo_delete().unwrap();
        let ops = store_all(&mut library);
        assert!(
            matches!(&ops[..], [SaveOp::Put { entry, expected: Some(5) }] if entry.revision == 6)
        );
        // A second deletion, then giving up the undo, removes the record for good.
        library.delete("a", 7).unwrap();
        library.dismiss_undo();
        let ops = store_all(&mut library);
        assert_eq!(
            ops,
            [SaveOp::Delete {
                id: "a".into(),
                expected: Some(6)
            }]
        );
        assert_eq!(library.undoable(), None);
        assert!(!library.has_pending());
    }

    #[test]
    fn a_library_loaded_from_the_store_has_nothing_to_write() {
        let mut library = Library::default();
        library.add("a".into(), session("Alpha"), 1).unwrap();
        library.rename("a", "A", 5).unwrap();
        let loaded = Library::from_stored(library.list().to_vec());
        let mut loaded = loaded;
        assert!(!loaded.has_pending());
        loaded.rename("a", "B", 6).unwrap();
        assert!(matches!(
            &loaded.take_pending()[..],
            [SaveOp::Put {
                expected: Some(2),
                ..
            }]
        ));
    }

    #[test]
    fn the_undo_of_a_delete_survives_a_reload_for_a_week() {
        let mut library = Library::default();
        library.add("a".into(), session("Alpha"), 1).unwrap();
        library.add("b".into(), session("Beta"), 2).unwrap();
        library.add("c".into(), session("Gamma"), 3).unwrap();
        store_all(&mut library);
        library.delete("a", 100).unwrap();
        let ops = store_all(&mut library);
        let [SaveOp::Bury { entry, .. }] = &ops[..] else {
            panic!("{ops:?}")
        };
        // What the store holds after the reload: two live records and the buried one.
        let mut reloaded = Library::from_stored_with_deleted(
            library.list().to_vec(),
            vec![((**entry).clone(), 100)],
            100 + UNDO_KEEP_MS - 1,
        );
        assert!(!reloaded.has_pending());
        assert_eq!(reloaded.undoable(), Some("Alpha"));
        assert_eq!(reloaded.undo_delete(), Ok("a".to_owned()));
        assert!(matches!(
            &reloaded.take_pending()[..],
            [SaveOp::Put { entry, expected: Some(2) }] if entry.id == "a" && entry.revision == 3
        ));

        // A week later the tombstone is gone; of two tombstones only the newer can be undone.
        let old = Library::from_stored_with_deleted(
            Vec::new(),
            vec![((**entry).clone(), 100)],
            100 + UNDO_KEEP_MS,
        );
        assert_eq!(old.undoable(), None);
        let mut old = old;
        assert_eq!(
            old.take_pending(),
            [SaveOp::Delete {
                id: "a".into(),
                expected: Some(2)
            }]
        );
        let mut b = (**entry).clone();
        b.id = "b".into();
        b.session.name = "Beta".into();
        let mut two = Library::from_stored_with_deleted(
            Vec::new(),
            vec![((**entry).clone(), 100), (b, 200)],
            300,
        );
        assert_eq!(two.undoable(), Some("Beta"));
        assert!(matches!(&two.take_pending()[..], [SaveOp::Delete { id, .. }] if id == "a"));
    }

    #[test]
    fn broadcasts_round_trip_and_strangers_are_ignored() {
        for message in [
            Broadcast::Saved {
                id: "18c-00ab cd".into(),
                revision: 7,
            },
            Broadcast::Deleted { id: "x".into() },
        ] {
            assert_eq!(Broadcast::decode(&message.encode()), Some(message));
        }
        for junk in ["", "saved", "saved x y", "deleted ", "hello 1 a"] {
            assert_eq!(Broadcast::decode(junk), None, "{junk:?}");
        }
    }

    /// Two tabs over one store: `a` and `b` each loaded the same saved session.
    fn two_tabs() -> (Library, Library) {
        let mut first = Library::default();
        first.add("s".into(), session("Alpha"), 1).unwrap();
        store_all(&mut first);
        let second = Library::from_stored(first.list().to_vec());
        (first, second)
    }

    #[test]
    fn another_tabs_save_is_picked_up_when_this_tab_has_no_unsaved_change() {
        let (mut a, mut b) = two_tabs();
        a.rename("s", "Renamed in A", 2).unwrap();
        store_all(&mut a);
        let message = Broadcast::Saved {
            id: "s".into(),
            revision: 2,
        };
        // A hears its own message too, and ignores it.
        assert_eq!(a.remote(&message), Remote::Ignore);
        assert_eq!(b.remote(&message), Remote::Reload("s".into()));
        b.accept_stored("s", a.get("s").cloned());
        assert_eq!(b.get("s").unwrap().session.name, "Renamed in A");
        assert_eq!(b.remote(&message), Remote::Ignore);
        // B's next change is based on the revision it picked up.
        b.rename("s", "B", 3).unwrap();
        assert!(matches!(
            &b.take_pending()[..],
            [SaveOp::Put {
                expected: Some(2),
                ..
            }]
        ));

        // A deletion elsewhere removes the session here.
        let (mut a, mut b) = two_tabs();
        a.delete("s", 5).unwrap();
        store_all(&mut a);
        let gone = Broadcast::Deleted { id: "s".into() };
        assert_eq!(a.remote(&gone), Remote::Ignore, "A keeps its undo");
        assert_eq!(b.remote(&gone), Remote::Reload("s".into()));
        b.accept_stored("s", None);
        assert!(b.is_empty());
        assert_eq!(b.remote(&gone), Remote::Ignore);
    }

    #[test]
    fn with_an_unsaved_change_this_tab_can_keep_its_version_as_a_copy() {
        let (mut a, mut b) = two_tabs();
        a.rename("s", "Renamed in A", 2).unwrap();
        store_all(&mut a);
        // B's own rename was refused by the store (A's write came first): it is unsaved.
        b.rename("s", "Renamed in B", 3).unwrap();
        let _refused = b.take_pending();
        assert!(b.unsaved("s"));
        let message = Broadcast::Saved {
            id: "s".into(),
            revision: 2,
        };
        assert_eq!(b.remote(&message), Remote::Conflict("s".into()));
        b.keep_as_copy("s", "s2".into(), a.get("s").cloned(), 4)
            .unwrap();
        assert_eq!(names(&b), ["Renamed in B (copy)", "Renamed in A"]);
        assert!(!b.unsaved("s"));
        let ops = store_all(&mut b);
        assert!(
            matches!(&ops[..], [SaveOp::Put { entry, expected: None }] if entry.id == "s2"),
            "{ops:?}"
        );
        // Or it takes the other version and drops its own.
        let (mut a, mut b) = two_tabs();
        a.rename("s", "Renamed in A", 2).unwrap();
        store_all(&mut a);
        b.rename("s", "Renamed in B", 3).unwrap();
        b.accept_stored("s", a.get("s").cloned());
        assert_eq!(names(&b), ["Renamed in A"]);
        assert!(!b.has_pending());
    }

    #[test]
    fn the_live_chat_is_kept_as_one_session_while_it_goes_on() {
        use crate::engine::drift::PinnedFact;
        use crate::view::live::{CallKind, ReplyEnd};
        let mut live = LiveSession::default();
        let mut library = Library::default();
        let mut ids = 0;
        let mut fresh = || {
            ids += 1;
            format!("live{ids}")
        };
        // Nothing is kept before the first message.
        assert_eq!(library.keep_live(None, &mut fresh, &live, 1), None);
        assert!(library.is_empty());
        let sent = live.send("hi", 2, &WordCounter).unwrap();
        let id = library.keep_live(None, &mut fresh, &live, 2);
        assert_eq!(id.as_deref(), Some("live1"));
        assert_eq!(names(&library), [LIVE_NAME]);
        live.finish(ReplyEnd::Stopped("hel".into()), 3, &WordCounter);
        live.record_call(CallKind::Chat, &sent, None, &WordCounter);
        library.rename("live1", "My chat", 3).unwrap();
        store_all(&mut library);
        assert_eq!(library.keep_live(id.as_deref(), &mut fresh, &live, 4), id);
        let kept = library.get("live1").unwrap();
        assert_eq!((kept.session.name.as_str(), kept.revision), ("My chat", 3));
        assert_eq!(&kept.session.memory, live.memory());
        assert_eq!(kept.session.live.as_ref(), Some(live.record()));
        assert_eq!(kept.session.live.as_ref().unwrap().incomplete, [1].into());
        // The same state again writes nothing.
        store_all(&mut library);
        assert_eq!(library.keep_live(id.as_deref(), &mut fresh, &live, 5), id);
        assert!(!library.has_pending());
        // Pinning a fact changes nothing in the memory, and is saved all the same.
        let policy = live.memory().policy().clone();
        live.set_policy(policy, vec![PinnedFact::phrase("hi", "hi")])
            .unwrap();
        assert_eq!(library.keep_live(id.as_deref(), &mut fresh, &live, 6), id);
        assert_eq!(library.get("live1").unwrap().session.pinned, live.pinned());
        assert_eq!(library.get("live1").unwrap().revision, 4);

        // Another conversation (a demo run live) becomes a session of its own.
        let mut other = LiveSession::default();
        other.send("something else", 6, &WordCounter).unwrap();
        assert_eq!(
            library
                .keep_live(id.as_deref(), &mut fresh, &other, 6)
                .as_deref(),
            Some("live2")
        );
        assert_eq!(library.len(), 2);
        assert!(!continues(live.memory(), other.memory()));
        assert!(continues(other.memory(), other.memory()));
    }
}
