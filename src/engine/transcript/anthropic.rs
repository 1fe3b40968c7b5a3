//! An Anthropic Messages request: a top-level `system` (a string or text blocks) and
//! `messages` of `user` and `assistant`, whose content is a string or an array of blocks:
//! `text`, `image`, `document`, `tool_use` (a call: id, name, input), `tool_result` (inside a
//! user message: the result of a call, as a string or blocks), and `thinking` (not kept).
//! A `system` message inside `messages`, which logging proxies capture although the API refuses
//! it, joins the system prompt: leading, as the prompt itself; later, appended to it in order,
//! as LiteLLM sends it (see `read_body` in mod.rs).
//!
//! A user message's `tool_result` blocks become [`Role::Tool`] messages placed before the
//! user's own text, as the API requires them to come first, so that the results stay in the
//! turn of the call.

use serde_json::Value;

use super::parts::{Text, arguments, join, optional_string, string};
use super::{Builder, TranscriptError};
use crate::engine::message::{MessageParts, Role, ToolCall};

/// Whether an item holds a content block only Anthropic's format has.
pub(super) fn has_anthropic_signal(item: &Value) -> bool {
    item.get("content")
        .and_then(Value::as_array)
        .is_some_and(|blocks| {
            blocks.iter().any(|b| {
                matches!(
                    b.get("type").and_then(Value::as_str),
                    Some(
                        "tool_use"
                            | "tool_result"
                            | "image"
                            | "document"
                            | "thinking"
                            | "redacted_thinking"
                            | "server_tool_use"
                    )
                )
            })
        })
}

/// The `system` field's text: a string, or an array of text blocks.
pub(super) fn system_text(value: &Value, place: &str) -> Result<String, TranscriptError> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Array(blocks) => {
            let mut text = Text::default();
            for (i, block) in blocks.iter().enumerate() {
                text.text(string(block, "text", &format!("{place}[{i}]"))?);
            }
            Ok(text.content)
        }
        _ => Err(TranscriptError::new(
            place,
            "system must be a string or an array of text blocks",
        )),
    }
}

/// Reads one message at `place` into `builder`.
pub(super) fn message(
    builder: &mut Builder,
    item: &Value,
    place: &str,
) -> Result<(), TranscriptError> {
    if !item.is_object() {
        return Err(TranscriptError::new(place, "expected a message object"));
    }
    let role = match string(item, "role", place)? {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        // A proxy's capture may hold the system prompt as a message: see `read_body`.
        "system" => {
            let content = item.get("content").unwrap_or(&Value::Null);
            let text = system_text(content, &join(place, "content"))?;
            return builder.system(&text, &join(place, "role"));
        }
        other => {
            return Err(TranscriptError::new(
                join(place, "role"),
                format!(
                    "unknown role {other:?}; an Anthropic message is user or assistant (the system prompt is the request's system field)"
                ),
            ));
        }
    };
    let content_place = join(place, "content");
    let mut text = Text::default();
    let mut calls = Vec::new();
    let mut results = Vec::new();
    match item.get("content") {
        Some(Value::String(s)) => text.text(s),
        Some(Value::Array(blocks)) => {
            for (i, block) in blocks.iter().enumerate() {
                let at = format!("{content_place}[{i}]");
                match block_kind(block, &at)? {
                    "text" => text.text(string(block, "text", &at)?),
                    "image" => text.placeholder("image", None),
                    "document" => {
                        let title = optional_string(block, "title", &at)?;
                        text.placeholder("document", title)
                    }
                    "tool_use" | "server_tool_use" => calls.push(ToolCall {
                        id: optional_string(block, "id", &at)?
                            .unwrap_or_default()
                            .to_owned(),
                        name: string(block, "name", &at)?.to_owned(),
                        arguments: arguments(block.get("input")),
                    }),
                    "tool_result" => results.push(tool_result(block, &at)?),
                    "thinking" | "redacted_thinking" => {}
                    other if other.ends_with("_tool_result") => {
                        let mut result =
                            MessageParts::text(Role::Tool, arguments(block.get("content")));
                        result.call_id =
                            optional_string(block, "tool_use_id", &at)?.map(str::to_owned);
                        results.push(result);
                    }
                    other => text.placeholder(other, None),
                }
            }
        }
        _ => {
            return Err(TranscriptError::new(
                content_place,
                "content must be a string or an array of content blocks",
            ));
        }
    }
    for result in results {
        builder.push(result);
    }
    let mut message = text.into_message(role);
    if role == Role::Assistant {
        message.calls = calls;
        builder.push(message);
    } else {
        builder.push(message);
        for call in calls {
            builder.push_call(call, 0);
        }
    }
    Ok(())
}

fn block_kind<'a>(block: &'a Value, place: &str) -> Result<&'a str, TranscriptError> {
    if !block.is_object() {
        return Err(TranscriptError::new(
            place,
            "expected a content block object",
        ));
    }
    string(block, "type", place)
}

/// A `tool_result` block: the call it answers and its content, a string or blocks.
fn tool_result(block: &Value, place: &str) -> Result<MessageParts, TranscriptError> {
    let mut text = Text::default();
    match block.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => text.text(s),
        Some(Value::Array(blocks)) => {
            for (i, inner) in blocks.iter().enumerate() {
                let at = format!("{}[{i}]", join(place, "content"));
                match block_kind(inner, &at)? {
                    "text" => text.text(string(inner, "text", &at)?),
                    "image" => text.placeholder("image", None),
                    other => text.placeholder(other, None),
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
    message.call_id = Some(string(block, "tool_use_id", place)?.to_owned());
    Ok(message)
}
