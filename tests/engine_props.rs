//! Property tests of the memory engine over random policies and conversations, and of session
//! import over arbitrary bytes and arbitrary JSON, which must never panic.
// proptest is a native-only dev-dependency.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use serde_json::{Value, json};
use summary_memory::engine::drift::PinnedFact;
use summary_memory::engine::library_session::{CallKind, CallRecord, LiveRecord, Session};
use summary_memory::engine::memory::{SUMMARY_ACK, SUMMARY_HEADER};
use summary_memory::engine::message::{MessageParts, ToolCall};
use summary_memory::engine::session::export;
use summary_memory::engine::session::fixture::Scripted;
use summary_memory::engine::{
    CommitMeta, CountTokens, FoldMode, JobKind, MemoryError, MemoryState, Message, MessageState,
    Placement, Policy, Provenance, Role, ScheduleInput, SummaryJob, Trigger, TurnSize, WordCounter,
    import, import_all, schedule,
};

fn trigger() -> impl Strategy<Value = Trigger> {
    prop_oneof![
        (1u32..8)
            .prop_flat_map(|max| (Just(max), 0..max))
            .prop_map(|(max_turns, keep)| Trigger::Turns { max_turns, keep }),
        (1u32..300)
            .prop_flat_map(|budget| (Just(budget), 0..=budget))
            .prop_map(|(budget, keep_tokens)| Trigger::Tokens {
                budget,
                keep_tokens
            }),
        (1u32..12).prop_map(|n| Trigger::Every { n }),
        (2u32..14).prop_map(|max_messages| Trigger::MessageCount { max_messages }),
        (0u32..4).prop_map(|keep| Trigger::Manual { keep }),
        (50u32..3_000, 2u32..=100, 0u32..4)
            .prop_flat_map(|(context, fire, keep_turns)| (
                Just(context),
                Just(fire),
                1..fire,
                Just(keep_turns)
            ))
            .prop_map(
                |(context, fire_pct, keep_pct, keep_turns)| Trigger::Window {
                    context,
                    fire_pct,
                    keep_pct,
                    keep_turns
                }
            ),
    ]
}

fn policy() -> impl Strategy<Value = Policy> {
    (
        trigger(),
        prop_oneof![
            Just(Placement::SecondSystem),
            Just(Placement::AppendToSystem),
            Just(Placement::UserAck)
        ],
        prop_oneof![
            Just(FoldMode::Progressive),
            Just(FoldMode::RebuildFromArchive)
        ],
    )
        .prop_map(|(trigger, placement, fold)| {
            let mut policy = Policy::new(trigger).expect("strategies only build valid triggers");
            policy.placement = placement;
            policy.fold = fold;
            policy
        })
}

/// Word counts of each turn's question and reply.
fn conversation(max_turns: usize) -> impl Strategy<Value = Vec<(u32, u32)>> {
    prop::collection::vec((1u32..30, 1u32..90), 0..max_turns)
}

fn words(n: u32, tag: &str) -> String {
    vec![tag; n as usize].join(" ")
}

fn message(role: Role, n: u32, turn: usize) -> Message {
    let tag = format!("{}{turn}", if role == Role::User { "q" } else { "a" });
    Message::new(role, words(n, &tag), &WordCounter, turn as u64)
}

const SYSTEM: &str = "You are a careful assistant.";
const SUMMARY: &str = "five words of summary text";

fn meta() -> CommitMeta {
    CommitMeta {
        model: None,
        provenance: Provenance::Model,
        at_ms: 0,
    }
}

fn commit_all(memory: &mut MemoryState, mut job: Option<SummaryJob>) {
    while let Some(j) = job {
        job = memory.commit(j.id, SUMMARY, meta(), &WordCounter).unwrap();
    }
}

/// Tokens the summary adds to a request under a placement, as the engine renders it.
fn summary_cost(placement: Placement) -> u32 {
    let block = WordCounter.count(&format!("{SUMMARY_HEADER}{SUMMARY}"));
    match placement {
        Placement::UserAck => block + WordCounter.count(SUMMARY_ACK),
        _ => block,
    }
}

/// The archive is every message in order; the verbatim part is the archive after the folded
/// turns; every message is either verbatim or folded into exactly one edition.
fn check_invariants(memory: &MemoryState, added: &[Message]) {
    assert_eq!(memory.archive(), added);
    let mut folded_to = 0;
    for edition in memory.editions() {
        if let Some(range) = edition.folded {
            assert_eq!(range.first, folded_to + 1, "folds continue in order");
            folded_to = range.last;
        }
    }
    assert_eq!(folded_to, memory.summarised_to());
    let verbatim_from = added.len() - memory.verbatim().len();
    assert_eq!(&added[verbatim_from..], memory.verbatim());
    for (i, _) in added.iter().enumerate() {
        let in_folded_turn = memory.turn_of(i) <= folded_to;
        let state = memory.message_state(i);
        assert_eq!(state == MessageState::Folded, in_folded_turn, "message {i}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The dry run and a live memory with an instant summariser agree turn by turn: the same
    /// summary coverage, message count and tokens in every request, and the same calls.
    #[test]
    fn dry_run_agrees_with_the_live_engine(policy in policy(), turns in conversation(40)) {
        let mut memory = MemoryState::new(SYSTEM, policy.clone()).unwrap();
        memory.count_system_prompt(&WordCounter);
        let input = ScheduleInput {
            turns: turns.len() as u32,
            sizes: turns.iter().map(|&(user, assistant)| TurnSize { user, assistant }).collect(),
            system_tokens: WordCounter.count(SYSTEM),
            summary_tokens: summary_cost(policy.placement),
            summary_sizes: Vec::new(),
        };
        let run = schedule(&policy, &input);
        for (i, &(u, a)) in turns.iter().enumerate() {
            let row = run.rows[i];
            memory.add_message(message(Role::User, u, i + 1)).unwrap();
            let request = memory.request(&WordCounter);
            prop_assert_eq!(memory.summarised_to(), row.summarised_to, "turn {}", i + 1);
            prop_assert_eq!(request.len() as u32, row.messages, "turn {}", i + 1);
            let tokens: u64 = request.iter().map(|m| u64::from(m.tokens)).sum();
            prop_assert_eq!(tokens, row.tokens, "turn {}", i + 1);
            let job = memory.add_message(message(Role::Assistant, a, i + 1)).unwrap();
            let fired = job.as_ref().map(|j| match j.kind {
                JobKind::Fold { turns, .. } => turns,
                JobKind::Compress { .. } => unreachable!("no summary budget is set"),
            });
            prop_assert_eq!(fired, row.folds, "turn {}", i + 1);
            commit_all(&mut memory, job);
        }
        prop_assert_eq!(memory.editions().len() as u32, run.calls);
    }

    /// After every cycle the token trigger's verbatim part fits the budget, unless it holds a
    /// single turn that alone is larger.
    #[test]
    fn token_trigger_stays_within_budget(
        (budget, keep_tokens) in (1u32..300).prop_flat_map(|b| (Just(b), 0..=b)),
        turns in conversation(40),
    ) {
        let policy = Policy::new(Trigger::Tokens { budget, keep_tokens }).unwrap();
        let mut memory = MemoryState::new(SYSTEM, policy).unwrap();
        for (i, &(u, a)) in turns.iter().enumerate() {
            memory.add_message(message(Role::User, u, i + 1)).unwrap();
            let job = memory.add_message(message(Role::Assistant, a, i + 1)).unwrap();
            commit_all(&mut memory, job);
            let verbatim: u32 = memory.verbatim().iter().map(|m| m.tokens).sum();
            let single_turn = memory.verbatim().len() == 2;
            prop_assert!(verbatim <= budget || single_turn, "{verbatim} > {budget} over {} messages", memory.verbatim().len());
        }
    }

    /// Whatever order results, failures, manual requests, edits and restores arrive in, no
    /// message is lost, and every message is verbatim or folded, never both.
    #[test]
    fn archive_and_folds_survive_any_sequence_of_events(
        policy in policy(),
        ops in prop::collection::vec((0u8..8, 1u32..20, 0u32..6), 0..80),
    ) {
        let mut memory = MemoryState::new(SYSTEM, policy).unwrap();
        let mut added = Vec::new();
        let mut jobs: Vec<SummaryJob> = Vec::new();
        let mut turn = 0;
        for (op, size, pick) in ops {
            match op {
                0 | 1 => {
                    turn += 1;
                    for role in [Role::User, Role::Assistant] {
                        let m = message(role, size, turn);
                        added.push(m.clone());
                        jobs.extend(memory.add_message(m).unwrap());
                    }
                }
                2 => {
                    turn += 1;
                    let m = message(Role::User, size, turn);
                    added.push(m.clone());
                    prop_assert!(memory.add_message(m).unwrap().is_none());
                }
                3 if !jobs.is_empty() => {
                    let job = jobs.remove(pick as usize % jobs.len());
                    let current = memory.in_flight().map(|j| j.id);
                    let before = (memory.summary().map(str::to_owned), memory.verbatim().len());
                    match memory.commit(job.id, SUMMARY, meta(), &WordCounter) {
                        Ok(next) => jobs.extend(next),
                        Err(MemoryError::StaleJob { .. }) => {
                            prop_assert_ne!(Some(job.id), current);
                            prop_assert_eq!(before, (memory.summary().map(str::to_owned), memory.verbatim().len()));
                        }
                        Err(e) => prop_assert!(false, "unexpected {e}"),
                    }
                }
                4 if !jobs.is_empty() => {
                    let job = jobs.remove(pick as usize % jobs.len());
                    let before = (memory.summary().map(str::to_owned), memory.verbatim().to_vec());
                    let _ = if pick % 2 == 0 {
                        memory.fail(job.id, "network", 0).map(|_| None)
                    } else {
                        memory.commit(job.id, "  ", meta(), &WordCounter)
                    };
                    prop_assert_eq!(before, (memory.summary().map(str::to_owned), memory.verbatim().to_vec()));
                }
                5 => jobs.extend(memory.request_summary_now().ok()),
                6 => jobs.extend(memory.retry_job().ok()),
                7 => {
                    let result = if pick % 2 == 0 || memory.editions().is_empty() {
                        memory.edit_summary(&words(size, "edit"), 0, &WordCounter)
                    } else {
                        let cycle = pick % memory.editions().len() as u32 + 1;
                        memory.restore(cycle, 0, &WordCounter)
                    };
                    jobs.extend(result.unwrap());
                }
                _ => {}
            }
            check_invariants(&memory, &added);
        }
    }

    /// Pinned facts and the live chat's record come back from a file exactly as they went in,
    /// and the file written again from what was read is the same file.
    #[test]
    fn facts_and_the_live_record_round_trip_through_a_file(
        pinned in facts(),
        live in prop::option::of(live_record()),
    ) {
        let mut session = six_turns();
        session.pinned = pinned;
        session.live = live;
        let text = summary_memory::engine::export(&session, 1, "test");
        let back = import(text.as_bytes(), &WordCounter).unwrap();
        prop_assert_eq!(&back.pinned, &session.pinned);
        prop_assert_eq!(&back.live, &session.live);
        prop_assert_eq!(summary_memory::engine::export(&back, 1, "test"), text);
    }

    /// Import never panics on arbitrary bytes.
    #[test]
    fn import_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = import_all(&bytes, &WordCounter);
    }

    /// Import never panics on arbitrary JSON, nor on a valid file with one value replaced.
    #[test]
    fn import_never_panics_on_json(value in json_value(), path in prop::collection::vec(0usize..12, 0..5)) {
        let _ = import_all(value.to_string().as_bytes(), &WordCounter);
        let mut file = valid_file();
        replace_at(&mut file, &path, value);
        let _ = import_all(file.to_string().as_bytes(), &WordCounter);
    }
}

/// One turn with tool traffic: the question's words, then (call arguments' words, result's
/// words, any placeholder) per tool round, then the reply's words.
type ToolTurn = (u32, Vec<(u32, u32, bool)>, u32);

fn tool_turns(max_turns: usize) -> impl Strategy<Value = Vec<ToolTurn>> {
    prop::collection::vec(
        (
            1u32..20,
            prop::collection::vec((0u32..12, 0u32..40, any::<bool>()), 0..3),
            1u32..60,
        ),
        0..max_turns,
    )
}

/// The messages of one turn with tool traffic, as a transcript import builds them.
fn tool_turn_messages(turn: usize, (question, rounds, reply): &ToolTurn) -> Vec<Message> {
    let mut out = vec![message(Role::User, *question, turn)];
    for (r, &(args, result, image)) in rounds.iter().enumerate() {
        let id = format!("call_{turn}_{r}");
        let mut call = MessageParts::text(Role::Assistant, "");
        call.at_ms = turn as u64;
        call.calls.push(ToolCall {
            id: id.clone(),
            name: "lookup".into(),
            arguments: words(args, &format!("arg{turn}")),
        });
        out.push(Message::with_parts(call, &WordCounter));
        let mut content = words(result, &format!("r{turn}"));
        let mut placeholders = Vec::new();
        if image {
            content.push_str(" [image]");
            placeholders.push("image".to_owned());
        }
        let mut result = MessageParts::text(Role::Tool, content);
        result.at_ms = turn as u64;
        result.call_id = Some(id);
        result.tool_name = Some("lookup".into());
        result.placeholders = placeholders;
        out.push(Message::with_parts(result, &WordCounter));
    }
    out.push(message(Role::Assistant, *reply, turn));
    out
}

/// Triggers that count turns or tokens (a message-count trigger counts tool messages too,
/// which the dry run's two messages a turn do not model).
fn turn_or_token_policy() -> impl Strategy<Value = Policy> {
    policy().prop_filter("turns or tokens", |p| {
        matches!(
            p.trigger,
            Trigger::Turns { .. } | Trigger::Tokens { .. } | Trigger::Manual { .. }
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// With tool calls and results in the turns, every invariant holds: the archive is every
    /// message, folds continue in order, each message is verbatim or folded with its turn, no
    /// tool message begins a turn, and the verbatim part begins at a turn's user message.
    #[test]
    fn mixed_roles_keep_the_invariants(
        policy in policy(),
        turns in tool_turns(30),
        commits in prop::collection::vec(any::<bool>(), 30),
    ) {
        let mut memory = MemoryState::new(SYSTEM, policy).unwrap();
        let mut added = Vec::new();
        let mut pending = Vec::new();
        for (i, turn) in turns.iter().enumerate() {
            for m in tool_turn_messages(i + 1, turn) {
                added.push(m.clone());
                pending.extend(memory.add_message(m).unwrap());
            }
            if commits[i % commits.len()] {
                for job in std::mem::take(&mut pending) {
                    let next = memory.commit(job.id, SUMMARY, meta(), &WordCounter);
                    if let Ok(next) = next {
                        commit_all(&mut memory, next);
                    }
                }
            }
            check_invariants(&memory, &added);
            prop_assert_eq!(memory.turn_count() as usize, i + 1);
            for (index, m) in added.iter().enumerate() {
                let turn_of = memory.turn_of(index) as usize;
                prop_assert_eq!(turn_of, m.at_ms as usize, "message {} stays in its turn", index);
            }
            if let Some(first) = memory.verbatim().first() {
                prop_assert_eq!(first.role, Role::User);
            }
            let archived: u64 = added.iter().map(|m| u64::from(m.tokens)).sum();
            let counted: u64 = added.iter().map(|m| u64::from(m.count_with(&WordCounter))).sum();
            prop_assert_eq!(archived, counted, "calls and results are counted");
        }
    }

    /// The dry run agrees with the live engine when turns carry tool traffic, counted as part
    /// of the reply: the same coverage and tokens in every request, and the same folds.
    #[test]
    fn dry_run_agrees_with_tool_traffic(policy in turn_or_token_policy(), turns in tool_turns(30)) {
        let mut memory = MemoryState::new(SYSTEM, policy.clone()).unwrap();
        let messages: Vec<Vec<Message>> = turns
            .iter()
            .enumerate()
            .map(|(i, t)| tool_turn_messages(i + 1, t))
            .collect();
        let input = ScheduleInput {
            turns: turns.len() as u32,
            sizes: messages
                .iter()
                .map(|m| TurnSize {
                    user: m[0].tokens,
                    assistant: m[1..].iter().map(|m| m.tokens).sum(),
                })
                .collect(),
            system_tokens: WordCounter.count(SYSTEM),
            summary_tokens: summary_cost(policy.placement),
            summary_sizes: Vec::new(),
        };
        let run = schedule(&policy, &input);
        for (i, turn) in messages.into_iter().enumerate() {
            let row = run.rows[i];
            let last = turn.len() - 1;
            let mut job = None;
            for (k, m) in turn.into_iter().enumerate() {
                job = memory.add_message(m).unwrap();
                if k == 0 {
                    let request = memory.request(&WordCounter);
                    prop_assert_eq!(memory.summarised_to(), row.summarised_to, "turn {}", i + 1);
                    let tokens: u64 = request.iter().map(|m| u64::from(m.tokens)).sum();
                    prop_assert_eq!(tokens, row.tokens, "turn {}", i + 1);
                }
                if k < last {
                    prop_assert!(job.is_none(), "no fold between a call and its answer");
                }
            }
            let fired = job.as_ref().map(|j| match j.kind {
                JobKind::Fold { turns, .. } => turns,
                JobKind::Compress { .. } => unreachable!("no summary budget is set"),
            });
            prop_assert_eq!(fired, row.folds, "turn {}", i + 1);
            commit_all(&mut memory, job);
        }
    }

    /// Reading any transcript format never panics on damaged bytes: each fixture cut short, or
    /// with bytes replaced, or with any value replaced by arbitrary JSON.
    #[test]
    fn transcripts_never_panic_on_damaged_bytes(
        which in 0usize..TRANSCRIPTS.len(),
        cut in any::<prop::sample::Index>(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        value in json_value(),
        path in prop::collection::vec(0usize..12, 0..6),
    ) {
        let original = TRANSCRIPTS[which].as_bytes();
        let _ = import_all(&original[..cut.index(original.len() + 1)], &WordCounter);
        let mut flipped = original.to_vec();
        for (at, byte) in flips {
            let i = at.index(flipped.len());
            flipped[i] = byte;
        }
        let _ = import_all(&flipped, &WordCounter);
        if let Ok(mut parsed) = serde_json::from_slice::<Value>(original) {
            replace_at(&mut parsed, &path, value);
            let _ = import_all(parsed.to_string().as_bytes(), &WordCounter);
        } else {
            // JSON Lines: replace one line with the arbitrary value.
            let text = TRANSCRIPTS[which];
            let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
            let i = path.first().copied().unwrap_or(0) % lines.len();
            lines[i] = value.to_string();
            let _ = import_all(lines.join("\n").as_bytes(), &WordCounter);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Each reader meets arbitrary JSON inside its own format's outline (a Claude.ai message,
    /// a ShareGPT turn, a ChatGPT node, ...), so that detection passes and the reader itself
    /// has to cope; none panics.
    #[test]
    fn every_reader_copes_with_arbitrary_json_in_its_own_outline(a in json_value(), b in json_value()) {
        let outlines = [
            json!([{"name": "c", "chat_messages": [a.clone(), {"sender": "human", "content": [b.clone()]}]}]),
            json!({"conversations": [{"chat_messages": [{"sender": "assistant", "parent_message_uuid": a.clone(), "uuid": b.clone()}]}]}),
            json!({"current_leaf_message_uuid": a.clone(), "chat_messages": [{"uuid": "x", "parent_message_uuid": "x", "sender": "human", "attachments": b.clone(), "files": a.clone()}]}),
            json!([{"conversations": [a.clone(), {"from": "function_call", "value": b.to_string()}], "images": b.clone()}]),
            json!({"conversations": [{"from": "human", "value": "<image><video>"}], "images": a.clone(), "videos": b.clone(), "tools": a.clone(), "system": b.clone()}),
            json!([{"title": "t", "current_node": a.clone(), "mapping": {"n": {"parent": b.clone(), "children": a.clone(), "message": b.clone()}}}]),
            json!([{"mapping": {"n": {"message": {"author": {"role": "user"}, "content": {"content_type": a.clone(), "parts": b.clone()}, "metadata": a.clone()}}}}]),
        ];
        for outline in outlines {
            let _ = import_all(outline.to_string().as_bytes(), &WordCounter);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A coding agent's log with lines dropped, repeated, swapped or replaced by any JSON, or
    /// cut short, never panics; and whatever it reads (its compactions as editions) exports and
    /// imports back unchanged, so no damage yields an edition the session file refuses.
    #[test]
    fn agent_logs_never_panic_and_what_they_read_round_trips(
        which in 0usize..AGENT_LOGS.len(),
        edits in prop::collection::vec(
            (0u8..4, any::<prop::sample::Index>(), any::<prop::sample::Index>()),
            0..6,
        ),
        value in json_value(),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut lines: Vec<String> = AGENT_LOGS[which].lines().map(str::to_owned).collect();
        for (op, a, b) in edits {
            let (i, j) = (a.index(lines.len()), b.index(lines.len()));
            match op {
                0 if lines.len() > 1 => {
                    lines.remove(i);
                }
                1 => {
                    let line = lines[i].clone();
                    lines.insert(j, line);
                }
                2 => lines.swap(i, j),
                _ => lines[i] = value.to_string(),
            }
        }
        let text = lines.join("\n");
        let _ = import_all(&text.as_bytes()[..cut.index(text.len() + 1)], &WordCounter);
        if let Ok(sessions) = import_all(text.as_bytes(), &WordCounter) {
            for session in sessions {
                let file = export(&session, 0, "props");
                let back = import(file.as_bytes(), &WordCounter);
                prop_assert!(back.is_ok(), "{:?}", back.err());
                let back = back.unwrap();
                prop_assert_eq!(back.memory.editions(), session.memory.editions());
            }
        }
    }
}

/// The coding agents' logs: the files from the wild and the hand-written edge cases.
const AGENT_LOGS: [&str; 6] = [
    include_str!("fixtures/wild/claude-code/agent-history-real-session-01.jsonl"),
    include_str!("fixtures/wild/claude-code/claude-code-log-dag-compact-after-rewind.jsonl"),
    include_str!("fixtures/transcripts/claude_code_session.jsonl"),
    include_str!("fixtures/wild/codex/agent-history-real-session-01.jsonl"),
    include_str!("fixtures/wild/codex/agent-history-session-with-compaction.jsonl"),
    include_str!("fixtures/transcripts/codex_rollout.jsonl"),
];

const TRANSCRIPTS: [&str; 19] = [
    include_str!("fixtures/transcripts/openai_chat.json"),
    include_str!("fixtures/transcripts/openai_responses.json"),
    include_str!("fixtures/transcripts/anthropic.json"),
    include_str!("fixtures/transcripts/chatgpt_conversations.json"),
    include_str!("fixtures/transcripts/messages.jsonl"),
    // Files other projects committed (tests/fixtures/wild/README.md), and a ShareGPT dataset as
    // JSON Lines, so that every reader meets damaged real files.
    include_str!("fixtures/wild/chatgpt/polylogue-native-conversation-v1.json"),
    include_str!("fixtures/wild/chatgpt/polylogue-branching-trimmed.json"),
    include_str!("fixtures/wild/claude-export/polylogue-golden-claude-tool.json"),
    include_str!("fixtures/wild/claude-export/polylogue-native-rich-blocks-v1.json"),
    include_str!("fixtures/wild/claude-export/polylogue-with-attachments.json"),
    include_str!("fixtures/wild/sharegpt/llamafactory-mllm-demo.json"),
    SHAREGPT_LINES,
    include_str!("fixtures/wild/openwebui/openwebui-export.json"),
    include_str!("fixtures/wild/librechat/librechat-export.json"),
    include_str!("fixtures/wild/librechat/librechat-tree.json"),
    include_str!("fixtures/wild/chatbot-ui/chatbotui-export.json"),
    include_str!("fixtures/wild/sillytavern/Megumin-1673323621108.jsonl"),
    include_str!("fixtures/wild/anthropic-proxy/odin-requests.ndjson"),
    PROXY_CAPTURE,
];

/// Every fixture the damage test starts from imports whole, so that the damage is done to a
/// file the readers accept, not to one refused at once.
#[test]
fn every_damaged_transcript_starts_from_a_file_that_imports() {
    for (i, text) in TRANSCRIPTS.iter().enumerate() {
        let sessions = import_all(text.as_bytes(), &WordCounter);
        assert!(
            sessions.as_ref().is_ok_and(|s| !s.is_empty()),
            "transcript {i}: {:?}",
            sessions.map(|s| s.len())
        );
    }
}

/// A request as a logging proxy records it: an Anthropic body, as a string of JSON, wrapped in
/// the request with its headers.
const PROXY_CAPTURE: &str = r#"{"request":{"method":"POST","headers":{"anthropic-version":"2023-06-01"},"body":"{\"model\":\"claude-3\",\"messages\":[{\"role\":\"system\",\"content\":\"s\"},{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"q\"}]},{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}]}]}"},"response":{}}"#;

/// Two ShareGPT records as JSON Lines, one with a tool call and an image.
const SHAREGPT_LINES: &str = concat!(
    r#"{"conversations": [{"from": "human", "value": "<image>Rain in Oslo?"}, {"from": "function_call", "value": "{\"name\": \"weather\", \"arguments\": {\"city\": \"Oslo\"}}"}, {"from": "observation", "value": "3 mm"}, {"from": "gpt", "value": "A little."}], "images": ["oslo.png"], "tools": "[{\"name\": \"weather\"}]"}"#,
    "\n",
    r#"{"conversations": [{"from": "system", "value": "Be brief."}, {"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello"}]}"#,
    "\n"
);

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u32>().prop_map(|n| json!(n)),
        prop_oneof![
            Just("user".to_owned()),
            Just("assistant".to_owned()),
            Just("system".to_owned()),
            Just("tool".to_owned()),
            Just("developer".to_owned()),
            Just("text".to_owned()),
            Just("function_call".to_owned()),
            Just("tool_use".to_owned()),
            Just("summary-memory-session".to_owned()),
            ".{0,12}".prop_map(String::from),
        ]
        .prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("format".to_owned()),
                    Just("version".to_owned()),
                    Just("role".to_owned()),
                    Just("content".to_owned()),
                    Just("session".to_owned()),
                    Just("sessions".to_owned()),
                    Just("type".to_owned()),
                    Just("messages".to_owned()),
                    Just("mapping".to_owned()),
                    Just("parent".to_owned()),
                    Just("current_node".to_owned()),
                    Just("tool_calls".to_owned()),
                    "[a-z_]{1,8}".prop_map(String::from),
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Six turns with two cycles, as a session of the current version: the shared scripted session
/// under the default policy, with three-word questions, five-word replies and [`SUMMARY`].
fn six_turns() -> Session {
    Scripted {
        name: "n".into(),
        system_prompt: SYSTEM.into(),
        policy: Policy::default(),
        turn: |t| (words(3, &format!("q{t}")), words(5, &format!("a{t}"))),
        summaries: vec![SUMMARY.into()],
        model: None,
        provenance: Provenance::Model,
        fail: None,
    }
    .play(6)
}

/// Pinned facts: phrases and patterns of letters, which always compile.
fn facts() -> impl Strategy<Value = Vec<PinnedFact>> {
    prop::collection::vec(("[a-z]{1,8}", any::<bool>(), "[a-z]{1,10}"), 0..4).prop_map(|facts| {
        facts
            .into_iter()
            .map(|(label, regex, pattern)| match regex {
                true => PinnedFact::regex(label, format!("(?i){pattern}")),
                false => PinnedFact::phrase(label, pattern),
            })
            .collect()
    })
}

/// A live record over [`six_turns`]: replies are the odd archive indices, and a failed reply is
/// an incomplete one.
fn live_record() -> impl Strategy<Value = LiveRecord> {
    let call = (
        any::<bool>(),
        any::<u32>(),
        any::<Option<u32>>(),
        any::<Option<u32>>(),
    )
        .prop_map(|(chat, ours, prompt, completion)| CallRecord {
            kind: if chat {
                CallKind::Chat
            } else {
                CallKind::Summary
            },
            client_prompt_tokens: ours,
            api_prompt_tokens: prompt,
            api_completion_tokens: completion,
        });
    (
        prop::collection::btree_map(0usize..6, any::<bool>(), 0..6),
        prop::collection::vec(call, 0..5),
    )
        .prop_map(|(replies, calls)| LiveRecord {
            incomplete: replies.keys().map(|r| 2 * r + 1).collect(),
            failed: replies
                .iter()
                .filter(|(_, failed)| **failed)
                .map(|(r, _)| 2 * r + 1)
                .collect(),
            calls,
        })
}

fn valid_file() -> Value {
    let mut session = six_turns();
    session.pinned = vec![
        PinnedFact::phrase("w", "w"),
        PinnedFact::regex("r", r"(?i)\bw+\b"),
    ];
    session.live = Some(LiveRecord {
        incomplete: [1, 3].into(),
        failed: [3].into(),
        calls: vec![CallRecord {
            kind: CallKind::Chat,
            client_prompt_tokens: 5,
            api_prompt_tokens: Some(6),
            api_completion_tokens: None,
        }],
    });
    let text = summary_memory::engine::export(&session, 0, "test");
    assert!(import(text.as_bytes(), &WordCounter).is_ok());
    serde_json::from_str(&text).unwrap()
}

/// Replaces the value reached by following `path` (each step picks a child by position).
fn replace_at(target: &mut Value, path: &[usize], value: Value) {
    let Some((&step, rest)) = path.split_first() else {
        *target = value;
        return;
    };
    let child = match target {
        Value::Object(map) if !map.is_empty() => {
            let key = map.keys().nth(step % map.len()).cloned();
            key.and_then(|k| map.get_mut(&k))
        }
        Value::Array(items) if !items.is_empty() => {
            let len = items.len();
            items.get_mut(step % len)
        }
        _ => None,
    };
    match child {
        Some(child) => replace_at(child, rest, value),
        None => *target = value,
    }
}

mod exact_vocabulary {
    //! The dry run at message level and the live engine agree under random policies of the
    //! exact vocabulary, every field of it drawn.
    use super::*;
    use summary_memory::engine::policy::{
        CheckAt, Compare, Counted, Counter, Exact, Keep, Measure, ShareOf, Start, SummaryAt,
        SummaryOverflow,
    };
    use summary_memory::engine::schedule::{
        MessageInput, PlayedMessage, Sizer, Slot, answers, schedule_messages,
    };

    fn counted() -> impl Strategy<Value = Option<Counted>> {
        prop::option::of(
            (
                any::<bool>(),
                any::<bool>(),
                any::<bool>(),
                any::<bool>(),
                any::<bool>(),
            )
                .prop_map(|(system, summary, verbatim, incoming, reply)| Counted {
                    system,
                    summary,
                    verbatim,
                    incoming,
                    reply,
                }),
        )
    }

    fn keep() -> impl Strategy<Value = Option<Keep>> {
        prop_oneof![
            Just(None),
            (0u32..4).prop_map(|n| Some(Keep::Turns(n))),
            (1u32..10).prop_map(|n| Some(Keep::Messages(n))),
            (0u32..200).prop_map(|n| Some(Keep::Tokens(n))),
            (1u32..100, any::<bool>()).prop_map(|(pct, chars)| Some(Keep::Share {
                of: ShareOf::History,
                pct: pct.min(99),
                by: if chars {
                    Measure::Chars
                } else {
                    Measure::Tokens
                },
            })),
            (100u32..1_000, 1u32..100).prop_map(|(context, pct)| Some(Keep::Share {
                of: ShareOf::Window(context),
                pct: pct.min(99),
                by: Measure::Tokens,
            })),
        ]
    }

    fn summary_at() -> impl Strategy<Value = SummaryAt> {
        prop_oneof![
            Just(SummaryAt::Placement),
            Just(SummaryAt::System),
            Just(SummaryAt::FirstSystem),
            Just(SummaryAt::User),
            Just(SummaryAt::UserThenAck("Got it, thanks.".into())),
            Just(SummaryAt::AssistantAfter("Summarize what we said.".into())),
        ]
    }

    fn exact() -> impl Strategy<Value = Exact> {
        (
            counted(),
            any::<bool>(),
            0usize..4,
            keep(),
            any::<bool>(),
            summary_at(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            1u32..4,
            prop::option::of(0u32..60),
            (any::<bool>(), any::<bool>()),
        )
            .prop_map(
                |(
                    counted,
                    at_least,
                    check,
                    keep,
                    at_user,
                    summary_at,
                    prefix,
                    again,
                    context,
                    calls_per_fold,
                    keep_user_tokens,
                    (tools_in_turn_only, keep_newest),
                )| {
                    Exact {
                        counted,
                        compare: if at_least {
                            Compare::AtLeast
                        } else {
                            Compare::Above
                        },
                        check: [
                            CheckAt::AfterReply,
                            CheckAt::BeforeRequest,
                            CheckAt::BeforeTurn,
                            CheckAt::PreviousRequest,
                        ][check],
                        keep,
                        keep_newest,
                        start: if at_user {
                            Start::AtUser
                        } else {
                            Start::Anywhere
                        },
                        summary_at,
                        summary_prefix: if prefix {
                            "Summary so far: ".into()
                        } else {
                            String::new()
                        },
                        summary_overflow: if again {
                            SummaryOverflow::Resummarise
                        } else {
                            SummaryOverflow::Keep
                        },
                        context_message: context.then(|| "session context words".to_owned()),
                        calls_per_fold,
                        keep_user_tokens,
                        tools_in_turn_only,
                        // Sizes only, never the decision: any counter, drawn from the others.
                        counter: Counter::ALL
                            [(calls_per_fold as usize + check) % Counter::ALL.len()],
                    }
                },
            )
    }

    fn exact_policy() -> impl Strategy<Value = Policy> {
        let trigger = prop_oneof![
            (1u32..300).prop_map(|budget| Trigger::Tokens {
                budget,
                keep_tokens: budget
            }),
            (50u32..1_000, 2u32..=100).prop_map(|(context, fire_pct)| Trigger::Window {
                context,
                fire_pct,
                keep_pct: 1,
                keep_turns: 1
            }),
            (1u32..6).prop_map(|max_turns| Trigger::Turns { max_turns, keep: 0 }),
            (2u32..12).prop_map(|max_messages| Trigger::MessageCount { max_messages }),
        ];
        (
            trigger,
            exact(),
            prop_oneof![
                Just(Placement::SecondSystem),
                Just(Placement::AppendToSystem),
                Just(Placement::UserAck)
            ],
        )
            .prop_map(|(trigger, exact, placement)| {
                let mut policy = Policy::new(trigger).expect("valid trigger");
                policy.exact = exact;
                policy.placement = placement;
                policy
            })
    }

    /// The counter is the word counter, and every summary is [`SUMMARY`], as the live engine
    /// is given it.
    struct Same;

    impl Sizer for Same {
        fn tokens(&self, text: &str) -> u32 {
            WordCounter.count(text)
        }

        fn summary(&self, _call: u32) -> String {
            SUMMARY.to_owned()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Request by request, the live engine with an instant summariser sends what the
        /// message-level dry run lists, and makes as many summariser calls.
        #[test]
        fn the_message_level_dry_run_agrees_with_the_live_engine(
            policy in exact_policy(),
            turns in tool_turns(20),
        ) {
            let messages: Vec<Message> = turns
                .iter()
                .enumerate()
                .flat_map(|(i, t)| tool_turn_messages(i + 1, t))
                .collect();
            let played: Vec<PlayedMessage> = messages
                .iter()
                .map(|m| PlayedMessage {
                    role: m.role,
                    tokens: m.tokens,
                    chars: m.content.chars().count() as u32,
                    calls: !m.calls.is_empty(),
                })
                .collect();
            let run = schedule_messages(&policy, &MessageInput {
                messages: played.clone(),
                system_prompt: SYSTEM,
                system_tokens: WordCounter.count(SYSTEM),
                sizer: &Same,
            });
            let mut memory = MemoryState::new(SYSTEM, policy.clone()).unwrap();
            memory.count_system_prompt(&WordCounter);
            let mut requests = run.requests.iter();
            let mut reported = None;
            // Every call of a job of several calls is a job of its own, committed in turn.
            let mut calls = 0u32;
            let mut commit_counting = |memory: &mut MemoryState, mut job: Option<SummaryJob>| {
                while let Some(j) = job {
                    calls += 1;
                    job = memory.commit(j.id, SUMMARY, meta(), &WordCounter).unwrap();
                }
            };
            for (i, m) in messages.iter().enumerate() {
                let job = memory.add_message(m.clone()).unwrap();
                commit_counting(&mut memory, job);
                if answers(&played, i) {
                    let job = memory.before_request(reported);
                    commit_counting(&mut memory, job);
                    let sent = memory.request(&WordCounter);
                    let row = requests.next().expect("a dry-run request for each answer");
                    prop_assert_eq!(row.answers, i);
                    let listed: Vec<(Role, String)> = row.messages.iter().map(|slot| match slot {
                        Slot::System => (Role::System, SYSTEM.to_owned()),
                        Slot::Summary { role, text, .. } | Slot::Fixed { role, text } => (*role, text.clone()),
                        Slot::Verbatim(k) => (messages[*k].role, messages[*k].content.clone()),
                    }).collect();
                    let got: Vec<(Role, String)> = sent.iter().map(|m| (m.role, m.content.clone())).collect();
                    prop_assert_eq!(&got, &listed, "request {}", row.request);
                    let tokens: u64 = sent.iter().map(|m| u64::from(m.tokens)).sum();
                    prop_assert_eq!(tokens, row.tokens, "request {}", row.request);
                    reported = Some(tokens);
                }
            }
            prop_assert!(requests.next().is_none());
            prop_assert_eq!(calls, run.calls);
            prop_assert_eq!(memory.editions().len() as u32, run.folds);
        }
    }
}
