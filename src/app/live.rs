//! A live conversation with the user's endpoint: the summary memory, the reply being streamed,
//! which replies were cut short, the last error and what Retry would redo.
//!
//! Architecture invariant: this model performs no I/O. The shell asks it for the messages to
//! send ([`LiveSession::send`], [`LiveSession::retry`]), performs the request, and feeds what came
//! back in ([`LiveSession::delta`], [`LiveSession::finish`], [`LiveSession::summary_done`]). The
//! user's message goes into the archive before the request leaves, so a failure never loses it.

use std::collections::VecDeque;

use thiserror::Error;

use crate::app::rows::{MessageRow, RowState, rows_of};
use crate::engine::demo::DemoScript;
use crate::engine::drift::{FactError, PinnedFact, compile_facts};
use crate::engine::edition::Provenance;
use crate::engine::memory::{CommitMeta, MemoryError, MemoryState, SummaryJob};
use crate::engine::message::{ChatMessage, CountTokens, Message, Role};
use crate::engine::openai::{ApiError, Usage};
use crate::engine::policy::{Policy, PolicyError};
use crate::engine::session::{LiveRecord, Session};

pub use crate::engine::session::{CallKind, CallRecord};

/// The system prompt a live chat starts with.
pub const LIVE_SYSTEM_PROMPT: &str = "You are a helpful assistant. Answer clearly and briefly.";

/// One live conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveSession {
    memory: MemoryState,
    /// The reply arriving now, if a chat request is in flight.
    streaming: Option<String>,
    /// Which replies are incomplete or were cut short by a failure (Retry asks for the whole
    /// reply, and no later request sends the cut one), and every model call: the part of the
    /// chat that is saved with its memory.
    kept: LiveRecord,
    /// The summariser job in flight, if any.
    summarising: Option<u64>,
    error: Option<String>,
    redo: Option<Redo>,
    /// User messages still to send, when a demo script is being run live.
    queue: VecDeque<String>,
    /// The facts the user pinned for this conversation.
    pinned: Vec<PinnedFact>,
}

/// What Retry would do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Redo {
    /// Ask the chat model again for a reply to the conversation as it stands.
    Reply,
    /// Run the failed summariser job again.
    Summary,
}

/// What the shell should perform next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiveAction {
    /// A chat request with these messages.
    Reply(Vec<ChatMessage>),
    /// A summariser request for this job.
    Summary(SummaryJob),
}

/// How a chat request ended, as the shell saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplyEnd {
    /// The whole reply arrived.
    Complete(String),
    /// The user pressed Stop; the text received so far.
    Stopped(String),
    /// The request failed (the error's message), with any text received before it did.
    Failed { partial: String, error: String },
}

/// Why a live action cannot be taken now.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LiveError {
    /// The message box is empty.
    #[error("Type a message first.")]
    EmptyMessage,
    /// A reply is still arriving.
    #[error("A reply is still arriving; wait for it or press Stop.")]
    Busy,
    /// Retry was pressed with nothing to redo.
    #[error("There is nothing to retry.")]
    NothingToRetry,
    /// Restore or Edit was pressed while the summariser is writing the next edition.
    #[error("A summary is being written; wait for it to finish, then restore or edit.")]
    Summarising,
    /// The memory refused the change.
    #[error("{0}")]
    Memory(#[from] MemoryError),
    /// A new policy does not validate; nothing was changed.
    #[error("{0}")]
    Policy(#[from] PolicyError),
    /// A pinned fact does not compile; nothing was changed.
    #[error("{0}")]
    Fact(#[from] FactError),
}

impl Default for LiveSession {
    fn default() -> Self {
        // The default policy is a constant that validates, which a test below checks.
        match MemoryState::new(LIVE_SYSTEM_PROMPT, Policy::default()) {
            Ok(memory) => LiveSession::with_memory(memory),
            Err(error) => unreachable!("the default policy is valid: {error}"),
        }
    }
}

impl ReplyEnd {
    /// How a non-streamed chat request ended: `Ok(None)` is the user's Stop, before any text.
    pub fn of_completion(reply: Result<Option<String>, ApiError>) -> ReplyEnd {
        match reply {
            Ok(Some(text)) => ReplyEnd::Complete(text),
            Ok(None) => ReplyEnd::Stopped(String::new()),
            Err(error) => ReplyEnd::Failed {
                partial: String::new(),
                error: error.to_string(),
            },
        }
    }
}

/// The summary text a summariser request produced, or why there is none (a stopped request
/// counts as a failure, which the memory records and Retry redoes).
pub fn summary_text(reply: Result<Option<String>, ApiError>) -> Result<String, String> {
    match reply {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Err("the summary request was stopped".to_owned()),
        Err(error) => Err(error.to_string()),
    }
}

/// What the library compares to tell whether the live chat changed: cheap to compute on every
/// streamed piece, and equal for two states the library would store alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveShape {
    /// A reply or a summary is being written (the library saves the chat all the same, a reply
    /// as it arrives: `app::library::LiveShape`).
    pub busy: bool,
    /// Messages, editions and failures.
    counts: (usize, usize, usize),
    summary_len: Option<usize>,
    policy: Policy,
    pinned: Vec<PinnedFact>,
    /// Incomplete replies, failed replies and model calls.
    record: (usize, usize, usize),
}

impl LiveSession {
    /// A live conversation under `policy`.
    pub fn new(policy: Policy) -> Result<LiveSession, LiveError> {
        let memory = MemoryState::new(LIVE_SYSTEM_PROMPT, policy).map_err(MemoryError::Policy)?;
        Ok(LiveSession::with_memory(memory))
    }

    /// A live run of a demo: its system prompt and policy, with its user messages queued to be
    /// sent one after another, each once the previous reply (and any summary it made due) is in.
    pub fn from_script(script: &DemoScript) -> Result<LiveSession, LiveError> {
        let memory = MemoryState::new(script.system_prompt, script.policy.clone())
            .map_err(MemoryError::Policy)?;
        let mut session = LiveSession::with_memory(memory);
        session.pinned = script.facts.clone();
        session.queue = script
            .turns
            .iter()
            .map(|(user, _)| (*user).to_owned())
            .collect();
        Ok(session)
    }

    /// A live conversation that goes on from a saved session, the library's copy of the live
    /// chat after a reload: its memory, pinned facts, incomplete replies and model calls. A
    /// session that was never a live chat resumes with no reply marked and no call recorded.
    pub fn resume(session: &Session) -> LiveSession {
        let mut live = LiveSession::with_memory(session.memory.clone());
        live.pinned = session.pinned.clone();
        live.kept = session.live.clone().unwrap_or_default();
        live
    }

    /// What the library keeps of this chat beside its memory and pinned facts.
    pub fn record(&self) -> &LiveRecord {
        &self.kept
    }

    /// Records a model call: the request as sent, counted by `counter`, and the usage the API
    /// reported for it, if any.
    pub fn record_call(
        &mut self,
        kind: CallKind,
        request: &[ChatMessage],
        usage: Option<&Usage>,
        counter: &dyn CountTokens,
    ) {
        self.kept.calls.push(CallRecord {
            kind,
            client_prompt_tokens: request.iter().map(|m| counter.count(&m.content)).sum(),
            api_prompt_tokens: usage.map(|u| u.prompt_tokens),
            api_completion_tokens: usage.map(|u| u.completion_tokens),
        });
    }

    /// Every model call so far, oldest first.
    pub fn calls(&self) -> &[CallRecord] {
        &self.kept.calls
    }

    /// How many queued user messages are still to be sent.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Sends the next queued message, unless a reply or summary is running or an error waits
    /// for Retry (the run pauses there and goes on after a successful retry).
    pub fn next_queued(
        &mut self,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Option<Vec<ChatMessage>> {
        if self.streaming.is_some() || self.summarising.is_some() || self.error.is_some() {
            return None;
        }
        let text = self.queue.pop_front()?;
        match self.send(&text, at_ms, counter) {
            Ok(messages) => Some(messages),
            Err(error) => {
                self.error = Some(error.to_string());
                None
            }
        }
    }

    pub fn memory(&self) -> &MemoryState {
        &self.memory
    }

    /// The facts pinned for this conversation.
    pub fn pinned(&self) -> &[PinnedFact] {
        &self.pinned
    }

    /// Changes the policy and the pinned facts. The new trigger is checked at the next reply; a
    /// summary already running keeps the prompt it was sent with. Refused, with nothing changed,
    /// when the policy or a fact is invalid.
    pub fn set_policy(&mut self, policy: Policy, facts: Vec<PinnedFact>) -> Result<(), LiveError> {
        compile_facts(&facts)?;
        self.memory.set_policy(policy)?;
        self.pinned = facts;
        Ok(())
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    pub fn redo(&self) -> Option<&Redo> {
        self.redo.as_ref()
    }

    /// Whether a chat reply is arriving now.
    pub fn is_streaming(&self) -> bool {
        self.streaming.is_some()
    }

    /// Whether a summariser call is running.
    pub fn is_summarising(&self) -> bool {
        self.summarising.is_some()
    }

    /// Edition `cycle`'s text becomes the current summary again, as a new edition. Refused while
    /// a summary is being written, whose result would otherwise overwrite the restored text.
    pub fn restore(
        &mut self,
        cycle: u32,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<(), LiveError> {
        if self.summarising.is_some() {
            return Err(LiveError::Summarising);
        }
        self.memory.restore(cycle, at_ms, counter)?;
        Ok(())
    }

    /// The user's own text becomes the current summary, as a new edition marked as edited by
    /// hand. Refused, with nothing changed, when the text is empty or a summary is being written.
    pub fn edit_summary(
        &mut self,
        text: &str,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<(), LiveError> {
        if self.summarising.is_some() {
            return Err(LiveError::Summarising);
        }
        self.memory.edit_summary(text, at_ms, counter)?;
        Ok(())
    }

    /// Starts a summary cycle now, whatever the trigger says (the manual trigger's Summarise
    /// now, or an early fold under any trigger), and returns the job to send to the
    /// summariser. Refused while a reply is arriving or a summary is being written, and when
    /// no complete turn is left to fold.
    pub fn summarise_now(&mut self) -> Result<SummaryJob, LiveError> {
        if self.streaming.is_some() {
            return Err(LiveError::Busy);
        }
        if self.summarising.is_some() {
            return Err(LiveError::Summarising);
        }
        let job = self.memory.request_summary_now()?;
        self.summarising = Some(job.id);
        Ok(job)
    }

    /// Archives the user's message, then returns the messages to send to the chat model.
    pub fn send(
        &mut self,
        text: &str,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<Vec<ChatMessage>, LiveError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(LiveError::EmptyMessage);
        }
        if self.streaming.is_some() {
            return Err(LiveError::Busy);
        }
        self.memory
            .add_message(Message::new(Role::User, text, counter, at_ms))?;
        Ok(self.start_reply(counter))
    }

    /// Appends a piece of the reply that is arriving.
    pub fn delta(&mut self, piece: &str) {
        if let Some(reply) = &mut self.streaming {
            reply.push_str(piece);
        }
    }

    /// Ends the chat request. A complete reply is archived verbatim; a stopped or cut one is
    /// archived too, marked incomplete. Returns the summariser job when a cycle is due.
    pub fn finish(
        &mut self,
        end: ReplyEnd,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Option<SummaryJob> {
        self.streaming = None;
        let failed = matches!(end, ReplyEnd::Failed { .. });
        let (text, complete, error) = match end {
            ReplyEnd::Complete(text) => (text, true, None),
            ReplyEnd::Stopped(text) => {
                // Stop ends a scripted run too: the user took over.
                self.queue.clear();
                (text, false, None)
            }
            ReplyEnd::Failed { partial, error } => (partial, false, Some(error)),
        };
        if let Some(error) = error {
            self.error = Some(error);
            self.redo = Some(Redo::Reply);
        }
        if text.trim().is_empty() {
            return None;
        }
        let index = self.memory.archive().len();
        if !complete {
            self.kept.incomplete.insert(index);
        }
        if failed {
            self.kept.failed.insert(index);
        }
        // The window trigger weighs the whole request, so count its fixed part exactly.
        self.memory.count_system_prompt(counter);
        let added = self
            .memory
            .add_message(Message::new(Role::Assistant, text, counter, at_ms));
        match added {
            Ok(Some(job)) => {
                self.summarising = Some(job.id);
                Some(job)
            }
            Ok(None) => None,
            Err(error) => {
                self.error = Some(error.to_string());
                None
            }
        }
    }

    /// Feeds a summariser result back. Text is committed as a model edition; an error or empty
    /// text is recorded as a failure that leaves the memory unchanged and offers Retry. Returns
    /// the next job when one is due at once.
    pub fn summary_done(
        &mut self,
        job_id: u64,
        result: Result<String, String>,
        model: &str,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Option<SummaryJob> {
        self.summarising = None;
        let outcome = match result {
            Ok(text) => self.memory.commit(
                job_id,
                &text,
                CommitMeta {
                    model: Some(model.to_owned()),
                    provenance: Provenance::Model,
                    at_ms,
                },
                counter,
            ),
            Err(reason) => match self.memory.fail(job_id, &reason, at_ms) {
                // A recorded failure is reported like an empty summary: memory unchanged.
                Ok(()) => Err(MemoryError::EmptySummary { job_id }),
                Err(error) => Err(error),
            },
        };
        match outcome {
            Ok(next) => {
                if self.redo == Some(Redo::Summary) {
                    self.error = None;
                    self.redo = None;
                }
                self.summarising = next.as_ref().map(|job| job.id);
                next
            }
            Err(MemoryError::StaleJob { .. }) => None,
            Err(error) => {
                let reason = match self.memory.failures().last() {
                    Some(failure) if failure.job_id == job_id => failure.reason.clone(),
                    _ => error.to_string(),
                };
                self.error = Some(format!(
                    "The summary could not be written: {}. The conversation and its memory are unchanged; press Retry to try the summary again.",
                    reason.trim_end_matches('.')
                ));
                self.redo = Some(Redo::Summary);
                None
            }
        }
    }

    /// What Retry does now: the reply again, or the failed summary job again.
    pub fn retry(&mut self, counter: &dyn CountTokens) -> Result<LiveAction, LiveError> {
        if self.streaming.is_some() {
            return Err(LiveError::Busy);
        }
        match self.redo.take() {
            Some(Redo::Reply) => {
                self.error = None;
                Ok(LiveAction::Reply(self.start_reply(counter)))
            }
            Some(Redo::Summary) => match self.memory.retry_job() {
                Ok(job) => {
                    self.error = None;
                    self.summarising = Some(job.id);
                    Ok(LiveAction::Summary(job))
                }
                Err(error) => {
                    self.redo = Some(Redo::Summary);
                    self.error = Some(error.to_string());
                    Err(error.into())
                }
            },
            None => Err(LiveError::NothingToRetry),
        }
    }

    /// Every archived message, and the reply arriving now.
    pub fn rows(&self) -> Vec<MessageRow> {
        let memory = &self.memory;
        let mut rows = rows_of(memory, |index| self.kept.incomplete.contains(&index));
        if let Some(reply) = &self.streaming {
            rows.push(MessageRow {
                index: rows.len(),
                role: Role::Assistant,
                content: reply.clone(),
                tokens: None,
                state: RowState::Streaming,
                turn: memory.turn_count(),
            });
        }
        rows
    }

    /// Whether a reply or a summary is being written now (Send and Retry wait for it).
    pub fn is_busy(&self) -> bool {
        self.is_streaming() || self.is_summarising()
    }

    /// What the library compares to tell whether this chat changed since it was last kept.
    pub fn shape(&self) -> LiveShape {
        let m = &self.memory;
        let kept = &self.kept;
        LiveShape {
            busy: self.is_busy(),
            counts: (m.archive().len(), m.editions().len(), m.failures().len()),
            summary_len: m.summary().map(str::len),
            policy: m.policy().clone(),
            pinned: self.pinned.clone(),
            record: (kept.incomplete.len(), kept.failed.len(), kept.calls.len()),
        }
    }

    /// A chat request ended: records the call (the request as sent, with the usage the API
    /// reported), archives the reply, and says what to perform next: the summary the reply
    /// made due, else the next queued message of a demo run live, else nothing.
    pub fn reply_ended(
        &mut self,
        request: &[ChatMessage],
        usage: Option<&Usage>,
        end: ReplyEnd,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Option<LiveAction> {
        self.record_call(CallKind::Chat, request, usage, counter);
        match self.finish(end, at_ms, counter) {
            Some(job) => Some(LiveAction::Summary(job)),
            None => self.next_queued(at_ms, counter).map(LiveAction::Reply),
        }
    }

    /// A summariser request ended: records the call, commits or records the failure, and says
    /// what to perform next: a job due at once (a compression, or a cycle the meantime made
    /// due), else the next queued message, else nothing.
    pub fn summary_ended(
        &mut self,
        job: &SummaryJob,
        reply: Result<Option<String>, ApiError>,
        usage: Option<&Usage>,
        model: &str,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Option<LiveAction> {
        self.record_call(CallKind::Summary, &job.request, usage, counter);
        match self.summary_done(job.id, summary_text(reply), model, at_ms, counter) {
            Some(next) => Some(LiveAction::Summary(next)),
            None => self.next_queued(at_ms, counter).map(LiveAction::Reply),
        }
    }

    fn with_memory(memory: MemoryState) -> LiveSession {
        LiveSession {
            memory,
            streaming: None,
            kept: LiveRecord::default(),
            summarising: None,
            error: None,
            redo: None,
            queue: VecDeque::new(),
            pinned: Vec::new(),
        }
    }

    /// Marks a reply as arriving and returns the context window to send for it.
    fn start_reply(&mut self, counter: &dyn CountTokens) -> Vec<ChatMessage> {
        self.error = None;
        self.redo = None;
        self.streaming = Some(String::new());
        let request = self.memory.request(counter);
        // The request ends with the verbatim messages, which are the archive's tail; a reply
        // a failed request cut short is left out of it.
        let archive = self.memory.archive().len();
        let first_verbatim = request.len() - self.memory.verbatim().len();
        request
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                *i < first_verbatim || !self.kept.failed.contains(&(archive + i - request.len()))
            })
            .map(|(_, m)| ChatMessage::from(m))
            .collect()
    }
}

/// What persistence needs of a live chat (the library keeps it as it streams, and offers what
/// a reload cut off); kept apart from the request logic above.
impl LiveSession {
    /// The reply arriving now, as far as it has arrived.
    pub fn streaming_text(&self) -> Option<&str> {
        self.streaming.as_deref()
    }

    /// [`LiveSession::resume`] after a reload, offering what the reload cut off: a user message
    /// with no reply, or a reply kept as it was streaming (marked failed, so incomplete), offers
    /// Retry of the reply; a summary that the last reply made due, and that no edition holds,
    /// is offered again as a failed job that Retry runs. Nothing is committed twice: the trigger
    /// is checked against the turns still verbatim.
    pub fn resume_after_reload(session: &Session, at_ms: u64) -> LiveSession {
        let mut live = LiveSession::resume(session);
        let archive = live.memory.archive();
        let Some(last) = archive.last() else {
            return live;
        };
        let cut = last.role == Role::User || live.kept.failed.contains(&(archive.len() - 1));
        if cut {
            live.error = Some(
                "The reply to your last message did not finish before the page was closed or reloaded; what had arrived is kept, marked incomplete. Press Retry to ask again."
                    .to_owned(),
            );
            live.redo = Some(Redo::Reply);
        } else if let Some(job) = live.memory.recheck_trigger() {
            let reason = "the page was closed or reloaded while the summary was being written";
            if live.memory.fail(job.id, reason, at_ms).is_ok() {
                live.error = Some(format!(
                    "The summary could not be written: {reason}. The conversation and its memory are unchanged; press Retry to write the summary again."
                ));
                live.redo = Some(Redo::Summary);
            }
        }
        live
    }
}

#[cfg(test)]
mod tests;
