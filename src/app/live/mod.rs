//! A live conversation with the user's endpoint: the summary memory, the reply being streamed,
//! which replies were cut short, the last error and what Retry would redo.
//!
//! Architecture invariant: this model performs no I/O. The shell asks it for the messages to
//! send ([`LiveSession::send`], [`LiveSession::retry`]), performs the request, and feeds what came
//! back in ([`LiveSession::arrived`], [`LiveSession::finish_stream`], [`LiveSession::finish`],
//! [`LiveSession::summary_done`]). A streamed reply's text is kept here and only here: the shell
//! forwards its pieces and says how the stream ended. The user's message goes into the archive
//! before the request leaves, so a failure never loses it.
//!
//! What follows each request is decided here: [`LiveSession::reply_ended`] and
//! [`LiveSession::summary_ended`] say what to perform next (a summary the reply made due, a
//! compression, the next queued message of a demo run live). A reply stopped or cut short is
//! kept, marked incomplete, and an empty reply is an error with Retry; a request too long offers
//! to fold now or to leave a message out. Send is refused while a reply or a summary is being
//! written, and so are Restore and Edit of the summary while a summary is. A reply is counted as
//! it arrives ([`LiveSession::arrived`]), from its last settled piece boundary, and that count
//! is archived with it; its reasoning is kept apart and never saved. A pending retry shows its
//! countdown ([`LiveSession::retry_status`]); a summary's timeout is [`summary_timeout_ms`].
//!
//! The summaries run on the one run machine ([`Summaries`], `summary.rs`): running while a
//! summariser call is out, stopped, failed with its reason, done; Retry goes on from a stop or
//! a failure. A failed reply waits for Retry apart from them.
//!
//! Beside this file: `continued.rs` a chat that goes on from another session's edition
//! ([`LiveSession::continue_from`]); `ending.rs` how a request ended ([`ReplyEnd`], [`ChatEnd`]) and a
//! summary's timeout; `persist.rs` what the library needs of the chat: [`LiveSession::shape`],
//! which it compares to tell whether the chat changed, the reply as it streams, and
//! [`LiveSession::resume_after_reload`], which offers again what a reload cut off.

use std::collections::{BTreeMap, VecDeque};

use thiserror::Error;

use crate::app::rows::{MessageRow, RowState, rows_of};
use crate::engine::demo::DemoScript;
use crate::engine::drift::{FactError, PinnedFact, compile_facts};
use crate::engine::edition::Provenance;
use crate::engine::library_session::{ContinuedFrom, LiveRecord, Session};
use crate::engine::memory::{CommitMeta, MemoryError, MemoryState, SummaryJob};
use crate::engine::message::{ChatMessage, CountTokens, GrowingCount, Message, Role};
use crate::engine::openai::{ApiError, Purpose, StreamEnd, Usage};
use crate::engine::policy::{Policy, PolicyError};
use crate::engine::run::RunStatus;

pub use crate::engine::library_session::{CallKind, CallRecord};

mod continued;
mod ending;
mod persist;
mod summary;

pub use ending::{ChatEnd, ReplyEnd, summary_text, summary_timeout_ms};
pub use persist::LiveShape;
pub use summary::Summaries;

/// The system prompt a live chat starts with.
pub const LIVE_SYSTEM_PROMPT: &str = "You are a helpful assistant. Answer clearly and briefly.";

/// One live conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveSession {
    memory: MemoryState,
    /// The reply arriving now, if a chat request is in flight.
    streaming: Option<String>,
    /// How far the reply arriving is counted for good, and its count so far: each piece
    /// recounts only the reply's last pieces, never the whole reply.
    growing: GrowingCount,
    streamed_tokens: Option<u32>,
    /// Which replies are incomplete or were cut short by a failure (Retry asks for the whole
    /// reply, and no later request sends the cut one), and every model call: the part of the
    /// chat that is saved with its memory.
    kept: LiveRecord,
    /// The summaries on the one run machine: the job out or waiting for Retry.
    summaries: Summaries,
    error: Option<String>,
    /// A chat request failed: Retry asks for the reply again.
    retry_reply: bool,
    /// User messages still to send, when a demo script is being run live.
    queue: VecDeque<String>,
    /// The facts the user pinned for this conversation.
    pinned: Vec<PinnedFact>,
    /// The model's visible reasoning for the reply arriving now, then for each archived reply
    /// (by archive index). Shown apart from the answer and never sent back; not saved with the
    /// chat, so a reload shows the answers without it.
    reasoning_now: String,
    reasoning: BTreeMap<usize, String>,
    /// The reasoning of the last reply that brought no answer text, shown beside its error.
    unanswered: Option<String>,
    /// Which request was too long for the model's context window, while its error waits for
    /// Retry: the chat offers fold now and leaving a message out.
    too_long: Option<Purpose>,
    /// The wait before the next attempt of a request that failed in a retryable way.
    retry_wait: Option<RetryWait>,
    /// A user's message waits for the summary its policy asked for before its request (an
    /// exact policy that checks before each request).
    reply_waits: bool,
    /// Tokens of the last chat request, for a policy that checks the previous request's size.
    reported: Option<u64>,
    /// The session and edition this chat went on from (`continued.rs`).
    continued_from: Option<ContinuedFrom>,
}

/// A request waiting to be sent again after a retryable failure (a 429, a 5xx, a timeout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetryWait {
    /// The chat request or the summariser's.
    pub purpose: Purpose,
    /// The attempt about to be made, counted from 1 (so 2 for the first retry).
    pub attempt: u32,
    /// How many attempts are made in all.
    pub attempts: u32,
    /// When the next attempt goes out, on the shell's clock.
    pub until_ms: u64,
    /// Why the last attempt failed.
    pub reason: String,
}

/// What the shell should perform next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiveAction {
    /// A chat request with these messages.
    Reply(Vec<ChatMessage>),
    /// A summariser request for this job.
    Summary(SummaryJob),
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
    /// Send was pressed (or Enter) while the summariser is writing the next edition.
    #[error(
        "A summary is being written; your message stays in the box. Send it once the summary is in, or press Stop."
    )]
    SummaryRunning,
    /// A demo was picked or run live while the live chat still waits for its endpoint: the
    /// old request's reply would land in the new conversation.
    #[error(
        "The live chat is still waiting for a reply or a summary; press Stop first, then pick a demo or run one live."
    )]
    StillRunning,
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
        live.continued_from = session.continued_from.clone();
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
        if self.paused() {
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

    /// Whether Retry asks for the reply again (a chat request failed). A summary that waits
    /// for Retry goes first: [`LiveSession::summaries`].
    pub fn retries_reply(&self) -> bool {
        self.retry_reply
    }

    /// The summaries on the one run machine: where they stand, how far the run has come, what
    /// the job out costs.
    pub fn summaries(&self) -> &Summaries {
        &self.summaries
    }

    /// Whether a chat reply is arriving now.
    pub fn is_streaming(&self) -> bool {
        self.streaming.is_some()
    }

    /// Whether a summariser call is running.
    pub fn is_summarising(&self) -> bool {
        self.summaries.is_running()
    }

    /// Whether a demo run live waits: a reply or a summary is being written, or something
    /// waits for Retry.
    fn paused(&self) -> bool {
        self.is_busy() || self.error.is_some() || self.summaries.waits()
    }

    /// Edition `cycle`'s text becomes the current summary again, as a new edition. Refused while
    /// a summary is being written, whose result would otherwise overwrite the restored text.
    pub fn restore(
        &mut self,
        cycle: u32,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<(), LiveError> {
        if self.is_summarising() {
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
        if self.is_summarising() {
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
        if self.is_summarising() {
            return Err(LiveError::Summarising);
        }
        let job = self.memory.request_summary_now()?;
        self.summaries.ask(&job);
        Ok(job)
    }

    /// Archives the user's message, then returns the messages to send to the chat model.
    pub fn send(
        &mut self,
        text: &str,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<Vec<ChatMessage>, LiveError> {
        self.archive_user(text, at_ms, counter)?;
        Ok(self.start_reply(counter))
    }

    /// Archives the user's message, then says what to perform: the chat request, or first the
    /// summary its policy asks for before the request (an exact policy that checks there; the
    /// request follows once the summary is committed, from [`LiveSession::summary_ended`]).
    pub fn send_action(
        &mut self,
        text: &str,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<LiveAction, LiveError> {
        self.archive_user(text, at_ms, counter)?;
        if let Some(job) = self.memory.before_request(self.reported) {
            self.summaries.ask(&job);
            self.reply_waits = true;
            return Ok(LiveAction::Summary(job));
        }
        Ok(LiveAction::Reply(self.start_reply(counter)))
    }

    /// Archives the user's message, when the chat can take one.
    fn archive_user(
        &mut self,
        text: &str,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<(), LiveError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(LiveError::EmptyMessage);
        }
        if self.streaming.is_some() {
            return Err(LiveError::Busy);
        }
        if self.is_summarising() {
            return Err(LiveError::SummaryRunning);
        }
        self.memory
            .add_message(Message::new(Role::User, text, counter, at_ms))?;
        Ok(())
    }

    /// The next queued message as an action ([`LiveSession::send_action`]), when nothing is
    /// running and no error waits for Retry.
    pub fn next_action(&mut self, at_ms: u64, counter: &dyn CountTokens) -> Option<LiveAction> {
        if self.paused() {
            return None;
        }
        let text = self.queue.pop_front()?;
        match self.send_action(&text, at_ms, counter) {
            Ok(action) => Some(action),
            Err(error) => {
                self.error = Some(error.to_string());
                None
            }
        }
    }

    /// Appends a piece of the reply that is arriving.
    pub fn delta(&mut self, piece: &str) {
        if let Some(reply) = &mut self.streaming {
            reply.push_str(piece);
        }
    }

    /// Appends a piece of the reply that is arriving and counts the reply so far, recounting
    /// only its last pieces (the count before the last settled piece boundary is kept), so a
    /// piece costs the same however long the reply or the chat already is.
    pub fn arrived(&mut self, piece: &str, counter: &dyn CountTokens) {
        if let Some(reply) = &mut self.streaming {
            reply.push_str(piece);
            self.streamed_tokens = Some(counter.count_growing(reply, &mut self.growing));
        }
    }

    /// The tokens of the reply arriving, as far as [`LiveSession::arrived`] counted it.
    pub fn streamed_tokens(&self) -> Option<u32> {
        self.streaming.as_ref().and(self.streamed_tokens)
    }

    /// The reply arriving (its pieces so far, `arrived`), counted from where its count as it
    /// arrived stands rather than from its start.
    fn count_arrived(&self, arrived: &str, counter: &dyn CountTokens) -> u32 {
        counter.count_growing(arrived, &mut self.growing.clone())
    }

    /// Ends the chat request with a reply the shell holds whole (or its failure). A complete
    /// reply is archived verbatim; a stopped or cut one is archived too, marked incomplete.
    /// Returns the summariser job when a cycle is due.
    pub fn finish(
        &mut self,
        end: ReplyEnd,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Option<SummaryJob> {
        self.streaming = None;
        self.end_reply(end, Text::Whole, at_ms, counter)
    }

    /// Ends a streamed chat request as `end` says. The reply is the text its pieces brought
    /// ([`LiveSession::arrived`]), which this session alone keeps; the shell only forwarded
    /// them. Archived as [`LiveSession::finish`] archives a reply.
    pub fn finish_stream(
        &mut self,
        end: StreamEnd,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Option<SummaryJob> {
        let arrived = self.streaming.take().unwrap_or_default();
        self.end_reply(
            ReplyEnd::of_stream(arrived, end),
            Text::Arrived,
            at_ms,
            counter,
        )
    }

    /// Archives the reply `end` carries; `source` says whether it is the one that arrived piece
    /// by piece, whose count so far is kept.
    fn end_reply(
        &mut self,
        end: ReplyEnd,
        source: Text,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Option<SummaryJob> {
        let reasoning = std::mem::take(&mut self.reasoning_now);
        let end = match (self.retry_wait.take(), end) {
            // Stop pressed while a failed request waited to be sent again: the user gave up
            // on the retries, so the failure stands and Retry is offered.
            (Some(wait), ReplyEnd::Stopped(text)) if text.is_empty() && at_ms < wait.until_ms => {
                ReplyEnd::Failed {
                    partial: text,
                    error: format!("{} Retries cancelled.", wait.reason),
                }
            }
            (_, end) => end,
        };
        let failed = matches!(end, ReplyEnd::Failed { .. } | ReplyEnd::TooLong(_));
        let (text, complete, error) = match end {
            // A reply that finished with no text is never archived as an empty message.
            ReplyEnd::Complete(text) if text.trim().is_empty() => {
                let error = ApiError::NoAnswer {
                    finish_reason: None,
                    reasoned: !reasoning.trim().is_empty(),
                };
                (text, false, Some(error.to_string()))
            }
            ReplyEnd::Complete(text) => (text, true, None),
            ReplyEnd::Stopped(text) => {
                // Stop ends a scripted run too: the user took over.
                self.queue.clear();
                (text, false, None)
            }
            ReplyEnd::Failed { partial, error } => (partial, false, Some(error)),
            ReplyEnd::TooLong(error) => {
                self.too_long = Some(Purpose::Chat);
                (String::new(), false, Some(error))
            }
        };
        if let Some(error) = error {
            self.error = Some(error);
            self.retry_reply = true;
        }
        if text.trim().is_empty() {
            self.unanswered = (!reasoning.trim().is_empty()).then_some(reasoning);
            return None;
        }
        let index = self.memory.archive().len();
        if !reasoning.trim().is_empty() {
            self.reasoning.insert(index, reasoning);
        }
        if !complete {
            self.kept.incomplete.insert(index);
        }
        if failed {
            self.kept.failed.insert(index);
        }
        // The window trigger weighs the whole request, so count its fixed part exactly.
        self.memory.count_system_prompt(counter);
        let tokens = match source {
            Text::Arrived => self.count_arrived(&text, counter),
            Text::Whole => counter.count(&text),
        };
        self.growing = GrowingCount::default();
        self.streamed_tokens = None;
        let added = self
            .memory
            .add_message(Message::counted(Role::Assistant, text, tokens, at_ms));
        match added {
            Ok(Some(job)) => {
                self.summaries.ask(&job);
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
    /// text is recorded as a failure that leaves the memory unchanged, and the summaries fail
    /// with its reason, waiting for Retry. Returns the next job when one is due at once.
    pub fn summary_done(
        &mut self,
        job_id: u64,
        result: Result<String, String>,
        model: &str,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Option<SummaryJob> {
        let editions = self.memory.editions().len();
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
                let wrote = self.memory.editions().len() > editions;
                self.summaries.committed(wrote, next.as_ref());
                next
            }
            Err(MemoryError::StaleJob { .. }) => {
                if self.summaries.is_out(job_id) {
                    self.summaries.finish();
                }
                None
            }
            Err(error) => {
                let reason = match self.memory.failures().last() {
                    Some(failure) if failure.job_id == job_id => failure.reason.clone(),
                    _ => error.to_string(),
                };
                self.summaries.fail(reason);
                None
            }
        }
    }

    /// The user stopped summariser job `job_id`: the memory records it as a failure (so Retry
    /// reissues it against the summary as it then is), and the summaries stop.
    fn summary_stopped(&mut self, job_id: u64, at_ms: u64) {
        match self
            .memory
            .fail(job_id, "the summary request was stopped", at_ms)
        {
            Ok(()) => self.summaries.stop(),
            Err(_) if self.summaries.is_out(job_id) => self.summaries.finish(),
            Err(_) => {}
        }
    }

    /// What Retry does now: the summary that waits goes on (the stopped or failed job,
    /// reissued), else the reply is asked for again.
    pub fn retry(&mut self, counter: &dyn CountTokens) -> Result<LiveAction, LiveError> {
        if self.streaming.is_some() {
            return Err(LiveError::Busy);
        }
        if self.summaries.waits() {
            return match self.memory.retry_job() {
                Ok(job) => {
                    self.summaries.ask(&job);
                    Ok(LiveAction::Summary(job))
                }
                Err(error) => {
                    self.summaries.refused(error.to_string());
                    Err(error.into())
                }
            };
        }
        if self.retry_reply {
            return Ok(LiveAction::Reply(self.start_reply(counter)));
        }
        Err(LiveError::NothingToRetry)
    }

    /// The model's visible reasoning for the reply arriving now (the shell passes what the
    /// stream decoder gathered); it is kept with the reply once archived.
    pub fn reasoned(&mut self, text: &str) {
        if self.streaming.is_some() {
            self.reasoning_now = text.to_owned();
        }
    }

    /// The reasoning of the last reply that brought no answer text, while its error shows.
    pub fn unanswered_reasoning(&self) -> Option<&str> {
        self.unanswered.as_deref()
    }

    /// Which request was too long for the model's context window, while its error waits for
    /// Retry.
    pub fn too_long(&self) -> Option<Purpose> {
        self.too_long
    }

    /// Leaves archive message `index` out of every later request, or sends it again; the
    /// archive keeps it either way. Refused while a reply is arriving (its request was built
    /// already) and for a message already folded into the summary.
    pub fn set_excluded(&mut self, index: usize, excluded: bool) -> Result<(), LiveError> {
        if self.streaming.is_some() {
            return Err(LiveError::Busy);
        }
        self.memory.set_excluded(index, excluded)?;
        Ok(())
    }

    /// The way out of a chat request too long for the context window that leaves a message
    /// out: the longest verbatim message still sent, as (archive index, turn, tokens).
    pub fn longest_sent(&self) -> Option<(usize, u32, u32)> {
        let memory = &self.memory;
        let first = memory.archive().len() - memory.verbatim().len();
        memory
            .verbatim()
            .iter()
            .enumerate()
            .map(|(i, m)| (first + i, m))
            .filter(|(index, _)| !memory.is_excluded(*index) && !self.kept.failed.contains(index))
            // The first of equally long messages, the oldest.
            .min_by_key(|(index, m)| (std::cmp::Reverse(m.tokens), *index))
            .map(|(index, m)| (index, memory.turn_of(index), m.tokens))
    }

    /// The shell's client is waiting `delay_ms` before attempt `attempt` of `attempts` of a
    /// request, after `reason`. Shown until the request ends.
    pub fn retrying(&mut self, wait: RetryWait) {
        self.retry_wait = Some(wait);
    }

    /// The wait before a retry, if one is pending.
    pub fn retry_wait(&self) -> Option<&RetryWait> {
        self.retry_wait.as_ref()
    }

    /// What the chat says about a pending retry at `now_ms`: "The summary request failed
    /// (...). Retrying in 4 s, attempt 2 of 3." Once the wait is over, that the attempt is out.
    pub fn retry_status(&self, now_ms: u64) -> Option<String> {
        let wait = self.retry_wait.as_ref()?;
        let which = match wait.purpose {
            Purpose::Chat => "The chat request",
            Purpose::Summary => "The summary request",
        };
        let reason = wait.reason.trim_end_matches('.');
        let when = match wait.until_ms.saturating_sub(now_ms) {
            0 => "Retrying now".to_owned(),
            left => format!("Retrying in {} s", left.div_ceil(1000)),
        };
        Some(format!(
            "{which} failed: {reason}. {when}, attempt {} of {}.",
            wait.attempt, wait.attempts
        ))
    }

    /// Every archived message, and the reply arriving now.
    pub fn rows(&self) -> Vec<MessageRow> {
        let memory = &self.memory;
        let mut rows = rows_of(memory, |index| self.kept.incomplete.contains(&index));
        for row in &mut rows {
            row.reasoning = self.reasoning.get(&row.index).cloned();
        }
        if let Some(reply) = &self.streaming {
            rows.push(MessageRow {
                index: rows.len(),
                role: Role::Assistant,
                content: reply.clone(),
                tokens: None,
                state: RowState::Streaming,
                turn: memory.turn_count(),
                reasoning: (!self.reasoning_now.is_empty()).then(|| self.reasoning_now.clone()),
                excluded: false,
            });
        }
        rows
    }

    /// Whether a reply or a summary is being written now (Send and Retry wait for it).
    pub fn is_busy(&self) -> bool {
        self.is_streaming() || self.is_summarising()
    }

    /// A chat request ended: records the call (the request as sent, with the usage the API
    /// reported), archives the reply, and says what to perform next: the summary the reply
    /// made due, else the next queued message of a demo run live, else nothing.
    pub fn reply_ended(
        &mut self,
        request: &[ChatMessage],
        usage: Option<&Usage>,
        end: impl Into<ChatEnd>,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Option<LiveAction> {
        self.record_call(CallKind::Chat, request, usage, counter);
        let job = match end.into() {
            ChatEnd::Whole(end) => self.finish(end, at_ms, counter),
            ChatEnd::Streamed(end) => self.finish_stream(end, at_ms, counter),
        };
        match job {
            Some(job) => Some(LiveAction::Summary(job)),
            None => self.next_action(at_ms, counter),
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
        let written = match &reply {
            Ok(Some(text)) => usage.map_or_else(|| counter.count(text), |u| u.completion_tokens),
            _ => 0,
        };
        self.summaries.received(u64::from(written));
        let result = match (self.retry_wait.take(), reply) {
            // Stop pressed during the wait before a retry: the failure that caused it stands.
            (Some(wait), Ok(None)) if at_ms < wait.until_ms => Err(format!(
                "{} Retries cancelled",
                wait.reason.trim_end_matches('.')
            )),
            // The user's Stop: the summary waits for Retry.
            (_, Ok(None)) => {
                self.summary_stopped(job.id, at_ms);
                return None;
            }
            (_, Err(error @ ApiError::ContextTooLong { .. })) => {
                self.too_long = Some(Purpose::Summary);
                Err(error.to_string())
            }
            (_, reply) => summary_text(reply),
        };
        match self.summary_done(job.id, result, model, at_ms, counter) {
            Some(next) => Some(LiveAction::Summary(next)),
            // The message that waited for this summary is answered now that it is in.
            None if self.reply_waits
                && self.summaries.status().is_some_and(RunStatus::is_done)
                && !self.retry_reply =>
            {
                self.reply_waits = false;
                Some(LiveAction::Reply(self.start_reply(counter)))
            }
            None => self.next_action(at_ms, counter),
        }
    }

    fn with_memory(memory: MemoryState) -> LiveSession {
        LiveSession {
            memory,
            streaming: None,
            growing: GrowingCount::default(),
            streamed_tokens: None,
            kept: LiveRecord::default(),
            summaries: Summaries::default(),
            error: None,
            retry_reply: false,
            queue: VecDeque::new(),
            pinned: Vec::new(),
            reasoning_now: String::new(),
            reasoning: BTreeMap::new(),
            unanswered: None,
            too_long: None,
            retry_wait: None,
            reply_waits: false,
            reported: None,
            continued_from: None,
        }
    }

    /// Marks a reply as arriving and returns the context window to send for it.
    fn start_reply(&mut self, counter: &dyn CountTokens) -> Vec<ChatMessage> {
        self.error = None;
        self.retry_reply = false;
        // A summary that waited for Retry is put away; the trigger asks again at the next reply.
        self.summaries.put_away();
        self.too_long = None;
        self.unanswered = None;
        self.reasoning_now.clear();
        self.streaming = Some(String::new());
        self.growing = GrowingCount::default();
        self.streamed_tokens = None;
        // A reply a failed request cut short is left out, as are the messages the user left
        // out.
        let request = self
            .memory
            .request_leaving_out(counter, |index| self.kept.failed.contains(&index));
        self.reported = Some(request.iter().map(|m| u64::from(m.tokens)).sum());
        request.iter().map(ChatMessage::from).collect()
    }
}

/// Where the text of an ended reply came from, which says how it is counted.
#[derive(Clone, Copy)]
enum Text {
    /// Held whole by the shell (a completion, a test): counted from its start.
    Whole,
    /// Brought piece by piece and kept here: counted on from where its count as it arrived
    /// stands.
    Arrived,
}

#[cfg(test)]
mod tests;
