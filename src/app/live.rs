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
    /// A reply or a summary is being written: the chat is not saved mid-reply.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::message::WordCounter;

    const C: WordCounter = WordCounter;

    use crate::app::rows::RowState as LiveState;

    fn states(session: &LiveSession) -> Vec<(&'static str, &'static str)> {
        session
            .rows()
            .iter()
            .map(|r| (r.role.as_str(), r.state.slug()))
            .collect()
    }

    /// Plays `turns` complete turns and returns the last summary job emitted, if any.
    fn play(session: &mut LiveSession, turns: u32) -> Option<SummaryJob> {
        let mut job = None;
        for n in 1..=turns {
            session.send(&format!("question {n}"), 0, &C).unwrap();
            session.delta(&format!("answer {n}"));
            job = session
                .finish(ReplyEnd::Complete(format!("answer {n}")), 0, &C)
                .or(job);
        }
        job
    }

    #[test]
    fn sending_archives_the_user_message_before_the_request_and_streams_the_reply() {
        let mut session = LiveSession::default();
        let sent = session.send("  hello there ", 5, &C).unwrap();
        assert_eq!(session.memory().archive().len(), 1);
        assert_eq!(session.memory().archive()[0].content, "hello there");
        assert_eq!(sent.last().map(|m| m.content.as_str()), Some("hello there"));
        assert_eq!(sent[0].role, Role::System);
        session.delta("Hi");
        session.delta(" you");
        let rows = session.rows();
        assert_eq!(rows[1].content, "Hi you");
        assert_eq!(
            states(&session),
            [("user", "verbatim"), ("assistant", "streaming")]
        );
        assert_eq!(session.send("again", 6, &C), Err(LiveError::Busy));
        assert_eq!(
            session.finish(ReplyEnd::Complete("Hi you".into()), 7, &C),
            None
        );
        assert_eq!(
            states(&session),
            [("user", "verbatim"), ("assistant", "verbatim")]
        );
        assert_eq!(session.send("   ", 8, &C), Err(LiveError::EmptyMessage));
    }

    #[test]
    fn each_call_records_our_count_beside_the_apis() {
        let mut session = LiveSession::default();
        let sent = session.send("how much is left", 0, &C).unwrap();
        let usage = Usage {
            prompt_tokens: 21,
            completion_tokens: 3,
            reasoning_tokens: None,
        };
        session.record_call(CallKind::Chat, &sent, Some(&usage), &C);
        session.record_call(CallKind::Summary, &sent[..1], None, &C);
        let ours: u32 = sent.iter().map(|m| C.count(&m.content)).sum();
        assert_eq!(
            session.calls(),
            [
                CallRecord {
                    kind: CallKind::Chat,
                    client_prompt_tokens: ours,
                    api_prompt_tokens: Some(21),
                    api_completion_tokens: Some(3),
                },
                CallRecord {
                    kind: CallKind::Summary,
                    client_prompt_tokens: C.count(&sent[0].content),
                    api_prompt_tokens: None,
                    api_completion_tokens: None,
                },
            ]
        );
    }

    #[test]
    fn a_failed_request_keeps_the_user_message_and_retry_resends_it() {
        let mut session = LiveSession::default();
        let first = session.send("plan my savings", 1, &C).unwrap();
        let job = session.finish(
            ReplyEnd::Failed {
                partial: String::new(),
                error: "Rate limited.".into(),
            },
            2,
            &C,
        );
        assert_eq!(job, None);
        assert_eq!(session.error(), Some("Rate limited."));
        assert_eq!(session.redo(), Some(&Redo::Reply));
        assert_eq!(states(&session), [("user", "verbatim")]);
        let again = session.retry(&C).unwrap();
        assert_eq!(again, LiveAction::Reply(first));
        assert_eq!(session.error(), None);
        assert!(session.is_streaming());
        assert_eq!(session.memory().archive().len(), 1, "not archived twice");
        assert_eq!(
            session.retry(&C),
            Err(LiveError::Busy),
            "no retry while a reply arrives"
        );
    }

    #[test]
    fn retrying_a_reply_that_failed_mid_stream_does_not_send_the_partial_reply() {
        let mut session = LiveSession::default();
        let first = session.send("plan my savings", 1, &C).unwrap();
        session.delta("Start with an emer");
        session.finish(
            ReplyEnd::Failed {
                partial: "Start with an emer".into(),
                error: "The connection dropped.".into(),
            },
            2,
            &C,
        );
        // Nothing is lost: the partial reply is archived and shown as incomplete.
        assert_eq!(
            states(&session),
            [("user", "verbatim"), ("assistant", "incomplete")]
        );
        let again = session.retry(&C).unwrap();
        assert_eq!(
            again,
            LiveAction::Reply(first),
            "the same request as before"
        );
        session.finish(
            ReplyEnd::Complete("Start with an emergency fund.".into()),
            3,
            &C,
        );
        // Nor does any later request carry it, while the user's Stop-ped replies stay in.
        let next = session.send("and then?", 4, &C).unwrap();
        let sent: Vec<&str> = next.iter().map(|m| m.content.as_str()).collect();
        assert!(!sent.contains(&"Start with an emer"), "{sent:?}");
        assert!(sent.contains(&"Start with an emergency fund."));
        assert_eq!(sent.last(), Some(&"and then?"));
    }

    #[test]
    fn stop_keeps_the_partial_reply_marked_incomplete() {
        let mut session = LiveSession::default();
        session.send("tell me a story", 1, &C).unwrap();
        session.delta("Once upon");
        session.finish(ReplyEnd::Stopped("Once upon".into()), 2, &C);
        assert_eq!(
            states(&session),
            [("user", "verbatim"), ("assistant", "incomplete")]
        );
        assert_eq!(session.rows()[1].content, "Once upon");
        assert_eq!(session.error(), None);
        // Stopping before any text arrived archives nothing.
        session.send("never mind", 3, &C).unwrap();
        session.finish(ReplyEnd::Stopped(String::new()), 4, &C);
        assert_eq!(session.memory().archive().len(), 3);
    }

    #[test]
    fn a_due_summary_is_committed_as_a_model_edition_and_folds_the_old_turns() {
        let mut session = LiveSession::default();
        assert_eq!(play(&mut session, 3), None);
        let job = play(&mut session, 1).expect("the 4/2 policy fires after 4 turns");
        assert!(session.is_summarising());
        let next = session.summary_done(
            job.id,
            Ok("The user asked 1 and 2.".into()),
            "sum-model",
            9,
            &C,
        );
        assert_eq!(next, None);
        assert!(!session.is_summarising());
        let memory = session.memory();
        assert_eq!(memory.summary(), Some("The user asked 1 and 2."));
        let edition = memory.editions().last().unwrap();
        assert_eq!(edition.provenance, Provenance::Model);
        assert_eq!(edition.model.as_deref(), Some("sum-model"));
        let folded = session
            .rows()
            .iter()
            .filter(|r| r.state == LiveState::Folded)
            .count();
        assert_eq!(folded, 4);
    }

    #[test]
    fn a_failed_or_empty_summary_changes_nothing_and_offers_retry() {
        for result in [
            Err("The server failed (HTTP 500).".to_owned()),
            Ok("   ".to_owned()),
        ] {
            let mut session = LiveSession::default();
            let job = play(&mut session, 4).unwrap();
            let before = session.memory().clone();
            assert_eq!(
                session.summary_done(job.id, result.clone(), "m", 9, &C),
                None
            );
            assert_eq!(session.memory().summary(), None, "{result:?}");
            assert_eq!(session.memory().verbatim(), before.verbatim());
            assert_eq!(session.memory().failures().len(), 1);
            assert!(states(&session).iter().all(|(_, s)| *s == "verbatim"));
            let error = session.error().unwrap();
            assert!(error.contains("could not be written"), "{error}");
            assert_eq!(session.redo(), Some(&Redo::Summary));
            let LiveAction::Summary(again) = session.retry(&C).unwrap() else {
                panic!("Retry redoes the summary");
            };
            assert!(again.id > job.id);
            session.summary_done(again.id, Ok("Turns 1-2.".into()), "m", 10, &C);
            assert_eq!(session.memory().summary(), Some("Turns 1-2."));
            assert_eq!(session.error(), None);
        }
    }

    #[test]
    fn a_script_run_live_sends_its_messages_in_order_pausing_on_errors_and_ending_on_stop() {
        let script = DemoScript::fincoach();
        let mut session = LiveSession::from_script(&script).unwrap();
        assert_eq!(session.memory().policy(), &script.policy);
        assert_eq!(session.queued(), script.turns.len());
        let first = session.next_queued(1, &C).unwrap();
        assert_eq!(first.last().unwrap().content, script.turns[0].0);
        assert_eq!(session.next_queued(2, &C), None, "one reply at a time");
        session.finish(
            ReplyEnd::Failed {
                partial: String::new(),
                error: "down".into(),
            },
            3,
            &C,
        );
        assert_eq!(session.next_queued(4, &C), None, "paused until Retry");
        assert!(matches!(session.retry(&C), Ok(LiveAction::Reply(_))));
        session.finish(ReplyEnd::Complete("ok".into()), 5, &C);
        let second = session.next_queued(6, &C).unwrap();
        assert_eq!(second.last().unwrap().content, script.turns[1].0);
        session.finish(ReplyEnd::Stopped("partial".into()), 7, &C);
        assert_eq!(session.queued(), 0);
        assert_eq!(session.next_queued(8, &C), None);
    }

    #[test]
    fn the_default_session_uses_the_four_two_turn_policy() {
        assert_eq!(
            LiveSession::default().memory().policy().trigger,
            crate::engine::policy::Trigger::Turns {
                max_turns: 4,
                keep: 2
            }
        );
    }

    #[test]
    fn a_live_chat_exported_imported_and_resumed_is_the_same_chat() {
        use crate::engine::drift::PinnedFact;
        use crate::engine::session::{SessionSettings, export, import};
        use crate::view::sessions::Library;
        let mut session = LiveSession::default();
        let policy = session.memory().policy().clone();
        session
            .set_policy(policy, vec![PinnedFact::regex("plan", r"(?i)savings")])
            .unwrap();
        // A reply cut short by a failure, then retried; a stopped reply; two calls recorded.
        let sent = session.send("plan my savings", 1, &C).unwrap();
        session.finish(
            ReplyEnd::Failed {
                partial: "Start with an emer".into(),
                error: "The connection dropped.".into(),
            },
            2,
            &C,
        );
        session.record_call(CallKind::Chat, &sent, None, &C);
        let LiveAction::Reply(again) = session.retry(&C).unwrap() else {
            panic!("Retry asks for the reply again");
        };
        let usage = Usage {
            prompt_tokens: 9,
            completion_tokens: 4,
            reasoning_tokens: None,
        };
        session.record_call(CallKind::Chat, &again, Some(&usage), &C);
        session.finish(ReplyEnd::Complete("Start with a fund.".into()), 3, &C);
        session.send("and then?", 4, &C).unwrap();
        session.finish(ReplyEnd::Stopped("Then inv".into()), 5, &C);
        play(&mut session, 1);

        // Kept in the library as the shell keeps it, written as the store writes it, read back.
        let mut library = Library::default();
        let id = library
            .keep_live(None, || "live".into(), &session, 6)
            .unwrap();
        let kept = &library.get(&id).unwrap().session;
        let file = export(kept, 6, "test");
        let back = import(file.as_bytes(), &C).unwrap();
        let resumed = LiveSession::resume(&back);

        assert_eq!(resumed.rows(), session.rows());
        assert_eq!(
            states(&resumed)[1..4],
            [
                ("assistant", "incomplete"),
                ("assistant", "verbatim"),
                ("user", "verbatim")
            ]
        );
        assert_eq!(resumed.rows()[4].state, LiveState::Incomplete);
        assert_eq!(resumed.calls(), session.calls());
        assert_eq!(resumed.calls().len(), 2);
        assert_eq!(resumed.pinned(), session.pinned());
        assert_eq!(resumed.record(), session.record());
        assert_eq!(resumed.memory().archive(), session.memory().archive());
        assert_eq!(resumed.memory().policy(), session.memory().policy());
        // The resumed chat writes the same file, and sends what the original would have sent:
        // the reply the failure cut short stays out of every later request.
        let again = Session {
            live: Some(resumed.record().clone()),
            pinned: resumed.pinned().to_vec(),
            ..Session::new(
                kept.name.clone(),
                SessionSettings::default(),
                resumed.memory().clone(),
            )
        };
        assert_eq!(export(&again, 6, "test"), file);
        let (mut a, mut b) = (session.clone(), resumed.clone());
        let next_a = a.send("what now?", 7, &C).unwrap();
        assert_eq!(next_a, b.send("what now?", 7, &C).unwrap());
        assert!(!next_a.iter().any(|m| m.content == "Start with an emer"));
    }

    #[test]
    fn restore_and_edit_print_new_editions_of_the_live_memory_but_not_mid_summary() {
        let mut session = LiveSession::default();
        let job = play(&mut session, 4).unwrap();
        assert_eq!(
            session.restore(1, 5, &C),
            Err(LiveError::Summarising),
            "a summary is being written"
        );
        assert_eq!(
            session.edit_summary("mine", 5, &C),
            Err(LiveError::Summarising)
        );
        session.summary_done(job.id, Ok("Turns 1 and 2.".into()), "m", 6, &C);
        session.edit_summary("By hand.", 7, &C).unwrap();
        assert_eq!(session.memory().summary(), Some("By hand."));
        session.restore(1, 8, &C).unwrap();
        let memory = session.memory();
        assert_eq!(memory.summary(), Some("Turns 1 and 2."));
        let last = memory.editions().last().unwrap();
        assert_eq!(
            (last.cycle, last.provenance, last.restored_from),
            (3, Provenance::Restore, Some(1))
        );
        assert!(matches!(
            session.restore(9, 9, &C),
            Err(LiveError::Memory(MemoryError::NoSuchEdition(9)))
        ));
        assert!(session.edit_summary("  ", 9, &C).is_err());
        assert_eq!(session.memory().editions().len(), 3);
    }

    #[test]
    fn retry_with_nothing_failed_is_refused() {
        let mut session = LiveSession::default();
        assert_eq!(session.retry(&C), Err(LiveError::NothingToRetry));
    }

    #[test]
    fn a_replys_end_leads_to_its_summary_then_to_the_next_queued_message() {
        let script = DemoScript::fincoach();
        let mut session = LiveSession::from_script(&script).unwrap();
        let mut action = session.next_queued(0, &C).map(LiveAction::Reply);
        let (mut replies, mut summaries) = (0, 0);
        // The runner's loop, with canned results: every reply complete, every summary written.
        while let Some(current) = action.take() {
            action = match current {
                LiveAction::Reply(request) => {
                    replies += 1;
                    let end = ReplyEnd::Complete(format!("answer {replies}"));
                    session.reply_ended(&request, None, end, replies, &C)
                }
                LiveAction::Summary(job) => {
                    summaries += 1;
                    let reply = Ok(Some(format!("Summary {summaries}.")));
                    session.summary_ended(&job, reply, None, "m", 100, &C)
                }
            };
        }
        assert_eq!(
            replies as usize,
            script.turns.len(),
            "every queued message was sent"
        );
        assert_eq!(summaries, session.memory().editions().len());
        assert!(summaries > 0);
        let kinds: Vec<CallKind> = session.calls().iter().map(|c| c.kind).collect();
        assert_eq!(
            kinds.iter().filter(|k| **k == CallKind::Chat).count(),
            replies as usize
        );
        assert_eq!(kinds.len(), replies as usize + summaries);
        assert!(!session.is_busy());
    }

    #[test]
    fn a_failed_reply_or_a_stopped_summary_ends_the_run_until_retry() {
        let mut session = LiveSession::from_script(&DemoScript::fincoach()).unwrap();
        let request = session.next_queued(0, &C).unwrap();
        let end = ReplyEnd::of_completion(Err(ApiError::Network {
            base_url: "http://127.0.0.1:1".into(),
            detail: "down".into(),
            fix: "Start the server.".into(),
        }));
        assert!(matches!(end, ReplyEnd::Failed { .. }));
        assert_eq!(session.reply_ended(&request, None, end, 1, &C), None);
        assert!(session.error().is_some());
        assert!(matches!(session.retry(&C), Ok(LiveAction::Reply(_))));
        // A stopped non-streamed request is a stop with nothing received.
        assert_eq!(
            ReplyEnd::of_completion(Ok(None)),
            ReplyEnd::Stopped(String::new())
        );
        assert_eq!(
            ReplyEnd::of_completion(Ok(Some("hi".into()))),
            ReplyEnd::Complete("hi".into())
        );
        // A stopped summary request is a failure the memory records, with Retry offered.
        let mut session = LiveSession::default();
        let job = play(&mut session, 4).unwrap();
        assert_eq!(
            summary_text(Ok(None)),
            Err("the summary request was stopped".into())
        );
        assert_eq!(
            session.summary_ended(&job, Ok(None), None, "m", 9, &C),
            None
        );
        assert_eq!(session.redo(), Some(&Redo::Summary));
        assert_eq!(session.memory().failures().len(), 1);
    }

    #[test]
    fn the_shape_changes_with_what_the_library_keeps_but_not_with_a_streamed_piece() {
        let mut session = LiveSession::default();
        let empty = session.shape();
        assert!(!empty.busy);
        session.send("hello", 1, &C).unwrap();
        let sending = session.shape();
        assert!(sending.busy, "never saved mid-reply");
        assert_ne!(sending, empty);
        session.delta("Hi");
        assert_eq!(session.shape(), sending, "a streamed piece is no change");
        session.finish(ReplyEnd::Complete("Hi".into()), 2, &C);
        let done = session.shape();
        assert!(!done.busy);
        let policy = session.memory().policy().clone();
        session
            .set_policy(policy.clone(), vec![PinnedFact::phrase("hi", "hi")])
            .unwrap();
        assert_ne!(session.shape(), done, "pinning a fact is a change");
        // An invalid policy or fact is refused with its own error, and changes nothing.
        let shape = session.shape();
        let bad = PinnedFact::regex("bad", "(");
        assert!(matches!(
            session.set_policy(policy, vec![bad]),
            Err(LiveError::Fact(_))
        ));
        assert_eq!(session.shape(), shape);
    }
}
