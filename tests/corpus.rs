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

/// Four turns whose sizes are easy to count by hand in words (the counter is [`WordCounter`],
/// whitespace-separated words; checked with Python's `len(s.split())`): system prompt 5,
/// turn 1 = 5 + 5 = 10, turn 2 = 5 + 5 = 10, turn 3 = 4 + 5 = 9, turn 4 = 3 + 4 = 7.
fn hand_counted() -> Session {
    let policy = Policy::new(Trigger::Manual { keep: 4 }).unwrap();
    let mut memory = MemoryState::new("You are a budgeting coach.", policy).unwrap();
    let turns = [
        ("My rent is 900 euros.", "Noted, rent is 900 euros."),
        ("I earn 4200 a month.", "Then save 600 each month."),
        ("Should I buy bonds?", "Yes, buy bonds with 300."),
        ("And the rest?", "Keep it in cash."),
    ];
    for (t, (user, reply)) in turns.into_iter().enumerate() {
        for (role, text) in [(Role::User, user), (Role::Assistant, reply)] {
            memory
                .add_message(Message::new(role, text, &WordCounter, t as u64))
                .unwrap();
        }
    }
    Session::new("Hand", SessionSettings::default(), memory)
}

/// A row's calls and token columns against figures worked out by hand, not with the schedule.
/// Turn t's chat request is the system prompt, the summary once there is one (the dry run's
/// assumed 150), the verbatim turns before t and t's user message; a summariser call reads
/// the assumed 100-token instructions, the previous summary (150, a progressive fold) and the
/// turns it folds, and writes the assumed 150.
///
/// "Every 4 messages" (the LangGraph lesson): the count reaches 4 in turn 2 and 8 in turn 4;
/// each time every verbatim turn but the latest folds: turn 1, then turns 2-3. 2 calls.
/// Requests: 5+5 = 10, 5+10+5 = 20, 5+150+10+4 = 169, 5+150+(10+9)+3 = 177: chat 376, largest
/// 177. Summariser in: (100+0+10) + (100+150+10+9) = 110 + 269 = 379; out 2 × 150 = 300.
///
/// "langchain-summary-buffer" (a 2,000-token buffer) measures with the chat format, as
/// `ChatOpenAI.get_num_tokens_from_messages` counts (OpenAI's cookbook): each message is 3
/// framing tokens, its role (one word here) and its content; each request adds 3 to prime the
/// reply. So the system prompt is 3+1+5 = 9, turn 1's messages 9 and 9, turn 2's 9 and 9,
/// turn 3's 8 and 9, turn 4's user message 7. The buffer never passes 2,000, so nothing folds.
/// Requests: 9+9+3 = 21, 9+(9+9)+9+3 = 39, 9+36+8+3 = 56, 9+36+(8+9)+7+3 = 72: chat 188,
/// largest 72, no summariser tokens.
#[test]
fn a_rows_calls_and_tokens_are_the_figures_worked_out_by_hand() {
    let session = hand_counted();
    let columns = [
        Column::new(
            YOURS,
            "Every 4",
            Policy::new(Trigger::Every { n: 4 }).unwrap(),
        )
        .unwrap(),
        Column::preset("langchain-summary-buffer", 128_000).unwrap(),
    ];
    let settings = CorpusSettings {
        replay: false,
        ..CorpusSettings::default()
    };
    let rows = measure("hand", 0, &session, &columns, &settings, &WordCounter).unwrap();
    let got: Vec<[u64; 6]> = rows
        .iter()
        .map(|r| {
            [
                u64::from(r.turns),
                u64::from(r.summariser_calls),
                r.chat_tokens,
                r.summariser_tokens_in,
                r.summariser_tokens_out,
                r.largest_request,
            ]
        })
        .collect();
    // Turns, calls, chat tokens, summariser in, summariser out, largest request.
    let hand: [[u64; 6]; 2] = [[4, 2, 376, 379, 300, 177], [4, 0, 188, 0, 0, 72]];
    assert_eq!(got, hand);
}
