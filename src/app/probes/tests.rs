use super::*;
use crate::engine::facts::PinnedFact;
use crate::engine::message::WordCounter;
use crate::engine::openai::ApiError;
use crate::engine::probes::Grade;
use crate::engine::session::fixture::Scripted;
use crate::engine::settings::Settings;

/// Six turns under "summarise at 2, keep 1": five editions; turn 1 states the salary and a rule.
fn session() -> Session {
    let scripted = Scripted {
        turn: |t| match t {
            1 => (
                "My monthly salary is 4,200 euros. Never suggest crypto to me.".into(),
                "Noted.".into(),
            ),
            t => (format!("question {t}"), format!("answer {t}")),
        },
        ..Scripted::default()
    };
    let mut session = scripted.play(6);
    session.pinned = vec![PinnedFact::phrase("monthly salary", "4,200")];
    add_generated(&mut session, &WordCounter);
    session
}

fn connected() -> ValidSettings {
    let mut settings = Settings::default();
    settings.set_base_url("http://127.0.0.1:8080/v1".to_owned());
    settings.chat_model = "chat".to_owned();
    settings.summary_model = "judge".to_owned();
    settings.validate().expect("valid settings")
}

fn reply(text: &str) -> Result<Option<ChatResponse>, ApiError> {
    Ok(Some(ChatResponse {
        content: text.to_owned(),
        reasoning: String::new(),
        finish_reason: Some("stop".into()),
        usage: None,
    }))
}

const GRADE: &str = r#"{"grade": "correct", "evidence": "4,200 euros"}"#;

#[test]
fn the_estimate_counts_two_calls_a_cell_and_the_tokens_sent() {
    let session = session();
    assert_eq!(session.probes.probes.len(), 2);
    let editions = session.memory.editions().len();
    assert_eq!(editions, 5);
    let estimate = estimate(&session, &WordCounter);
    assert_eq!(estimate.cells.len(), 2 * editions);
    assert_eq!(estimate.calls, 4 * editions);
    assert!(estimate.tokens > 0);
    // Adding them again adds nothing.
    let mut again = session.clone();
    assert_eq!(add_generated(&mut again, &WordCounter), 0);
}

#[test]
fn a_run_asks_each_cell_then_its_judge_and_records_the_grades() {
    let mut session = session();
    let (mut run, mut call) = ProbeRun::start(&session, connected(), &WordCounter);
    let mut calls = 0;
    while let Some(c) = call {
        calls += 1;
        let text = match c.kind {
            CallKind::Answer => {
                assert_eq!(c.request.model, "chat");
                assert!(!c.request.stream);
                assert!(c.request.response_format.is_none());
                "4,200 euros a month."
            }
            CallKind::Judge => {
                assert_eq!(c.request.model, "judge");
                assert!(c.request.response_format.is_some());
                assert!(
                    c.request.messages[1]
                        .content
                        .contains("Answer to grade: 4,200 euros a month.")
                );
                GRADE
            }
        };
        call = run.answered(
            c.cell,
            c.kind,
            reply(text),
            &mut session.probes,
            &WordCounter,
        );
    }
    assert_eq!(*run.status(), RunStatus::Done);
    assert_eq!(calls, 20);
    assert_eq!(session.probes.results.len(), 10);
    assert!(
        session
            .probes
            .results
            .iter()
            .all(|r| r.grade == Grade::Correct)
    );
    assert_eq!(session.probes.score(3), Some(1.0));
    assert_eq!(session.probes.answer_model, "chat");
    assert_eq!(session.probes.judge_model, "judge");
    // Nothing is left to ask.
    assert_eq!(estimate(&session, &WordCounter).calls, 0);
}

#[test]
fn a_malformed_grade_records_nothing_and_retry_asks_the_judge_again() {
    let mut session = session();
    let (mut run, call) = ProbeRun::start(&session, connected(), &WordCounter);
    let answer = call.unwrap();
    let judge = run
        .answered(
            answer.cell,
            CallKind::Answer,
            reply("4,200."),
            &mut session.probes,
            &WordCounter,
        )
        .unwrap();
    let before = session.probes.clone();
    let next = run.answered(
        judge.cell,
        CallKind::Judge,
        reply("It is correct."),
        &mut session.probes,
        &WordCounter,
    );
    assert!(next.is_none());
    assert_eq!(session.probes, before, "nothing committed");
    let RunStatus::Failed { cell, reason } = run.status().clone() else {
        panic!("{:?}", run.status());
    };
    assert_eq!(cell, judge.cell);
    assert!(reason.contains("not JSON"), "{reason}");
    // An HTTP failure is the same.
    let again = run.retry(&WordCounter).unwrap();
    assert_eq!(again, judge, "the same judge call, with the same answer");
    let failed = run.answered(
        again.cell,
        CallKind::Judge,
        Err(ApiError::Network {
            base_url: "http://127.0.0.1:8080/v1".into(),
            detail: "offline".into(),
            fix: String::new(),
        }),
        &mut session.probes,
        &WordCounter,
    );
    assert!(failed.is_none());
    assert_eq!(session.probes, before);
    let again = run.retry(&WordCounter).unwrap();
    let next = run.answered(
        again.cell,
        CallKind::Judge,
        reply(GRADE),
        &mut session.probes,
        &WordCounter,
    );
    assert_eq!(session.probes.results.len(), 1);
    assert_eq!(next.unwrap().kind, CallKind::Answer);
    assert_eq!(run.progress(), (1, 10));
}

#[test]
fn stop_records_nothing_and_a_late_reply_is_ignored() {
    let mut session = session();
    let (mut run, call) = ProbeRun::start(&session, connected(), &WordCounter);
    let call = call.unwrap();
    run.stop();
    assert_eq!(*run.status(), RunStatus::Stopped);
    assert!(
        run.answered(
            call.cell,
            call.kind,
            reply("4,200."),
            &mut session.probes,
            &WordCounter
        )
        .is_none()
    );
    assert_eq!(
        run.retry(&WordCounter),
        Some(call.clone()),
        "the answer was not kept"
    );
    // A reply to the judge while the answer is asked is not taken.
    assert!(
        run.answered(
            call.cell,
            CallKind::Judge,
            reply(GRADE),
            &mut session.probes,
            &WordCounter
        )
        .is_none()
    );
    assert!(session.probes.results.is_empty());
}

#[test]
fn user_probes_and_model_probes_are_checked_against_the_archive() {
    let mut session = session();
    let probe = user_probe(&session, "How much is the salary?", 1, "4,200 euros").unwrap();
    assert_eq!(probe.evidence.message, 0);
    assert!(
        user_probe(&session, "Q?", 99, "")
            .unwrap_err()
            .contains("not in the archive")
    );
    assert!(
        user_probe(&session, "Q?", 1, "5,000")
            .unwrap_err()
            .contains("does not hold")
    );
    assert!(user_probe(&session, " ", 1, "").is_err());

    let (_, request) = writer_call(&session, &connected(), &WordCounter).unwrap();
    assert_eq!(request.model, "judge");
    assert!(
        request.messages[1]
            .content
            .contains("[1] user: My monthly salary")
    );
    let before = session.probes.clone();
    let bad = writer_answered(&mut session, reply("Some questions."), &WordCounter);
    assert!(bad.unwrap_err().contains("no probes were added"));
    assert_eq!(session.probes, before);
    let good = r#"{"probes": [{"question": "Which crypto rule?", "message": 1, "quote": "Never suggest crypto to me."}]}"#;
    assert_eq!(
        writer_answered(&mut session, reply(good), &WordCounter),
        Ok(1)
    );
}
