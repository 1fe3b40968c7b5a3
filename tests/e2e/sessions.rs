//! Sessions: import a file, inspect it offline, export it again, keep it across a reload, refuse
//! a broken file, never export the API key, and load the app with the server gone.

use serde_json::Value;
use summary_memory::engine::edition::Provenance;
use summary_memory::engine::library_session::Session;
use summary_memory::engine::message::WordCounter;
use summary_memory::engine::policy::{Policy, Trigger};
use summary_memory::engine::session::fixture::Scripted;
use summary_memory::engine::session::{export, synthetic};

use summary_memory::view::inspect::InspectView;

use crate::harness::{Browser, StoppableApp, TempDir};
use crate::pages::inspect::{InspectPage, StoredSessions};
use crate::pages::query;
use crate::pages::settings::SettingsPage;

/// Three turns under "summarise at 2, keep 1": two editions, turns 1 and 2 folded.
pub(crate) fn played() -> Session {
    Scripted {
        name: "Aarav's plan".into(),
        summaries: vec![
            "Aarav wants no equities.".into(),
            "Aarav keeps to bonds.".into(),
        ],
        model: Some("m".into()),
        provenance: Provenance::Model,
        ..Scripted::default()
    }
    .play(3)
}

#[tokio::test]
async fn an_imported_session_is_listed_inspected_exported_and_kept_across_a_reload() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let session = played();
    let file = export(&session, 5, "0.1.0");
    let path = dir.write("aarav.json", &file);

    let inspect = InspectPage::open(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(1).await;
    query::wait_count(&browser, "message", 6).await;
    let name = browser
        .wait_testid("session-title")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(name, "Aarav's plan");
    // Read in one script: the virtualised rows may be rebuilt between two WebDriver calls (the
    // vocabulary arriving recounts the session).
    let states = inspect.archive().await.message_states().await;
    assert_eq!(
        states,
        [
            "folded", "folded", "folded", "folded", "verbatim", "verbatim"
        ]
    );
    inspect.show("editions").await;
    assert_eq!(browser.count_testid("edition").await, 2);
    let afters = inspect.editions().await.summaries().await;
    assert_eq!(
        afters,
        ["Aarav wants no equities.", "Aarav keeps to bonds."]
    );
    let fact = browser.wait_testid("fact").await;
    assert_eq!(
        fact.attr("data-kept").await.unwrap().as_deref(),
        Some("false")
    );
    // The replay starts from the recorded trigger, so it finds the same two cycles.
    inspect.show("replay").await;
    assert_eq!(
        browser
            .wait_testid("replay-calls")
            .await
            .text()
            .await
            .unwrap(),
        "2"
    );
    // Beside it, the replay's chart (full history, sliding window, summary memory) and the
    // stacked bar of one request, at the last turn to start with, then at the turn typed in.
    inspect.replay().await.wait_lines(3).await;
    let view = InspectView::new(&session, &WordCounter);
    let replay = view.replay(&session, view.trigger.clone()).unwrap();
    for turn in [3, 1] {
        if turn != 3 {
            inspect.replay().await.choose_turn(turn).await;
        }
        let expect = view.context_at(&replay, turn).unwrap();
        inspect.replay().await.wait_last_request_turn(turn).await;
        let bar = browser.wait_testid("last-request").await;
        assert_eq!(
            bar.attr("data-summary-sent").await.unwrap().as_deref(),
            Some(expect.summary_sent.to_string().as_str())
        );
        let mut labels = Vec::new();
        for segment in browser.all_testid("context-segment").await {
            let text = segment.text().await.unwrap();
            labels.push(text.split(" · ").next().unwrap_or_default().to_owned());
        }
        let expect: Vec<String> = expect.segments.into_iter().map(|s| s.label).collect();
        assert_eq!(labels, expect, "turn {turn}");
    }

    // Export, then compare the session part (the envelope's time differs) with the original.
    let out: Value = serde_json::from_str(&inspect.export().await).unwrap();
    let original: Value = serde_json::from_str(&file).unwrap();
    assert_eq!(out["format"], original["format"]);
    assert_eq!(out["session"], original["session"]);

    // IndexedDB keeps it across a reload, once the save has landed.
    StoredSessions::new(&browser).wait_count(1).await;
    let inspect = InspectPage::open(&browser).await;
    inspect.wait_sessions(1).await;
    assert_eq!(
        browser
            .wait_testid("session-name")
            .await
            .text()
            .await
            .unwrap(),
        "Aarav's plan"
    );
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

/// Five turns under "summarise once over 4 verbatim messages": a message-count trigger.
fn counted() -> Session {
    Scripted {
        name: "Counted".into(),
        policy: Policy::new(Trigger::MessageCount { max_messages: 4 }).unwrap(),
        summaries: vec!["Summary of the early turns.".into()],
        model: Some("m".into()),
        provenance: Provenance::Model,
        ..Scripted::default()
    }
    .play(5)
}

/// A session recorded under a message-count trigger was replayed as "every N messages", a
/// different trigger, because the replay's form had no message-count kind.
#[tokio::test]
async fn a_message_count_session_replays_under_message_count() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let session = counted();
    let path = dir.write("counted.json", &export(&session, 5, "0.1.0"));
    let view = InspectView::new(&session, &WordCounter);
    let recorded = view.replay(&session, view.trigger.clone()).unwrap();
    let every = view.replay(&session, Trigger::Every { n: 4 }).unwrap();
    assert_ne!(
        recorded.schedule.rows, every.schedule.rows,
        "the fixture tells the two triggers apart"
    );

    // The open session is recounted (and redrawn) once the vocabulary arrives: import after
    // that, so no element read below is replaced while it is read.
    let inspect = InspectPage::open_counted(&browser).await;
    inspect.import(&path).await;
    inspect.show("replay").await;
    let calls = browser
        .wait_testid("replay-calls")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(calls, recorded.schedule.calls.to_string());
    let kind = inspect.replay().await.trigger().await;
    assert_eq!(kind.as_deref(), Some("messages"));
    let a = browser.wait_testid("replay-a").await;
    assert_eq!(a.prop("value").await.unwrap().as_deref(), Some("4"));
    // Every row fires where the recorded trigger fires, not where "every 4" would.
    let summarised = inspect.replay().await.summarised_to().await;
    let expect: Vec<String> = recorded.schedule.rows[..summarised.len()]
        .iter()
        .map(|r| r.summarised_to.to_string())
        .collect();
    assert_eq!(summarised, expect);
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

#[tokio::test]
async fn a_malformed_file_shows_what_is_wrong_and_changes_nothing() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let good = dir.write("good.json", &export(&played(), 5, "0.1.0"));
    let mut broken: Value = serde_json::from_str(&export(&played(), 5, "0.1.0")).unwrap();
    broken["session"]["editions"][1]["cycle"] = 7.into();
    let broken = dir.write("broken.json", &broken.to_string());
    let not_json = dir.write("notes.json", "{ this is not json");

    let inspect = InspectPage::open(&browser).await;
    inspect.import(&good).await;
    inspect.wait_sessions(1).await;
    inspect.import(&broken).await;
    let error = browser.wait_testid("error").await;
    assert_eq!(error.attr("role").await.unwrap().as_deref(), Some("alert"));
    let text = error.text().await.unwrap();
    assert!(text.contains("session.editions[1].cycle"), "{text}");
    assert!(text.contains("nothing changed"), "{text}");
    assert_eq!(browser.count_testid("session-item").await, 1);

    inspect.import(&not_json).await;
    inspect
        .wait_error_contains("not valid JSON", "the JSON error")
        .await;
    assert_eq!(browser.count_testid("session-item").await, 1);
    browser.close().await;
}

#[tokio::test]
async fn the_api_key_never_appears_in_an_export() {
    const KEY: &str = "sk-e2e-never-exported";
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let path = dir.write("s.json", &export(&played(), 5, "0.1.0"));

    browser.open("?tab=settings").await;
    browser
        .wait_testid("api-key")
        .await
        .send_keys(KEY)
        .await
        .unwrap();
    let inspect = InspectPage::click_tab(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(1).await;
    // The key is still set in Settings: the export could have taken it, and must not.
    let one = inspect.export().await;
    assert!(one.contains("summary-memory-session"), "{one}");
    assert!(!one.contains(KEY));
    let key_kept = SettingsPage::new(&browser).session_key().await;
    assert_eq!(key_kept.as_deref(), Some(KEY));
    browser.close().await;
}

#[tokio::test]
async fn after_the_first_visit_the_app_loads_with_the_server_gone() {
    let browser = Browser::new().await;
    let mut app = StoppableApp::start();
    let url = format!(
        "{}?tab=tuner&trigger=turns&max_turns=4&keep=2&turns=10",
        app.url
    );
    browser.client.goto(&url).await.unwrap();
    browser.wait_testid("summariser-calls").await;
    query::wait_controlled(&browser).await;

    app.stop();
    assert!(nothing_listens_at(&app.url), "the server still answers");
    browser.client.goto(&url).await.unwrap();
    let calls = browser
        .wait_testid("summariser-calls")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(calls, "4");
    assert_eq!(browser.count_testid("schedule-row").await, 10);
    // Other tabs still open with no network.
    browser.click_testid("tab-inspect").await;
    browser.wait_testid("import-file").await;
    browser.close().await;
}

#[tokio::test]
async fn the_undo_of_a_delete_survives_a_reload() {
    let browser = Browser::new().await;
    let stored = StoredSessions::new(&browser);
    let dir = TempDir::new();
    let path = dir.write("aarav.json", &export(&played(), 5, "0.1.0"));

    let inspect = InspectPage::open(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(1).await;
    stored.wait_one(false).await;
    inspect.library().await;
    browser.click_testid("session-delete").await;
    inspect.wait_sessions(0).await;
    browser.wait_testid("undo-delete").await;
    // The deleted session is kept in storage, marked deleted, until the undo is given up.
    stored.wait_one(true).await;

    let inspect = InspectPage::open(&browser).await;
    let undo = browser.wait_testid("undo-delete").await;
    let notice = browser
        .client
        .find(fantoccini::Locator::Css("p.undo"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(notice.contains("Aarav's plan"), "{notice}");
    assert_eq!(browser.count_testid("session-item").await, 0);
    undo.click().await.unwrap();
    inspect.wait_sessions(1).await;
    query::wait_count(&browser, "message", 6).await;
    stored.wait_one(false).await;

    // Back for good: after another reload it is listed and there is nothing to undo.
    let inspect = InspectPage::open(&browser).await;
    inspect.wait_sessions(1).await;
    assert_eq!(browser.count_testid("undo-delete").await, 0);

    // Dismissing the undo removes the record.
    browser.click_testid("session-delete").await;
    browser.click_testid("undo-dismiss").await;
    stored.wait_count(0).await;
    let inspect = InspectPage::open(&browser).await;
    inspect.wait_sessions(0).await;
    assert_eq!(browser.count_testid("undo-delete").await, 0);
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

#[tokio::test]
async fn two_tabs_never_silently_overwrite_each_other() {
    let browser = Browser::new().await;
    let stored = StoredSessions::new(&browser);
    let dir = TempDir::new();
    let path = dir.write("aarav.json", &export(&played(), 5, "0.1.0"));
    let inspect = InspectPage::open(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(1).await;
    stored.wait_count(1).await;
    let a = browser.client.window().await.unwrap();
    let b = browser.client.new_window(true).await.unwrap().handle;
    browser.client.switch_to_window(b.clone()).await.unwrap();
    let inspect = InspectPage::open(&browser).await;
    inspect.wait_names(&["Aarav's plan"]).await;

    // A saves a change; B has none of its own, so it shows A's version and says so.
    browser.client.switch_to_window(a.clone()).await.unwrap();
    inspect.rename("Renamed in A").await;
    inspect.wait_names(&["Renamed in A"]).await;
    browser.client.switch_to_window(b.clone()).await.unwrap();
    inspect.wait_names(&["Renamed in A"]).await;
    let notice = browser
        .wait_testid("remote-notice")
        .await
        .text()
        .await
        .unwrap();
    assert!(notice.contains("changed in another tab"), "{notice}");
    assert_eq!(browser.count_testid("remote-keep-copy").await, 0);
    browser.click_testid("remote-dismiss").await;

    // The stored record changes behind B's back (as if a message were lost); B's own rename is
    // then refused, and B offers both versions instead of overwriting either: first B takes
    // the stored one, then, after another such change, keeps its own as a copy.
    assert!(stored.bump(1, Some("Changed elsewhere")).await);
    inspect.rename("Renamed in B").await;
    browser.click_testid("remote-reload").await;
    inspect.wait_names(&["Changed elsewhere"]).await;
    assert_eq!(browser.count_testid("remote-notice").await, 0);

    assert!(stored.bump(1, Some("Changed again")).await);
    inspect.rename("Renamed in B").await;
    browser.click_testid("remote-keep-copy").await;
    inspect
        .wait_names(&["Changed again", "Renamed in B (copy)"])
        .await;
    stored.wait_count(2).await;
    // A hears of the copy and lists it too.
    browser.client.switch_to_window(a).await.unwrap();
    inspect.wait_sessions(2).await;
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn a_five_thousand_turn_session_opens_with_few_rows_and_the_keyboard_reaches_its_last_turn() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let path = dir.write("long.json", &export(&synthetic(5_000), 5, "0.1.0"));

    let inspect = InspectPage::open(&browser).await;
    inspect.import(&path).await;
    browser.wait_testid("session-detail").await;
    browser.wait_testid("message").await;
    let detail = browser
        .wait_testid("session-detail")
        .await
        .text()
        .await
        .unwrap();
    assert!(detail.contains("Archive (5000 turns)"), "{detail:.300}");
    inspect.show("editions").await;
    inspect.show("replay").await;
    // Virtualised: a window of rows, not 10,000 messages, 1,249 editions and 5,000 replay rows.
    let (messages, editions, replay) = (
        browser.count_testid("message").await,
        browser.count_testid("edition").await,
        browser.count_testid("replay-row").await,
    );
    assert!(
        (1..100).contains(&messages),
        "{messages} message rows in the page"
    );
    assert!(
        (1..40).contains(&editions),
        "{editions} edition rows in the page"
    );
    assert!(
        (1..100).contains(&replay),
        "{replay} replay rows in the page"
    );
    assert_eq!(
        browser
            .wait_testid("message")
            .await
            .attr("data-turn")
            .await
            .unwrap()
            .as_deref(),
        Some("1")
    );

    // The archive's scroll box takes the keyboard: End goes to the bottom, where the last
    // turn's reply is rendered and in view.
    let text = inspect.archive().await.scroll_to_end(5000).await;
    assert!(text.contains("For turn 5000:"), "{text}");
    let messages = browser.count_testid("message").await;
    assert!(messages < 100, "{messages} message rows after scrolling");
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "{errors:?}");
    browser.close().await;
}

/// True when nothing listens at `url` any more.
fn nothing_listens_at(url: &str) -> bool {
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    std::net::TcpStream::connect(addr).is_err()
}
