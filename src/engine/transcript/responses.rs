//! OpenAI Responses API input items: `message` items (also written without `type`, as "easy"
//! input messages) with roles `user`, `assistant`, `system`, `developer` and content as a string
//! or parts (`input_text`, `output_text`, `refusal`, `input_image`, `input_file`,
//! `input_audio`); `function_call` (call_id, name, arguments) and `function_call_output`
//! (call_id, output); the other tools' `*_call` and `*_call_output` items, kept as calls and
//! results named by their type; `reasoning` items are not kept.

use serde_json::Value;

use super::parts::{Text, arguments, join, optional_string, string};
use super::{Builder, TranscriptError};
use crate::engine::message::{Role, ToolCall};

/// Whether an item is a Responses input item: a typed item, or a message whose parts are the
/// Responses API's.
pub(super) fn is_item(item: &Value) -> bool {
    let typed = item.get("type").and_then(Value::as_str).is_some_and(|t| {
        t == "message"
            || t == "reasoning"
            || t == "item_reference"
            || t.ends_with("_call")
            || t.ends_with("_call_output")
    });
    typed
        || item
            .get("content")
            .and_then(Value::as_array)
            .is_some_and(|parts| {
                parts.iter().any(|p| {
                    p.get("type").and_then(Value::as_str).is_some_and(|t| {
                        // `input_audio` is a Chat Completions part too, so it decides nothing.
                        matches!(
                            t,
                            "input_text" | "input_image" | "input_file" | "output_text"
                        )
                    })
                })
            })
}

/// Reads the items of one input, each at `place(i)`.
pub(super) fn read(
    builder: &mut Builder,
    items: &[Value],
    place: &dyn Fn(usize) -> String,
) -> Result<(), TranscriptError> {
    for (i, item) in items.iter().enumerate() {
        let at = place(i);
        if !item.is_object() {
            return Err(TranscriptError::new(at, "expected an input item object"));
        }
        let kind = optional_string(item, "type", &at)?.unwrap_or("message");
        match kind {
            "message" => message(builder, item, &at)?,
            "reasoning" => {}
            "function_call" | "custom_tool_call" => {
                let id = optional_string(item, "call_id", &at)?.unwrap_or_default();
                let args = item.get("arguments").or_else(|| item.get("input"));
                builder.push_call(
                    ToolCall {
                        id: id.to_owned(),
                        name: string(item, "name", &at)?.to_owned(),
                        arguments: arguments(args),
                    },
                    0,
                );
            }
            kind if kind.ends_with("_call_output") => {
                let text = output(item.get("output"), &join(&at, "output"))?;
                let mut result = text.into_message(Role::Tool);
                result.call_id = optional_string(item, "call_id", &at)?.map(str::to_owned);
                builder.push(result);
            }
            kind if kind.ends_with("_call") => {
                // A built-in tool's call (web search, file search, computer, code interpreter):
                // its name is its type, its arguments what the item holds besides.
                let mut rest = item.clone();
                if let Some(map) = rest.as_object_mut() {
                    map.remove("type");
                    map.remove("id");
                    map.remove("status");
                }
                let id = optional_string(item, "call_id", &at)?
                    .or(optional_string(item, "id", &at)?)
                    .unwrap_or_default();
                builder.push_call(
                    ToolCall {
                        id: id.to_owned(),
                        name: kind.trim_end_matches("_call").to_owned(),
                        arguments: rest.to_string(),
                    },
                    0,
                );
            }
            other => {
                return Err(TranscriptError::new(
                    join(&at, "type"),
                    format!(
                        "unknown input item type {other:?}; expected message, function_call or function_call_output"
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn message(builder: &mut Builder, item: &Value, place: &str) -> Result<(), TranscriptError> {
    let role = string(item, "role", place)?;
    let text = content(item.get("content"), &join(place, "content"))?;
    let role = match role {
        "system" | "developer" => return builder.system(&text.content, &join(place, "role")),
        "user" => Role::User,
        "assistant" => Role::Assistant,
        other => {
            return Err(TranscriptError::new(
                join(place, "role"),
                format!("unknown role {other:?}; expected user, assistant, system or developer"),
            ));
        }
    };
    builder.push(text.into_message(role));
    Ok(())
}

fn content(value: Option<&Value>, place: &str) -> Result<Text, TranscriptError> {
    let mut text = Text::default();
    match value {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => text.text(s),
        Some(Value::Array(parts)) => {
            for (i, part) in parts.iter().enumerate() {
                let at = format!("{place}[{i}]");
                if !part.is_object() {
                    return Err(TranscriptError::new(at, "expected a content part object"));
                }
                match string(part, "type", &at)? {
                    "input_text" | "output_text" | "text" => text.text(string(part, "text", &at)?),
                    "refusal" => text.text(string(part, "refusal", &at)?),
                    "input_image" => text.placeholder("image", None),
                    "input_audio" => text.placeholder("audio", None),
                    "input_file" => {
                        let name = optional_string(part, "filename", &at)?;
                        text.placeholder("file", name)
                    }
                    other => text.placeholder(other, None),
                }
            }
        }
        Some(_) => {
            return Err(TranscriptError::new(
                place,
                "content must be a string or an array of parts",
            ));
        }
    }
    Ok(text)
}

/// A call's output: a string, or parts like a message's content.
fn output(value: Option<&Value>, place: &str) -> Result<Text, TranscriptError> {
    match value {
        Some(Value::String(_) | Value::Array(_)) | None | Some(Value::Null) => {
            content(value, place)
        }
        Some(other) => {
            let mut text = Text::default();
            text.text(&other.to_string());
            Ok(text)
        }
    }
}
