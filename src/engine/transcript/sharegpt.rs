//! ShareGPT datasets: records of one conversation each, in a JSON array or as JSON Lines. A
//! record's turns are under `conversations` (or `conversation`, or `messages`), each a
//! `{"from", "value"}` (or `{"role", "content"}`) pair: `human`, `gpt`, `system`,
//! `function_call` (the value is JSON naming the function and its arguments, or a list of such
//! calls), `observation` (the result). A record may carry a `system` prompt, the `tools` the
//! model was offered (a JSON string), and `images` / `videos` / `audios`: paths that the turns'
//! `<image>` (`<video>`, `<audio>`) tokens stand for, in order.
//!
//! Followed: how LLaMA-Factory reads the format (hiyouga/LLaMA-Factory
//! `src/llamafactory/data/parser.py` for the default tags and `converter.py`
//! `SharegptDatasetConverter`, at ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30), whose
//! `data/glaive_toolcall_en_demo.json` and `data/mllm_demo.json` are among the fixtures. Other
//! speakers seen in published datasets are accepted too (`user`, `assistant`, `chatgpt`,
//! `bing`, `bard`, `model`; `tool` and `function` for a result).
//!
//! Kept: the turns; a call as a [`ToolCall`] on the assistant message, with a made-up id
//! (`call_3` for turn 3) that its observation answers; each media path as an `[image: path]`
//! placeholder where its token stood (paths without a token go on the first user message); the
//! `tools` text appended to the system prompt after "Tools:", as templates render it there.

use serde_json::Value;

use super::parts::{arguments, join};
use super::{Builder, Conversation, TranscriptError};
use crate::engine::message::{MessageParts, Role, ToolCall};

/// The fields that may hold a record's turns, in the order they are looked for.
const TURN_FIELDS: [&str; 3] = ["conversations", "conversation", "messages"];

/// The media columns, each with the token that marks a file's place in a turn.
const MEDIA: [(&str, &str, &str); 3] = [
    ("images", "<image>", "image"),
    ("videos", "<video>", "video"),
    ("audios", "<audio>", "audio"),
];

/// Whether a value is a ShareGPT record: `conversations` (or `conversation`) of turns, or
/// `messages` of `from`/`value` turns, or `messages` beside a media column or a `tools` string
/// (what LLaMA-Factory's "sharegpt" formatting with OpenAI-style tags holds; a request body's
/// `tools` is an array, never a string).
pub(super) fn is_record(value: &Value) -> bool {
    let is_turn = |t: &Value| {
        t.get("from").is_some() || (t.get("role").is_some() && t.get("content").is_some())
    };
    let turns = |key: &str| value.get(key).and_then(Value::as_array);
    if let Some(turns) = turns("conversations").or_else(|| turns("conversation")) {
        return turns.iter().any(is_turn);
    }
    let Some(messages) = turns("messages") else {
        return false;
    };
    let beside = MEDIA
        .iter()
        .any(|(field, _, _)| value.get(field).and_then(Value::as_array).is_some())
        || value.get("tools").is_some_and(Value::is_string);
    messages.iter().any(|t| t.get("from").is_some()) || (beside && messages.iter().any(is_turn))
}

/// Reads one record at `place`.
pub(super) fn record(value: &Value, place: &str) -> Result<Conversation, TranscriptError> {
    if !value.is_object() {
        return Err(TranscriptError::new(place, "expected a record object"));
    }
    let Some((field, turns)) = TURN_FIELDS
        .iter()
        .find_map(|f| value.get(f).and_then(Value::as_array).map(|t| (*f, t)))
    else {
        return Err(TranscriptError::new(
            join(place, "conversations"),
            "conversations is missing: a ShareGPT record holds its turns there",
        ));
    };
    let mut builder = Builder::default();
    if let Some(system) = optional_text(value, "system", place)? {
        builder.system(system, &join(place, "system"))?;
    }
    let mut media = Media::new(value, place)?;
    let mut messages: Vec<MessageParts> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    for (i, turn) in turns.iter().enumerate() {
        let at = format!("{}[{i}]", join(place, field));
        if !turn.is_object() {
            return Err(TranscriptError::new(at, "expected a turn object"));
        }
        let (speaker, content) = speaker_and_content(turn, &at)?;
        match speaker {
            "system" if messages.is_empty() => builder.system(&content, &at)?,
            "system" => {
                return Err(TranscriptError::new(
                    join(&at, "from"),
                    "a system turn may only lead the conversation",
                ));
            }
            "human" | "user" => messages.push(media.message(Role::User, &content)),
            "gpt" | "assistant" | "chatgpt" | "bing" | "bard" | "model" => {
                messages.push(media.message(Role::Assistant, &content));
            }
            "function_call" => {
                let calls = calls(&content, i, &at)?;
                pending = calls.iter().map(|c| c.id.clone()).collect();
                match messages.last_mut() {
                    Some(last) if last.role == Role::Assistant && last.calls.is_empty() => {
                        last.calls = calls;
                    }
                    _ => {
                        let mut message = MessageParts::text(Role::Assistant, "");
                        message.calls = calls;
                        messages.push(message);
                    }
                }
            }
            "observation" | "tool" | "function" => {
                let mut result = MessageParts::text(Role::Tool, content);
                if !pending.is_empty() {
                    result.call_id = Some(pending.remove(0));
                }
                messages.push(result);
            }
            other => {
                return Err(TranscriptError::new(
                    at,
                    format!(
                        "unknown speaker {other:?}; expected human, gpt, system, function_call or observation"
                    ),
                ));
            }
        }
    }
    media.leftovers(&mut messages);
    if let Some(tools) = tools_text(value, place)? {
        builder.system(&format!("Tools: {tools}"), &join(place, "tools"))?;
    }
    for message in messages {
        builder.push(message);
    }
    Ok(builder.finish(None))
}

/// A turn's speaker and text: `from`/`value`, or `role`/`content`.
fn speaker_and_content<'a>(
    turn: &'a Value,
    place: &str,
) -> Result<(&'a str, String), TranscriptError> {
    let (speaker_key, content_key) = if turn.get("from").is_some() {
        ("from", "value")
    } else {
        ("role", "content")
    };
    let speaker = turn
        .get(speaker_key)
        .and_then(Value::as_str)
        .ok_or_else(|| {
            TranscriptError::new(
                join(place, speaker_key),
                format!("{speaker_key} must name the speaker (human, gpt, ...)"),
            )
        })?;
    let content = match turn.get(content_key) {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(_) => {
            return Err(TranscriptError::new(
                join(place, content_key),
                format!("{content_key} must be a string"),
            ));
        }
    };
    Ok((speaker, content))
}

/// The calls of a `function_call` turn: its value is JSON, one `{name, arguments}` object or a
/// list of them (parallel calls).
fn calls(value: &str, turn: usize, place: &str) -> Result<Vec<ToolCall>, TranscriptError> {
    let at = join(place, "value");
    let parsed: Value = serde_json::from_str(value).map_err(|e| {
        TranscriptError::new(
            &at,
            format!("a function_call value must be JSON naming the function ({e})"),
        )
    })?;
    let one = |call: &Value, id: String| -> Result<ToolCall, TranscriptError> {
        let name = call
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| TranscriptError::new(&at, "the call names no function (name)"))?;
        Ok(ToolCall {
            id,
            name: name.to_owned(),
            arguments: arguments(call.get("arguments").or_else(|| call.get("parameters"))),
        })
    };
    match &parsed {
        Value::Array(list) if !list.is_empty() => list
            .iter()
            .enumerate()
            .map(|(k, call)| one(call, format!("call_{turn}_{k}")))
            .collect(),
        Value::Object(_) => Ok(vec![one(&parsed, format!("call_{turn}"))?]),
        _ => Err(TranscriptError::new(
            at,
            "a function_call value must be a {\"name\", \"arguments\"} object or a list of them",
        )),
    }
}

/// The record's `system` string, when it has one.
fn optional_text<'a>(
    value: &'a Value,
    key: &str,
    place: &str,
) -> Result<Option<&'a str>, TranscriptError> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(TranscriptError::new(
            join(place, key),
            format!("{key} must be a string"),
        )),
    }
}

/// The `tools` the model was offered, as JSON text; none when absent or an empty list.
fn tools_text(value: &Value, place: &str) -> Result<Option<String>, TranscriptError> {
    let text = match value.get("tools") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => s.trim().to_owned(),
        Some(list @ Value::Array(_)) => list.to_string(),
        Some(_) => {
            return Err(TranscriptError::new(
                join(place, "tools"),
                "tools must be a JSON string or an array of tools",
            ));
        }
    };
    let empty = text.is_empty()
        || serde_json::from_str::<Value>(&text)
            .is_ok_and(|v| v.as_array().is_some_and(Vec::is_empty));
    Ok((!empty).then_some(text))
}

/// The record's media paths, handed out in order as the turns' tokens ask for them.
struct Media {
    queues: Vec<(&'static str, &'static str, Vec<String>)>,
}

impl Media {
    fn new(value: &Value, place: &str) -> Result<Self, TranscriptError> {
        let mut queues = Vec::new();
        for (field, token, label) in MEDIA {
            let paths = match value.get(field) {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| match item {
                        Value::String(path) => Ok(path.clone()),
                        // A path may come as an object (`{"path": ...}` or `{"url": ...}`).
                        Value::Object(_) => Ok(["path", "url", "file_name"]
                            .iter()
                            .find_map(|k| item.get(k).and_then(Value::as_str))
                            .unwrap_or_default()
                            .to_owned()),
                        _ => Err(TranscriptError::new(
                            format!("{}[{i}]", join(place, field)),
                            format!("each of {field} must be a path"),
                        )),
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => {
                    return Err(TranscriptError::new(
                        join(place, field),
                        format!("{field} must be an array of paths"),
                    ));
                }
            };
            queues.push((token, label, paths));
        }
        Ok(Media { queues })
    }

    /// A message of `role` whose media tokens are replaced by placeholders naming their files.
    fn message(&mut self, role: Role, text: &str) -> MessageParts {
        let mut content = text.to_owned();
        let mut placeholders = Vec::new();
        for (token, label, paths) in &mut self.queues {
            let mut pieces = content.split(*token);
            let mut out = pieces.next().unwrap_or_default().to_owned();
            for piece in pieces {
                let path = (!paths.is_empty()).then(|| paths.remove(0));
                out.push_str(&shown(label, path.as_deref()));
                out.push_str(piece);
                placeholders.push((*label).to_owned());
            }
            content = out;
        }
        let mut message = MessageParts::text(role, content);
        message.placeholders = placeholders;
        message
    }

    /// Paths no token asked for go on the first user message (or a new one), so that none is
    /// lost.
    fn leftovers(self, messages: &mut Vec<MessageParts>) {
        if self.queues.iter().all(|(_, _, paths)| paths.is_empty()) {
            return;
        }
        let index = match messages.iter().position(|m| m.role == Role::User) {
            Some(index) => index,
            None => {
                messages.insert(0, MessageParts::text(Role::User, ""));
                0
            }
        };
        let first = &mut messages[index];
        for (_, label, paths) in self.queues {
            for path in paths {
                if !first.content.is_empty() {
                    first.content.push('\n');
                }
                first.content.push_str(&shown(label, Some(&path)));
                first.placeholders.push(label.to_owned());
            }
        }
    }
}

/// A media placeholder: `[image: path]`, or `[image]` without a path.
fn shown(label: &str, path: Option<&str>) -> String {
    match path.map(str::trim).filter(|p| !p.is_empty()) {
        Some(path) => format!("[{label}: {path}]"),
        None => format!("[{label}]"),
    }
}
