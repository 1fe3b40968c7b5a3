//! A ChatGPT data export (`conversations.json`): an array of conversations, each a tree of
//! nodes in `mapping` (id → {message, parent, children}); the conversation as last shown is the
//! path from `current_node` back to the root, read here in order. A node's message has an
//! `author.role` (`system`, `user`, `assistant`, `tool`), a `content` of a `content_type`
//! (`text` and `multimodal_text` with `parts`, `code`, `execution_output`, the browsing and
//! quote types, `user_editable_context` for custom instructions, `thoughts` and
//! `reasoning_recap`, which are not kept) and a `recipient`: an assistant message addressed
//! to anything but `all` is a call to that tool.
//!
//! Empty system nodes (the export has one at every root), `null` messages and nodes marked
//! `metadata.is_visually_hidden_from_conversation` are skipped (custom instructions are hidden
//! too, and are kept as the system prompt); a system message with text is kept in the system
//! prompt wherever it stands, since the export puts custom instructions there.
//!
//! Trimmed and partial exports are read as far as they go: a `current_node` that is missing or
//! names no node falls back to the newest leaf (by `create_time`), and a `parent` that names no
//! node ends the branch there. Checked against a real export (Sinity/polylogue
//! `tests/fixtures/real/chatgpt/branching.json` at 1d00e771b51549724780d878daa00caf23d076a8),
//! whose custom instructions, hidden nodes, `thoughts`, `reasoning_recap` and tool calls are in
//! the fixtures.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::parts::{Text, join, optional_string, seconds_to_ms, string};
use super::{Builder, Conversation, TranscriptError};
use crate::engine::message::{MessageParts, Role, ToolCall};

/// Reads one conversation object at `place`.
pub(super) fn conversation(value: &Value, place: &str) -> Result<Conversation, TranscriptError> {
    let Some(map) = value.as_object() else {
        return Err(TranscriptError::new(
            place,
            "expected a conversation object",
        ));
    };
    let title = optional_string(value, "title", place)?.map(str::to_owned);
    let named = match &title {
        Some(t) => format!("{place} ({t:?})"),
        None => place.to_owned(),
    };
    let mapping = match map.get("mapping") {
        Some(Value::Object(mapping)) => mapping,
        None | Some(Value::Null) => {
            return Err(TranscriptError::new(
                join(&named, "mapping"),
                "mapping is missing: a ChatGPT conversation holds its messages there",
            ));
        }
        Some(_) => {
            return Err(TranscriptError::new(
                join(&named, "mapping"),
                "mapping must be an object of nodes (id to node)",
            ));
        }
    };
    let path = active_path(map, mapping, &named)?;
    let mut builder = Builder {
        late_system_allowed: true,
        ..Builder::default()
    };
    for id in path {
        let at = format!("{}[{id:?}]", join(&named, "mapping"));
        let node = &mapping[id.as_str()];
        match node.get("message") {
            None | Some(Value::Null) => {}
            Some(message) => read_message(&mut builder, message, &join(&at, "message"))?,
        }
    }
    Ok(builder.finish(title))
}

/// The node ids from the root to `current_node` (or, when it is missing or names no node, to
/// the newest leaf), in order. A parent that names no node ends the branch: what is above it
/// was trimmed away.
fn active_path(
    map: &Map<String, Value>,
    mapping: &Map<String, Value>,
    place: &str,
) -> Result<Vec<String>, TranscriptError> {
    let current = match map.get("current_node") {
        Some(Value::String(id)) if mapping.contains_key(id) => Some(id.clone()),
        None | Some(Value::Null) | Some(Value::String(_)) => newest_leaf(mapping),
        Some(_) => {
            return Err(TranscriptError::new(
                join(place, "current_node"),
                "current_node must be a node id",
            ));
        }
    };
    let mut path = Vec::new();
    let mut seen = HashSet::new();
    let mut next = current;
    while let Some(id) = next {
        let Some(node) = mapping.get(&id) else {
            break;
        };
        if !node.is_object() {
            return Err(TranscriptError::new(
                format!("{}[{id:?}]", join(place, "mapping")),
                "expected a node object",
            ));
        }
        if !seen.insert(id.clone()) {
            return Err(TranscriptError::new(
                format!("{}[{id:?}].parent", join(place, "mapping")),
                "the parent chain loops back to this node",
            ));
        }
        next = match node.get("parent") {
            None | Some(Value::Null) => None,
            Some(Value::String(parent)) => Some(parent.clone()),
            Some(_) => {
                return Err(TranscriptError::new(
                    format!("{}[{id:?}].parent", join(place, "mapping")),
                    "parent must be a node id or null",
                ));
            }
        };
        path.push(id);
    }
    path.reverse();
    Ok(path)
}

/// The leaf (a node none of whose children is in `mapping`) whose message is newest by
/// `create_time`; ties go to the later id. `None` for an empty mapping.
fn newest_leaf(mapping: &Map<String, Value>) -> Option<String> {
    let is_leaf = |node: &Value| {
        node.get("children")
            .and_then(Value::as_array)
            .is_none_or(|c| {
                !c.iter()
                    .filter_map(Value::as_str)
                    .any(|c| mapping.contains_key(c))
            })
    };
    let time = |node: &Value| {
        node.get("message")
            .and_then(|m| m.get("create_time"))
            .and_then(Value::as_f64)
            .filter(|t| t.is_finite())
            .unwrap_or(0.0)
    };
    mapping
        .iter()
        .filter(|(_, node)| is_leaf(node))
        .max_by(|(a_id, a), (b_id, b)| time(a).total_cmp(&time(b)).then(a_id.cmp(b_id)))
        .map(|(id, _)| id.clone())
}

fn read_message(
    builder: &mut Builder,
    message: &Value,
    place: &str,
) -> Result<(), TranscriptError> {
    if !message.is_object() {
        return Err(TranscriptError::new(
            place,
            "expected a message object or null",
        ));
    }
    let author = message
        .get("author")
        .ok_or_else(|| TranscriptError::new(join(place, "author"), "author is missing"))?;
    let role = string(author, "role", &join(place, "author"))?;
    let content = message
        .get("content")
        .ok_or_else(|| TranscriptError::new(join(place, "content"), "content is missing"))?;
    let kind = content.get("content_type").and_then(Value::as_str);
    let hidden = message
        .get("metadata")
        .and_then(|m| m.get("is_visually_hidden_from_conversation"))
        .and_then(Value::as_bool)
        == Some(true);
    if hidden && kind != Some("user_editable_context") {
        return Ok(());
    }
    let Some(text) = content_text(content, &join(place, "content"))? else {
        return Ok(());
    };
    let at_ms = seconds_to_ms(message.get("create_time"));
    let recipient = optional_string(message, "recipient", place)?.unwrap_or("all");
    // Custom instructions come as a hidden user message; they are the system prompt.
    let context = kind == Some("user_editable_context");
    match role {
        _ if context => builder.system(&text.content, &join(place, "content")),
        "system" => builder.system(&text.content, &join(place, "author.role")),
        "user" => {
            let mut m = MessageParts::text(Role::User, text.content);
            m.placeholders = text.placeholders;
            m.at_ms = at_ms;
            builder.push(m);
            Ok(())
        }
        "assistant" if recipient != "all" => {
            let id = optional_string(message, "id", place)?.unwrap_or_default();
            builder.push_call(
                ToolCall {
                    id: id.to_owned(),
                    name: recipient.to_owned(),
                    arguments: text.content,
                },
                at_ms,
            );
            Ok(())
        }
        "assistant" | "tool" => {
            let is_tool = role == "tool";
            let mut m = MessageParts::text(
                if is_tool { Role::Tool } else { Role::Assistant },
                text.content,
            );
            m.placeholders = text.placeholders;
            m.at_ms = at_ms;
            if is_tool {
                m.tool_name =
                    optional_string(author, "name", &join(place, "author"))?.map(str::to_owned);
            }
            builder.push(m);
            Ok(())
        }
        other => Err(TranscriptError::new(
            join(place, "author.role"),
            format!("unknown role {other:?}; expected system, user, assistant or tool"),
        )),
    }
}

/// The text of a message's content, or `None` for content that is not conversation (the
/// model's reasoning).
fn content_text(content: &Value, place: &str) -> Result<Option<Text>, TranscriptError> {
    if !content.is_object() {
        return Err(TranscriptError::new(place, "expected a content object"));
    }
    let kind = string(content, "content_type", place)?;
    let mut text = Text::default();
    let field = |name: &str| content.get(name).and_then(Value::as_str);
    match kind {
        "thoughts" | "reasoning_recap" => return Ok(None),
        "text" | "multimodal_text" => parts(&mut text, content, place)?,
        "user_editable_context" => {
            for name in ["user_profile", "user_instructions"] {
                if let Some(s) = field(name) {
                    text.text(s);
                }
            }
        }
        "tether_quote" => {
            for name in ["title", "text"] {
                if let Some(s) = field(name) {
                    text.text(s);
                }
            }
        }
        "tether_browsing_display" => {
            for name in ["result", "summary"] {
                if let Some(s) = field(name) {
                    text.text(s);
                }
            }
        }
        // Code the model ran (`text`, with its `language`), and what running it printed.
        "code" | "execution_output" | "system_error" => {
            if let Some(s) = field("text") {
                text.text(s);
            }
        }
        _ => {
            if let Some(s) = field("text") {
                text.text(s);
            } else if content.get("parts").is_some() {
                parts(&mut text, content, place)?;
            } else {
                text.placeholder(kind, None);
            }
        }
    }
    Ok(Some(text))
}

fn parts(text: &mut Text, content: &Value, place: &str) -> Result<(), TranscriptError> {
    let parts = match content.get("parts") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(parts)) => parts,
        Some(_) => {
            return Err(TranscriptError::new(
                join(place, "parts"),
                "parts must be an array",
            ));
        }
    };
    for (i, part) in parts.iter().enumerate() {
        match part {
            Value::String(s) => text.text(s),
            Value::Null => {}
            Value::Object(_) => {
                let at = format!("{}[{i}]", join(place, "parts"));
                let kind = optional_string(part, "content_type", &at)?.unwrap_or("part");
                match kind {
                    "audio_transcription" => {
                        if let Some(s) = optional_string(part, "text", &at)? {
                            text.text(s);
                        }
                    }
                    "image_asset_pointer" => text.placeholder("image", None),
                    k if k.contains("audio") => text.placeholder("audio", None),
                    k if k.contains("video") => text.placeholder("video", None),
                    other => text.placeholder(other.trim_end_matches("_asset_pointer"), None),
                }
            }
            other => text.text(&other.to_string()),
        }
    }
    Ok(())
}
