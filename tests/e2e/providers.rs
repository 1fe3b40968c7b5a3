//! Issue 13 in the browser: the key stays with the origin it was typed for, a key echoed by a
//! proxy never reaches the page, and real providers' replies that are not the happy path
//! (reasoning only, plain JSON to a streamed request, an HTML page, an error inside a stream,
//! a context overflow, `retry-after-ms`, a fetch that times out) are each shown for what they
//! are.

use serde_json::json;

use crate::harness::Browser;
use crate::live::{
    KEY, Setup, check_failure, connect, error_text, failure, messages, posts, send, text,
    wait_settled,
};
use crate::openai_server::{Reply, TestServer};

async fn press_test_connection(browser: &Browser) {
    browser.click_testid("test-connection").await;
    browser
        .wait_until(
            "document.querySelector(\"[data-testid='models-found'], [data-testid='error']\")",
            "Test connection to finish",
        )
        .await;
}

/// The Authorization headers a server received, in order.
fn authorizations(server: &TestServer) -> Vec<String> {
    server
        .requests()
        .into_iter()
        .flat_map(|r| r.headers)
        .filter(|(name, _)| name == "authorization")
        .map(|(_, value)| value)
        .collect()
}

/// Switching the base URL kept the key, so the next Test connection gave origin A's key to
/// origin B. The key field is now emptied when the origin changes, before any request.
#[tokio::test]
async fn a_key_typed_for_one_origin_never_reaches_another() {
    let a = TestServer::start().await;
    let b = TestServer::start().await;
    assert_ne!(a.base_url, b.base_url);
    let browser = Browser::new().await;
    browser.open("?tab=settings").await;
    browser.set_field("base-url", &a.base_url).await;
    browser.set_field("api-key", KEY).await;
    press_test_connection(&browser).await;
    browser.wait_testid("models-found").await;
    assert_eq!(authorizations(&a), [format!("Bearer {KEY}")]);

    browser.set_field("base-url", &b.base_url).await;
    let notice = browser
        .wait_testid("key-withdrawn")
        .await
        .text()
        .await
        .unwrap();
    assert!(notice.contains("The API key was cleared"), "{notice}");
    let key_field = browser
        .wait_testid("api-key")
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default();
    assert_eq!(key_field, "");
    press_test_connection(&browser).await;
    browser.wait_testid("models-found").await;
    assert!(
        b.requests().iter().any(|r| r.method == "GET"),
        "B was asked for its models"
    );
    assert_eq!(authorizations(&b), Vec::<String>::new(), "B got a key");
    // Nor is the key kept anywhere for later.
    browser
        .wait_until(
            &format!(
                "![localStorage, sessionStorage].some(s => Object.keys(s).some(k => s.getItem(k).includes('{KEY}')))"
            ),
            "the storage to forget the key",
        )
        .await;
    browser.close().await;
}

/// A proxy that echoes the Authorization header in its error text put the key on the page.
#[tokio::test]
async fn a_server_error_that_echoes_the_key_shows_no_key() {
    let server = TestServer::start().await;
    server.script([Reply::EchoAuthorization]);
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    send(&browser, "hello").await;
    let error = error_text(&browser).await;
    assert!(
        error.contains("Authorization: Bearer [redacted]"),
        "{error}"
    );
    let page = browser
        .client
        .execute("return document.documentElement.outerHTML", vec![])
        .await
        .unwrap();
    assert!(
        !page.as_str().unwrap().contains(KEY),
        "the key is on the page"
    );
    browser.close().await;
}

#[tokio::test]
async fn a_reply_with_only_reasoning_says_no_answer_arrived() {
    for finish in ["stop", "length"] {
        let case = failure(
            "reasoning only",
            vec![Reply::ReasoningOnly {
                reasoning: "Let me think about this carefully.".into(),
                finish: finish.into(),
            }],
            &["max_tokens", "reasoning_effort"],
        );
        check_failure(case).await;
    }
}

#[tokio::test]
async fn plain_json_to_a_streamed_request_is_used_as_the_reply() {
    let server = TestServer::start().await;
    server.script([Reply::JsonToStream("An ordinary JSON answer.".into())]);
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    send(&browser, "hello").await;
    wait_settled(&browser, 2).await;
    let shown = messages(&browser).await;
    assert_eq!(
        (shown[1].1.as_str(), shown[1].2.as_str()),
        ("verbatim", "An ordinary JSON answer.")
    );
    assert_eq!(posts(&server)[0]["stream"], json!(true));
    browser.close().await;
}

#[tokio::test]
async fn an_html_page_is_named_as_not_a_chat_reply() {
    check_failure(failure(
        "html",
        vec![Reply::Html],
        &["not a chat reply", "<!DOCTYPE html>"],
    ))
    .await;
}

/// An error inside a stream keeps the partial reply, marked incomplete, and shows the
/// provider's own message.
#[tokio::test]
async fn an_error_inside_a_stream_shows_the_providers_message_and_keeps_the_part() {
    for script in [
        Reply::ErrorMidStream {
            text: "The first part of a reply".into(),
            chunks: 3,
            message: "Upstream model overloaded".into(),
        },
        Reply::FinishError {
            text: "The first part of a reply".into(),
            chunks: 3,
            message: "Upstream model overloaded".into(),
        },
    ] {
        let server = TestServer::start().await;
        server.script([script]);
        let browser = Browser::new().await;
        connect(&browser, Setup::new(&server.base_url)).await;
        send(&browser, "hello").await;
        let error = error_text(&browser).await;
        assert!(error.contains("Upstream model overloaded"), "{error}");
        wait_settled(&browser, 2).await;
        let shown = messages(&browser).await;
        assert_eq!(
            (
                shown[1].0.as_str(),
                shown[1].1.as_str(),
                shown[1].2.as_str()
            ),
            ("assistant", "incomplete", "The first")
        );
        browser.close().await;
    }
}

#[tokio::test]
async fn a_context_overflow_names_the_chat_request_and_the_excess() {
    let case = failure(
        "context",
        vec![Reply::Status {
            status: 400,
            body: json!({"error": {
                "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
                "type": "invalid_request_error", "code": "context_length_exceeded"}}),
            retry_after: None,
        }],
        &["The chat request is too long", "by 808 tokens", "Fold now"],
    );
    check_failure(case).await;
}

#[tokio::test]
async fn retry_after_ms_is_waited_out() {
    let server = TestServer::start().await;
    server.script([Reply::RateLimitedMs(1200), text("Worth the wait.")]);
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    let started = std::time::Instant::now();
    send(&browser, "are you busy?").await;
    wait_settled(&browser, 2).await;
    let shown = messages(&browser).await;
    assert_eq!(shown[1].2, "Worth the wait.");
    assert_eq!(posts(&server).len(), 2);
    // The client's own first backoff is at most a second; the server asked for 1.2 s.
    assert!(
        started.elapsed().as_millis() >= 1200,
        "{:?}",
        started.elapsed()
    );
    browser.close().await;
}
