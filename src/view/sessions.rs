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

use crate::engine::session::Session;

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
    entries: Vec<Entry>,
    /// The last deleted entry, so that undo can restore it as it was.
    tombstone: Option<Entry>,
    /// The revision of each record as the store last confirmed it.
    stored: BTreeMap<String, u64>,
    /// Writes not yet performed, oldest first.
    pending: Vec<SaveOp>,
}

impl Library {
    /// A library holding what the store returned: every entry counts as saved.
    pub fn from_stored(entries: Vec<Entry>) -> Library {
        let stored = entries.iter().map(|e| (e.id.clone(), e.revision)).collect();
        let mut library = Library {
            entries,
            stored,
            ..Library::default()
        };
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
        self.tombstone.as_ref().map(|e| e.session.name.as_str())
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
    /// A second deletion replaces the tombstone: only the last one can be undone.
    pub fn delete(&mut self, id: &str) -> Result<(), LibraryError> {
        let index = self
            .entries
            .iter()
            .position(|e| e.id == id)
            .ok_or_else(|| LibraryError::Unknown(id.to_owned()))?;
        let entry = self.entries.remove(index);
        self.pending
            .retain(|op| !matches!(op, SaveOp::Put { entry: e, .. } if e.id == entry.id));
        self.pending.push(SaveOp::Delete {
            id: entry.id.clone(),
            expected: None,
        });
        self.tombstone = Some(entry);
        Ok(())
    }

    /// Brings back the last deleted session as it was, and returns its id.
    pub fn undo_delete(&mut self) -> Result<String, LibraryError> {
        let entry = self.tombstone.take().ok_or(LibraryError::NothingToUndo)?;
        if self.get(&entry.id).is_some() {
            return Err(LibraryError::DuplicateId(entry.id));
        }
        let id = entry.id.clone();
        self.queue_put(&entry);
        self.entries.push(entry);
        self.sort();
        Ok(id)
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
                SaveOp::Put { entry, .. } => library.saved(&entry.id, entry.revision),
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
        library.delete("a").unwrap();
        assert_eq!(names(&library), ["Beta"]);
        assert_eq!(library.undoable(), Some("Alpha"));
        assert_eq!(library.undo_delete(), Ok("a".to_owned()));
        assert_eq!(library.get("a"), Some(&kept));
        assert_eq!(library.undoable(), None);
        // Only the last deletion can be undone.
        library.delete("a").unwrap();
        library.delete("b").unwrap();
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

        library.delete("a").unwrap();
        let ops = store_all(&mut library);
        assert_eq!(
            ops,
            [SaveOp::Delete {
                id: "a".into(),
                expected: Some(4)
            }]
        );
        // Undo writes the record back as new.
        library.undo_delete().unwrap();
        let ops = store_all(&mut library);
        assert!(matches!(&ops[..], [SaveOp::Put { expected: None, .. }]));
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
}
