//! Transcripts other tools wrote: each format imported through the file input and by pasting
//! it, the format and the number of conversations named on the page, tool calls and results
//! shown as marked rows, a re-export that holds every message's text, and a damaged transcript
//! refused with the place and the reason, keeping what was pasted.

use fantoccini::Locator;
use summary_memory::engine::message::WordCounter;
use summary_memory::engine::session::read;

use crate::harness::{Browser, TempDir};
use crate::pages::inspect::InspectPage;

/// Each fixture: file name, text, the `data-format` the page reports, and how many
/// conversations it holds.
const FIXTURES: [(&str, &str, &str, usize); 5] = [
    (
        "openai_chat.json",
        include_str!("../fixtures/transcripts/openai_chat.json"),
        "openai-chat",
        1,
    ),
    (
        "openai_responses.json",
        include_str!("../fixtures/transcripts/openai_responses.json"),
        "openai-responses",
        1,
    ),
    (
        "anthropic.json",
        include_str!("../fixtures/transcripts/anthropic.json"),
        "anthropic",
        1,
    ),
    (
        "conversations.json",
        include_str!("../fixtures/transcripts/chatgpt_conversations.json"),
        "chatgpt-export",
        2,
    ),
    (
        "messages.jsonl",
        include_str!("../fixtures/transcripts/messages.jsonl"),
        "openai-chat-jsonl",
        1,
    ),
];

/// Every message's text and every call of every fixture, as the engine reads them, is in the
/// export (JSON-escaped, as the file holds it).
fn assert_export_holds_every_fixture(export: &str) {
    let escaped = |text: &str| {
        let quoted = serde_json::to_string(text).unwrap();
        quoted[1..quoted.len() - 1].to_owned()
    };
    let back = read(export.as_bytes(), &WordCounter).expect("the export imports");
    let mut expected = 0;
    for (name, text, _, _) in FIXTURES {
        let r = read(text.as_bytes(), &WordCounter).unwrap();
        for session in &r.sessions {
            expected += 1;
            assert!(
                back.sessions
                    .iter()
                    .any(|b| b.memory.archive() == session.memory.archive()
                        && b.memory.system_prompt() == session.memory.system_prompt()),
                "{name}: a session of the export holds the same messages"
            );
            for m in session.memory.archive() {
                assert!(
                    export.contains(&escaped(&m.content)),
                    "{name}: {}",
                    m.content
                );
                for c in &m.calls {
                    assert!(
                        export.contains(&escaped(&c.arguments)),
                        "{name}: {}",
                        c.arguments
                    );
                }
            }
        }
    }
    assert_eq!(back.sessions.len(), expected);
}

/// The OpenAI Chat fixture's session: tool calls and results are rows of their own, marked.
async fn check_tool_rows(browser: &Browser) {
    InspectPage::new(browser)
        .archive()
        .await
        .wait_tool_results(2, "two tool results")
        .await;
    let calls = browser
        .client
        .find_all(Locator::Css(
            "[data-testid='message'][data-role='assistant'][data-tool-call='call'] [data-testid='tool-call']",
        ))
        .await
        .unwrap();
    let mut texts = Vec::new();
    for c in calls {
        texts.push(c.text().await.unwrap());
    }
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(texts[0].contains("get_forecast("), "{texts:?}");
    assert!(texts[1].contains("convert_currency("), "{texts:?}");
    // The result sits in the turn of its question, and the image's tokens are an estimate.
    let result = browser
        .client
        .find(Locator::Css("[data-testid='message'][data-role='tool']"))
        .await
        .unwrap();
    assert_eq!(
        result.attr("data-turn").await.unwrap().as_deref(),
        Some("1")
    );
    assert!(
        result
            .text()
            .await
            .unwrap()
            .contains("tool result of get_forecast")
    );
    let estimated = browser
        .client
        .find(Locator::Css(
            "[data-testid='message'][data-estimate='true']",
        ))
        .await
        .unwrap();
    assert!(estimated.text().await.unwrap().contains('≈'));
}

#[tokio::test]
async fn each_transcript_format_imports_through_the_file_input_and_re_exports_its_text() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let inspect = InspectPage::open_counted(&browser).await;
    let mut sessions = 0;
    for (name, text, slug, conversations) in FIXTURES {
        let path = dir.0.join(name);
        std::fs::write(&path, text).unwrap();
        inspect.import(&path.display().to_string()).await;
        let (note, count) = inspect.wait_import_note(slug).await;
        sessions += conversations;
        inspect.wait_sessions(sessions).await;
        assert_eq!(count, conversations.to_string(), "{name}");
        let noun = if conversations == 1 {
            "conversation"
        } else {
            "conversations"
        };
        assert!(
            note.starts_with(&format!("Read {conversations} {noun} from ")),
            "{name}: {note}"
        );
        if slug == "openai-chat" {
            assert_eq!(
                note,
                "Read 1 conversation from OpenAI Chat Completions messages."
            );
            check_tool_rows(&browser).await;
        }
        if slug == "chatgpt-export" {
            assert_eq!(note, "Read 2 conversations from a ChatGPT data export.");
            // Each conversation is a session under its title; the first one opens.
            inspect
                .wait_detail_contains("Budget for the bike trip", "the first conversation open")
                .await;
            let names = inspect.names().await;
            assert!(
                names.contains(&"Budget for the bike trip".to_owned()),
                "{names:?}"
            );
            assert!(names.contains(&"A haiku".to_owned()), "{names:?}");
        }
    }
    assert_export_holds_every_fixture(&inspect.export_all().await);
    browser.close().await;
}

#[tokio::test]
async fn each_transcript_format_imports_by_paste_and_re_exports_its_text() {
    let browser = Browser::new().await;
    let inspect = InspectPage::open_counted(&browser).await;
    let mut sessions = 0;
    for (name, text, slug, conversations) in FIXTURES {
        inspect.paste(text).await;
        let (_, count) = inspect.wait_import_note(slug).await;
        sessions += conversations;
        inspect.wait_sessions(sessions).await;
        assert_eq!(count, conversations.to_string(), "{name}");
        if slug == "openai-chat" {
            check_tool_rows(&browser).await;
        }
        // An imported transcript leaves the box, ready for the next.
        let left = inspect.pasted().await;
        assert_eq!(left.as_deref(), Some(""), "{name}");
    }
    assert_export_holds_every_fixture(&inspect.export_all().await);
    browser.close().await;
}

#[tokio::test]
async fn a_damaged_transcript_is_refused_with_the_place_and_the_reason() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let inspect = InspectPage::open_counted(&browser).await;

    // Pasted: an Anthropic tool call without a name. Nothing is imported, and the text stays.
    let pasted = r#"{"model": "claude-sonnet-4-5", "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "input": {}}]}
    ]}"#;
    inspect.paste(pasted).await;
    let error = browser.wait_testid("error").await;
    assert_eq!(error.attr("role").await.unwrap().as_deref(), Some("alert"));
    let text = error.text().await.unwrap();
    assert!(
        text.contains("the pasted transcript was not imported"),
        "{text}"
    );
    assert!(
        text.contains("at messages[1].content[0].name: name is missing"),
        "{text}"
    );
    let kept = inspect.pasted().await;
    assert_eq!(kept.as_deref(), Some(pasted));
    assert_eq!(browser.count_testid("session-item").await, 0);
    assert_eq!(browser.count_testid("import-format").await, 0);

    // A file: a ChatGPT export whose one conversation's parent links go round in a circle (a
    // dangling current node is no longer a fault: the newest leaf is read instead).
    let broken = r#"[{"title": "Lost", "current_node": "a", "mapping": {"a": {"message": null, "parent": "b"}, "b": {"message": null, "parent": "a"}}}]"#;
    let path = dir.0.join("conversations.json");
    std::fs::write(&path, broken).unwrap();
    inspect.import(&path.display().to_string()).await;
    inspect
        .wait_error_contains("conversations.json", "the file's error")
        .await;
    let text = browser.wait_testid("error").await.text().await.unwrap();
    assert!(
        text.contains(
            "at [0] (\"Lost\").mapping[\"a\"].parent: the parent chain loops back to this node"
        ),
        "{text}"
    );

    // JSON Lines with a broken third line names the line.
    let path = dir.0.join("log.jsonl");
    std::fs::write(
        &path,
        "{\"role\": \"user\", \"content\": \"a\"}\n{\"role\": \"assistant\", \"content\": \"b\"}\n{\"role\": \n",
    )
    .unwrap();
    inspect.import(&path.display().to_string()).await;
    inspect
        .wait_error_contains("log.jsonl", "the JSON Lines error")
        .await;
    let text = browser.wait_testid("error").await.text().await.unwrap();
    assert!(text.contains("at line 3: not valid JSON"), "{text}");
    assert_eq!(browser.count_testid("session-item").await, 0);
    browser.close().await;
}
