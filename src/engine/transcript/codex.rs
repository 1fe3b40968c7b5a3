//! A Codex CLI session rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): one
//! `{timestamp, type, payload}` record per line. What is read:
//!
//! - `response_item` payloads are Responses API items, read as [`super::responses`] reads
//!   them: `message` (user, assistant; `developer` and `system` text joins the system prompt),
//!   `function_call` and `custom_tool_call` with their `*_output`, `local_shell_call` and the
//!   other `*_call` items as calls named by their type. `reasoning` is not kept, and items of
//!   other types (`ghost_snapshot`, an encrypted `compaction`) are skipped.
//! - A user message that is context Codex injected rather than text the user typed (the
//!   `<environment_context>` block, `<user_instructions>`, the `AGENTS.md` instructions) joins
//!   the system prompt, as Codex itself leaves those out of the user messages it keeps.
//! - A `compacted` payload is where Codex compacted: its `message` is the summary Codex wrote
//!   (it begins with Codex's summary prefix), which replaced the history before it. When
//!   `message` is empty, the summary is the last user message of its `replacement_history`. A
//!   compaction with no readable summary (a remote one kept encrypted) folds nothing.
//! - The `model` of the last `turn_context` before a compaction is the model that wrote it:
//!   Codex records the turn context right before it asks for the summary.
//! - `session_meta` and `event_msg` records are not messages (an event repeats what a
//!   `response_item` holds) and are skipped, as are record types this reader does not know.
//! - Older rollouts, without the `type`/`payload` wrapper, hold the session's metadata on the
//!   first line (`id`, `timestamp`), then bare response items and `record_type` lines.
//!
//! Read from openai/codex: `codex-rs/protocol/src/protocol.rs` (commit
//! edb4efee49ae9f130636fab25f2e398a931dd987: `RolloutLine` flattens a `RolloutItem` tagged
//! `type` with content `payload`; `CompactedItem` holds `message` and an optional
//! `replacement_history`) and `codex-rs/core/src/compact.rs` (commit
//! 0100b103625752f6a10c21b79a8c423761dc4c6a: the turn context persisted before the summary is
//! asked for, the summary prefix, and the `compacted` item written once the history is
//! replaced by the initial context, the recent user messages and the summary).

use serde_json::Value;

use super::agent_log::{finish, stamp, timestamp_ms};
use super::{Builder, Compaction, Conversation, TranscriptError, responses};
use crate::engine::edition::Compactor;

/// Whether the records are a rollout: a wrapped record of one of Codex's item types, or an
/// older rollout's metadata line followed by its `record_type` lines.
pub(super) fn is_rollout(values: &[(usize, Value)]) -> bool {
    values.iter().any(|(_, v)| {
        v.get("payload").is_some()
            && v.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| ITEM_TYPES.contains(&t))
    }) || is_legacy(values)
}

/// Reads the rollout's conversation and the compactions Codex recorded in it.
pub(super) fn read(values: &[(usize, Value)]) -> Result<Conversation, TranscriptError> {
    let legacy = is_legacy(values);
    let mut builder = Builder {
        late_system_allowed: true,
        ..Builder::default()
    };
    let mut compactions = Vec::new();
    let mut model: Option<String> = None;
    for (index, (no, record)) in values.iter().enumerate() {
        let place = format!("line {no}");
        if legacy {
            if index > 0 && record.get("record_type").is_none() {
                item(&mut builder, record, &place)?;
            }
            continue;
        }
        let payload = record.get("payload").unwrap_or(&Value::Null);
        match record.get("type").and_then(Value::as_str) {
            Some("response_item") => {
                let from = builder.messages.len();
                item(&mut builder, payload, &format!("{place}.payload"))?;
                stamp(&mut builder, from, timestamp_ms(record));
            }
            Some("turn_context") => {
                if let Some(m) = payload.get("model").and_then(Value::as_str) {
                    model = Some(m.to_owned());
                }
            }
            Some("compacted") => compactions.push(Compaction {
                at: builder.messages.len(),
                summary: summary(payload),
                tool: Compactor::Codex,
                at_ms: timestamp_ms(record),
                trigger: None,
                tokens_before: None,
                model: model.clone(),
            }),
            _ => {}
        }
    }
    Ok(finish(builder, None, compactions))
}

/// The record types a rollout's lines carry.
const ITEM_TYPES: [&str; 5] = [
    "session_meta",
    "response_item",
    "compacted",
    "turn_context",
    "event_msg",
];

/// How the user messages Codex injects as context begin.
const INJECTED: [&str; 3] = [
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
];

/// An older rollout: a first line of session metadata (`id`, `timestamp`, no `type`), and a
/// `record_type` line among the rest.
fn is_legacy(values: &[(usize, Value)]) -> bool {
    let Some((_, first)) = values.first() else {
        return false;
    };
    first.get("id").is_some_and(Value::is_string)
        && first.get("timestamp").is_some_and(Value::is_string)
        && first.get("type").is_none()
        && first.get("role").is_none()
        && values[1..]
            .iter()
            .any(|(_, v)| v.get("record_type").is_some())
}

/// One response item into `builder`: injected context into the system prompt, the kinds the
/// Responses reader knows read by it, the rest skipped.
fn item(builder: &mut Builder, payload: &Value, place: &str) -> Result<(), TranscriptError> {
    let kind = payload.get("type").and_then(Value::as_str).unwrap_or("");
    let known = kind == "message"
        || kind == "reasoning"
        || kind.ends_with("_call")
        || kind.ends_with("_call_output");
    if !known {
        return Ok(());
    }
    if kind == "message"
        && payload.get("role").and_then(Value::as_str) == Some("user")
        && let Some(text) = injected(payload)
    {
        return builder.system(&text, place);
    }
    responses::read(builder, std::slice::from_ref(payload), &|_| {
        place.to_owned()
    })
}

/// The text of a user message that is context Codex injected, or `None` for the user's own.
fn injected(message: &Value) -> Option<String> {
    let text: Vec<&str> = message
        .get("content")?
        .as_array()?
        .iter()
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect();
    let text = text.join("\n");
    INJECTED
        .iter()
        .any(|prefix| text.trim_start().starts_with(prefix))
        .then_some(text)
}

/// A `compacted` payload's summary: its `message`, or else the last user message of its
/// `replacement_history` (where Codex puts the summary); empty when neither has text.
fn summary(payload: &Value) -> String {
    if let Some(message) = payload.get("message").and_then(Value::as_str)
        && !message.trim().is_empty()
    {
        return message.to_owned();
    }
    payload
        .get("replacement_history")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .rev()
        .filter(|item| item.get("role").and_then(Value::as_str) == Some("user"))
        .find_map(|item| {
            let parts = item.get("content")?.as_array()?;
            let text: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            (!text.is_empty()).then(|| text.join("\n"))
        })
        .unwrap_or_default()
}
