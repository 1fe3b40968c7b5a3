//! A LibreChat conversation export ("Export" → JSON): `{conversationId, endpoint, title,
//! exportAt, branches, recursive, options, messages | messagesTree}`. Its messages are
//! LibreChat's `TMessage`s (`messageId`, `parentMessageId`, `isCreatedByUser`, `sender`,
//! `text`, `content` parts, `files`, `createdAt`), either flat (`messages`, linked by
//! `parentMessageId`) or, with `recursive`, nested in `children` (under `messagesTree`, or
//! under `messages` in older exports). As written by danny-avila/LibreChat,
//! client/src/hooks/Conversations/useExportConversation.ts (`exportJSON`) and read back by
//! api/server/utils/import/importers.js (a nested message's parent is the one it is nested
//! in), both at 00b3bc32f0f5dd65befa49a0773dae7d26d8e587, and as its test exports hold them
//! (api/server/utils/import/__data__/librechat-export.json, librechat-tree.json).
//!
//! The export has no marker of the branch last shown, so the conversation read is the path to
//! the newest leaf: the leaf with the greatest `createdAt` (ISO 8601 times, which order as
//! text), and among leaves without one or with equal times the last in the file, which is the
//! last child at each fork, the branch LibreChat shows by default. A parent missing from the
//! export ends the branch. `options.promptPrefix` is the system prompt. Content parts read:
//! `text` (a string or `{value}`), `tool_call` (a call, and its `output` as the result),
//! `image_file` / `image_url` as `[image]`, `error` as text; `think` parts are reasoning and
//! not kept. Attached `files` are `[image]` or `[file: name]` placeholders.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::parts::{Text, arguments, join, optional_string, string};
use super::{Batch, Builder, Conversation, TranscriptError};
use crate::engine::message::{MessageParts, Role, ToolCall};

/// LibreChat's parent id for a message that starts the conversation.
const NO_PARENT: &str = "00000000-0000-0000-0000-000000000000";

/// Whether `value` is a LibreChat export, or an array of them.
pub(super) fn is_export(value: &Value) -> bool {
    match value {
        Value::Array(items) => !items.is_empty() && items.iter().all(is_conversation),
        _ => is_conversation(value),
    }
}

pub(super) fn is_conversation(value: &Value) -> bool {
    value.get("conversationId").is_some()
        && (value.get("messagesTree").is_some()
            || value
                .get("messages")
                .and_then(Value::as_array)
                .is_some_and(|m| m.iter().any(|m| m.get("messageId").is_some())))
}

/// Reads the export (or each export of an array) at `prefix`.
pub(super) fn read(value: &Value, prefix: &str) -> Result<Batch, TranscriptError> {
    Batch::of_one_or_many(value, prefix, conversation)
}

/// One message of the export, flattened: its place, its parent, and the message.
struct Node<'a> {
    place: String,
    id: &'a str,
    parent: Option<&'a str>,
    value: &'a Value,
}

pub(super) fn conversation(value: &Value, place: &str) -> Result<Conversation, TranscriptError> {
    if !value.is_object() {
        return Err(TranscriptError::new(
            place,
            "expected a conversation object",
        ));
    }
    let title = optional_string(value, "title", place)?.map(str::to_owned);
    let (key, roots) = match (value.get("messagesTree"), value.get("messages")) {
        (Some(tree), _) => ("messagesTree", tree),
        (None, Some(messages)) => ("messages", messages),
        (None, None) => {
            return Err(TranscriptError::new(
                join(place, "messages"),
                "the export holds neither messages nor messagesTree",
            ));
        }
    };
    let at = join(place, key);
    let mut nodes = Vec::new();
    match roots {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                flatten(item, &format!("{at}[{i}]"), &mut nodes)?;
            }
        }
        // A recursive export of one root writes the root itself.
        Value::Object(_) => flatten(roots, &at, &mut nodes)?,
        _ => {
            return Err(TranscriptError::new(at, "expected an array of messages"));
        }
    }
    let mut builder = Builder::default();
    if let Some(prefix) = value
        .get("options")
        .and_then(|o| o.get("promptPrefix"))
        .and_then(Value::as_str)
    {
        builder.system(prefix, &join(place, "options.promptPrefix"))?;
    }
    for node in branch(&nodes, &at)? {
        message(&mut builder, node)?;
    }
    Ok(builder.finish(title))
}

/// Adds `item` and, nested in `children`, its replies, depth first in file order (an explicit
/// stack, since a long conversation nests as deep as it is long). A nested message's parent is
/// the one it is nested in, whatever its own `parentMessageId` says, as LibreChat's importer
/// reads it.
fn flatten<'a>(
    item: &'a Value,
    place: &str,
    nodes: &mut Vec<Node<'a>>,
) -> Result<(), TranscriptError> {
    let mut stack: Vec<(&'a Value, String, Option<&'a str>)> = vec![(item, place.to_owned(), None)];
    while let Some((item, place, nested_in)) = stack.pop() {
        if !item.is_object() {
            return Err(TranscriptError::new(place, "expected a message object"));
        }
        let id = string(item, "messageId", &place)?;
        let parent = match nested_in {
            Some(parent) => Some(parent),
            None => optional_string(item, "parentMessageId", &place)?.filter(|p| *p != NO_PARENT),
        };
        match item.get("children") {
            None | Some(Value::Null) => {}
            Some(Value::Array(children)) => {
                // Pushed last first, so that the first child is read next.
                for (i, child) in children.iter().enumerate().rev() {
                    let at = format!("{}[{i}]", join(&place, "children"));
                    stack.push((child, at, Some(id)));
                }
            }
            Some(_) => {
                return Err(TranscriptError::new(
                    join(&place, "children"),
                    "children must be an array of messages",
                ));
            }
        }
        nodes.push(Node {
            place,
            id,
            parent,
            value: item,
        });
    }
    Ok(())
}

/// The messages from the root to the newest leaf, in order.
fn branch<'n, 'a>(
    nodes: &'n [Node<'a>],
    place: &str,
) -> Result<Vec<&'n Node<'a>>, TranscriptError> {
    let by_id: HashMap<&str, &Node> = nodes.iter().map(|n| (n.id, n)).collect();
    let parents: HashSet<&str> = nodes.iter().filter_map(|n| n.parent).collect();
    let created = |n: &Node| {
        n.value
            .get("createdAt")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let leaf = nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| !parents.contains(n.id))
        .max_by_key(|(i, n)| (created(n), *i))
        .map(|(_, n)| n);
    let mut path = Vec::new();
    let mut seen = HashSet::new();
    let mut next = leaf;
    while let Some(node) = next {
        if !seen.insert(node.id) {
            return Err(TranscriptError::new(
                join(&node.place, "parentMessageId"),
                format!("the parent chain of {place} loops back to this message"),
            ));
        }
        path.push(node);
        // A parent missing from the export ends the branch.
        next = node.parent.and_then(|p| by_id.get(p).copied());
    }
    path.reverse();
    Ok(path)
}

fn message(builder: &mut Builder, node: &Node) -> Result<(), TranscriptError> {
    let item = node.value;
    let place = node.place.as_str();
    let role = match item.get("isCreatedByUser") {
        Some(Value::Bool(true)) => Role::User,
        Some(Value::Bool(false)) | None | Some(Value::Null) => Role::Assistant,
        Some(_) => {
            return Err(TranscriptError::new(
                join(place, "isCreatedByUser"),
                "isCreatedByUser must be true or false",
            ));
        }
    };
    let mut text = Text::default();
    let mut calls = Vec::new();
    let mut results = Vec::new();
    match item.get("content") {
        Some(Value::Array(parts)) if !parts.is_empty() => {
            for (i, part) in parts.iter().enumerate() {
                let at = format!("{}[{i}]", join(place, "content"));
                content_part(&mut text, &mut calls, &mut results, part, &at)?;
            }
        }
        None | Some(Value::Null) | Some(Value::Array(_)) => {
            if let Some(s) = optional_string(item, "text", place)? {
                text.text(s);
            }
        }
        Some(_) => {
            return Err(TranscriptError::new(
                join(place, "content"),
                "content must be an array of parts",
            ));
        }
    }
    if let Some(Value::Array(files)) = item.get("files") {
        for file in files {
            let kind = file.get("type").and_then(Value::as_str).unwrap_or("");
            if kind.starts_with("image") {
                text.placeholder("image", None);
            } else {
                let name = file.get("filename").and_then(Value::as_str);
                text.placeholder("file", name);
            }
        }
    }
    let mut message = text.into_message(role);
    if role == Role::Assistant {
        message.calls = calls;
    }
    builder.push(message);
    for result in results {
        builder.push(result);
    }
    Ok(())
}

fn content_part(
    text: &mut Text,
    calls: &mut Vec<ToolCall>,
    results: &mut Vec<MessageParts>,
    part: &Value,
    place: &str,
) -> Result<(), TranscriptError> {
    if part.is_null() {
        return Ok(());
    }
    if !part.is_object() {
        return Err(TranscriptError::new(
            place,
            "expected a content part object",
        ));
    }
    match string(part, "type", place)? {
        kind @ ("text" | "error") => {
            let value = part.get(kind).or_else(|| part.get("text"));
            let s = match value {
                Some(Value::String(s)) => s.as_str(),
                Some(Value::Object(o)) => o.get("value").and_then(Value::as_str).unwrap_or(""),
                _ => "",
            };
            if kind == "error" && !s.is_empty() {
                text.text(&format!("(error) {s}"));
            } else {
                text.text(s);
            }
        }
        "think" => {}
        "tool_call" => {
            let at = join(place, "tool_call");
            let Some(call) = part.get("tool_call").filter(|c| c.is_object()) else {
                return Err(TranscriptError::new(at, "expected a tool call object"));
            };
            let id = optional_string(call, "id", &at)?.unwrap_or_default();
            // An agent's call names itself; an assistant's function call names its function.
            let function = call.get("function");
            let name = optional_string(call, "name", &at)?
                .or_else(|| function.and_then(|f| f.get("name")).and_then(Value::as_str))
                .or_else(|| call.get("type").and_then(Value::as_str))
                .unwrap_or("tool");
            let args = call
                .get("args")
                .or_else(|| function.and_then(|f| f.get("arguments")));
            calls.push(ToolCall {
                id: id.to_owned(),
                name: name.to_owned(),
                arguments: arguments(args),
            });
            let output = call
                .get("output")
                .or_else(|| function.and_then(|f| f.get("output")));
            if let Some(output) = output.filter(|o| !o.is_null()) {
                let mut result = MessageParts::text(Role::Tool, arguments(Some(output)));
                result.call_id = Some(id.to_owned());
                result.tool_name = Some(name.to_owned());
                results.push(result);
            }
        }
        "image_file" | "image_url" => text.placeholder("image", None),
        other => text.placeholder(other, None),
    }
    Ok(())
}
