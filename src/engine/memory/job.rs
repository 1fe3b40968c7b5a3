//! What [`super::MemoryState`] asks the shell to run and records of the outcome: the
//! [`SummaryJob`] (a summariser request as data), what it does ([`JobKind`]), who wrote a
//! committed text ([`CommitMeta`]) and a job that failed ([`Failure`]).

use crate::engine::edition::{Provenance, TurnRange};
use crate::engine::message::ChatMessage;

/// A summariser call the engine wants made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummaryJob {
    /// Grows with every job; only the job in flight may commit.
    pub id: u64,
    pub kind: JobKind,
    /// The messages to send to the summariser.
    pub request: Vec<ChatMessage>,
    /// The summary this job starts from.
    pub previous: Option<String>,
    /// Tokens of what the summariser reads (turns plus previous summary when it is sent).
    pub tokens_in: u32,
    /// The word limit the result is measured against.
    pub word_limit: u32,
    /// The result must be structured memory JSON (see [`SummaryFormat::Structured`]).
    pub structured: bool,
    /// A fold that reads every folded turn from the archive and no previous summary.
    pub from_archive: bool,
}

/// What a job does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobKind {
    /// Folds `turns` out of the verbatim part; they are archive messages `from..to`.
    Fold {
        turns: TurnRange,
        from: usize,
        to: usize,
    },
    /// Rewrites the current summary more briefly, as compression level `level`.
    Compress { level: u8 },
}

/// A job that did not produce a summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub job_id: u64,
    pub kind: JobKind,
    pub reason: String,
    pub at_ms: u64,
}

/// Who produced a committed text, and when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitMeta {
    pub model: Option<String>,
    pub provenance: Provenance,
    pub at_ms: u64,
}
