//! What both fidelity comparisons (`tests/fidelity.rs`, the peer presets, and
//! `tests/fidelity_export.rs`, the exported snippets) share: the folder, the contract's counter
//! and summariser, the conversation as the dry run plays it, and the engine's run written in
//! the traces' format.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use summary_memory::engine::Role;
use summary_memory::engine::schedule::{MessageRun, PlayedMessage, Sizer, Slot};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fidelity")
}

pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

pub fn words(text: &str) -> u32 {
    text.split_whitespace().count() as u32
}

/// How one library measures a message, where the harness could not plug in the contract's
/// counter.
#[derive(Clone, Copy, PartialEq)]
pub enum Library {
    /// The contract's counter, and characters as the text's.
    Contract,
    /// LlamaIndex's buffer counts the words of a message's content only.
    ContentOnly,
    /// Gemini CLI (only `tests/fidelity.rs` plays it): a call counts its name and its
    /// arguments as `JSON.stringify` writes them, and characters are those of each history
    /// `Content`'s JSON.
    #[allow(
        dead_code,
        reason = "tests/fidelity_export.rs exports no Gemini CLI target"
    )]
    Gemini,
}

/// `JSON.stringify` of a string: quotes, and the escapes of the plain ASCII the conversations
/// hold.
fn js_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string serialises")
}

/// A string's `length` in JavaScript: UTF-16 code units, not UTF-8 bytes (a Devanagari or
/// Chinese character is one unit and three bytes; the app counts `chars()`, the same for them).
fn js_length(text: &str) -> u32 {
    text.encode_utf16().count() as u32
}

/// Compact JSON of a tool call's arguments, as `JSON.stringify(JSON.parse(arguments))` writes
/// them (the conversations' arguments are one-key objects, so key order cannot differ).
fn compact_args(arguments: &str) -> String {
    let value: Value = serde_json::from_str(arguments)
        .unwrap_or_else(|e| panic!("tool arguments {arguments:?} are not JSON: {e}"));
    serde_json::to_string(&value).expect("a value serialises")
}

/// Characters of Gemini CLI's `Content` for a message: `{"role":…,"parts":[…]}`, where a text
/// part is `{"text":…}`, a call `{"functionCall":{"id","name","args"}}` and a result
/// `{"functionResponse":{"id","name","response":{"output":…}}}`. Consecutive results share one
/// user `Content`: the first result carries its envelope, each later one its comma.
fn gemini_chars(message: &Value, follows_result: bool) -> u32 {
    let content = message["content"].as_str().unwrap_or_default();
    let text_part = format!("{{\"text\":{}}}", js_string(content));
    let envelope = |role: &str, parts: &[String]| {
        js_length(&format!(
            "{{\"role\":\"{role}\",\"parts\":[{}]}}",
            parts.join(",")
        ))
    };
    match message["role"].as_str() {
        Some("user") => envelope("user", &[text_part]),
        Some("assistant") => {
            let mut parts = vec![text_part];
            for call in message["tool_calls"].as_array().into_iter().flatten() {
                parts.push(format!(
                    "{{\"functionCall\":{{\"id\":{},\"name\":{},\"args\":{}}}}}",
                    js_string(call["id"].as_str().unwrap_or_default()),
                    js_string(call["name"].as_str().unwrap_or_default()),
                    compact_args(call["arguments"].as_str().unwrap_or("{}"))
                ));
            }
            envelope("model", &parts)
        }
        _ => {
            let part = format!(
                "{{\"functionResponse\":{{\"id\":{},\"name\":\"lookup\",\"response\":{{\"output\":{}}}}}}}",
                js_string(message["tool_call_id"].as_str().unwrap_or_default()),
                js_string(content)
            );
            if follows_result {
                js_length(&part) + 1
            } else {
                envelope("user", &[part])
            }
        }
    }
}

pub fn played(conversation: &Value, library: Library) -> Vec<PlayedMessage> {
    let messages = conversation["messages"].as_array().expect("messages");
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let role = match m["role"].as_str() {
                Some("user") => Role::User,
                Some("assistant") => Role::Assistant,
                Some("tool") => Role::Tool,
                other => panic!("message {i}: unknown role {other:?}"),
            };
            let content = m["content"].as_str().unwrap_or_default();
            let calls = m["tool_calls"].as_array().cloned().unwrap_or_default();
            let call_words: u32 = calls
                .iter()
                .map(|c| {
                    let name = words(c["name"].as_str().unwrap_or_default());
                    let args = c["arguments"].as_str().unwrap_or_default();
                    name + match library {
                        Library::Gemini => words(&compact_args(args)),
                        _ => words(args),
                    }
                })
                .sum();
            let tokens = words(content)
                + match library {
                    Library::ContentOnly => 0,
                    _ => call_words,
                };
            let follows_result = i > 0 && role == Role::Tool && messages[i - 1]["role"] == "tool";
            let chars = match library {
                Library::Gemini => gemini_chars(m, follows_result),
                _ => content.len() as u32,
            };
            PlayedMessage {
                role,
                tokens,
                chars,
                calls: !calls.is_empty(),
            }
        })
        .collect()
}

/// The contract's counter and summariser, measuring as `library` does.
pub struct Contract {
    pub library: Library,
}

impl Sizer for Contract {
    fn tokens(&self, text: &str) -> u32 {
        words(text)
    }

    fn chars(&self, role: Role, text: &str) -> u32 {
        match self.library {
            Library::Gemini => {
                let role = if role == Role::Assistant {
                    "model"
                } else {
                    "user"
                };
                js_length(&format!(
                    "{{\"role\":\"{role}\",\"parts\":[{{\"text\":{}}}]}}",
                    js_string(text)
                ))
            }
            _ => text.len() as u32,
        }
    }

    fn summary(&self, call: u32) -> String {
        let mut out = format!("S{call}");
        for _ in 0..19 {
            out.push_str(" w");
        }
        out
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// The engine's run as a trace's `requests`.
pub fn engine_requests(run: &MessageRun) -> Vec<Value> {
    run.requests
        .iter()
        .map(|r| {
            let messages: Vec<Value> = r
                .messages
                .iter()
                .map(|slot| match slot {
                    Slot::System => json!({"kind": "system"}),
                    Slot::Summary { call, role, text } => json!({
                        "kind": "summary", "summary": call, "role": role_name(*role), "text": text
                    }),
                    Slot::Verbatim(i) => json!({"kind": "verbatim", "index": i}),
                    Slot::Fixed { role, text } => {
                        json!({"kind": "fixed", "role": role_name(*role), "text": text})
                    }
                })
                .collect();
            json!({"request": r.request, "answers": r.answers, "messages": messages})
        })
        .collect()
}

/// A request in one line: `system`, `S<k>/<role>`, the verbatim indices, `fixed/<role>`.
pub fn brief(request: &Value) -> String {
    let parts: Vec<String> = request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| match m["kind"].as_str() {
            Some("system") => "system".to_owned(),
            Some("summary") => format!("S{}/{}", m["summary"], m["role"].as_str().unwrap_or("?")),
            Some("verbatim") => m["index"].to_string(),
            Some("fixed") => format!("fixed/{}", m["role"].as_str().unwrap_or("?")),
            Some("altered") => format!("altered:{}", m["index"]),
            other => format!("{other:?}"),
        })
        .collect();
    format!("answers {}: {}", request["answers"], parts.join(" "))
}
