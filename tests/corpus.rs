//! The corpus comparison's replay columns are what Inspect shows for the same replay: the
//! session `replay_offline` makes, its last edition checked as the Editions cards check it
//! (`view::editions::edition_checks`), and its summariser tokens as the live replay's estimate
//! counts them.

use summary_memory::engine::checks::Verdict;
use summary_memory::engine::corpus::{Column, CorpusSettings, YOURS, measure};
use summary_memory::engine::library_session::{Session, SessionSettings};
use summary_memory::engine::memory::MemoryState;
use summary_memory::engine::message::{Message, Role, WordCounter};
use summary_memory::engine::policy::{Policy, Trigger};
use summary_memory::engine::replay::{estimate, replay_offline};
use summary_memory::view::editions::edition_checks;

/// A chat of `turns` turns full of figures, dates and rules, nothing folded yet.
fn chat(turns: usize) -> Session {
    let policy = Policy::new(Trigger::Manual { keep: 4 }).unwrap();
    let mut memory = MemoryState::new("You are a careful budgeting coach.", policy).unwrap();
    for t in 0..turns {
        let user = format!(
            "Turn {t}: I never want crypto, and on 3 March I paid {} in rent. Should I move {} to the bond fund?",
            900 + t * 17,
            40 + t * 3
        );
        let reply = format!(
            "Keep the emergency fund at {} first. You must not touch the ISA before April; move {} to savings, then {} to the bond fund.",
            3000 + t,
            40 + t * 3,
            25 + t
        );
        for (role, text) in [(Role::User, user), (Role::Assistant, reply)] {
            memory
                .add_message(Message::new(role, text, &WordCounter, t as u64))
                .unwrap();
        }
    }
    Session::new("Budget", SessionSettings::default(), memory)
}

#[test]
fn the_replay_columns_are_inspects_checks_on_the_last_edition_of_the_same_replay() {
    let session = chat(24);
    let mut checked = 0;
    for policy in [
        Policy::new(Trigger::Turns {
            max_turns: 4,
            keep: 1,
        })
        .unwrap(),
        Policy::new(Trigger::Every { n: 3 }).unwrap(),
        Column::preset("langchain-summary-buffer", 128_000)
            .unwrap()
            .policy,
    ] {
        let column = Column::new(YOURS, "Yours", policy.clone()).unwrap();
        let settings = CorpusSettings::default();
        let row = &measure("s", 0, &session, &[column], &settings, &WordCounter).unwrap()[0];

        let replayed = replay_offline(&session, policy.clone(), &WordCounter, "r").unwrap();
        let Some(last) = edition_checks(&replayed.memory, &replayed.pinned).pop() else {
            assert_eq!(
                (row.facts_lost, row.rules_lost, row.unsourced_figures),
                (0, 0, 0)
            );
            continue;
        };
        let s = &last.survival;
        let facts =
            s.figures.missing().count() + s.names.missing().count() + s.dates.missing().count();
        let rules = last
            .rules
            .iter()
            .filter(|c| c.verdict != Verdict::Kept)
            .count();
        assert_eq!(row.facts_lost as usize, facts, "{policy:?}");
        assert_eq!(row.rules_lost as usize, rules, "{policy:?}");
        assert_eq!(row.unsourced_figures as usize, last.unsourced.len());
        let cost = estimate(&session, policy.clone(), &WordCounter, None).unwrap();
        assert_eq!(row.summariser_tokens_in, cost.tokens_sent);
        assert_eq!(Some(row.summariser_tokens_out), cost.tokens_received);
        checked += usize::from(facts + rules > 0);
    }
    assert!(
        checked > 0,
        "some replay lost something, so the columns are not all zeros"
    );
}
