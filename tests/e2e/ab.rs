//! Inspect's two summarisers side by side against the loopback test server, whose responder
//! writes each summary from the model the request names, so that side A's and side B's are
//! told apart whatever order their calls come in: one `ab-pair` per cycle with both sides'
//! summaries, the diff and the checks; a Claude Code session's own compactions as side A; Stop
//! and a failure that commit nothing, Go on and Try again; a pair saved, exported and imported, shown again
//! with no endpoint.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use summary_memory::engine::session::{export, synthetic};

use crate::harness::{Browser, TempDir};
use crate::openai_server::{Reply, TestServer};
use crate::pages::ab::AbPage;
use crate::pages::chat::{ChatPage, Setup};
use crate::pages::inspect::InspectPage;

const CLAUDE_CODE: &str = include_str!("../fixtures/transcripts/claude_code_session.jsonl");

/// Answers every summary with the `k`-th summary of the model it names: "Summary 2 by
/// model-b: ...". Each side's calls come in its own fold order, so the text is deterministic.
fn by_model(server: &TestServer) {
    let counts = Arc::new(Mutex::new(HashMap::<String, usize>::new()));
    server.respond_with(move |body| {
        let model = body["model"].as_str()?.to_owned();
        let mut counts = counts.lock().unwrap();
        let k = counts.entry(model.clone()).or_default();
        *k += 1;
        Some(Reply::Text(format!(
            "Summary {k} by {model}: the user saves weekly and holds no equities."
        )))
    });
}

/// The chat completion requests the server received, by model.
fn models_asked(server: &TestServer) -> Vec<String> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path == "/v1/chat/completions")
        .map(|r| r.body["model"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Connects Settings to `server`, then imports the twenty-turn session in Inspect.
async fn twenty_turns<'a>(
    browser: &'a Browser,
    server: &TestServer,
    dir: &TempDir,
) -> InspectPage<'a> {
    ChatPage::connect(browser, Setup::new(&server.base_url)).await;
    let inspect = InspectPage::click_tab(browser).await;
    inspect.wait_vocabulary().await;
    let path = dir.write("twenty.json", &export(&synthetic(20), 5, "0.1.0"));
    inspect.import(&path).await;
    inspect.wait_sessions(1).await;
    inspect
}

#[tokio::test]
async fn two_models_pair_by_cycle_save_as_a_pair_and_reopen_offline_after_export_and_import() {
    let server = TestServer::start().await;
    by_model(&server);
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let inspect = twenty_turns(&browser, &server, &dir).await;
    let ab = AbPage::new(&browser);
    ab.models("model-a", "model-b").await;
    let calls = ab.wait_estimate().await;
    assert!(calls >= 2 && calls % 2 == 0, "{calls}");
    let estimate = ab.estimate_text().await;
    assert!(
        estimate.contains(&format!("{calls} summariser calls")),
        "{estimate}"
    );
    assert!(
        models_asked(&server).is_empty(),
        "nothing sent for the price"
    );

    browser.click_testid("ab-run").await;
    ab.wait_status("done").await;
    let folds = calls / 2;
    let pairs = ab.wait_pairs("ab", folds).await;
    for (i, p) in pairs.iter().enumerate() {
        let k = i + 1;
        assert_eq!(p.cycle as usize, k, "{pairs:?}");
        assert!(p.a.starts_with(&format!("Summary {k} by model-a")), "{p:?}");
        assert!(p.b.starts_with(&format!("Summary {k} by model-b")), "{p:?}");
        assert_eq!(p.only_a.as_deref(), Some("1"), "{p:?}");
        assert_eq!(p.only_b.as_deref(), Some("1"), "{p:?}");
        assert!(p.checks_a && p.checks_b, "{p:?}");
    }
    let asked = models_asked(&server);
    assert_eq!(asked.len(), calls);
    assert_eq!(asked.iter().filter(|m| *m == "model-a").count(), folds);

    ab.save().await;
    inspect.wait_sessions(3).await;
    let names = inspect.names().await;
    assert!(
        names.iter().any(|n| n.contains("(A/B A: model-a"))
            && names.iter().any(|n| n.contains("(A/B B: model-b")),
        "{names:?}"
    );
    let exported = inspect.export_all().await;
    browser.close().await;

    // A fresh browser with no endpoint: the imported pair shows its rows from the stored sides.
    let browser = Browser::new().await;
    let inspect = InspectPage::open_counted(&browser).await;
    let ab = AbPage::new(&browser);
    let path = dir.write("all.json", &exported);
    inspect.import(&path).await;
    inspect.wait_sessions(3).await;
    inspect.library().await;
    browser
        .client
        .execute(
            "[...document.querySelectorAll(\"[data-testid='session-name']\")] \
             .find((e) => e.textContent.includes('(A/B B:')).closest('button').click();",
            vec![],
        )
        .await
        .unwrap();
    ab.here().await;
    browser.wait_testid("ab-unavailable").await;
    let shown = ab.wait_pairs("ab-stored", folds).await;
    for (p, q) in shown.iter().zip(&pairs) {
        assert_eq!((p.cycle, &p.a, &p.b), (q.cycle, &q.a, &q.b), "{shown:?}");
        assert_eq!((&p.only_a, &p.only_b), (&q.only_a, &q.only_b));
    }
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "{errors:?}");
    browser.close().await;
}

#[tokio::test]
async fn a_claude_code_sessions_own_compactions_are_side_a_against_the_users_summariser() {
    let server = TestServer::start().await;
    by_model(&server);
    let browser = Browser::new().await;
    let dir = TempDir::new();
    ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    let inspect = InspectPage::click_tab(&browser).await;
    inspect.wait_vocabulary().await;
    let path = dir.write("0b6f6a4e-session.jsonl", CLAUDE_CODE);
    inspect.import(&path).await;
    inspect.wait_import_note("claude-code").await;
    let ab = AbPage::new(&browser);
    ab.here().await;
    // A starts as the tool's compactions, B as the summariser in Settings.
    let recorded: bool = browser
        .read("document.querySelector(\"[data-testid='ab-a-recorded']\").checked")
        .await;
    assert!(recorded, "side A is the tool's own compactions");
    assert_eq!(browser.value_of("ab-b-model").await, "test-summary");
    // A bad field is named, side and all, and nothing can start.
    browser.set_field("ab-b-word-limit", "lots").await;
    browser
        .wait_text_contains(
            "ab-error",
            "side B: the word limit",
            "the bad word limit named",
        )
        .await;
    assert!(
        !browser.is_enabled("ab-run").await,
        "no run from a bad form"
    );
    browser.set_field("ab-b-word-limit", "100").await;
    assert_eq!(ab.wait_estimate().await, 1, "only B asks the model");
    browser.click_testid("ab-run").await;
    ab.wait_status("done").await;
    let pairs = ab.wait_pairs("ab", 2).await;
    let first = &pairs[0];
    assert!(first.writer_a.contains("Claude Code"), "{first:?}");
    assert!(!first.a.is_empty(), "{first:?}");
    assert!(
        first.b.starts_with("Summary 1 by test-summary"),
        "{first:?}"
    );
    assert_eq!(
        first.writer_b,
        "Written by the summariser model test-summary"
    );
    assert!(first.checks_a && first.checks_b, "{first:?}");
    assert!(first.only_a.is_some(), "{first:?}");
    // Claude Code's second compaction folded no whole turn: B had nothing to fold there.
    assert!(
        pairs[1].b.is_empty() && pairs[1].note.contains("no whole turn"),
        "{pairs:?}"
    );
    assert_eq!(models_asked(&server), ["test-summary"]);
    browser.close().await;
}

#[tokio::test]
async fn a_stopped_or_failed_summary_commits_nothing_and_go_on_or_try_again_completes_the_run() {
    let server = TestServer::start().await;
    by_model(&server);
    // The script goes before the responder: the first summary hangs until Stop, then (going
    // on) is written, and the second is refused once.
    server.script([
        Reply::DelayedText {
            text: "too late".into(),
            delay: Duration::from_secs(60),
        },
        Reply::Text("Summary 1 by model-a: the user saves weekly and holds no equities.".into()),
        Reply::Status {
            status: 400,
            body: json!({"error": {"message": "model overloaded today", "type": "invalid_request_error"}}),
            retry_after: None,
        },
    ]);
    let browser = Browser::new().await;
    let dir = TempDir::new();
    twenty_turns(&browser, &server, &dir).await;
    let ab = AbPage::new(&browser);
    ab.models("model-a", "model-b").await;
    let calls = ab.wait_estimate().await;
    browser.click_testid("ab-run").await;
    ab.wait_status("running").await;
    for _ in 0..100 {
        if !models_asked(&server).is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        models_asked(&server),
        ["model-a"],
        "the first summary is on its way"
    );
    let locked: bool = browser
        .read("document.querySelector(\"[data-testid='ab-a-model']\").matches(':disabled')")
        .await;
    assert!(locked, "the form is locked while the run goes on");
    browser.click_testid("ab-stop").await;
    ab.wait_status("stopped").await;
    assert_eq!(browser.count_testid("ab-pair").await, 0);
    let progress = browser.wait_testid("ab-progress").await;
    assert_eq!(
        progress.attr("data-done").await.unwrap().as_deref(),
        Some("0"),
        "a stopped summary is not committed"
    );
    browser.click_testid("ab-retry").await;
    ab.wait_status("failed").await;
    let status = browser.text_of("ab-status").await;
    assert!(status.contains("model overloaded today"), "{status}");
    // What was written so far is shown, and said to be unfinished; nothing is saved.
    let so_far = ab.wait_pairs("ab-so-far", 1).await;
    assert!(
        so_far[0].a.starts_with("Summary 1 by model-a")
            && so_far[0].b.is_empty()
            && so_far[0].note.contains("still to write"),
        "{so_far:?}"
    );
    assert_eq!(browser.count_testid("ab-save").await, 0, "nothing to save");
    let progress = browser.wait_testid("ab-progress").await;
    assert_eq!(
        progress.attr("data-done").await.unwrap().as_deref(),
        Some("1"),
        "the refused summary is not counted"
    );

    browser.click_testid("ab-retry").await;
    ab.wait_status("done").await;
    let pairs = ab.wait_pairs("ab", calls / 2).await;
    assert!(pairs[0].b.starts_with("Summary 1 by model-b"), "{pairs:?}");
    // Every summary once, and the stopped and the refused one again.
    assert_eq!(models_asked(&server).len(), calls + 2);
    browser.wait_testid("ab-save").await;
    browser.close().await;
}
