//! The bundled demos: scripted conversations played through the real memory engine, with an
//! offline summariser standing in for a summariser model.
//!
//! A [`DemoScript`] is plain data (the system prompt, the policy, the pinned facts and the turns):
//! the FinCoach six turns, and the drift run in three batches. A [`DemoPlayer`] steps it one
//! event at a time: a user message, the scripted reply, or a summary cycle. Nothing here calls a
//! model: the replies are written out in the script, and every [`SummaryJob`] the engine emits is
//! answered by the chosen [`DemoSummariser`]: the scripted abstractive editions
//! ([`super::scripted`]) or the extractive baseline ([`extractive_summary`]). Where the script
//! does not cover what a policy folds, the extractive summariser writes that edition, and the
//! player records who wrote each cycle ([`Writer`]). The two recorded demos play
//! [`super::recording`]'s replies and, with the scripted summariser chosen, commit its editions
//! as the model's. So a demo runs offline
//! and gives the same editions every time.
//!
//! The seam for live mode: [`DemoPlayer::last_request`] is the chat request a live session would
//! send where the demo reads its scripted reply, and [`DemoPlayer::pending_job`] is the summariser
//! request a live session would send where the demo answers it offline.

use thiserror::Error;

use super::drift::{
    CompiledFact, FactError, FactPattern, FactTrack, PinnedFact, compile_facts, fact_presence,
};
use super::edition::{Edition, Provenance, TurnRange};
use super::extractive::{self, ExtractiveOptions};
use super::memory::{CommitMeta, JobKind, MemoryError, MemoryState, MessageState, SummaryJob};
use super::message::{CountTokens, Message, Role};
use super::policy::{FoldMode, Placement, Policy, PolicyError, SummaryFormat, Trigger};
use super::prompts::{PresetId, PromptSpec};
use super::recording::{RECORDING_JSON, RecordedRun, Recording, Source};
use super::scripted::scripted_editions;
use super::structured::{StructuredMemory, parse_structured};

/// Which offline summariser answers a demo's summary jobs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DemoSummariser {
    /// The scripted abstractive editions of [`super::scripted`], which drift as a model's do;
    /// a job the script does not cover (another fold, a compression, structured memory) falls
    /// back to the extractive summariser.
    Scripted,
    /// The built-in extractive summariser: the baseline, which copies sentences.
    #[default]
    Extractive,
    /// A real model's summaries, recorded once (`engine::recording`): what answers a recorded
    /// demo's jobs when [`DemoSummariser::Scripted`] is chosen. Never chosen by itself, so it is
    /// not in [`DemoSummariser::ALL`]; it is what [`Writer`] says of such an edition.
    Recorded,
}

impl DemoSummariser {
    pub const ALL: [DemoSummariser; 2] = [DemoSummariser::Scripted, DemoSummariser::Extractive];

    /// The value of a select option and of an edition's `data-summariser`.
    pub fn slug(self) -> &'static str {
        match self {
            DemoSummariser::Scripted => "scripted",
            DemoSummariser::Extractive => "extractive",
            DemoSummariser::Recorded => "model",
        }
    }

    pub fn from_slug(slug: &str) -> Option<DemoSummariser> {
        DemoSummariser::ALL.into_iter().find(|s| s.slug() == slug)
    }
}

/// Which summariser wrote one edition of a demo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Writer {
    pub cycle: u32,
    pub summariser: DemoSummariser,
    /// The scripted summariser was chosen, but the script does not cover this job, so the
    /// extractive one wrote it.
    pub fell_back: bool,
}

/// A scripted conversation and the memory settings it is played with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DemoScript {
    /// Short name used in links (`?demo=`).
    pub slug: &'static str,
    /// The title the demo picker shows.
    pub title: &'static str,
    /// One sentence on what to watch for.
    pub blurb: &'static str,
    pub system_prompt: &'static str,
    pub policy: Policy,
    pub facts: Vec<PinnedFact>,
    /// (user message, assistant reply), one pair per turn.
    pub turns: Vec<(&'static str, &'static str)>,
}

/// What one step of a demo did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DemoEvent {
    /// The user message of `turn` was added and the request for it recorded.
    Asked { turn: u32 },
    /// The scripted reply of `turn` was added.
    Replied { turn: u32 },
    /// A summary cycle committed edition `cycle`, folding `folded` turns (none for a compression).
    Summarised {
        cycle: u32,
        folded: Option<TurnRange>,
    },
    /// The user changed the policy or the pinned facts after `turn` turns had been asked; the
    /// change applies from the next trigger check (the next reply) on.
    PolicyChanged { turn: u32 },
    /// The user replaced the summary by hand (edited, or restored an earlier edition's text),
    /// which printed edition `cycle`.
    SummaryReplaced { cycle: u32 },
    /// The user pressed Summarise now after `turn` turns; the next step commits the cycle.
    SummaryRequested { turn: u32 },
}

/// The chat request sent at one turn: what the model saw when it wrote that turn's reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnRequest {
    pub turn: u32,
    /// System prompt, summary (when there is one), then the verbatim messages.
    pub messages: Vec<Message>,
    pub summary_sent: bool,
    /// The last turn covered by the summary sent, 0 when none.
    pub summarised_to: u32,
    /// Where the summary went in this request; the policy may change later.
    pub placement: Placement,
}

/// Why a demo cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DemoError {
    /// The script's policy does not validate.
    #[error("the demo's policy is invalid ({0}); fix the script's trigger or prompt")]
    Policy(#[from] PolicyError),
    /// One of the script's pinned facts does not compile.
    #[error("the demo's pinned facts are invalid: {0}")]
    Fact(#[from] FactError),
    /// The engine refused a scripted step.
    #[error("the demo stopped: {0}; press Reset to start it again")]
    Memory(#[from] MemoryError),
    /// Summarise now was pressed while the turn's scripted reply was still due.
    #[error("the reply to this turn is still due; press Step first, then Summarise now")]
    ReplyDue,
}

/// Steps a [`DemoScript`] through a [`MemoryState`].
#[derive(Clone, Debug)]
pub struct DemoPlayer {
    script: DemoScript,
    memory: MemoryState,
    facts: Vec<CompiledFact>,
    /// The facts as the user gave them, before compiling.
    pinned: Vec<PinnedFact>,
    /// Turns whose user message has been added.
    asked: usize,
    awaiting_reply: bool,
    pending: Option<SummaryJob>,
    requests: Vec<TurnRequest>,
    events: Vec<DemoEvent>,
    /// What the user did to the demo, in order: one entry per `PolicyChanged` and
    /// `SummaryReplaced` event, holding what [`DemoPlayer::recounted`] needs to do it again.
    actions: Vec<UserAction>,
    /// Which summariser answers the next jobs.
    summariser: DemoSummariser,
    /// Who wrote each edition a summary job committed, in order.
    writers: Vec<Writer>,
}

/// A change the user made to a demo between its scripted steps.
#[derive(Clone, Debug, PartialEq)]
enum UserAction {
    /// Boxed: a policy (with its exact fields) is far larger than the other actions.
    Policy(Box<Policy>, Vec<PinnedFact>),
    Restore(u32),
    Edit(String),
    SummariseNow,
}

/// Demo timestamps advance by this much per step; the engine reads no clock, and a fixed
/// scripted time keeps the demos reproducible.
const STEP_MS: u64 = 1_000;

impl DemoScript {
    /// The seed's FinCoach run: six turns, summarise after 4 and keep 2. The salary from turn 1
    /// is folded away after turn 4, and turn 6 asks for it back.
    pub fn fincoach() -> DemoScript {
        DemoScript {
            slug: "fincoach",
            title: "FinCoach: the salary at turn 6",
            blurb: "The salary from turn 1 leaves the verbatim turns after the first cycle; at turn 6 only the summary still holds it.",
            system_prompt: FINCOACH_SYSTEM_PROMPT,
            policy: policy(Trigger::Turns {
                max_turns: 4,
                keep: 2,
            }),
            facts: vec![
                PinnedFact::phrase("salary", "1,20,000"),
                PinnedFact::phrase("equity", "equit"),
            ],
            turns: FINCOACH_TURNS.to_vec(),
        }
    }

    /// The seed's drift run: three batches of two turns with a hard rule planted in the first,
    /// folded after every batch, so the rule passes through three summaries.
    pub fn drift() -> DemoScript {
        DemoScript {
            slug: "drift",
            title: "Drift: the equity rule over three cycles",
            blurb: "The hard rule \"never suggest equities\" is stated once, in the first batch; watch whether each edition still states it as a rule.",
            system_prompt: FINCOACH_SYSTEM_PROMPT,
            // Two turns per batch and nothing kept: each batch is folded as soon as it is
            // complete, which gives one cycle per batch, as in the seed's drift run.
            policy: policy(Trigger::Turns {
                max_turns: 2,
                keep: 0,
            }),
            facts: vec![
                PinnedFact::phrase("equity", "equit"),
                PinnedFact::phrase("hard rule", "hard rule"),
                PinnedFact::phrase("never suggest", "never suggest"),
            ],
            turns: DRIFT_TURNS.to_vec(),
        }
    }

    /// The drift conversation as SmolLM2-135M-Instruct answered and summarised it: the replies
    /// and editions are the recorded run's (`engine::recording`), the policy and pinned facts
    /// the drift demo's.
    pub fn real_135m() -> DemoScript {
        recorded(
            DemoScript::drift(),
            "real135m",
            "A real 135M model: the drift run",
            "SmolLM2-135M-Instruct's own replies and summaries of the drift conversation, recorded once at temperature 0: read what the checks find on each edition.",
        )
    }

    /// The FinCoach six turns as SmolLM2-135M-Instruct answered and summarised them.
    pub fn real_135m_fincoach() -> DemoScript {
        recorded(
            DemoScript::fincoach(),
            "real135m_fincoach",
            "A real 135M model: FinCoach",
            "SmolLM2-135M-Instruct's own replies and summaries of the FinCoach six turns, recorded once at temperature 0: does the summary still hold the salary at turn 6?",
        )
    }

    /// The two demos written for this app, in the order the picker lists them.
    pub fn all() -> [DemoScript; 2] {
        [DemoScript::fincoach(), DemoScript::drift()]
    }

    /// The demos played from the recorded real-model run, in the order the picker lists them.
    pub fn recorded() -> [DemoScript; 2] {
        [DemoScript::real_135m(), DemoScript::real_135m_fincoach()]
    }

    /// The demo with this link name, written or recorded.
    pub fn from_slug(slug: &str) -> Option<DemoScript> {
        DemoScript::all()
            .into_iter()
            .find(|d| d.slug == slug)
            .or_else(|| DemoScript::recorded().into_iter().find(|d| d.slug == slug))
    }

    /// The recorded run this demo plays, when it is one of [`DemoScript::recorded`].
    pub fn recording(&self) -> Option<&'static RecordedRun> {
        recorded_source(self.slug).and_then(|source| shipped().run(source))
    }

    /// Each pinned fact as (label, the phrase or pattern it looks for), for display.
    pub fn fact_sources(&self) -> Vec<(String, String)> {
        self.facts
            .iter()
            .map(|fact| {
                let (FactPattern::Phrase(source) | FactPattern::Regex(source)) = &fact.pattern;
                (fact.label.clone(), source.clone())
            })
            .collect()
    }
}

impl DemoPlayer {
    /// A player at the start of `script`: no message yet.
    pub fn new(script: DemoScript) -> Result<DemoPlayer, DemoError> {
        let memory = MemoryState::new(script.system_prompt, script.policy.clone())?;
        let facts = compile_facts(&script.facts)?;
        Ok(DemoPlayer {
            pinned: script.facts.clone(),
            script,
            memory,
            facts,
            asked: 0,
            awaiting_reply: false,
            pending: None,
            requests: Vec::new(),
            events: Vec::new(),
            actions: Vec::new(),
            summariser: DemoSummariser::default(),
            writers: Vec::new(),
        })
    }

    /// A player at the start of `script` whose summary jobs `summariser` answers.
    pub fn with_summariser(
        script: DemoScript,
        summariser: DemoSummariser,
    ) -> Result<DemoPlayer, DemoError> {
        let mut player = DemoPlayer::new(script)?;
        player.summariser = summariser;
        Ok(player)
    }

    /// The summariser that answers this demo's summary jobs.
    pub fn summariser(&self) -> DemoSummariser {
        self.summariser
    }

    /// Who wrote the edition of `cycle`, when a summary job of this demo committed it (not a
    /// restore or a hand edit).
    pub fn writer(&self, cycle: u32) -> Option<Writer> {
        self.writers.iter().find(|w| w.cycle == cycle).copied()
    }

    /// Starts a summary cycle now, whatever the trigger says (the manual trigger's Summarise
    /// now, or an early fold under any trigger); the next step commits it. Refused while the
    /// scripted reply of the turn asked is still due, or when there is nothing to fold.
    pub fn summarise_now(&mut self) -> Result<(), DemoError> {
        if self.awaiting_reply {
            return Err(DemoError::ReplyDue);
        }
        self.pending = Some(self.memory.request_summary_now()?);
        self.actions.push(UserAction::SummariseNow);
        self.events.push(DemoEvent::SummaryRequested {
            turn: self.asked as u32,
        });
        Ok(())
    }

    pub fn script(&self) -> &DemoScript {
        &self.script
    }

    pub fn memory(&self) -> &MemoryState {
        &self.memory
    }

    /// Every step taken so far, in order.
    pub fn events(&self) -> &[DemoEvent] {
        &self.events
    }

    /// The request sent at each turn so far, one per user message.
    pub fn requests(&self) -> &[TurnRequest] {
        &self.requests
    }

    /// The latest chat request: in live mode, this is what would go to the chat model.
    pub fn last_request(&self) -> Option<&TurnRequest> {
        self.requests.last()
    }

    /// The summary job waiting for the next step: in live mode, this is what would go to the
    /// summariser model.
    pub fn pending_job(&self) -> Option<&SummaryJob> {
        self.pending.as_ref()
    }

    pub fn editions(&self) -> &[Edition] {
        self.memory.editions()
    }

    pub fn summary(&self) -> Option<&str> {
        self.memory.summary()
    }

    /// Every archived message with its state and its turn (from 1).
    pub fn messages(&self) -> Vec<(&Message, MessageState, u32)> {
        self.memory
            .archive()
            .iter()
            .enumerate()
            .map(|(i, m)| (m, self.memory.message_state(i), self.memory.turn_of(i)))
            .collect()
    }

    /// Turns whose user message has been sent, out of the script's turns.
    pub fn progress(&self) -> (u32, u32) {
        (self.asked as u32, self.script.turns.len() as u32)
    }

    /// No step is left.
    pub fn is_done(&self) -> bool {
        self.pending.is_none() && !self.awaiting_reply && self.asked >= self.script.turns.len()
    }

    /// The script's pinned facts, compiled.
    pub fn facts(&self) -> &[CompiledFact] {
        &self.facts
    }

    /// For each pinned fact, whether each edition states it.
    pub fn fact_tracks(&self) -> Vec<FactTrack> {
        let summaries: Vec<&str> = self.editions().iter().map(|e| e.summary.as_str()).collect();
        fact_presence(&self.facts, &summaries)
    }

    /// Takes the next step: commits a pending summary, or adds the scripted reply, or adds the
    /// next user message. Returns `None` once the demo is over.
    pub fn next(&mut self, counter: &dyn CountTokens) -> Result<Option<DemoEvent>, DemoError> {
        let at_ms = self.next_ms();
        let event = if let Some(job) = self.pending.take() {
            let cycle = self.memory.editions().last().map_or(0, |e| e.cycle) + 1;
            // A recorded demo's own editions come first; the scripted ones stand in for a
            // model's where there is no recording.
            let written = match self.summariser {
                DemoSummariser::Scripted => self
                    .recorded_text(&job, cycle)
                    .map(|text| (text, DemoSummariser::Recorded))
                    .or_else(|| {
                        self.scripted_text(&job, cycle)
                            .map(|text| (text, DemoSummariser::Scripted))
                    }),
                _ => None,
            };
            let writer = Writer {
                cycle,
                summariser: written.map_or(DemoSummariser::Extractive, |(_, by)| by),
                fell_back: self.summariser == DemoSummariser::Scripted && written.is_none(),
            };
            let text = match written {
                Some((text, _)) => text.to_owned(),
                None => extractive_summary(&self.memory, &job, &self.facts),
            };
            // The scripted text stands in for a model's paraphrase, so its edition records no
            // model and `writer` says which summariser it was; a recorded text is the model's,
            // and its edition names the model.
            let meta = match writer.summariser {
                DemoSummariser::Recorded => CommitMeta {
                    model: Some(shipped().model_label()),
                    provenance: Provenance::Model,
                    at_ms,
                },
                _ => CommitMeta {
                    model: None,
                    provenance: Provenance::Extractive,
                    at_ms,
                },
            };
            self.pending = self.memory.commit(job.id, &text, meta, counter)?;
            let edition = self
                .memory
                .editions()
                .last()
                .expect("a commit adds an edition");
            self.writers.push(Writer {
                cycle: edition.cycle,
                ..writer
            });
            DemoEvent::Summarised {
                cycle: edition.cycle,
                folded: edition.folded,
            }
        } else if self.awaiting_reply {
            let (_, reply) = self.script.turns[self.asked - 1];
            let message = Message::new(Role::Assistant, reply, counter, at_ms);
            // The window trigger weighs the whole request, so count its fixed part exactly.
            self.memory.count_system_prompt(counter);
            self.pending = self.memory.add_message(message)?;
            self.awaiting_reply = false;
            DemoEvent::Replied {
                turn: self.asked as u32,
            }
        } else if let Some(&(user, _)) = self.script.turns.get(self.asked) {
            let message = Message::new(Role::User, user, counter, at_ms);
            self.memory.add_message(message)?;
            self.asked += 1;
            self.awaiting_reply = true;
            let summary_sent = self.memory.summary().is_some();
            self.requests.push(TurnRequest {
                turn: self.asked as u32,
                messages: self.memory.request(counter),
                summary_sent,
                summarised_to: self.memory.summarised_to(),
                placement: self.memory.policy().placement,
            });
            DemoEvent::Asked {
                turn: self.asked as u32,
            }
        } else {
            return Ok(None);
        };
        self.events.push(event.clone());
        Ok(Some(event))
    }

    /// The pinned facts the editions are checked for (and the extractive summariser ranks first).
    pub fn pinned(&self) -> &[PinnedFact] {
        &self.pinned
    }

    /// Changes the policy and the pinned facts from here on. Nothing already printed changes:
    /// the new trigger is checked at the next reply, and a summary job already due keeps the
    /// prompt it was built with. The change is recorded in the event log.
    pub fn set_policy(&mut self, policy: Policy, facts: Vec<PinnedFact>) -> Result<(), DemoError> {
        let compiled = compile_facts(&facts)?;
        self.memory.set_policy(policy)?;
        self.facts = compiled;
        self.actions.push(UserAction::Policy(
            Box::new(self.memory.policy().clone()),
            facts.clone(),
        ));
        self.pinned = facts;
        self.events.push(DemoEvent::PolicyChanged {
            turn: self.asked as u32,
        });
        Ok(())
    }

    /// Brings back edition `cycle`'s text as the current summary, as a new edition.
    pub fn restore(&mut self, cycle: u32, counter: &dyn CountTokens) -> Result<(), DemoError> {
        let at_ms = self.next_ms();
        self.pending = self.memory.restore(cycle, at_ms, counter)?;
        self.actions.push(UserAction::Restore(cycle));
        self.after_replace();
        Ok(())
    }

    /// Replaces the current summary with the user's own text, as a new edition marked as
    /// edited by hand.
    pub fn edit_summary(&mut self, text: &str, counter: &dyn CountTokens) -> Result<(), DemoError> {
        let at_ms = self.next_ms();
        self.pending = self.memory.edit_summary(text, at_ms, counter)?;
        self.actions.push(UserAction::Edit(text.to_owned()));
        self.after_replace();
        Ok(())
    }

    /// The same demo played again from the start with `counter`: the same number of scripted
    /// steps, and the user's policy changes, restores and edits at the same points between them.
    /// Counts, and the token trigger's decisions on them, follow the new counter. When the new
    /// counts move a cycle so that an action no longer applies (a restored edition that was
    /// never printed), the replay stops with that error and the caller keeps this player.
    pub fn recounted(&self, counter: &dyn CountTokens) -> Result<DemoPlayer, DemoError> {
        self.replayed(self.summariser, counter)
    }

    /// The same demo played again from the start, as [`DemoPlayer::recounted`] does, with
    /// `summariser` answering its summary jobs: the same steps and the user's changes in their
    /// places, so the editions are what that summariser would have written.
    pub fn replayed(
        &self,
        summariser: DemoSummariser,
        counter: &dyn CountTokens,
    ) -> Result<DemoPlayer, DemoError> {
        let mut replayed = DemoPlayer::with_summariser(self.script.clone(), summariser)?;
        let mut actions = self.actions.iter();
        for event in &self.events {
            match event {
                DemoEvent::PolicyChanged { .. }
                | DemoEvent::SummaryReplaced { .. }
                | DemoEvent::SummaryRequested { .. } => {
                    match actions.next().expect("one action per user event") {
                        UserAction::Policy(policy, facts) => {
                            replayed.set_policy((**policy).clone(), facts.clone())?
                        }
                        UserAction::Restore(cycle) => replayed.restore(*cycle, counter)?,
                        UserAction::Edit(text) => replayed.edit_summary(text, counter)?,
                        UserAction::SummariseNow => replayed.summarise_now()?,
                    }
                }
                _ => {
                    replayed.next(counter)?;
                }
            }
        }
        Ok(replayed)
    }

    /// Plays every remaining step.
    pub fn play_all(&mut self, counter: &dyn CountTokens) -> Result<(), DemoError> {
        while self.next(counter)?.is_some() {}
        Ok(())
    }
}

impl DemoPlayer {
    /// The script's text for this job, when the script has one for exactly this fold: the
    /// same cycle folding the same turns, into every earlier edition the script wrote too.
    fn scripted_text(&self, job: &SummaryJob, cycle: u32) -> Option<&'static str> {
        let JobKind::Fold { turns, .. } = job.kind else {
            return None;
        };
        // The script and the recording are prose, written for the preset's prompt under a
        // progressive fold: another format, an edited prompt or a rebuild asks for an edition
        // they do not have.
        let policy = self.memory.policy();
        if policy.format != SummaryFormat::Prose
            || policy.fold != FoldMode::Progressive
            || policy.prompt.is_edited()
        {
            return None;
        }
        let earlier_scripted = self.earlier_all(cycle, DemoSummariser::Scripted);
        scripted_editions(self.script.slug)
            .iter()
            .find(|e| e.cycle == cycle && e.folds == turns && earlier_scripted)
            .map(|e| e.text)
    }

    /// The recorded model's text for this job, when this demo is recorded and the recording
    /// has exactly this job: the same cycle folding the same turns (or the same compression),
    /// into every earlier edition the recording wrote too.
    fn recorded_text(&self, job: &SummaryJob, cycle: u32) -> Option<&'static str> {
        let run = self.script.recording()?;
        // The script and the recording are prose, written for a progressive fold.
        let policy = self.memory.policy();
        if policy.format != SummaryFormat::Prose || policy.fold != FoldMode::Progressive {
            return None;
        }
        if !self.earlier_all(cycle, DemoSummariser::Recorded) {
            return None;
        }
        let folds = match job.kind {
            JobKind::Fold { turns, .. } => Some(turns),
            JobKind::Compress { .. } => None,
        };
        run.editions
            .iter()
            .find(|e| e.cycle == cycle && e.folds.map(TurnRange::from) == folds)
            .map(|e| e.text.as_str())
    }

    /// Every edition before `cycle` was written by `summariser` through a summary job.
    fn earlier_all(&self, cycle: u32, summariser: DemoSummariser) -> bool {
        (1..cycle).all(|c| self.writer(c).is_some_and(|w| w.summariser == summariser))
    }

    fn next_ms(&self) -> u64 {
        (self.events.len() as u64 + 1) * STEP_MS
    }

    fn after_replace(&mut self) {
        let cycle = self.memory.editions().last().map_or(0, |e| e.cycle);
        self.events.push(DemoEvent::SummaryReplaced { cycle });
    }
}

/// Answers a summary job with the built-in extractive summariser, under the job's word limit and
/// with the pinned facts ranked first. This is the offline stand-in for the summariser model.
pub fn extractive_summary(
    memory: &MemoryState,
    job: &SummaryJob,
    facts: &[CompiledFact],
) -> String {
    extractive_summary_ranked(memory, job, &extractive_ranking(memory, facts))
}

/// What [`extractive_summary`] ranks sentences by: the pinned `facts`, then the policy prompt's
/// must-keep list, compiled. A loop of many jobs under one policy (a replay) compiles it once
/// and calls [`extractive_summary_ranked`]: compiling the cues' regexes for every job was a
/// third of a replay's time.
pub fn extractive_ranking(memory: &MemoryState, facts: &[CompiledFact]) -> Vec<CompiledFact> {
    facts
        .iter()
        .cloned()
        .chain(memory.policy().prompt.must_keep_cues())
        .collect()
}

/// [`extractive_summary`] with its ranking compiled beforehand ([`extractive_ranking`], for the
/// memory's policy).
pub fn extractive_summary_ranked(
    memory: &MemoryState,
    job: &SummaryJob,
    ranking: &[CompiledFact],
) -> String {
    let options = ExtractiveOptions {
        word_limit: job.word_limit as usize,
        ..ExtractiveOptions::default()
    };
    // A structured memory's previous text is its JSON; the paragraph inside is what the
    // extractive summariser folds the new turns into.
    let previous = job.previous.as_deref().map(|text| {
        match job
            .structured
            .then(|| parse_structured(text).ok())
            .flatten()
        {
            Some(memory) => memory.summary,
            None => text.to_owned(),
        }
    });
    let previous = previous.as_deref();
    // The prompt's must-keep list ranks sentences too, after the pinned facts it is checked for.
    let facts = ranking;
    // Topic sections file the same sentences under their topics.
    let summarise = match memory.policy().format {
        SummaryFormat::Topics => extractive::summarise_topics,
        _ => extractive::summarise,
    };
    let result = match job.kind {
        JobKind::Fold { from, to, .. } => match memory.policy().fold {
            FoldMode::Progressive => {
                summarise(previous, &memory.archive()[from..to], facts, &options)
            }
            // A rebuild reads every folded turn from the archive and no earlier summary.
            FoldMode::RebuildFromArchive => {
                summarise(None, &memory.archive()[..to], facts, &options)
            }
        },
        JobKind::Compress { .. } => summarise(previous, &[], facts, &options),
    };
    if !job.structured {
        return result.text;
    }
    // Structured memory from the same sentences: the paragraph, and each pinned fact's
    // sentence as a fact.
    let mut found: Vec<String> = Vec::new();
    for fact in facts {
        if let Some(sentence) = fact.sentence_in(&result.text)
            && !found.iter().any(|f| f == sentence)
        {
            found.push(sentence.to_owned());
        }
    }
    StructuredMemory {
        summary: result.text,
        facts: found,
        ..StructuredMemory::default()
    }
    .to_json()
}

/// The recording the app ships, parsed once and checked against the written demos. A native
/// test checks the file, so a failure here means the build embedded a file that test rejects.
pub fn shipped() -> &'static Recording {
    static SHIPPED: std::sync::LazyLock<Recording> = std::sync::LazyLock::new(|| {
        Recording::parse(RECORDING_JSON, &written_sources())
            .expect("the shipped recording is checked by its tests")
    });
    &SHIPPED
}

/// The written demos as a recording's possible sources (a recorded demo is built from the
/// recording, so it is none).
pub fn written_sources() -> Vec<Source<'static>> {
    DemoScript::all()
        .into_iter()
        .map(|d| Source {
            slug: d.slug,
            users: d.turns.iter().map(|t| t.0).collect(),
        })
        .collect()
}

/// The demo of the recorded run played from `source`'s user messages: its policy and pinned
/// facts, the recorded replies in place of the written ones.
fn recorded(
    source: DemoScript,
    slug: &'static str,
    title: &'static str,
    blurb: &'static str,
) -> DemoScript {
    let run = shipped()
        .run(source.slug)
        .expect("the shipped recording has a run of each written demo");
    DemoScript {
        slug,
        title,
        blurb,
        turns: run
            .turns
            .iter()
            .map(|t| (t.user.as_str(), t.reply.as_str()))
            .collect(),
        ..source
    }
}

/// The written demo whose user messages a recorded demo plays.
fn recorded_source(slug: &str) -> Option<&'static str> {
    match slug {
        "real135m" => Some("drift"),
        "real135m_fincoach" => Some("fincoach"),
        _ => None,
    }
}

/// The demos' system prompt, after the seed's FinCoach agent.
pub const FINCOACH_SYSTEM_PROMPT: &str = "You are FinCoach, a personal finance assistant for people in India \
who want help with saving, investing, budgeting and planning.
- Base every answer on what the user has told you in this conversation, including the conversation summary when one is given.
- Use the user's own numbers whenever they have shared them.
- Say so when you have to assume something the user has not told you.
- Answer in 3 to 5 sentences unless the user asks for more.
- Never recommend buying or selling an individual stock.
- For major decisions, suggest a SEBI-registered adviser.";

/// The seed's six FinCoach user messages, word for word (the notebook's six-turn run); the
/// replies are the model's and not in the seed.
pub const FINCOACH_USER_MESSAGES: [&str; 6] = [
    "Hi! I'm Chiru. My monthly take-home salary is ₹1,20,000.",
    "My monthly expenses are about ₹60,000 for rent, food, and transport.",
    "I have an FD of ₹50,000 that matures in 3 months. I am risk-averse.",
    "What is a Systematic Investment Plan and how does it work?",
    "What are the different types of mutual funds available in India?",
    "What is my exact monthly take-home salary that I told you at the start?",
];

/// The seed's six user messages with replies written for the demo.
const FINCOACH_TURNS: [(&str, &str); 6] = [
    (
        FINCOACH_USER_MESSAGES[0],
        "Hello Chiru! A take-home salary of ₹1,20,000 a month is a solid base to plan with. \
         Tell me your monthly expenses and any savings or investments you already hold, and I \
         will suggest how to split the rest.",
    ),
    (
        FINCOACH_USER_MESSAGES[1],
        "That leaves a surplus of about ₹60,000 a month, half of your income. A good first goal \
         is an emergency fund of 6 months of expenses, about ₹3,60,000. Setting aside ₹30,000 a \
         month builds it in a year and still leaves ₹30,000 for other goals.",
    ),
    (
        FINCOACH_USER_MESSAGES[2],
        "When the ₹50,000 FD matures in 3 months, it can seed your emergency fund. Since you are \
         risk-averse, keep the rest of the surplus in recurring deposits, PPF or short-term debt \
         funds, and stay away from equity for now. Please confirm major decisions with a \
         SEBI-registered adviser.",
    ),
    (
        FINCOACH_USER_MESSAGES[3],
        "A Systematic Investment Plan (SIP) puts a fixed amount into a mutual fund every month, \
         for example ₹10,000 on the 5th. Each instalment buys units at that day's price, so you \
         buy more units when prices are low and fewer when they are high. For a risk-averse \
         investor, an SIP in a debt or conservative hybrid fund keeps the swings small.",
    ),
    (
        FINCOACH_USER_MESSAGES[4],
        "There are four broad types. Equity funds invest mainly in shares and carry the most \
         risk. Debt funds hold bonds and government securities and move less. Hybrid funds mix \
         the two, and solution-oriented funds target goals such as retirement or a child's \
         education. With your risk profile, debt and conservative hybrid funds fit best.",
    ),
    (
        FINCOACH_USER_MESSAGES[5],
        "Your monthly take-home salary is ₹1,20,000, as you told me at the start. With about \
         ₹60,000 of expenses, that leaves a surplus of about ₹60,000 a month.",
    ),
];

/// The seed's three batches of the drift run, two turns each, user and assistant text verbatim.
pub(crate) const DRIFT_TURNS: [(&str, &str); 6] = [
    (
        "Hi! I'm Chiru. My monthly take-home salary is ₹1,20,000 and my expenses are ₹60,000.",
        "That leaves a surplus of ₹60,000 a month. What are your goals?",
    ),
    (
        "One hard rule: I am allergic to equity instruments, never suggest them.",
        "Understood. I will keep to fixed-income options.",
    ),
    (
        "I am 32 years old and I want to retire by 55.",
        "That gives you 23 years to build a retirement corpus.",
    ),
    (
        "I have an FD of ₹50,000 that matures in 3 months.",
        "You can renew it or move it to PPF when it matures.",
    ),
    (
        "What is the difference between PPF and NPS?",
        "PPF is a government-backed savings scheme with a 15-year lock-in. NPS is a pension scheme.",
    ),
    (
        "I will open a PPF account this month.",
        "Good. A fixed monthly contribution keeps it simple.",
    ),
];

/// A demo policy: the given trigger with the financial-advisor preset and the second-system
/// placement of the seed's notebook.
fn policy(trigger: Trigger) -> Policy {
    Policy {
        trigger,
        prompt: PromptSpec::from_preset(PresetId::FinancialAdvisor),
        ..Policy::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::drift::word_diff;
    use crate::engine::memory::SUMMARY_HEADER;
    use crate::engine::message::WordCounter;

    fn played(script: DemoScript) -> DemoPlayer {
        let mut player = DemoPlayer::new(script).unwrap();
        player.play_all(&WordCounter).unwrap();
        player
    }

    /// The script played to its end with the given summariser.
    fn played_by(script: DemoScript, summariser: DemoSummariser) -> DemoPlayer {
        let mut player = DemoPlayer::with_summariser(script, summariser).unwrap();
        player.play_all(&WordCounter).unwrap();
        player
    }

    fn writers(player: &DemoPlayer) -> Vec<(DemoSummariser, bool)> {
        player
            .editions()
            .iter()
            .map(|e| {
                let w = player.writer(e.cycle).unwrap();
                (w.summariser, w.fell_back)
            })
            .collect()
    }

    #[test]
    fn the_scripted_summariser_prints_the_script_under_the_demo_policy() {
        for script in DemoScript::all() {
            let slug = script.slug;
            let player = played_by(script, DemoSummariser::Scripted);
            let texts: Vec<&str> = player
                .editions()
                .iter()
                .map(|e| e.summary.as_str())
                .collect();
            let script: Vec<&str> = scripted_editions(slug).iter().map(|e| e.text).collect();
            assert_eq!(texts, script, "{slug}");
            assert!(
                writers(&player)
                    .iter()
                    .all(|&w| w == (DemoSummariser::Scripted, false))
            );
        }
        // The FinCoach script overruns its limit in edition 2, which the edition records.
        let player = played_by(DemoScript::fincoach(), DemoSummariser::Scripted);
        assert!(player.editions()[1].overrun && !player.editions()[0].overrun);
        // The extractive baseline is the plain player's.
        let extractive = played(DemoScript::drift());
        assert!(
            writers(&extractive)
                .iter()
                .all(|&w| w == (DemoSummariser::Extractive, false))
        );
    }

    #[test]
    fn a_fold_the_script_does_not_cover_falls_back_to_extractive_and_says_so() {
        let mut script = DemoScript::drift();
        // Three turns per cycle: the script's first edition folds turns 1-2, not 1-3.
        script.policy.trigger = Trigger::Turns {
            max_turns: 3,
            keep: 0,
        };
        let player = played_by(script, DemoSummariser::Scripted);
        assert_eq!(player.editions().len(), 2);
        assert!(
            writers(&player)
                .iter()
                .all(|&w| w == (DemoSummariser::Extractive, true))
        );
        // Replayed with the other summariser, the same steps print the script's editions.
        let mut player =
            DemoPlayer::with_summariser(DemoScript::drift(), DemoSummariser::Extractive).unwrap();
        for _ in 0..5 {
            player.next(&WordCounter).unwrap();
        }
        let replayed = player
            .replayed(DemoSummariser::Scripted, &WordCounter)
            .unwrap();
        assert_eq!(replayed.events(), player.events());
        assert_eq!(
            replayed.editions()[0].summary,
            scripted_editions("drift")[0].text
        );
        assert_eq!(replayed.summariser(), DemoSummariser::Scripted);
    }

    #[test]
    fn summarise_now_folds_under_a_manual_policy_and_survives_a_recount() {
        let mut script = DemoScript::fincoach();
        script.policy.trigger = Trigger::Manual { keep: 1 };
        let player = played(script);
        assert!(
            player.editions().is_empty(),
            "a manual policy never fires by itself"
        );
        let mut player = DemoPlayer::new(player.script().clone()).unwrap();
        player.next(&WordCounter).unwrap();
        assert_eq!(player.summarise_now(), Err(DemoError::ReplyDue));
        player.next(&WordCounter).unwrap();
        assert!(matches!(
            player.summarise_now(),
            Err(DemoError::Memory(MemoryError::NothingToFold))
        ));
        for _ in 0..4 {
            player.next(&WordCounter).unwrap();
        }
        player.summarise_now().unwrap();
        let event = player.next(&WordCounter).unwrap();
        assert_eq!(
            event,
            Some(DemoEvent::Summarised {
                cycle: 1,
                folded: Some(TurnRange { first: 1, last: 2 })
            })
        );
        let again = player.recounted(&WordCounter).unwrap();
        assert_eq!(again.events(), player.events());
        assert_eq!(again.editions(), player.editions());
    }

    /// Twice the words: a counter that disagrees with `WordCounter` on every text.
    struct Doubled;
    impl CountTokens for Doubled {
        fn count(&self, text: &str) -> u32 {
            2 * WordCounter.count(text)
        }
    }

    /// The FinCoach demo with turn 1 asked and answered under the script's policy (summarise
    /// at 4, keep 2), then switched to summarise at 2, keep 1, with the salary pinned; returns
    /// the player, the new policy and the pinned facts.
    fn fincoach_with_a_policy_change_after_turn_one() -> (DemoPlayer, Policy, Vec<PinnedFact>) {
        let mut player = DemoPlayer::new(DemoScript::fincoach()).unwrap();
        player.next(&WordCounter).unwrap();
        player.next(&WordCounter).unwrap();
        let policy = Policy::new(Trigger::Turns {
            max_turns: 2,
            keep: 1,
        })
        .unwrap();
        let facts = vec![PinnedFact::phrase("salary", "1,20,000")];
        player.set_policy(policy.clone(), facts.clone()).unwrap();
        (player, policy, facts)
    }

    #[test]
    fn a_recount_replays_the_users_policy_change_restore_and_edit() {
        let (mut player, policy, facts) = fincoach_with_a_policy_change_after_turn_one();
        while player.editions().len() < 2 {
            player.next(&WordCounter).unwrap().unwrap();
        }
        player.restore(1, &WordCounter).unwrap();
        player.next(&WordCounter).unwrap();
        player
            .edit_summary("The user earns ₹1,20,000 a month.", &WordCounter)
            .unwrap();
        player.next(&WordCounter).unwrap();

        let again = player.recounted(&Doubled).unwrap();
        assert_eq!(again.events(), player.events());
        assert_eq!(again.memory().policy(), &policy);
        assert_eq!(again.pinned(), facts.as_slice());
        assert_eq!(again.summary(), player.summary());
        let texts = |p: &DemoPlayer| -> Vec<String> {
            p.editions().iter().map(|e| e.summary.clone()).collect()
        };
        assert_eq!(texts(&again), texts(&player));
        // Every message is counted by the new counter.
        for (message, _, _) in again.messages() {
            assert_eq!(message.tokens, Doubled.count(&message.content));
        }
        // Played on to the end, both agree, since a turn trigger ignores the counts.
        let mut a = again;
        let mut b = player;
        a.play_all(&Doubled).unwrap();
        b.play_all(&WordCounter).unwrap();
        assert_eq!(texts(&a), texts(&b));
    }

    #[test]
    fn a_recount_that_cannot_redo_a_restore_refuses() {
        let mut player = DemoPlayer::new(DemoScript::fincoach()).unwrap();
        while player.editions().is_empty() {
            player.next(&WordCounter).unwrap().unwrap();
        }
        player.restore(1, &WordCounter).unwrap();
        assert!(player.recounted(&Doubled).is_ok());
        // Had the new counts never printed edition 1 (here: the steps that printed it are
        // dropped from the log), the restore cannot be done again, and the replay says so.
        let mut diverged = player.clone();
        diverged
            .events
            .retain(|e| !matches!(e, DemoEvent::Summarised { .. }));
        assert!(matches!(
            diverged.recounted(&Doubled),
            Err(DemoError::Memory(_))
        ));
    }

    #[test]
    fn a_policy_change_applies_from_the_next_reply_and_is_logged() {
        let (mut player, policy, facts) = fincoach_with_a_policy_change_after_turn_one();
        assert_eq!(player.memory().policy(), &policy);
        assert_eq!(player.pinned(), facts.as_slice());
        assert_eq!(player.facts().len(), 1);
        assert_eq!(
            player.events().last(),
            Some(&DemoEvent::PolicyChanged { turn: 1 })
        );
        assert!(player.editions().is_empty(), "nothing folds at the change");
        // Turn 2's reply is the first check under the new trigger: it folds turn 1.
        while player.progress().0 < 2 || player.memory().editions().is_empty() {
            player.next(&WordCounter).unwrap().unwrap();
        }
        assert_eq!(
            player.editions()[0].folded,
            Some(TurnRange { first: 1, last: 1 })
        );
        player.play_all(&WordCounter).unwrap();
        // One cycle after every turn from turn 2 on, where the script's policy printed two.
        assert_eq!(player.editions().len(), 5);
        // An invalid policy or fact is refused and changes nothing.
        let mut bad = policy.clone();
        bad.trigger = Trigger::Turns {
            max_turns: 2,
            keep: 2,
        };
        assert!(player.set_policy(bad, facts.clone()).is_err());
        let bad_fact = vec![PinnedFact::regex("broken", "(")];
        assert!(player.set_policy(policy.clone(), bad_fact).is_err());
        assert_eq!(player.memory().policy(), &policy);
        assert_eq!(player.pinned(), facts.as_slice());
    }

    #[test]
    fn a_demo_switched_to_structured_memory_plays_to_the_end() {
        // The extractive summariser wrote prose, which a structured job rejects, so a demo
        // switched to structured summaries stopped at its first cycle.
        let mut player = DemoPlayer::new(DemoScript::fincoach()).unwrap();
        let mut policy = player.memory().policy().clone();
        policy.format = crate::engine::policy::SummaryFormat::Structured;
        let facts = player.pinned().to_vec();
        player.set_policy(policy, facts).unwrap();
        player.play_all(&WordCounter).unwrap();
        assert_eq!(player.editions().len(), 2);
        let memory = parse_structured(player.summary().unwrap()).unwrap();
        assert!(memory.summary.contains("1,20,000"), "{memory:?}");
        assert!(memory.facts.iter().any(|f| f.contains("1,20,000")));
        // The second cycle folded into the first one's paragraph, not into its JSON.
        assert!(!memory.summary.contains('{'));
    }

    #[test]
    fn a_demo_in_topic_sections_files_each_fact_under_its_topic() {
        use crate::engine::sections::parse_sections;
        let mut script = DemoScript::drift();
        script.policy.format = SummaryFormat::Topics;
        let player = played_by(script, DemoSummariser::Scripted);
        assert_eq!(player.editions().len(), 3);
        for edition in player.editions() {
            // The script is prose, so the extractive summariser wrote the sections.
            let writer = player.writer(edition.cycle).unwrap();
            assert_eq!(
                (writer.summariser, writer.fell_back),
                (DemoSummariser::Extractive, true)
            );
            let sections = parse_sections(&edition.summary);
            let headings: Vec<&str> = sections.iter().map(|s| s.heading).collect();
            assert!(headings.contains(&"Rules"), "{headings:?}");
            let rules = sections.iter().find(|s| s.heading == "Rules").unwrap();
            assert!(rules.body.contains("never suggest"), "{}", rules.body);
            assert!(edition.words <= edition.word_limit, "{}", edition.summary);
        }
        // The summariser request asked for the sections.
        let mut script = DemoScript::drift();
        script.policy.format = SummaryFormat::Topics;
        let mut player = DemoPlayer::new(script).unwrap();
        while player.pending_job().is_none() {
            player.next(&WordCounter).unwrap();
        }
        let system = &player.pending_job().unwrap().request[0].content;
        assert!(system.ends_with(crate::engine::sections::TOPIC_SECTIONS_INSTRUCTION));
    }

    #[test]
    fn restore_and_edit_print_new_editions_and_become_the_summary() {
        let mut player = played(DemoScript::drift());
        let first = player.editions()[0].summary.clone();
        player.restore(1, &WordCounter).unwrap();
        assert_eq!(player.summary(), Some(first.as_str()));
        let restored = player.editions().last().unwrap();
        assert_eq!(
            (restored.cycle, restored.provenance, restored.restored_from),
            (4, Provenance::Restore, Some(1))
        );
        assert_eq!(
            player.events().last(),
            Some(&DemoEvent::SummaryReplaced { cycle: 4 })
        );
        player
            .edit_summary("  The user never wants equities.  ", &WordCounter)
            .unwrap();
        assert_eq!(player.summary(), Some("The user never wants equities."));
        let edited = player.editions().last().unwrap();
        assert_eq!(
            (edited.cycle, edited.provenance),
            (5, Provenance::ManualEdit)
        );
        assert!(player.edit_summary("   ", &WordCounter).is_err());
        assert!(player.restore(99, &WordCounter).is_err());
        assert_eq!(player.editions().len(), 5);
    }

    #[test]
    fn fincoach_sends_the_salary_only_through_the_summary_at_turn_6() {
        let player = played(DemoScript::fincoach());
        let requests = player.requests();
        assert_eq!(requests.len(), 6);
        let sent: Vec<bool> = requests.iter().map(|r| r.summary_sent).collect();
        assert_eq!(sent, [false, false, false, false, true, true]);

        let turn_6 = &requests[5];
        assert_eq!(turn_6.summarised_to, 2);
        assert_eq!(turn_6.messages[1].role, Role::System);
        let summary = turn_6.messages[1]
            .content
            .strip_prefix(SUMMARY_HEADER)
            .expect("the second system message carries the summary");
        assert!(summary.contains("1,20,000"), "{summary}");
        // Turns 3 to 6 are sent verbatim, and none of those messages holds the salary.
        assert_eq!(turn_6.messages.len(), 2 + 7);
        assert!(
            turn_6.messages[2..]
                .iter()
                .all(|m| !m.content.contains("1,20,000"))
        );
        // The scripted reply then states it, as the seed's model did.
        assert!(player.memory().archive()[11].content.contains("₹1,20,000"));
    }

    #[test]
    fn fincoach_prints_two_extractive_editions_and_keeps_the_archive() {
        let player = played(DemoScript::fincoach());
        let folded: Vec<Option<TurnRange>> = player.editions().iter().map(|e| e.folded).collect();
        assert_eq!(
            folded,
            [
                Some(TurnRange { first: 1, last: 2 }),
                Some(TurnRange { first: 3, last: 4 })
            ]
        );
        assert!(
            player
                .editions()
                .iter()
                .all(|e| e.provenance == Provenance::Extractive && e.words <= e.word_limit)
        );
        assert_eq!(player.memory().archive().len(), 12);
        let states: Vec<MessageState> = player.messages().iter().map(|m| m.1).collect();
        assert_eq!(states[..8], [MessageState::Folded; 8]);
        assert_eq!(states[8..], [MessageState::Verbatim; 4]);
        assert!(player.summary().unwrap().contains("1,20,000"));
    }

    #[test]
    fn steps_come_one_event_at_a_time_in_script_order() {
        let mut player = DemoPlayer::new(DemoScript::fincoach()).unwrap();
        let mut events = Vec::new();
        while let Some(event) = player.next(&WordCounter).unwrap() {
            events.push(event);
        }
        assert!(player.is_done());
        assert_eq!(events.len(), 6 * 2 + 2);
        assert_eq!(events[0], DemoEvent::Asked { turn: 1 });
        assert_eq!(events[1], DemoEvent::Replied { turn: 1 });
        // The first cycle follows the reply of turn 4, before turn 5 is asked.
        assert_eq!(
            events[8],
            DemoEvent::Summarised {
                cycle: 1,
                folded: Some(TurnRange { first: 1, last: 2 })
            }
        );
        assert_eq!(events[9], DemoEvent::Asked { turn: 5 });
        assert_eq!(player.next(&WordCounter).unwrap(), None);
        assert_eq!(player.events(), events.as_slice());
    }

    #[test]
    fn drift_folds_each_batch_into_one_of_three_editions() {
        let player = played(DemoScript::drift());
        let folded: Vec<TurnRange> = player
            .editions()
            .iter()
            .map(|e| e.folded.unwrap())
            .collect();
        assert_eq!(
            folded,
            [
                TurnRange { first: 1, last: 2 },
                TurnRange { first: 3, last: 4 },
                TurnRange { first: 5, last: 6 }
            ]
        );
        assert_eq!(player.memory().archive().len(), 12);
        assert!(player.memory().verbatim().is_empty());
        // Every edition after the first starts from the previous one.
        for pair in player.editions().windows(2) {
            assert_eq!(pair[1].previous.as_deref(), Some(pair[0].summary.as_str()));
        }
    }

    #[test]
    fn drift_fact_tracks_follow_the_edition_texts() {
        let player = played(DemoScript::drift());
        let tracks = player.fact_tracks();
        let labels: Vec<&str> = tracks.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(labels, ["equity", "hard rule", "never suggest"]);
        for (track, needle) in tracks.iter().zip(["equit", "hard rule", "never suggest"]) {
            let expect: Vec<bool> = player
                .editions()
                .iter()
                .map(|e| e.summary.to_lowercase().contains(needle))
                .collect();
            assert_eq!(track.kept, expect, "{}", track.label);
            assert_eq!(track.kept.len(), 3);
        }
        // The extractive summariser ranks pinned facts first, so the rule is copied word for word
        // into every edition: it cannot weaken the way a model's paraphrase does.
        assert!(tracks.iter().all(|t| t.first_lost.is_none()));
    }

    #[test]
    fn consecutive_editions_differ_word_by_word() {
        for script in DemoScript::all() {
            let player = played(script);
            for pair in player.editions().windows(2) {
                let diff = word_diff(&pair[0].summary, &pair[1].summary);
                assert!(
                    diff.added_words + diff.removed_words > 0,
                    "edition {} repeats edition {}",
                    pair[1].cycle,
                    pair[0].cycle
                );
            }
        }
    }

    #[test]
    fn scripts_use_the_financial_preset_and_resolve_by_slug() {
        for script in DemoScript::all() {
            assert_eq!(script.policy.prompt.preset, PresetId::FinancialAdvisor);
            assert_eq!(
                DemoScript::from_slug(script.slug).map(|s| s.title),
                Some(script.title)
            );
        }
        assert!(DemoScript::from_slug("nope").is_none());
        let sources = DemoScript::fincoach().fact_sources();
        assert_eq!(sources[0], ("salary".to_owned(), "1,20,000".to_owned()));
    }
}
