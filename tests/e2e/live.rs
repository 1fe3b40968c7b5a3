//! Live mode in the Chat tab against the loopback test server: streaming, Stop, every failure
//! the client classifies (each keeps the user's message and offers Retry), and the summariser
//! cycle run through the same endpoint.

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::{Browser, check_failure, failure, free_port, posts, text, words};
use crate::openai_server::{Reply, TestServer};
use crate::pages::chat::{ChatPage, KEY, Setup};
use crate::pages::editions::EditionsPage;

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
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    // Our prompt count below is exact only once the vocabulary has loaded: the chat box,
    // focused, asks for it.
    let input = chat.input().await;
    input.click().await.unwrap();
    browser.wait_vocabulary().await;
    // Shift+Enter adds a line; Enter sends.
    // WebDriver holds Shift from the first \u{E008} to the second, so only Enter is shifted.
    input
        .send_keys("first line\u{E008}\u{E007}\u{E008}second line")
        .await
        .unwrap();
    assert!(
        browser.is_absent("message").await,
        "Shift+Enter must not send"
    );
    input.send_keys("\u{E007}").await.unwrap();
    chat.wait_settled(2).await;
    let shown = chat.messages().await;
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
    assert!(browser.is_absent("error").await);
    assert!(browser.is_absent("retry").await);

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
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("count for me").await;
    chat.wait_streaming_longer_than(3, "part of the reply to stream in")
        .await;
    browser.click_testid("stop").await;
    chat.wait_settled(2).await;
    let shown = chat.messages().await;
    assert_eq!(shown[0].2, "count for me");
    assert_eq!(shown[1].1, "incomplete");
    assert!(
        !shown[1].2.is_empty() && full.starts_with(&shown[1].2) && shown[1].2.len() < full.len(),
        "{:?}",
        shown[1].2
    );
    // Stop is not a failure: no error, and the next message can be sent.
    assert!(browser.is_absent("error").await);
    server.chunk_delay(Duration::ZERO);
    chat.send("again").await;
    chat.wait_settled(4).await;
    assert_eq!(chat.messages().await[3].1, "verbatim");
    browser.close().await;
}

#[tokio::test]
async fn a_closed_port_shows_a_network_error_and_keeps_the_message() {
    let browser = Browser::new().await;
    let base_url = format!("http://127.0.0.1:{}/v1", free_port());
    let chat = ChatPage::connect(&browser, Setup::new(&base_url)).await;
    chat.send("anyone there?").await;
    let error = chat.error_text().await;
    assert!(
        error.starts_with(&format!("Could not reach {base_url}")),
        "{error}"
    );
    assert!(error.contains("CORS"), "{error}");
    chat.wait_settled(1).await;
    assert_eq!(chat.messages().await[0].2, "anyone there?");
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
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("are you busy?").await;
    chat.wait_settled(2).await;
    let shown = chat.messages().await;
    assert_eq!(
        (shown[1].1.as_str(), shown[1].2.as_str()),
        ("verbatim", "Worth the wait.")
    );
    assert!(browser.is_absent("error").await);
    assert_eq!(posts(&server).len(), 2);
    browser.close().await;
}

#[tokio::test]
async fn a_server_rejecting_include_usage_still_answers_and_is_not_asked_again() {
    let server = TestServer::start().await;
    server.reject_include_usage();
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("first").await;
    chat.wait_settled(2).await;
    assert_eq!(chat.messages().await[1].2, "You said: first");
    assert!(browser.is_absent("error").await);
    chat.send("second").await;
    chat.wait_settled(4).await;
    assert_eq!(chat.messages().await[3].2, "You said: second");
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
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    for n in 1..=4 {
        chat.send(&format!("question {n}")).await;
        chat.wait_settled(2 * n).await;
    }
    let summary = chat.summary().await;
    assert!(!summary.trim().is_empty());
    chat.wait_in_state("folded", 4, "4 folded messages").await;
    let shown = chat.messages().await;
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
    chat.send("question 5").await;
    chat.wait_settled(10).await;
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
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    for n in 1..=4 {
        chat.send(&format!("question {n}")).await;
        chat.wait_settled(2 * n).await;
    }
    let error = chat.error_text().await;
    assert!(error.contains("summary could not be written"), "{error}");
    assert!(error.contains("summariser down"), "{error}");
    let shown = chat.messages().await;
    assert_eq!(shown.len(), 8);
    assert!(shown.iter().all(|m| m.1 == "verbatim"), "{shown:?}");
    assert!(browser.is_absent("summary").await);
    // Retry runs the job again; the server echoes now, so a summary appears.
    browser.click_testid("retry").await;
    browser.wait_testid("summary").await;
    chat.wait_in_state("folded", 4, "4 folded messages after the retry")
        .await;
    assert!(browser.is_absent("error").await);
    browser.close().await;
}

#[tokio::test]
async fn run_live_sends_a_demos_messages_to_the_endpoint_with_its_policy() {
    let script = summary_memory::engine::DemoScript::fincoach();
    let server = TestServer::start().await;
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.pick_demo("fincoach").await;
    browser.click_testid("run-live").await;
    // Six turns under 4/2: a cycle after turn 4 folds turns 1-2, one after turn 6 folds 3-4.
    chat.wait_messages_folded(12, 8, "the demo to run live with two cycles")
        .await;
    let shown = chat.messages().await;
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
    assert!(browser.is_absent("error").await);
    browser.close().await;
}

#[tokio::test]
async fn a_live_chat_is_kept_in_the_library_and_resumed_after_a_reload() {
    let server = TestServer::start().await;
    let long = "one two three four five six seven eight nine ten eleven twelve thirteen";
    server.script([text("First answer."), text(long), text("Third answer.")]);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("first question").await;
    chat.wait_settled(2).await;
    // The second reply is stopped part way: it stays, marked incomplete.
    server.chunk_delay(Duration::from_millis(250));
    chat.send("second question").await;
    chat.wait_streaming_longer_than(3, "part of the second reply to stream in")
        .await;
    browser.click_testid("stop").await;
    chat.wait_settled(4).await;
    server.chunk_delay(Duration::ZERO);
    let before = chat.messages().await;
    assert_eq!(before[3].1, "incomplete");
    assert!(long.starts_with(&before[3].2) && before[3].2.len() < long.len());
    let calls = chat.call_usage().await;
    assert_eq!(calls.len(), 2, "{calls:?}");

    // Saved after every change: the library's record already holds the stopped reply, marked.
    chat.wait_saved(3, 2).await;

    // A reload resumes the same conversation, message for message.
    browser.open("?tab=chat").await;
    chat.wait_settled(4).await;
    assert_eq!(chat.messages().await, before);
    // The incomplete marker and the record of model calls come back with it.
    chat.wait_in_state(
        "incomplete",
        1,
        "the stopped reply to be shown incomplete after the reload",
    )
    .await;
    assert_eq!(chat.call_usage().await, calls);
    // Chatting on keeps saving into the same session, not a new one.
    chat.send("third question").await;
    chat.wait_settled(6).await;
    let sent = posts(&server);
    assert_eq!(sent.len(), 3);
    // A reply the user stopped is still sent; only one a failure cut short would not be.
    assert_eq!(sent[2]["messages"].as_array().unwrap().len(), 6);
    assert_eq!(chat.call_usage().await.len(), 3);

    // It is a session like any other: listed, duplicated and exported in Inspect.
    browser.click_testid("tab-inspect").await;
    browser
        .wait_texts_include(
            "session-item",
            "3 turns",
            "the live chat's third turn in the library",
        )
        .await;
    assert_eq!(browser.all_testid("session-item").await.len(), 1);
    let item = browser.wait_testid("session-name").await;
    assert_eq!(item.text().await.unwrap(), "Live chat");
    browser.click_testid("session-duplicate").await;
    browser.wait_count("session-item", 2, "the duplicate").await;
    browser.click_testid("export").await;
    browser
        .wait_text_contains(
            "export-preview",
            "Live chat (copy)",
            "the export of both sessions",
        )
        .await;
    let export: Value =
        serde_json::from_str(&browser.text_content("export-preview").await).unwrap();
    for session in export["sessions"].as_array().unwrap() {
        let archive = session["session"]["archive"].as_array().unwrap();
        assert_eq!(archive.len(), 6);
        assert_eq!(archive[5]["content"], "Third answer.");
    }
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
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
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    // A small trigger: summarise at 2 turns, keep 1 (keep first, so each step is valid).
    browser.type_into("policy-keep", "1").await;
    browser.type_into("policy-max_turns", "2").await;
    browser
        .wait_gone("param-error", "the new trigger to apply")
        .await;
    let editions = EditionsPage::new(&browser);
    editions.open().await;
    browser.wait_testid("panel-editions").await;
    assert_eq!(editions.cards().await.len(), 0);
    browser.click_testid("tab-chat").await;
    for n in 1..=2 {
        chat.send(&format!("question {n}")).await;
        chat.wait_settled(2 * n).await;
    }
    let first = words(&chat.summary().await);
    assert_eq!(first, "The user asked two questions.");

    // The live memory's edition, the same way a demo's is shown.
    editions.open().await;
    editions
        .wait_cycle(1, "the live chat's first edition")
        .await;
    let edition = &editions.cards().await[0];
    let folded = edition.part("edition-folded").await;
    assert!(
        folded.contains("question 1") && !folded.contains("question 2"),
        "{folded}"
    );
    assert_eq!(
        editions.timeline_position().await,
        "1 of 1: Edition 1 · turn 1 folded"
    );

    // Edit prints edition 2 by hand, and the Chat's summary follows.
    editions
        .edit(edition, "Edited by hand: two questions.")
        .await;
    editions.wait_cycle(2, "a hand-edited second edition").await;
    browser.click_testid("tab-chat").await;
    assert_eq!(
        words(&chat.summary().await),
        "Edited by hand: two questions."
    );

    // Restore brings edition 1 back as edition 3, and the Chat's summary follows again.
    editions.open().await;
    browser.wait_testid("edition").await;
    editions.cards().await[0].restore().await;
    editions.wait_cycle(3, "the restored third edition").await;
    browser.click_testid("tab-chat").await;
    assert_eq!(words(&chat.summary().await), first);
    // The next request carries the restored summary.
    chat.send("question 3").await;
    chat.wait_settled(6).await;
    let last = posts(&server).pop().unwrap().to_string();
    assert!(last.contains("The user asked two questions."), "{last}");
    assert!(!last.contains("Edited by hand"), "{last}");
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

/// Plays four echoed turns; under the default 4/2 policy the summary is then due, and the
/// next scripted reply answers it.
async fn four_turns(chat: &ChatPage<'_>) {
    for n in 1..=3 {
        chat.send(&format!("question {n}")).await;
        chat.wait_settled(2 * n).await;
    }
    chat.send("question 4").await;
    chat.wait_replied(8, "the fourth reply").await;
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
    let chat = ChatPage::connect(&browser, setup).await;
    four_turns(&chat).await;
    // The summary is being written: Stop is offered, and Enter keeps the message in the box.
    browser.wait_testid("stop-summary").await;
    let input = chat.input().await;
    input.send_keys("question 5").await.unwrap();
    input.send_keys("\u{E007}").await.unwrap();
    let error = chat.error_text().await;
    assert!(error.contains("A summary is being written"), "{error}");
    assert_eq!(
        input.prop("value").await.unwrap().as_deref(),
        Some("question 5")
    );
    assert_eq!(posts(&server).len(), 5);
    assert_eq!(chat.summary().await, "The slow model's summary.");
    chat.wait_settled(8).await;
    assert_eq!(posts(&server).len(), 5, "the summary was asked once");
    // Once it is in, Enter sends.
    input.send_keys("\u{E007}").await.unwrap();
    chat.wait_settled(10).await;
    assert_eq!(chat.messages().await[9].2, "You said: question 5");
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
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    four_turns(&chat).await;
    // The summaries are drawn as every long job's run.
    let status = |slug: &str| {
        format!(
            "(document.querySelector(\"[data-testid='summary-progress']\") || {{dataset: {{}}}}).dataset.status === '{slug}'"
        )
    };
    browser
        .wait_until(&status("running"), "the summary running")
        .await;
    browser.click_testid("stop-summary").await;
    let error = chat.error_text().await;
    assert!(
        error.contains("The summary could not be written"),
        "{error}"
    );
    assert!(error.contains("stopped"), "{error}");
    browser
        .wait_until(&status("stopped"), "the summary stopped")
        .await;
    assert!(browser.is_absent("summary").await);
    browser.click_testid("retry").await;
    let summary = chat.summary().await;
    assert!(summary.starts_with("You said:"), "{summary}");
    browser
        .wait_until(&status("done"), "the summary done")
        .await;
    assert!(browser.is_absent("error").await);
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
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    four_turns(&chat).await;
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
    chat.wait_countdown_past(at_first).await;
    browser.click_testid("cancel-retry").await;
    let error = chat.error_text().await;
    assert!(
        error.contains("The summary could not be written"),
        "{error}"
    );
    assert!(error.contains("Retries cancelled"), "{error}");
    assert!(browser.is_absent("retry-status").await);
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
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("tell me slowly").await;
    chat.wait_streaming_longer_than(0, "the reply to start")
        .await;
    let picker = chat.demo_picker().await;
    picker.select_by_value("fincoach").await.unwrap();
    let error = chat.error_text().await;
    assert!(error.contains("press Stop first"), "{error}");
    assert_eq!(picker.prop("value").await.unwrap().as_deref(), Some(""));
    // Still the live chat, still streaming into it.
    assert_eq!(chat.messages().await[0].2, "tell me slowly");
    browser.click_testid("stop").await;
    chat.wait_settled(2).await;
    picker.select_by_value("fincoach").await.unwrap();
    browser.wait_testid("progress").await;
    browser.close().await;
}

/// An "exact policy" field changed in the panel changes the next fold of the live chat: with
/// the last message kept instead of the last turn, the next request holds the second reply
/// without its question, and the summary goes in a lone user message with the typed prefix.
#[tokio::test]
async fn an_exact_policy_field_changes_the_next_fold_in_the_live_chat() {
    let server = TestServer::start().await;
    server.script([
        text("First answer."),
        text("Second answer."),
        text("The user asked two questions."),
        text("Third answer."),
    ]);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    browser.type_into("policy-keep", "1").await;
    browser.type_into("policy-max_turns", "2").await;
    browser
        .wait_gone("param-error", "the new trigger to apply")
        .await;
    // The section is collapsed until opened; today's rules are its defaults, folded away.
    chat.open_exact().await;
    chat.choose("policy-exact_keep", "messages").await;
    browser.type_into("policy-exact_keep_n", "1").await;
    chat.choose("policy-exact_summary_at", "user").await;
    browser
        .type_into("policy-exact_summary_prefix", "Summary so far: ")
        .await;
    browser
        .wait_gone("policy-exact-error", "the exact policy to apply")
        .await;
    for n in 1..=2 {
        chat.send(&format!("question {n}")).await;
        chat.wait_settled(2 * n).await;
    }
    chat.send("question 3").await;
    chat.wait_settled(6).await;
    let last = posts(&server).pop().unwrap();
    let sent: Vec<(String, String)> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap_or_default().to_owned(),
                m["content"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let contents: Vec<&str> = sent.iter().map(|m| m.1.as_str()).collect();
    assert_eq!(sent[1].0, "user", "{sent:?}");
    assert_eq!(sent[1].1, "Summary so far: The user asked two questions.");
    assert!(!contents.contains(&"question 2"), "{sent:?}");
    assert_eq!(&contents[2..], ["Second answer.", "question 3"], "{sent:?}");
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

/// Under an exact policy that checks before each request, the message that makes a summary due
/// waits for it: the summariser is asked first, and the chat request that follows carries the
/// new summary instead of the folded turn.
#[tokio::test]
async fn a_summary_due_before_a_request_is_written_before_that_request() {
    let server = TestServer::start().await;
    server.script([
        text("First answer."),
        text("The user asked one question."),
        text("Second answer."),
    ]);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.choose("policy-trigger", "tokens").await;
    browser.type_into("policy-keep_tokens", "1").await;
    browser.type_into("policy-budget", "5").await;
    chat.open_exact().await;
    chat.choose("policy-exact_check", "before_request").await;
    chat.choose("policy-exact_counted", "history").await;
    chat.choose("policy-exact_keep", "messages").await;
    browser.type_into("policy-exact_keep_n", "1").await;
    browser
        .wait_gone("policy-exact-error", "the exact policy to apply")
        .await;
    browser
        .wait_gone("param-error", "the new trigger to apply")
        .await;
    chat.send("question one").await;
    chat.wait_settled(2).await;
    chat.send("question two").await;
    chat.wait_settled(4).await;
    let bodies = posts(&server);
    assert_eq!(
        bodies.len(),
        3,
        "a chat request, the summary, a chat request"
    );
    let last = bodies[2].to_string();
    assert!(last.contains("The user asked one question."), "{last}");
    assert!(!last.contains("question one"), "{last}");
    assert!(last.contains("question two"), "{last}");
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}
