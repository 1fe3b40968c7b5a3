//! Each format read from a fixture written from its public documentation
//! (`tests/fixtures/transcripts/`), and damaged inputs refused with the place and the reason.

use serde_json::{Value, json};

use super::*;
use crate::engine::message::{MessageParts, Role};

fn fixture(name: &str) -> &'static str {
    match name {
        "openai_chat" => include_str!("../../../tests/fixtures/transcripts/openai_chat.json"),
        "responses" => include_str!("../../../tests/fixtures/transcripts/openai_responses.json"),
        "anthropic" => include_str!("../../../tests/fixtures/transcripts/anthropic.json"),
        "chatgpt" => include_str!("../../../tests/fixtures/transcripts/chatgpt_conversations.json"),
        "jsonl" => include_str!("../../../tests/fixtures/transcripts/messages.jsonl"),
        other => panic!("no fixture {other}"),
    }
}

fn read_json(text: &str) -> Result<Transcript, TranscriptError> {
    let value: Value = serde_json::from_str(text).expect("the fixture is JSON");
    read_value(&value).expect("a transcript")
}

fn roles(c: &Conversation) -> Vec<Role> {
    c.messages.iter().map(|m| m.role).collect()
}

fn texts(c: &Conversation) -> Vec<&str> {
    c.messages.iter().map(|m| m.content.as_str()).collect()
}

/// One conversation, whose messages are checked one by one.
fn only(t: &Transcript) -> &Conversation {
    assert_eq!(t.conversations.len(), 1);
    &t.conversations[0]
}

fn error(value: Value) -> TranscriptError {
    read_value(&value)
        .expect("detected as a transcript")
        .expect_err("refused")
}

use Role::{Assistant as A, Tool as T, User as U};

#[test]
fn openai_chat_completions_request() {
    let t = read_json(fixture("openai_chat")).unwrap();
    assert_eq!((t.format, t.json_lines), (Format::OpenAiChat, false));
    let c = only(&t);
    assert_eq!(
        c.system,
        "You are a travel assistant.\n\nAnswer in metric units."
    );
    assert_eq!(roles(c), [U, A, T, A, U, A, A, T, A]);
    let m = &c.messages;
    assert_eq!(m[0].content, "I fly to Lisbon on 12 May. Will it rain?");
    assert_eq!(m[1].content, "");
    assert_eq!(m[1].calls[0].id, "call_weather_1");
    assert_eq!(m[1].calls[0].name, "get_forecast");
    assert_eq!(
        m[1].calls[0].arguments,
        "{\"city\":\"Lisbon\",\"date\":\"2025-05-12\"}"
    );
    assert_eq!(m[2].call_id.as_deref(), Some("call_weather_1"));
    assert_eq!(
        m[2].tool_name.as_deref(),
        Some("get_forecast"),
        "named from its call"
    );
    assert_eq!(m[2].content, "{\"rain_mm\": 0.4, \"high_c\": 22}");
    assert_eq!(
        m[4].content,
        "Here is my boarding pass and a voice note.\n[image]\n[audio: wav]\n[file: itinerary.pdf]"
    );
    assert_eq!(m[4].placeholders, ["image", "audio", "file"]);
    assert_eq!(
        m[5].content,
        "Your gate is B12.\nI cannot read the voice note."
    );
    assert_eq!(m[6].calls[0].name, "convert_currency");
    assert_eq!(m[7].tool_name.as_deref(), Some("convert_currency"));
    assert_eq!(m[8].content, "50 dollars is 46.10 euros.");
}

#[test]
fn openai_responses_input() {
    let t = read_json(fixture("responses")).unwrap();
    assert_eq!(t.format, Format::OpenAiResponses);
    let c = only(&t);
    assert_eq!(c.system, "You help with recipes.\n\nKeep answers short.");
    assert_eq!(roles(c), [U, A, T, A, U, U, A, A]);
    assert_eq!(
        texts(c),
        [
            "What can I cook with this?\n[image]",
            "",
            "eggs, spinach, feta",
            "A spinach and feta omelette.",
            "And for dessert? My list is attached.",
            "[file: shopping.pdf]",
            "",
            "Try a lemon posset."
        ]
    );
    let m = &c.messages;
    assert_eq!(
        (m[1].calls[0].id.as_str(), m[1].calls[0].name.as_str()),
        ("call_pantry", "list_pantry")
    );
    assert_eq!(m[2].tool_name.as_deref(), Some("list_pantry"));
    assert_eq!(m[6].calls[0].name, "web_search");
    assert!(m[6].calls[0].arguments.contains("quick egg desserts"));
}

#[test]
fn anthropic_messages_request() {
    let t = read_json(fixture("anthropic")).unwrap();
    assert_eq!(t.format, Format::Anthropic);
    let c = only(&t);
    assert_eq!(c.system, "You are a careful accountant.");
    assert_eq!(roles(c), [U, A, T, A, U, A, T, U, A]);
    let m = &c.messages;
    assert_eq!(
        m[1].content, "Let me check your ledger.",
        "thinking is not kept"
    );
    assert_eq!(m[1].calls[0].name, "query_ledger");
    assert_eq!(
        serde_json::from_str::<Value>(&m[1].calls[0].arguments).unwrap(),
        json!({"category": "rent", "month": "2025-03"})
    );
    assert_eq!(m[2].content, "1 450.00 EUR, paid 2025-03-01");
    assert_eq!(m[2].tool_name.as_deref(), Some("query_ledger"));
    assert_eq!(
        m[4].content,
        "Here is the receipt for April.\n[image]\n[document: lease.pdf]"
    );
    assert_eq!(m[4].placeholders, ["image", "document"]);
    assert_eq!(m[6].content, "(error) the image is unreadable");
    assert_eq!(
        m[7].content, "Sorry, try the lease instead.",
        "results come first"
    );
    assert_eq!(m[8].content, "The lease says 1,450 EUR a month.");
}

#[test]
fn chatgpt_export_follows_current_node_back_to_the_root() {
    let t = read_json(fixture("chatgpt")).unwrap();
    assert_eq!(t.format, Format::ChatGptExport);
    assert_eq!(t.conversations.len(), 2);
    let c = &t.conversations[0];
    assert_eq!(c.title.as_deref(), Some("Budget for the bike trip"));
    assert_eq!(c.system, "I live in Ghent.\nUse euros.");
    assert_eq!(roles(c), [U, A, U, A, T, A]);
    let m = &c.messages;
    assert_eq!(
        m[0].content,
        "[image]\nThis is my route. I have 600 euros for 9 days."
    );
    assert_eq!(m[0].at_ms, 1_714_000_010_000);
    assert_eq!(
        m[1].content,
        "That is about 66 euros a day, enough for campsites."
    );
    assert_eq!(m[3].calls[0].name, "python");
    assert_eq!(m[3].calls[0].arguments, "print(18 * 9)");
    assert_eq!(
        (m[4].content.as_str(), m[4].tool_name.as_deref()),
        ("162", Some("python"))
    );
    assert!(!texts(c).iter().any(|t| t.contains("abandoned")));

    let c = &t.conversations[1];
    assert_eq!(c.system, "", "empty system nodes are skipped");
    assert_eq!(
        texts(c),
        [
            "Write a haiku about snow.",
            "White hush on the roofs\nfootprints fill before morning\nthe street forgets us"
        ]
    );
}

#[test]
fn json_lines_one_message_per_line() {
    let t = read_lines(fixture("jsonl")).unwrap().unwrap();
    assert_eq!((t.format, t.json_lines), (Format::OpenAiChat, true));
    let c = only(&t);
    assert_eq!(c.system, "You are a patient maths tutor.");
    assert_eq!(roles(c), [U, A, T, A, U]);
    assert_eq!(c.messages[2].tool_name.as_deref(), Some("calculator"));
    assert_eq!(c.messages[2].content, "391");
}

#[test]
fn json_lines_one_conversation_per_line() {
    let text = "{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}]}\n\
                {\"messages\": [{\"role\": \"user\", \"content\": \"b\"}, {\"role\": \"assistant\", \"content\": \"c\"}]}\n";
    let t = read_lines(text).unwrap().unwrap();
    assert_eq!(t.conversations.len(), 2);
    assert_eq!(texts(&t.conversations[1]), ["b", "c"]);
}

#[test]
fn a_bare_message_array_and_a_bare_export_array_are_detected() {
    let chat =
        json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]);
    assert_eq!(detect(&chat), Some(Format::OpenAiChat));
    let anthropic = json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "1"}]}]);
    assert_eq!(detect(&anthropic), Some(Format::Anthropic));
    let responses = json!([{"type": "function_call_output", "call_id": "x", "output": "1"}]);
    assert_eq!(detect(&responses), Some(Format::OpenAiResponses));
    let export: Value = serde_json::from_str(fixture("chatgpt")).unwrap();
    assert_eq!(detect(&export[0]), Some(Format::ChatGptExport));
    assert_eq!(detect(&json!({"x": 1})), None);
    assert_eq!(detect(&json!([1, 2])), None);
    assert_eq!(detect(&json!("text")), None);
}

#[test]
fn damaged_transcripts_name_the_place_and_the_reason() {
    let check = |value: Value, place: &str, reason: &str| {
        let e = error(value);
        assert_eq!(e.place, place, "{e}");
        assert!(e.reason.contains(reason), "{e}");
    };
    check(
        json!({"messages": [{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}]}),
        "messages[1].role",
        "unknown role \"robot\"",
    );
    check(
        json!([{"role": "user", "content": 5}]),
        "[0].content",
        "content must be",
    );
    check(
        json!([{"role": "user", "content": [{"type": "text"}]}]),
        "[0].content[0].text",
        "text is missing",
    );
    check(
        json!([{"role": "user", "content": "a"}, {"role": "system", "content": "b"}]),
        "[1].role",
        "may only lead",
    );
    check(
        json!([{"role": "assistant", "content": null, "tool_calls": [{"id": "c", "type": "function", "function": {"arguments": "{}"}}]}]),
        "[0].tool_calls[0].function.name",
        "name is missing",
    );
    check(
        json!({"model": "claude-x", "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "input": {}}]}]}),
        "messages[1].content[0].name",
        "name is missing",
    );
    check(
        json!({"input": [{"role": "user", "content": "q"}, {"type": "teleport", "x": 1}]}),
        "input[1].type",
        "unknown input item type",
    );
    check(
        json!([{"title": "Loop", "current_node": "a", "mapping": {
            "a": {"message": null, "parent": "b"}, "b": {"message": null, "parent": "a"}
        }}]),
        "[0] (\"Loop\").mapping[\"a\"].parent",
        "loops",
    );
    check(
        json!([{"title": "T", "current_node": "a", "mapping": {
            "a": {"parent": null, "message": {"author": {"role": "user"}, "content": {"parts": ["x"]}}}
        }}]),
        "[0] (\"T\").mapping[\"a\"].message.content.content_type",
        "content_type is missing",
    );
    let lines = "{\"role\": \"user\", \"content\": \"a\"}\n{\"role\": \"assistant\", \"content\": \"b\"}\n{oops\n";
    let e = read_lines(lines).unwrap().unwrap_err();
    assert_eq!(e.place, "line 3");
    let lines =
        "{\"role\": \"user\", \"content\": \"a\"}\n{\"role\": \"robot\", \"content\": \"b\"}\n";
    let e = read_lines(lines).unwrap().unwrap_err();
    assert_eq!(e.place, "line 2.role");
}

#[test]
fn empty_messages_are_dropped_and_nothing_else() {
    let value = json!([
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": null},
        {"role": "system", "content": ""},
        {"role": "assistant", "content": "a"}
    ]);
    let t = read_value(&value).unwrap().unwrap();
    assert_eq!(texts(only(&t)), ["q", "a"]);
    assert_eq!(only(&t).system, "");
    assert!(MessageParts::text(Role::User, " ").is_empty());
}

#[test]
fn one_broken_conversation_is_skipped_and_named_and_the_others_import() {
    // A ChatGPT export in which one entry had no `mapping` was refused whole, as "unknown file
    // format", although its other conversations were fine.
    let mut export: Value = serde_json::from_str(fixture("chatgpt")).unwrap();
    export
        .as_array_mut()
        .unwrap()
        .insert(1, json!({"title": "Trimmed", "current_node": "x"}));
    let t = read_value(&export).unwrap().unwrap();
    assert_eq!(t.format, Format::ChatGptExport);
    assert_eq!(t.conversations.len(), 2);
    assert_eq!(t.skipped.len(), 1);
    let skipped = &t.skipped[0];
    assert_eq!(skipped.title.as_deref(), Some("Trimmed"));
    assert!(skipped.place.starts_with("[1]"), "{skipped:?}");
    assert!(
        skipped.describe().contains("Trimmed"),
        "{}",
        skipped.describe()
    );

    // A line of a one-conversation-per-line file is skipped the same way.
    let text = "{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}]}\n\
                {\"messages\": [{\"role\": \"robot\", \"content\": \"b\"}]}\n";
    let t = read_lines(text).unwrap().unwrap();
    assert_eq!(t.conversations.len(), 1);
    assert_eq!(t.skipped[0].place, "line 2.messages[0].role");

    // A line that is not JSON at all, in a file of whole conversations, is skipped and named
    // by its line, and the skipped ones are listed in the file's order.
    let text = "{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}]}\n\
                {\"messages\": [{\"role\": \"robot\", \"content\": \"b\"}]}\n\
                {\"messages\": [ broken\n\
                \n\
                {\"messages\": [{\"role\": \"user\", \"content\": \"d\"}]}\n";
    let t = read_lines(text).unwrap().unwrap();
    assert_eq!(
        t.conversations.iter().map(texts).collect::<Vec<_>>(),
        [["a"], ["d"]]
    );
    let places: Vec<&str> = t.skipped.iter().map(|s| s.place.as_str()).collect();
    assert_eq!(places, ["line 2.messages[0].role", "line 3"]);
    assert!(
        t.skipped[1]
            .reason
            .starts_with("not valid JSON (column 16)"),
        "{:?}",
        t.skipped[1]
    );

    // When nothing can be read, the file is refused with the first conversation's fault.
    let e = error(json!([{"title": "A", "mapping": 5}, {"title": "B", "mapping": 6}]));
    assert!(e.place.starts_with("[0]"), "{e}");
}
