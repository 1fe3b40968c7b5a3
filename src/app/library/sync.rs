//! What the library decides for the shell's runner (`ui/library_sync.rs`), which only performs:
//! the load from storage, a write that landed, another tab's version read back, the answer to a
//! conflict, an imported file, an export, and the live chat kept and resumed. Each takes the
//! result of the I/O as an argument and says what follows as data.

use crate::app::live::LiveSession;
use crate::engine::drift::PinnedFact;
use crate::engine::message::CountTokens;
use crate::engine::policy::Policy;
use crate::engine::session::{self, ImportError, MAX_IMPORT_BYTES, Session};

use super::{
    Broadcast, Entry, FileError, Library, LibraryError, Problem, Record, RemoteNotice, SaveOp,
};

impl Library {
    /// Takes what the store holds in place of what this tab has in memory, read once at start
    /// and again on "Reload sessions". Sessions this tab holds that the store lacks (created
    /// before the load finished) are kept, and saved as new records. Records that no longer
    /// import are skipped, left in storage, and named in the problem returned.
    pub fn load(
        &mut self,
        records: Vec<Record>,
        counter: &dyn CountTokens,
        now_ms: u64,
    ) -> Option<Problem> {
        let mut entries = Vec::new();
        let mut deleted = Vec::new();
        let mut skipped = Vec::new();
        for record in records {
            match record.read(counter) {
                Ok((entry, None)) => entries.push(entry),
                Ok((entry, Some(at))) => deleted.push((entry, at)),
                Err(unreadable) => skipped.push(unreadable),
            }
        }
        let mut loaded = Library::from_stored_with_deleted(entries, deleted, now_ms);
        for e in self.list() {
            if loaded.get(&e.id).is_none() {
                let _ = loaded.add(e.id.clone(), e.session.clone(), e.updated_ms);
            }
        }
        *self = loaded;
        (!skipped.is_empty()).then_some(Problem::Skipped(skipped))
    }

    /// The store confirmed `op`: records the revision it now holds, and returns what to tell the
    /// other tabs (a burial is a deletion to them).
    pub fn landed(&mut self, op: &SaveOp) -> Broadcast {
        match op {
            SaveOp::Put { entry, .. } => {
                self.saved(&entry.id, entry.revision);
                Broadcast::Saved {
                    id: entry.id.clone(),
                    revision: entry.revision,
                }
            }
            SaveOp::Bury { entry, .. } => {
                self.saved(&entry.id, entry.revision);
                Broadcast::Deleted {
                    id: entry.id.clone(),
                }
            }
            SaveOp::Delete { id, .. } => {
                self.removed(id);
                Broadcast::Deleted { id: id.clone() }
            }
        }
    }

    /// Takes another tab's version of `id`, read back after its broadcast ([`Remote::Reload`](super::Remote::Reload)),
    /// and returns the notice to show, named after that version, or after this tab's when the
    /// other tab deleted it.
    pub fn take_remote(&mut self, id: &str, stored: Option<Entry>) -> RemoteNotice {
        let name = stored
            .as_ref()
            .or(self.get(id))
            .map(|e| e.session.name.clone())
            .unwrap_or_default();
        self.accept_stored(id, stored);
        RemoteNotice {
            id: id.to_owned(),
            name,
            unsaved: false,
        }
    }

    /// The notice for another tab's change of `id` while this tab's change of it is unsaved
    /// ([`Remote::Conflict`](super::Remote::Conflict)).
    pub fn conflict_notice(&self, id: &str) -> RemoteNotice {
        RemoteNotice {
            id: id.to_owned(),
            name: self
                .get(id)
                .map(|e| e.session.name.clone())
                .unwrap_or_default(),
            unsaved: true,
        }
    }

    /// The user's answer to a conflict, with the stored version of `id` read back: take it, or,
    /// given `copy_id`, keep this tab's version as a copy under that id first.
    pub fn resolve(
        &mut self,
        id: &str,
        stored: Option<Entry>,
        copy_id: Option<String>,
        now_ms: u64,
    ) -> Result<(), LibraryError> {
        match copy_id {
            Some(copy_id) => self.keep_as_copy(id, copy_id, stored, now_ms),
            None => {
                self.accept_stored(id, stored);
                Ok(())
            }
        }
    }

    /// Adds every session of an imported file (`bytes`, read from the file named `file`), each
    /// under an id from `new_id`, and returns the first one's id, to open. A file that does not
    /// import changes nothing.
    pub fn import(
        &mut self,
        file: &str,
        bytes: &[u8],
        counter: &dyn CountTokens,
        mut new_id: impl FnMut() -> String,
        now_ms: u64,
    ) -> Result<Option<String>, FileError> {
        let imported = session::import_all(bytes, counter).map_err(|error| FileError::Invalid {
            file: file.to_owned(),
            error,
        })?;
        let sessions: Vec<(String, Session)> =
            imported.into_iter().map(|s| (new_id(), s)).collect();
        Ok(self.add_all(sessions, now_ms).into_iter().next())
    }

    /// The export: the open session `selected` as a session file, or, with none open (or one
    /// deleted meanwhile), every session in one envelope.
    pub fn export(&self, selected: Option<&str>, now_ms: u64, app_version: &str) -> String {
        match selected.and_then(|id| self.get(id)) {
            Some(entry) => session::export(&entry.session, now_ms, app_version),
            None => {
                let all: Vec<Session> = self.list().iter().map(|e| e.session.clone()).collect();
                session::export_all(&all, now_ms, app_version)
            }
        }
    }

    /// The live chat to resume after a reload: the session `id` the library kept it in, while the
    /// chat on screen is still empty (a chat already under way is never replaced).
    pub fn resume(&self, id: Option<&str>, live: &LiveSession) -> Option<LiveSession> {
        let entry = self.get(id?)?;
        live.memory()
            .archive()
            .is_empty()
            .then(|| LiveSession::resume(&entry.session))
    }
}

/// Refuses a file over [`MAX_IMPORT_BYTES`] before it is read into memory.
pub fn check_file_size(file: &str, bytes: u64) -> Result<(), FileError> {
    let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
    if bytes > MAX_IMPORT_BYTES {
        return Err(FileError::TooLarge {
            file: file.to_owned(),
            error: ImportError::TooLarge {
                bytes,
                limit: MAX_IMPORT_BYTES,
            },
        });
    }
    Ok(())
}

/// What a change of the live chat worth saving looks like, cheap to take and compare on every
/// streamed piece: the archive, editions and failures by count, the summary by length, the
/// policy, the pinned facts and the live record by count. A streamed piece changes none of
/// them, so the library is not rewritten while a reply arrives.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveShape {
    busy: bool,
    memory: (usize, usize, usize),
    summary: Option<usize>,
    policy: Policy,
    pinned: Vec<PinnedFact>,
    record: (usize, usize, usize),
}

impl LiveShape {
    pub fn of(live: &LiveSession) -> LiveShape {
        let m = live.memory();
        let kept = live.record();
        LiveShape {
            busy: live.is_streaming() || live.is_summarising(),
            memory: (m.archive().len(), m.editions().len(), m.failures().len()),
            summary: m.summary().map(str::len),
            policy: m.policy().clone(),
            pinned: live.pinned().to_vec(),
            record: (kept.incomplete.len(), kept.failed.len(), kept.calls.len()),
        }
    }

    /// Whether the chat may be saved now: no reply or summary is being written, so the saved
    /// session holds no half of one.
    pub fn settled(&self) -> bool {
        !self.busy
    }
}
