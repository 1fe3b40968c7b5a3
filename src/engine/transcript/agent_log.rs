//! What the two readers of coding agents' session logs (`claude_code.rs`, `codex.rs`) share:
//! RFC 3339 timestamps, the records' times on the messages they hold, and a conversation
//! finished with the compactions the agent recorded.

use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::{Builder, Compaction, Conversation};

/// A record's RFC 3339 `timestamp` in milliseconds since the epoch; 0 when it has none, or one
/// that is not RFC 3339 or lies before 1970 (the time of a message is shown, never relied on).
pub(super) fn timestamp_ms(record: &Value) -> u64 {
    record
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(|t| OffsetDateTime::parse(t, &Rfc3339).ok())
        .and_then(|t| u64::try_from(t.unix_timestamp_nanos() / 1_000_000).ok())
        .unwrap_or(0)
}

/// The conversation `builder` holds, with the compactions that have a summary. A boundary whose
/// summary the log does not hold (a file cut short right after it) folds nothing: its messages
/// stay verbatim, so nothing is lost.
pub(super) fn finish(
    builder: Builder,
    title: Option<String>,
    compactions: Vec<Compaction>,
) -> Conversation {
    let mut conversation = builder.finish(title);
    let len = conversation.messages.len();
    conversation.compactions = compactions
        .into_iter()
        .filter(|c| !c.summary.trim().is_empty())
        .map(|c| Compaction {
            at: c.at.min(len),
            ..c
        })
        .collect();
    conversation
}

/// Gives the messages `builder` added since it held `from` the time of the record they came
/// from, so the checks know which messages existed when each compaction was written.
pub(super) fn stamp(builder: &mut Builder, from: usize, at_ms: u64) {
    for message in builder.messages.iter_mut().skip(from) {
        if message.at_ms == 0 {
            message.at_ms = at_ms;
        }
    }
}
