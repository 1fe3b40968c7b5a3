//! Tests of the memory engine: cycles, failures, retries, stale jobs, edits and restores.

use super::*;
use crate::engine::demo::FINCOACH_USER_MESSAGES;
use crate::engine::message::WordCounter;
use crate::engine::policy::Placement;
use crate::engine::policy::Trigger;

fn msg(role: Role, text: &str) -> Message {
    Message::new(role, text, &WordCounter, 0)
}

fn meta() -> CommitMeta {
    CommitMeta {
        model: Some("test-model".into()),
        provenance: Provenance::Model,
        at_ms: 42,
    }
}

fn memory(trigger: Trigger) -> MemoryState {
    MemoryState::new("You are FinCoach.", Policy::new(trigger).unwrap()).unwrap()
}

fn turns(max_turns: u32, keep: u32) -> Trigger {
    Trigger::Turns { max_turns, keep }
}

/// A scripted summariser: names the turns it was given, so tests can see what was folded.
fn scripted(job: &SummaryJob) -> String {
    match &job.kind {
        JobKind::Fold { turns, .. } => format!("Summary of turns 1 to {}.", turns.last),
        JobKind::Compress { level } => format!("Level {level}."),
    }
}

/// Plays one turn; commits any job at once with the scripted summariser.
fn play(memory: &mut MemoryState, user: &str, reply: &str) -> Vec<Message> {
    memory.add_message(msg(Role::User, user)).unwrap();
    let sent = memory.request(&WordCounter);
    let mut job = memory.add_message(msg(Role::Assistant, reply)).unwrap();
    while let Some(j) = job {
        job = memory
            .commit(j.id, &scripted(&j), meta(), &WordCounter)
            .unwrap();
    }
    sent
}

/// Plays one turn that must start a summary job, and returns that job uncommitted.
fn turn_with_a_job(memory: &mut MemoryState, user: &str, reply: &str) -> SummaryJob {
    memory.add_message(msg(Role::User, user)).unwrap();
    memory
        .add_message(msg(Role::Assistant, reply))
        .unwrap()
        .expect("this turn should start a summary job")
}

#[test]
fn fincoach_six_turns_send_what_the_seed_sent() {
    let mut memory = memory(turns(4, 2));
    let mut sent_counts = Vec::new();
    let mut summary_sent = Vec::new();
    for (i, question) in FINCOACH_USER_MESSAGES.iter().enumerate() {
        let sent = play(&mut memory, question, &format!("Reply {}.", i + 1));
        sent_counts.push(sent.len());
        summary_sent.push(sent.iter().any(|m| m.content.starts_with(SUMMARY_HEADER)));
    }
    assert_eq!(sent_counts, [2, 4, 6, 8, 7, 9]);
    assert_eq!(summary_sent, [false, false, false, false, true, true]);
    assert_eq!(memory.archive().len(), 12);
    assert_eq!(memory.editions().len(), 2);
    assert_eq!(
        memory.editions()[1].folded,
        Some(TurnRange { first: 3, last: 4 })
    );
    assert_eq!(memory.summary(), Some("Summary of turns 1 to 4."));
    // The salary from turn 1 is in no verbatim message after the first cycle.
    assert!(
        !memory
            .verbatim()
            .iter()
            .any(|m| m.content.contains("1,20,000"))
    );
    assert_eq!(memory.verbatim().len(), 4);
}

#[test]
fn the_fold_request_uses_the_existing_summary_layout() {
    let mut memory = memory(turns(2, 1));
    memory.add_message(msg(Role::User, "a")).unwrap();
    assert!(
        memory
            .add_message(msg(Role::Assistant, "b"))
            .unwrap()
            .is_none()
    );
    let job = turn_with_a_job(&mut memory, "c", "d");
    assert!(
        job.request[1]
            .content
            .starts_with("CONVERSATION TURNS TO SUMMARISE:\nUSER: a\nASSISTANT: b")
    );
    assert_eq!(job.tokens_in, 2);
    memory.commit(job.id, "S1", meta(), &WordCounter).unwrap();
    let job = turn_with_a_job(&mut memory, "e", "f");
    assert!(job.request[1].content.starts_with("EXISTING SUMMARY (from previous turns):\nS1\n\nNEW TURNS TO ADD TO THE SUMMARY:\nUSER: c\nASSISTANT: d"));
    // Two words of turn 2 plus the one-word previous summary.
    assert_eq!(job.tokens_in, 3);
}

#[test]
fn rebuild_mode_summarises_every_folded_turn_from_the_archive() {
    let mut policy = Policy::new(turns(2, 1)).unwrap();
    policy.fold = FoldMode::RebuildFromArchive;
    let mut memory = MemoryState::new("sys", policy).unwrap();
    play(&mut memory, "a", "b");
    play(&mut memory, "c", "d");
    let job = turn_with_a_job(&mut memory, "e", "f");
    assert_eq!(job.previous.as_deref(), Some("Summary of turns 1 to 1."));
    let user = &job.request[1].content;
    assert!(
        user.starts_with(
            "CONVERSATION TURNS TO SUMMARISE:\nUSER: a\nASSISTANT: b\nUSER: c\nASSISTANT: d"
        ),
        "{user}"
    );
    assert!(!user.contains("Summary of turns"));
    assert_eq!(job.tokens_in, 4);
}

#[test]
fn failure_and_empty_results_leave_memory_unchanged_and_can_be_retried() {
    let mut memory = memory(turns(2, 1));
    play(&mut memory, "a", "b");
    let job = turn_with_a_job(&mut memory, "c", "d");
    let before = (
        memory.summary().map(str::to_owned),
        memory.verbatim().to_vec(),
    );

    memory.fail(job.id, "HTTP 429", 5).unwrap();
    assert_eq!(
        (
            memory.summary().map(str::to_owned),
            memory.verbatim().to_vec()
        ),
        before
    );
    assert_eq!(memory.failures()[0].reason, "HTTP 429");
    assert_eq!(memory.failures()[0].job_id, job.id);
    assert!(memory.in_flight().is_none());

    let retry = memory.retry_job().unwrap();
    assert_ne!(retry.id, job.id);
    assert_eq!(retry.kind, job.kind);
    assert_eq!(
        memory.commit(retry.id, "   \n", meta(), &WordCounter),
        Err(MemoryError::EmptySummary { job_id: retry.id })
    );
    assert_eq!(
        (
            memory.summary().map(str::to_owned),
            memory.verbatim().to_vec()
        ),
        before
    );
    assert_eq!(memory.failures().len(), 2);
    assert!(memory.editions().is_empty());

    let retry = memory.retry_job().unwrap();
    memory
        .commit(retry.id, " Folded. ", meta(), &WordCounter)
        .unwrap();
    assert_eq!(memory.summary(), Some("Folded."));
    assert_eq!(memory.verbatim().len(), 2);
    assert_eq!(memory.retry_job(), Err(MemoryError::NoFailedJob));
}

fn structured_memory(trigger: Trigger) -> MemoryState {
    let mut policy = Policy::new(trigger).unwrap();
    policy.format = SummaryFormat::Structured;
    MemoryState::new("You are FinCoach.", policy).unwrap()
}

#[test]
fn structured_mode_asks_for_json_and_stores_it_canonically() {
    let mut memory = structured_memory(turns(2, 1));
    memory
        .add_message(msg(Role::User, "I'm Chiru, I earn 1,20,000."))
        .unwrap();
    memory.add_message(msg(Role::Assistant, "Noted.")).unwrap();
    let job = turn_with_a_job(&mut memory, "Never suggest equities.", "Understood.");
    assert!(job.structured);
    assert_eq!(job.request[0].content, STRUCTURED_MEMORY_PROMPT);
    assert!(job.request[1].content.contains("1,20,000"));

    let reply = "```json\n{\"summary\": \"Chiru earns 1,20,000.\", \"user_name\": \"Chiru\", \"preferences\": [], \"facts\": [\"salary 1,20,000\"]}\n```";
    memory.commit(job.id, reply, meta(), &WordCounter).unwrap();
    let stored = memory.summary().unwrap();
    let parsed = parse_structured(stored).unwrap();
    assert_eq!(parsed.user_name.as_deref(), Some("Chiru"));
    assert_eq!(
        stored,
        parsed.to_json(),
        "stored in canonical form, without the fence"
    );
    assert_eq!(memory.editions().len(), 1);

    // The next progressive fold hands the previous memory back to the summariser.
    let next = turn_with_a_job(&mut memory, "I am 32.", "Thanks.");
    assert!(next.request[1].content.contains("\"user_name\": \"Chiru\""));
}

#[test]
fn invalid_structured_memory_is_a_failed_job_that_changes_nothing() {
    let mut memory = structured_memory(turns(2, 1));
    play(&mut memory, "a", "b");
    let job = turn_with_a_job(&mut memory, "c", "d");
    let verbatim = memory.verbatim().to_vec();
    let summary = memory.summary().map(str::to_owned);
    for reply in [
        "Here is the memory: {}",
        "{\"summary\": \"\"}",
        "not json at all",
    ] {
        let job = memory.retry_job().unwrap_or_else(|_| job.clone());
        let result = memory.commit(job.id, reply, meta(), &WordCounter);
        assert!(
            matches!(result, Err(MemoryError::InvalidStructured { .. })),
            "{reply}: {result:?}"
        );
        assert_eq!(memory.verbatim(), verbatim.as_slice());
        assert_eq!(memory.summary().map(str::to_owned), summary);
        assert!(memory.editions().is_empty());
    }
    assert_eq!(memory.failures().len(), 3);
    assert!(memory.retry_job().is_ok(), "the failed job can be retried");
}

#[test]
fn a_late_result_from_an_overtaken_job_is_rejected() {
    let mut memory = memory(Trigger::Manual { keep: 1 });
    play(&mut memory, "a", "b");
    play(&mut memory, "c", "d");
    let first = memory.request_summary_now().unwrap();
    let second = memory.request_summary_now().unwrap();
    assert!(second.id > first.id);
    let err = memory
        .commit(first.id, "late", meta(), &WordCounter)
        .unwrap_err();
    assert_eq!(
        err,
        MemoryError::StaleJob {
            job_id: first.id,
            current: Some(second.id)
        }
    );
    assert!(memory.summary().is_none());
    memory
        .commit(second.id, "on time", meta(), &WordCounter)
        .unwrap();
    assert_eq!(
        memory.commit(second.id, "twice", meta(), &WordCounter),
        Err(MemoryError::StaleJob {
            job_id: second.id,
            current: None
        })
    );
    assert_eq!(memory.summary(), Some("on time"));
}

#[test]
fn messages_keep_flowing_while_a_job_is_in_flight() {
    let mut memory = memory(turns(2, 1));
    play(&mut memory, "a", "b");
    let job = turn_with_a_job(&mut memory, "c", "d");
    // Two more turns arrive before the summariser answers; no second job starts.
    memory.add_message(msg(Role::User, "e")).unwrap();
    assert!(
        memory
            .add_message(msg(Role::Assistant, "f"))
            .unwrap()
            .is_none()
    );
    memory.add_message(msg(Role::User, "g")).unwrap();
    assert!(
        memory
            .add_message(msg(Role::Assistant, "h"))
            .unwrap()
            .is_none()
    );
    assert_eq!(memory.verbatim().len(), 8);
    // The commit removes exactly turn 1 and then checks the trigger over what arrived.
    let next = memory
        .commit(job.id, "S", meta(), &WordCounter)
        .unwrap()
        .unwrap();
    assert_eq!(memory.verbatim()[0].content, "c");
    assert_eq!(
        next.kind,
        JobKind::Fold {
            turns: TurnRange { first: 2, last: 3 },
            from: 2,
            to: 6
        }
    );
}

#[test]
fn manual_request_folds_all_but_the_kept_turns() {
    let mut memory = memory(Trigger::Manual { keep: 1 });
    assert_eq!(
        memory.request_summary_now(),
        Err(MemoryError::NothingToFold)
    );
    for t in ["a", "b", "c"] {
        play(&mut memory, t, "ok");
    }
    assert!(
        memory.editions().is_empty(),
        "the manual trigger never fires by itself"
    );
    memory.add_message(msg(Role::User, "pending")).unwrap();
    let job = memory.request_summary_now().unwrap();
    assert_eq!(
        job.kind,
        JobKind::Fold {
            turns: TurnRange { first: 1, last: 2 },
            from: 0,
            to: 4
        }
    );
}

#[test]
fn placements_put_the_summary_where_the_policy_says() {
    let mut memory = memory(turns(2, 1));
    play(&mut memory, "a", "b");
    play(&mut memory, "c", "d");
    memory.add_message(msg(Role::User, "e")).unwrap();
    let shape = |m: &MemoryState| -> Vec<(Role, bool)> {
        m.request(&WordCounter)
            .iter()
            .map(|x| (x.role, x.content.contains("Summary of turns 1 to 1.")))
            .collect()
    };
    use Role::*;
    assert_eq!(
        shape(&memory),
        [
            (System, false),
            (System, true),
            (User, false),
            (Assistant, false),
            (User, false)
        ]
    );
    let mut policy = memory.policy().clone();
    policy.placement = Placement::AppendToSystem;
    memory.set_policy(policy.clone()).unwrap();
    assert_eq!(
        shape(&memory),
        [
            (System, true),
            (User, false),
            (Assistant, false),
            (User, false)
        ]
    );
    assert!(
        memory.request(&WordCounter)[0]
            .content
            .starts_with("You are FinCoach.\n\n")
    );
    policy.placement = Placement::UserAck;
    memory.set_policy(policy).unwrap();
    let request = memory.request(&WordCounter);
    assert_eq!(
        shape(&memory),
        [
            (System, false),
            (User, true),
            (Assistant, false),
            (User, false),
            (Assistant, false),
            (User, false)
        ]
    );
    assert_eq!(request[2].content, SUMMARY_ACK);
}

#[test]
fn system_messages_are_refused() {
    let mut memory = memory(turns(2, 1));
    assert_eq!(
        memory.add_message(msg(Role::System, "x")),
        Err(MemoryError::SystemMessage)
    );
    assert!(memory.archive().is_empty());
}

#[test]
fn edits_and_restores_make_new_editions_and_reissue_the_job_in_flight() {
    let mut memory = memory(turns(2, 1));
    play(&mut memory, "a", "b");
    play(&mut memory, "c", "d");
    memory
        .edit_summary("Hand written.", 7, &WordCounter)
        .unwrap();
    let restored = memory.restore(1, 8, &WordCounter).unwrap();
    assert!(restored.is_none());
    let cycles: Vec<(u32, Provenance, Option<u32>)> = memory
        .editions()
        .iter()
        .map(|e| (e.cycle, e.provenance, e.restored_from))
        .collect();
    assert_eq!(
        cycles,
        [
            (1, Provenance::Model, None),
            (2, Provenance::ManualEdit, None),
            (3, Provenance::Restore, Some(1))
        ]
    );
    assert_eq!(memory.summary(), Some("Summary of turns 1 to 1."));
    assert_eq!(
        memory.editions()[2].previous.as_deref(),
        Some("Hand written.")
    );
    assert_eq!(
        memory.restore(9, 9, &WordCounter),
        Err(MemoryError::NoSuchEdition(9))
    );
    assert_eq!(
        memory.edit_summary(" ", 9, &WordCounter),
        Err(MemoryError::EmptyEdit)
    );

    let job = turn_with_a_job(&mut memory, "e", "f");
    let reissued = memory
        .edit_summary("Edited during flight.", 10, &WordCounter)
        .unwrap()
        .unwrap();
    assert!(
        reissued.request[1]
            .content
            .contains("Edited during flight.")
    );
    assert!(matches!(
        memory.commit(job.id, "late", meta(), &WordCounter),
        Err(MemoryError::StaleJob { .. })
    ));
    memory
        .commit(reissued.id, "Fresh.", meta(), &WordCounter)
        .unwrap();
    assert_eq!(
        memory.editions().last().unwrap().folded,
        Some(TurnRange { first: 2, last: 2 })
    );
}

/// A memory whose summary budget is three words, with its first fold job in flight.
fn a_fold_under_a_three_word_budget() -> (MemoryState, SummaryJob) {
    let mut policy = Policy::new(turns(2, 1)).unwrap();
    policy.summary_budget = Some(3);
    let mut memory = MemoryState::new("sys", policy).unwrap();
    play(&mut memory, "a", "b");
    let job = turn_with_a_job(&mut memory, "c", "d");
    (memory, job)
}

#[test]
fn an_over_budget_summary_is_compressed_level_by_level_up_to_three() {
    let (mut memory, job) = a_fold_under_a_three_word_budget();
    let mut next = memory
        .commit(job.id, "one two three four five", meta(), &WordCounter)
        .unwrap();
    let mut levels = Vec::new();
    while let Some(job) = next {
        let JobKind::Compress { level } = job.kind else {
            panic!("expected a compression, got {:?}", job.kind);
        };
        levels.push(level);
        // The summariser never gets under the budget, so the engine climbs to the cap.
        next = memory
            .commit(job.id, "still far too long", meta(), &WordCounter)
            .unwrap();
    }
    assert_eq!(levels, [1, 2, 3]);
    let recorded: Vec<u8> = memory.editions().iter().map(|e| e.level).collect();
    assert_eq!(recorded, [0, 1, 2, 3]);
    assert_eq!(memory.level(), 3);
    assert_eq!(memory.editions()[1].word_limit, 40);
}

#[test]
fn a_compression_that_fits_stops_climbing() {
    let (mut memory, job) = a_fold_under_a_three_word_budget();
    let compress = memory
        .commit(job.id, "one two three four", meta(), &WordCounter)
        .unwrap()
        .unwrap();
    assert!(
        memory
            .commit(compress.id, "short", meta(), &WordCounter)
            .unwrap()
            .is_none()
    );
    assert_eq!(memory.level(), 1);
}

#[test]
fn message_states_and_turn_numbers() {
    let mut memory = memory(turns(2, 1));
    play(&mut memory, "a", "b");
    play(&mut memory, "c", "d");
    assert_eq!(memory.message_state(1), MessageState::Folded);
    assert_eq!(memory.message_state(2), MessageState::Verbatim);
    assert_eq!(memory.turn_of(0), 1);
    assert_eq!(memory.turn_of(3), 2);
    assert_eq!(memory.summarised_to(), 1);
    // Two user messages in a row belong to one turn.
    memory.add_message(msg(Role::User, "e")).unwrap();
    memory.add_message(msg(Role::User, "e again")).unwrap();
    assert_eq!(memory.turn_count(), 3);
}

/// A message too long for the model's context window had no way out but deleting the chat:
/// an excluded message stays in the archive, and neither the chat request nor the summariser
/// request sends it until it is included again.
#[test]
fn an_excluded_message_stays_in_the_archive_but_no_request_sends_it() {
    let mut memory = memory(Trigger::Manual { keep: 0 });
    play(&mut memory, "a long paste of logs", "I read them");
    play(&mut memory, "short question", "short answer");
    memory.add_message(msg(Role::User, "next")).unwrap();
    let contents = |sent: &[Message]| sent.iter().map(|m| m.content.clone()).collect::<Vec<_>>();
    assert_eq!(
        contents(&memory.request(&WordCounter))[1..],
        [
            "a long paste of logs",
            "I read them",
            "short question",
            "short answer",
            "next"
        ]
    );

    memory.set_excluded(0, true).unwrap();
    assert!(memory.is_excluded(0));
    assert_eq!(memory.excluded().collect::<Vec<_>>(), [0]);
    assert_eq!(
        contents(&memory.request(&WordCounter))[1..],
        ["I read them", "short question", "short answer", "next"]
    );
    assert_eq!(
        contents(&memory.request_leaving_out(&WordCounter, |i| i == 3))[1..],
        ["I read them", "short question", "next"]
    );
    // The archive, what an export writes, keeps every message.
    assert_eq!(memory.archive().len(), 5);
    assert_eq!(memory.archive()[0].content, "a long paste of logs");
    // The turn it belongs to is still a turn.
    assert_eq!(memory.turn_of(1), 1);

    // The summariser does not read it either.
    let job = memory.request_summary_now().unwrap();
    let asked = &job.request[1].content;
    assert!(!asked.contains("a long paste of logs"), "{asked}");
    assert!(asked.contains("I read them"), "{asked}");
    assert_eq!(job.tokens_in, 3 + 2 + 2);
    memory.commit(job.id, "S", meta(), &WordCounter).unwrap();
    // Folded now: excluding it changes nothing a request sends, so it is refused.
    assert_eq!(
        memory.set_excluded(1, true),
        Err(MemoryError::AlreadyFolded(1))
    );
    assert_eq!(
        memory.set_excluded(9, true),
        Err(MemoryError::NoSuchMessage(9))
    );
    memory.set_excluded(0, false).unwrap();
    assert!(!memory.is_excluded(0));
}

#[test]
fn including_a_message_again_sends_it_again() {
    let mut memory = memory(Trigger::Manual { keep: 0 });
    play(&mut memory, "one", "two");
    memory.set_excluded(1, true).unwrap();
    assert_eq!(memory.request(&WordCounter).len(), 2);
    memory.set_excluded(1, false).unwrap();
    let sent = memory.request(&WordCounter);
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[2].content, "two");
}

/// Each peer's exact policy, in the live engine with an instant summariser, sends the requests
/// the message-level dry run lists: the same decision ([`Policy::decide`]) over the same
/// messages, checked after a reply (LangChain's classic buffer, the cookbook) or before a
/// request (LangChain v1, LlamaIndex, Gemini CLI on the reported size).
#[test]
fn the_peers_exact_policies_fold_in_the_live_engine_as_in_the_dry_run() {
    use crate::engine::peers::exact;
    use crate::engine::schedule::{MessageInput, PlayedMessage, Sizer, Slot, schedule_messages};

    struct Words;
    impl Sizer for Words {
        fn tokens(&self, text: &str) -> u32 {
            WordCounter.count(text)
        }
        fn summary(&self, _call: u32) -> String {
            "the summary".to_owned()
        }
    }
    let sizes: Vec<u32> = (0..24).map(|i| 3 + (i * 7) % 11).collect();
    let messages: Vec<Message> = sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let role = if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            };
            Message::new(
                role,
                vec![format!("m{i}"); n as usize].join(" "),
                &WordCounter,
                0,
            )
        })
        .collect();
    let played: Vec<PlayedMessage> = messages
        .iter()
        .map(|m| PlayedMessage {
            role: m.role,
            tokens: m.tokens,
            chars: m.content.len() as u32,
            calls: false,
        })
        .collect();
    let system = "be brief";
    for policy in [
        exact::langchain_classic(40),
        exact::langchain_v1(60, 4),
        exact::llamaindex(50),
        exact::cookbook(2, 3),
        exact::gemini_cli(60),
    ] {
        let run = schedule_messages(
            &policy,
            &MessageInput {
                messages: played.clone(),
                system_prompt: system,
                system_tokens: 2,
                sizer: &Words,
            },
        );
        assert!(run.folds > 1, "{:?} folds", policy.exact);
        let mut memory = MemoryState::new(system, policy.clone()).unwrap();
        memory.count_system_prompt(&WordCounter);
        let mut reported = None;
        let mut rows = run.requests.iter();
        for (i, m) in messages.iter().enumerate() {
            // A job of several calls (Gemini CLI's) asks for its next call on each commit.
            let mut job = memory.add_message(m.clone()).unwrap();
            while let Some(j) = job {
                job = memory
                    .commit(j.id, "the summary", meta(), &WordCounter)
                    .unwrap();
            }
            if m.role != Role::User {
                continue;
            }
            let mut job = memory.before_request(reported);
            while let Some(j) = job {
                job = memory
                    .commit(j.id, "the summary", meta(), &WordCounter)
                    .unwrap();
            }
            let sent = memory.request(&WordCounter);
            let row = rows.next().unwrap();
            let listed: Vec<String> = row
                .messages
                .iter()
                .map(|slot| match slot {
                    Slot::System => system.to_owned(),
                    Slot::Summary { text, .. } | Slot::Fixed { text, .. } => text.clone(),
                    Slot::Verbatim(k) => messages[*k].content.clone(),
                })
                .collect();
            let got: Vec<String> = sent.iter().map(|m| m.content.clone()).collect();
            assert_eq!(got, listed, "{:?}, message {i}", policy.exact);
            reported = Some(sent.iter().map(|m| u64::from(m.tokens)).sum());
        }
        assert_eq!(memory.editions().len() as u32, run.folds);
    }
}

/// The dry run's summariser for [`dry_run_and_engine_agree`]: call `k` writes `Call k.`, a
/// token a word.
struct Numbered;

impl crate::engine::schedule::Sizer for Numbered {
    fn tokens(&self, text: &str) -> u32 {
        WordCounter.count(text)
    }

    fn summary(&self, call: u32) -> String {
        format!("Call {call} wrote this summary.")
    }
}

/// Plays `messages` under `policy` in the message-level dry run and in the live engine, whose
/// summariser call `k` writes what the dry run's call `k` writes, and asserts the same requests
/// (roles and texts) and the same number of summariser calls. Returns every summariser job the
/// engine issued, in order.
fn dry_run_and_engine_agree(policy: &Policy, messages: &[Message]) -> Vec<SummaryJob> {
    use crate::engine::schedule::{
        MessageInput, PlayedMessage, Sizer, Slot, answers, schedule_messages,
    };
    const SYSTEM: &str = "You are FinCoach.";
    let played: Vec<PlayedMessage> = messages
        .iter()
        .map(|m| PlayedMessage {
            role: m.role,
            tokens: m.tokens,
            chars: m.content.chars().count() as u32,
            calls: !m.calls.is_empty(),
        })
        .collect();
    let run = schedule_messages(
        policy,
        &MessageInput {
            messages: played.clone(),
            system_prompt: SYSTEM,
            system_tokens: WordCounter.count(SYSTEM),
            sizer: &Numbered,
        },
    );
    let mut memory = MemoryState::new(SYSTEM, policy.clone()).unwrap();
    memory.count_system_prompt(&WordCounter);
    let mut jobs = Vec::new();
    let mut run_jobs = |memory: &mut MemoryState, mut job: Option<SummaryJob>| {
        while let Some(j) = job {
            jobs.push(j.clone());
            let text = Numbered.summary(jobs.len() as u32);
            job = memory.commit(j.id, &text, meta(), &WordCounter).unwrap();
        }
    };
    let mut requests = run.requests.iter();
    let mut reported = None;
    for (i, m) in messages.iter().enumerate() {
        let job = memory.add_message(m.clone()).unwrap();
        run_jobs(&mut memory, job);
        if answers(&played, i) {
            let job = memory.before_request(reported);
            run_jobs(&mut memory, job);
            let sent = memory.request(&WordCounter);
            let row = requests.next().expect("a dry-run request for each answer");
            let listed: Vec<(Role, String)> = row
                .messages
                .iter()
                .map(|slot| match slot {
                    Slot::System => (Role::System, SYSTEM.to_owned()),
                    Slot::Summary { role, text, .. } | Slot::Fixed { role, text } => {
                        (*role, text.clone())
                    }
                    Slot::Verbatim(k) => (messages[*k].role, messages[*k].content.clone()),
                })
                .collect();
            let got: Vec<(Role, String)> =
                sent.iter().map(|m| (m.role, m.content.clone())).collect();
            assert_eq!(got, listed, "request {}", row.request);
            let tokens: u64 = sent.iter().map(|m| u64::from(m.tokens)).sum();
            assert_eq!(tokens, row.tokens, "tokens of request {}", row.request);
            reported = Some(tokens);
        }
    }
    assert!(requests.next().is_none(), "the dry run lists more requests");
    assert_eq!(jobs.len() as u32, run.calls, "summariser calls");
    jobs
}

/// `turns` turns of a user message and a reply, each message `words` words long.
fn plain_turns(turns: usize, words: usize) -> Vec<Message> {
    (1..=turns)
        .flat_map(|t| {
            let user = vec![format!("q{t}"); words].join(" ");
            let reply = vec![format!("a{t}"); words].join(" ");
            [msg(Role::User, &user), msg(Role::Assistant, &reply)]
        })
        .collect()
}

fn exact_turns_policy(exact: crate::engine::policy::Exact) -> Policy {
    let mut policy = Policy::new(Trigger::Turns {
        max_turns: 2,
        keep: 0,
    })
    .unwrap();
    policy.exact = exact;
    policy
}

#[test]
fn a_fold_of_two_calls_makes_both_and_the_second_sees_the_first_draft() {
    let policy = exact_turns_policy(crate::engine::policy::Exact {
        calls_per_fold: 2,
        ..Default::default()
    });
    let jobs = dry_run_and_engine_agree(&policy, &plain_turns(6, 3));
    assert!(jobs.len() >= 4, "at least two folds of two calls: {jobs:?}");
    for pair in jobs.chunks(2) {
        let (first, second) = (&pair[0], &pair[1]);
        assert_eq!((first.pass, second.pass, second.passes), (1, 2, 2));
        assert_eq!(first.kind, second.kind);
        let n = jobs.iter().position(|j| j.id == first.id).unwrap() + 1;
        let draft = format!("Call {n} wrote this summary.");
        let tail = &second.request[second.request.len() - 2..];
        assert_eq!(
            (tail[0].role, tail[0].content.as_str()),
            (Role::Assistant, draft.as_str())
        );
        assert_eq!(tail[1].content, VERIFY_INSTRUCTION);
        assert_eq!(&second.request[..first.request.len()], &first.request[..]);
    }
}

#[test]
fn a_fold_of_two_calls_commits_nothing_when_the_second_fails() {
    let policy = exact_turns_policy(crate::engine::policy::Exact {
        calls_per_fold: 2,
        ..Default::default()
    });
    let mut memory = MemoryState::new("You are FinCoach.", policy).unwrap();
    memory.add_message(msg(Role::User, "q1")).unwrap();
    memory.add_message(msg(Role::Assistant, "a1")).unwrap();
    memory.add_message(msg(Role::User, "q2")).unwrap();
    let first = memory
        .add_message(msg(Role::Assistant, "a2"))
        .unwrap()
        .expect("two turns fold");
    let second = memory
        .commit(first.id, "A first draft.", meta(), &WordCounter)
        .unwrap()
        .expect("the verification call follows the draft");
    // The draft alone changes nothing.
    assert_eq!(memory.summary(), None);
    assert_eq!(memory.verbatim().len(), 4);
    assert!(memory.editions().is_empty());
    memory.fail(second.id, "timed out", 7).unwrap();
    assert_eq!(memory.summary(), None);
    assert_eq!(memory.verbatim().len(), 4);
    // Retry starts the fold again from its first call.
    let retried = memory.retry_job().unwrap();
    assert_eq!((retried.pass, retried.request), (1, first.request));
}

#[test]
fn after_a_fold_the_user_messages_kept_by_tokens_come_before_the_summary() {
    // Codex: nothing of the history stays verbatim but the user's own messages, newest first
    // up to a token budget (seven tokens: two three-word questions).
    let policy = exact_turns_policy(crate::engine::policy::Exact {
        keep: Some(crate::engine::policy::Keep::Messages(0)),
        keep_user_tokens: Some(7),
        ..Default::default()
    });
    dry_run_and_engine_agree(&policy, &plain_turns(7, 3));
    let mut memory = MemoryState::new("You are FinCoach.", policy).unwrap();
    for (u, a) in [("q1 q1 q1", "a1"), ("q2 q2 q2", "a2"), ("q3 q3 q3", "a3")] {
        play(&mut memory, u, a);
    }
    assert!(!memory.editions().is_empty(), "two turns fold");
    let sent: Vec<String> = memory
        .request(&WordCounter)
        .iter()
        .map(|m| m.content.clone())
        .collect();
    let summary = sent
        .iter()
        .position(|t| t.contains("Summary of turns"))
        .unwrap();
    assert_eq!(
        sent[summary - 2..summary],
        ["q1 q1 q1", "q2 q2 q2"],
        "{sent:?}"
    );
}

/// Turn `t` of a question, one tool call and its result, and a reply.
fn tool_turn(t: usize) -> Vec<Message> {
    use crate::engine::message::{MessageParts, ToolCall};
    let id = format!("call_{t}");
    let mut call = MessageParts::text(Role::Assistant, "");
    call.calls.push(ToolCall {
        id: id.clone(),
        name: "lookup".into(),
        arguments: format!("arg{t} arg{t}"),
    });
    let mut result = MessageParts::text(Role::Tool, format!("result{t} result{t} result{t}"));
    result.call_id = Some(id);
    result.tool_name = Some("lookup".into());
    vec![
        msg(Role::User, &format!("q{t} q{t}")),
        Message::with_parts(call, &WordCounter),
        Message::with_parts(result, &WordCounter),
        msg(Role::Assistant, &format!("a{t} a{t}")),
    ]
}

#[test]
fn tool_traffic_kept_to_its_turn_is_sent_only_in_that_turns_requests() {
    // Classic LangChain: the memory stores each turn's input and output, so a tool call and
    // its result reach only the requests of their own turn, and never the summariser.
    let policy = exact_turns_policy(crate::engine::policy::Exact {
        tools_in_turn_only: true,
        ..Default::default()
    });
    let messages: Vec<Message> = (1..=5).flat_map(tool_turn).collect();
    let jobs = dry_run_and_engine_agree(&policy, &messages);
    assert!(!jobs.is_empty());
    for job in &jobs {
        let text: String = job.request.iter().map(|m| m.content.as_str()).collect();
        assert!(
            !text.contains("result"),
            "the summariser saw tool traffic: {text}"
        );
    }
    let mut memory = MemoryState::new("You are FinCoach.", policy).unwrap();
    for m in (1..=2)
        .flat_map(tool_turn)
        .chain(tool_turn(3).into_iter().take(3))
    {
        memory.add_message(m).unwrap();
    }
    let sent: Vec<String> = memory
        .request(&WordCounter)
        .iter()
        .map(|m| m.content.clone())
        .collect();
    assert!(
        sent.iter().any(|t| t == "result3 result3 result3"),
        "{sent:?}"
    );
    assert!(
        !sent
            .iter()
            .any(|t| t.starts_with("result1") || t.starts_with("result2"))
    );
    assert!(sent.iter().any(|t| t == "a2 a2"), "{sent:?}");
}

/// LangChain v1 keeping tokens: a newest message alone over the kept tokens stays verbatim in
/// the live engine's next request, as the dry run lists it; without the floor it is folded.
#[test]
fn the_newest_message_stays_verbatim_when_it_alone_is_over_the_kept_tokens() {
    use crate::engine::policy::Keep;
    let floored = crate::engine::peers::exact::langchain_v1_keeping(30, Keep::Tokens(10));
    let mut bare = floored.clone();
    bare.exact.keep_newest = false;
    let giant = vec!["giant"; 40].join(" ");
    let mut messages = plain_turns(2, 4);
    messages.push(msg(Role::User, &giant));
    messages.push(msg(Role::Assistant, "a3"));
    for policy in [&floored, &bare] {
        assert_eq!(dry_run_and_engine_agree(policy, &messages).len(), 1);
        let mut memory = MemoryState::new("You are FinCoach.", policy.clone()).unwrap();
        memory.count_system_prompt(&WordCounter);
        for m in &messages[..5] {
            assert!(memory.add_message(m.clone()).unwrap().is_none());
        }
        let job = memory
            .before_request(None)
            .expect("the giant message fires");
        memory
            .commit(job.id, "the summary", meta(), &WordCounter)
            .unwrap();
        let sent: Vec<String> = memory
            .request(&WordCounter)
            .iter()
            .map(|m| m.content.clone())
            .collect();
        assert_eq!(
            sent.contains(&giant),
            policy.exact.keep_newest,
            "{:?}: {sent:?}",
            policy.exact
        );
    }
}
