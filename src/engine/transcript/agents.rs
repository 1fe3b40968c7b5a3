//! Coding agents' session logs, as JSON Lines: which agent wrote a file (Claude Code,
//! `claude_code.rs`; Codex CLI, `codex.rs`), known from its records and never from its name.

use serde_json::Value;

use super::{Format, Transcript, TranscriptError, claude_code, codex};

/// Reads `values` (each with its line number) as a coding agent's session log, or `None` when
/// no record is one of theirs.
pub(super) fn read(values: &[(usize, Value)]) -> Option<Result<Transcript, TranscriptError>> {
    let format = if claude_code::is_session(values) {
        Format::ClaudeCode
    } else if codex::is_rollout(values) {
        Format::Codex
    } else {
        return None;
    };
    let read = match format {
        Format::ClaudeCode => claude_code::read(values),
        _ => codex::read(values),
    };
    Some(read.map(|conversation| Transcript {
        format,
        json_lines: true,
        conversations: vec![conversation],
        skipped: Vec::new(),
    }))
}

#[cfg(test)]
#[path = "agents_tests.rs"]
mod tests;
