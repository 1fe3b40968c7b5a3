use super::*;
use crate::app::live::ReplyEnd;
use crate::app::policy_form::PolicyEdit;
use crate::engine::message::{CountTokens, WordCounter};

/// Two tokens a word: a counter that disagrees with [`WordCounter`] on every text.
struct Doubling;

impl CountTokens for Doubling {
    fn count(&self, text: &str) -> u32 {
        2 * WordCounter.count(text)
    }
}

#[test]
fn recounting_replays_the_demo_to_the_same_step_with_the_new_counter() {
    let mut workbench = Workbench::default();
    workbench.load(DemoKind::FinCoach);
    for _ in 0..9 {
        workbench.step(&WordCounter);
    }
    let before = workbench.demo().unwrap().events().to_vec();
    workbench.recount(&Doubling);
    let player = workbench.demo().unwrap();
    assert_eq!(player.events(), before.as_slice());
    let rows = workbench.on_screen().rows();
    assert!(!rows.is_empty());
    for row in rows {
        assert_eq!(
            row.tokens,
            Some(Doubling.count(&row.content)),
            "{}",
            row.content
        );
    }
    // Nothing to recount before the first step, and no demo is no error.
    let mut fresh = Workbench::default();
    fresh.recount(&Doubling);
    fresh.load(DemoKind::Drift);
    fresh.recount(&Doubling);
    assert_eq!(fresh.demo().unwrap().events().len(), 0);
    assert_eq!(fresh.error, None);
}

#[test]
fn the_workbench_loads_from_the_link_steps_plays_and_resets() {
    let mut workbench = Workbench::from_route(&Route::parse("?demo=drift"));
    assert_eq!(workbench.demo_kind(), Some(DemoKind::Drift));
    workbench.step(&WordCounter);
    workbench.step(&WordCounter);
    let player = workbench.demo().unwrap();
    assert_eq!(player.memory().archive().len(), 2);
    workbench.play_all(&WordCounter);
    assert_eq!(workbench.demo().unwrap().editions().len(), 3);
    // A step after the end changes nothing and is not an error.
    workbench.step(&WordCounter);
    assert!(workbench.error.is_none());
    workbench.reset();
    let player = workbench.demo().unwrap();
    assert!(player.memory().archive().is_empty());
    assert_eq!(workbench.demo_kind(), Some(DemoKind::Drift));
    workbench.load(DemoKind::FinCoach);
    assert_eq!(workbench.demo_kind(), Some(DemoKind::FinCoach));
    workbench.unload();
    assert!(workbench.demo().is_none());
    assert!(Workbench::from_route(&Route::parse("")).demo().is_none());
}

#[test]
fn the_last_actions_error_wins_over_the_live_chats_own() {
    let mut workbench = Workbench::default();
    workbench.live.send("hello", 1, &WordCounter).unwrap();
    workbench.live.finish(
        ReplyEnd::Failed {
            partial: String::new(),
            error: "Rate limited.".into(),
        },
        2,
        &WordCounter,
    );
    assert_eq!(workbench.error_shown().as_deref(), Some("Rate limited."));
    assert!(workbench.can_retry());
    // An action that fails says why, in place of the waiting one.
    workbench.restore(9, 3, &WordCounter);
    let shown = workbench.error_shown().unwrap();
    assert_ne!(shown, "Rate limited.");
    assert_eq!(
        Some(shown),
        workbench.error.as_ref().map(ToString::to_string)
    );
    // A demo on screen shows only its own actions' errors, and offers no Retry.
    workbench.load(DemoKind::FinCoach);
    assert_eq!(workbench.error_shown(), None);
    assert!(!workbench.can_retry());
    workbench.unload();
    assert_eq!(workbench.error_shown().as_deref(), Some("Rate limited."));
    // Nothing to retry while a reply is being written.
    workbench.live.retry(&WordCounter).unwrap();
    assert!(!workbench.can_retry());
}

#[test]
fn running_a_demo_live_leaves_it_and_sends_its_first_message() {
    let mut workbench = Workbench::default();
    assert_eq!(
        workbench.run_live(1, &WordCounter),
        None,
        "no demo, nothing to run"
    );
    workbench.load(DemoKind::FinCoach);
    workbench.edit_policy(PolicyEdit::Number("max_turns", "3".into()));
    let Some(LiveAction::Reply(messages)) = workbench.run_live(2, &WordCounter) else {
        panic!("the first queued message is sent");
    };
    assert!(workbench.is_live());
    let script = script_for(DemoKind::FinCoach);
    assert_eq!(messages.last().unwrap().content, script.turns[0].0);
    assert_eq!(workbench.live.queued(), script.turns.len() - 1);
    // The live run takes the script's own policy, and the panel shows it.
    assert_eq!(workbench.current_policy(), &script.policy);
    assert_eq!(workbench.policy.number("max_turns"), "4");
}

#[test]
fn a_refused_edit_says_why_and_an_accepted_one_clears_the_error() {
    let mut workbench = Workbench::from_route(&Route::parse("?demo=drift"));
    workbench.play_all(&WordCounter);
    let refused = workbench.edit_summary("  ", 0, &WordCounter).unwrap_err();
    assert_eq!(workbench.error.as_ref(), Some(&refused));
    assert!(matches!(refused, ChatError::Demo(_)));
    workbench
        .edit_summary("Never suggest equities.", 0, &WordCounter)
        .unwrap();
    assert_eq!(workbench.error, None);
}

#[test]
fn demos_default_to_the_scripted_summariser_and_switch_by_replaying() {
    use crate::engine::demo::DemoSummariser;
    use crate::engine::scripted::scripted_editions;
    let mut workbench = Workbench::from_route(&Route::parse("?demo=drift"));
    assert_eq!(workbench.demo_summariser(), DemoSummariser::Scripted);
    for _ in 0..10 {
        workbench.step(&WordCounter);
    }
    let texts = |w: &Workbench| -> Vec<String> {
        w.demo()
            .unwrap()
            .editions()
            .iter()
            .map(|e| e.summary.clone())
            .collect()
    };
    let script: Vec<String> = scripted_editions("drift")
        .iter()
        .take(2)
        .map(|e| e.text.to_owned())
        .collect();
    assert_eq!(texts(&workbench), script);
    let events = workbench.demo().unwrap().events().to_vec();
    workbench.set_demo_summariser(DemoSummariser::Extractive, &WordCounter);
    assert_eq!(workbench.demo().unwrap().events(), events.as_slice());
    assert_ne!(texts(&workbench), script);
    assert!(workbench.on_screen().summariser().contains("extractive"));
    // A demo loaded later keeps the choice.
    workbench.load(DemoKind::FinCoach);
    assert_eq!(
        workbench.demo().unwrap().summariser(),
        DemoSummariser::Extractive
    );
    assert_eq!(workbench.error, None);
}

#[test]
fn summarise_now_prints_a_demo_edition_and_asks_the_live_summariser() {
    let mut workbench = Workbench::from_route(&Route::parse("?demo=fincoach"));
    // Nothing to fold yet: the refusal is shown, nothing changes.
    assert_eq!(workbench.summarise_now(&WordCounter), None);
    assert!(workbench.error.is_some());
    for _ in 0..6 {
        workbench.step(&WordCounter);
    }
    assert!(workbench.demo().unwrap().editions().is_empty());
    assert_eq!(workbench.summarise_now(&WordCounter), None);
    assert_eq!(workbench.error, None);
    assert_eq!(workbench.demo().unwrap().editions().len(), 1);

    let mut live = Workbench::default();
    for turn in 0..3u64 {
        live.live.send("hello there", turn, &WordCounter).unwrap();
        live.live
            .finish(ReplyEnd::Complete("hi".into()), turn, &WordCounter);
    }
    match live.summarise_now(&WordCounter) {
        Some(LiveAction::Summary(job)) => assert!(live.live.is_summarising() && job.id > 0),
        other => panic!("expected a summary job, got {other:?}"),
    }
    // A second press while that job runs is refused.
    assert_eq!(live.summarise_now(&WordCounter), None);
    assert!(live.error.is_some());
}

/// Run live or a demo pick while the live chat's reply was streaming replaced the live chat
/// under the request in flight, whose deltas then landed in the new conversation: both are
/// refused until that request ends (or the user presses Stop).
#[test]
fn a_demo_pick_or_run_live_waits_for_the_live_request_in_flight() {
    let mut workbench = Workbench::default();
    assert!(workbench.send("hello", 1, &WordCounter).is_some());
    assert!(workbench.live.is_streaming());
    assert!(!workbench.pick(Some(DemoKind::FinCoach)));
    assert!(workbench.is_live(), "the live chat stays on screen");
    let refusal = workbench.error_shown().unwrap();
    assert!(refusal.contains("press Stop first"), "{refusal}");
    // Going back to the live chat is always allowed.
    assert!(workbench.pick(None));

    // A demo loaded before the reply started: Run live is refused while it streams.
    workbench.live.delta("Hi");
    workbench.load(DemoKind::FinCoach);
    assert_eq!(workbench.run_live(2, &WordCounter), None);
    assert!(!workbench.is_live(), "the demo stays");
    assert_eq!(workbench.live.memory().archive()[0].content, "hello");
    assert!(workbench.live.is_streaming());

    // Once the reply is in, both work.
    workbench
        .live
        .finish(ReplyEnd::Complete("Hi".into()), 3, &WordCounter);
    assert!(workbench.run_live(4, &WordCounter).is_some());
    assert!(workbench.is_live());
    // The demo run live is streaming its first reply now.
    assert!(!workbench.pick(Some(DemoKind::Drift)));
    workbench
        .live
        .finish(ReplyEnd::Stopped("Hel".into()), 5, &WordCounter);
    assert!(workbench.pick(Some(DemoKind::Drift)));
    assert_eq!(workbench.demo_kind(), Some(DemoKind::Drift));
}

#[test]
fn send_while_a_summary_runs_keeps_the_reason_and_sends_nothing() {
    let mut workbench = Workbench::default();
    for n in 0..4 {
        workbench.send(&format!("q{n}"), n, &WordCounter).unwrap();
        workbench
            .live
            .finish(ReplyEnd::Complete(format!("a{n}")), n, &WordCounter);
    }
    assert!(workbench.live.is_summarising());
    assert_eq!(workbench.send("next", 9, &WordCounter), None);
    assert!(
        workbench
            .error_shown()
            .unwrap()
            .contains("A summary is being written")
    );
    assert_eq!(workbench.live.memory().archive().len(), 8);
    // Once the summary is in, the refusal is no longer shown.
    let job = workbench.live.memory().in_flight().unwrap().id;
    workbench
        .live
        .summary_done(job, Ok("S.".into()), "m", 10, &WordCounter);
    assert_eq!(workbench.error_shown(), None);
    // A demo on screen sends nothing either.
    workbench.load(DemoKind::Drift);
    assert_eq!(workbench.send("next", 9, &WordCounter), None);
}

#[test]
fn leaving_the_longest_message_out_marks_its_row_and_can_be_undone() {
    let mut workbench = Workbench::default();
    workbench.send("short", 1, &WordCounter).unwrap();
    workbench.live.finish(
        ReplyEnd::Complete("a much longer reply than the question".into()),
        2,
        &WordCounter,
    );
    workbench.exclude_longest();
    let rows = workbench.on_screen().rows();
    assert_eq!(
        rows.iter().map(|r| r.excluded).collect::<Vec<_>>(),
        [false, true]
    );
    workbench.set_excluded(1, false);
    assert!(!workbench.on_screen().rows()[1].excluded);
    workbench.set_excluded(7, true);
    assert!(workbench.error_shown().unwrap().contains("no message 7"));
}
