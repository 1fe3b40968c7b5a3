//! Files other projects committed (`tests/fixtures/wild/`, sources in the README there), each
//! checked against what was counted by reading it: conversations, messages per conversation,
//! roles, tool calls and placeholders. Then hand-written edge cases of the same formats:
//! branches, broken entries, the variants datasets use, and formats that must not be taken for
//! one another.

use serde_json::{Value, json};

use super::*;
use crate::engine::message::{Role, WordCounter};
use crate::engine::session::{ImportError, import_all, read as read_file};

use Role::{Assistant as A, Tool as T, User as U};

fn wild(name: &str) -> &'static str {
    match name {
        "chatgpt-native" => {
            include_str!(
                "../../../tests/fixtures/wild/chatgpt/polylogue-native-conversation-v1.json"
            )
        }
        "chatgpt-trimmed" => {
            include_str!("../../../tests/fixtures/wild/chatgpt/polylogue-branching-trimmed.json")
        }
        "claude-tool" => {
            include_str!(
                "../../../tests/fixtures/wild/claude-export/polylogue-golden-claude-tool.json"
            )
        }
        "claude-blocks" => include_str!(
            "../../../tests/fixtures/wild/claude-export/polylogue-native-rich-blocks-v1.json"
        ),
        "claude-attachments" => include_str!(
            "../../../tests/fixtures/wild/claude-export/polylogue-with-attachments.json"
        ),
        "sharegpt-glaive" => include_str!(
            "../../../tests/fixtures/wild/sharegpt/llamafactory-glaive-toolcall-en-demo.json"
        ),
        "sharegpt-mllm" => {
            include_str!("../../../tests/fixtures/wild/sharegpt/llamafactory-mllm-demo.json")
        }
        other => panic!("no wild fixture {other}"),
    }
}

fn read(text: &str) -> Transcript {
    let value: Value = serde_json::from_str(text).expect("the fixture is JSON");
    read_value(&value)
        .expect("detected as a transcript")
        .unwrap_or_else(|e| panic!("read: {e}"))
}

fn roles(c: &Conversation) -> Vec<Role> {
    c.messages.iter().map(|m| m.role).collect()
}

fn call_names(c: &Conversation) -> Vec<&str> {
    c.messages
        .iter()
        .flat_map(|m| m.calls.iter().map(|c| c.name.as_str()))
        .collect()
}

fn placeholders(c: &Conversation) -> Vec<&str> {
    c.messages
        .iter()
        .flat_map(|m| m.placeholders.iter().map(String::as_str))
        .collect()
}

// Counted by reading the file: the path from `current_node` ("answer-active") to the root is
// root (null), context (custom instructions), user (text and an image pointer), thought-active
// (`thoughts`, not kept), tool-call (an assistant message to `browser.search`), tool-result
// (`execution_output`), recap-active (`reasoning_recap`, not kept), answer-active (text and an
// image pointer); "answer-inactive" is the abandoned branch. So 4 messages: the user, the call,
// its result, the answer; 1 call; 2 image placeholders.
#[test]
fn chatgpt_wild_conversation_with_every_content_type() {
    let t = read(wild("chatgpt-native"));
    assert_eq!(
        (t.format, t.conversations.len()),
        (Format::ChatGptExport, 1)
    );
    let c = &t.conversations[0];
    assert_eq!(
        c.title.as_deref(),
        Some("Privacy-safe ChatGPT native fixture")
    );
    assert_eq!(
        c.system,
        "Privacy-safe fixture profile.\nPreserve structured provider evidence."
    );
    assert_eq!(roles(c), [U, A, T, A]);
    let m = &c.messages;
    assert_eq!(
        m[0].content,
        "Analyze the attached fixture and create an artifact.\n[image]"
    );
    assert_eq!(call_names(c), ["browser.search"]);
    assert_eq!(m[1].calls[0].arguments, "{\"query\":\"fixture evidence\"}");
    assert_eq!(m[2].content, "Privacy-safe tool result.");
    assert_eq!(m[2].tool_name.as_deref(), Some("browser.search"));
    assert!(m[3].content.starts_with("Final answer."));
    assert!(
        !m.iter()
            .any(|m| m.content.contains("Superseded") || m.content.contains("reasoning")),
        "neither the abandoned branch nor the reasoning is kept"
    );
    assert_eq!(placeholders(c), ["image", "image"]);
}

// A ChatGPT export trimmed as real ones are was refused whole ("current_node ... is not in
// mapping"). Counted by reading the file: `current_node` names a node that is not there; of the
// two leaves, "58c9b137..." (create_time 1760868058) is newer than "bb2f8c10..."
// (1759984620). Its branch goes up through an empty assistant node, a hidden (automation) user
// node, one assistant reply "Do your 3-5 minute ...", an empty assistant node and a hidden user
// node, whose parent "bda266f6..." is not in the file: 1 message, no system prompt.
#[test]
fn chatgpt_wild_trimmed_export_falls_back_to_the_newest_leaf() {
    let t = read(wild("chatgpt-trimmed"));
    assert_eq!(
        (t.format, t.conversations.len()),
        (Format::ChatGptExport, 1)
    );
    assert!(t.skipped.is_empty());
    let c = &t.conversations[0];
    assert_eq!(c.title.as_deref(), Some("Init"));
    assert_eq!(c.system, "");
    assert_eq!(roles(c), [A]);
    assert!(
        c.messages[0]
            .content
            .starts_with("Do your 3\u{2013}5 minute")
    );

    // The other leaf, from the root: an empty hidden system node, the custom instructions (a
    // hidden user node of `user_editable_context`: the system prompt), the user's question,
    // another hidden system node, an empty assistant node, five `thoughts` nodes (two of them
    // addressed to Gmail tools, two from the tools) and a `reasoning_recap`: 1 message.
    let mut value: Value = serde_json::from_str(wild("chatgpt-trimmed")).unwrap();
    value[0]["current_node"] = json!("bb2f8c10-3f27-417a-a6df-d2a2e50a1e79");
    let t = read_value(&value).unwrap().unwrap();
    let c = &t.conversations[0];
    assert!(c.system.contains("Preferred name: Sinity"), "{}", c.system);
    assert!(c.system.contains("Tell it like it is"), "{}", c.system);
    assert_eq!(roles(c), [U]);
    assert_eq!(
        c.messages[0].content,
        "Can you read my emails with self_made_human? In inbox"
    );
    assert!(
        call_names(c).is_empty(),
        "calls made while reasoning are reasoning"
    );
}

// Counted by reading the file: one conversation of two messages. The human's has a text block,
// a `file` block (note.txt) and an `image` block (image.svg); the assistant's has a `tool_use`
// (bash), its `tool_result` ("hi", naming the call by `id`) and the text "Done.". So: the user
// message with 2 placeholders, the assistant's call, the tool result, the assistant's text.
#[test]
fn claude_wild_export_with_a_tool_and_attachments() {
    let t = read(wild("claude-tool"));
    assert_eq!((t.format, t.conversations.len()), (Format::ClaudeExport, 1));
    let c = &t.conversations[0];
    assert_eq!(c.title.as_deref(), Some("Golden Claude Tool + Attachments"));
    assert_eq!(roles(c), [U, A, T, A]);
    let m = &c.messages;
    assert_eq!(
        m[0].content,
        "Hello. Please run a command and show the result. Also see attachments.\n[file: note.txt]\n[image: image.svg]"
    );
    assert_eq!(placeholders(c), ["file", "image"]);
    assert_eq!(call_names(c), ["bash"]);
    assert_eq!(m[1].calls[0].arguments, "{\"cmd\":\"echo hi\"}");
    assert_eq!(
        (m[2].content.as_str(), m[2].call_id.as_deref()),
        ("hi", Some("tool-1"))
    );
    assert_eq!(m[2].tool_name.as_deref(), Some("bash"));
    assert_eq!(m[3].content, "Done.");
}

// Counted by reading the file: a single conversation object of four messages. The assistant's
// first has text, `thinking` (not kept) and a `tool_use` (web_search); then two human messages
// holding only `tool_result`s (the first an error with text, an image and text; the second an
// image, answering a call the file does not have); then the assistant's "Complete." and a
// `token_budget` block (bookkeeping, not kept). So A (1 call), T, T, A and 2 image placeholders.
#[test]
fn claude_wild_conversation_with_thinking_and_tool_results() {
    let t = read(wild("claude-blocks"));
    assert_eq!((t.format, t.conversations.len()), (Format::ClaudeExport, 1));
    let c = &t.conversations[0];
    assert_eq!(c.title.as_deref(), Some("Synthetic canonical blocks"));
    assert_eq!(roles(c), [A, T, T, A]);
    let m = &c.messages;
    assert_eq!(m[0].content, "Let me search.", "thinking is not kept");
    assert_eq!(call_names(c), ["web_search"]);
    assert_eq!(m[1].content, "(error) first line\n[image]\nsecond line");
    assert_eq!(m[1].tool_name.as_deref(), Some("web_search"));
    assert_eq!(
        (
            m[2].content.as_str(),
            m[2].call_id.as_deref(),
            m[2].tool_name.as_deref()
        ),
        ("[image]", Some("toolu-2"), None)
    );
    assert_eq!(m[3].content, "Complete.");
    assert_eq!(placeholders(c), ["image", "image"]);
}

// Counted by reading the file: four messages with `text` and no `content`, human and assistant
// in turn; the first lists utils.py under both `attachments` and `files`, which is one file.
#[test]
fn claude_wild_conversation_with_an_attachment() {
    let t = read(wild("claude-attachments"));
    let c = &t.conversations[0];
    assert_eq!(c.title.as_deref(), Some("Code Review with File Attachment"));
    assert_eq!(roles(c), [U, A, U, A]);
    assert_eq!(
        c.messages[0].content,
        "[attachment: utils.py]\nCan you review this Python file I've attached?"
    );
    assert_eq!(placeholders(c), ["attachment"]);
    assert!(c.messages[3].content.starts_with("`pathlib.Path` offers"));
}

// Counted by reading the file: 4 records. The first has 8 turns (human, gpt, human,
// function_call, observation, gpt, human, gpt) and a `tools` list; the second 10 and the third 8
// alternating human and gpt, with `tools` "[]"; the fourth 12: three rounds of human,
// function_call, observation, gpt, all calling calculate_area.
#[test]
fn sharegpt_wild_tool_call_dataset() {
    let t = read(wild("sharegpt-glaive"));
    assert_eq!(t.format, Format::ShareGpt);
    let counts: Vec<usize> = t.conversations.iter().map(|c| c.messages.len()).collect();
    assert_eq!(counts, [8, 10, 8, 12]);
    let first = &t.conversations[0];
    assert_eq!(roles(first), [U, A, U, A, T, A, U, A]);
    assert_eq!(call_names(first), ["search_recipes"]);
    let call = &first.messages[3].calls[0];
    assert_eq!(
        serde_json::from_str::<Value>(&call.arguments).unwrap(),
        json!({"ingredients": ["chicken", "bell peppers", "rice"]})
    );
    let result = &first.messages[4];
    assert_eq!(result.call_id.as_deref(), Some(call.id.as_str()));
    assert_eq!(result.tool_name.as_deref(), Some("search_recipes"));
    assert!(
        first
            .system
            .starts_with("Tools: [{\"name\": \"search_recipes\"")
    );
    assert_eq!(
        t.conversations[1].system, "",
        "an empty tools list adds nothing"
    );
    let last = &t.conversations[3];
    assert_eq!(roles(last), [U, A, T, A, U, A, T, A, U, A, T, A]);
    assert_eq!(call_names(last), ["calculate_area"; 3]);
    assert!(t.conversations.iter().all(|c| placeholders(c).is_empty()));
}

// Counted by reading the file: 6 records of `messages` in OpenAI-style tags (role, content), 4
// messages each; records 1 and 4 have two `<image>` tokens and two images, the others one of
// each.
#[test]
fn sharegpt_wild_multimodal_dataset() {
    let t = read(wild("sharegpt-mllm"));
    assert_eq!((t.format, t.conversations.len()), (Format::ShareGpt, 6));
    for c in &t.conversations {
        assert_eq!(roles(c), [U, A, U, A]);
    }
    let images: Vec<usize> = t
        .conversations
        .iter()
        .map(|c| placeholders(c).len())
        .collect();
    assert_eq!(images, [2, 1, 1, 2, 1, 1]);
    let first = &t.conversations[0].messages;
    assert_eq!(
        first[0].content,
        "[image: mllm_demo_data/1.jpg]Who are they?"
    );
    assert_eq!(
        first[2].content,
        "What are they doing?[image: mllm_demo_data/1.jpg]"
    );
}

#[test]
fn every_format_is_named_in_one_list() {
    let reads = reads();
    for format in Format::ALL {
        assert!(reads.contains(format.label()), "{reads}");
    }
    let last = Format::ALL.last().unwrap().label();
    assert!(reads.ends_with(&format!(" or {last}")), "{reads}");
    let slugs: std::collections::HashSet<_> = Format::ALL.iter().map(|f| f.slug()).collect();
    assert_eq!(slugs.len(), Format::ALL.len(), "slugs are unique");
}

// A file of none of the formats was refused as `unknown file format "(not an object or
// array)"` even when it was an array: the error now says what the file is, and what is read.
#[test]
fn a_refused_file_says_what_it_is_and_what_the_app_reads() {
    let cases = [
        (&b"[1, 2]"[..], "an array of 2 items, the first a number"),
        (
            b"{\"rows\": [], \"cols\": 3}",
            "an object with keys \"cols\", \"rows\"",
        ),
        (b"\"hello\"", "a string"),
        (b"[[{\"role\": \"user\"}]]", "the first an array of 1 items"),
    ];
    for (bytes, found) in cases {
        let e = import_all(bytes, &WordCounter).unwrap_err();
        assert!(
            matches!(&e, ImportError::UnknownFormat { found: f } if f.contains(found)),
            "{e:?}"
        );
        let message = e.to_string();
        for format in Format::ALL {
            assert!(message.contains(format.label()), "{message}");
        }
        assert!(!message.contains("not an object or array"), "{message}");
    }
}

// One entry of a ChatGPT export without `mapping` refused the whole file with `unknown file
// format "(not an object or array)"`: the others import, and the broken one is named.
#[test]
fn a_chatgpt_export_with_an_entry_without_mapping_imports_the_rest() {
    let mut export: Value = serde_json::from_str(wild("chatgpt-trimmed")).unwrap();
    export
        .as_array_mut()
        .unwrap()
        .push(json!({"title": "Lost trip", "create_time": 1.0}));
    let read = read_file(export.to_string().as_bytes(), &WordCounter).unwrap();
    assert_eq!(read.sessions.len(), 1);
    assert_eq!(read.skipped.len(), 1);
    let skipped = &read.skipped[0];
    assert_eq!(skipped.title.as_deref(), Some("Lost trip"));
    assert!(skipped.reason.contains("mapping is missing"), "{skipped:?}");
    assert!(
        read.describe()
            .contains("Skipped 1 conversation: \"Lost trip\"")
    );
}

/// A Claude.ai conversation with an edited first question and a retried answer, as the flat
/// `chat_messages` list holds them.
fn branched() -> Value {
    let m = |uuid: &str, parent: &str, sender: &str, at: &str, text: &str| {
        json!({
            "uuid": uuid, "parent_message_uuid": parent, "sender": sender, "created_at": at,
            "text": text, "content": [{"type": "text", "text": text}], "attachments": [], "files": []
        })
    };
    json!({
        "uuid": "c1", "name": "Trip", "chat_messages": [
            m("h1", "00000000-0000-4000-8000-000000000000", "human", "2025-01-01T10:00:00Z", "Plan a trip"),
            m("a1", "h1", "assistant", "2025-01-01T10:00:05Z", "Where to?"),
            m("h1b", "00000000-0000-4000-8000-000000000000", "human", "2025-01-01T10:01:00Z", "Plan a trip to Rome"),
            m("a2", "h1b", "assistant", "2025-01-01T10:01:05Z", "First draft"),
            m("a2b", "h1b", "assistant", "2025-01-01T10:02:00Z", "Rome in 3 days"),
            m("h3", "a2b", "human", "2025-01-01T10:03:00Z", "Cheaper?"),
            m("a3", "h3", "assistant", "2025-01-01T10:03:05Z", "Stay in Trastevere")
        ]
    })
}

fn texts(c: &Conversation) -> Vec<&str> {
    c.messages.iter().map(|m| m.content.as_str()).collect()
}

#[test]
fn claude_branches_follow_the_newest_leaf_or_the_current_one() {
    let t = read_value(&branched()).unwrap().unwrap();
    assert_eq!(
        texts(&t.conversations[0]),
        [
            "Plan a trip to Rome",
            "Rome in 3 days",
            "Cheaper?",
            "Stay in Trastevere"
        ]
    );
    let mut value = branched();
    value["current_leaf_message_uuid"] = json!("a1");
    let t = read_value(&value).unwrap().unwrap();
    assert_eq!(texts(&t.conversations[0]), ["Plan a trip", "Where to?"]);
    // A trimmed list: the parent of "h3" is gone, so the branch starts there.
    let mut value = branched();
    value["chat_messages"].as_array_mut().unwrap().remove(4);
    let t = read_value(&value).unwrap().unwrap();
    assert_eq!(
        texts(&t.conversations[0]),
        ["Cheaper?", "Stay in Trastevere"]
    );
}

// Modelled on a real export (yaleman/anthropic-data `tests/data/conversations.json`): when the
// blocks hold `thinking` and `text`, the message's `text` runs both together, and only the
// answer is conversation.
#[test]
fn claude_text_is_read_from_the_blocks_when_there_are_blocks() {
    let value = json!([{
        "uuid": "c", "name": "Saliva", "chat_messages": [
            {"uuid": "h", "sender": "human", "text": "Is it true?", "content": [
                {"type": "text", "text": "Is it true?", "citations": []}]},
            {"uuid": "a", "sender": "assistant", "text": "Let me think.Partly.", "content": [
                {"type": "thinking", "thinking": "Let me think.", "summaries": [{"summary": "s"}]},
                {"type": "text", "text": "Partly.", "citations": []}]}
        ]
    }]);
    let t = read_value(&value).unwrap().unwrap();
    assert_eq!(texts(&t.conversations[0]), ["Is it true?", "Partly."]);
}

#[test]
fn claude_exports_in_every_wrapping_and_a_broken_entry() {
    let good = branched();
    let wrapped = json!({"account": {"uuid": "x"}, "conversations": [good.clone(), {"uuid": "b", "name": "Broken"}]});
    let t = read_value(&wrapped).unwrap().unwrap();
    assert_eq!((t.format, t.conversations.len()), (Format::ClaudeExport, 1));
    assert_eq!(t.skipped.len(), 1);
    assert_eq!(t.skipped[0].title.as_deref(), Some("Broken"));
    assert_eq!(t.skipped[0].place, "conversations[1].chat_messages");
    assert!(t.skipped[0].reason.contains("chat_messages is missing"));
    let lines = format!("{}\n{}\n", good, good);
    let t = read_lines(&lines).unwrap().unwrap();
    assert_eq!(
        (t.format, t.json_lines, t.conversations.len()),
        (Format::ClaudeExport, true, 2)
    );
    let bad_sender = json!({"chat_messages": [{"sender": "robot", "text": "x"}]});
    let e = read_value(&bad_sender).unwrap().unwrap_err();
    assert_eq!(e.place, "chat_messages[0].sender");
    assert!(e.reason.contains("human or assistant"), "{e}");
}

#[test]
fn sharegpt_variants_datasets_use() {
    // JSON Lines of records under `conversation`, a leading system turn, parallel calls in one
    // function_call turn, each answered by its own observation, and an image without a token.
    let lines = [
        json!({"conversation": [
            {"from": "system", "value": "Be brief."},
            {"from": "human", "value": "Weather in Oslo and Rome?"},
            {"from": "function_call", "value": "[{\"name\": \"weather\", \"arguments\": {\"city\": \"Oslo\"}}, {\"name\": \"weather\", \"arguments\": {\"city\": \"Rome\"}}]"},
            {"from": "observation", "value": "Oslo: 3 C"},
            {"from": "observation", "value": "Rome: 18 C"},
            {"from": "gpt", "value": "Cold in Oslo, mild in Rome."}
        ], "images": ["map.png"]}),
        json!({"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello"}]}),
    ];
    let text = lines.map(|l| l.to_string()).join("\n");
    let t = read_lines(&text).unwrap().unwrap();
    assert_eq!((t.format, t.json_lines), (Format::ShareGpt, true));
    let c = &t.conversations[0];
    assert_eq!(c.system, "Be brief.");
    assert_eq!(roles(c), [U, A, T, T, A]);
    assert_eq!(
        c.messages[0].content,
        "Weather in Oslo and Rome?\n[image: map.png]"
    );
    let ids: Vec<_> = c.messages[1].calls.iter().map(|c| c.id.clone()).collect();
    assert_eq!(ids.len(), 2);
    assert_eq!(c.messages[2].call_id.as_ref(), Some(&ids[0]));
    assert_eq!(c.messages[3].call_id.as_ref(), Some(&ids[1]));
    assert_eq!(texts(&t.conversations[1]), ["hi", "hello"]);

    let check = |value: Value, place: &str, reason: &str| {
        let e = read_value(&value).unwrap().unwrap_err();
        assert_eq!(e.place, place, "{e}");
        assert!(e.reason.contains(reason), "{e}");
    };
    check(
        json!({"conversations": [{"from": "human", "value": "a"}, {"from": "wizard", "value": "b"}]}),
        "conversations[1]",
        "unknown speaker \"wizard\"",
    );
    check(
        json!({"conversations": [{"from": "human", "value": "a"}, {"from": "function_call", "value": "get_time()"}]}),
        "conversations[1].value",
        "must be JSON naming the function",
    );
    // One broken record of a dataset is skipped and named; the others import.
    let dataset = json!([
        {"conversations": [{"from": "human", "value": "a"}, {"from": "gpt", "value": "b"}]},
        {"conversations": [{"from": "human", "value": 7}]}
    ]);
    let t = read_value(&dataset).unwrap().unwrap();
    assert_eq!((t.conversations.len(), t.skipped.len()), (1, 1));
    assert_eq!(t.skipped[0].place, "[1].conversations[0].value");
}

#[test]
fn detection_does_not_take_one_format_for_another() {
    let cases = [
        // An Anthropic request has content blocks too, but no chat_messages.
        (
            json!({"model": "claude-sonnet-4", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}),
            Format::Anthropic,
        ),
        // An OpenAI request's tools are an array, not a ShareGPT tools string.
        (
            json!({"messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function", "function": {"name": "f"}}]}),
            Format::OpenAiChat,
        ),
        (
            json!({"messages": [{"role": "user", "content": "hi"}], "tools": "[]"}),
            Format::ShareGpt,
        ),
        (
            json!([{"messages": [{"from": "human", "value": "hi"}]}]),
            Format::ShareGpt,
        ),
        (
            json!([{"uuid": "x", "chat_messages": []}, {"uuid": "y"}]),
            Format::ClaudeExport,
        ),
        (
            json!({"conversations": [{"uuid": "x", "chat_messages": []}]}),
            Format::ClaudeExport,
        ),
    ];
    for (value, format) in cases {
        assert_eq!(detect(&value), Some(format), "{value}");
    }
    assert_eq!(detect(&json!({"conversations": [{"id": 1}]})), None);
}
