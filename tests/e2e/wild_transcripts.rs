//! Transcripts other projects committed (`tests/fixtures/wild/`) imported through the file
//! input: a Claude.ai export and ShareGPT datasets named with their format and count, a ChatGPT
//! export with one broken conversation importing the rest and naming the broken one, and a
//! file of no known format refused with an error that says what the app reads.

use crate::harness::{Browser, TempDir};
use crate::pages::inspect::InspectPage;

#[tokio::test]
async fn a_claude_export_and_sharegpt_datasets_import_through_the_file_input() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let inspect = InspectPage::open_counted(&browser).await;
    let sharegpt_lines = concat!(
        r#"{"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello"}]}"#,
        "\n",
        r#"{"conversations": [{"from": "human", "value": "Rain?"}, {"from": "function_call", "value": "{\"name\": \"weather\", \"arguments\": {}}"}, {"from": "observation", "value": "none"}, {"from": "gpt", "value": "No rain."}]}"#,
        "\n"
    );
    let files = [
        (
            "conversations.json",
            include_str!("../fixtures/wild/claude-export/polylogue-golden-claude-tool.json"),
            "claude-export",
            1,
        ),
        (
            "glaive.json",
            include_str!("../fixtures/wild/sharegpt/llamafactory-glaive-toolcall-en-demo.json"),
            "sharegpt",
            4,
        ),
        ("train.jsonl", sharegpt_lines, "sharegpt-jsonl", 2),
    ];
    let mut sessions = 0;
    for (name, text, slug, conversations) in files {
        let path = dir.0.join(name);
        std::fs::write(&path, text).unwrap();
        inspect.import(&path.display().to_string()).await;
        let (note, count) = inspect.wait_import_note(slug).await;
        sessions += conversations;
        inspect.wait_sessions(sessions).await;
        assert_eq!(count, conversations.to_string(), "{name}: {note}");
        assert_eq!(browser.count_testid("import-skipped").await, 0, "{name}");
        if slug == "claude-export" {
            assert_eq!(note, "Read 1 conversation from a Claude.ai export.");
            // The call and its result are marked rows; the attachments are placeholders.
            inspect
                .archive()
                .await
                .wait_tool_results(1, "the bash result")
                .await;
            inspect
                .wait_detail_contains("[file: note.txt]", "the attachment's placeholder")
                .await;
            inspect
                .wait_names(&["Golden Claude Tool + Attachments"])
                .await;
        }
        if slug == "sharegpt" {
            assert_eq!(note, "Read 4 conversations from a ShareGPT dataset.");
        }
    }
    browser.close().await;
}

#[tokio::test]
async fn a_chatgpt_export_with_one_broken_conversation_imports_the_rest_and_names_it() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let inspect = InspectPage::open_counted(&browser).await;
    // The trimmed real export (its current node is not in it), and an entry without mapping.
    let mut export: serde_json::Value = serde_json::from_str(include_str!(
        "../fixtures/wild/chatgpt/polylogue-branching-trimmed.json"
    ))
    .unwrap();
    export
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"title": "Lost trip", "create_time": 1.0}));
    let path = dir.0.join("conversations.json");
    std::fs::write(&path, export.to_string()).unwrap();
    inspect.import(&path.display().to_string()).await;
    let (note, count) = inspect.wait_import_note("chatgpt-export").await;
    assert_eq!(count, "1", "{note}");
    assert!(
        note.starts_with("Read 1 conversation from a ChatGPT data export."),
        "{note}"
    );
    inspect.wait_sessions(1).await;
    inspect.wait_names(&["Init"]).await;
    let skipped = browser.all_testid("import-skipped").await;
    assert_eq!(skipped.len(), 1);
    let text = skipped[0].text().await.unwrap();
    assert!(text.contains("\"Lost trip\""), "{text}");
    assert!(text.contains("[1] (\"Lost trip\").mapping"), "{text}");
    assert!(text.contains("mapping is missing"), "{text}");
    browser.close().await;
}

#[tokio::test]
async fn a_refused_file_says_what_the_app_reads() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let inspect = InspectPage::open_counted(&browser).await;
    let path = dir.0.join("table.json");
    std::fs::write(&path, r#"{"rows": [], "cols": 3}"#).unwrap();
    inspect.import(&path.display().to_string()).await;
    inspect
        .wait_error_contains("table.json", "the refused file's error")
        .await;
    let text = browser.wait_testid("error").await.text().await.unwrap();
    assert!(
        text.contains("the file is an object with keys \"cols\", \"rows\""),
        "{text}"
    );
    for format in [
        "OpenAI Chat Completions messages",
        "a ChatGPT data export",
        "a Claude.ai export",
        "a ShareGPT dataset",
        "JSON Lines",
    ] {
        assert!(text.contains(format), "{format}: {text}");
    }
    assert_eq!(browser.count_testid("session-item").await, 0);
    assert_eq!(browser.count_testid("import-format").await, 0);
    browser.close().await;
}
