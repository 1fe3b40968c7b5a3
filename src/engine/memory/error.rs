//! [`MemoryError`]: why a memory operation was refused. The memory is unchanged whenever one
//! is returned.

use thiserror::Error;

use crate::engine::policy::PolicyError;

/// What went wrong in a memory operation.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MemoryError {
    /// The conversation holds user and assistant messages; the system prompt is set apart.
    #[error("a system message cannot be added to the conversation; edit the system prompt instead")]
    SystemMessage,
    /// The result belongs to a job that was overtaken or never existed.
    #[error(
        "summary job {job_id} was overtaken by a newer job; its result was discarded and the memory is unchanged"
    )]
    StaleJob { job_id: u64, current: Option<u64> },
    /// The summariser returned nothing usable.
    #[error(
        "summary job {job_id} returned an empty summary; the memory is unchanged, retry the job"
    )]
    EmptySummary { job_id: u64 },
    /// A structured-memory reply failed validation.
    #[error(
        "summary job {job_id} returned structured memory that is not valid ({reason}); the memory is unchanged, retry the job"
    )]
    InvalidStructured { job_id: u64, reason: String },
    /// There are no complete turns that a cycle could fold.
    #[error("there are no complete turns to fold yet; send a message first")]
    NothingToFold,
    /// Retry was asked for while no job had failed.
    #[error("no failed summary job to retry")]
    NoFailedJob,
    /// Restore named an edition that does not exist.
    #[error("there is no edition {0} to restore")]
    NoSuchEdition(u32),
    /// A hand-edited summary must hold some text.
    #[error("the edited summary is empty; write some text or restore an earlier edition")]
    EmptyEdit,
    /// Exclude or include named a message the archive does not hold.
    #[error("there is no message {0} in the conversation")]
    NoSuchMessage(usize),
    /// A folded message is not sent anyway; the summary speaks for it.
    #[error(
        "message {0} is already folded into the summary, so no request sends it; edit the summary instead"
    )]
    AlreadyFolded(usize),
    /// The policy cannot be used.
    #[error("invalid policy: {0}")]
    Policy(#[from] PolicyError),
}
