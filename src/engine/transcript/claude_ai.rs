//! A Claude.ai data export (`conversations.json`: an array of conversations, sometimes wrapped
//! as `{"conversations": [...]}`) or one conversation as the web app's API returns it. A
//! conversation has a `name` and `chat_messages`, each with a `sender` (`human` or
//! `assistant`), `content` blocks and/or a `text`, `attachments` (pasted documents, with their
//! `file_name`) and `files` (uploads). Blocks are `text`, `thinking` (reasoning, not kept),
//! `tool_use` and `tool_result` (Claude.ai runs its tools itself, so both come inside the
//! assistant's message, in the order they happened), `image`, `file` and `document`.
//!
//! Branches: every edit and every retried reply stays in the flat `chat_messages` list, linked
//! by `parent_message_uuid`. The conversation as last shown is the chain from
//! `current_leaf_message_uuid` (the API has it; the bulk export does not) or else from the newest
//! leaf, back to the root; a message without parent links is read in the order given.
//!
//! Shapes checked against a real export (yaleman/anthropic-data `tests/data/conversations.json`
//! at b6a7175b5ea11ebaae12bf602b7bbf16ad1429a3: when `content` has blocks, `text` repeats the
//! thinking and the answer run together, so the blocks are read and `text` only without them)
//! and exporters' fixtures (Sinity/polylogue `tests/fixtures/claude-ai/`, `tests/fixtures/real/
//! claude/`). Times are ISO 8601 strings; the newest leaf is the greatest `created_at` as text,
//! which is time order within one export, and messages keep no clock time (`at_ms` 0).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::parts::{Text, arguments, join, optional_string, string};
use super::{Builder, Conversation, TranscriptError};
use crate::engine::message::{MessageParts, Role, ToolCall};

/// The `parent_message_uuid` Claude.ai gives a conversation's first message.
const ROOT_PARENT: &str = "00000000-0000-4000-8000-000000000000";

/// Whether a value is one Claude.ai conversation: an object with `chat_messages`.
pub(super) fn is_conversation(value: &Value) -> bool {
    value.get("chat_messages").is_some()
}

/// The conversations of an export wrapped as `{"conversations": [...]}` (with `account` beside
/// it), when the value is one.
pub(super) fn wrapped(value: &Value) -> Option<&[Value]> {
    let items = value.get("conversations")?.as_array()?;
    items
        .iter()
        .any(is_conversation)
        .then_some(items.as_slice())
}

/// Reads one conversation object at `place`.
pub(super) fn conversation(value: &Value, place: &str) -> Result<Conversation, TranscriptError> {
    if !value.is_object() {
        return Err(TranscriptError::new(
            place,
            "expected a conversation object with chat_messages",
        ));
    }
    let title = match optional_string(value, "name", place)? {
        Some(name) => Some(name),
        None => optional_string(value, "title", place)?,
    }
    .filter(|t| !t.trim().is_empty())
    .map(str::to_owned);
    let messages = match value.get("chat_messages") {
        Some(Value::Array(messages)) => messages,
        None => {
            return Err(TranscriptError::new(
                join(place, "chat_messages"),
                "chat_messages is missing: a Claude.ai conversation holds its messages there",
            ));
        }
        Some(_) => {
            return Err(TranscriptError::new(
                join(place, "chat_messages"),
                "chat_messages must be an array of messages",
            ));
        }
    };
    let at = |i: usize| format!("{}[{i}]", join(place, "chat_messages"));
    for (i, message) in messages.iter().enumerate() {
        if !message.is_object() {
            return Err(TranscriptError::new(at(i), "expected a message object"));
        }
    }
    let mut builder = Builder::default();
    for i in active_chain(value, messages, &at)? {
        read_message(&mut builder, &messages[i], &at(i))?;
    }
    Ok(builder.finish(title))
}

/// The indices of the messages shown, in order: the chain from the current (or newest) leaf
/// back to the root, or every message when none names a parent.
fn active_chain(
    conversation: &Value,
    messages: &[Value],
    at: &dyn Fn(usize) -> String,
) -> Result<Vec<usize>, TranscriptError> {
    fn uuid(m: &Value) -> Option<&str> {
        m.get("uuid").and_then(Value::as_str)
    }
    fn parent(m: &Value) -> Option<&str> {
        m.get("parent_message_uuid")
            .and_then(Value::as_str)
            .filter(|p| *p != ROOT_PARENT)
    }
    fn time(m: &Value) -> &str {
        m.get("created_at").and_then(Value::as_str).unwrap_or("")
    }
    if !messages
        .iter()
        .any(|m| m.get("parent_message_uuid").is_some_and(Value::is_string))
    {
        return Ok((0..messages.len()).collect());
    }
    let by_uuid: HashMap<&str, usize> = messages
        .iter()
        .enumerate()
        .filter_map(|(i, m)| Some((uuid(m)?, i)))
        .collect();
    let parents: HashSet<&str> = messages.iter().filter_map(parent).collect();
    let current = conversation
        .get("current_leaf_message_uuid")
        .and_then(Value::as_str)
        .and_then(|id| by_uuid.get(id).copied());
    // Without a current leaf: the newest message that no other message answers. Ties go to the
    // later one in the file.
    let newest_leaf = || {
        messages
            .iter()
            .enumerate()
            .filter(|(_, m)| uuid(m).is_none_or(|id| !parents.contains(id)))
            .max_by(|(i, a), (j, b)| time(a).cmp(time(b)).then(i.cmp(j)))
            .map(|(i, _)| i)
    };
    let Some(mut index) = current.or_else(newest_leaf) else {
        return Ok(Vec::new());
    };
    let mut chain = vec![index];
    let mut seen = HashSet::from([index]);
    // A parent that is not in the list (a trimmed export) ends the branch there.
    while let Some(next) = parent(&messages[index]).and_then(|p| by_uuid.get(p).copied()) {
        if !seen.insert(next) {
            return Err(TranscriptError::new(
                join(&at(index), "parent_message_uuid"),
                "the parent chain loops back to this message",
            ));
        }
        chain.push(next);
        index = next;
    }
    chain.reverse();
    Ok(chain)
}

fn read_message(
    builder: &mut Builder,
    message: &Value,
    place: &str,
) -> Result<(), TranscriptError> {
    let role = match string(message, "sender", place)? {
        "human" | "user" => Role::User,
        "assistant" => Role::Assistant,
        other => {
            return Err(TranscriptError::new(
                join(place, "sender"),
                format!("unknown sender {other:?}; a Claude.ai message is from human or assistant"),
            ));
        }
    };
    let mut turn = Turn::new(role);
    // Uploads first, as the web app shows them above the message they came with.
    attachments(&mut turn.text, message, place)?;
    match message.get("content") {
        Some(Value::Array(blocks)) if !blocks.is_empty() => {
            for (i, block) in blocks.iter().enumerate() {
                turn.block(builder, block, &format!("{}[{i}]", join(place, "content")))?;
            }
        }
        None | Some(Value::Null) | Some(Value::Array(_)) => {
            if let Some(text) = optional_string(message, "text", place)? {
                turn.text.text(text);
            }
        }
        Some(_) => {
            return Err(TranscriptError::new(
                join(place, "content"),
                "content must be an array of content blocks",
            ));
        }
    }
    turn.flush(builder);
    Ok(())
}

/// The `attachments` (pasted documents) and `files` (uploads) of a message, as placeholders
/// naming each file once.
fn attachments(text: &mut Text, message: &Value, place: &str) -> Result<(), TranscriptError> {
    let mut named = HashSet::new();
    let files = match message.get("files") {
        Some(Value::Array(files)) if !files.is_empty() => "files",
        _ => "files_v2",
    };
    for (field, label) in [("attachments", "attachment"), (files, "file")] {
        let items = match message.get(field) {
            None | Some(Value::Null) => continue,
            Some(Value::Array(items)) => items,
            Some(_) => {
                return Err(TranscriptError::new(
                    join(place, field),
                    format!("{field} must be an array"),
                ));
            }
        };
        for (i, item) in items.iter().enumerate() {
            let at = format!("{}[{i}]", join(place, field));
            let name = match item {
                // An upload is sometimes listed by its id alone.
                Value::String(id) => Some(id.as_str()),
                Value::Object(_) => optional_string(item, "file_name", &at)?,
                _ => {
                    return Err(TranscriptError::new(at, "expected a file object"));
                }
            };
            if name.is_some_and(|n| !named.insert(n.to_owned())) {
                continue;
            }
            let kind = item.get("file_kind").and_then(Value::as_str);
            text.placeholder(
                if kind == Some("image") {
                    "image"
                } else {
                    label
                },
                name,
            );
        }
    }
    Ok(())
}

/// One message's text as its blocks are read: a tool result ends the text before it, so that
/// the call, its result and the reply after it stay in order.
struct Turn {
    role: Role,
    text: Text,
    calls: Vec<ToolCall>,
}

impl Turn {
    fn new(role: Role) -> Self {
        Turn {
            role,
            text: Text::default(),
            calls: Vec::new(),
        }
    }

    fn block(
        &mut self,
        builder: &mut Builder,
        block: &Value,
        place: &str,
    ) -> Result<(), TranscriptError> {
        if !block.is_object() {
            return Err(TranscriptError::new(
                place,
                "expected a content block object",
            ));
        }
        match string(block, "type", place)? {
            "text" => {
                if let Some(text) = optional_string(block, "text", place)? {
                    self.text.text(text);
                }
            }
            // Reasoning, and the app's bookkeeping of how much of it is left.
            "thinking" | "redacted_thinking" | "token_budget" => {}
            "tool_use" | "server_tool_use" => self.calls.push(ToolCall {
                id: optional_string(block, "id", place)?
                    .unwrap_or_default()
                    .to_owned(),
                name: string(block, "name", place)?.to_owned(),
                arguments: arguments(block.get("input")),
            }),
            "tool_result" => {
                let result = tool_result(block, place)?;
                self.flush(builder);
                builder.push(result);
            }
            "image" => self
                .text
                .placeholder("image", optional_string(block, "file_name", place)?),
            kind @ ("file" | "document") => {
                let name = match optional_string(block, "file_name", place)? {
                    Some(name) => Some(name),
                    None => optional_string(block, "title", place)?,
                };
                self.text.placeholder(kind, name);
            }
            other => self.text.placeholder(other, None),
        }
        Ok(())
    }

    /// Pushes what was read so far as one message (calls go on an assistant message).
    fn flush(&mut self, builder: &mut Builder) {
        let text = std::mem::take(&mut self.text);
        let calls = std::mem::take(&mut self.calls);
        let mut message = text.into_message(self.role);
        if self.role == Role::Assistant {
            message.calls = calls;
            builder.push(message);
        } else {
            builder.push(message);
            for call in calls {
                builder.push_call(call, 0);
            }
        }
    }
}

/// A `tool_result` block: the call it answers (`tool_use_id`, or `id` as some exporters write
/// it) and its content, a string or blocks.
fn tool_result(block: &Value, place: &str) -> Result<MessageParts, TranscriptError> {
    let mut text = Text::default();
    match block.get("content") {
        None | Some(Value::Null) => {
            if let Some(s) = optional_string(block, "text", place)? {
                text.text(s);
            }
        }
        Some(Value::String(s)) => text.text(s),
        Some(Value::Array(blocks)) => {
            for (i, inner) in blocks.iter().enumerate() {
                let at = format!("{}[{i}]", join(place, "content"));
                match inner {
                    Value::String(s) => text.text(s),
                    Value::Object(_) => match string(inner, "type", &at)? {
                        "text" => text.text(string(inner, "text", &at)?),
                        "image" => text.placeholder("image", None),
                        other => text.placeholder(other, None),
                    },
                    _ => return Err(TranscriptError::new(at, "expected a content block")),
                }
            }
        }
        Some(_) => {
            return Err(TranscriptError::new(
                join(place, "content"),
                "a tool result's content must be a string or an array of blocks",
            ));
        }
    }
    if block.get("is_error").and_then(Value::as_bool) == Some(true) {
        text.content = format!("(error) {}", text.content);
    }
    let mut message = text.into_message(Role::Tool);
    message.call_id = match optional_string(block, "tool_use_id", place)? {
        Some(id) => Some(id.to_owned()),
        None => optional_string(block, "id", place)?.map(str::to_owned),
    };
    message.tool_name = optional_string(block, "name", place)?.map(str::to_owned);
    Ok(message)
}
