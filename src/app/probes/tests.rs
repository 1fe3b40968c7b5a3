use super::*;
use crate::engine::facts::PinnedFact;
use crate::engine::library_session::Grade;
use crate::engine::message::WordCounter;
use crate::engine::openai::ApiError;
use crate::engine::run::RunStatus;
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
    assert_eq!(estimate.calls as usize, 4 * editions);
    assert!(estimate.chat_sent > 0 && estimate.tokens_sent > estimate.chat_sent);
    assert_eq!(estimate.tokens_received, None);
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
    let RunStatus::Failed(reason) = run.status().clone() else {
        panic!("{:?}", run.status());
    };
    assert_eq!(run.failed(), Some(judge.cell));
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
    assert_eq!((run.progress().done, run.progress().total), (1, Some(10)));
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

#[test]
fn a_typed_probe_needs_a_message_number_in_the_archive() {
    let session = session();
    let probe = typed_probe(&session, " What does the user earn? ", " 1 ", "4,200 euros").unwrap();
    assert_eq!(probe.question, "What does the user earn?");
    assert_eq!(probe.evidence.message, 0);
    let no_number = typed_probe(&session, "Q?", "", "x").unwrap_err();
    assert!(no_number.contains("number"), "{no_number}");
    let not_number = typed_probe(&session, "Q?", "first", "x").unwrap_err();
    assert!(
        not_number.contains("\"first\" is not a message number"),
        "{not_number}"
    );
    let outside = typed_probe(&session, "Q?", "99", "x").unwrap_err();
    assert!(outside.contains("not in the archive"), "{outside}");
}

#[test]
fn the_judge_is_the_summariser_unless_another_model_is_named() {
    let valid = connected();
    assert_eq!(judge_settings(&valid, "  ").summary_model, "judge");
    let other = judge_settings(&valid, " grader ");
    assert_eq!(other.summary_model, "grader");
    assert_eq!(other.chat_model, "chat");
    // A run records the model that really judged.
    let session = session();
    let (mut run, call) = ProbeRun::start(&session, other, &WordCounter);
    let call = call.unwrap();
    let mut set = session.probes.clone();
    let judge = run
        .answered(
            call.cell,
            CallKind::Answer,
            reply("4,200 euros."),
            &mut set,
            &WordCounter,
        )
        .unwrap();
    assert_eq!(judge.request.model, "grader");
    run.answered(
        judge.cell,
        CallKind::Judge,
        reply(GRADE),
        &mut set,
        &WordCounter,
    );
    assert_eq!(set.judge_model, "grader");
}

#[test]
fn an_edited_question_drops_its_grades_and_an_empty_one_is_refused() {
    let mut set = session().probes;
    set.record(ProbeResult {
        probe: 1,
        cycle: 1,
        answer: "4,200.".into(),
        grade: Grade::Correct,
        evidence: "4,200 euros".into(),
    });
    let before = set.clone();
    assert!(edit_question(&mut set, 1, "   ").is_err());
    assert_eq!(set, before);
    edit_question(&mut set, 1, " What does the user earn a month? ").unwrap();
    assert_eq!(set.probes[0].question, "What does the user earn a month?");
    assert!(set.result(1, 1).is_none());
}

/// A run started on `session` whose first probe is answered "4,200 euros.", and the judge's
/// call that answer asks for.
fn answered_first(session: &Session, set: &mut ProbeSet) -> (ProbeRun, ProbeCall) {
    let (mut run, call) = ProbeRun::start(session, connected(), &WordCounter);
    let call = call.unwrap();
    let judge = run
        .answered(
            call.cell,
            CallKind::Answer,
            reply("4,200 euros."),
            set,
            &WordCounter,
        )
        .unwrap();
    (run, judge)
}

// llama-cpp-python's server answers 500 "Input should be 'text' or 'json_object'" to the
// judge's `json_schema` format, which failed every cell against it.
#[test]
fn a_server_that_refuses_the_judges_format_is_asked_in_the_next_form() {
    let session = session();
    let mut set = session.probes.clone();
    let (mut run, judge) = answered_first(&session, &mut set);
    assert_eq!(
        judge.request.response_format.as_ref().unwrap()["type"],
        "json_schema"
    );
    let refused = || {
        Err(ApiError::Server {
            status: Some(500),
            message: "('body', 'response_format', 'type'): Input should be 'text' or 'json_object'"
                .into(),
        })
    };
    let object = run
        .answered(
            judge.cell,
            CallKind::Judge,
            refused(),
            &mut set,
            &WordCounter,
        )
        .expect("asked again");
    let format = object.request.response_format.as_ref().unwrap();
    assert_eq!(format["type"], "json_object");
    assert_eq!(
        format["schema"]["required"],
        serde_json::json!(["grade", "evidence"])
    );
    assert_eq!(object.request.messages, judge.request.messages);
    let plain = run
        .answered(
            object.cell,
            CallKind::Judge,
            refused(),
            &mut set,
            &WordCounter,
        )
        .expect("asked again");
    assert!(plain.request.response_format.is_none());
    // With no format left to drop, the refusal fails the cell, and nothing is recorded.
    assert!(
        run.answered(
            plain.cell,
            CallKind::Judge,
            refused(),
            &mut set,
            &WordCounter
        )
        .is_none()
    );
    assert!(matches!(run.status(), RunStatus::Failed { .. }));
    assert_eq!(set.results, session.probes.results);
    // Another failure is not a format's: it fails at once.
    let (mut run, judge) = answered_first(&session, &mut set);
    let offline = Err(ApiError::Server {
        status: Some(500),
        message: "out of memory".into(),
    });
    assert!(
        run.answered(judge.cell, CallKind::Judge, offline, &mut set, &WordCounter)
            .is_none()
    );
}

#[test]
fn the_writers_request_steps_down_its_format_only_on_a_refusal_that_names_it() {
    let session = session();
    let (_, request) = writer_call(&session, &connected(), &WordCounter).unwrap();
    let refused = ApiError::BadRequest {
        status: 422,
        message: "response_format: Input should be 'text' or 'json_object'".into(),
    };
    let object = next_format(&request, &refused).expect("json_object next");
    let format = object.response_format.as_ref().unwrap();
    assert_eq!(format["type"], "json_object");
    assert_eq!(format["schema"]["required"], serde_json::json!(["probes"]));
    assert_eq!(object.messages, request.messages);
    let plain = next_format(&object, &refused).expect("no format next");
    assert!(plain.response_format.is_none());
    assert!(next_format(&plain, &refused).is_none());
    let other = ApiError::BadRequest {
        status: 400,
        message: "max_tokens is too large".into(),
    };
    assert!(next_format(&request, &other).is_none());
}

/// The cells a probe run asks, against a table written by hand from the conversation, not
/// computed with `points`, `applies` or `answer_messages`.
///
/// The conversation (the e2e probes test's): five turns "summarise at 2 turns, keep 1", so the
/// archive is, counted from 0, turn t's user message at 2(t-1) and its reply at 2(t-1)+1:
/// turn 1 = 0-1 ("My monthly salary is 4,200 euros."), turn 2 = 2-3 ("My landlord is Mrs
/// Okafor."), turn 3 = 4-5 ("question 3"), turn 4 = 6-7, turn 5 = 8-9. Each completed turn from
/// the second on leaves two verbatim turns, which reaches `max_turns` and folds all but the
/// last one, so:
///
/// | edition | folds   | its request sends verbatim | summary                                 |
/// |---------|---------|----------------------------|-----------------------------------------|
/// | 1       | turn 1  | 2-3 (turn 2)               | "... salary is 4,200 euros."            |
/// | 2       | turn 2  | 4-5 (turn 3)               | "... 4,200 euros ...; landlord ... Okafor." |
/// | 3       | turn 3  | 6-7 (turn 4)               | "The user asked about savings."         |
/// | 4       | turn 4  | 8-9 (turn 5)               | the last summary again                  |
///
/// A probe is asked at an edition once its evidence message is folded (below the first
/// verbatim index) and no verbatim message states it:
/// - salary (message 0): folded from edition 1, never restated: editions 1, 2, 3, 4;
/// - landlord (message 2): still verbatim at edition 1, folded from 2: editions 2, 3, 4;
/// - "What did the user ask third?" (message 5 counted from 1, index 4): verbatim at editions
///   1 and 2, folded from 3: editions 3, 4.
///
/// The answer request holds the fact's words where that edition's summary holds them: the
/// salary at editions 1 and 2, the landlord at edition 2 only.
#[test]
fn the_cells_asked_and_what_each_answer_sees_are_the_hand_worked_table() {
    let scripted = Scripted {
        name: "Probed".into(),
        turn: |t| match t {
            1 => ("My monthly salary is 4,200 euros.".into(), "Noted.".into()),
            2 => ("My landlord is Mrs Okafor.".into(), "Got it.".into()),
            t => (format!("question {t}"), format!("answer {t}")),
        },
        summaries: vec![
            "The user's monthly salary is 4,200 euros.".into(),
            "The user earns 4,200 euros a month; the landlord is Mrs Okafor.".into(),
            "The user asked about savings.".into(),
        ],
        ..Scripted::default()
    };
    let mut session = scripted.play(5);
    session.pinned = vec![
        PinnedFact::phrase("monthly salary", "4,200"),
        PinnedFact::phrase("landlord", "Okafor"),
    ];
    assert_eq!(add_generated(&mut session, &WordCounter), 2);
    let third = user_probe(&session, "What did the user ask third?", 5, "question 3").unwrap();
    session.probes.add(vec![third]);
    let ids: Vec<(u32, &str)> = session
        .probes
        .probes
        .iter()
        .map(|p| (p.id, p.question.as_str()))
        .collect();
    assert_eq!(
        ids,
        [
            (1, "What is the user's monthly salary?"),
            (2, "What is the user's landlord?"),
            (3, "What did the user ask third?"),
        ]
    );

    // Written by hand from the table above: (probe, edition) in probe then edition order.
    const ASKED: [(u32, u32); 9] = [
        (1, 1),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 2),
        (2, 3),
        (2, 4),
        (3, 3),
        (3, 4),
    ];
    // Where the answer request carries the fact's words (the salary's "4,200", the landlord's
    // "Okafor"), again by hand: the salary at editions 1 and 2, the landlord at edition 2.
    const SEES: [(u32, u32); 3] = [(1, 1), (1, 2), (2, 2)];

    let points = points(&session, &WordCounter);
    assert_eq!(session.memory.editions().len(), 4);
    let cells: Vec<(u32, u32)> = cells_to_run(&session, &session.probes, &points, &WordCounter)
        .iter()
        .map(|c| (c.probe, c.cycle))
        .collect();
    assert_eq!(cells, ASKED);
    // The run asks the cells in that order; each answer request's context (all but the
    // question) is looked at for the probe's words.
    let (mut run, mut call) = ProbeRun::start(&session, connected(), &WordCounter);
    let mut set = session.probes.clone();
    let (mut answered, mut seen) = (Vec::new(), Vec::new());
    while let Some(c) = call {
        let text = if c.kind == CallKind::Answer {
            let cell = (c.cell.probe, c.cell.cycle);
            answered.push(cell);
            let words = ["4,200", "Okafor", "question 3"][c.cell.probe as usize - 1];
            let context = &c.request.messages[..c.request.messages.len() - 1];
            if context.iter().any(|m| m.content.contains(words)) {
                seen.push(cell);
            }
            "It is stated."
        } else {
            GRADE
        };
        call = run.answered(c.cell, c.kind, reply(text), &mut set, &WordCounter);
    }
    assert_eq!(answered, ASKED);
    assert_eq!(seen, SEES);
}
