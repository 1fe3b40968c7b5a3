//! A Chatbot UI export (the legacy, local-storage Chatbot UI): version 1 is an array of
//! conversations `{id, name, messages}`; versions 2 to 4 are `{version?, history, folders,
//! prompts?}` with the conversations under `history`; version 5 holds only `folders` and
//! `prompts`. A conversation is `{id, name, messages: [{role, content}], model, prompt,
//! temperature, folderId}`; `prompt` is the system prompt Chatbot UI sends before the messages.
//! As declared by mckaywrigley/chatbot-ui, types/export.ts at
//! 02ece78ca07c7c0b5ddf939a8e496eb833dfa2ea (`ExportFormatV1` to `ExportFormatV5`), and as
//! LibreChat's tests import it (danny-avila/LibreChat,
//! api/server/utils/import/__data__/chatbotui-export.json at
//! ee80ea7bba171f6819e1169d1877f9d9c864b890).
//!
//! The later, Supabase-backed Chatbot UI (2024) is not read: no public file of an export it
//! writes was found to read it from.

use serde_json::Value;

use super::parts::{join, optional_string};
use super::{Batch, Builder, Conversation, TranscriptError, openai_chat};

/// Whether `value` is a Chatbot UI export: an object with a `history` array (or a version 5
/// export of prompts and folders), or an array of `{id, name, messages}` conversations.
pub(super) fn is_export(value: &Value) -> bool {
    match value {
        Value::Object(map) => {
            let history = map
                .get("history")
                .is_some_and(|h| h.is_array() || h.is_null());
            (history && (map.contains_key("folders") || map.contains_key("version")))
                || (map.get("version").is_some_and(Value::is_number)
                    && map.get("prompts").is_some_and(Value::is_array)
                    && map.contains_key("folders"))
        }
        Value::Array(items) => !items.is_empty() && items.iter().all(is_conversation),
        _ => false,
    }
}

/// A version 1 export's conversation: `{id, name, messages}`.
pub(super) fn is_conversation(c: &Value) -> bool {
    c.get("id").is_some()
        && c.get("name").is_some_and(Value::is_string)
        && c.get("messages").is_some_and(Value::is_array)
}

/// Reads every conversation of the export; one that cannot be read is skipped and named.
pub(super) fn read(value: &Value, prefix: &str) -> Result<Batch, TranscriptError> {
    let (conversations, at) = match value {
        Value::Array(items) => (items.as_slice(), prefix.to_owned()),
        _ => match value.get("history") {
            Some(Value::Array(history)) => (history.as_slice(), join(prefix, "history")),
            _ => {
                return Err(TranscriptError::new(
                    join(prefix, "history"),
                    "the export holds prompts and folders but no conversations",
                ));
            }
        },
    };
    if conversations.is_empty() {
        return Err(TranscriptError::new(
            at,
            "the export holds no conversations",
        ));
    }
    Batch::of_each(
        conversations,
        |i| format!("{at}[{i}]"),
        |item, place| Ok(vec![conversation(item, place)?]),
    )
}

pub(super) fn conversation(item: &Value, place: &str) -> Result<Conversation, TranscriptError> {
    if !item.is_object() {
        return Err(TranscriptError::new(
            place,
            "expected a conversation object",
        ));
    }
    let title = optional_string(item, "name", place)?.map(str::to_owned);
    let mut builder = Builder::default();
    if let Some(prompt) = optional_string(item, "prompt", place)? {
        builder.system(prompt, &join(place, "prompt"))?;
    }
    let Some(Value::Array(messages)) = item.get("messages") else {
        return Err(TranscriptError::new(
            join(place, "messages"),
            "expected an array of messages",
        ));
    };
    let at = join(place, "messages");
    for (i, m) in messages.iter().enumerate() {
        // A message is a Chat Completions message (`{role, content}`, with a `type` beside).
        openai_chat::message(&mut builder, m, &format!("{at}[{i}]"))?;
    }
    Ok(builder.finish(title))
}
