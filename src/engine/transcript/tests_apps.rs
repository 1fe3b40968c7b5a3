//! The chat apps' exports (Open WebUI, LibreChat, Chatbot UI, SillyTavern) and proxy-wrapped
//! requests, read from files other projects committed (`tests/fixtures/wild/`, sources in its
//! README) and from hand-written edge cases. Every count below was worked out by reading the
//! fixture by hand: conversations are the top-level entries, messages the path the reader is
//! documented to follow, a tool call an assistant's call, a placeholder a non-text part.

use serde_json::{Value, json};

use super::*;
use crate::engine::message::Role;

use Role::{Assistant as A, Tool as T, User as U};

fn wild(name: &str) -> &'static str {
    match name {
        "openwebui" => include_str!("../../../tests/fixtures/wild/openwebui/openwebui-export.json"),
        "librechat-tree" => {
            include_str!("../../../tests/fixtures/wild/librechat/librechat-tree.json")
        }
        "librechat-export" => {
            include_str!("../../../tests/fixtures/wild/librechat/librechat-export.json")
        }
        "chatbot-ui" => {
            include_str!("../../../tests/fixtures/wild/chatbot-ui/chatbotui-export.json")
        }
        "aqua" => include_str!("../../../tests/fixtures/wild/sillytavern/Aqua-1673181146000.jsonl"),
        "megumin" => {
            include_str!("../../../tests/fixtures/wild/sillytavern/Megumin-1673323621108.jsonl")
        }
        "odin" => include_str!("../../../tests/fixtures/wild/anthropic-proxy/odin-requests.ndjson"),
        other => panic!("no fixture {other}"),
    }
}

fn read(value: Value) -> Result<Transcript, TranscriptError> {
    read_value(&value).expect("detected as a transcript")
}

fn read_text(text: &str) -> Result<Transcript, TranscriptError> {
    read(serde_json::from_str(text).expect("the fixture is JSON"))
}

fn lines(text: &str) -> Result<Transcript, TranscriptError> {
    read_lines(text).expect("read as JSON Lines")
}

fn roles(c: &Conversation) -> Vec<Role> {
    c.messages.iter().map(|m| m.role).collect()
}

fn texts(c: &Conversation) -> Vec<&str> {
    c.messages.iter().map(|m| m.content.as_str()).collect()
}

fn titles(t: &Transcript) -> Vec<&str> {
    t.conversations
        .iter()
        .map(|c| c.title.as_deref().unwrap_or(""))
        .collect()
}

#[test]
fn open_webui_export_follows_current_id_and_reads_output_items() {
    // Three chats, each two messages in `history`, `currentId` on the assistant's. The first
    // reply's `output` is a reasoning item (left out) and a message; the second's a
    // function_call, its output and a message: a call, a tool result and the answer.
    let t = read_text(wild("openwebui")).unwrap();
    assert_eq!(t.format, Format::OpenWebUi);
    assert_eq!(t.format.slug(), "openwebui");
    assert!(t.skipped.is_empty());
    assert_eq!(
        titles(&t),
        [
            "Chat with reasoning",
            "Chat with tool call",
            "Simple linear chat"
        ]
    );
    let [reasoning, tool, simple] = t.conversations.as_slice() else {
        panic!("three chats");
    };
    assert_eq!(roles(reasoning), [U, A]);
    assert_eq!(texts(reasoning), ["What is 15 * 17?", "255"]);
    assert_eq!(reasoning.messages[0].at_ms, 1_700_000_000_000);
    assert_eq!(reasoning.messages[1].at_ms, 1_700_000_010_000);
    assert_eq!(roles(tool), [U, A, T, A]);
    let call = &tool.messages[1].calls;
    assert_eq!(call.len(), 1);
    assert_eq!(
        (call[0].id.as_str(), call[0].name.as_str()),
        ("call_1", "get_weather")
    );
    assert_eq!(call[0].arguments, "{\"city\":\"Paris\"}");
    assert_eq!(tool.messages[2].content, "Paris: 18C, rain");
    assert_eq!(tool.messages[2].tool_name.as_deref(), Some("get_weather"));
    assert_eq!(
        tool.messages[3].content,
        "The weather in Paris is 18C with rain."
    );
    assert_eq!(roles(simple), [U, A]);
    assert_eq!(texts(simple), ["Hello", "Hi there!"]);
    let placeholders: usize = t
        .conversations
        .iter()
        .flat_map(|c| &c.messages)
        .map(|m| m.placeholders.len())
        .sum();
    assert_eq!(placeholders, 0, "the fixture attaches no file");
}

/// An Open WebUI chat entry with the given history messages and current id.
fn webui_chat(title: &str, current: Value, messages: Value) -> Value {
    json!({"id": title, "title": title, "chat": {"history": {"currentId": current, "messages": messages}}})
}

#[test]
fn open_webui_without_a_usable_current_id_reads_the_newest_leaf_and_stops_at_a_missing_parent() {
    let messages = json!({
        "u1": {"id": "u1", "parentId": null, "role": "user", "content": "Plan a trip", "timestamp": 10},
        "a1": {"id": "a1", "parentId": "u1", "role": "assistant", "content": "First try", "timestamp": 20},
        "a2": {"id": "a2", "parentId": "u1", "role": "assistant", "content": "Second try", "timestamp": 30},
        "u2": {"id": "u2", "parentId": "gone", "role": "user", "content": "Orphan", "timestamp": 5,
               "files": [{"type": "image", "url": "data:..."}, {"type": "file", "name": "plan.pdf"}]}
    });
    let t = read(json!([
        webui_chat("dangling", json!("nowhere"), messages.clone()),
        webui_chat("absent", Value::Null, messages.clone()),
        webui_chat("orphan", json!("u2"), messages),
    ]))
    .unwrap();
    for c in &t.conversations[..2] {
        assert_eq!(texts(c), ["Plan a trip", "Second try"], "{:?}", c.title);
    }
    let orphan = &t.conversations[2];
    assert_eq!(texts(orphan), ["Orphan\n[image]\n[file: plan.pdf]"]);
    assert_eq!(orphan.messages[0].placeholders, ["image", "file"]);
}

#[test]
fn open_webui_reasoning_in_content_is_left_out_and_flat_messages_are_read() {
    let t = read(json!({"chat": {"title": "flat", "messages": [
        {"role": "user", "content": "Why?"},
        {"role": "assistant", "content": "<details type=\"reasoning\" done=\"true\"><summary>Thought</summary>hmm</details>\nBecause."}
    ], "history": {"messages": {}}}}))
    .unwrap();
    let c = &t.conversations[0];
    assert_eq!(c.title.as_deref(), Some("flat"));
    assert_eq!(texts(c), ["Why?", "Because."]);
}

#[test]
fn open_webui_tool_calls_written_into_the_reply_are_calls_and_results() {
    // Older versions put the result in a `result` attribute, newer ones after the summary;
    // both escape the JSON as HTML.
    let reply = concat!(
        "Let me check.\n",
        "<details type=\"tool_calls\" done=\"true\" id=\"c1\" name=\"get_time\" ",
        "arguments=\"{&quot;tz&quot;:&quot;UTC&quot;}\" result=\"&quot;12:00&quot;\" files=\"\">\n",
        "<summary>Tool Executed</summary>\n</details>\n",
        "<details type=\"tool_calls\" done=\"true\" id=\"c2\" name=\"get_date\" arguments=\"{}\">\n",
        "<summary>Tool Executed</summary>\n&quot;1 May&quot;\n</details>\n",
        "It is noon on 1 May."
    );
    let t = read(json!({"chat": {"history": {"currentId": "a", "messages": {
        "u": {"id": "u", "parentId": null, "role": "user", "content": "Time?"},
        "a": {"id": "a", "parentId": "u", "role": "assistant", "content": reply}
    }}}}))
    .unwrap();
    let c = &t.conversations[0];
    assert_eq!(roles(c), [U, A, T, A, T, A]);
    assert_eq!(c.messages[1].content, "Let me check.");
    assert_eq!(c.messages[1].calls[0].name, "get_time");
    assert_eq!(c.messages[1].calls[0].arguments, "{\"tz\":\"UTC\"}");
    assert_eq!(c.messages[2].content, "\"12:00\"");
    assert_eq!(c.messages[2].tool_name.as_deref(), Some("get_time"));
    assert_eq!(c.messages[3].calls[0].id, "c2");
    assert_eq!(c.messages[4].content, "\"1 May\"");
    assert_eq!(c.messages[5].content, "It is noon on 1 May.");
}

#[test]
fn an_open_webui_export_with_one_broken_chat_imports_the_others_and_names_it() {
    let good = webui_chat(
        "Good",
        json!("a"),
        json!({"a": {"id": "a", "parentId": null, "role": "user", "content": "hi"}}),
    );
    let broken = webui_chat(
        "Broken",
        json!("a"),
        json!({"a": {"id": "a", "parentId": null, "role": "robot", "content": "beep"}}),
    );
    let t = read(json!([good, broken])).unwrap();
    assert_eq!(titles(&t), ["Good"]);
    assert_eq!(t.skipped.len(), 1);
    let skipped = &t.skipped[0];
    assert_eq!(skipped.title.as_deref(), Some("Broken"));
    assert_eq!(skipped.place, "[1].chat.history.messages[\"a\"].role");
    assert!(
        skipped.reason.contains("unknown role \"robot\""),
        "{skipped:?}"
    );
}

#[test]
fn librechat_tree_without_a_current_leaf_reads_the_last_branch() {
    // Nine messages nested in `children`: the first reply forks into "thanks" (two replies,
    // the second followed by one more turn) and "lol" (one reply). No leaf has `createdAt`,
    // so the newest leaf is the last in the file: the "lol" branch, four messages.
    let t = read_text(wild("librechat-tree")).unwrap();
    assert_eq!(t.format, Format::LibreChat);
    assert_eq!(t.format.slug(), "librechat");
    let c = &t.conversations[0];
    assert_eq!(
        c.title.as_deref(),
        Some("Troubleshooting Python Virtual Environment Activation Issue")
    );
    assert_eq!(c.system, "You are an expert software engineer.");
    assert_eq!(roles(c), [U, A, U, A]);
    assert_eq!(c.messages[2].content, "lol");
    assert!(
        c.messages[3]
            .content
            .starts_with("It looks like you might have been amused")
    );
    assert!(
        c.messages
            .iter()
            .all(|m| m.calls.is_empty() && m.placeholders.is_empty())
    );
}

#[test]
fn librechat_messages_tree_export_reads_every_turn() {
    // `messagesTree`: six messages in one line of descent, user and assistant in turn.
    let t = read_text(wild("librechat-export")).unwrap();
    assert_eq!(t.conversations.len(), 1);
    let c = &t.conversations[0];
    assert_eq!(c.title.as_deref(), Some("Conversation 1. Web Search"));
    assert_eq!(c.system, "", "promptPrefix is null");
    assert_eq!(roles(c), [U, A, U, A, U, A]);
    assert_eq!(c.messages[4].content, "Is it for fully loaded    car?");
}

#[test]
fn librechat_flat_export_picks_the_newest_leaf_reads_parts_and_ends_at_a_missing_parent() {
    let t = read(json!({
        "conversationId": "c1", "title": "Flat", "recursive": false,
        "messages": [
            {"messageId": "m1", "parentMessageId": "00000000-0000-0000-0000-000000000000",
             "isCreatedByUser": true, "text": "Look it up", "createdAt": "2024-05-01T10:00:00.000Z",
             "files": [{"type": "image/png", "filename": "shot.png"}, {"type": "application/pdf", "filename": "spec.pdf"}]},
            {"messageId": "m2", "parentMessageId": "m1", "isCreatedByUser": false, "text": "",
             "createdAt": "2024-05-01T10:00:05.000Z",
             "content": [
                {"type": "think", "think": "let me search"},
                {"type": "tool_call", "tool_call": {"id": "t1", "name": "web_search", "args": "{\"q\":\"x\"}", "output": "3 results"}},
                {"type": "text", "text": "Found three."}
             ]},
            {"messageId": "m3", "parentMessageId": "m1", "isCreatedByUser": false, "text": "Older answer",
             "createdAt": "2024-05-01T10:00:01.000Z"},
            {"messageId": "m9", "parentMessageId": "missing", "isCreatedByUser": true, "text": "orphan",
             "createdAt": "2024-04-01T00:00:00.000Z"}
        ]
    }))
    .unwrap();
    let c = &t.conversations[0];
    assert_eq!(roles(c), [U, A, T]);
    assert_eq!(
        c.messages[0].content,
        "Look it up\n[image]\n[file: spec.pdf]"
    );
    assert_eq!(c.messages[1].content, "Found three.");
    assert_eq!(c.messages[1].calls[0].name, "web_search");
    assert_eq!(c.messages[1].calls[0].arguments, "{\"q\":\"x\"}");
    assert_eq!(c.messages[2].content, "3 results");
    assert_eq!(c.messages[2].call_id.as_deref(), Some("t1"));

    // A reply whose parent is not in the export is a branch of its own, ending there.
    let t = read(json!({"conversationId": "c2", "messages": [
        {"messageId": "m2", "parentMessageId": "gone", "isCreatedByUser": false, "text": "Reply"}
    ]}))
    .unwrap();
    assert_eq!(texts(&t.conversations[0]), ["Reply"]);
}

#[test]
fn chatbot_ui_v4_export_reads_each_conversation_with_its_prompt() {
    // Two conversations in `history` (four and two messages), each with the same `prompt`;
    // `folders` and `prompts` are not conversations.
    let t = read_text(wild("chatbot-ui")).unwrap();
    assert_eq!(t.format, Format::ChatbotUi);
    assert_eq!(t.format.slug(), "chatbot-ui");
    assert_eq!(
        titles(&t),
        [
            "Hello what are you able to do?",
            "Give me the code that inverts ..."
        ]
    );
    assert_eq!(roles(&t.conversations[0]), [U, A, U, A]);
    assert_eq!(roles(&t.conversations[1]), [U, A]);
    for c in &t.conversations {
        assert!(
            c.system
                .starts_with("You are ChatGPT, a large language model")
        );
    }
}

#[test]
fn chatbot_ui_v1_v5_and_a_broken_conversation() {
    let v1 = read(json!([
        {"id": 1, "name": "One", "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]},
        {"id": 2, "name": "Two", "messages": [{"role": "user", "content": 7}]}
    ]))
    .unwrap();
    assert_eq!(v1.format, Format::ChatbotUi);
    assert_eq!(titles(&v1), ["One"]);
    assert_eq!(v1.skipped[0].title.as_deref(), Some("Two"));
    assert_eq!(v1.skipped[0].place, "[1].messages[0].content");

    let v5 = read(json!({"version": 5, "folders": [], "prompts": []})).unwrap_err();
    assert_eq!(v5.place, "history");
    assert!(v5.reason.contains("no conversations"), "{v5}");
}

#[test]
fn sillytavern_sample_chats_read_from_their_header_line() {
    // Aqua: the header and one greeting by the character. Megumin: the header (with
    // chat_metadata) and three messages, character, user, character; no swipes in either.
    let aqua = lines(wild("aqua")).unwrap();
    assert_eq!((aqua.format, aqua.json_lines), (Format::SillyTavern, false));
    assert_eq!(aqua.format.slug(), "sillytavern");
    let c = &aqua.conversations[0];
    assert_eq!(c.title.as_deref(), Some("Aqua"));
    assert_eq!(roles(c), [A]);
    assert!(
        c.messages[0]
            .content
            .starts_with("*I am in the town square")
    );
    assert_eq!(c.messages[0].at_ms, 1_674_563_371_558);

    let megumin = lines(wild("megumin")).unwrap();
    let c = &megumin.conversations[0];
    assert_eq!(c.title.as_deref(), Some("Megumin"));
    assert_eq!(roles(c), [A, U, A]);
    assert_eq!(
        c.messages[1].content,
        "I am here to go on an adventure with you Megumin. I happen to be a mage too!"
    );
}

#[test]
fn sillytavern_keeps_the_chosen_swipe_and_leaves_hidden_messages_out() {
    let file = [
        json!({"chat_metadata": {"integrity": "x"}, "user_name": "unused", "character_name": "unused"}),
        json!({"name": "Narrator", "is_user": false, "mes": "It is night.", "extra": {"type": "narrator"}}),
        json!({"name": "Mara", "is_user": false, "mes": "Second", "swipes": ["First", "Second"], "swipe_id": 1}),
        json!({"name": "You", "is_user": true, "is_system": false, "mes": "Hello", "extra": {"image": "user/images/a.png"}}),
        json!({"name": "Mara", "is_user": false, "is_system": true, "mes": "hidden by /hide"}),
        json!({"name": "Mara", "is_user": false, "mes": "Kept mes", "swipes": [], "swipe_id": 0}),
        json!({"name": "Mara", "is_user": false, "mes": "Out of range", "swipes": ["only"], "swipe_id": 4}),
        json!({"name": "Mara", "is_user": false, "mes": "Thinking", "extra": {"reasoning": "secret"}}),
    ]
    .map(|v| v.to_string())
    .join("\n");
    let t = lines(&file).unwrap();
    let c = &t.conversations[0];
    assert_eq!(
        c.title, None,
        "current versions write \"unused\" as the name"
    );
    assert_eq!(c.system, "It is night.");
    assert_eq!(roles(c), [A, U, A, A, A]);
    assert_eq!(
        texts(c),
        [
            "Second",
            "Hello\n[image]",
            "Kept mes",
            "Out of range",
            "Thinking"
        ]
    );
}

#[test]
fn a_sillytavern_message_with_a_bad_flag_is_refused_at_its_line() {
    let file = "{\"user_name\":\"You\",\"character_name\":\"Aqua\"}\n\n{\"name\":\"You\",\"is_user\":\"yes\",\"mes\":\"hi\"}";
    let e = lines(file).unwrap_err();
    assert_eq!(e.place, "line 3.is_user");
    assert!(e.reason.contains("true or false"), "{e}");
}

#[test]
fn a_proxy_capture_is_unwrapped_for_every_request_format() {
    // An Anthropic request as a logging proxy keeps it, with the system prompt as a message.
    let t = read(json!({
        "headers": {"anthropic-version": "2023-06-01", "x-api-key": "[redacted]"},
        "body": {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "tu1", "name": "weather", "input": {"city": "Oslo"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "-3C"}]},
            {"role": "system", "content": [{"type": "text", "text": "Answer in Celsius."}]}
        ]}
    }))
    .unwrap();
    assert_eq!(t.format, Format::Anthropic);
    let c = &t.conversations[0];
    assert_eq!(c.system, "You are terse.\n\nAnswer in Celsius.");
    assert_eq!(roles(c), [U, A, T]);
    assert_eq!(c.messages[2].tool_name.as_deref(), Some("weather"));

    // An OpenAI request logged as a string of JSON, inside `request`.
    let body = json!({"model": "gpt-4o", "messages": [
        {"role": "system", "content": "Be kind."}, {"role": "user", "content": "Hi"}
    ]});
    let t = read(json!({"request": {"method": "POST", "body": body.to_string()}, "response": {}}))
        .unwrap();
    assert_eq!(t.format, Format::OpenAiChat);
    assert_eq!(t.conversations[0].system, "Be kind.");

    // A fault is named by its place in the file, through the wrapper.
    let e = read(
        json!({"request": {"body": {"model": "claude-3", "system": "s",
        "messages": [{"role": "robot", "content": "x"}]}}}),
    )
    .unwrap_err();
    assert_eq!(e.place, "request.body.messages[0].role");
}

#[test]
fn a_proxy_log_reads_its_requests_and_passes_over_the_ones_without_a_body() {
    // Three lines: GET /health and GET /v1/models with `body: null`, and one POST /v1/messages
    // whose body is an Anthropic request of one user message ("Hello!"), no tools.
    let t = lines(wild("odin")).unwrap();
    assert_eq!((t.format, t.json_lines), (Format::Anthropic, true));
    assert!(t.skipped.is_empty());
    assert_eq!(t.conversations.len(), 1);
    let c = &t.conversations[0];
    assert_eq!(roles(c), [U]);
    assert_eq!(texts(c), ["Hello!"]);
    assert!(c.messages[0].calls.is_empty() && c.messages[0].placeholders.is_empty());

    // A log of nothing but bodiless requests holds no conversation, and is not read as one.
    let empty = [
        json!({"method": "GET", "path": "/health", "body": null}),
        json!({"method": "GET", "path": "/v1/models", "body": null}),
    ]
    .map(|v| v.to_string())
    .join("\n");
    assert!(matches!(read_lines(&empty), Some(Err(_))));
}

#[test]
fn claude_trace_log_lines_read_as_one_conversation_each() {
    // claude-trace writes one request-response pair a line; each request holds the whole
    // conversation up to that call.
    let line = |n: usize| {
        let mut messages = Vec::new();
        for i in 0..n {
            messages.push(json!({"role": "user", "content": format!("q{i}")}));
            messages.push(json!({"role": "assistant", "content": format!("a{i}")}));
        }
        json!({"request": {"timestamp": 1.0, "method": "POST", "url": "https://api.anthropic.com/v1/messages",
            "headers": {}, "body": {"model": "claude-sonnet-4-5", "system": [{"type": "text", "text": "sys"}], "messages": messages}},
            "response": {"status_code": 200}, "logged_at": "2025-01-01T00:00:00Z"})
        .to_string()
    };
    let t = lines(&[line(1), line(2)].join("\n")).unwrap();
    assert_eq!((t.format, t.json_lines), (Format::Anthropic, true));
    assert_eq!(t.conversations.len(), 2);
    assert_eq!(roles(&t.conversations[1]), [U, A, U, A]);
    assert_eq!(t.conversations[1].system, "sys");
}

#[test]
fn detection_of_the_chat_apps_leaves_the_other_formats_alone() {
    let cases = [
        (
            json!([{"title": "t", "mapping": {}}]),
            Format::ChatGptExport,
        ),
        (
            json!([{"role": "user", "content": "hi"}]),
            Format::OpenAiChat,
        ),
        (
            json!({"model": "gpt-4o", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]}),
            Format::OpenAiChat,
        ),
        (
            json!({"model": "claude-3", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]}),
            Format::Anthropic,
        ),
        (json!({"input": "hi"}), Format::OpenAiResponses),
        (
            json!([{"id": "x", "chat": {"history": {"messages": {}}}}]),
            Format::OpenWebUi,
        ),
        (
            json!({"conversationId": "c", "messagesTree": []}),
            Format::LibreChat,
        ),
        (json!({"history": [], "folders": []}), Format::ChatbotUi),
    ];
    for (value, format) in cases {
        assert_eq!(detect(&value), Some(format), "{value}");
    }
    // A ShareGPT record and a Claude.ai export are none of these formats.
    assert_eq!(
        detect(&json!([{"conversations": [{"from": "human", "value": "hi"}]}])),
        Some(Format::ShareGpt)
    );
    assert!(!matches!(
        detect(&json!([{"uuid": "u", "name": "n", "chat_messages": []}])),
        Some(Format::OpenWebUi | Format::LibreChat | Format::ChatbotUi)
    ));
}
