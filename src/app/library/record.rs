//! A session as the store keeps it: the [`Record`] a [`SaveOp`] writes, and how a record read
//! back becomes an [`Entry`] again. The session itself is stored as the engine's versioned export
//! text, so the stored form is the file format, never an internal type.

use std::fmt;

use crate::app::storage::StoreError;
use crate::engine::message::CountTokens;
use crate::engine::session::{self, ImportError};

use super::{Entry, Origin, SaveOp};

/// One stored session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub id: String,
    pub name: String,
    pub updated_ms: u64,
    pub revision: u64,
    /// The session in the engine's export format.
    pub file: String,
    /// When the session was deleted, for a record kept so the deletion can be undone.
    pub deleted_ms: Option<u64>,
    /// The import it came from, kept beside the file (the export format does not hold it); a
    /// record stored before imports were recorded has none.
    pub origin: Option<Origin>,
}

/// A stored record that no longer imports. It is skipped, and left in storage untouched; its
/// text is kept so the user can export it as it is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    /// The record's name, as stored beside the file.
    pub name: String,
    pub error: ImportError,
    /// The stored text, exactly as read.
    pub file: String,
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\u{201c}{}\u{201d}: {}", self.name, self.error)
    }
}

impl Record {
    /// The record that stores `entry`, marked deleted at `deleted_ms` for a tombstone. The file
    /// is dated by the entry's last change, so writing the same entry twice writes the same text.
    pub fn of(entry: &Entry, deleted_ms: Option<u64>, app_version: &str) -> Record {
        Record {
            id: entry.id.clone(),
            name: entry.session.name.clone(),
            updated_ms: entry.updated_ms,
            revision: entry.revision,
            // Compact, not the indented export: a third smaller or more in storage.
            file: session::export_compact(&entry.session, entry.updated_ms, app_version),
            deleted_ms,
            origin: entry.origin.clone(),
        }
    }

    /// Reads the record back: the entry (named as the record is, which a rename changes without
    /// rewriting the name inside the file) and, for a tombstone, when it was deleted. Counts are
    /// made with `counter` (the file holds none), and vouched for in its vocabulary when it is
    /// exact ([`CountTokens::exact_in`], [`Entry::counted_in`]). The import's size cap does not apply: what the
    /// app stored must read back, however long the chat grew.
    pub fn read(self, counter: &dyn CountTokens) -> Result<(Entry, Option<u64>), Unreadable> {
        // Asked before counting: a vocabulary loaded then is loaded throughout.
        let counted_in = counter.exact_in();
        match session::import_stored(self.file.as_bytes(), counter) {
            Ok(mut session) => {
                session.name = self.name;
                let entry = Entry {
                    id: self.id,
                    session,
                    updated_ms: self.updated_ms,
                    revision: self.revision,
                    origin: self.origin,
                    counted_in,
                };
                Ok((entry, self.deleted_ms))
            }
            Err(error) => Err(Unreadable {
                name: self.name,
                error,
                file: self.file,
            }),
        }
    }
}

impl Record {
    /// The stored version of a session, read back after another tab wrote it: `None` when it was
    /// deleted there (a tombstone is not even read), an error naming it when it no longer
    /// imports.
    pub fn read_current(self, counter: &dyn CountTokens) -> Result<Option<Entry>, StoreError> {
        if self.deleted_ms.is_some() {
            return Ok(None);
        }
        let (entry, _) = self.read(counter)?;
        Ok(Some(entry))
    }
}

impl From<Unreadable> for StoreError {
    fn from(u: Unreadable) -> StoreError {
        StoreError::Unreadable {
            name: u.name,
            reason: u.error,
        }
    }
}

impl SaveOp {
    /// The session this write is about.
    pub fn id(&self) -> &str {
        match self {
            SaveOp::Put { entry, .. } | SaveOp::Bury { entry, .. } => &entry.id,
            SaveOp::Delete { id, .. } => id,
        }
    }

    /// The revision the store must hold for the write to go ahead (`None`: no record).
    pub fn expected(&self) -> Option<u64> {
        match self {
            SaveOp::Put { expected, .. }
            | SaveOp::Bury { expected, .. }
            | SaveOp::Delete { expected, .. } => *expected,
        }
    }

    /// The record a put or a burial stores (a burial's marked deleted); `None` for a removal,
    /// which stores nothing.
    pub fn record(&self, app_version: &str) -> Option<Record> {
        match self {
            SaveOp::Put { entry, .. } => Some(Record::of(entry, None, app_version)),
            SaveOp::Bury {
                entry, deleted_ms, ..
            } => Some(Record::of(entry, Some(*deleted_ms), app_version)),
            SaveOp::Delete { .. } => None,
        }
    }
}
