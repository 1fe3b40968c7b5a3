//! The live summary memory of one conversation.
//!
//! [`MemoryState`] never calls a model. When a cycle is due it returns a [`SummaryJob`] as data;
//! the shell runs it and hands the text back through [`MemoryState::commit`] (or the error
//! through [`MemoryState::fail`]).
//!
//! Rules this module keeps:
//! - Every message ever added stays in the archive, in order. The verbatim part is always a
//!   suffix of the archive, so "verbatim = archive minus folded turns" holds by construction.
//! - At most one job is in flight. Messages keep flowing while it runs: the verbatim part grows,
//!   and the commit removes exactly the turns the job folded from its front. While a job is in
//!   flight the trigger is not checked; it is checked again when the job commits, over every
//!   message that arrived meanwhile.
//! - A failed or empty result leaves the summary and the verbatim part exactly as they were,
//!   records a [`Failure`] and keeps the job for [`MemoryState::retry_job`].
//! - Job ids only grow. A result whose id is not the job in flight (it was overtaken by a manual
//!   request, an edit, a restore or a retry) is rejected with [`MemoryError::StaleJob`].
//! - A message can be left out of the requests ([`MemoryState::set_excluded`]), to get a
//!   conversation back under the model's context window: it stays in the archive (and so in
//!   every export) and in the turn it belongs to, but no chat request and no summariser request
//!   sends it until it is included again.

//!
//! Beside this file: [`job`] holds the jobs and failures the state emits and records, [`error`]
//! its [`MemoryError`], [`turns`] where turns begin and whether a message is still verbatim, and
//! `request.rs` what a request sends (the head the policy places, the verbatim messages, the
//! ones left out).

mod error;
mod job;
mod request;
mod turns;

#[cfg(test)]
mod tests;

pub use error::MemoryError;
pub use job::{CommitMeta, Failure, JobKind, SummaryJob, VERIFY_INSTRUCTION};
pub use turns::{MessageState, ends_turn, starts_turn, turn_starts};

use std::collections::BTreeSet;

use super::edition::{Edition, EditionDraft, MAX_LEVEL, Provenance, TurnRange};
use super::message::{ChatMessage, CountTokens, Message, Role};
use super::policy::{
    Check, FoldMode, FoldView, Measured, Moment, Policy, PolicyError, SummaryFormat, SummarySize,
    head_measured, summary_size,
};
use super::prompts::{compressed_word_limit, render_compress_request, render_fold_request};
use super::structured::{STRUCTURED_MEMORY_PROMPT, parse_structured, structured_user_content};

/// Four bytes a token, rounded up: the estimate for text not yet counted.
struct ByteEstimate;

impl CountTokens for ByteEstimate {
    fn count(&self, text: &str) -> u32 {
        u32::try_from(text.len().div_ceil(4)).unwrap_or(u32::MAX)
    }
}

pub use super::policy::{SUMMARY_ACK, SUMMARY_HEADER};

/// The summary memory of one conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryState {
    system_prompt: String,
    /// Tokens of the system prompt, and the summary's size as placed, for the decision.
    system_tokens: u64,
    summary_size: Option<SummarySize>,
    /// The head's stored messages, measured (see [`super::policy::head_measured`]).
    head: Vec<Measured>,
    /// Tokens of the request's messages before the verbatim part (the system prompt and the
    /// summary as placed), for the window trigger. Exact after anything that takes a counter
    /// (a commit, an edit, a restore, [`MemoryState::count_system_prompt`]); after a new
    /// system prompt or policy it is estimated at four bytes a token until then.
    fixed_tokens: u64,
    policy: Policy,
    archive: Vec<Message>,
    /// Archive index where each turn begins. A turn begins at the first message and at every
    /// user message that follows an assistant message.
    turn_starts: Vec<usize>,
    /// Archive index of the first verbatim message.
    verbatim_from: usize,
    /// Turns folded into the summary so far (they are turns 1 to `folded_turns`).
    folded_turns: u32,
    summary: Option<String>,
    summary_tokens: u32,
    level: u8,
    editions: Vec<Edition>,
    failures: Vec<Failure>,
    in_flight: Option<SummaryJob>,
    failed: Option<SummaryJob>,
    next_job_id: u64,
    /// Archive length at the last trigger check (the periodic trigger counts from there).
    checked_len: usize,
    /// Archive indices of the messages no request sends (see [`MemoryState::set_excluded`]).
    excluded: BTreeSet<usize>,
}

impl MemoryState {
    /// An empty conversation.
    pub fn new(system_prompt: impl Into<String>, policy: Policy) -> Result<Self, PolicyError> {
        policy.validate()?;
        let mut state = MemoryState::blank(system_prompt.into(), policy);
        state.fixed_tokens = u64::from(ByteEstimate.count(&state.system_prompt));
        Ok(state)
    }

    pub fn system_prompt(&self) -> &str {
        &self.system_prompt
    }

    pub fn set_system_prompt(&mut self, text: impl Into<String>) {
        self.system_prompt = text.into();
        self.refresh_fixed(&ByteEstimate);
    }

    /// Counts the part of the request before the verbatim messages exactly (after a new system
    /// prompt or policy it is an estimate until the next commit, edit or restore).
    pub fn count_system_prompt(&mut self, counter: &dyn CountTokens) {
        self.refresh_fixed(counter);
    }

    /// Tokens of the request's messages before the verbatim part: the system prompt and the
    /// summary as the policy places them.
    pub fn fixed_tokens(&self) -> u64 {
        self.fixed_tokens
    }

    fn refresh_fixed(&mut self, counter: &dyn CountTokens) {
        let prefix = self.request_prefix(counter);
        self.fixed_tokens = prefix.iter().map(|m| u64::from(m.tokens)).sum();
        self.system_tokens = u64::from(counter.count(&self.system_prompt));
        let head = self.head_parts();
        self.head = head_measured(&head, |t| counter.count(t), |_, t| t.chars().count() as u32);
        self.summary_size = summary_size(
            &head,
            self.policy.exact.context_message.as_deref(),
            self.system_tokens,
            |t| u64::from(counter.count(t)),
            |_, t| t.chars().count() as u64,
        );
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Replaces the policy. It applies from the next trigger check; nothing is folded now.
    pub fn set_policy(&mut self, policy: Policy) -> Result<(), PolicyError> {
        policy.validate()?;
        self.policy = policy;
        self.refresh_fixed(&ByteEstimate);
        Ok(())
    }

    /// Every message, in order, folded or not.
    pub fn archive(&self) -> &[Message] {
        &self.archive
    }

    /// The messages still sent word for word.
    pub fn verbatim(&self) -> &[Message] {
        &self.archive[self.verbatim_from..]
    }

    pub fn summary(&self) -> Option<&str> {
        self.summary.as_deref()
    }

    /// Tokens of the current summary, as counted when it was committed.
    pub fn summary_tokens(&self) -> u32 {
        self.summary_tokens
    }

    /// Compression level of the current summary.
    pub fn level(&self) -> u8 {
        self.level
    }

    /// The last turn covered by the summary (0 when nothing is folded).
    pub fn summarised_to(&self) -> u32 {
        self.folded_turns
    }

    pub fn editions(&self) -> &[Edition] {
        &self.editions
    }

    pub fn failures(&self) -> &[Failure] {
        &self.failures
    }

    pub fn in_flight(&self) -> Option<&SummaryJob> {
        self.in_flight.as_ref()
    }

    /// The job that failed last and can be retried.
    pub fn failed_job(&self) -> Option<&SummaryJob> {
        self.failed.as_ref()
    }

    /// Turns begun so far, the incomplete latest turn included.
    pub fn turn_count(&self) -> u32 {
        self.turn_starts.len() as u32
    }

    /// The turn (from 1) that archive message `index` belongs to.
    pub fn turn_of(&self, index: usize) -> u32 {
        self.turn_starts.partition_point(|&start| start <= index) as u32
    }

    /// Whether archive message `index` is verbatim or folded into the summary.
    pub fn message_state(&self, index: usize) -> MessageState {
        if index < self.verbatim_from {
            MessageState::Folded
        } else {
            MessageState::Verbatim
        }
    }

    /// Adds a user, assistant or tool message. After an assistant reply that calls no tool (the
    /// end of a turn, [`ends_turn`]) the trigger is checked, and a job is returned when a cycle
    /// is due.
    pub fn add_message(&mut self, message: Message) -> Result<Option<SummaryJob>, MemoryError> {
        if message.role == Role::System {
            return Err(MemoryError::SystemMessage);
        }
        let is_reply = turns::ends_turn(&message);
        self.push_message(message);
        Ok(if is_reply { self.check_trigger() } else { None })
    }

    /// Checks the trigger again over the last reply, for a conversation read back from storage
    /// whose check may have been cut off (the page closed while the summary it made due was
    /// being written). A cycle already committed is not due again: the trigger only looks at the
    /// turns still verbatim. Returns the job when one is due.
    pub fn recheck_trigger(&mut self) -> Option<SummaryJob> {
        if self
            .archive
            .last()
            .is_some_and(|m| m.role == Role::Assistant)
        {
            self.checked_len = self.checked_len.min(self.archive.len() - 1);
        }
        self.check_trigger()
    }

    /// Starts a cycle now, whatever the trigger says; the manual trigger's only way to fold.
    /// It folds what the trigger would fold if it fired (see
    /// [`super::policy::Trigger::turns_to_fold_on_request`]) and overtakes any job in flight.
    pub fn request_summary_now(&mut self) -> Result<SummaryJob, MemoryError> {
        let (turn_tokens, _) = self.complete_verbatim_turns();
        let fold = self.policy.trigger.turns_to_fold_on_request(&turn_tokens);
        if fold == 0 {
            return Err(MemoryError::NothingToFold);
        }
        self.checked_len = self.archive.len();
        Ok(self.emit_fold(fold))
    }

    /// Starts a cycle now that folds exactly `turns` more whole turns, whatever the trigger
    /// says: the A/B comparison's way to fold two summarisers on the same turns. Refused with
    /// [`MemoryError::NothingToFold`] when `turns` is 0 or more than the complete verbatim turns.
    pub fn fold_turns_now(&mut self, turns: u32) -> Result<SummaryJob, MemoryError> {
        let (complete, _) = self.complete_verbatim_turns();
        if turns == 0 || turns as usize > complete.len() {
            return Err(MemoryError::NothingToFold);
        }
        self.checked_len = self.archive.len();
        Ok(self.emit_fold(turns as usize))
    }

    /// Whether [`MemoryState::request_summary_now`] would find a turn to fold: what the chat
    /// offers as "fold now" when a request is too long.
    pub fn can_fold_now(&self) -> bool {
        let (turn_tokens, _) = self.complete_verbatim_turns();
        self.policy.trigger.turns_to_fold_on_request(&turn_tokens) > 0
    }

    /// Commits a summariser result. Returns the next job when one is due at once (a compression
    /// of a summary over its budget, or a cycle that messages sent meanwhile made due).
    pub fn commit(
        &mut self,
        job_id: u64,
        text: &str,
        meta: CommitMeta,
        counter: &dyn CountTokens,
    ) -> Result<Option<SummaryJob>, MemoryError> {
        let job = self.take_current(job_id)?;
        let text = text.trim();
        if text.is_empty() {
            self.record_failure(job, "the summariser returned an empty summary", meta.at_ms);
            return Err(MemoryError::EmptySummary { job_id });
        }
        // A job of several calls commits only its last call's text: an earlier draft goes to
        // the next call, and nothing changes until every call has succeeded.
        if job.pass < job.passes {
            let next = SummaryJob {
                id: self.next_id(),
                request: job.next_pass_request(text),
                pass: job.pass + 1,
                ..job
            };
            return Ok(Some(self.start(next)));
        }
        // Structured memory is validated before anything changes, and stored in its canonical
        // JSON form so the next fold can hand it back to the summariser.
        let canonical;
        let text = if job.structured {
            match parse_structured(text) {
                Ok(memory) => {
                    canonical = memory.to_json();
                    canonical.as_str()
                }
                Err(error) => {
                    let reason = error.to_string();
                    self.record_failure(job, &reason, meta.at_ms);
                    return Err(MemoryError::InvalidStructured { job_id, reason });
                }
            }
        } else {
            text
        };
        let tokens_out = counter.count(text);
        let (folded, level) = match job.kind {
            JobKind::Fold { turns, to, .. } => {
                self.verbatim_from = to;
                self.folded_turns = turns.last;
                (Some(turns), 0)
            }
            JobKind::Compress { level } => (None, level),
        };
        self.failed = None;
        self.push_edition(EditionDraft {
            folded,
            previous: self.summary.clone(),
            summary: text.to_owned(),
            prompt: job
                .request
                .first()
                .map(|m| m.content.clone())
                .unwrap_or_default(),
            model: meta.model,
            tokens_in: job.tokens_in,
            tokens_out,
            word_limit: job.word_limit,
            at_ms: meta.at_ms,
            provenance: meta.provenance,
            level,
            restored_from: None,
            rebuilt: job.from_archive,
        });
        self.summary = Some(text.to_owned());
        self.summary_tokens = tokens_out;
        self.level = level;
        self.refresh_fixed(counter);
        Ok(self.next_job_after_change())
    }

    /// Records that the job in flight failed. The memory is left exactly as it was and the job
    /// can be retried.
    pub fn fail(&mut self, job_id: u64, reason: &str, at_ms: u64) -> Result<(), MemoryError> {
        let job = self.take_current(job_id)?;
        self.record_failure(job, reason, at_ms);
        Ok(())
    }

    /// Issues the failed job again under a new id, rebuilt against the current summary.
    pub fn retry_job(&mut self) -> Result<SummaryJob, MemoryError> {
        let failed = self.failed.take().ok_or(MemoryError::NoFailedJob)?;
        self.reissue(&failed.kind).ok_or(MemoryError::NothingToFold)
    }

    /// Replaces the summary with the user's own text, as a new edition. A job in flight was
    /// built on the old text, so it is reissued on the new one and that job is returned.
    pub fn edit_summary(
        &mut self,
        text: &str,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<Option<SummaryJob>, MemoryError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(MemoryError::EmptyEdit);
        }
        self.replace_summary(
            text,
            Provenance::ManualEdit,
            None,
            self.level,
            at_ms,
            counter,
        );
        Ok(self.reissue_in_flight())
    }

    /// A conversation that goes on from another one's summary: no archive and no verbatim turn,
    /// and `summary` as its first edition (a restore, the text brought over whole), so its first
    /// request is the system prompt and the summary placed as `policy` says. Refused when the
    /// policy is invalid or the summary empty.
    pub fn continued(
        system_prompt: impl Into<String>,
        policy: Policy,
        summary: &str,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<Self, MemoryError> {
        let mut state = MemoryState::new(system_prompt, policy).map_err(MemoryError::Policy)?;
        let summary = summary.trim();
        if summary.is_empty() {
            return Err(MemoryError::EmptyEdit);
        }
        state.replace_summary(summary, Provenance::Restore, None, 0, at_ms, counter);
        Ok(state)
    }

    /// Brings back the text of edition `cycle` as a new edition. Folded turns stay folded: the
    /// text comes back, the verbatim part does not change.
    pub fn restore(
        &mut self,
        cycle: u32,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<Option<SummaryJob>, MemoryError> {
        let edition = self
            .editions
            .iter()
            .find(|e| e.cycle == cycle)
            .ok_or(MemoryError::NoSuchEdition(cycle))?;
        let (text, level) = (edition.summary.clone(), edition.level);
        self.replace_summary(
            &text,
            Provenance::Restore,
            Some(cycle),
            level,
            at_ms,
            counter,
        );
        Ok(self.reissue_in_flight())
    }

    /// Rebuilds a memory from stored parts. The caller (the session import) has checked that
    /// the editions fit the archive; the summary, level and folded turns follow the editions.
    pub(crate) fn from_parts(
        system_prompt: String,
        policy: Policy,
        archive: Vec<Message>,
        editions: Vec<Edition>,
        failures: Vec<Failure>,
        counter: &dyn CountTokens,
    ) -> MemoryState {
        let mut state = MemoryState::blank(system_prompt, policy);
        state.failures = failures;
        state.archive.reserve(archive.len());
        for message in archive {
            state.push_message(message);
        }
        state.folded_turns = editions
            .iter()
            .filter_map(|e| e.folded)
            .map(|r| r.last)
            .max()
            .unwrap_or(0);
        state.verbatim_from = state.turn_start(state.folded_turns);
        if let Some(last) = editions.last() {
            state.summary = Some(last.summary.clone());
            state.summary_tokens = counter.count(&last.summary);
            state.level = last.level;
        }
        state.next_job_id = state.failures.iter().map(|f| f.job_id).max().unwrap_or(0) + 1;
        state.checked_len = state.archive.len();
        state.refresh_fixed(counter);
        state.editions = editions;
        state
    }

    /// The first verbatim message, when an exact policy's fold ended inside a turn (where the
    /// folded turns alone do not say it), for the session file.
    pub(crate) fn verbatim_inside_a_turn(&self) -> Option<usize> {
        (self.verbatim_from != self.turn_start(self.folded_turns)).then_some(self.verbatim_from)
    }

    /// Puts back a first verbatim message inside the last folded turn, as a session file
    /// stored it; refused, with the reason, when it is not inside that turn.
    pub(crate) fn set_verbatim_inside_a_turn(&mut self, from: usize) -> Result<(), String> {
        let turn_begins = self.turn_start(self.folded_turns.saturating_sub(1));
        let turn_ends = self.turn_start(self.folded_turns);
        if self.folded_turns == 0 || from <= turn_begins || from > turn_ends {
            return Err(format!(
                "{from} is not inside the last folded turn (archive messages {} to {})",
                turn_begins + 1,
                turn_ends
            ));
        }
        self.verbatim_from = from;
        Ok(())
    }

    /// A memory with no messages, summary, editions or jobs, and no fixed tokens counted yet:
    /// what [`MemoryState::new`] and [`MemoryState::from_parts`] both start from.
    fn blank(system_prompt: String, policy: Policy) -> MemoryState {
        MemoryState {
            fixed_tokens: 0,
            system_tokens: 0,
            summary_size: None,
            head: Vec::new(),
            system_prompt,
            policy,
            archive: Vec::new(),
            turn_starts: Vec::new(),
            verbatim_from: 0,
            folded_turns: 0,
            summary: None,
            summary_tokens: 0,
            level: 0,
            editions: Vec::new(),
            failures: Vec::new(),
            in_flight: None,
            failed: None,
            next_job_id: 1,
            checked_len: 0,
            excluded: BTreeSet::new(),
        }
    }

    /// Archive index where turn `turn + 1` begins, i.e. just after the first `turn` turns.
    pub(crate) fn turn_start(&self, turn: u32) -> usize {
        self.turn_starts
            .get(turn as usize)
            .copied()
            .unwrap_or(self.archive.len())
    }

    /// Appends to the archive and keeps the turn index, without checking the trigger.
    fn push_message(&mut self, message: Message) {
        if starts_turn(self.archive.last().map(|m| m.role), message.role) {
            self.turn_starts.push(self.archive.len());
        }
        self.archive.push(message);
    }

    /// Tokens of each complete verbatim turn, and the number of messages in them.
    fn complete_verbatim_turns(&self) -> (Vec<u32>, usize) {
        let complete = if self.archive.last().is_some_and(turns::ends_turn) {
            self.turn_starts.len()
        } else {
            self.turn_starts.len().saturating_sub(1)
        };
        // A fold of an exact policy may have ended inside a turn: its rest counts from there.
        let first = self.folded_turns as usize;
        let first = if self.turn_start(self.folded_turns) > self.verbatim_from {
            first.saturating_sub(1)
        } else {
            first
        };
        let mut tokens = Vec::with_capacity(complete.saturating_sub(first));
        let mut messages = 0;
        for turn in first..complete {
            let start = self.turn_starts[turn].max(self.verbatim_from);
            let end = self.turn_start(turn as u32 + 1);
            tokens.push(self.archive[start..end].iter().map(|m| m.tokens).sum());
            messages += end - start;
        }
        (tokens, messages)
    }

    fn check_trigger(&mut self) -> Option<SummaryJob> {
        if self.in_flight.is_some() {
            return None;
        }
        // An exact policy looks at a reply that ends a turn; any other at the complete turns.
        let end = if self.policy.exact.is_exact() {
            if !self.archive.last().is_some_and(turns::ends_turn) {
                self.checked_len = self.archive.len();
                return None;
            }
            self.archive.len()
        } else {
            let (_, messages) = self.complete_verbatim_turns();
            self.verbatim_from + messages
        };
        let (fold, to) = self.decide(end, Moment::AfterReply, None);
        self.checked_len = self.archive.len();
        fold.call.then(|| self.emit_fold_to(to))
    }

    /// Checks an exact policy that decides before each request (the others decide after each
    /// reply, and return `None` here). Call it once the message the request answers is stored,
    /// with the previous request's size as the server reported it; a job returned is meant to
    /// be committed before the request is built, as the libraries that check here do.
    pub fn before_request(&mut self, reported: Option<u64>) -> Option<SummaryJob> {
        if self.in_flight.is_some() || self.archive.is_empty() {
            return None;
        }
        let (fold, to) = self.decide(self.archive.len(), Moment::BeforeRequest, reported);
        fold.call.then(|| self.emit_fold_to(to))
    }

    /// Asks [`Policy::decide`] over the verbatim messages up to `end` (tool traffic left out
    /// when the policy keeps it to its own turn), and says where a fold it decides ends: the
    /// archive index just after the last message it folds.
    fn decide(
        &self,
        end: usize,
        moment: Moment,
        reported: Option<u64>,
    ) -> (super::policy::Fold, usize) {
        let seen: Vec<usize> = (self.verbatim_from..end.max(self.verbatim_from))
            .filter(|&k| !self.hides_tool_traffic(&self.archive[k]))
            .collect();
        let sized: Vec<Measured> = seen
            .iter()
            .map(|&k| &self.archive[k])
            .map(|m| Measured {
                role: m.role,
                tokens: m.tokens,
                chars: m.content.chars().count() as u32,
                calls: !m.calls.is_empty(),
            })
            .collect();
        let fold = self.policy.decide(&Check {
            view: FoldView {
                messages: &sized,
                moment,
                system_tokens: self.system_tokens,
                summary: self.summary_size,
                head: &self.head,
                reported,
            },
            messages_before: self.checked_len,
            messages_now: self.archive.len(),
        });
        // Hidden tool traffic after the last folded message stays: the current turn's is
        // still sent, an older turn's never is.
        let to = match fold.messages {
            0 => self.verbatim_from,
            n => seen.get(n - 1).map_or(end, |&k| k + 1),
        };
        (fold, to)
    }

    /// After the summary changed: compress it when it is over its budget, otherwise check the
    /// trigger over whatever arrived while the job ran.
    fn next_job_after_change(&mut self) -> Option<SummaryJob> {
        let over_budget = self
            .policy
            .summary_budget
            .is_some_and(|budget| self.summary_tokens > budget);
        let prose = self.policy.format == SummaryFormat::Prose;
        if over_budget && prose && self.level < MAX_LEVEL {
            return Some(self.emit_compress(self.level + 1));
        }
        // An exact policy is checked where its library checks, and only there: a fold it
        // decided is not followed by a second look (one whose tail still passes the threshold
        // would otherwise fold again at once).
        if self.policy.exact.is_exact() {
            self.checked_len = self.archive.len();
            return None;
        }
        self.check_trigger()
    }

    fn emit_fold(&mut self, turns: usize) -> SummaryJob {
        let to = self.turn_start(self.folded_turns + turns as u32);
        self.emit_fold_to(to)
    }

    /// Folds the verbatim messages before archive index `to`. An exact policy may end the fold
    /// inside a turn (a reply kept without its question), or fold nothing and write the summary
    /// again on its own; the turns it names are the ones it touches.
    fn emit_fold_to(&mut self, to: usize) -> SummaryJob {
        let from = self.verbatim_from;
        let first = self.turn_of(from).max(1);
        let last = if to > from {
            self.turn_of(to - 1)
        } else {
            self.folded_turns.max(1)
        };
        let first = first.min(last);
        let spec = &self.policy.prompt;
        let structured = self.policy.format == SummaryFormat::Structured;
        let (mut request, tokens_in) = match self.policy.fold {
            FoldMode::Progressive => {
                let turns = self.sent(from..to);
                let summary_tokens = if self.summary.is_some() {
                    self.summary_tokens
                } else {
                    0
                };
                (
                    render_fold_request(spec, self.summary.as_deref(), &turns),
                    sum_tokens(&turns) + summary_tokens,
                )
            }
            FoldMode::RebuildFromArchive => {
                let turns = self.sent(0..to);
                (render_fold_request(spec, None, &turns), sum_tokens(&turns))
            }
        };
        if structured {
            request = self.structured_request(from, to);
        }
        if self.policy.format == SummaryFormat::Topics
            && let Some(system) = request.first_mut()
        {
            system.content.push('\n');
            system
                .content
                .push_str(crate::engine::sections::TOPIC_SECTIONS_INSTRUCTION);
        }
        let word_limit = spec.word_limit;
        let job = SummaryJob {
            id: self.next_id(),
            kind: JobKind::Fold {
                turns: TurnRange { first, last },
                from,
                to,
            },
            request,
            previous: self.summary.clone(),
            tokens_in,
            word_limit,
            structured,
            from_archive: self.policy.fold == FoldMode::RebuildFromArchive,
            pass: 1,
            passes: self.policy.exact.calls_per_fold.max(1),
        };
        self.start(job)
    }

    /// The structured summariser's request: its own system prompt, then the previous memory
    /// (progressive) or nothing (rebuild) and the folded turns.
    fn structured_request(&self, from: usize, to: usize) -> Vec<ChatMessage> {
        let (previous, turns) = match self.policy.fold {
            FoldMode::Progressive => (
                self.summary
                    .as_deref()
                    .and_then(|s| parse_structured(s).ok()),
                self.sent(from..to),
            ),
            FoldMode::RebuildFromArchive => (None, self.sent(0..to)),
        };
        vec![
            ChatMessage {
                role: Role::System,
                content: STRUCTURED_MEMORY_PROMPT.to_owned(),
            },
            ChatMessage {
                role: Role::User,
                content: structured_user_content(previous.as_ref(), &turns),
            },
        ]
    }

    fn emit_compress(&mut self, level: u8) -> SummaryJob {
        let spec = &self.policy.prompt;
        let summary = self.summary.clone().unwrap_or_default();
        let request = render_compress_request(spec, &summary, level);
        let word_limit = compressed_word_limit(spec.word_limit, level);
        let job = SummaryJob {
            id: self.next_id(),
            kind: JobKind::Compress { level },
            request,
            previous: self.summary.clone(),
            tokens_in: self.summary_tokens,
            word_limit,
            structured: false,
            from_archive: false,
            pass: 1,
            passes: 1,
        };
        self.start(job)
    }

    fn start(&mut self, job: SummaryJob) -> SummaryJob {
        self.failed = None;
        self.in_flight = Some(job.clone());
        job
    }

    fn next_id(&mut self) -> u64 {
        let id = self.next_job_id;
        self.next_job_id += 1;
        id
    }

    fn take_current(&mut self, job_id: u64) -> Result<SummaryJob, MemoryError> {
        match &self.in_flight {
            Some(job) if job.id == job_id => Ok(self.in_flight.take().expect("checked above")),
            other => Err(MemoryError::StaleJob {
                job_id,
                current: other.as_ref().map(|j| j.id),
            }),
        }
    }

    fn record_failure(&mut self, job: SummaryJob, reason: &str, at_ms: u64) {
        self.failures.push(Failure {
            job_id: job.id,
            kind: job.kind.clone(),
            reason: reason.to_owned(),
            at_ms,
        });
        self.failed = Some(job);
    }

    /// Rebuilds a job of the same kind against the current state, unless there is nothing
    /// left for it to do.
    fn reissue(&mut self, kind: &JobKind) -> Option<SummaryJob> {
        match *kind {
            JobKind::Fold { turns, .. } => match turns.last.saturating_sub(self.folded_turns) {
                0 => None,
                fold => Some(self.emit_fold(fold as usize)),
            },
            JobKind::Compress { level } if self.summary.is_some() => {
                Some(self.emit_compress(level))
            }
            JobKind::Compress { .. } => None,
        }
    }

    fn reissue_in_flight(&mut self) -> Option<SummaryJob> {
        let kind = self.in_flight.take()?.kind;
        self.reissue(&kind)
    }

    fn replace_summary(
        &mut self,
        text: &str,
        provenance: Provenance,
        restored_from: Option<u32>,
        level: u8,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) {
        let tokens = counter.count(text);
        self.push_edition(EditionDraft {
            folded: None,
            previous: self.summary.clone(),
            summary: text.to_owned(),
            prompt: String::new(),
            model: None,
            tokens_in: 0,
            tokens_out: tokens,
            word_limit: compressed_word_limit(self.policy.prompt.word_limit, level)
                .min(self.policy.prompt.word_limit),
            at_ms,
            provenance,
            level,
            restored_from,
            rebuilt: false,
        });
        self.summary = Some(text.to_owned());
        self.summary_tokens = tokens;
        self.level = level;
        self.refresh_fixed(counter);
    }

    fn push_edition(&mut self, draft: EditionDraft) {
        let cycle = self.editions.len() as u32 + 1;
        self.editions.push(Edition::from_draft(cycle, draft));
    }
}

fn sum_tokens(messages: &[Message]) -> u32 {
    messages.iter().map(|m| m.tokens).sum()
}
