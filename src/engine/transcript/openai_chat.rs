//! OpenAI Chat Completions messages: roles `system`, `developer`, `user`, `assistant`, `tool`
//! and the legacy `function`; content as a string, `null` (an assistant message that only
//! calls tools), or an array of parts (`text`, `image_url`, `input_audio`, `file`, `refusal`);
//! an assistant's `tool_calls` (and the legacy `function_call`), and its `refusal`.

use serde_json::Value;

use super::parts::{Text, arguments, join, optional_string, string};
use super::{Builder, TranscriptError};
use crate::engine::message::{Role, ToolCall};

/// Whether an item could only be an OpenAI Chat Completions message: a role or field no other
/// format has, or a content part of OpenAI's.
pub(super) fn has_openai_signal(item: &Value) -> bool {
    let role = item.get("role").and_then(Value::as_str);
    if matches!(role, Some("system" | "developer" | "tool" | "function")) {
        return true;
    }
    if item.get("tool_calls").is_some()
        || item.get("function_call").is_some()
        || item.get("tool_call_id").is_some()
        || item.get("content").is_some_and(Value::is_null)
    {
        return true;
    }
    item.get("content")
        .and_then(Value::as_array)
        .is_some_and(|parts| {
            parts.iter().any(|p| {
                matches!(
                    p.get("type").and_then(Value::as_str),
                    Some("image_url" | "input_audio" | "file" | "refusal")
                )
            })
        })
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
    let role = string(item, "role", place)?;
    let content_place = join(place, "content");
    let text = content(item.get("content"), &content_place)?;
    match role {
        "system" | "developer" => builder.system(&text.content, &join(place, "role")),
        "user" => {
            builder.push(text.into_message(Role::User));
            Ok(())
        }
        "assistant" => {
            let mut text = text;
            if let Some(refusal) = optional_string(item, "refusal", place)? {
                text.text(refusal);
            }
            let mut message = text.into_message(Role::Assistant);
            message.calls = calls(item, place)?;
            builder.push(message);
            Ok(())
        }
        "tool" | "function" => {
            let mut message = text.into_message(Role::Tool);
            message.call_id = optional_string(item, "tool_call_id", place)?.map(str::to_owned);
            message.tool_name = optional_string(item, "name", place)?.map(str::to_owned);
            builder.push(message);
            Ok(())
        }
        other => Err(TranscriptError::new(
            join(place, "role"),
            format!(
                "unknown role {other:?}; expected system, developer, user, assistant, tool or function"
            ),
        )),
    }
}

/// The text of a message's `content`: a string, null, or an array of parts.
pub(super) fn content(value: Option<&Value>, place: &str) -> Result<Text, TranscriptError> {
    let mut text = Text::default();
    match value {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => text.text(s),
        Some(Value::Array(items)) => {
            for (i, part) in items.iter().enumerate() {
                content_part(&mut text, part, &format!("{place}[{i}]"))?;
            }
        }
        Some(_) => {
            return Err(TranscriptError::new(
                place,
                "content must be a string, null or an array of parts",
            ));
        }
    }
    Ok(text)
}

fn content_part(text: &mut Text, part: &Value, place: &str) -> Result<(), TranscriptError> {
    if let Value::String(s) = part {
        text.text(s);
        return Ok(());
    }
    let kind = string(part, "type", place)?;
    match kind {
        "text" => text.text(string(part, "text", place)?),
        "refusal" => text.text(string(part, "refusal", place)?),
        "image_url" => text.placeholder("image", None),
        "input_audio" => {
            let format = part
                .get("input_audio")
                .and_then(|a| a.get("format"))
                .and_then(Value::as_str);
            text.placeholder("audio", format)
        }
        "file" => {
            let name = part
                .get("file")
                .and_then(|f| f.get("filename").or_else(|| f.get("file_id")))
                .and_then(Value::as_str);
            text.placeholder("file", name)
        }
        other => text.placeholder(other, None),
    }
    Ok(())
}

fn calls(item: &Value, place: &str) -> Result<Vec<ToolCall>, TranscriptError> {
    let mut out = Vec::new();
    match item.get("tool_calls") {
        None | Some(Value::Null) => {}
        Some(Value::Array(calls)) => {
            for (i, call) in calls.iter().enumerate() {
                let at = join(place, &format!("tool_calls[{i}]"));
                let id = optional_string(call, "id", &at)?
                    .unwrap_or_default()
                    .to_owned();
                // A function call names its function; a custom tool call its tool and input.
                let (name, args) = if let Some(f) = call.get("function") {
                    let at = join(&at, "function");
                    (string(f, "name", &at)?, arguments(f.get("arguments")))
                } else if let Some(c) = call.get("custom") {
                    let at = join(&at, "custom");
                    (string(c, "name", &at)?, arguments(c.get("input")))
                } else {
                    return Err(TranscriptError::new(
                        at,
                        "a tool call needs a function (name and arguments)",
                    ));
                };
                out.push(ToolCall {
                    id,
                    name: name.to_owned(),
                    arguments: args,
                });
            }
        }
        Some(_) => {
            return Err(TranscriptError::new(
                join(place, "tool_calls"),
                "tool_calls must be an array",
            ));
        }
    }
    if let Some(f) = item.get("function_call").filter(|f| !f.is_null()) {
        let at = join(place, "function_call");
        out.push(ToolCall {
            id: String::new(),
            name: string(f, "name", &at)?.to_owned(),
            arguments: arguments(f.get("arguments")),
        });
    }
    Ok(out)
}
