use super::*;
use crate::engine::library_session::SessionSettings;
use crate::engine::memory::CommitMeta;
use crate::engine::message::{ToolCall, WordCounter};
use crate::engine::policy::Trigger;
use crate::engine::run::RunStatus;
use crate::engine::session::synthetic;

/// A model's commit at `at_ms`.
fn model(name: Option<&str>, at_ms: u64) -> CommitMeta {
    CommitMeta {
        model: name.map(str::to_owned),
        provenance: Provenance::Model,
        at_ms,
    }
}

fn turns(max_turns: u32, keep: u32) -> Policy {
    Policy::new(Trigger::Turns { max_turns, keep }).unwrap()
}

/// Answers every job the way a live summariser would, numbering its summaries.
fn run_live(session: &Session, policy: Policy) -> (Replayer, Vec<SummaryJob>) {
    let (mut replayer, mut job) = Replayer::start(session, policy, &WordCounter, "live").unwrap();
    let mut asked = Vec::new();
    while let Some(j) = job {
        asked.push(j.clone());
        let text = format!(
            "Summary {}: the user saves weekly and holds no equities.",
            asked.len()
        );
        let cost = SummaryCost {
            prompt_tokens: Some(100),
            completion_tokens: None,
        };
        job = replayer
            .summary_ended(
                j.id,
                Ok(text),
                cost,
                model(Some("test-summary"), 7),
                &WordCounter,
            )
            .unwrap();
    }
    (replayer, asked)
}

#[test]
fn a_live_replay_commits_each_answer_as_the_models_edition_into_a_new_session() {
    let session = synthetic(12);
    let before = session.clone();
    let (replayer, asked) = run_live(&session, turns(4, 2));
    assert_eq!(session, before, "the original is never changed");
    assert_eq!(replayer.status(), &RunStatus::Done);
    let new = replayer.finished().expect("done");
    assert_eq!(new.name, "live");
    let editions = new.memory.editions();
    assert_eq!(editions.len(), asked.len());
    assert!(
        editions.len() >= 4,
        "4/2 over twelve turns folds often: {}",
        editions.len()
    );
    for (i, e) in editions.iter().enumerate() {
        assert_eq!(e.provenance, Provenance::Model);
        assert_eq!(e.model.as_deref(), Some("test-summary"));
        assert!(
            e.summary.starts_with(&format!("Summary {}:", i + 1)),
            "{}",
            e.summary
        );
    }
    // A later job folds the previous answer: the live summary, not an extractive one.
    assert_eq!(
        asked[1].previous.as_deref(),
        Some(editions[0].summary.as_str())
    );
    assert_eq!(archive_texts(&new), archive_texts(&session));
    assert_eq!(new.pinned, session.pinned);
    let progress = replayer.progress();
    assert_eq!(progress.turn, Some((12, 12)));
    assert_eq!(progress.done as usize, asked.len());
    let tokens = progress.tokens.unwrap();
    // The server's prompt count stands for each request; the summaries are counted here.
    assert_eq!(tokens.sent, 100 * asked.len() as u64);
    let words: u64 = editions
        .iter()
        .map(|e| WordCounter.count(&e.summary) as u64)
        .sum();
    assert_eq!(tokens.received, words);
}

#[test]
fn a_failed_summary_stays_pending_and_resume_asks_for_the_same_job_once() {
    let session = synthetic(12);
    let (mut replayer, job) = Replayer::start(&session, turns(4, 2), &WordCounter, "r").unwrap();
    let first = job.expect("4/2 folds within twelve turns");
    let turn_then = replayer.progress().turn;
    let next = replayer
        .summary_ended(
            first.id,
            Err("the server answered 500".into()),
            SummaryCost::default(),
            model(Some("m"), 1),
            &WordCounter,
        )
        .unwrap();
    assert_eq!(next, None);
    assert_eq!(
        replayer.status(),
        &RunStatus::Failed("the server answered 500".into())
    );
    assert!(replayer.editions().is_empty());
    assert_eq!(
        replayer.progress().turn,
        turn_then,
        "nothing more was replayed"
    );
    assert_eq!(
        replayer.finished(),
        None,
        "a failed replay is not a session"
    );
    // An empty answer is a failure too, never an empty edition.
    let again = replayer.resume().expect("the same job again");
    assert_eq!(again, first);
    let next = replayer
        .summary_ended(
            again.id,
            Ok("  ".into()),
            SummaryCost::default(),
            model(None, 1),
            &WordCounter,
        )
        .unwrap();
    assert_eq!(next, None);
    assert!(matches!(replayer.status(), RunStatus::Failed(r) if r.contains("empty")));
    let again = replayer.resume().unwrap();
    let next = replayer
        .summary_ended(
            again.id,
            Ok("The first summary.".into()),
            SummaryCost::default(),
            model(None, 1),
            &WordCounter,
        )
        .unwrap();
    assert!(next.is_some() || replayer.status() == &RunStatus::Done);
    assert_eq!(replayer.editions().len(), 1, "committed once");
    // A second answer to the committed job changes nothing.
    let late = replayer
        .summary_ended(
            first.id,
            Ok("late".into()),
            SummaryCost::default(),
            model(None, 2),
            &WordCounter,
        )
        .unwrap();
    assert_eq!(late, None);
    assert_eq!(replayer.editions().len(), 1);
    assert_eq!(
        replayer.resume(),
        None,
        "a running replay has nothing to resume"
    );
}

#[test]
fn an_answer_that_arrives_after_stop_is_not_committed() {
    let session = synthetic(12);
    let (mut replayer, job) = Replayer::start(&session, turns(4, 2), &WordCounter, "r").unwrap();
    let job = job.unwrap();
    replayer.stop();
    assert_eq!(replayer.status(), &RunStatus::Stopped);
    let next = replayer
        .summary_ended(
            job.id,
            Ok("arrived anyway".into()),
            SummaryCost::default(),
            model(None, 1),
            &WordCounter,
        )
        .unwrap();
    assert_eq!(next, None);
    assert!(replayer.editions().is_empty());
    assert_eq!(replayer.resume(), Some(job));
    assert_eq!(replayer.status(), &RunStatus::Running);
}

#[test]
fn the_estimate_counts_the_requests_a_live_replay_sends_under_a_turn_trigger() {
    let session = synthetic(12);
    let cost = estimate(&session, turns(4, 2), &WordCounter, Some(300)).unwrap();
    let (_, asked) = run_live(&session, turns(4, 2));
    // A turn trigger folds on the same turns whatever the summaries say.
    assert_eq!(cost.calls as usize, asked.len());
    assert_eq!(cost.received_at_most, Some(300 * asked.len() as u64));
    // What the extractive run sends: its own requests, each counted.
    let offline = replay_offline(&session, turns(4, 2), &WordCounter, "o").unwrap();
    assert_eq!(offline.memory.editions().len(), asked.len());
    assert!(cost.tokens_sent > 0 && cost.tokens_received > Some(0));
    let received: u64 = offline
        .memory
        .editions()
        .iter()
        .map(|e| WordCounter.count(&e.summary) as u64)
        .sum();
    assert_eq!(cost.tokens_received, Some(received));
    assert_eq!(
        estimate(&session, turns(4, 2), &WordCounter, None)
            .unwrap()
            .received_at_most,
        None
    );
}

#[test]
fn a_session_without_messages_cannot_be_replayed() {
    let memory = MemoryState::new("sys", turns(4, 2)).unwrap();
    let session = Session::new("empty", SessionSettings::default(), memory);
    assert_eq!(
        Replayer::start(&session, turns(4, 2), &WordCounter, "r").err(),
        Some(ReplayError::Empty)
    );
}

/// The replay of an imported transcript kept its text but dropped its tool calls: the copy was
/// a plain message.
#[test]
fn tool_calls_and_placeholders_are_replayed_with_their_turn() {
    let mut memory = MemoryState::new("sys", turns(2, 1)).unwrap();
    let meta = |at_ms| CommitMeta {
        model: None,
        provenance: Provenance::Extractive,
        at_ms,
    };
    for t in 0..4u64 {
        let mut question = MessageParts::text(Role::User, format!("Weather {t}? [image]"));
        question.placeholders = vec!["image".into()];
        let mut call = MessageParts::text(Role::Assistant, "");
        call.calls.push(ToolCall {
            id: format!("c{t}"),
            name: "get_weather".into(),
            arguments: "{\"city\": \"Oslo\"}".into(),
        });
        let mut result = MessageParts::text(Role::Tool, "4 C");
        result.call_id = Some(format!("c{t}"));
        result.tool_name = Some("get_weather".into());
        let answer = MessageParts::text(Role::Assistant, format!("It is 4 C ({t})."));
        for parts in [question, call, result, answer] {
            if let Some(job) = memory
                .add_message(Message::with_parts(parts, &WordCounter))
                .unwrap()
            {
                memory.commit(job.id, "s", meta(t), &WordCounter).unwrap();
            }
        }
    }
    let session = Session::new("tools", SessionSettings::default(), memory);
    let replayed = replay_offline(&session, turns(3, 1), &WordCounter, "r").unwrap();
    assert_eq!(replayed.memory.archive(), session.memory.archive());
}

/// Each peer's exact policy, replayed, folds as often as the message-level dry run of the same
/// conversation says: the replay checks before each request too, on the previous request's size.
#[test]
fn a_replay_under_an_exact_policy_folds_where_the_dry_run_does() {
    use crate::engine::peers::exact;
    use crate::engine::schedule::{MessageInput, PlayedMessage, Sizer, schedule_messages};
    struct Words;
    impl Sizer for Words {
        fn tokens(&self, text: &str) -> u32 {
            WordCounter.count(text)
        }
        fn summary(&self, call: u32) -> String {
            format!("Summary {call}: the user saves weekly and holds no equities.")
        }
    }
    let session = synthetic(16);
    let archive = session.memory.archive();
    let played: Vec<PlayedMessage> = archive
        .iter()
        .map(|m| PlayedMessage {
            role: m.role,
            tokens: WordCounter.count(&m.content),
            chars: m.content.chars().count() as u32,
            calls: !m.calls.is_empty(),
        })
        .collect();
    for policy in [
        exact::langchain_classic(150),
        exact::langchain_v1(200, 4),
        exact::llamaindex(150),
        exact::cookbook(2, 3),
        exact::gemini_cli(200),
    ] {
        let run = schedule_messages(
            &policy,
            &MessageInput {
                messages: played.clone(),
                system_prompt: session.memory.system_prompt(),
                system_tokens: WordCounter.count(session.memory.system_prompt()),
                sizer: &Words,
            },
        );
        assert!(run.folds > 0, "{:?}", policy.exact);
        let (replayer, asked) = run_live(&session, policy.clone());
        assert_eq!(replayer.status(), &RunStatus::Done);
        // Every call is asked for, both of a fold of two calls (Gemini CLI's).
        assert_eq!(asked.len() as u32, run.calls, "{:?}", policy.exact);
        assert_eq!(
            replayer.editions().len() as u32,
            run.folds,
            "{:?}",
            policy.exact
        );
    }
}

/// The text of every archived message, in order: what a replay must carry over.
fn archive_texts(session: &Session) -> Vec<String> {
    session
        .memory
        .archive()
        .iter()
        .map(|m| m.content.clone())
        .collect()
}

/// The extractive replay compiles its ranking (pinned facts, the prompt's must-keep cues) once;
/// its editions are those of answering every job with [`extractive_summary`], which compiles the
/// ranking for each job, under a policy whose must-keep list ranks sentences.
#[test]
fn the_extractive_replay_writes_the_summaries_of_ranking_each_job_afresh() {
    use crate::engine::demo::extractive_summary;
    let session = synthetic(30);
    let mut policy = turns(4, 2);
    // Few words, so the ranking decides which sentences a summary keeps.
    policy.prompt.word_limit = 30;
    policy.prompt.must_keep = vec!["the bond ladder".into(), "hard rules".into()];
    assert_eq!(policy.prompt.must_keep_cues().len(), 2);
    let (mut replayer, mut job) =
        Replayer::start(&session, policy.clone(), &WordCounter, "afresh").unwrap();
    let facts = replayer.facts();
    while let Some(j) = job {
        let text = extractive_summary(&replayer.memory, &j, &facts);
        let meta = CommitMeta {
            model: None,
            provenance: Provenance::Extractive,
            at_ms: replayer.memory.archive().last().map_or(0, |m| m.at_ms),
        };
        job = replayer
            .summary_ended(j.id, Ok(text), SummaryCost::default(), meta, &WordCounter)
            .unwrap();
    }
    let afresh = replayer.finished().unwrap();
    let (replayed, _) = replay_extractive(&session, policy, &WordCounter, "afresh").unwrap();
    assert!(replayed.memory.editions().len() >= 5);
    assert_eq!(replayed, afresh);
}
