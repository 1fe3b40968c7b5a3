//! Sessions built for tests and benchmarks, through the engine itself so that every one
//! satisfies the import checks: [`synthetic`], a deterministic long session for scale tests and
//! the browser benchmark.

use super::domain::{Session, SessionSettings};
use crate::engine::edition::Provenance;
use crate::engine::memory::MemoryState;
use crate::engine::message::{Message, Role};
use crate::engine::policy::{Policy, Trigger};

/// A long made-up session for scale tests and the browser benchmark: `turns` turns of a
/// budgeting conversation under "summarise at 8 turns, keep 4", a summary committed at every
/// cycle (so about one edition per four turns), and a must-keep fact that the summaries keep.
/// Deterministic, and built through [`MemoryState`] so it satisfies every import check.
pub fn synthetic(turns: u32) -> Session {
    use crate::engine::memory::CommitMeta;
    use crate::engine::message::WordCounter;
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
