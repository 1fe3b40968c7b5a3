//! An Open WebUI chat export: "Export All Chats" writes an array of the chats its database holds
//! (`{id, user_id, title, chat, created_at, updated_at, ...}`), and a single chat downloads as
//! an array of one. A chat's `chat` holds `history` (`messages`: id → `{id, parentId,
//! childrenIds, role, content, files, timestamp, ...}`, and `currentId`, the message last
//! shown) and, in older exports, a flat `messages` array of the same messages. The shape read is
//! the one Open WebUI stores (open-webui/open-webui, backend/open_webui/models/chats.py at
//! 415114504fdf4c3f05d397b927f53273f4affba2: `ChatModel.chat` is the chat JSON as the client
//! writes it) and the one LibreChat's tests import (danny-avila/LibreChat,
//! api/server/utils/import/__data__/openwebui-export.json at
//! 89e0c58a155cdebf8c8fe395ffa6ce7c822c5b2f).
//!
//! The conversation read is the path from `currentId` up the `parentId`s; without a usable
//! `currentId` (absent, or naming no message), the newest leaf's (greatest `timestamp`); a
//! parent missing from `history.messages` ends the branch there. A chat without `history` reads
//! its flat `messages`. An assistant message's `output` (Responses-style items Open WebUI 0.6
//! writes: `message`, `function_call`, `function_call_output`, `reasoning`) is read in place of
//! its `content`, since it holds the calls. Otherwise the content is read around the
//! `<details>` blocks Open WebUI writes into a reply: `type="reasoning"` is left out, as every
//! reader here leaves reasoning out, and `type="tool_calls"` is a call and its result (the
//! attributes as Open WebUI's middleware.py writes them, and as LibreChat's fixture above
//! holds one). Files and images attached to a message are `[image]` / `[file: name]`
//! placeholders, the `files` shape of middleware.py at 000032ed1cfec98667bbf62795b0f8e0c76025b5
//! (`{type, url, content_type, name}`), whose `get_message_list` also walks `history` from
//! `currentId`, as this reader does.

use std::collections::{BTreeMap, HashSet};

use serde_json::{Map, Value};

use super::parts::{Text, join, optional_string, seconds_to_ms};
use super::{Batch, Builder, Conversation, TranscriptError, responses};
use crate::engine::message::{MessageParts, Role, ToolCall};

/// Whether `value` is an Open WebUI export: an array of chats, one chat entry, or one chat.
pub(super) fn is_export(value: &Value) -> bool {
    match value {
        Value::Array(items) => {
            !items.is_empty() && items.iter().all(Value::is_object) && items.iter().any(is_entry)
        }
        Value::Object(_) => is_entry(value) || is_chat(value),
        _ => false,
    }
}

/// Reads every chat of the export at `prefix`; a chat that cannot be read is skipped and named.
pub(super) fn read(value: &Value, prefix: &str) -> Result<Batch, TranscriptError> {
    Batch::of_one_or_many(value, prefix, conversation)
}

/// A chat entry of the export: a `chat` object holding the chat.
pub(super) fn is_entry(value: &Value) -> bool {
    value.get("chat").is_some_and(is_chat)
}

/// A chat: `history.messages` as an object of messages by id.
fn is_chat(value: &Value) -> bool {
    value
        .get("history")
        .and_then(|h| h.get("messages"))
        .is_some_and(Value::is_object)
}

/// Reads one chat entry (or a bare chat) at `place`.
pub(super) fn conversation(entry: &Value, place: &str) -> Result<Conversation, TranscriptError> {
    if !entry.is_object() {
        return Err(TranscriptError::new(place, "expected a chat object"));
    }
    let (chat, chat_place) = match entry.get("chat") {
        Some(chat @ Value::Object(_)) => (chat, join(place, "chat")),
        Some(_) => {
            return Err(TranscriptError::new(
                join(place, "chat"),
                "chat must be an object",
            ));
        }
        None => (entry, place.to_owned()),
    };
    let title = match optional_string(entry, "title", place)? {
        Some(t) => Some(t),
        None => optional_string(chat, "title", &chat_place)?,
    }
    .filter(|t| !t.trim().is_empty())
    .map(str::to_owned);
    let mut builder = Builder {
        late_system_allowed: true,
        ..Builder::default()
    };
    match chat.get("history").and_then(|h| h.get("messages")) {
        Some(Value::Object(messages)) if !messages.is_empty() => {
            let history = join(&chat_place, "history");
            let at = join(&history, "messages");
            for id in active_path(&chat["history"], messages, &history)? {
                message(&mut builder, &messages[&id], &format!("{at}[{id:?}]"))?;
            }
        }
        _ => match chat.get("messages") {
            Some(Value::Array(messages)) => {
                let at = join(&chat_place, "messages");
                for (i, m) in messages.iter().enumerate() {
                    message(&mut builder, m, &format!("{at}[{i}]"))?;
                }
            }
            None | Some(Value::Null) => {
                return Err(TranscriptError::new(
                    join(&chat_place, "history.messages"),
                    "the chat holds no messages (neither history.messages nor messages)",
                ));
            }
            Some(_) => {
                return Err(TranscriptError::new(
                    join(&chat_place, "messages"),
                    "messages must be an array",
                ));
            }
        },
    }
    Ok(builder.finish(title))
}

/// The message ids from the root to the current message, in order.
fn active_path(
    history: &Value,
    messages: &Map<String, Value>,
    place: &str,
) -> Result<Vec<String>, TranscriptError> {
    // `currentId` is what the client writes; `current_id` appears in chats made through the API.
    let current = ["currentId", "current_id"]
        .iter()
        .find_map(|k| history.get(k).and_then(Value::as_str))
        .filter(|id| messages.contains_key(*id))
        .map(str::to_owned)
        .or_else(|| newest_leaf(messages));
    let mut path = Vec::new();
    let mut seen = HashSet::new();
    let mut next = current;
    while let Some(id) = next {
        // A parent missing from the messages ends the branch: trimmed exports drop them.
        let Some(node) = messages.get(&id) else {
            break;
        };
        if !seen.insert(id.clone()) {
            return Err(TranscriptError::new(
                format!("{}[{id:?}].parentId", join(place, "messages")),
                "the parent chain loops back to this message",
            ));
        }
        next = node
            .get("parentId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        path.push(id);
    }
    path.reverse();
    Ok(path)
}

/// The message no other names as its parent with the greatest `timestamp` (the last in id
/// order among equals): the reply last written, when the export does not say which is shown.
fn newest_leaf(messages: &Map<String, Value>) -> Option<String> {
    let parents: HashSet<&str> = messages
        .values()
        .filter_map(|m| m.get("parentId").and_then(Value::as_str))
        .collect();
    let leaves: BTreeMap<(u64, &String), ()> = messages
        .iter()
        .filter(|(id, _)| !parents.contains(id.as_str()))
        .map(|(id, m)| ((seconds_to_ms(m.get("timestamp")), id), ()))
        .collect();
    leaves.keys().next_back().map(|(_, id)| (*id).clone())
}

fn message(builder: &mut Builder, item: &Value, place: &str) -> Result<(), TranscriptError> {
    if !item.is_object() {
        return Err(TranscriptError::new(place, "expected a message object"));
    }
    let role = super::parts::string(item, "role", place)?;
    let at_ms = seconds_to_ms(item.get("timestamp"));
    let before = builder.messages.len();
    if role == "assistant"
        && let Some(Value::Array(output)) = item.get("output")
        && !output.is_empty()
    {
        let at = join(place, "output");
        responses::read(builder, output, &|i| format!("{at}[{i}]"))?;
        stamp(builder, before, at_ms);
        return Ok(());
    }
    let role = match role {
        "system" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        other => {
            return Err(TranscriptError::new(
                join(place, "role"),
                format!("unknown role {other:?}; expected user, assistant or system"),
            ));
        }
    };
    let mut text = Text::default();
    match item.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => {
            for segment in segments(s) {
                match segment {
                    Segment::Text(t) => text.text(t.trim()),
                    // A tool call written into an assistant's reply splits it: the text so far
                    // makes the calling message, the result follows, then the rest of the reply.
                    Segment::Call(call, result) if role == Role::Assistant => {
                        builder.push(std::mem::take(&mut text).into_message(role));
                        let id = call.id.clone();
                        builder.push_call(call, at_ms);
                        if let Some(result) = result {
                            let mut result = MessageParts::text(Role::Tool, result);
                            result.call_id = Some(id);
                            builder.push(result);
                        }
                    }
                    // Another role's message has no calls: the block's arguments are its text.
                    Segment::Call(call, _) => text.text(&call.arguments),
                }
            }
        }
        // Content saved as OpenAI parts (a message sent with images through the API).
        Some(parts @ Value::Array(_)) => {
            text = super::openai_chat::content(Some(parts), &join(place, "content"))?;
        }
        Some(_) => {
            return Err(TranscriptError::new(
                join(place, "content"),
                "content must be a string or an array of parts",
            ));
        }
    }
    attachments(&mut text, item, place)?;
    if role == Role::System {
        return builder.system(&text.content, &join(place, "role"));
    }
    builder.push(text.into_message(role));
    stamp(builder, before, at_ms);
    Ok(())
}

/// A message's `files` (`{type: "image" | "file", name, url, file: {filename}}`) and, in
/// older chats, `images` (data URLs), as placeholders.
fn attachments(text: &mut Text, item: &Value, place: &str) -> Result<(), TranscriptError> {
    match item.get("files") {
        None | Some(Value::Null) => {}
        Some(Value::Array(files)) => {
            for file in files {
                let kind = file.get("type").and_then(Value::as_str).unwrap_or("file");
                let name = file
                    .get("name")
                    .or_else(|| file.get("file").and_then(|f| f.get("filename")))
                    .and_then(Value::as_str);
                if kind == "image" || kind.starts_with("image/") {
                    text.placeholder("image", None);
                } else {
                    text.placeholder("file", name);
                }
            }
        }
        Some(_) => {
            return Err(TranscriptError::new(
                join(place, "files"),
                "files must be an array",
            ));
        }
    }
    if let Some(Value::Array(images)) = item.get("images") {
        for _ in images {
            text.placeholder("image", None);
        }
    }
    Ok(())
}

/// A piece of a message's content: its text, or a tool call Open WebUI wrote into it.
enum Segment<'a> {
    Text(&'a str),
    /// The call, and its result when the block holds one.
    Call(ToolCall, Option<String>),
}

/// The content split at its `<details>` blocks, the way Open WebUI writes what is not reply
/// into a reply: `type="reasoning"` (the model's thinking, left out), `type="tool_calls"` with
/// the call in its attributes (`id`, `name`, `arguments`, HTML-escaped JSON) and the result in a
/// `result` attribute (older versions) or as the block's text after its `<summary>` (newer),
/// and any other type (`code_interpreter`) kept as text. An unclosed block is a reply cut off
/// inside it: nothing after its start is reply.
fn segments(content: &str) -> Vec<Segment<'_>> {
    const OPEN: &str = "<details";
    const CLOSE: &str = "</details>";
    let mut out = Vec::new();
    let mut rest = content;
    while let Some(start) = rest.find(OPEN) {
        out.push(Segment::Text(&rest[..start]));
        let block = &rest[start..];
        let (Some(tag_end), Some(close)) = (block.find('>'), block.find(CLOSE)) else {
            return out;
        };
        if tag_end > close {
            return out;
        }
        let tag = &block[..tag_end];
        let body = &block[tag_end + 1..close];
        match attribute(tag, "type").as_deref() {
            Some("reasoning") => {}
            Some("tool_calls") => {
                let result = attribute(tag, "result").or_else(|| {
                    let after_summary = match body.find("</summary>") {
                        Some(i) => &body[i + "</summary>".len()..],
                        None => body,
                    };
                    let text = after_summary.trim();
                    (!text.is_empty()).then(|| unescape(text))
                });
                let call = ToolCall {
                    id: attribute(tag, "id").unwrap_or_default(),
                    name: attribute(tag, "name").unwrap_or_else(|| "tool".to_owned()),
                    arguments: attribute(tag, "arguments").unwrap_or_default(),
                };
                out.push(Segment::Call(call, result));
            }
            _ => out.push(Segment::Text(&block[..close + CLOSE.len()])),
        }
        rest = &block[close + CLOSE.len()..];
    }
    out.push(Segment::Text(rest));
    out
}

/// The unescaped value of `name="..."` in an opening tag.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(unescape(&tag[start..start + len]))
}

/// HTML entities decoded: Open WebUI escapes attribute values and results with Python's
/// `html.escape`.
fn unescape(text: &str) -> String {
    html_escape::decode_html_entities(text).into_owned()
}

/// Gives the messages added since `from` the message's time.
fn stamp(builder: &mut Builder, from: usize, at_ms: u64) {
    for m in builder.messages.iter_mut().skip(from) {
        if m.at_ms == 0 {
            m.at_ms = at_ms;
        }
    }
}
