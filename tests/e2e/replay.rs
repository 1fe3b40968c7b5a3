//! Inspect's replay under a whole policy: trigger, placement and fold mode changed, the session
//! replayed offline with the extractive summariser, and its editions kept as a new session;
//! the same replay live against the loopback test server (priced first, stopped, failed and
//! resumed, saved).

use std::time::Duration;

use serde_json::json;
use summary_memory::engine::session::{export, synthetic};

use crate::harness::{Browser, TempDir};
use crate::openai_server::{Reply, TestServer};
use crate::pages::chat::{ChatPage, Setup};
use crate::pages::inspect::InspectPage;
use crate::pages::query;

#[tokio::test]
async fn a_replay_under_another_placement_and_fold_mode_shows_new_editions_and_saves_them() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    // Twelve turns under "summarise at 8, keep 4": two recorded editions.
    let path = dir.write("twelve.json", &export(&synthetic(12), 5, "0.1.0"));
    let inspect = InspectPage::open_counted(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(1).await;
    inspect.show("editions").await;
    assert_eq!(
        browser.count_testid("edition").await,
        2,
        "the recorded editions"
    );
    inspect.show("replay").await;

    // Summarise at 2 turns, keep 1, the summary as a user message, rebuilt from the archive.
    browser.set_field("replay-a", "2").await;
    browser.set_field("replay-b", "1").await;
    browser
        .wait_testid("replay-placement")
        .await
        .select_by_value("user_ack")
        .await
        .unwrap();
    browser
        .wait_testid("replay-fold")
        .await
        .select_by_value("rebuild")
        .await
        .unwrap();
    // The dry run follows: folds after every turn from the second.
    inspect
        .replay()
        .await
        .wait_calls(11, "eleven summariser calls in the dry run")
        .await;
    browser.click_testid("replay-run").await;
    query::wait_count(&browser, "replay-edition", 11).await;
    let rebuilt = inspect.replay().await.every_edition_rebuilt().await;
    assert!(
        rebuilt,
        "every replayed edition was rebuilt from the archive"
    );

    inspect.replay().await.save("(replayed)").await;
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "{errors:?}");
    browser.close().await;
}

#[tokio::test]
async fn an_invalid_replay_policy_is_named_and_cannot_run() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let inspect = InspectPage::twelve_turns_on_replay(&browser, &dir, false).await;
    browser.set_field("replay-word_limit", "0").await;
    inspect
        .replay()
        .await
        .wait_error("word limit", "the word limit named")
        .await;
    let disabled = browser
        .wait_testid("replay-run")
        .await
        .prop("disabled")
        .await
        .unwrap();
    assert_eq!(disabled.as_deref(), Some("true"));
    browser.close().await;
}

/// A number typed wrong stays in its field, is named beside it, and stops the replay until it
/// is fixed.
#[tokio::test]
async fn a_number_typed_wrong_is_kept_and_named_beside_its_field_until_fixed() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    InspectPage::twelve_turns_on_replay(&browser, &dir, false).await;
    let run_disabled = || async {
        browser
            .wait_testid("replay-run")
            .await
            .prop("disabled")
            .await
            .unwrap()
    };
    browser.set_field("replay-a", "2.5").await;
    browser
        .wait_text_contains("replay-a-error", "\"2.5\"", "the field's own error")
        .await;
    assert_eq!(browser.value_of("replay-a").await, "2.5");
    assert_eq!(run_disabled().await.as_deref(), Some("true"));
    // Fixed: 9 turns, above the session's 4 kept.
    browser.set_field("replay-a", "9").await;
    browser
        .wait_gone("replay-a-error", "the error gone once the field is fixed")
        .await;
    assert_eq!(run_disabled().await.as_deref(), Some("false"));
    browser.close().await;
}

/// The chat completion requests the test server received.
fn completions(server: &TestServer) -> Vec<serde_json::Value> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path == "/v1/chat/completions")
        .map(|r| r.body)
        .collect()
}

/// Connects Settings to the test server, then imports the twelve-turn session in Inspect and
/// sets the replay to "summarise at 4 turns, keep 2". Returns the dry run's summariser calls.
async fn live_replay_ready(browser: &Browser, server: &TestServer, dir: &TempDir) -> usize {
    ChatPage::connect(browser, Setup::new(&server.base_url)).await;
    InspectPage::twelve_turns_at_four_two(browser, dir).await
}

#[tokio::test]
async fn a_live_replay_is_priced_first_then_its_model_written_editions_save_as_a_new_session() {
    let server = TestServer::start().await;
    let calls = 5;
    server.script((1..=calls).map(|k| {
        Reply::Text(format!(
            "Live summary {k}: the user saves weekly and holds no equities."
        ))
    }));
    let browser = Browser::new().await;
    let dir = TempDir::new();
    assert_eq!(live_replay_ready(&browser, &server, &dir).await, calls);
    let inspect = InspectPage::new(&browser);

    // The price comes first, and nothing is sent for it.
    browser.click_testid("replay-live").await;
    let estimate = browser.wait_testid("replay-live-estimate").await;
    assert_eq!(
        estimate.attr("data-calls").await.unwrap().as_deref(),
        Some("5")
    );
    let sent: u64 = estimate
        .attr("data-sent")
        .await
        .unwrap()
        .unwrap()
        .parse()
        .unwrap();
    assert!(sent > 0, "the tokens the summaries would be sent");
    let text = estimate.text().await.unwrap();
    assert!(text.contains("About 5 summariser calls"), "{text}");
    assert!(
        completions(&server).is_empty(),
        "nothing is sent before Start"
    );

    browser.click_testid("replay-live-start").await;
    inspect.replay().await.wait_live_status("done").await;
    query::wait_count(&browser, "replay-edition", calls).await;
    let editions = inspect.replay().await.editions().await;
    for (k, e) in editions.iter().enumerate() {
        assert!(e.contains(&format!("Live summary {}:", k + 1)), "{e}");
        assert!(e.contains("written by test-summary"), "{e}");
    }
    // One summariser request per edition, with the summariser model, not streamed; each later
    // one folds the previous live summary.
    let requests = completions(&server);
    assert_eq!(requests.len(), calls);
    assert!(
        requests
            .iter()
            .all(|r| r["model"] == "test-summary" && r["stream"] != true),
        "{requests:?}"
    );
    assert!(
        requests[1].to_string().contains("Live summary 1:"),
        "{}",
        requests[1]
    );

    inspect.replay().await.save("(replayed live)").await;
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "{errors:?}");
    browser.close().await;
}

#[tokio::test]
async fn a_live_replay_stops_fails_and_goes_on_without_committing_twice() {
    let server = TestServer::start().await;
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let calls = live_replay_ready(&browser, &server, &dir).await;
    let inspect = InspectPage::new(&browser);
    server.script([
        // The first summary hangs until Stop.
        Reply::DelayedText {
            text: "too late".into(),
            delay: Duration::from_secs(60),
        },
        // Going on, the server refuses once.
        Reply::Status {
            status: 400,
            body: json!({"error": {"message": "model overloaded today", "type": "invalid_request_error"}}),
            retry_after: None,
        },
    ]);
    server.script((1..=calls).map(|k| Reply::Text(format!("Resumed summary {k}."))));
    browser.click_testid("replay-live").await;
    browser.click_testid("replay-live-start").await;
    inspect.replay().await.wait_live_status("running").await;
    for _ in 0..100 {
        if !completions(&server).is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        completions(&server).len(),
        1,
        "the first summary is on its way"
    );
    // The form is locked while the replay runs (its fieldset is disabled).
    let locked = inspect.replay().await.form_locked().await;
    assert!(locked, "the replay's form is locked");

    browser.click_testid("replay-live-stop").await;
    inspect.replay().await.wait_live_status("stopped").await;
    assert_eq!(browser.count_testid("replay-edition").await, 0);
    assert_eq!(
        browser.count_testid("replay-save").await,
        0,
        "a stopped replay is not a session"
    );

    browser.click_testid("replay-live-resume").await;
    inspect.replay().await.wait_live_status("failed").await;
    let status = browser
        .wait_testid("replay-live-status")
        .await
        .text()
        .await
        .unwrap();
    assert!(status.contains("model overloaded today"), "{status}");
    browser.click_testid("replay-live-resume").await;
    inspect.replay().await.wait_live_status("done").await;
    query::wait_count(&browser, "replay-edition", calls).await;
    let first = browser
        .wait_testid("replay-edition")
        .await
        .text()
        .await
        .unwrap();
    assert!(first.contains("Resumed summary 1."), "{first}");
    // The stopped and the refused request, then one per edition.
    assert_eq!(completions(&server).len(), calls + 2);
    browser.wait_testid("replay-save").await;
    browser.close().await;
}

#[tokio::test]
async fn without_an_endpoint_the_live_replay_says_where_to_connect_one() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let inspect = InspectPage::twelve_turns_on_replay(&browser, &dir, false).await;
    browser.wait_testid("replay-live-unavailable").await;
    // Read in one script: the session's view is rebuilt when the vocabulary arrives.
    let note = inspect.replay().await.live_unavailable_note().await;
    assert!(note.contains("Settings"), "{note}");
    assert_eq!(browser.count_testid("replay-live").await, 0);
    browser.close().await;
}

// A replayed travel transcript showed red failures from the Financial-advisor preset's
// must-keep list; after a replay the chart counted an assumed 150-token summary; and a replay
// that wrote no edition (3 turns under a 4-turn trigger) said nothing of why and offered Save.
#[tokio::test]
async fn an_import_is_judged_by_its_own_content_and_a_replay_that_writes_nothing_says_why() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let path = dir.write(
        "travel.json",
        r#"[{"role":"user","content":"Plan a trip to Lisbon in May."},{"role":"assistant","content":"Three days: Alfama, Belem, Sintra."},{"role":"user","content":"And the budget?"},{"role":"assistant","content":"About 600 euros."},{"role":"user","content":"Trains or buses?"},{"role":"assistant","content":"Trains to Sintra."}]"#,
    );
    let inspect = InspectPage::open_counted(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(1).await;
    inspect.show("replay").await;
    let assumed = browser.text_of("replay-summary-size").await;
    assert!(assumed.contains("assumed"), "{assumed}");
    // Under its own 4-turn trigger, three turns write nothing: the note says why, and no Save.
    browser.click_testid("replay-run").await;
    let note = browser.text_of("replay-note").await;
    assert!(
        note.contains("never fired") && note.contains("3 turns"),
        "{note}"
    );
    assert!(browser.is_absent("replay-save").await);
    // Nothing of the financial-advice preset's must-keep list is checked.
    let page: String = browser.read("document.body.innerText").await;
    assert!(
        !page.contains("risk profile"),
        "the Financial-advisor list is checked"
    );
    // At 2 / 1 the replay writes editions, and the dry run counts their own size.
    browser.set_field("replay-a", "2").await;
    browser.set_field("replay-b", "1").await;
    browser.click_testid("replay-run").await;
    browser.wait_testid("replay-save").await;
    let measured = browser.text_of("replay-summary-size").await;
    let sizes = summary_sizes(&measured);
    assert!(!sizes.is_empty(), "{measured}");
    assert!(sizes.iter().all(|&t| t < 150), "{measured}");
    // The window of the same size is one turn, in the singular ("1 turns" before).
    let page: String = browser.read("document.body.innerText").await;
    assert!(page.contains("A sliding window of 1 turn "), "{page}");
    assert!(!page.contains("of 1 turns"), "{page}");
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "{errors:?}");
    browser.close().await;
}

/// The per-cycle summary sizes the replay's caption lists: "(16, 22, 30)".
fn summary_sizes(caption: &str) -> Vec<u32> {
    assert!(caption.contains("own edition for it"), "{caption}");
    let inside = caption
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .map_or("", |(list, _)| list);
    inside
        .split(", ")
        .map(|n| n.parse().unwrap_or_else(|_| panic!("{caption}")))
        .collect()
}

// After a replay the context window and chart counted the MEAN of the edition sizes for every
// cycle, not the summary each cycle wrote.
#[tokio::test]
async fn after_a_replay_each_request_counts_the_summary_its_cycle_wrote() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    InspectPage::twelve_turns_on_replay(&browser, &dir, true).await;
    // Summarise at 2, keep 1: cycle k runs after turn k + 1, so turn t's request carries the
    // summary of cycle t - 2.
    browser.set_field("replay-a", "2").await;
    browser.set_field("replay-b", "1").await;
    browser.click_testid("replay-run").await;
    browser.wait_testid("replay-save").await;
    let sizes = summary_sizes(&browser.text_of("replay-summary-size").await);
    assert!(sizes.len() >= 10, "{sizes:?}");
    assert!(
        sizes.iter().any(|&s| s != sizes[0]),
        "the test needs editions of different sizes: {sizes:?}"
    );
    for turn in [3usize, 6, 12] {
        browser.set_field("replay-turn", &turn.to_string()).await;
        browser
            .wait_until(
                &format!(
                    "document.querySelector('[data-testid=last-request]').dataset.turn === '{turn}'"
                ),
                "the context window of the turn asked",
            )
            .await;
        let title: String = browser
            .read("document.querySelector('[data-testid=last-request] .seg.summary').getAttribute('title')")
            .await;
        let tokens: u32 = title
            .rsplit(": ")
            .next()
            .and_then(|t| t.strip_suffix(" tokens"))
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("{title}"));
        assert_eq!(tokens, sizes[turn - 3], "turn {turn}: {title}");
    }
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}
