//! What the library decides for the shell's runner (`ui/run/library_sync.rs`), which only performs:
//! the load from storage, a write that landed, another tab's version read back, the answer to a
//! conflict, an imported file, an export, and the live chat kept and resumed. Each takes the result
//! of the I/O as an argument and says what follows as data.

use crate::app::live::LiveSession;
use crate::engine::drift::PinnedFact;
use crate::engine::library_session::Session;
use crate::engine::message::CountTokens;
use crate::engine::policy::Policy;
use crate::engine::session::{self, ImportError, MAX_IMPORT_BYTES, Source};

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
                loaded.set_counted_in(&e.id, e.counted_in);
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
        new_id: impl FnMut() -> String,
        now_ms: u64,
    ) -> Result<Option<String>, FileError> {
        self.import_read(file, bytes, counter, new_id, now_ms)
            .map(|imported| imported.first)
    }

    /// [`Library::import`], saying what was read: the format detected from the content (a
    /// session file, or another tool's transcript) and how many sessions it gave.
    pub fn import_read(
        &mut self,
        file: &str,
        bytes: &[u8],
        counter: &dyn CountTokens,
        mut new_id: impl FnMut() -> String,
        now_ms: u64,
    ) -> Result<Imported, FileError> {
        // Asked before counting: a vocabulary loaded then is loaded throughout.
        let counted_in = counter.exact_in();
        let read = session::read(bytes, counter).map_err(|error| FileError::Invalid {
            file: file.to_owned(),
            error,
        })?;
        let note = read.describe();
        let headline = read.headline();
        let skipped = read.skipped.clone();
        let count = read.sessions.len();
        // One pass and one sort for the whole file, however many sessions it holds.
        let sessions: Vec<(String, Session)> =
            read.sessions.into_iter().map(|s| (new_id(), s)).collect();
        let ids = self.add_imported(sessions, Some(file), now_ms);
        for id in &ids {
            self.set_counted_in(id, counted_in);
        }
        let first = ids.into_iter().next();
        Ok(Imported {
            first,
            count,
            source: read.source,
            note,
            headline,
            skipped,
        })
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

    /// The live chat to resume after a reload or a crash, and the id of the session it is kept
    /// in, while the chat on screen is still empty (a chat already under way is never replaced),
    /// with what the reload cut off offered again ([`LiveSession::resume_after_reload`]).
    ///
    /// `hint` is the id the shell remembered in localStorage, which a crash can lose or leave
    /// behind (Chromium writes it to disk lazily, while the library is in IndexedDB, written
    /// before a change counts as done). So the library decides: with no hint, the live chat
    /// is the one most recently changed; a hint naming a live chat is followed unless a newer
    /// live chat is kept (the hint is older than the library); a hint naming a session that is
    /// gone (the user deleted the chat) resumes nothing.
    pub fn resume(
        &self,
        hint: Option<&str>,
        live: &LiveSession,
        at_ms: u64,
    ) -> Option<(String, LiveSession)> {
        if !live.memory().archive().is_empty() {
            return None;
        }
        let newest = self
            .list()
            .iter()
            .filter(|e| e.session.live.is_some())
            .max_by_key(|e| e.updated_ms);
        let entry = match hint {
            None => newest?,
            Some(id) => {
                let hinted = self.get(id)?;
                match newest {
                    Some(newer) if newer.updated_ms > hinted.updated_ms => newer,
                    _ => hinted,
                }
            }
        };
        Some((
            entry.id.clone(),
            LiveSession::resume_after_reload(&entry.session, at_ms),
        ))
    }
}

/// What becomes of the live chat on screen once the user answered a conflict about the session
/// it is kept in.
#[derive(Clone, Debug, PartialEq)]
pub enum LiveAfterConflict {
    /// The conflict was about another session, or the other tab deleted this one (the chat goes
    /// on and is kept anew): nothing to do.
    Unchanged,
    /// "Reload": the chat on screen becomes the other tab's version.
    Resume(Box<LiveSession>),
    /// "Keep mine as a copy": the chat on screen is kept in the copy from now on.
    KeptIn(String),
}

impl Library {
    /// After [`Library::resolve`] of `id` (with `copy_id` when the user kept theirs as a copy):
    /// what the live chat on screen does when `live_id` is the session it is kept in. A chat
    /// whose reply is still arriving is not replaced.
    pub fn live_after_conflict(
        &self,
        live_id: Option<&str>,
        id: &str,
        copy_id: Option<&str>,
        live: &LiveSession,
    ) -> LiveAfterConflict {
        if live_id != Some(id) {
            return LiveAfterConflict::Unchanged;
        }
        match copy_id {
            Some(copy) if self.get(copy).is_some() => LiveAfterConflict::KeptIn(copy.to_owned()),
            Some(_) => LiveAfterConflict::Unchanged,
            None => match self.get(id) {
                // Plain resume, offering no Retry: the other tab may still be writing the reply.
                Some(entry) if !live.is_busy() => {
                    LiveAfterConflict::Resume(Box::new(LiveSession::resume(&entry.session)))
                }
                _ => LiveAfterConflict::Unchanged,
            },
        }
    }
}

/// What an import added: the first session's id (to open), how many sessions, what the file
/// was read as, the sentence that says so ("Read 2 conversations from a ChatGPT data
/// export.", naming any conversation skipped), and the same without the skipped ones
/// (`headline`) with those (`skipped`) for a page that lists them one by one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Imported {
    pub first: Option<String>,
    pub count: usize,
    pub source: Source,
    pub note: String,
    pub headline: String,
    pub skipped: Vec<crate::engine::transcript::Skipped>,
}

impl Imported {
    /// The words before the list of skipped conversations ("Skipped 2 conversations, which
    /// could not be read:"), or `None` when every conversation was read.
    pub fn skipped_heading(&self) -> Option<String> {
        match self.skipped.len() {
            0 => None,
            1 => Some("Skipped 1 conversation, which could not be read:".to_owned()),
            n => Some(format!(
                "Skipped {n} conversations, which could not be read:"
            )),
        }
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

/// How often a reply that is arriving is saved: at most every [`STREAM_SAVE_MS`], or sooner once
/// [`STREAM_SAVE_BYTES`] more have arrived, and always when it ends (the end is a change of the
/// archive).
pub const STREAM_SAVE_MS: u64 = 500;
pub const STREAM_SAVE_BYTES: usize = 4096;

/// What a change of the live chat worth saving looks like, cheap to take and compare on every
/// streamed piece: the archive, editions and failures by count, the summary by length, the
/// policy, the pinned facts, the live record by count, and the reply arriving by length.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveShape {
    /// How much of the reply arriving has arrived, in bytes.
    streamed: Option<usize>,
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
            streamed: live.streaming_text().map(str::len),
            memory: (m.archive().len(), m.editions().len(), m.failures().len()),
            summary: m.summary().map(str::len),
            policy: m.policy().clone(),
            pinned: live.pinned().to_vec(),
            record: (kept.incomplete.len(), kept.failed.len(), kept.calls.len()),
        }
    }

    /// Whether a reply is arriving: what has arrived since the last save is not stored yet.
    pub fn streaming(&self) -> bool {
        self.streamed.is_some()
    }

    /// Whether `other` differs from this shape only in how much of the reply has arrived.
    fn only_streamed_differs(&self, other: &LiveShape) -> bool {
        self.streamed.is_some()
            && other.streamed.is_some()
            && LiveShape {
                streamed: None,
                ..self.clone()
            } == LiveShape {
                streamed: None,
                ..other.clone()
            }
    }
}

/// When to save the live chat next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveWhen {
    /// Now: a change, or enough of the reply arrived.
    Now,
    /// Only more of the reply arrived, too soon after the last save: ask again in this many
    /// milliseconds (nothing else may arrive meanwhile, if the stream stalls).
    After(u64),
    /// Nothing changed since the last save.
    Nothing,
}

/// The throttle on saving the live chat: every change is saved at once (the user's message
/// before its request goes out), a reply arriving at most every [`STREAM_SAVE_MS`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveSaves {
    last: Option<(LiveShape, u64)>,
}

impl LiveSaves {
    /// Decides whether to save the chat of `shape` at `now_ms`; a [`SaveWhen::Now`] counts as
    /// saved.
    pub fn decide(&mut self, shape: &LiveShape, now_ms: u64) -> SaveWhen {
        let when = match &self.last {
            None => SaveWhen::Now,
            Some((last, _)) if last == shape => SaveWhen::Nothing,
            Some((last, at)) if last.only_streamed_differs(shape) => {
                let grown = shape
                    .streamed
                    .unwrap_or(0)
                    .saturating_sub(last.streamed.unwrap_or(0));
                let elapsed = now_ms.saturating_sub(*at);
                if elapsed >= STREAM_SAVE_MS || grown >= STREAM_SAVE_BYTES {
                    SaveWhen::Now
                } else {
                    SaveWhen::After(STREAM_SAVE_MS - elapsed)
                }
            }
            Some(_) => SaveWhen::Now,
        };
        if when == SaveWhen::Now {
            self.last = Some((shape.clone(), now_ms));
        }
        when
    }
}

/// Whether leaving the page now loses something, so it should warn (`beforeunload`): a write
/// waiting, in flight or refused, or a reply arriving, whose latest part is not stored yet.
pub fn warn_on_leave(library: &Library, writing: bool, live: &LiveShape) -> bool {
    writing || library.unsaved_any() || live.streaming()
}
