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
    /// Which model call of the job this is, from 1 to `passes`.
    pub pass: u32,
    /// The model calls the job makes ([`crate::engine::policy::Exact::calls_per_fold`] for a
    /// fold). Each call after the first sees the previous call's draft and returns a better
    /// one; only the last call's text is committed.
    pub passes: u32,
}

/// What a call after the first is asked, after the previous call's draft. Gemini CLI makes a
/// second, verifying call over its first snapshot (`@google/gemini-cli-core` 0.61,
/// `dist/src/context/chatCompressionService.js`, as /work/shared/PEERS.md records it); this
/// sentence is this app's own, not Gemini CLI's prompt.
pub const VERIFY_INSTRUCTION: &str = "Check the summary you just wrote against the conversation above: correct anything it got wrong, add anything important it left out, and reply with the final summary only.";

impl SummaryJob {
    /// The request of this job's next call, which sees `draft`, the text this call returned:
    /// the first call's request, the draft as the model's reply, then [`VERIFY_INSTRUCTION`].
    pub fn next_pass_request(&self, draft: &str) -> Vec<ChatMessage> {
        // A call after the first ends with the previous draft and the instruction; the next
        // one starts again from the first call's request.
        let first = if self.pass > 1 {
            self.request.len().saturating_sub(2)
        } else {
            self.request.len()
        };
        let mut request = self.request[..first].to_vec();
        request.push(ChatMessage {
            role: crate::engine::message::Role::Assistant,
            content: draft.to_owned(),
        });
        request.push(ChatMessage {
            role: crate::engine::message::Role::User,
            content: VERIFY_INSTRUCTION.to_owned(),
        });
        request
    }
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
