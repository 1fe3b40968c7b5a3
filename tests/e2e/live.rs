//! Live mode in the Chat tab against the loopback test server: streaming, Stop, every failure
//! the client classifies (each keeps the user's message and offers Retry), and the summariser
//! cycle run through the same endpoint.

use std::time::Duration;

use fantoccini::Locator;
use serde_json::{Value, json};

use crate::harness::{Browser, free_port};
use crate::openai_server::{Reply, TestServer};

pub(crate) const KEY: &str = "sk-live-test";

/// What the Settings form gets before a live chat.
pub(crate) struct Setup<'a> {
    pub(crate) base_url: &'a str,
    pub(crate) stream: bool,
    pub(crate) timeout: Option<&'a str>,
    pub(crate) max_tokens: Option<&'a str>,
}

impl<'a> Setup<'a> {
    pub(crate) fn new(base_url: &'a str) -> Self {
        Setup {
            base_url,
            stream: true,
            timeout: None,
            max_tokens: None,
        }
    }
}

/// Fills Settings the way typing would (value plus an input event), then opens the Chat tab in
/// the same page so nothing but the form's own storage is involved.
pub(crate) async fn connect(browser: &Browser, setup: Setup<'_>) {
    browser.open("?tab=settings").await;
    let mut fields = vec![
        ("base-url", setup.base_url),
        ("api-key", KEY),
        ("chat-model", "test-chat"),
        ("summary-model", "test-summary"),
    ];
    fields.extend(setup.timeout.map(|t| ("timeout", t)));
    fields.extend(setup.max_tokens.map(|m| ("max-tokens", m)));
    for (testid, value) in fields {
        browser.set_field(testid, value).await;
    }
    if !setup.stream {
        browser.click_testid("stream").await;
    }
    browser.click_testid("tab-chat").await;
    browser
        .wait_until(
            "!document.querySelector(\"[data-testid='chat-input']\").disabled",
            "the message box to be enabled",
        )
        .await;
}

/// Types a message and presses Send.
pub(crate) async fn send(browser: &Browser, text: &str) {
    browser
        .wait_testid("chat-input")
        .await
        .send_keys(text)
        .await
        .unwrap();
    browser.click_testid("send").await;
}

/// (data-role, data-state, text) of every message on the page.
pub(crate) async fn messages(browser: &Browser) -> Vec<(String, String, String)> {
    let value = browser
        .client
        .execute(
            "return [...document.querySelectorAll(\"[data-testid='message']\")].map(m => \
             [m.dataset.role, m.dataset.state, m.querySelector('.content').textContent])",
            vec![],
        )
        .await
        .unwrap();
    serde_json::from_value(value).unwrap()
}

/// Waits until `n` messages are shown and none is streaming.
pub(crate) async fn wait_settled(browser: &Browser, n: usize) {
    browser
        .wait_until(
            &format!(
                "document.querySelectorAll(\"[data-testid='message']\").length === {n} && \
                 !document.querySelector(\"[data-state='streaming']\") && \
                 !document.querySelector(\"[data-testid='stop']\")"
            ),
            &format!("{n} settled messages"),
        )
        .await;
}

pub(crate) async fn error_text(browser: &Browser) -> String {
    let error = browser.wait_testid("error").await;
    assert_eq!(error.attr("role").await.unwrap().as_deref(), Some("alert"));
    error.text().await.unwrap()
}

pub(crate) async fn absent(browser: &Browser, testid: &str) -> bool {
    browser
        .client
        .find(Locator::Css(&format!("[data-testid='{testid}']")))
        .await
        .is_err()
}

pub(crate) fn posts(server: &TestServer) -> Vec<Value> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.body)
        .collect()
}

/// Text with every run of whitespace made one space, as the page renders it.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(crate) fn text(s: &str) -> Reply {
    Reply::Text(s.to_owned())
}

fn status(status: u16, kind: &str, message: &str) -> Reply {
    Reply::Status {
        status,
        body: json!({"error": {"message": message, "type": kind, "code": kind}}),
        retry_after: None,
    }
}

#[tokio::test]
async fn a_streamed_reply_arrives_verbatim_and_the_request_carries_only_allowed_headers() {
    let server = TestServer::start().await;
    server.script([text("Hello from the test server, ünïcode included.")]);
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    // Our prompt count below is exact only once the vocabulary has loaded.
    browser
        .wait_until(
            "performance.getEntriesByName('sm-vocab-loaded-o200k_base').length > 0",
            "the o200k_base vocabulary to load",
        )
        .await;
    // Shift+Enter adds a line; Enter sends.
    let input = browser.wait_testid("chat-input").await;
    // WebDriver holds Shift from the first \u{E008} to the second, so only Enter is shifted.
    input
        .send_keys("first line\u{E008}\u{E007}\u{E008}second line")
        .await
        .unwrap();
    assert!(
        absent(&browser, "message").await,
        "Shift+Enter must not send"
    );
    input.send_keys("\u{E007}").await.unwrap();
    wait_settled(&browser, 2).await;
    let shown = messages(&browser).await;
    assert_eq!(shown[0].0, "user");
    assert_eq!(shown[0].2, "first line\nsecond line");
    assert_eq!(
        (
            shown[1].0.as_str(),
            shown[1].1.as_str(),
            shown[1].2.as_str()
        ),
        (
            "assistant",
            "verbatim",
            "Hello from the test server, ünïcode included."
        )
    );
    assert!(absent(&browser, "error").await);
    assert!(absent(&browser, "retry").await);

    let requests = server.requests();
    let post = requests.iter().find(|r| r.method == "POST").unwrap();
    assert_eq!(post.path, "/v1/chat/completions");
    assert_eq!(post.body["model"], "test-chat");
    assert_eq!(post.body["stream"], true);
    assert_eq!(post.body["stream_options"]["include_usage"], true);
    // The call is recorded with the API's usage beside our count. The test server counts
    // whitespace words; the page counts o200k_base tokens of each message's content.
    let contents: Vec<&str> = post.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    let words: usize = contents.iter().map(|c| c.split_whitespace().count()).sum();
    let counter = summary_memory::tokens::TokenCounter::default();
    counter
        .load(summary_memory::tokens::Encoding::O200kBase)
        .unwrap();
    let tokens: u32 = contents
        .iter()
        .map(|c| counter.count(c).value().unwrap())
        .sum();
    let call = browser.wait_testid("call-usage").await;
    assert_eq!(
        call.attr("data-kind").await.unwrap().as_deref(),
        Some("chat")
    );
    assert_eq!(
        call.attr("data-api-prompt").await.unwrap(),
        Some(words.to_string())
    );
    assert_eq!(
        call.attr("data-client").await.unwrap(),
        Some(tokens.to_string())
    );
    assert_eq!(
        call.attr("data-api-completion").await.unwrap().as_deref(),
        Some("7")
    );
    let page_headers = post.page_headers();
    assert!(
        page_headers
            .iter()
            .all(|h| *h == "authorization" || *h == "content-type"),
        "unexpected headers {page_headers:?}"
    );
    let header = |name: &str| {
        post.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(header("authorization"), Some(format!("Bearer {KEY}")));
    assert_eq!(header("content-type").as_deref(), Some("application/json"));
    browser.close().await;
}

#[tokio::test]
async fn stop_mid_stream_keeps_the_partial_reply_marked_incomplete() {
    let server = TestServer::start().await;
    let full = "one two three four five six seven eight nine ten eleven twelve thirteen";
    server.script([text(full)]);
    server.chunk_delay(Duration::from_millis(250));
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    send(&browser, "count for me").await;
    browser
        .wait_until(
            "document.querySelector(\"[data-state='streaming'] .content\")?.textContent.length > 3",
            "part of the reply to stream in",
        )
        .await;
    browser.click_testid("stop").await;
    wait_settled(&browser, 2).await;
    let shown = messages(&browser).await;
    assert_eq!(shown[0].2, "count for me");
    assert_eq!(shown[1].1, "incomplete");
    assert!(
        !shown[1].2.is_empty() && full.starts_with(&shown[1].2) && shown[1].2.len() < full.len(),
        "{:?}",
        shown[1].2
    );
    // Stop is not a failure: no error, and the next message can be sent.
    assert!(absent(&browser, "error").await);
    server.chunk_delay(Duration::ZERO);
    send(&browser, "again").await;
    wait_settled(&browser, 4).await;
    assert_eq!(messages(&browser).await[3].1, "verbatim");
    browser.close().await;
}

/// How a failure case is set up and what the page must say.
pub(crate) struct Failure<'a> {
    pub(crate) name: &'a str,
    pub(crate) script: Vec<Reply>,
    pub(crate) stream: bool,
    pub(crate) timeout: Option<&'a str>,
    pub(crate) max_tokens: Option<&'a str>,
    pub(crate) expect: &'a [&'a str],
    /// How many POSTs the client makes before it gives up.
    pub(crate) attempts: usize,
}

/// Sends one message into the failure, then checks the error, that the user's message stayed,
/// that Retry is offered, and that Retry succeeds once the server behaves (its script is empty
/// then, so it echoes).
pub(crate) async fn check_failure(case: Failure<'_>) {
    let server = TestServer::start().await;
    server.script(case.script);
    let browser = Browser::new().await;
    connect(
        &browser,
        Setup {
            base_url: &server.base_url,
            stream: case.stream,
            timeout: case.timeout,
            max_tokens: case.max_tokens,
        },
    )
    .await;
    send(&browser, "please answer").await;
    let error = error_text(&browser).await;
    for phrase in case.expect {
        assert!(error.contains(phrase), "{}: {error}", case.name);
    }
    wait_settled(&browser, 1).await;
    assert_eq!(
        messages(&browser).await,
        [(
            "user".to_owned(),
            "verbatim".to_owned(),
            "please answer".to_owned()
        )],
        "{}",
        case.name
    );
    assert_eq!(posts(&server).len(), case.attempts, "{}", case.name);
    browser.click_testid("retry").await;
    wait_settled(&browser, 2).await;
    let shown = messages(&browser).await;
    assert_eq!(
        (shown[1].1.as_str(), shown[1].2.as_str()),
        ("verbatim", "You said: please answer"),
        "{}",
        case.name
    );
    assert!(absent(&browser, "error").await, "{}", case.name);
    assert!(absent(&browser, "retry").await, "{}", case.name);
    browser.close().await;
}

pub(crate) fn failure<'a>(name: &'a str, script: Vec<Reply>, expect: &'a [&'a str]) -> Failure<'a> {
    Failure {
        name,
        script,
        stream: true,
        timeout: None,
        max_tokens: None,
        expect,
        attempts: 1,
    }
}

#[tokio::test]
async fn a_closed_port_shows_a_network_error_and_keeps_the_message() {
    let browser = Browser::new().await;
    let base_url = format!("http://127.0.0.1:{}/v1", free_port());
    connect(&browser, Setup::new(&base_url)).await;
    send(&browser, "anyone there?").await;
    let error = error_text(&browser).await;
    assert!(
        error.starts_with(&format!("Could not reach {base_url}")),
        "{error}"
    );
    assert!(error.contains("CORS"), "{error}");
    wait_settled(&browser, 1).await;
    assert_eq!(messages(&browser).await[0].2, "anyone there?");
    browser.wait_testid("retry").await;
    browser.close().await;
}

#[tokio::test]
async fn a_refused_key_is_explained_and_retry_succeeds() {
    check_failure(failure(
        "401",
        vec![status(401, "invalid_api_key", "Incorrect API key provided")],
        &["refused the API key", "Incorrect API key provided"],
    ))
    .await;
}

#[tokio::test]
async fn a_missing_model_is_explained_and_retry_succeeds() {
    check_failure(failure(
        "404",
        vec![status(
            404,
            "model_not_found",
            "The model test-chat does not exist",
        )],
        &["Not found (HTTP 404)", "The model test-chat does not exist"],
    ))
    .await;
}

#[tokio::test]
async fn a_bad_request_shows_the_servers_own_message() {
    check_failure(failure(
        "400",
        vec![status(
            400,
            "invalid_request_error",
            "temperature is out of range for this model",
        )],
        &[
            "rejected the request (HTTP 400)",
            "temperature is out of range for this model",
        ],
    ))
    .await;
}

#[tokio::test]
async fn a_used_up_quota_is_not_retried() {
    check_failure(failure(
        "insufficient_quota",
        vec![status(
            429,
            "insufficient_quota",
            "You exceeded your current quota",
        )],
        &["quota is used up", "retrying will not help"],
    ))
    .await;
}

#[tokio::test]
async fn a_failing_server_is_retried_then_explained() {
    let mut case = failure(
        "5xx",
        vec![
            status(500, "server_error", "boom"),
            status(502, "server_error", "boom"),
            status(503, "server_error", "still down"),
        ],
        &["The server failed", "still down", "Try again"],
    );
    case.attempts = 3;
    check_failure(case).await;
}

#[tokio::test]
async fn a_hanging_server_times_out() {
    // A timeout of the fetch itself is retried like a 5xx (issue 13), so the server hangs on
    // every attempt before the page gives up.
    let mut case = failure(
        "timeout",
        vec![Reply::Hang, Reply::Hang, Reply::Hang],
        &["No response", "timeout"],
    );
    case.timeout = Some("2");
    case.attempts = 3;
    check_failure(case).await;
}

#[tokio::test]
async fn malformed_json_is_explained_when_not_streaming() {
    let mut case = failure(
        "malformed",
        vec![Reply::MalformedJson],
        &["not OpenAI-compatible JSON"],
    );
    case.stream = false;
    check_failure(case).await;
}

#[tokio::test]
async fn an_empty_reply_cut_by_max_tokens_names_the_settings_to_change() {
    let mut case = failure(
        "empty length",
        vec![Reply::EmptyLength],
        &["max_tokens", "reasoning_effort", "length"],
    );
    case.max_tokens = Some("64");
    check_failure(case).await;
}

#[tokio::test]
async fn a_rate_limit_with_retry_after_is_waited_out() {
    let server = TestServer::start().await;
    server.script([
        Reply::Status {
            status: 429,
            body: json!({"error": {"message": "Rate limit reached", "type": "rate_limit_exceeded"}}),
            retry_after: Some("1".to_owned()),
        },
        text("Worth the wait."),
    ]);
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    send(&browser, "are you busy?").await;
    wait_settled(&browser, 2).await;
    let shown = messages(&browser).await;
    assert_eq!(
        (shown[1].1.as_str(), shown[1].2.as_str()),
        ("verbatim", "Worth the wait.")
    );
    assert!(absent(&browser, "error").await);
    assert_eq!(posts(&server).len(), 2);
    browser.close().await;
}

#[tokio::test]
async fn a_server_rejecting_include_usage_still_answers_and_is_not_asked_again() {
    let server = TestServer::start().await;
    server.reject_include_usage();
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    send(&browser, "first").await;
    wait_settled(&browser, 2).await;
    assert_eq!(messages(&browser).await[1].2, "You said: first");
    assert!(absent(&browser, "error").await);
    send(&browser, "second").await;
    wait_settled(&browser, 4).await;
    assert_eq!(messages(&browser).await[3].2, "You said: second");
    let bodies = posts(&server);
    assert_eq!(bodies.len(), 3, "one rejected, then one per message");
    assert!(bodies[0].get("stream_options").is_some());
    assert!(bodies[1].get("stream_options").is_none());
    assert!(bodies[2].get("stream_options").is_none());
    browser.close().await;
}

#[tokio::test]
async fn four_turns_fold_the_oldest_two_into_a_model_summary() {
    let server = TestServer::start().await;
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    for n in 1..=4 {
        send(&browser, &format!("question {n}")).await;
        wait_settled(&browser, 2 * n).await;
    }
    let summary = browser.wait_testid("summary").await.text().await.unwrap();
    assert!(!summary.trim().is_empty());
    browser
        .wait_until(
            "document.querySelectorAll(\"[data-state='folded']\").length === 4",
            "4 folded messages",
        )
        .await;
    let shown = messages(&browser).await;
    let states: Vec<&str> = shown.iter().map(|m| m.1.as_str()).collect();
    assert_eq!(
        states,
        [
            "folded", "folded", "folded", "folded", "verbatim", "verbatim", "verbatim", "verbatim"
        ]
    );
    let bodies = posts(&server);
    assert_eq!(bodies.len(), 5);
    let summariser = &bodies[4];
    assert_eq!(summariser["model"], "test-summary");
    assert_ne!(summariser["stream"], true);
    let asked = summariser.to_string();
    assert!(asked.contains("question 1") && asked.contains("question 2"));
    assert!(!asked.contains("question 3"), "only the folded turns go in");
    // The next chat request carries the summary instead of turns 1 and 2.
    send(&browser, "question 5").await;
    wait_settled(&browser, 10).await;
    let next = posts(&server)[5]["messages"].clone();
    let of_role = |role: &str| -> Vec<String> {
        next.as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == role)
            .map(|m| m["content"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        of_role("user"),
        ["question 3", "question 4", "question 5"],
        "turns 1 and 2 travel only inside the summary"
    );
    assert!(
        of_role("system")
            .iter()
            .any(|m| m.contains("CONVERSATION SUMMARY") && words(m).contains(&words(&summary))),
        "{next}"
    );
    browser.close().await;
}

#[tokio::test]
async fn a_failed_summary_leaves_every_message_verbatim_and_offers_retry() {
    let server = TestServer::start().await;
    server.script([
        text("a1"),
        text("a2"),
        text("a3"),
        text("a4"),
        status(500, "server_error", "summariser down"),
        status(500, "server_error", "summariser down"),
        status(500, "server_error", "summariser down"),
    ]);
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    for n in 1..=4 {
        send(&browser, &format!("question {n}")).await;
        wait_settled(&browser, 2 * n).await;
    }
    let error = error_text(&browser).await;
    assert!(error.contains("summary could not be written"), "{error}");
    assert!(error.contains("summariser down"), "{error}");
    let shown = messages(&browser).await;
    assert_eq!(shown.len(), 8);
    assert!(shown.iter().all(|m| m.1 == "verbatim"), "{shown:?}");
    assert!(absent(&browser, "summary").await);
    // Retry runs the job again; the server echoes now, so a summary appears.
    browser.click_testid("retry").await;
    browser.wait_testid("summary").await;
    browser
        .wait_until(
            "document.querySelectorAll(\"[data-state='folded']\").length === 4",
            "4 folded messages after the retry",
        )
        .await;
    assert!(absent(&browser, "error").await);
    browser.close().await;
}

#[tokio::test]
async fn run_live_sends_a_demos_messages_to_the_endpoint_with_its_policy() {
    let script = summary_memory::engine::DemoScript::fincoach();
    let server = TestServer::start().await;
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    browser
        .wait_testid("demo-picker")
        .await
        .select_by_value("fincoach")
        .await
        .unwrap();
    browser.click_testid("run-live").await;
    // Six turns under 4/2: a cycle after turn 4 folds turns 1-2, one after turn 6 folds 3-4.
    browser
        .wait_until(
            "document.querySelectorAll(\"[data-testid='message']\").length === 12 && \
             document.querySelectorAll(\"[data-state='folded']\").length === 8",
            "the demo to run live with two cycles",
        )
        .await;
    let shown = messages(&browser).await;
    let users: Vec<&str> = shown
        .iter()
        .filter(|m| m.0 == "user")
        .map(|m| m.2.as_str())
        .collect();
    let scripted: Vec<&str> = script.turns.iter().map(|(user, _)| *user).collect();
    assert_eq!(words(&users.join(" ")), words(&scripted.join(" ")));
    // The replies came from the endpoint, not from the script.
    let first_reply = &shown[1].2;
    assert!(first_reply.starts_with("You said:"), "{first_reply}");
    browser.wait_testid("summary").await;
    let bodies = posts(&server);
    assert_eq!(bodies.len(), 8, "six chat requests and two summaries");
    assert_eq!(bodies[0]["messages"][0]["content"], script.system_prompt);
    assert_eq!(bodies[4]["model"], "test-summary");
    assert_eq!(bodies[7]["model"], "test-summary");
    assert!(absent(&browser, "error").await);
    browser.close().await;
}

/// (data-kind, data-client, data-api-prompt, data-api-completion) of every model call listed.
async fn call_usage(browser: &Browser) -> Vec<Vec<String>> {
    let value = browser
        .client
        .execute(
            "return [...document.querySelectorAll(\"[data-testid='call-usage']\")].map(c => \
             [c.dataset.kind, c.dataset.client, c.dataset.apiPrompt, c.dataset.apiCompletion])",
            vec![],
        )
        .await
        .unwrap();
    serde_json::from_value(value).unwrap()
}

#[tokio::test]
async fn a_live_chat_is_kept_in_the_library_and_resumed_after_a_reload() {
    let server = TestServer::start().await;
    let long = "one two three four five six seven eight nine ten eleven twelve thirteen";
    server.script([text("First answer."), text(long), text("Third answer.")]);
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    send(&browser, "first question").await;
    wait_settled(&browser, 2).await;
    // The second reply is stopped part way: it stays, marked incomplete.
    server.chunk_delay(Duration::from_millis(250));
    send(&browser, "second question").await;
    browser
        .wait_until(
            "document.querySelector(\"[data-state='streaming'] .content\")?.textContent.length > 3",
            "part of the second reply to stream in",
        )
        .await;
    browser.click_testid("stop").await;
    wait_settled(&browser, 4).await;
    server.chunk_delay(Duration::ZERO);
    let before = messages(&browser).await;
    assert_eq!(before[3].1, "incomplete");
    assert!(long.starts_with(&before[3].2) && before[3].2.len() < long.len());
    let calls = call_usage(&browser).await;
    assert_eq!(calls.len(), 2, "{calls:?}");

    // Saved after every change: the library's record already holds the stopped reply, marked.
    let stored = "const done = arguments[arguments.length - 1];
        const open = indexedDB.open('summary-memory');
        open.onerror = () => done(false);
        open.onsuccess = () => {
            const all = open.result.transaction('sessions').objectStore('sessions').getAll();
            all.onsuccess = () => {
                open.result.close();
                done(all.result.some((r) => {
                    const live = JSON.parse(r.file).session.live;
                    return live && live.incomplete.includes(3) && live.calls.length === 2;
                }));
            };
            all.onerror = () => done(false);
        };";
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    loop {
        let saved = browser.client.execute_async(stored, vec![]).await.unwrap();
        if saved == Value::Bool(true) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the live chat was never saved with its stopped reply"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // A reload resumes the same conversation, message for message.
    browser.open("?tab=chat").await;
    wait_settled(&browser, 4).await;
    assert_eq!(messages(&browser).await, before);
    // The incomplete marker and the record of model calls come back with it.
    browser
        .wait_until(
            "document.querySelectorAll(\"[data-testid='message'][data-state='incomplete']\").length === 1",
            "the stopped reply to be shown incomplete after the reload",
        )
        .await;
    assert_eq!(call_usage(&browser).await, calls);
    // Chatting on keeps saving into the same session, not a new one.
    send(&browser, "third question").await;
    wait_settled(&browser, 6).await;
    let sent = posts(&server);
    assert_eq!(sent.len(), 3);
    // A reply the user stopped is still sent; only one a failure cut short would not be.
    assert_eq!(sent[2]["messages"].as_array().unwrap().len(), 6);
    assert_eq!(call_usage(&browser).await.len(), 3);

    // It is a session like any other: listed, duplicated and exported in Inspect.
    browser.click_testid("tab-inspect").await;
    browser
        .wait_until(
            "[...document.querySelectorAll(\"[data-testid='session-item']\")].map(e => e.textContent).join('|').includes('3 turns')",
            "the live chat's third turn in the library",
        )
        .await;
    assert_eq!(browser.all_testid("session-item").await.len(), 1);
    let item = browser.wait_testid("session-name").await;
    assert_eq!(item.text().await.unwrap(), "Live chat");
    browser.click_testid("session-duplicate").await;
    browser
        .wait_until(
            "document.querySelectorAll(\"[data-testid='session-item']\").length === 2",
            "the duplicate",
        )
        .await;
    browser.click_testid("export").await;
    browser
        .wait_until(
            "document.querySelector(\"[data-testid='export-preview']\").textContent.includes('Live chat (copy)')",
            "the export of both sessions",
        )
        .await;
    let export = browser
        .client
        .execute(
            "return document.querySelector(\"[data-testid='export-preview']\").textContent",
            vec![],
        )
        .await
        .unwrap();
    let export: Value = serde_json::from_str(export.as_str().unwrap()).unwrap();
    for session in export["sessions"].as_array().unwrap() {
        let archive = session["session"]["archive"].as_array().unwrap();
        assert_eq!(archive.len(), 6);
        assert_eq!(archive[5]["content"], "Third answer.");
    }
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

/// The text of the Chat tab's front page, whitespace made single spaces.
async fn summary_text(browser: &Browser) -> String {
    words(&browser.wait_testid("summary").await.text().await.unwrap())
}

#[tokio::test]
async fn the_live_chats_editions_are_shown_and_restore_and_edit_reach_the_chat() {
    let server = TestServer::start().await;
    server.script([
        text("First answer."),
        text("Second answer."),
        text("The user asked two questions."),
    ]);
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    // A small trigger: summarise at 2 turns, keep 1 (keep first, so each step is valid).
    browser.type_into("policy-keep", "1").await;
    browser.type_into("policy-max_turns", "2").await;
    browser
        .wait_until(
            "!document.querySelector('[data-testid=param-error]')",
            "the new trigger to apply",
        )
        .await;
    browser.click_testid("tab-editions").await;
    browser.wait_testid("panel-editions").await;
    assert_eq!(browser.all_testid("edition").await.len(), 0);
    browser.click_testid("tab-chat").await;
    for n in 1..=2 {
        send(&browser, &format!("question {n}")).await;
        wait_settled(&browser, 2 * n).await;
    }
    browser.wait_testid("summary").await;
    let first = summary_text(&browser).await;
    assert_eq!(first, "The user asked two questions.");

    // The live memory's edition, the same way a demo's is shown.
    browser.click_testid("tab-editions").await;
    browser
        .wait_until(
            "document.querySelectorAll(\"[data-testid='edition'][data-cycle='1']\").length === 1",
            "the live chat's first edition",
        )
        .await;
    let edition = &browser.all_testid("edition").await[0];
    let folded = edition
        .find(Locator::Css("[data-testid=edition-folded]"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        folded.contains("question 1") && !folded.contains("question 2"),
        "{folded}"
    );
    assert_eq!(
        browser
            .wait_testid("timeline-position")
            .await
            .text()
            .await
            .unwrap(),
        "1 of 1: Edition 1 · turn 1 folded"
    );

    // Edit prints edition 2 by hand, and the Chat's summary follows.
    browser
        .edit_edition(edition, "Edited by hand: two questions.")
        .await;
    browser
        .wait_until(
            "document.querySelectorAll(\"[data-testid='edition'][data-cycle='2']\").length === 1",
            "a hand-edited second edition",
        )
        .await;
    browser.click_testid("tab-chat").await;
    assert_eq!(
        summary_text(&browser).await,
        "Edited by hand: two questions."
    );

    // Restore brings edition 1 back as edition 3, and the Chat's summary follows again.
    browser.click_testid("tab-editions").await;
    browser.wait_testid("edition").await;
    browser.all_testid("edition").await[0]
        .find(Locator::Css("[data-testid=edition-restore]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser
        .wait_until(
            "document.querySelectorAll(\"[data-testid='edition'][data-cycle='3']\").length === 1",
            "the restored third edition",
        )
        .await;
    browser.click_testid("tab-chat").await;
    assert_eq!(summary_text(&browser).await, first);
    // The next request carries the restored summary.
    send(&browser, "question 3").await;
    wait_settled(&browser, 6).await;
    let last = posts(&server).pop().unwrap().to_string();
    assert!(last.contains("The user asked two questions."), "{last}");
    assert!(!last.contains("Edited by hand"), "{last}");
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

/// Plays four echoed turns; under the default 4/2 policy the summary is then due, and the
/// next scripted reply answers it.
async fn four_turns(browser: &Browser) {
    for n in 1..=3 {
        send(browser, &format!("question {n}")).await;
        wait_settled(browser, 2 * n).await;
    }
    send(browser, "question 4").await;
    browser
        .wait_until(
            "document.querySelectorAll(\"[data-testid='message']\").length === 8 && \
             !document.querySelector(\"[data-state='streaming']\")",
            "the fourth reply",
        )
        .await;
}

/// A summary is not streamed, so a slow local model sends nothing until it has written it
/// all: the chat's timeout cut it off and every retry did the same. Meanwhile Enter sent the
/// next message, racing the commit. The summary now has a timeout it can meet, and Enter
/// waits.
#[tokio::test]
async fn a_slow_summary_is_waited_for_and_enter_does_not_send_meanwhile() {
    let server = TestServer::start().await;
    server.script([
        text("a1"),
        text("a2"),
        text("a3"),
        text("a4"),
        Reply::DelayedText {
            text: "The slow model's summary.".into(),
            delay: Duration::from_secs(5),
        },
    ]);
    let browser = Browser::new().await;
    let mut setup = Setup::new(&server.base_url);
    setup.timeout = Some("2");
    connect(&browser, setup).await;
    four_turns(&browser).await;
    // The summary is being written: Stop is offered, and Enter keeps the message in the box.
    browser.wait_testid("stop-summary").await;
    let input = browser.wait_testid("chat-input").await;
    input.send_keys("question 5").await.unwrap();
    input.send_keys("\u{E007}").await.unwrap();
    let error = error_text(&browser).await;
    assert!(error.contains("A summary is being written"), "{error}");
    assert_eq!(
        input.prop("value").await.unwrap().as_deref(),
        Some("question 5")
    );
    assert_eq!(posts(&server).len(), 5);
    let summary = browser.wait_testid("summary").await.text().await.unwrap();
    assert_eq!(summary, "The slow model's summary.");
    wait_settled(&browser, 8).await;
    assert_eq!(posts(&server).len(), 5, "the summary was asked once");
    // Once it is in, Enter sends.
    input.send_keys("\u{E007}").await.unwrap();
    wait_settled(&browser, 10).await;
    assert_eq!(messages(&browser).await[9].2, "You said: question 5");
    browser.close().await;
}

/// A summary could not be stopped: Stop now ends it, the failure is recorded, and Retry
/// writes it.
#[tokio::test]
async fn stop_ends_a_summary_being_written_and_retry_writes_it() {
    let server = TestServer::start().await;
    server.script([
        text("a1"),
        text("a2"),
        text("a3"),
        text("a4"),
        Reply::DelayedText {
            text: "never seen".into(),
            delay: Duration::from_secs(60),
        },
    ]);
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    four_turns(&browser).await;
    browser.click_testid("stop-summary").await;
    let error = error_text(&browser).await;
    assert!(
        error.contains("The summary could not be written"),
        "{error}"
    );
    assert!(error.contains("stopped"), "{error}");
    assert!(absent(&browser, "summary").await);
    browser.click_testid("retry").await;
    let summary = browser.wait_testid("summary").await.text().await.unwrap();
    assert!(summary.starts_with("You said:"), "{summary}");
    assert_eq!(posts(&server).len(), 6);
    browser.close().await;
}

/// Retries waited in silence: the chat now says what failed, counts down to the next attempt,
/// and offers to cancel, which leaves the failure with Retry.
#[tokio::test]
async fn a_summary_retry_counts_down_and_can_be_cancelled() {
    let server = TestServer::start().await;
    server.script([
        text("a1"),
        text("a2"),
        text("a3"),
        text("a4"),
        Reply::RateLimitedMs(9_000),
    ]);
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    four_turns(&browser).await;
    let status = browser.wait_testid("retry-status").await;
    let first = status.text().await.unwrap();
    assert!(first.contains("The summary request failed"), "{first}");
    assert!(first.contains("Rate limit"), "{first}");
    assert!(first.contains("attempt 2 of 3"), "{first}");
    let seconds = |text: &str| -> u64 {
        let after = text
            .split("Retrying in ")
            .nth(1)
            .unwrap_or_else(|| panic!("{text}"));
        after.split(' ').next().unwrap().parse().unwrap()
    };
    let at_first = seconds(&first);
    assert!((1..=9).contains(&at_first), "{first}");
    // The countdown moves.
    browser
        .wait_until(
            &format!(
                "(document.querySelector(\"[data-testid='retry-status']\") || {{}}).textContent \
                 && !document.querySelector(\"[data-testid='retry-status']\").textContent.includes('Retrying in {at_first} s')"
            ),
            "the countdown to move",
        )
        .await;
    browser.click_testid("cancel-retry").await;
    let error = error_text(&browser).await;
    assert!(
        error.contains("The summary could not be written"),
        "{error}"
    );
    assert!(error.contains("Retries cancelled"), "{error}");
    assert!(absent(&browser, "retry-status").await);
    assert_eq!(posts(&server).len(), 5, "no attempt after the cancel");
    browser.click_testid("retry").await;
    browser.wait_testid("summary").await;
    assert_eq!(posts(&server).len(), 6);
    browser.close().await;
}

/// Picking a demo while a live reply streamed let the reply's request run on under whatever
/// came next (Run live then mixed its deltas into the new conversation). The pick is refused
/// until the reply is in, or stopped.
#[tokio::test]
async fn a_demo_pick_while_a_reply_streams_is_refused_until_stop() {
    let server = TestServer::start().await;
    server.chunk_delay(Duration::from_millis(150));
    server.script([text(&"a slowly streamed reply ".repeat(10))]);
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    send(&browser, "tell me slowly").await;
    browser
        .wait_until(
            "document.querySelector(\"[data-state='streaming'] .content\") && \
             document.querySelector(\"[data-state='streaming'] .content\").textContent.length > 0",
            "the reply to start",
        )
        .await;
    let picker = browser.wait_testid("demo-picker").await;
    picker.select_by_value("fincoach").await.unwrap();
    let error = error_text(&browser).await;
    assert!(error.contains("press Stop first"), "{error}");
    assert_eq!(picker.prop("value").await.unwrap().as_deref(), Some(""));
    // Still the live chat, still streaming into it.
    assert_eq!(messages(&browser).await[0].2, "tell me slowly");
    browser.click_testid("stop").await;
    wait_settled(&browser, 2).await;
    picker.select_by_value("fincoach").await.unwrap();
    browser
        .wait_until(
            "document.querySelector(\"[data-testid='progress']\")",
            "the demo to load",
        )
        .await;
    browser.close().await;
}
