//! A SillyTavern chat file (`chats/<character>/<chat>.jsonl`): JSON Lines whose first line is a
//! header (`user_name`, `character_name`, `create_date`, `chat_metadata`; current versions write
//! `chat_metadata` with the names as "unused") and every other line a message: `name`,
//! `is_user`, `is_system`, `send_date`, `mes`, and for a generated reply `swipes` (every
//! alternative generated), `swipe_id` (the one chosen) and `swipe_info`, with `extra` holding
//! reasoning, media and the narrator marker. As SillyTavern writes it (SillyTavern/SillyTavern,
//! src/endpoints/chats.js at 00a72b5a71195ec03bab5a42c03655f6ebe672e3: `/save` writes the chat
//! as one JSON value per line, the header first, and its importers from other apps write the
//! same header and `{name, is_user, send_date, mes}` lines) and as its early sample chats hold it
//! (public/chats/Aqua/1673181146000.jsonl at 7b87227cd2f73241b54a52f50fdc8ef4c73fc81b).
//!
//! What is kept: the chosen swipe (`swipes[swipe_id]` when that is a string, else `mes`, which
//! SillyTavern keeps equal to it); `is_user` makes a user message, anything else an assistant
//! one. A message with `is_system` is one SillyTavern does not send to the model (a hidden
//! message, `/hide`, or the app's own notice), so it is left out, as the model never saw it. A
//! narrator message (`extra.type` "narrator") is sent as a system message where it stands: at
//! the start it is the system prompt, later it is appended to it, since a conversation here has
//! no system turn in its middle. Reasoning (`extra.reasoning`) is not kept; an image or file
//! attached (`extra.image`, `extra.file`, `extra.media`) is a placeholder.

use serde_json::Value;

use super::parts::{Text, join, optional_string};
use super::{Builder, Conversation, TranscriptError};
use crate::engine::message::Role;

/// Whether a JSON Lines file's first value is a SillyTavern header: chat metadata or the two
/// names, and no message text.
pub(super) fn is_header(value: &Value) -> bool {
    value.get("mes").is_none()
        && (value.get("chat_metadata").is_some_and(Value::is_object)
            || (value.get("user_name").is_some() && value.get("character_name").is_some()))
}

/// Reads the chat: `values` are the file's lines with their numbers, the header first.
pub(super) fn read(values: &[(usize, Value)]) -> Result<Conversation, TranscriptError> {
    let Some(((_, header), messages)) = values.split_first() else {
        return Err(TranscriptError::new("line 1", "the chat file is empty"));
    };
    let title = header
        .get("character_name")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty() && *n != "unused")
        .map(str::to_owned);
    let mut builder = Builder {
        late_system_allowed: true,
        ..Builder::default()
    };
    for (no, item) in messages {
        message(&mut builder, item, &format!("line {no}"))?;
    }
    Ok(builder.finish(title))
}

fn message(builder: &mut Builder, item: &Value, place: &str) -> Result<(), TranscriptError> {
    if !item.is_object() {
        return Err(TranscriptError::new(place, "expected a message object"));
    }
    if flag(item, "is_system", place)? {
        return Ok(());
    }
    let mut text = Text::default();
    text.text(chosen(item, place)?);
    let extra = item.get("extra").filter(|e| e.is_object());
    if let Some(extra) = extra {
        attachments(&mut text, extra);
    }
    let narrator = extra.and_then(|e| e.get("type")).and_then(Value::as_str) == Some("narrator");
    let is_user = flag(item, "is_user", place)?;
    if narrator && !is_user {
        return builder.system(&text.content, &join(place, "extra.type"));
    }
    let mut message = text.into_message(if is_user { Role::User } else { Role::Assistant });
    message.at_ms = send_date_ms(item.get("send_date"));
    builder.push(message);
    Ok(())
}

/// The text of the swipe chosen: `swipes[swipe_id]`, or `mes` without swipes (or with a
/// `swipe_id` that names none, or with an empty list of swipes).
fn chosen<'a>(item: &'a Value, place: &str) -> Result<&'a str, TranscriptError> {
    let swipe = item
        .get("swipe_id")
        .and_then(Value::as_u64)
        .and_then(|i| {
            item.get("swipes")?
                .as_array()?
                .get(usize::try_from(i).ok()?)
        })
        .and_then(Value::as_str);
    match swipe {
        Some(text) => Ok(text),
        None => Ok(optional_string(item, "mes", place)?.unwrap_or("")),
    }
}

/// A boolean flag, absent meaning false.
fn flag(item: &Value, key: &str, place: &str) -> Result<bool, TranscriptError> {
    match item.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(TranscriptError::new(
            join(place, key),
            format!("{key} must be true or false"),
        )),
    }
}

/// `extra.image` (an image sent or generated), `extra.file` (`{name}`), and `extra.media`
/// (`[{type, title}]`, later versions) as placeholders.
fn attachments(text: &mut Text, extra: &Value) {
    if extra.get("image").is_some_and(Value::is_string) {
        text.placeholder("image", None);
    }
    if let Some(file) = extra.get("file").filter(|f| f.is_object()) {
        text.placeholder("file", file.get("name").and_then(Value::as_str));
    }
    if let Some(Value::Array(media)) = extra.get("media") {
        for item in media {
            let kind = item
                .get("type")
                .and_then(Value::as_str)
                .filter(|k| matches!(*k, "image" | "video" | "audio"))
                .unwrap_or("file");
            text.placeholder(kind, item.get("title").and_then(Value::as_str));
        }
    }
}

/// `send_date` as milliseconds since the epoch when it is a number (early files wrote one);
/// the text dates of later files are not parsed, and read as 0.
fn send_date_ms(value: Option<&Value>) -> u64 {
    match value.and_then(Value::as_f64) {
        Some(ms) if ms.is_finite() && ms > 1.0e11 && ms < 1.0e14 => ms as u64,
        _ => 0,
    }
}
