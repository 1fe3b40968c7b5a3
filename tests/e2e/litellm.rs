//! The page against a real OpenAI-compatible server we did not write: the LiteLLM proxy (PyPI
//! `litellm[proxy]`, pinned in `scripts/tools.sh`, which installs it into a virtual environment),
//! on a loopback port, with `mock_response` models: a chat model and a separate summariser model.
//! Our own server in `openai_server.rs` stays for the faults a real one cannot be made to produce.

use std::time::Duration;

use serde_json::Value;

use crate::harness::{Browser, PATIENCE, TempDir, words};
use crate::pages::chat::ChatPage;
use crate::pages::inspect::InspectPage;
use crate::pages::query;
use crate::pages::settings::SettingsPage;
use crate::third_party::{
    ServerProcess, fetched, page_origin, port_and_dir, post_json, preflight, record_fetches,
    usage_of, venv,
};

const MASTER_KEY: &str = "sk-litellm-e2e";
const CHAT_REPLY: &str = "Hello from the LiteLLM proxy, streamed to the page in pieces.";
const SUMMARY_REPLY: &str = "The user asked two numbered questions and got a greeting each time.";

/// The proxy, started from its virtual environment with a config of two mock models and CORS
/// open to `origin` only.
async fn start_proxy(origin: &str) -> ServerProcess {
    let venv = venv("litellm", "SM_LITELLM_VENV");
    let (port, dir) = port_and_dir();
    let config = dir.0.join("config.yaml");
    std::fs::write(
        &config,
        format!(
            "model_list:
  - model_name: mock-chat
    litellm_params:
      model: openai/mock-chat
      api_key: unused
      mock_response: {CHAT_REPLY:?}
  - model_name: mock-summary
    litellm_params:
      model: openai/mock-summary
      api_key: unused
      mock_response: {SUMMARY_REPLY:?}
general_settings:
  master_key: {MASTER_KEY}
"
        ),
    )
    .unwrap();
    let mut proxy = ServerProcess::start(
        "litellm",
        &venv.join("bin/litellm"),
        &[
            "--config".into(),
            config.display().to_string(),
            "--host".into(),
            "127.0.0.1".into(),
            "--port".into(),
            port.to_string(),
        ],
        &[
            ("LITELLM_CORS_ORIGINS", origin.to_owned()),
            // The bundled model price list, not a download; no telemetry.
            ("LITELLM_LOCAL_MODEL_COST_MAP", "True".into()),
            ("LITELLM_TELEMETRY", "False".into()),
            ("NO_PROXY", "*".into()),
        ],
        port,
        dir,
    );
    // The proxy imports a great deal before it listens: about 15 s on a loaded 2-core machine.
    proxy
        .wait_ready("/health/liveliness", Duration::from_secs(180))
        .await;
    proxy
}

#[tokio::test]
async fn the_litellm_proxy_lists_its_models_streams_a_reply_and_writes_the_summary_with_its_own_model()
 {
    let browser = Browser::new().await;
    let origin = page_origin();
    let proxy = start_proxy(&origin).await;
    let port = proxy.port;
    let base_url = format!("http://127.0.0.1:{port}/v1");

    // The CORS preflight the browser sends before each request, from the page's origin: allowed,
    // with the headers the page sends. From any other origin it is refused.
    let allowed = preflight(port, "/v1/chat/completions", &origin);
    assert_eq!(allowed.status, 200, "{allowed:?}");
    assert_eq!(
        allowed.header("access-control-allow-origin"),
        Some(origin.as_str())
    );
    let headers = allowed
        .header("access-control-allow-headers")
        .unwrap_or_default()
        .to_ascii_lowercase();
    assert!(
        headers.contains("authorization") && headers.contains("content-type"),
        "{allowed:?}"
    );
    let foreign = preflight(port, "/v1/chat/completions", "http://127.0.0.1:1");
    assert_eq!(foreign.header("access-control-allow-origin"), None);

    // Settings: the proxy's URL and key; Test connection lists the proxy's models.
    let settings = SettingsPage::open(&browser).await;
    record_fetches(&browser).await;
    settings
        .fill(&[("base-url", &base_url), ("api-key", MASTER_KEY)])
        .await;
    let found = settings.test_connection().await;
    assert!(found.starts_with("Connected: 2 models offered."), "{found}");
    let mut offered = settings.offered_models().await;
    offered.sort();
    assert_eq!(offered, ["mock-chat", "mock-summary"]);
    settings
        .fill(&[
            ("chat-model", "mock-chat"),
            ("summary-model", "mock-summary"),
        ])
        .await;

    // Two turns under a 2/1 trigger: two streamed replies, then a summary cycle.
    let chat = ChatPage::open_tab(&browser).await;
    chat.summarise_every_two_turns().await;
    let patience = Duration::from_secs(60);
    chat.send("question 1").await;
    chat.wait_settled_within(2, patience).await;
    let shown = chat.messages().await;
    assert_eq!(
        (
            shown[1].0.as_str(),
            shown[1].1.as_str(),
            shown[1].2.as_str()
        ),
        ("assistant", "verbatim", CHAT_REPLY)
    );
    chat.send("question 2").await;
    chat.wait_settled_within(4, patience).await;
    chat.wait_folded_within(2, "the summary cycle to fold turn 1", PATIENCE)
        .await;
    // The summary is the summariser model's reply, not the chat model's.
    let summary = browser.wait_testid("summary").await.text().await.unwrap();
    assert_eq!(words(&summary), SUMMARY_REPLY);

    // What went over the wire: the replies streamed as server-sent events, the summary did not,
    // and each went to its own model.
    let posts = fetched(&browser, "/chat/completions").await;
    assert_eq!(
        posts.len(),
        3,
        "two chat requests and one summary: {posts:?}"
    );
    for (post, model, streamed) in [
        (&posts[0], "mock-chat", true),
        (&posts[1], "mock-chat", true),
        (&posts[2], "mock-summary", false),
    ] {
        let body = post.json();
        assert_eq!(post.method, "POST");
        assert_eq!(post.status, Some(200), "{post:?}");
        assert_eq!(body["model"], model, "{post:?}");
        assert_eq!(body["stream"] == Value::Bool(true), streamed, "{post:?}");
        let event_stream = post
            .content_type
            .as_deref()
            .is_some_and(|t| t.starts_with("text/event-stream"));
        assert_eq!(event_stream, streamed, "{post:?}");
    }
    assert!(
        posts[2].body.contains("question 1") && !posts[2].body.contains("question 2"),
        "only turn 1 is folded: {}",
        posts[2].body
    );

    // The Editions tab shows the cycle as an edition holding the summariser model's reply.
    assert_eq!(posts[2].reply_content(), SUMMARY_REPLY);
    browser.click_testid("tab-editions").await;
    let edition = browser.wait_testid("edition").await;
    assert_eq!(
        edition.attr("data-cycle").await.unwrap().as_deref(),
        Some("1")
    );
    let after = edition
        .find(fantoccini::Locator::Css(
            "[data-testid=edition-after] .diff",
        ))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(words(&after), SUMMARY_REPLY);

    // Each call's usage is recorded beside our own count, exactly as the proxy reports it: the
    // same request sent again from here gets the same usage back.
    browser.click_testid("tab-chat").await;
    query::wait_count(&browser, "call-usage", 3).await;
    let calls = chat.call_usages().await;
    let kinds: Vec<&str> = calls.iter().map(|c| c.kind.as_str()).collect();
    assert_eq!(kinds, ["chat", "chat", "summary"]);
    for (call, post) in calls.iter().zip(&posts) {
        let ours: u32 = call.client.parse().unwrap_or(0);
        assert!(ours > 0, "our count is shown: {call:?}");
        let again = post_json(port, "/v1/chat/completions", Some(MASTER_KEY), &post.body);
        assert_eq!(again.status, 200, "{again:?}");
        let usage = usage_of(&again).unwrap_or_else(|| panic!("no usage in {again:?}"));
        assert_eq!(
            (call.api_prompt.as_str(), call.api_completion.as_str()),
            (
                usage["prompt_tokens"].to_string().as_str(),
                usage["completion_tokens"].to_string().as_str()
            ),
            "{call:?} against the proxy's {usage}"
        );
    }

    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
    drop(proxy);
}

/// Inspect's live replay through the proxy: each of the five summaries the dry run plans is
/// written by the proxy's summariser model, and the replay saves as a new session.
#[tokio::test]
async fn a_live_replay_through_the_litellm_proxy_saves_the_summariser_models_editions() {
    let browser = Browser::new().await;
    let proxy = start_proxy(&page_origin()).await;
    let base_url = format!("http://127.0.0.1:{}/v1", proxy.port);
    SettingsPage::open(&browser)
        .await
        .fill(&[
            ("base-url", &base_url),
            ("api-key", MASTER_KEY),
            ("chat-model", "mock-chat"),
            ("summary-model", "mock-summary"),
        ])
        .await;
    let dir = TempDir::new();
    let calls = InspectPage::twelve_turns_at_four_two(&browser, &dir).await;
    let inspect = InspectPage::new(&browser);
    browser.click_testid("replay-live").await;
    browser.click_testid("replay-live-start").await;
    inspect.replay().await.wait_live_status("done").await;
    query::wait_count(&browser, "replay-edition", calls).await;
    for e in &inspect.replay().await.editions().await {
        assert!(
            e.contains(SUMMARY_REPLY) && e.contains("written by mock-summary"),
            "{e}"
        );
    }
    // The proxy reports usage: the progress line counts its tokens.
    let progress = browser
        .wait_testid("replay-live-progress")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        progress.starts_with(&format!("Done: {calls} of about {calls} summaries")),
        "{progress}"
    );
    inspect.replay().await.save("(replayed live)").await;
    browser.close().await;
    drop(proxy);
}
