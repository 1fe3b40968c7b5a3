//! "Continue in a new session": from an edition of the FinCoach demo and from a Claude Code
//! compaction in an imported session log, a new live chat opens whose first request (shown in
//! the context window before anything is sent) holds the system prompt and that edition's
//! summary and none of the old turns; the loopback server's first reply answers from a fact
//! only the summary holds; Inspect links the new session and its source both ways.

use serde_json::Value;

use crate::harness::{Browser, TempDir, posts};
use crate::openai_server::{Reply, TestServer};
use crate::pages::chat::{ChatPage, Setup};
use crate::pages::continued::ContinuedPage;
use crate::pages::editions::EditionsPage;
use crate::pages::inspect::InspectPage;

const CLAUDE_CODE: &str = include_str!("../fixtures/transcripts/claude_code_session.jsonl");

/// The messages of a request body as (role, content).
fn messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_owned(),
                m["content"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// A model that answers how much Chiru takes home from what the request before the question
/// holds, and says it does not know when nothing there does.
fn answers_from_the_context(body: &Value) -> Option<Reply> {
    let all = messages(body);
    let (_, before) = all.split_last()?;
    let figure = before.iter().find_map(|(_, text)| {
        let at = text.find("takes home ")? + "takes home ".len();
        text[at..].split_whitespace().next().map(str::to_owned)
    });
    Some(Reply::Text(match figure {
        Some(figure) => format!("You take home {figure} a month."),
        None => "I do not know what you take home.".to_owned(),
    }))
}

#[tokio::test]
async fn a_fincoach_edition_continues_in_a_chat_whose_first_reply_answers_from_its_summary() {
    let server = TestServer::start().await;
    server.respond_with(answers_from_the_context);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.pick_demo("fincoach").await;
    let editions = EditionsPage::new(&browser);
    editions.open().await;
    editions.play_all().await;
    editions.wait_cycle(1, "FinCoach's first edition").await;
    let summary = editions.after_texts().await[0].clone();
    assert!(summary.contains("1,20,000"), "{summary}");

    let continued = ContinuedPage::new(&browser);
    continued.continue_from(1).await;
    assert!(continued.note().await.contains("edition 1"));
    assert_eq!(continued.needs().await, None, "an endpoint is set");
    // Before anything is sent: the system prompt and the summary, no turn, no message.
    let first = continued.first_request().await;
    assert!(
        first.kinds.iter().all(|k| k != "turn") && first.kinds[0] == "system",
        "{first:?}"
    );
    assert!(browser.is_absent("message").await, "no old turn is shown");

    chat.send("How much do I take home each month?").await;
    chat.wait_settled(2).await;
    let shown = chat.messages().await;
    assert_eq!(shown[1].2, "You take home ₹1,20,000 a month.", "{shown:?}");
    // The request held the system prompt, the summary as the policy placed it, and the
    // question: no verbatim turn of the demo.
    let sent = posts(&server);
    assert_eq!(sent.len(), 1, "{sent:?}");
    let request = messages(&sent[0]);
    assert_eq!(request[0].0, "system");
    assert_eq!(
        request.last().unwrap(),
        &(
            "user".to_owned(),
            "How much do I take home each month?".to_owned()
        )
    );
    let holding: Vec<_> = request
        .iter()
        .filter(|(_, text)| text.contains("1,20,000"))
        .collect();
    assert_eq!(holding.len(), 1, "the summary once: {request:?}");
    assert!(request.len() <= 4, "head and question only: {request:?}");
    // Inspect names where it came from: the demo, which is no library session.
    let inspect = InspectPage::click_tab(&browser).await;
    inspect.wait_sessions(1).await;
    continued.open_named("Continued from FinCoach").await;
    let (edition, words) = continued.wait_continued_from().await;
    assert_eq!(edition, "1");
    assert!(words.contains("the demo"), "{words}");
}

#[tokio::test]
async fn a_claude_code_compaction_continues_in_a_chat_that_says_what_it_needs_and_links_back() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let inspect = InspectPage::open_counted(&browser).await;
    inspect
        .import(&dir.write("0b6f6a4e-session.jsonl", CLAUDE_CODE))
        .await;
    inspect.wait_import_note("claude-code").await;
    inspect
        .wait_detail_contains("Budget tracker: CSV import", "the imported session")
        .await;
    let rows = inspect.editions().await.wait_editions(2).await;
    assert_eq!(rows[1].summariser, "claude-code");

    let continued = ContinuedPage::new(&browser);
    // A compaction that folded turns says what it covers, with the log's own times (the
    // second folds no new turn, so it has no span).
    assert_eq!(
        continued.spans().await,
        ["Covers turns 1–2 · 6 messages · 2026-03-02 09:00 to 09:05 UTC"]
    );
    continued.continue_from(2).await;
    // No endpoint: the new session opens all the same and says what it needs.
    assert_eq!(continued.needs().await.as_deref(), Some("endpoint"));
    let first = continued.first_request().await;
    assert_eq!(first.turn, "1");
    assert!(first.kinds.contains(&"summary".to_owned()), "{first:?}");
    assert!(first.kinds.iter().all(|k| k != "turn"), "{first:?}");
    assert!(browser.is_absent("message").await);

    // Inspect links the two both ways.
    let inspect = InspectPage::click_tab(&browser).await;
    inspect.library().await;
    inspect.wait_sessions(2).await;
    continued.open_named("Continued from Budget tracker").await;
    let (edition, words) = continued.wait_continued_from().await;
    assert_eq!(edition, "2");
    assert!(words.contains("Budget tracker: CSV import"), "{words}");
    continued.open_source().await;
    inspect
        .wait_detail_contains(
            "Budget tracker: CSV import",
            "the source, opened by the link",
        )
        .await;
    let back = continued.wait_continued_in().await;
    assert_eq!(back.len(), 1, "{back:?}");
    assert_eq!(back[0].0, "2");
}
