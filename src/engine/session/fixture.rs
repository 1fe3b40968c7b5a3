//! Sessions built for tests and benchmarks, through the engine itself so that every one
//! satisfies the import checks: [`Scripted`], the one scripted test session (turns played
//! through [`MemoryState`], each summariser job answered with the next scripted summary), which
//! the engine's tests, the integration tests and the end-to-end tests share; and [`synthetic`],
//! a deterministic long session for scale tests and the browser benchmark.

use crate::engine::edition::Provenance;
use crate::engine::library_session::{Session, SessionSettings};
use crate::engine::memory::{CommitMeta, MemoryState};
use crate::engine::message::{Message, Role, WordCounter};
use crate::engine::policy::{Policy, Trigger};

/// A scripted conversation: [`Scripted::play`] plays `turns` turns through [`MemoryState`]
/// (tokens counted by [`WordCounter`], turn `t` stamped `t` ms) and answers every summariser
/// job at once, chained jobs included, with the next of `summaries`.
///
/// Start from [`Scripted::default`] and change what a test cares about:
///
/// ```
/// use summary_memory::engine::session::fixture::Scripted;
/// let session = Scripted {
///     summaries: vec!["Aarav wants no equities.".into()],
///     ..Scripted::default()
/// }
/// .play(3);
/// assert_eq!(session.memory.editions().len(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct Scripted {
    pub name: String,
    pub system_prompt: String,
    pub policy: Policy,
    /// The user's message and the reply of turn `t`, counted from 1.
    pub turn: fn(u64) -> (String, String),
    /// The summaries, one per job in the order the jobs come; once they run out, the last one
    /// answers every further job.
    pub summaries: Vec<String>,
    /// Recorded with every commit.
    pub model: Option<String>,
    pub provenance: Provenance,
    /// The job with this number (counted from 1) fails once with this reason, is retried, and
    /// then takes its summary, so the session holds a failure.
    pub fail: Option<(usize, String)>,
}

impl Default for Scripted {
    /// "FinCoach": "summarise at 2 turns, keep 1" with "no equities" a must-keep fact, turns
    /// "question t" / "answer t", every summary "Summary.", written by the extractive
    /// summariser.
    fn default() -> Self {
        let mut policy = Policy::new(Trigger::Turns {
            max_turns: 2,
            keep: 1,
        })
        .expect("2 and 1 are a valid turn trigger");
        policy.prompt.must_keep = vec!["no equities".into()];
        Scripted {
            name: "FinCoach".into(),
            system_prompt: "You are FinCoach.".into(),
            policy,
            turn: |t| (format!("question {t}"), format!("answer {t}")),
            summaries: vec!["Summary.".into()],
            model: None,
            provenance: Provenance::Extractive,
            fail: None,
        }
    }
}

impl Scripted {
    /// Plays `turns` turns; a session with the default settings, no pinned facts, not live.
    ///
    /// Panics if the script does not fit the engine (an invalid policy, an empty summary): it
    /// is a test fixture, and a broken script is a broken test.
    pub fn play(&self, turns: u64) -> Session {
        let mut memory = MemoryState::new(self.system_prompt.clone(), self.policy.clone())
            .expect("the scripted policy is valid");
        let mut jobs = 0;
        for t in 1..=turns {
            let (question, reply) = (self.turn)(t);
            memory
                .add_message(Message::new(Role::User, question, &WordCounter, t))
                .expect("a user message is accepted");
            let mut job = memory
                .add_message(Message::new(Role::Assistant, reply, &WordCounter, t))
                .expect("a reply is accepted");
            while let Some(mut current) = job {
                jobs += 1;
                if let Some((_, reason)) = self.fail.as_ref().filter(|(n, _)| *n == jobs) {
                    memory
                        .fail(current.id, reason, t)
                        .expect("the job in flight fails");
                    current = memory.retry_job().expect("a failed job can be retried");
                }
                let summary = self
                    .summaries
                    .get(jobs - 1)
                    .or(self.summaries.last())
                    .expect("the script has a summary");
                let meta = CommitMeta {
                    model: self.model.clone(),
                    provenance: self.provenance,
                    at_ms: t,
                };
                job = memory
                    .commit(current.id, summary, meta, &WordCounter)
                    .expect("the scripted summary commits");
            }
        }
        Session::new(self.name.clone(), SessionSettings::default(), memory)
    }
}

/// A long made-up session for scale tests and the browser benchmark: `turns` turns of a
/// budgeting conversation under "summarise at 8 turns, keep 4", a summary committed at every
/// cycle (so about one edition per four turns), and a must-keep fact that the summaries keep.
/// Deterministic, and built through [`MemoryState`] so it satisfies every import check.
pub fn synthetic(turns: u32) -> Session {
    let mut policy = Policy::new(Trigger::Turns {
        max_turns: 8,
        keep: 4,
    })
    .expect("8 and 4 are a valid turn trigger");
    policy.prompt.must_keep = vec!["no equities".into()];
    let mut memory = MemoryState::new("You are a careful budgeting coach.", policy)
        .expect("the policy above is valid");
    for t in 1..=u64::from(turns) {
        let question = format!(
            "Turn {t}: I spent {} on groceries and {} on transport this week; should I move {} into savings?",
            40 + t % 37,
            10 + t % 11,
            25 + t % 50
        );
        let reply = format!(
            "For turn {t}: keep groceries near {}, and yes, move {} into the savings pot. \
             You still hold no equities, as agreed, so the bond ladder stays as it is.",
            40 + t % 37,
            25 + t % 50
        );
        let _ = memory.add_message(Message::new(Role::User, question, &WordCounter, t));
        let job = memory.add_message(Message::new(Role::Assistant, reply, &WordCounter, t));
        if let Ok(Some(job)) = job {
            let meta = CommitMeta {
                model: None,
                provenance: Provenance::Extractive,
                at_ms: t,
            };
            let summary = format!(
                "Up to turn {t}: the client saves weekly, holds no equities and keeps a bond ladder."
            );
            let _ = memory.commit(job.id, &summary, meta, &WordCounter);
        }
    }
    Session::new(
        format!("Budget coach, {turns} turns"),
        SessionSettings::default(),
        memory,
    )
}

/// A long made-up chat with nothing folded: `turns` turns under the manual trigger (keep 4),
/// every message verbatim, for the Chat tab's long-chat end-to-end test and the streaming
/// benchmark, where the verbatim list is the long one.
pub fn verbatim(turns: u32) -> Session {
    let policy = Policy::new(Trigger::Manual { keep: 4 }).expect("a valid manual trigger");
    let mut memory = MemoryState::new("You are a careful budgeting coach.", policy)
        .expect("the policy above is valid");
    for t in 1..=u64::from(turns) {
        let question = format!("Turn {t}: how much should I save this month?");
        let reply = format!(
            "For turn {t}: move {} into the savings pot first, then review the budget.",
            25 + t % 50
        );
        for (role, text) in [(Role::User, question), (Role::Assistant, reply)] {
            memory
                .add_message(Message::new(role, text, &WordCounter, t))
                .expect("a manual trigger never folds on its own");
        }
    }
    Session::new(
        format!("Long chat, {turns} turns"),
        SessionSettings::default(),
        memory,
    )
}
