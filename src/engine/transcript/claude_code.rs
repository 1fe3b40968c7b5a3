//! A Claude Code session log (`~/.claude/projects/<project>/<session>.jsonl`): one record per
//! line, each with a `type`. What is read:
//!
//! - `user` and `assistant` records hold an Anthropic message under `message` (text,
//!   `thinking`, `tool_use` and `tool_result` blocks), read as [`super::anthropic`] reads a
//!   request's messages: tool results become tool messages naming their call, thinking is not
//!   kept. Claude Code writes one assistant record per content block, all with the same
//!   `message.id`; consecutive records of one id are one message.
//! - Records link to the one before through `parentUuid`. A rewind ("redo from here") leaves
//!   the abandoned branch in the file, so the conversation is the chain that ends at the last
//!   user or assistant record, followed back to its root. A compact boundary has no parent; its
//!   `logicalParentUuid` names the record before it. A parent missing from the file (a trimmed
//!   log) continues with the record just before in the file.
//! - A `system` record with `subtype: "compact_boundary"` is where Claude Code compacted
//!   (`compactMetadata`: `trigger`, `preTokens`). The next `user` record marked
//!   `isCompactSummary` holds the summary it wrote: it becomes the [`Compaction`]'s text, not
//!   a message. Older logs hold the summary without a boundary; it then compacts there.
//! - Left out: `isMeta` user records (caveats and skill bodies the tool injected, not typed by
//!   the user); records with `isSidechain: true` (a subagent's own conversation: the main one
//!   keeps its Task call and the result it returned); other `system` records (command output,
//!   API errors, durations); `file-history-snapshot`, `queue-operation`, `last-prompt` and
//!   `attachment` records. A `summary` record's `summary` (the session's title) names the
//!   conversation.
//!
//! The record shapes follow files other projects committed: real Claude Code 2.1.152 records
//! in kvsankar/agent-history `tests/fixtures/real_sessions/claude/session-01.jsonl` (commit
//! 9a7a78b14383615fd05bfcf267d21b08e2349f3f), the boundary and summary records in
//! daaain/claude-code-log `test/test_data/dag_compact_after_rewind.jsonl` (commit
//! be3a5a4595a66027ea2fd4dfce5564a6891c22be), and the record types listed in
//! chrisguillory/claude-session-mcp `CLAUDE.md`.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use super::agent_log::{finish, stamp, timestamp_ms};
use super::parts::{Text, join, string};
use super::{Builder, Compaction, Conversation, TranscriptError, anthropic};
use crate::engine::edition::Compactor;

/// Whether any record is one only a Claude Code session log holds.
pub(super) fn is_session(values: &[(usize, Value)]) -> bool {
    values.iter().any(|(_, v)| is_record(v))
}

/// Reads the log's main conversation and the compactions Claude Code recorded in it.
pub(super) fn read(values: &[(usize, Value)]) -> Result<Conversation, TranscriptError> {
    let mut builder = Builder::default();
    let mut compactions: Vec<Compaction> = Vec::new();
    let mut pending: Option<Assistant> = None;
    for (no, record) in main_chain(values) {
        let place = format!("line {no}");
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        let flag = |key: &str| record.get(key).and_then(Value::as_bool) == Some(true);
        if kind == "assistant" {
            let message = message_of(record, &place)?;
            let id = message.get("id").and_then(Value::as_str);
            if let Some(open) = &mut pending
                && id.is_some()
                && open.id.as_deref() == id
            {
                open.blocks.extend(blocks(message));
                continue;
            }
            flush(&mut builder, pending.take())?;
            pending = Some(Assistant {
                id: id.map(str::to_owned),
                blocks: blocks(message),
                place,
                at_ms: timestamp_ms(record),
            });
            continue;
        }
        flush(&mut builder, pending.take())?;
        match kind {
            "system" if record.get("subtype").and_then(Value::as_str) == Some(BOUNDARY) => {
                let meta = record.get("compactMetadata");
                let field = |key: &str| meta.and_then(|m| m.get(key));
                compactions.push(Compaction {
                    at: builder.messages.len(),
                    summary: String::new(),
                    tool: Compactor::ClaudeCode,
                    at_ms: timestamp_ms(record),
                    trigger: field("trigger").and_then(Value::as_str).map(str::to_owned),
                    tokens_before: field("preTokens")
                        .and_then(Value::as_u64)
                        .map(|t| u32::try_from(t).unwrap_or(u32::MAX)),
                    model: None,
                });
            }
            "user" if flag("isCompactSummary") => {
                let text = summary_text(message_of(record, &place)?, &place)?;
                match compactions.last_mut() {
                    Some(last) if last.summary.is_empty() => last.summary = text,
                    _ => compactions.push(Compaction {
                        at: builder.messages.len(),
                        summary: text,
                        tool: Compactor::ClaudeCode,
                        at_ms: timestamp_ms(record),
                        trigger: None,
                        tokens_before: None,
                        model: None,
                    }),
                }
            }
            "user" if !flag("isMeta") => {
                let from = builder.messages.len();
                anthropic::message(&mut builder, message_of(record, &place)?, &place)?;
                stamp(&mut builder, from, timestamp_ms(record));
            }
            _ => {}
        }
    }
    flush(&mut builder, pending.take())?;
    Ok(finish(builder, title(values), compactions))
}

const BOUNDARY: &str = "compact_boundary";

/// The content blocks of one assistant message, gathered from its records.
struct Assistant {
    id: Option<String>,
    blocks: Vec<Value>,
    /// The line of its first record, which names it in an error.
    place: String,
    at_ms: u64,
}

fn flush(builder: &mut Builder, pending: Option<Assistant>) -> Result<(), TranscriptError> {
    let Some(a) = pending else {
        return Ok(());
    };
    let from = builder.messages.len();
    let message = json!({"role": "assistant", "content": a.blocks});
    anthropic::message(builder, &message, &a.place)?;
    stamp(builder, from, a.at_ms);
    Ok(())
}

/// A record only Claude Code writes: a message record with the chain's fields, a compact
/// boundary, a title, or one of its bookkeeping records.
fn is_record(v: &Value) -> bool {
    let has = |key: &str| v.get(key).is_some();
    match v.get("type").and_then(Value::as_str) {
        Some("user" | "assistant") => {
            v.get("message").is_some_and(Value::is_object)
                && ["sessionId", "parentUuid", "uuid", "isSidechain"]
                    .iter()
                    .any(|k| has(k))
        }
        Some("system") => {
            v.get("subtype").and_then(Value::as_str) == Some(BOUNDARY)
                || (has("subtype") && (has("sessionId") || has("parentUuid")))
        }
        Some("summary" | "last-prompt") => has("leafUuid"),
        Some("file-history-snapshot") => has("snapshot"),
        Some("queue-operation") => has("operation"),
        _ => false,
    }
}

/// The records of the main conversation, in order: the chain that ends at the last user or
/// assistant record, followed back through `parentUuid` (or a boundary's
/// `logicalParentUuid`). Without uuids, every message record in file order.
fn main_chain(values: &[(usize, Value)]) -> Vec<&(usize, Value)> {
    let records: Vec<&(usize, Value)> = values
        .iter()
        .filter(|(_, v)| {
            matches!(
                v.get("type").and_then(Value::as_str),
                Some("user" | "assistant" | "system")
            ) && v.get("isSidechain").and_then(Value::as_bool) != Some(true)
        })
        .collect();
    let by_uuid: HashMap<&str, usize> = records
        .iter()
        .enumerate()
        .filter_map(|(i, (_, v))| uuid(v).map(|u| (u, i)))
        .collect();
    let leaf = records.iter().rposition(|(_, v)| {
        uuid(v).is_some()
            && matches!(
                v.get("type").and_then(Value::as_str),
                Some("user" | "assistant")
            )
    });
    let Some(leaf) = leaf else {
        return records;
    };
    let mut chain = Vec::new();
    let mut seen = HashSet::new();
    let mut at = Some(leaf);
    while let Some(i) = at {
        if !seen.insert(i) {
            break;
        }
        chain.push(i);
        let v = &records[i].1;
        let parent = ["parentUuid", "logicalParentUuid"]
            .iter()
            .find_map(|k| v.get(*k).and_then(Value::as_str));
        at = match parent {
            Some(parent) => by_uuid.get(parent).copied().or(i.checked_sub(1)),
            None => None,
        };
    }
    chain.reverse();
    chain.into_iter().map(|i| records[i]).collect()
}

fn uuid(record: &Value) -> Option<&str> {
    record.get("uuid").and_then(Value::as_str)
}

/// A record's `message`, which must be an object.
fn message_of<'a>(record: &'a Value, place: &str) -> Result<&'a Value, TranscriptError> {
    record
        .get("message")
        .filter(|m| m.is_object())
        .ok_or_else(|| TranscriptError::new(join(place, "message"), "expected a message object"))
}

/// A message's content as blocks: a string is one text block.
fn blocks(message: &Value) -> Vec<Value> {
    match message.get("content") {
        Some(Value::Array(blocks)) => blocks.clone(),
        Some(Value::String(text)) => vec![json!({"type": "text", "text": text})],
        _ => Vec::new(),
    }
}

/// The text of the summary message: a string, or its text blocks joined.
fn summary_text(message: &Value, place: &str) -> Result<String, TranscriptError> {
    let place = join(place, "message.content");
    match message.get("content") {
        Some(Value::String(text)) => Ok(text.clone()),
        Some(Value::Array(blocks)) => {
            let mut text = Text::default();
            for (i, block) in blocks.iter().enumerate() {
                if block.get("type").and_then(Value::as_str) == Some("text") {
                    text.text(string(block, "text", &format!("{place}[{i}]"))?);
                }
            }
            Ok(text.content)
        }
        _ => Err(TranscriptError::new(
            place,
            "a compact summary's content must be a string or text blocks",
        )),
    }
}

/// The session's title: the last `summary` record's text.
fn title(values: &[(usize, Value)]) -> Option<String> {
    values
        .iter()
        .rev()
        .filter(|(_, v)| v.get("type").and_then(Value::as_str) == Some("summary"))
        .find_map(|(_, v)| v.get("summary").and_then(Value::as_str))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}
