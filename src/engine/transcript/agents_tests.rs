//! The coding agents' logs: the files from the wild (`tests/fixtures/wild/`) and the
//! hand-written edge cases (`tests/fixtures/transcripts/claude_code_session.jsonl`,
//! `codex_rollout.jsonl`). Every count below was made by reading the file line by line: which
//! records are messages, which are left out and why, and where each boundary falls among the
//! messages kept.

use super::super::{Compaction, Conversation, Format, Transcript, read_lines};
use crate::engine::edition::Compactor;
use crate::engine::message::Role::{self, Assistant as A, Tool as T, User as U};

fn file(name: &str) -> &'static str {
    match name {
        "cc-real" => {
            include_str!(
                "../../../tests/fixtures/wild/claude-code/agent-history-real-session-01.jsonl"
            )
        }
        "cc-rewind" => include_str!(
            "../../../tests/fixtures/wild/claude-code/claude-code-log-dag-compact-after-rewind.jsonl"
        ),
        "cc-edge" => include_str!("../../../tests/fixtures/transcripts/claude_code_session.jsonl"),
        "codex-real" => {
            include_str!("../../../tests/fixtures/wild/codex/agent-history-real-session-01.jsonl")
        }
        "codex-compact" => include_str!(
            "../../../tests/fixtures/wild/codex/agent-history-session-with-compaction.jsonl"
        ),
        "codex-edge" => include_str!("../../../tests/fixtures/transcripts/codex_rollout.jsonl"),
        other => panic!("no fixture {other}"),
    }
}

fn read(name: &str, format: Format) -> Conversation {
    let t: Transcript = read_lines(file(name))
        .expect("read as JSON Lines")
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!((t.format, t.json_lines), (format, true), "{name}");
    assert_eq!(t.conversations.len(), 1, "{name}: one conversation");
    assert!(t.skipped.is_empty());
    t.conversations.into_iter().next().unwrap()
}

fn roles(c: &Conversation) -> Vec<Role> {
    c.messages.iter().map(|m| m.role).collect()
}

/// (where, the summary's first words, the tool) of each compaction.
fn cuts(c: &Conversation) -> Vec<(usize, Compactor)> {
    c.compactions.iter().map(|k| (k.at, k.tool)).collect()
}

#[test]
fn a_real_claude_code_session_reads_its_prompt_and_reply() {
    // Five records: two queue operations and a last-prompt record (bookkeeping), the user's
    // prompt and the reply. No boundary.
    let c = read("cc-real", Format::ClaudeCode);
    assert_eq!(roles(&c), [U, A]);
    assert_eq!(c.messages[0].content, "[REDACTED_PROMPT]");
    assert_eq!(c.messages[1].content, "[REDACTED_ASSISTANT_TEXT]");
    assert_eq!(
        c.messages[0].at_ms, 1_780_635_392_812,
        "2026-06-05T04:56:32.812Z"
    );
    assert!(c.compactions.is_empty());
    assert_eq!(c.system, "");
}

#[test]
fn a_rewound_claude_code_session_keeps_the_branch_it_continued_and_its_compaction() {
    // Twelve records: u1 a1, then b1u b1a (abandoned: b2u also answers a1), b2u b2a b2u2 b2a2,
    // the boundary (logical parent b2a2), the summary, p1u p1a. The kept chain has eight
    // messages; the boundary falls after the sixth.
    let c = read("cc-rewind", Format::ClaudeCode);
    let texts: Vec<&str> = c.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Start",
            "Ready",
            "Second attempt",
            "Second answer",
            "Keep going",
            "Kept going",
            "After compaction",
            "Final answer"
        ]
    );
    assert_eq!(cuts(&c), [(6, Compactor::ClaudeCode)]);
    let k = &c.compactions[0];
    assert!(k.summary.ends_with("Summary: the user asked for a plan."));
    assert_eq!(
        (k.trigger.as_deref(), k.tokens_before),
        (Some("auto"), Some(150_000))
    );
    assert_eq!(k.at_ms, 1_751_365_800_000, "2025-07-01T10:30:00Z");
}

#[test]
fn the_claude_code_edge_case_reads_every_kind_of_record() {
    // 26 records. Left out: the title, the file snapshot, the meta caveat (m0), the two
    // sidechain records (s1 s2), the rewound branch (x1 x2), a turn_duration record, and the
    // two summaries (they are the compactions' text). msg_01 comes in three records (thinking,
    // text, tool_use): one message. So: u1, a1 (text + Read), r1, a2, u2 (text + image),
    // a3 | b1 | u4, a4 (text + Write), r2 | b2 | a5, u6, a6.
    let c = read("cc-edge", Format::ClaudeCode);
    assert_eq!(c.title.as_deref(), Some("Budget tracker: CSV import"));
    assert_eq!(roles(&c), [U, A, T, A, U, A, U, A, T, A, U, A]);
    let m = &c.messages;
    assert_eq!(m[1].content, "I will read the current importer first.");
    assert_eq!(m[1].calls.len(), 1);
    assert_eq!(m[1].calls[0].name, "Read");
    assert_eq!(m[1].calls[0].arguments, r#"{"file_path":"src/import.rs"}"#);
    assert_eq!(
        (m[2].call_id.as_deref(), m[2].tool_name.as_deref()),
        (Some("toolu_01"), Some("Read"))
    );
    assert_eq!(
        m[4].content,
        "Here is a sample export from my bank.\n[image]"
    );
    assert_eq!(m[4].placeholders, ["image"]);
    assert_eq!(m[7].calls[0].name, "Write");
    assert_eq!(m[8].content, "File created successfully at: src/csv.rs");
    assert!(
        !m.iter()
            .any(|m| m.content.contains("abandoned") || m.content.contains("csv crate")),
        "neither the rewound branch nor the subagent's sidechain is the conversation"
    );
    assert_eq!(
        cuts(&c),
        [(6, Compactor::ClaudeCode), (9, Compactor::ClaudeCode)]
    );
    let [first, second] = &c.compactions[..] else {
        panic!("two compactions")
    };
    assert!(first.summary.contains("Rent is 1450 EUR a month."));
    assert_eq!(
        (first.trigger.as_deref(), first.tokens_before),
        (Some("manual"), Some(48_210))
    );
    assert!(second.summary.contains("Rent is 1500 EUR a month."));
    assert_eq!(
        (second.trigger.as_deref(), second.tokens_before),
        (Some("auto"), Some(155_020))
    );
}

#[test]
fn a_real_codex_rollout_reads_its_prompt_reply_and_injected_context() {
    // Eleven records: session_meta, five event_msg (repeats and bookkeeping), a turn_context,
    // and four response items: the developer message and the environment context (the system
    // prompt), the prompt and the reply.
    let c = read("codex-real", Format::Codex);
    assert_eq!(roles(&c), [U, A]);
    assert_eq!(c.messages[0].content, "[REDACTED_PROMPT]");
    assert_eq!(c.messages[1].content, "[REDACTED_ASSISTANT_TEXT]");
    assert!(
        c.system
            .starts_with("[REDACTED_DEVELOPER_CONTEXT]\n\n<environment_context>")
    );
    assert!(c.compactions.is_empty());
}

#[test]
fn a_codex_rollout_with_a_compacted_item_folds_before_it() {
    // Response items before `compacted`: user, (reasoning), assistant, function_call (joins
    // the assistant before it), its output, assistant, user, assistant, user, assistant: nine
    // messages. After it: user, (reasoning), assistant + shell call, an empty output (dropped:
    // it holds nothing), assistant.
    let c = read("codex-compact", Format::Codex);
    assert_eq!(roles(&c), [U, A, T, A, U, A, U, A, U, A, A]);
    assert_eq!(c.messages[1].calls[0].name, "shell");
    assert_eq!(c.messages[2].tool_name.as_deref(), Some("shell"));
    assert_eq!(cuts(&c), [(8, Compactor::Codex)]);
    let k = &c.compactions[0];
    assert!(k.summary.starts_with("**Progress + Plan Status**"));
    assert_eq!(
        k.model.as_deref(),
        Some("gpt-4.5-turbo"),
        "the last turn context's"
    );
    assert_eq!(k.at_ms, 1_761_629_202_667, "2025-10-28T05:26:42.667Z");
}

#[test]
fn the_codex_edge_case_reads_every_kind_of_item() {
    // 27 records. The system prompt: the developer message, the AGENTS.md instructions and the
    // environment context. Messages: U, A (local_shell call), T, A, U, A (apply_patch), T, A |
    // compacted | U, A (shell), T, A | compacted (summary in replacement_history) | compacted
    // (encrypted: no summary, left out) | U, A. Skipped: reasoning, the ghost snapshot, events.
    let c = read("codex-edge", Format::Codex);
    assert_eq!(roles(&c), [U, A, T, A, U, A, T, A, U, A, T, A, U, A]);
    assert_eq!(c.system.matches("\n\n").count(), 3, "{}", c.system);
    assert!(c.system.contains("Run cargo test before every commit."));
    let m = &c.messages;
    assert_eq!(m[1].calls[0].name, "local_shell");
    assert_eq!(m[2].tool_name.as_deref(), Some("local_shell"));
    assert_eq!(m[5].calls[0].name, "apply_patch");
    assert_eq!(
        m[6].content,
        "Success. Updated the following files:\nM src/cart.rs"
    );
    assert_eq!(cuts(&c), [(8, Compactor::Codex), (12, Compactor::Codex)]);
    let [first, second] = &c.compactions[..] else {
        panic!("two readable compactions")
    };
    assert!(
        first
            .summary
            .contains("20% coupon after the 5 EUR shipping fee")
    );
    assert_eq!(first.model.as_deref(), Some("gpt-5.1-codex"));
    assert!(
        second
            .summary
            .ends_with("a regression test covers a 25% coupon.")
    );
}

#[test]
fn an_older_rollout_without_the_wrapper_reads_its_items() {
    let text = concat!(
        r#"{"id":"0198","timestamp":"2025-07-01T10:00:00.000Z","instructions":null}"#,
        "\n",
        r#"{"record_type":"state"}"#,
        "\n",
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}"#,
        "\n",
        r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}"#,
        "\n",
    );
    let t = read_lines(text).unwrap().unwrap();
    assert_eq!(t.format, Format::Codex);
    assert_eq!(roles(&t.conversations[0]), [U, A]);
}

#[test]
fn other_json_lines_are_not_taken_for_an_agent_log() {
    let text = concat!(
        r#"{"role":"user","content":"hi","type":"message"}"#,
        "\n",
        r#"{"role":"assistant","content":"hello"}"#,
        "\n",
    );
    let t = read_lines(text).unwrap().unwrap();
    assert!(
        !matches!(t.format, Format::ClaudeCode | Format::Codex),
        "{:?}",
        t.format
    );
}

#[test]
fn a_boundary_whose_summary_is_missing_folds_nothing() {
    // A log cut short right after a boundary: the messages stay, no compaction is kept.
    let text = concat!(
        r#"{"type":"user","uuid":"u","parentUuid":null,"message":{"role":"user","content":"hi"}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"a","parentUuid":"u","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}"#,
        "\n",
        r#"{"type":"system","subtype":"compact_boundary","uuid":"b","parentUuid":null,"logicalParentUuid":"a"}"#,
        "\n",
    );
    let c = &read_lines(text).unwrap().unwrap().conversations[0];
    assert_eq!(roles(c), [U, A]);
    assert_eq!(c.compactions, Vec::<Compaction>::new());
}

#[test]
fn a_broken_message_record_is_refused_naming_its_line() {
    let text = concat!(
        r#"{"type":"user","uuid":"u","parentUuid":null,"message":{"role":"user","content":"hi"}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"a","parentUuid":"u","message":"not an object"}"#,
        "\n",
    );
    let e = read_lines(text).unwrap().unwrap_err();
    assert_eq!(e.place, "line 2.message");
}
