//! Two summarisers side by side: one session's folds replayed under two summariser
//! configurations, A and B, on the **same fold points**, and the editions paired by cycle.
//!
//! The fold points ([`fold_plan`]) are the turns each of the session's own editions folded
//! (another tool's compactions included), or, for a session with none, the folds its own policy
//! makes in the offline replay. Each side folds exactly those turns, whatever its summaries'
//! lengths: a side is a [`MemoryState`] under the manual trigger that is told how many turns to
//! fold ([`MemoryState::fold_turns_now`]), so a token trigger cannot drift apart on two
//! summaries of different sizes. A side is either a summariser model ([`SideSpec::Model`]: the
//! model, prompt, word limit and format) or the session's editions as recorded
//! ([`SideSpec::Recorded`]: a coding agent's own summaries against the user's summariser).
//!
//! [`AbRun`] is the state machine, with the live replay's rules: it hands out one summary job at
//! a time ([`AbRun::start`], [`AbRun::answered`]); a failed or stopped summary stays pending and
//! [`AbRun::resume`] asks for it again; nothing is a result until every fold of both sides is
//! written ([`AbRun::finished`]: two sessions linked as a pair). [`pair_rows`] pairs two sides'
//! editions by cycle; [`estimate`] prices a run before it starts.

use crate::engine::demo::extractive_summary;
use crate::engine::edition::{Edition, Provenance, TurnRange};
use crate::engine::facts::compile_facts;
use crate::engine::library_session::{PairLink, PairSide, Session, SideConfig};
use crate::engine::memory::{CommitMeta, MemoryError, MemoryState, SummaryJob, turn_starts};
use crate::engine::message::{CountTokens, Message, MessageParts};
use crate::engine::policy::{FoldMode, Policy, PolicyError, SummaryFormat, Trigger};
use crate::engine::prompts::PromptSpec;
use crate::engine::replay::{ReplayError, RunState, SummaryCost, replay_offline, source_messages};
use crate::engine::run::{Estimate, Progress, RunStatus, Tokens, Unit};

/// Why an A/B comparison cannot run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AbError {
    #[error("{0}")]
    Replay(#[from] ReplayError),
    #[error("{0}")]
    Policy(#[from] PolicyError),
    #[error("the comparison stopped: {0}")]
    Memory(#[from] MemoryError),
    #[error("no fold to compare: neither the session's editions nor its policy fold any turn")]
    NoFolds,
    #[error(
        "side {0} is the recorded editions, but this session has no edition that folded turns: choose a summariser for it"
    )]
    NothingRecorded(&'static str),
    #[error("side {0} needs a model")]
    NoModel(&'static str),
}

/// A summariser model's configuration for one side: the live replay's summariser settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelSide {
    pub model: String,
    /// The prompt, with its word limit.
    pub prompt: PromptSpec,
    pub format: SummaryFormat,
}

/// What writes one side's editions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SideSpec {
    /// The session's own editions, as recorded (a tool's compactions, or this app's).
    Recorded,
    Model(ModelSide),
}

/// Where the fold points come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoldSource {
    /// The turns the session's own editions folded.
    Editions,
    /// The session's policy, in the offline replay.
    Policy,
}

/// The turns each cycle folds, the same for both sides: consecutive, each after the last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoldPlan {
    pub folds: Vec<TurnRange>,
    pub source: FoldSource,
}

/// The fold points of `session`: its editions' folds when it has any, else the folds `policy`
/// makes in the offline replay. A fold that adds no turn after the one before (an exact fold
/// that ended inside a turn) is left out; each fold starts after the one before.
pub fn fold_plan(
    session: &Session,
    policy: &Policy,
    counter: &dyn CountTokens,
) -> Result<FoldPlan, AbError> {
    let recorded = normalised(session.memory.editions());
    if !recorded.is_empty() {
        return Ok(FoldPlan {
            folds: recorded,
            source: FoldSource::Editions,
        });
    }
    let replayed = replay_offline(session, policy.clone(), counter, "fold points")?;
    let folds = normalised(replayed.memory.editions());
    if folds.is_empty() {
        return Err(AbError::NoFolds);
    }
    Ok(FoldPlan {
        folds,
        source: FoldSource::Policy,
    })
}

/// The folds of `editions` as consecutive ranges, each ending after the one before.
fn normalised(editions: &[Edition]) -> Vec<TurnRange> {
    let mut folds = Vec::new();
    let mut to = 0;
    for edition in editions {
        if let Some(range) = edition.folded
            && range.last > to
        {
            folds.push(TurnRange {
                first: to + 1,
                last: range.last,
            });
            to = range.last;
        }
    }
    folds
}

/// One side as it runs.
#[derive(Clone, Debug)]
struct SideRun {
    spec: SideSpec,
    /// A model side's memory; a recorded side has none (its editions are the source's).
    memory: Option<MemoryState>,
    /// Messages of the source added to `memory` so far.
    added: usize,
    /// Folds of the plan written so far.
    done: usize,
}

/// The summary job handed out and not yet committed, with the side it is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbJob {
    pub side: PairSide,
    /// The side's model: the request goes to it.
    pub model: String,
    pub job: SummaryJob,
}

/// Replays one session's folds under two sides, one summary at a time.
#[derive(Clone, Debug)]
pub struct AbRun {
    source: Session,
    /// The source's messages, system messages left out (the system prompt is the memory's).
    messages: Vec<Message>,
    /// Index in `messages` where each turn begins.
    starts: Vec<usize>,
    plan: FoldPlan,
    sides: [SideRun; 2],
    /// Where it stands, and the summary handed out and not yet committed.
    run: RunState<AbJob>,
    /// Summaries written so far, of `calls` (both sides together), and their tokens.
    calls_done: u32,
    calls: u32,
    tokens: Tokens,
    pair_id: String,
}

impl AbRun {
    /// Starts comparing `a` and `b` on `session`'s fold points (see [`fold_plan`]; `policy`
    /// gives them for a session with no folding edition). `pair_id` links the two sessions the
    /// run ends with. Returns the run and the first summary to write, if any side asks one.
    pub fn start(
        session: &Session,
        policy: &Policy,
        a: SideSpec,
        b: SideSpec,
        pair_id: impl Into<String>,
        counter: &dyn CountTokens,
    ) -> Result<(AbRun, Option<AbJob>), AbError> {
        let messages = source_messages(session)?;
        let plan = fold_plan(session, policy, counter)?;
        let side = |spec: SideSpec, letter: &'static str| -> Result<SideRun, AbError> {
            let memory = match &spec {
                SideSpec::Recorded if plan.source != FoldSource::Editions => {
                    return Err(AbError::NothingRecorded(letter));
                }
                SideSpec::Recorded => None,
                SideSpec::Model(m) if m.model.trim().is_empty() => {
                    return Err(AbError::NoModel(letter));
                }
                SideSpec::Model(m) => {
                    let mut memory =
                        MemoryState::new(session.memory.system_prompt(), side_policy(policy, m)?)?;
                    memory.count_system_prompt(counter);
                    Some(memory)
                }
            };
            Ok(SideRun {
                spec,
                memory,
                added: 0,
                done: 0,
            })
        };
        let sides = [side(a, "A")?, side(b, "B")?];
        let live = sides.iter().filter(|s| s.memory.is_some()).count() as u32;
        let starts = turn_starts(messages.iter().map(|m| m.role));
        let mut run = AbRun {
            source: session.clone(),
            messages,
            starts,
            calls_done: 0,
            calls: live * plan.folds.len() as u32,
            tokens: Tokens::default(),
            plan,
            sides,
            run: RunState::default(),
            pair_id: pair_id.into(),
        };
        let job = run.advance(counter)?;
        Ok((run, job))
    }

    /// What the summariser wrote for job `job_id` (`Err` with the reason when it failed), and
    /// what it cost. Returns the next summary to write; `None` once the run is done, stopped or
    /// failed (see [`AbRun::status`]). A late answer to a job that is not the pending one, or
    /// one that arrives after Stop, is not committed.
    pub fn answered(
        &mut self,
        job_id: u64,
        result: Result<String, String>,
        cost: SummaryCost,
        counter: &dyn CountTokens,
    ) -> Result<Option<AbJob>, AbError> {
        let Some((pending, text)) = self.run.answered_with(|p| p.job.id == job_id, result) else {
            return Ok(None);
        };
        let at_ms = self.last_added_at(pending.side);
        let side = &mut self.sides[index(pending.side)];
        let Some(memory) = side.memory.as_mut() else {
            return Ok(None);
        };
        let meta = CommitMeta {
            model: Some(pending.model.clone()),
            provenance: Provenance::Model,
            at_ms,
        };
        match memory.commit(pending.job.id, &text, meta, counter) {
            Ok(_) => {}
            // Malformed structured memory: nothing committed, the same fold asked again.
            Err(error @ MemoryError::InvalidStructured { .. }) => {
                let reason = error.to_string();
                let again = memory.retry_job()?;
                let pending = AbJob {
                    job: again,
                    ..pending
                };
                return Ok(self.fail(pending, &reason));
            }
            Err(error) => return Err(error.into()),
        }
        side.done += 1;
        self.calls_done += 1;
        let (sent, received) = cost.tokens(&pending.job, &text, counter);
        self.tokens.sent += sent;
        self.tokens.received += received;
        self.advance(counter)
    }

    /// Stops where it is; the pending summary stays pending.
    pub fn stop(&mut self) {
        self.run.stop();
    }

    /// Goes on after a Stop or a failure: the pending summary is asked for again.
    pub fn resume(&mut self) -> Option<AbJob> {
        self.run.resume()
    }

    pub fn status(&self) -> &RunStatus {
        self.run.status()
    }

    pub fn is_running(&self) -> bool {
        self.run.is_running()
    }

    /// Summaries written of those the plan asks, both sides together, and their tokens.
    pub fn progress(&self) -> Progress {
        Progress {
            tokens: Some(self.tokens),
            ..Progress::of(
                Unit::Summary,
                u64::from(self.calls_done),
                u64::from(self.calls),
            )
        }
    }

    pub fn plan(&self) -> &FoldPlan {
        &self.plan
    }

    /// The two sides as they stand, A then B: what the page shows while the run goes on.
    /// Nothing of them is saved until [`AbRun::finished`].
    pub fn sides(&self) -> [Session; 2] {
        [
            self.side_session(PairSide::A),
            self.side_session(PairSide::B),
        ]
    }

    /// The two sessions, A then B, linked as a pair, once every fold of both sides is written.
    pub fn finished(&self) -> Option<[Session; 2]> {
        self.run.is_done().then(|| self.sides())
    }

    /// The session of one side: the source's archive with the side's editions, named after the
    /// source and the side, and its [`PairLink`].
    fn side_session(&self, which: PairSide) -> Session {
        let side = &self.sides[index(which)];
        let (mut session, config) = match (&side.spec, &side.memory) {
            (SideSpec::Model(m), Some(memory)) => {
                let mut settings = self.source.settings.clone();
                settings.summary_model = m.model.clone();
                let mut session = Session::new(String::new(), settings, memory.clone());
                session.pinned = self.source.pinned.clone();
                let config = SideConfig::Model {
                    model: m.model.clone(),
                    preset: m.prompt.preset,
                    word_limit: m.prompt.word_limit,
                    format: m.format,
                };
                (session, config)
            }
            _ => {
                let mut session = self.source.clone();
                session.live = None;
                let config = SideConfig::Recorded {
                    summariser: recorded_slug(session.memory.editions()),
                };
                (session, config)
            }
        };
        session.name = format!(
            "{} (A/B {}: {})",
            self.source.name,
            which.letter(),
            config.describe()
        );
        session.pair = Some(PairLink {
            id: self.pair_id.clone(),
            side: which,
            source: self.source.name.clone(),
            config,
        });
        session
    }

    /// The time of the last message a side has read: its edition's time, so the offline checks
    /// count what was archived by then.
    fn last_added_at(&self, which: PairSide) -> u64 {
        let side = &self.sides[index(which)];
        side.added
            .checked_sub(1)
            .and_then(|i| self.messages.get(i))
            .map_or(0, |m| m.at_ms)
    }

    fn fail(&mut self, pending: AbJob, reason: &str) -> Option<AbJob> {
        self.run.fail(pending, reason);
        None
    }

    /// Hands out the next fold: the side furthest behind (A first), after adding the messages
    /// through the fold's last turn. Once both sides have written every fold, the rest of the
    /// messages are added and the run is done.
    fn advance(&mut self, counter: &dyn CountTokens) -> Result<Option<AbJob>, AbError> {
        let folds = self.plan.folds.len();
        let next = PairSide::BOTH
            .into_iter()
            .filter(|s| {
                let side = &self.sides[index(*s)];
                side.memory.is_some() && side.done < folds
            })
            .min_by_key(|s| self.sides[index(*s)].done);
        let Some(which) = next else {
            for side in &mut self.sides {
                if let Some(memory) = side.memory.as_mut() {
                    add_messages(memory, &self.messages, &mut side.added, usize::MAX, counter)?;
                }
            }
            self.run.done();
            return Ok(None);
        };
        let side = &mut self.sides[index(which)];
        let fold = self.plan.folds[side.done];
        // Through the first message of the next turn, so the fold's last turn is complete.
        let through = self
            .starts
            .get(fold.last as usize)
            .map_or(usize::MAX, |start| start + 1);
        let SideSpec::Model(model) = &side.spec else {
            unreachable!("only a model's side asks for summaries")
        };
        let model = model.model.clone();
        let memory = side.memory.as_mut().expect("a model's side has a memory");
        add_messages(memory, &self.messages, &mut side.added, through, counter)?;
        let turns = fold.last.saturating_sub(memory.summarised_to());
        let job = memory.fold_turns_now(turns)?;
        let job = AbJob {
            side: which,
            model,
            job,
        };
        Ok(Some(self.run.ask(job)))
    }
}

fn index(side: PairSide) -> usize {
    match side {
        PairSide::A => 0,
        PairSide::B => 1,
    }
}

/// A model side's policy: the comparison's trigger is the fold plan, so the manual trigger
/// keeping nothing; progressive folds with no compression, so each fold writes one edition.
fn side_policy(base: &Policy, side: &ModelSide) -> Result<Policy, PolicyError> {
    let mut policy = Policy::new(Trigger::Manual { keep: 0 })?;
    policy.placement = base.placement;
    policy.fold = FoldMode::Progressive;
    policy.prompt = side.prompt.clone();
    policy.format = side.format;
    policy.validate()?;
    Ok(policy)
}

/// Adds `messages[*added..through]` to `memory`, recounted with their tool traffic.
fn add_messages(
    memory: &mut MemoryState,
    messages: &[Message],
    added: &mut usize,
    through: usize,
    counter: &dyn CountTokens,
) -> Result<(), MemoryError> {
    let through = through.min(messages.len());
    while *added < through {
        let message = &messages[*added];
        *added += 1;
        let parts = MessageParts {
            role: message.role,
            content: message.content.clone(),
            at_ms: message.at_ms,
            calls: message.calls.clone(),
            call_id: message.call_id.clone(),
            tool_name: message.tool_name.clone(),
            placeholders: message.placeholders.clone(),
        };
        // The manual trigger never asks for a summary by itself.
        memory.add_message(Message::with_parts(parts, counter))?;
    }
    Ok(())
}

/// The provenance slug the recorded editions share: a tool's, `model`, `extractive`…, or
/// `recorded` when they mix.
fn recorded_slug(editions: &[Edition]) -> String {
    let mut slugs = editions.iter().map(|e| provenance_slug(e.provenance));
    match slugs.next() {
        Some(first) if slugs.all(|s| s == first) => first.to_owned(),
        _ => "recorded".to_owned(),
    }
}

fn provenance_slug(p: Provenance) -> &'static str {
    match p {
        Provenance::Tool(tool) => tool.slug(),
        Provenance::Model => "model",
        Provenance::Extractive => "extractive",
        Provenance::ManualEdit => "manual_edit",
        Provenance::Restore => "restore",
    }
}

/// One cycle of a comparison: the turns it folded, and the edition of each side that folded
/// them (an index into that side's editions), or `None` where that side wrote none there (a
/// recorded compaction that folded no whole turn, which the other side cannot repeat).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairRow {
    /// Counted from 1.
    pub cycle: u32,
    pub folded: Option<TurnRange>,
    pub a: Option<usize>,
    pub b: Option<usize>,
}

/// The editions of two sides paired by cycle: A's in order, each beside B's edition that ends
/// its fold on the same turn; an edition of either side with no partner has a row of its own.
pub fn pair_rows(a: &[Edition], b: &[Edition]) -> Vec<PairRow> {
    let mut rows = Vec::new();
    let mut used = vec![false; b.len()];
    let mut row = |folded, ia, ib| {
        rows.push(PairRow {
            cycle: 0,
            folded,
            a: ia,
            b: ib,
        })
    };
    let mut next_b = 0;
    for (ia, edition) in a.iter().enumerate() {
        let partner = edition.folded.and_then(|range| {
            (next_b..b.len()).find(|&j| b[j].folded.is_some_and(|r| r.last == range.last))
        });
        if let Some(jb) = partner {
            // B's editions before the partner have none on A's side.
            for j in next_b..jb {
                used[j] = true;
                row(b[j].folded, None, Some(j));
            }
            used[jb] = true;
            next_b = jb + 1;
            let folded = edition.folded.map(|r| TurnRange {
                first: b[jb].folded.map_or(r.first, |rb| rb.first.min(r.first)),
                last: r.last,
            });
            row(folded, Some(ia), Some(jb));
        } else {
            row(edition.folded, Some(ia), None);
        }
    }
    for (j, edition) in b.iter().enumerate() {
        if !used[j] {
            row(edition.folded, None, Some(j));
        }
    }
    for (i, r) in rows.iter_mut().enumerate() {
        r.cycle = i as u32 + 1;
    }
    rows
}

/// What comparing `a` and `b` on `session` costs, from the same run with the extractive
/// summariser answering every call (what it writes back is not told: only the most the
/// summariser may, by `max_tokens`), and the fold points both sides share.
pub fn estimate(
    session: &Session,
    policy: &Policy,
    a: SideSpec,
    b: SideSpec,
    counter: &dyn CountTokens,
    max_tokens: Option<u32>,
) -> Result<(Estimate, FoldPlan), AbError> {
    let (mut run, mut job) = AbRun::start(session, policy, a, b, "estimate", counter)?;
    let facts = compile_facts(&session.pinned).unwrap_or_default();
    let mut sent = 0u64;
    while let Some(j) = job {
        sent += j
            .job
            .request
            .iter()
            .map(|m| u64::from(counter.count(&m.content)))
            .sum::<u64>();
        let memory = run.sides[index(j.side)]
            .memory
            .as_ref()
            .expect("a model's side has a memory");
        let mut text = extractive_summary(memory, &j.job, &facts);
        if j.job.structured || text.trim().is_empty() {
            // The estimate only needs a valid text of about the right size.
            text = crate::engine::structured::StructuredMemory::default().to_json();
        }
        job = run.answered(j.job.id, Ok(text), SummaryCost::default(), counter)?;
    }
    let cost = Estimate {
        calls: run.calls,
        tokens_sent: sent,
        received_at_most: max_tokens.map(|m| u64::from(m) * u64::from(run.calls)),
        ..Estimate::default()
    };
    Ok((cost, run.plan))
}

#[cfg(test)]
mod tests;
