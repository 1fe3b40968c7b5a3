//! Each counter on small messages worked out by hand from the libraries' sources; the counts
//! against the libraries themselves are `tests/counters.rs`'s.

use super::*;
use crate::engine::message::ToolCall;

/// A vocabulary of one token per byte, so the exact counters' arithmetic shows.
struct Bytes;

impl Vocabularies for Bytes {
    fn tokens(&self, vocabulary: Vocabulary, text: &str) -> u32 {
        match vocabulary {
            Vocabulary::O200k => text.len() as u32,
            Vocabulary::Cl100k => 2 * text.len() as u32,
        }
    }
}

fn msg(role: Role, text: &str) -> Message {
    Message::counted(role, text.to_owned(), 0, 0)
}

fn call(id: &str, name: &str, arguments: &str) -> Message {
    let mut m = msg(Role::Assistant, "");
    m.calls.push(ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    });
    m
}

#[test]
fn langchain_rounds_each_message_up_and_adds_three() {
    // "hello" (5) + "user" (4) = 9 characters: ceil(9 / 4) + 3 = 6.
    assert_eq!(langchain_message(&msg(Role::User, "hello")), 6);
    // 8 characters exactly: 2 + 3.
    assert_eq!(langchain_message(&msg(Role::User, "abcd")), 5);
    // Code points, not bytes: "नमस्ते" is 6 code points (18 bytes) + "assistant" 9 = 15: 4 + 3.
    assert_eq!(langchain_message(&msg(Role::Assistant, "नमस्ते")), 7);
}

#[test]
fn langchain_counts_the_repr_of_parsed_tool_calls_and_the_tool_call_id() {
    // [{'name': 'lookup', 'args': {'q': 'x'}, 'id': 'c1', 'type': 'tool_call'}] is 73
    // characters, + "assistant" 9 = 82: ceil(82 / 4) + 3 = 24.
    let text = "[{'name': 'lookup', 'args': {'q': 'x'}, 'id': 'c1', 'type': 'tool_call'}]";
    assert_eq!(text.chars().count(), 73);
    assert_eq!(
        langchain_message(&call("c1", "lookup", r#"{"q": "x"}"#)),
        24
    );
    // Arguments that are not a JSON object make an invalid call, which is not counted.
    assert_eq!(langchain_message(&call("c1", "lookup", "not json")), 3 + 3);
    // A tool message: content, the call's id and the name. "ok" + "c1" + "lookup" + "tool" =
    // 14: 4 + 3.
    let mut result = msg(Role::Tool, "ok");
    result.call_id = Some("c1".into());
    result.tool_name = Some("lookup".into());
    assert_eq!(langchain_message(&result), 7);
}

#[test]
fn gemini_counts_quarters_and_rounds_down_once_over_the_list() {
    // 3 ASCII units: 0.75 tokens each message alone rounds to 0, four together to 3.
    let m = msg(Role::User, "abc");
    assert_eq!(gemini_quarters(&m), 3);
    assert_eq!(Counter::GeminiEstimate.message(&m, &Bytes), 0);
    let four = vec![m.clone(), m.clone(), m.clone(), m];
    assert_eq!(Counter::GeminiEstimate.messages(&four, &Bytes), 3);
    // A non-ASCII unit is 1.5 tokens; an astral character is two units.
    assert_eq!(gemini_quarters(&msg(Role::User, "中")), 6);
    assert_eq!(gemini_quarters(&msg(Role::User, "😀")), 12);
    // {"functionCall":{"id":"c1","name":"f","args":{"a":1}}} is 52 units: 13 tokens.
    let text = r#"{"functionCall":{"id":"c1","name":"f","args":{"a":1}}}"#;
    assert_eq!(
        gemini_quarters(&call("c1", "f", r#"{"a": 1.0}"#)),
        text.len() as u64
    );
    // A result: the name's length and {"output":"ok"}'s.
    let mut result = msg(Role::Tool, "ok");
    result.tool_name = Some("f".into());
    assert_eq!(
        gemini_quarters(&result),
        1 + r#"{"output":"ok"}"#.len() as u64
    );
}

#[test]
fn a_long_text_is_its_length_over_four_in_gemini() {
    let long = "中".repeat(GEMINI_MAX_CHARS_FOR_FULL_HEURISTIC + 1);
    assert_eq!(
        gemini_quarters(&msg(Role::User, &long)),
        (GEMINI_MAX_CHARS_FOR_FULL_HEURISTIC + 1) as u64
    );
}

#[test]
fn tiktoken_counts_content_calls_and_the_chat_overhead() {
    let m = call("c1", "f", "{}");
    // "f" + "{}" = 3 bytes.
    assert_eq!(Counter::O200K.message(&m, &Bytes), 3);
    let chat = Counter::Tiktoken {
        vocabulary: Vocabulary::Cl100k,
        chat: true,
    };
    // Doubled by the stand-in vocabulary, plus 3 and "assistant"'s 18.
    assert_eq!(chat.message(&m, &Bytes), 6 + 3 + 18);
    assert_eq!(chat.messages(&[m.clone(), m], &Bytes), 2 * 27 + 3);
    assert_eq!(Counter::Reported.per_request(), 3);
    assert_eq!(Counter::O200K.per_request(), 0);
}

#[test]
fn words_count_the_content_and_the_calls() {
    let mut m = call("c1", "look up", "{\"q\": \"a b\"}");
    m.content = "one two".into();
    assert_eq!(words_message(&m), 2 + 2 + 3);
}

#[test]
fn every_counter_has_one_slug_read_back() {
    for counter in Counter::ALL {
        assert_eq!(Counter::from_slug(counter.slug()), Some(counter));
    }
    let slugs: std::collections::BTreeSet<_> = Counter::ALL.iter().map(|c| c.slug()).collect();
    assert_eq!(slugs.len(), Counter::ALL.len());
    assert_eq!(Counter::default(), Counter::O200K);
    assert_eq!(Counter::from_slug("o201k"), None);
}
