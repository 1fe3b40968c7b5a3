use super::*;
use crate::app::workbench::{kind_of, script_for};
use crate::engine::demo::DemoScript;
use crate::engine::message::{CountTokens, WordCounter};
use crate::engine::policy::Trigger;
use crate::route::{DemoKind, Route};
use crate::view::context_window::context_window;
use crate::view::editions::cards_on_screen;

#[test]
fn rows_carry_state_and_turn_and_the_front_page_follows_the_summary() {
    let mut player = DemoPlayer::new(DemoScript::fincoach()).unwrap();
    assert!(front_page(&player).is_none());
    assert!(context_window(&player).is_none());
    player.play_all(&WordCounter).unwrap();
    let rows = message_rows(&player);
    assert_eq!(rows.len(), 12);
    assert_eq!(rows[0].state_slug(), "folded");
    assert_eq!(rows[0].role_label(), "User");
    assert_eq!(rows[11].state_slug(), "verbatim");
    assert_eq!(rows[11].turn, 6);
    assert_eq!(rows[3].tokens, Some(WordCounter.count(&rows[3].content)));
    let page = front_page(&player).unwrap();
    assert_eq!((page.cycle, page.summarised_to), (2, 4));
    assert!(page.text.contains("1,20,000"));
    let progress = progress(&player);
    assert!(progress.done);
    assert_eq!(
        progress.last_step.as_deref(),
        Some("Edition 2 printed: turns 3–4 folded into the summary.")
    );
}

#[test]
fn the_policy_panel_names_trigger_preset_facts_and_placement() {
    let panel = policy_panel(&Workbench::from_route(&Route::parse("?demo=fincoach")));
    let value = |label: &str| {
        panel
            .rows
            .iter()
            .find(|r| r.0 == label)
            .map(|r| r.1.clone())
            .unwrap()
    };
    assert_eq!(
        value("Trigger"),
        "every 4 turns: summarise once 4 turns are verbatim, keep the last 2"
    );
    assert_eq!(value("Prompt preset"), "Financial advisor");
    assert!(value("Summary goes").starts_with("as a second system message"));
    assert_eq!(
        panel.pinned,
        [
            ("salary".to_owned(), "1,20,000".to_owned()),
            ("equity".to_owned(), "equit".to_owned())
        ]
    );
    assert_eq!(
        script_for(DemoKind::Drift).slug,
        DemoKind::Drift.slug(),
        "route and script agree on the link name"
    );
    assert_eq!(kind_of(&DemoScript::fincoach()), Some(DemoKind::FinCoach));
}

#[test]
fn the_policy_panel_applies_valid_changes_to_the_conversation_on_screen_only() {
    use crate::app::policy_form::PolicyEdit;
    use crate::engine::policy::TriggerKind;
    let mut workbench = Workbench::from_route(&Route::parse("?demo=fincoach"));
    workbench.edit_policy(PolicyEdit::Number("keep", "9".into()));
    assert!(workbench.policy.error().is_some());
    assert_eq!(
        workbench.current_policy().trigger,
        Trigger::Turns {
            max_turns: 4,
            keep: 2
        },
        "an invalid value is not applied"
    );
    workbench.edit_policy(PolicyEdit::Number("max_turns", "2".into()));
    workbench.edit_policy(PolicyEdit::Number("keep", "1".into()));
    assert_eq!(
        workbench.current_policy().trigger,
        Trigger::Turns {
            max_turns: 2,
            keep: 1
        }
    );
    workbench.play_all(&WordCounter);
    assert_eq!(workbench.demo().unwrap().editions().len(), 5);
    // Reset goes back to the script's own policy, and so does the form.
    workbench.reset();
    assert_eq!(workbench.policy.number("max_turns"), "4");
    // Without a demo the panel edits the live chat's policy.
    workbench.unload();
    workbench.edit_policy(PolicyEdit::Kind(TriggerKind::Every));
    assert_eq!(
        workbench.live.memory().policy().trigger,
        Trigger::Every { n: 6 }
    );
    workbench.edit_policy(PolicyEdit::NewFact("Priya".into()));
    workbench.edit_policy(PolicyEdit::AddFact);
    assert_eq!(workbench.live.pinned().len(), 1);
    assert_eq!(policy_panel(&workbench).pinned[0].1, "Priya");
}

#[test]
fn restore_and_edit_reach_the_front_page() {
    let mut workbench = Workbench::from_route(&Route::parse("?demo=drift"));
    workbench.play_all(&WordCounter);
    let first = workbench.demo().unwrap().editions()[0].summary.clone();
    workbench.restore(1, 0, &WordCounter);
    assert_eq!(front_page(workbench.demo().unwrap()).unwrap().text, first);
    assert!(
        workbench
            .edit_summary("Never suggest equities.", 0, &WordCounter)
            .is_ok()
    );
    let page = front_page(workbench.demo().unwrap()).unwrap();
    assert_eq!(
        (page.text.as_str(), page.cycle),
        ("Never suggest equities.", 5)
    );
    assert!(workbench.edit_summary("  ", 0, &WordCounter).is_err());
    assert!(workbench.error.is_some());
}

#[test]
fn without_a_demo_restore_edit_and_the_editions_follow_the_live_memory() {
    use crate::app::live::ReplyEnd;
    use crate::engine::drift::PinnedFact;
    let mut workbench = Workbench::default();
    let policy = workbench.live.memory().policy().clone();
    workbench
        .live
        .set_policy(policy, vec![PinnedFact::phrase("one", "question 1")])
        .unwrap();
    let mut job = None;
    for n in 1..=4 {
        workbench
            .live
            .send(&format!("question {n}"), n, &WordCounter)
            .unwrap();
        job = workbench
            .live
            .finish(ReplyEnd::Complete(format!("answer {n}")), n, &WordCounter);
    }
    let job = job.expect("the 4/2 policy folds after turn 4");
    assert!(cards_on_screen(&workbench).is_empty());
    workbench.live.summary_done(
        job.id,
        Ok("The user asked question 1 and question 2.".into()),
        "m",
        5,
        &WordCounter,
    );
    let cards = cards_on_screen(&workbench);
    assert_eq!(cards.len(), 1);
    assert_eq!((cards[0].cycle, cards[0].folded.len()), (1, 4));
    assert_eq!(
        (cards[0].facts[0].phrase.as_str(), cards[0].facts[0].kept),
        ("question 1", true)
    );
    assert!(
        workbench
            .edit_summary("Only bonds.", 6, &WordCounter)
            .is_ok()
    );
    let live = Conversation::of(&workbench);
    assert_eq!(live.front_page.as_ref().unwrap().text, "Only bonds.");
    let cards = cards_on_screen(&workbench);
    assert_eq!(cards[1].facts[0].status, "lost in edition 2");
    workbench.restore(1, 7, &WordCounter);
    assert_eq!(workbench.error, None);
    let page = Conversation::of(&workbench).front_page.unwrap();
    assert_eq!(
        (page.text.as_str(), page.cycle),
        ("The user asked question 1 and question 2.", 3)
    );
    workbench.restore(9, 8, &WordCounter);
    assert!(workbench.error.is_some());
    assert!(workbench.edit_summary(" ", 8, &WordCounter).is_err());
}

#[test]
fn demo_and_live_conversations_share_one_layout() {
    use crate::app::live::{LiveSession, ReplyEnd};
    let mut player = DemoPlayer::new(DemoScript::fincoach()).unwrap();
    player.play_all(&WordCounter).unwrap();
    let demo = Conversation::of_demo(&player);
    assert_eq!((demo.folded.len(), demo.verbatim.len()), (8, 4));
    assert!(
        demo.folded
            .iter()
            .all(|r| r.marker() == "folded into the summary")
    );
    assert_eq!(demo.front_page, front_page(&player));
    assert_eq!(demo.verbatim[3].turn, 6);

    let mut live = LiveSession::default();
    live.send("hello", 1, &WordCounter).unwrap();
    live.delta("Hi th");
    let streaming = Conversation::of_live(&live);
    assert_eq!(streaming.front_page, None);
    let states: Vec<_> = streaming
        .verbatim
        .iter()
        .map(|r| (r.state.slug(), r.tokens))
        .collect();
    assert_eq!(states, [("verbatim", Some(1)), ("streaming", None)]);
    live.finish(ReplyEnd::Stopped("Hi th".into()), 2, &WordCounter);
    let stopped = Conversation::of_live(&live);
    assert_eq!(stopped.verbatim[1].state.slug(), "incomplete");
    assert_eq!(stopped.verbatim[1].tokens, Some(2));
}

#[test]
fn the_welcome_shows_until_something_starts_and_offers_each_demo() {
    let mut workbench = Workbench::default();
    assert!(shows_welcome(&workbench));
    // Every bundled demo has its button, each naming what it shows.
    let kinds: Vec<DemoKind> = WELCOME_DEMOS.iter().map(|(k, _)| *k).collect();
    assert_eq!(kinds, [DemoKind::FinCoach, DemoKind::Drift]);
    let hooks: Vec<String> = kinds.into_iter().map(welcome_hook).collect();
    assert_eq!(hooks, ["welcome-fincoach", "welcome-drift"]);
    workbench.load(DemoKind::FinCoach);
    assert!(!shows_welcome(&workbench));
    workbench.unload();
    assert!(shows_welcome(&workbench));
    // A live chat that has a message is where the user was: no welcome over it.
    workbench.live.send("hello", 0, &WordCounter).unwrap();
    assert!(!shows_welcome(&workbench));
}

#[test]
fn an_exact_policy_in_use_is_said_in_one_line() {
    use crate::engine::peers::exact;
    let mut workbench = Workbench::default();
    let rows = |w: &Workbench| policy_panel(w).rows;
    assert!(rows(&workbench).iter().all(|r| r.0 != "Exact policy"));
    let v1 = exact::langchain_v1(4_000, 20);
    workbench.import_policy(v1.clone());
    let line = rows(&workbench)
        .into_iter()
        .find(|r| r.0 == "Exact policy")
        .map(|r| r.1)
        .unwrap();
    assert_eq!(line, crate::view::policy_summary::summary_line(&v1));
    assert!(line.starts_with("checked before each request; "), "{line}");
}
