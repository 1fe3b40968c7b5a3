//! Issue 13 in the browser: the key stays with the origin it was typed for, a key echoed by a
//! proxy never reaches the page, and real providers' replies that are not the happy path
//! (reasoning only, plain JSON to a streamed request, an HTML page, an error inside a stream,
//! a context overflow, `retry-after-ms`, a fetch that times out) are each shown for what they
//! are.

use serde_json::json;

use crate::harness::{Browser, check_failure, failure, posts, text};
use crate::openai_server::{Reply, TestServer};
use crate::pages::chat::{ChatPage, KEY, Setup};
use crate::pages::query::{self, Field, Until, testid};
use crate::pages::settings::SettingsPage;

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
    let settings = SettingsPage::open(&browser).await;
    browser.set_field("base-url", &a.base_url).await;
    browser.set_field("api-key", KEY).await;
    settings.press_test_connection().await;
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
    settings.press_test_connection().await;
    browser.wait_testid("models-found").await;
    assert!(
        b.requests().iter().any(|r| r.method == "GET"),
        "B was asked for its models"
    );
    assert_eq!(authorizations(&b), Vec::<String>::new(), "B got a key");
    // Nor is the key kept anywhere for later.
    settings.wait_key_forgotten(KEY).await;
    browser.close().await;
}

/// A proxy that echoes the Authorization header in its error text put the key on the page.
#[tokio::test]
async fn a_server_error_that_echoes_the_key_shows_no_key() {
    let server = TestServer::start().await;
    server.script([Reply::EchoAuthorization]);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("hello").await;
    let error = chat.error_text().await;
    assert!(
        error.contains("Authorization: Bearer [redacted]"),
        "{error}"
    );
    let page = query::page_html(&browser).await;
    assert!(!page.contains(KEY), "the key is on the page");
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
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("hello").await;
    chat.wait_settled(2).await;
    let shown = chat.messages().await;
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
        let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
        chat.send("hello").await;
        let error = chat.error_text().await;
        assert!(error.contains("Upstream model overloaded"), "{error}");
        chat.wait_settled(2).await;
        let shown = chat.messages().await;
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
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    let started = std::time::Instant::now();
    chat.send("are you busy?").await;
    chat.wait_settled(2).await;
    let shown = chat.messages().await;
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

/// The row of the assistant message at `index` among the messages shown: its reasoning
/// element's (open, label, text), if it has one.
async fn reasoning_of(browser: &Browser, index: usize) -> Option<(bool, String, String)> {
    let rows: Vec<ReasoningRow> = query::rows(browser, &testid("message"), &REASONING).await;
    rows.into_iter().nth(index).and_then(shown_reasoning)
}

/// A row's reasoning element, read as (open, label, text): each `None` when it has none.
type ReasoningRow = (Option<bool>, Option<String>, Option<String>);

/// What [`REASONING`] reads of an element holding a reasoning element.
const REASONING: [Field<'static>; 3] = [
    Field::prop("open").within("[data-testid='reasoning']"),
    Field::text().within("[data-testid='reasoning'] summary"),
    Field::text().within("[data-testid='reasoning'] .reasoning-text"),
];

/// The reasoning shown, if the row has a reasoning element.
fn shown_reasoning(row: ReasoningRow) -> Option<(bool, String, String)> {
    match row {
        (Some(open), Some(label), Some(text)) => Some((open, label, text)),
        (None, _, _) => None,
        other => panic!("a reasoning element without its label or text: {other:?}"),
    }
}

/// A reasoning model's reasoning was dropped: it is shown in the reply's row, collapsed and
/// labelled, apart from the answer, and never sent back to the model.
#[tokio::test]
async fn a_reasoning_models_reply_shows_its_reasoning_collapsed_apart_from_the_answer() {
    for stream in [true, false] {
        let server = TestServer::start().await;
        server.script([Reply::ReasonedText {
            reasoning: "The user greets me, so I greet back.".into(),
            text: "Hello to you too.".into(),
        }]);
        let browser = Browser::new().await;
        let mut setup = Setup::new(&server.base_url);
        setup.stream = stream;
        let chat = ChatPage::connect(&browser, setup).await;
        chat.send("hello").await;
        chat.wait_settled(2).await;
        let shown = chat.messages().await;
        assert_eq!(shown[1].2, "Hello to you too.", "stream {stream}");
        let (open, label, reasoning) = reasoning_of(&browser, 1)
            .await
            .unwrap_or_else(|| panic!("no reasoning shown (stream {stream})"));
        assert!(!open, "collapsed by default");
        assert!(label.contains("Reasoning"), "{label}");
        assert_eq!(reasoning, "The user greets me, so I greet back.");
        assert_eq!(reasoning_of(&browser, 0).await, None, "not on the question");
        // Opening it shows the text; the answer stays as it was.
        query::click(&browser, "[data-testid='reasoning'] summary").await;
        assert!(reasoning_of(&browser, 1).await.unwrap().0, "opened");
        chat.send("again").await;
        chat.wait_settled(4).await;
        let second = posts(&server)[1].to_string();
        assert!(
            !second.contains("greet back"),
            "the reasoning went back: {second}"
        );
        browser.close().await;
    }
}

/// A reply that only reasoned showed the error, but the reasoning itself was lost.
#[tokio::test]
async fn a_reply_that_only_reasoned_shows_its_reasoning_beside_the_error() {
    let server = TestServer::start().await;
    server.script([Reply::ReasoningOnly {
        reasoning: "Let me weigh every option before answering.".into(),
        finish: "stop".into(),
    }]);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("please answer").await;
    let error = chat.error_text().await;
    assert!(error.contains("only reasoned"), "{error}");
    browser.wait_testid("reasoning").await;
    let shown: Vec<ReasoningRow> = query::rows(&browser, "body", &REASONING).await;
    let (open, label, text) = shown
        .into_iter()
        .next()
        .and_then(shown_reasoning)
        .expect("the reasoning shown");
    assert!(!open, "collapsed by default");
    assert!(label.contains("no answer"), "{label}");
    assert_eq!(text, "Let me weigh every option before answering.");
    // No empty assistant message was archived; Retry is offered and clears it.
    assert_eq!(chat.messages().await.len(), 1);
    browser.click_testid("retry").await;
    chat.wait_settled(2).await;
    assert_eq!(chat.messages().await[1].2, "You said: please answer");
    assert!(browser.is_absent("reasoning").await);
    browser.close().await;
}

/// An ordinary completion with empty content (no reasoning, finish "stop") archived nothing
/// and said nothing: the user's message sat there unanswered, with no Retry.
#[tokio::test]
async fn an_empty_reply_is_never_archived_silently() {
    let mut case = failure(
        "empty",
        vec![text("")],
        &["No answer text arrived", "max_tokens", "reasoning_effort"],
    );
    case.stream = false;
    check_failure(case).await;
}

/// Provider detection matched substrings, so a look-alike host was taken for OpenAI.
#[tokio::test]
async fn a_look_alike_host_is_not_taken_for_the_provider() {
    let browser = Browser::new().await;
    browser.open("?tab=settings").await;
    let provider = || async {
        browser
            .wait_testid("provider")
            .await
            .prop("value")
            .await
            .unwrap()
            .unwrap_or_default()
    };
    browser
        .set_field("base-url", "https://api.openai.com/v1")
        .await;
    assert_eq!(provider().await, "openai");
    browser
        .set_field("base-url", "https://api.openai.com.evil.example/v1")
        .await;
    assert_eq!(provider().await, "");
    browser.close().await;
}

fn context_overflow() -> Reply {
    Reply::Status {
        status: 400,
        body: json!({"error": {
            "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
            "type": "invalid_request_error", "code": "context_length_exceeded"}}),
        retry_after: None,
    }
}

/// The user messages of a recorded request body.
fn user_messages(body: &serde_json::Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect()
}

/// A chat request too long for the context window was named, but the only way out was to
/// start again: Fold now runs the summary cycle early, and Retry then sends the summary in
/// place of the folded turns.
#[tokio::test]
async fn a_request_too_long_can_be_folded_now_and_retried() {
    let server = TestServer::start().await;
    server.script([text("a1"), text("a2"), text("a3"), context_overflow()]);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    for n in 1..=3 {
        chat.send(&format!("question {n}")).await;
        chat.wait_settled(2 * n).await;
    }
    chat.send("question 4").await;
    let error = chat.error_text().await;
    assert!(error.contains("The chat request is too long"), "{error}");
    assert!(error.contains("by 808 tokens"), "{error}");
    browser.wait_testid("exclude-longest").await;
    browser.click_testid("fold-now").await;
    browser.wait_testid("summary").await;
    chat.wait_settled(7).await;
    let bodies = posts(&server);
    assert_eq!(bodies.len(), 5);
    assert_eq!(bodies[4]["model"], "test-summary");
    browser.click_testid("retry").await;
    chat.wait_settled(8).await;
    assert_eq!(chat.messages().await[7].2, "You said: question 4");
    let bodies = posts(&server);
    assert_eq!(
        user_messages(&bodies[3]),
        ["question 1", "question 2", "question 3", "question 4"]
    );
    // Turn 1 travels inside the summary now (the 4/2 policy keeps two turns).
    assert_eq!(
        user_messages(&bodies[5]),
        ["question 2", "question 3", "question 4"]
    );
    assert!(bodies[5].to_string().contains("CONVERSATION SUMMARY"));
    assert!(browser.is_absent("error").await);
    browser.close().await;
}

/// (data-excluded, marker text) of every message row.
async fn exclusions(browser: &Browser) -> Vec<(String, bool)> {
    let rows: Vec<(String, String)> = query::rows(
        browser,
        &testid("message"),
        &[Field::data("excluded"), Field::text()],
    )
    .await;
    rows.into_iter()
        .map(|(excluded, text)| (excluded, text.contains("left out of the requests")))
        .collect()
}

/// The other way out: the longest message is left out of the request (the archive keeps it,
/// its row says so) and can be sent again from its row.
#[tokio::test]
async fn a_request_too_long_can_leave_the_longest_message_out_and_take_it_back() {
    let long = "a long pasted log line ".repeat(40).trim().to_owned();
    let server = TestServer::start().await;
    server.script([text("noted"), context_overflow()]);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    browser.set_field("chat-input", &long).await;
    browser.click_testid("send").await;
    chat.wait_settled(2).await;
    chat.send("short question").await;
    chat.error_text().await;
    let label = browser
        .wait_testid("exclude-longest")
        .await
        .text()
        .await
        .unwrap();
    assert!(label.contains("turn 1"), "{label}");
    browser.click_testid("exclude-longest").await;
    query::wait(
        &browser,
        &testid("message"),
        Until::Is(Field::data("excluded"), &json!("true")),
        "the long message to be marked as left out",
    )
    .await;
    assert_eq!(
        exclusions(&browser).await,
        [
            ("true".to_owned(), true),
            ("false".to_owned(), false),
            ("false".to_owned(), false)
        ]
    );
    browser.click_testid("retry").await;
    chat.wait_settled(4).await;
    let bodies = posts(&server);
    assert_eq!(user_messages(&bodies[2]), ["short question"]);
    // Still in the archive and on the page, word for word.
    assert_eq!(chat.messages().await[0].2, long);

    // Its row sends it again.
    let toggle = browser.all_testid("exclude-message").await;
    assert_eq!(toggle[0].text().await.unwrap(), "Send again");
    toggle[0].click().await.unwrap();
    query::wait(
        &browser,
        &testid("message"),
        Until::Is(Field::data("excluded"), &json!("false")),
        "the long message to be sent again",
    )
    .await;
    chat.send("third").await;
    chat.wait_settled(6).await;
    assert_eq!(
        user_messages(&posts(&server)[3]),
        [long.as_str(), "short question", "third"]
    );
    browser.close().await;
}

/// The same rule for Send: once the base URL names another origin, the chat's next request
/// goes there without the key that was typed for the first one.
#[tokio::test]
async fn a_send_after_the_origin_changed_carries_no_key() {
    let a = TestServer::start().await;
    let b = TestServer::start().await;
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&a.base_url)).await;
    chat.send("to a").await;
    chat.wait_settled(2).await;
    assert_eq!(authorizations(&a), [format!("Bearer {KEY}")]);
    browser.click_testid("tab-settings").await;
    browser.set_field("base-url", &b.base_url).await;
    browser.wait_testid("key-withdrawn").await;
    browser.click_testid("tab-chat").await;
    chat.send("to b").await;
    chat.wait_settled(4).await;
    assert_eq!(chat.messages().await[3].2, "You said: to b");
    assert_eq!(posts(&b).len(), 1);
    assert_eq!(authorizations(&b), Vec::<String>::new(), "B got a key");
    assert_eq!(authorizations(&a).len(), 1, "nothing more went to A");
    browser.close().await;
}
