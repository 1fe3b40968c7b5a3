//! What the Inspect tab holds beside the [`Library`](super::Library): the session open in it, the
//! problem on screen ([`Problem`]), and the notice about another tab's change. Every storage,
//! import or library failure goes through [`LibraryTab::report`]: the latest problem wins, since
//! it is the one the user just caused or can act on, and an earlier one is either fixed by it or
//! comes back on the next try. A put that another tab beat is not a failure but a choice, so it
//! becomes the remote notice instead ([`LibraryTab::write_failed`]).

use std::fmt;

use thiserror::Error;

use crate::app::storage::StoreError;
use crate::engine::session::ImportError;

use super::{Library, LibraryError, RemoteNotice, SaveOp, Unreadable};

/// Why a file chosen for import was not imported. Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FileError {
    /// Over the size limit, found before reading the file.
    #[error("{file} could not be imported: {error}.")]
    TooLarge { file: String, error: ImportError },
    /// The browser could not read the file.
    #[error("{file} could not be read; choose the file again.")]
    Unreadable { file: String },
    /// The file is not a session, an envelope of sessions or a messages array.
    #[error("{file} was not imported, and nothing changed: {error}.")]
    Invalid { file: String, error: ImportError },
}

/// The problem the Inspect tab shows as an alert.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// Storage refused a read or a write, or an export was not downloaded.
    Store(StoreError),
    /// The library refused an operation; nothing changed.
    Library(LibraryError),
    /// A file was not imported.
    File(FileError),
    /// Stored sessions that no longer import were skipped when the library loaded.
    Skipped(Vec<Unreadable>),
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Store(e) => e.fmt(f),
            Problem::Library(e) => e.fmt(f),
            Problem::File(e) => e.fmt(f),
            Problem::Skipped(records) => {
                let names: Vec<String> = records.iter().map(ToString::to_string).collect();
                write!(
                    f,
                    "Some saved sessions could not be read and were skipped: {}",
                    names.join("; ")
                )
            }
        }
    }
}

impl From<StoreError> for Problem {
    fn from(e: StoreError) -> Problem {
        Problem::Store(e)
    }
}

impl From<LibraryError> for Problem {
    fn from(e: LibraryError) -> Problem {
        Problem::Library(e)
    }
}

impl From<FileError> for Problem {
    fn from(e: FileError) -> Problem {
        Problem::File(e)
    }
}

/// The Inspect tab's own state: the open session, the problem on screen, the remote notice, and
/// the storage failure every tab shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LibraryTab {
    selected: Option<String>,
    problem: Option<Problem>,
    remote: Option<RemoteNotice>,
    /// The last storage failure, until a write lands: shown on every tab ([`StoreAlert`]).
    store: Option<StoreError>,
}

/// The storage alert shown on every tab while the session library cannot be saved: what failed
/// and what to do. The app goes on in memory, the next change tries the write again, and Export
/// works from memory, so the alert always offers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreAlert {
    pub text: String,
    /// Storage is full and a deleted session's undo still holds its record: dismissing the
    /// undo frees that space.
    pub dismiss_undo: bool,
}

impl LibraryTab {
    /// The session open in the tab.
    pub fn selected(&self) -> Option<&str> {
        self.selected.as_deref()
    }

    pub fn problem(&self) -> Option<&Problem> {
        self.problem.as_ref()
    }

    /// The problem Inspect shows itself: [`LibraryTab::problem`], unless it is the storage
    /// failure that the app-wide alert already shows.
    pub fn problem_here(&self) -> Option<&Problem> {
        match (&self.problem, &self.store) {
            (Some(Problem::Store(e)), Some(s)) if e == s => None,
            (problem, _) => problem.as_ref(),
        }
    }

    /// The storage failure in force, if any.
    pub fn store_failure(&self) -> Option<&StoreError> {
        self.store.as_ref()
    }

    /// Storage failed (a write, or IndexedDB as a whole): the alert every tab shows, and the
    /// problem Inspect would show.
    pub fn store_failed(&mut self, error: StoreError) {
        self.store = Some(error.clone());
        self.report(error);
    }

    /// A write landed: storage works again, and its alert goes.
    pub fn write_landed(&mut self) {
        if let Some(error) = self.store.take()
            && self.problem == Some(Problem::Store(error))
        {
            self.problem = None;
        }
    }

    /// The alert to show on every tab, given the library (for its undo): what failed, and what
    /// to do about it.
    pub fn store_alert(&self, library: &Library) -> Option<StoreAlert> {
        let error = self.store.as_ref()?;
        let mut text = error.to_string();
        let full = *error == StoreError::QuotaExceeded;
        let held = library.undo_holds_space().filter(|_| full);
        if let Some(name) = held {
            text.push_str(&format!(
                " The deleted session \u{201c}{name}\u{201d} still takes its space until its undo is dismissed."
            ));
        }
        if full {
            text.push_str(" Until then, a deletion frees its space at once.");
        }
        text.push_str(" Nothing is lost while this tab stays open; export now to keep a copy.");
        Some(StoreAlert {
            text,
            dismiss_undo: held.is_some(),
        })
    }

    /// The text of the stored records that were skipped as unreadable, exactly as stored, to be
    /// exported as they are (one after another, a line apart).
    pub fn skipped_raw(&self) -> Option<String> {
        match &self.problem {
            Some(Problem::Skipped(records)) => Some(
                records
                    .iter()
                    .map(|r| r.file.as_str())
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => None,
        }
    }

    /// The notice about another tab's change of a session this tab lists.
    pub fn remote(&self) -> Option<&RemoteNotice> {
        self.remote.as_ref()
    }

    /// Whether the problem is a write that another tab beat, which a reload of the library
    /// settles: the alert offers "Reload sessions".
    pub fn offers_reload(&self) -> bool {
        matches!(
            self.problem,
            Some(Problem::Store(StoreError::Conflict { .. }))
        )
    }

    pub fn open(&mut self, id: String) {
        self.selected = Some(id);
    }

    pub fn close(&mut self) {
        self.selected = None;
    }

    /// The user deletes `id`: closed, if it was open.
    pub fn deleting(&mut self, id: &str) {
        if self.selected() == Some(id) {
            self.selected = None;
        }
    }

    /// Shows `problem`, replacing the one on screen: the latest wins.
    pub fn report(&mut self, problem: impl Into<Problem>) {
        self.problem = Some(problem.into());
    }

    /// Shows the outcome of an operation: its problem, if it was refused.
    pub fn report_result<E: Into<Problem>>(&mut self, result: Result<(), E>) {
        if let Err(e) = result {
            self.report(e);
        }
    }

    /// The user reloads the library after a refused write: the alert goes.
    pub fn reloading(&mut self) {
        self.problem = None;
    }

    /// A write failed. A put of a session that another tab saved first means this tab's change is
    /// unsaved: the user chooses between the two versions (the remote notice, named as the store
    /// names the session). Any other failure is a problem; a refused burial or removal offers a
    /// reload.
    pub fn write_failed(&mut self, op: &SaveOp, error: StoreError) {
        match (error, op) {
            (StoreError::Conflict { name }, SaveOp::Put { entry, .. }) => {
                self.remote = Some(RemoteNotice {
                    id: entry.id.clone(),
                    name,
                    unsaved: true,
                });
            }
            // A refused burial or removal: the alert here offers a reload.
            (error @ StoreError::Conflict { .. }, _) => self.report(error),
            (error, _) => self.store_failed(error),
        }
    }

    /// Shows the notice about another tab's change; the open session is closed when that change
    /// took it out of `library`.
    pub fn show_remote(&mut self, notice: RemoteNotice, library: &Library) {
        if self.selected.as_deref() == Some(notice.id.as_str()) && library.get(&notice.id).is_none()
        {
            self.selected = None;
        }
        self.remote = Some(notice);
    }

    pub fn dismiss_remote(&mut self) {
        self.remote = None;
    }

    /// The user answered a conflict: the notice and any alert go, unless the answer itself was
    /// refused.
    pub fn resolved(&mut self, result: Result<(), LibraryError>) {
        self.remote = None;
        self.problem = result.err().map(Problem::Library);
    }

    /// A file was imported: the alert goes, and the first imported session opens.
    pub fn imported(&mut self, first: Option<String>) {
        self.problem = None;
        if first.is_some() {
            self.selected = first;
        }
    }
}
