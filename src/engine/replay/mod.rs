//! A replay's run: a session's archived messages played again, in order, into a new memory
//! under another policy, with each summary written by whoever the shell chooses. [`Replayer`]
//! is the state machine: it adds messages until the policy asks for a summary, hands that job
//! out ([`Replayer::start`], [`Replayer::summary_ended`]) and waits; the shell answers with the
//! built-in extractive summariser ([`replay_offline`]) or with the endpoint's summariser model
//! (Inspect's live replay). A failed or stopped summary leaves its job pending, so
//! [`Replayer::resume`] asks for the same job again and nothing is committed twice. The original
//! session is never touched; the result is a new [`Session`] once every message is replayed.
//!
//! [`estimate`] is what a live replay costs before it starts: the same run with the extractive
//! summariser, counting every summariser request it would send.

use crate::engine::demo::{extractive_ranking, extractive_summary_ranked};
use crate::engine::drift::CompiledFact;
use crate::engine::drift::PinnedFact;
use crate::engine::edition::{Edition, Provenance};
use crate::engine::facts::compile_facts;
use crate::engine::library_session::{Session, SessionSettings};
use crate::engine::memory::{CommitMeta, MemoryError, MemoryState, SummaryJob};
use crate::engine::message::{CountTokens, Message, MessageParts, Role};
use crate::engine::policy::{CountedBy, Policy, PolicyError};
use crate::engine::run::{Estimate, Progress, RunStatus, Tokens, Unit};

mod run;
pub use run::RunState;

/// Why a replay could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("{0}")]
    Policy(#[from] PolicyError),
    #[error("the replay stopped: {0}")]
    Memory(#[from] MemoryError),
    #[error("this session has no messages to replay")]
    Empty,
}

/// What one summary cost, as the server reported it (`None` fields are counted by the app).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SummaryCost {
    pub prompt_tokens: Option<u32>,
    pub completion_tokens: Option<u32>,
}

impl SummaryCost {
    /// The tokens sent for `job` and received in `text`: the server's counts where it gave
    /// them, else this app's.
    pub fn tokens(&self, job: &SummaryJob, text: &str, counter: &dyn CountTokens) -> (u64, u64) {
        (
            self.prompt_tokens
                .map_or_else(|| request_tokens(job, counter), u64::from),
            self.completion_tokens
                .map_or_else(|| u64::from(counter.count(text)), u64::from),
        )
    }
}

/// Plays a session's messages again under a policy, one summary at a time.
#[derive(Clone, Debug)]
pub struct Replayer {
    memory: MemoryState,
    /// The original's messages, system messages left out (the system prompt is the memory's).
    source: Vec<Message>,
    /// The next message of `source` to add.
    next: usize,
    /// Where it stands, and the summary asked for and not yet committed.
    run: RunState<SummaryJob>,
    /// Summaries committed so far.
    summaries: u32,
    /// Turns replayed so far (user messages added), of `turns`.
    turn: u32,
    turns: u32,
    /// Tokens of the summariser requests sent so far, as this app counts them (a server's own
    /// count, when it reports one, replaces the app's for that request), and of the summaries
    /// received (the server's count when it reports one).
    tokens: Tokens,
    /// What the new session keeps of the original besides its messages.
    settings: SessionSettings,
    pinned: Vec<PinnedFact>,
    name: String,
    /// Tokens of the last request as replayed, for a policy that checks the previous
    /// request's size.
    reported: Option<u64>,
    /// The last request waits for the summary in flight; its size is taken once it commits.
    request_waits: bool,
}

impl Replayer {
    /// Starts replaying `session` under `policy` into a new session called `name`. Returns the
    /// replayer and the first summary to write, if the policy asks for one before the end.
    pub fn start(
        session: &Session,
        policy: Policy,
        counter: &dyn CountTokens,
        name: impl Into<String>,
    ) -> Result<(Replayer, Option<SummaryJob>), ReplayError> {
        let source = source_messages(session)?;
        let mut memory = MemoryState::new(session.memory.system_prompt(), policy)?;
        memory.count_system_prompt(counter);
        let turns = source.iter().filter(|m| m.role == Role::User).count() as u32;
        let mut replayer = Replayer {
            memory,
            source,
            next: 0,
            run: RunState::default(),
            summaries: 0,
            turn: 0,
            turns,
            tokens: Tokens::default(),
            settings: session.settings.clone(),
            pinned: session.pinned.clone(),
            name: name.into(),
            reported: None,
            request_waits: false,
        };
        let job = replayer.advance(counter)?;
        Ok((replayer, job))
    }

    /// What the summariser wrote for job `job_id` (`Err` with the reason when it failed), what
    /// it cost, and who wrote it when (`meta`, committed with the edition). Returns the next summary to write; `None` once the replay is done, stopped
    /// or failed (see [`Replayer::status`]). An answer to a job that is not the pending one (a
    /// late reply after Stop and Resume) is ignored.
    pub fn summary_ended(
        &mut self,
        job_id: u64,
        result: Result<String, String>,
        cost: SummaryCost,
        meta: CommitMeta,
        counter: &dyn CountTokens,
    ) -> Result<Option<SummaryJob>, ReplayError> {
        // Stopped while the request was out, or a late answer: what arrived is not committed.
        let Some((job, text)) = self.run.answered_with(|j| j.id == job_id, result) else {
            return Ok(None);
        };
        let next = self.memory.commit(job.id, &text, meta, counter)?;
        // A job of several calls (Gemini CLI's verification pass) commits only at its last
        // call: until then nothing changed and the waiting request is not built yet.
        let drafted = next.as_ref().is_some_and(|n| n.pass > 1);
        if !drafted && std::mem::take(&mut self.request_waits) {
            self.reported = Some(self.request_tokens(counter));
        }
        if !drafted {
            self.summaries += 1;
        }
        let (sent, received) = cost.tokens(&job, &text, counter);
        self.tokens.sent += sent;
        self.tokens.received += received;
        match next {
            // A fold that leaves the summary over its budget asks for a compression at once.
            Some(next) => Ok(Some(self.run.ask(next))),
            None => self.advance(counter),
        }
    }

    /// Stops the replay where it is; the pending summary stays pending.
    pub fn stop(&mut self) {
        self.run.stop();
    }

    /// Goes on after a Stop or a failure: the pending summary is asked for again.
    pub fn resume(&mut self) -> Option<SummaryJob> {
        self.run.resume()
    }

    pub fn status(&self) -> &RunStatus {
        self.run.status()
    }

    /// Whether a summary is being written (or about to be asked for).
    pub fn is_running(&self) -> bool {
        self.run.is_running()
    }

    /// Summaries written, with the turn reached and the tokens both ways; the total is the
    /// estimate's to give ([`Progress::planned`]).
    pub fn progress(&self) -> Progress {
        Progress {
            unit: Unit::Summary,
            done: u64::from(self.summaries),
            total: None,
            about: false,
            turn: Some((self.turn, self.turns)),
            tokens: Some(self.tokens),
        }
    }

    /// The editions written so far.
    pub fn editions(&self) -> &[Edition] {
        self.memory.editions()
    }

    /// The new session, once every message is replayed: the original's messages (with their
    /// text, counts and times), settings and pinned facts, and the replay's editions.
    pub fn finished(&self) -> Option<Session> {
        self.run.is_done().then(|| {
            let mut session = Session::new(
                self.name.clone(),
                self.settings.clone(),
                self.memory.clone(),
            );
            session.pinned = self.pinned.clone();
            session
        })
    }

    /// The original's pinned facts, compiled for the extractive summariser.
    fn facts(&self) -> Vec<CompiledFact> {
        compile_facts(&self.pinned).unwrap_or_default()
    }

    /// Tokens of the chat request the memory would send now.
    fn request_tokens(&self, counter: &dyn CountTokens) -> u64 {
        self.memory
            .request(counter)
            .iter()
            .map(|m| u64::from(m.tokens))
            .sum()
    }

    /// Adds messages until the policy asks for a summary (returned, and pending) or none are
    /// left (the replay is done).
    fn advance(&mut self, counter: &dyn CountTokens) -> Result<Option<SummaryJob>, ReplayError> {
        while let Some(message) = self.source.get(self.next) {
            self.next += 1;
            if message.role == Role::User {
                self.turn += 1;
            }
            // Recounted, tool calls and placeholders kept: a transcript's tool traffic is
            // replayed with its turn.
            let parts = MessageParts {
                role: message.role,
                content: message.content.clone(),
                at_ms: message.at_ms,
                calls: message.calls.clone(),
                call_id: message.call_id.clone(),
                tool_name: message.tool_name.clone(),
                placeholders: message.placeholders.clone(),
            };
            // Sized by the policy's counter (the default keeps the count just made).
            let role = message.role;
            let mut message = Message::with_parts(parts, counter);
            message.tokens = self.memory.policy().exact.counter.sized(&message, counter);
            if let Some(job) = self.memory.add_message(message)? {
                return Ok(Some(self.run.ask(job)));
            }
            // A policy that checks before each request checks once the message a request
            // answers is in (a user message, or the last of a run of tool results), on the
            // previous request's size.
            let next_is_reply = self
                .source
                .get(self.next)
                .is_none_or(|m| m.role == Role::Assistant);
            if matches!(role, Role::User | Role::Tool) && next_is_reply {
                if let Some(job) = self.memory.before_request(self.reported) {
                    self.request_waits = true;
                    return Ok(Some(self.run.ask(job)));
                }
                self.reported = Some(self.request_tokens(counter));
            }
        }
        self.run.done();
        Ok(None)
    }
}

/// The messages a replay plays again: `session`'s archive without its system messages (the
/// system prompt is the new memory's), or [`ReplayError::Empty`] when that leaves none.
pub fn source_messages(session: &Session) -> Result<Vec<Message>, ReplayError> {
    let source: Vec<Message> = session
        .memory
        .archive()
        .iter()
        .filter(|m| m.role != Role::System)
        .cloned()
        .collect();
    if source.is_empty() {
        return Err(ReplayError::Empty);
    }
    Ok(source)
}

/// Tokens of a summariser request as this app counts them.
fn request_tokens(job: &SummaryJob, counter: &dyn CountTokens) -> u64 {
    job.request
        .iter()
        .map(|m| counter.count(&m.content) as u64)
        .sum()
}

/// Plays `session`'s archived messages again under `policy`, each summary written by the
/// built-in extractive summariser (which ranks the session's pinned facts and the prompt's
/// must-keep list first), into a new session named `name`. The original is not touched.
pub fn replay_offline(
    session: &Session,
    policy: Policy,
    counter: &dyn CountTokens,
    name: impl Into<String>,
) -> Result<Session, ReplayError> {
    Ok(replay_extractive(session, policy, counter, name)?.0)
}

/// [`replay_offline`], with what the replay sent and received: the summaries committed and
/// the summariser's tokens both ways, as this app counts them (the corpus comparison's
/// summariser columns).
pub fn replay_extractive(
    session: &Session,
    policy: Policy,
    counter: &dyn CountTokens,
    name: impl Into<String>,
) -> Result<(Session, Progress), ReplayError> {
    let (replayer, _) = run_extractive(session, policy, counter, name)?;
    let session = replayer
        .finished()
        .expect("an extractive replay always runs to the end");
    Ok((session, replayer.progress()))
}

/// Runs the whole replay with the extractive summariser; also returns each request's tokens.
fn run_extractive(
    session: &Session,
    policy: Policy,
    counter: &dyn CountTokens,
    name: impl Into<String>,
) -> Result<(Replayer, Vec<u64>), ReplayError> {
    // Every text the replay counts (the system prompt, each summary, each request) is counted
    // as the policy's counter measures it.
    let measured = CountedBy::new(policy.exact.counter, counter);
    let counter: &dyn CountTokens = &measured;
    let (mut replayer, mut job) = Replayer::start(session, policy, counter, name)?;
    // The policy is the replay's throughout, so its ranking is compiled once.
    let ranking = extractive_ranking(&replayer.memory, &replayer.facts());
    let mut requests = Vec::new();
    while let Some(j) = job {
        requests.push(request_tokens(&j, counter));
        let text = extractive_summary_ranked(&replayer.memory, &j, &ranking);
        let at_ms = replayer.memory.archive().last().map_or(0, |m| m.at_ms);
        let meta = CommitMeta {
            model: None,
            provenance: Provenance::Extractive,
            at_ms,
        };
        job = replayer.summary_ended(j.id, Ok(text), SummaryCost::default(), meta, counter)?;
    }
    Ok((replayer, requests))
}

/// The cost of replaying `session` live under `policy`, before anything is sent: the same
/// replay with the extractive summariser, counting every summariser request it would send and
/// the summaries it writes (about the word limit each). A live summary of another length
/// changes what later requests hold, so these are estimates.
pub fn estimate(
    session: &Session,
    policy: Policy,
    counter: &dyn CountTokens,
    max_tokens: Option<u32>,
) -> Result<Estimate, ReplayError> {
    let (replayer, requests) = run_extractive(session, policy, counter, "estimate")?;
    let calls = requests.len() as u32;
    Ok(Estimate {
        calls,
        tokens_sent: requests.iter().sum(),
        chat_sent: 0,
        tokens_received: Some(replayer.tokens.received),
        received_at_most: max_tokens.map(|m| u64::from(m) * u64::from(calls)),
    })
}

#[cfg(test)]
mod tests;
