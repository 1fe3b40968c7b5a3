use super::judge::Judgement;
use super::*;
use crate::engine::edition::Provenance;
use crate::engine::facts::PinnedFact;
use crate::engine::library_session::{
    Evidence, Grade, Probe, ProbeResult, ProbeSet, ProbeSource, Session, SessionSettings,
};
use crate::engine::memory::{CommitMeta, MemoryState};
use crate::engine::message::{ChatMessage, Message, Role, WordCounter};
use crate::engine::policy::{Placement, Policy, Trigger};
use crate::engine::session::{export, import};

/// Turn `t`'s user message and reply: turn 1 states the salary and a rule, turn 2 a budget.
fn turn(t: u64) -> (String, String) {
    match t {
        1 => (
            "My monthly salary is 4,200 euros. Never suggest crypto to me.".into(),
            "Noted: 4,200 a month, and no crypto.".into(),
        ),
        2 => (
            "I spend 900 on rent.".into(),
            "Rent of 900 leaves room to save.".into(),
        ),
        t => (
            format!("Question {t} about savings."),
            format!("Answer {t}."),
        ),
    }
}

/// Plays `turns` turns under "summarise at 4 turns, keep 2" with the summary placed as a user
/// message, committing "Summary k." at each fold, and records every chat request the way the
/// live chat builds it (`MemoryState::request` once the user's message is in).
fn played(turns: u64) -> (Session, Vec<Vec<ChatMessage>>) {
    let mut policy = Policy::new(Trigger::Turns {
        max_turns: 4,
        keep: 2,
    })
    .unwrap();
    policy.placement = Placement::UserAck;
    let mut memory = MemoryState::new("You are FinCoach.", policy).unwrap();
    let mut sent = Vec::new();
    let mut k = 0;
    for t in 1..=turns {
        let (question, reply) = turn(t);
        memory
            .add_message(Message::new(Role::User, question, &WordCounter, t))
            .unwrap();
        sent.push(
            memory
                .request(&WordCounter)
                .iter()
                .map(ChatMessage::from)
                .collect(),
        );
        let mut job = memory
            .add_message(Message::new(Role::Assistant, reply, &WordCounter, t))
            .unwrap();
        while let Some(current) = job {
            k += 1;
            let meta = CommitMeta {
                model: Some("test-summary".into()),
                provenance: Provenance::Model,
                at_ms: t,
            };
            job = memory
                .commit(current.id, &format!("Summary {k}."), meta, &WordCounter)
                .unwrap();
        }
    }
    let mut session = Session::new("FinCoach", SessionSettings::default(), memory);
    session.pinned = vec![PinnedFact::phrase("monthly salary", "4,200")];
    (session, sent)
}

#[test]
fn the_answer_request_is_the_chat_request_of_that_point_with_the_question_last() {
    let (session, sent) = played(10);
    let editions = session.memory.editions().len();
    assert_eq!(editions, 4, "folds after turns 4, 6, 8 and 10");
    let points = points(&session, &WordCounter);
    assert_eq!(points.len(), editions);
    // Edition k committed after turn 2k + 2's reply; the chat's next request is turn 2k + 3's
    // (`sent[2k + 2]`).
    for (k, point) in points.iter().enumerate().take(editions - 1) {
        assert_eq!(point.cycle, k as u32 + 1);
        let question = "What is the user's monthly salary?";
        let asked = answer_messages(point, question, &WordCounter);
        let real = &sent[2 * k + 4];
        assert_eq!(asked.len(), real.len(), "edition {}", k + 1);
        assert_eq!(asked[..asked.len() - 1], real[..real.len() - 1]);
        assert_eq!(real.last().unwrap().role, Role::User);
        let last = asked.last().unwrap();
        assert_eq!(last.role, Role::User);
        assert_eq!(last.content, format!("{ANSWER_LEAD}{question}"));
        assert!(
            asked
                .iter()
                .any(|m| m.content.contains(&format!("Summary {}.", k + 1))),
            "the summary of edition {} at its placement: {asked:?}",
            k + 1
        );
    }
}

#[test]
fn an_imported_tools_editions_get_the_request_before_its_next_compaction() {
    let (mut session, _) = played(10);
    // Under a policy that never folds by itself, the replay reaches no edition.
    let policy = Policy::new(Trigger::Manual { keep: 0 }).unwrap();
    let memory = &session.memory;
    session.memory = MemoryState::from_parts(
        memory.system_prompt().to_owned(),
        policy,
        memory.archive().to_vec(),
        memory.editions().to_vec(),
        Vec::new(),
        &WordCounter,
    );
    let points = points(&session, &WordCounter);
    assert_eq!(points.len(), 4);
    // Edition 1 folded turns 1-2; edition 2 folds up to turn 4: the point of edition 1 sends
    // turn 3 word for word and stands where turn 4 was asked.
    assert_eq!(points[0].verbatim_from(), 4);
    assert_eq!(points[0].memory.archive().len(), 6);
    assert_eq!(points[0].memory.summary(), Some("Summary 1."));
    // The last edition's point is the whole archive.
    assert_eq!(points[3].memory.archive().len(), 20);
}

#[test]
fn probes_come_from_pinned_facts_and_rule_sentences_with_their_evidence() {
    let (session, _) = played(10);
    let points = points(&session, &WordCounter);
    let probes = generate(&session, &points, &WordCounter);
    assert_eq!(probes.len(), 2, "{probes:?}");
    assert_eq!(probes[0].question, "What is the user's monthly salary?");
    assert_eq!(probes[0].source, ProbeSource::Fact("monthly salary".into()));
    assert_eq!(probes[0].evidence.message, 0);
    assert_eq!(
        probes[0].evidence.quote,
        "My monthly salary is 4,200 euros."
    );
    assert_eq!(probes[1].source, ProbeSource::Rule);
    assert_eq!(probes[1].evidence.quote, "Never suggest crypto to me.");
    assert_eq!(probes[1].question, "What rule was set about crypto?");
    // Both are asked at every edition: turn 1 is folded from the first.
    for point in &points {
        assert!(
            probes
                .iter()
                .all(|p| applies(p, point, &session.pinned, &WordCounter))
        );
    }
}

#[test]
fn a_probe_whose_answer_the_verbatim_turns_still_hold_is_not_asked_there() {
    let (mut session, _) = played(10);
    // Turn 5 says the salary again: editions whose request still sends turn 5 word for word
    // do not ask for it.
    let points_before = points(&session, &WordCounter);
    let probes = generate(&session, &points_before, &WordCounter);
    let mut archive = session.memory.archive().to_vec();
    archive[8] = Message::new(
        Role::User,
        "Reminder: my monthly salary is 4,200 euros.",
        &WordCounter,
        5,
    );
    session.memory = MemoryState::from_parts(
        session.memory.system_prompt().to_owned(),
        session.memory.policy().clone(),
        archive,
        session.memory.editions().to_vec(),
        Vec::new(),
        &WordCounter,
    );
    let points = points(&session, &WordCounter);
    let salary = &probes[0];
    // Edition 1 (turns 3 and 4 verbatim) asks; edition 2 sends turns 5 and 6: not asked.
    assert!(applies(salary, &points[0], &session.pinned, &WordCounter));
    assert!(!applies(salary, &points[1], &session.pinned, &WordCounter));
    assert!(applies(salary, &points[2], &session.pinned, &WordCounter));
    // A session with no editions has no probes.
    let (short, _) = played(3);
    assert!(generate(&short, &points_of(&short), &WordCounter).is_empty());
}

fn points_of(session: &Session) -> Vec<Point> {
    points(session, &WordCounter)
}

fn salary_probe() -> Probe {
    Probe {
        id: 1,
        question: "What is the user's monthly salary?".into(),
        evidence: Evidence {
            message: 0,
            quote: "My monthly salary is 4,200 euros.".into(),
        },
        source: ProbeSource::Fact("monthly salary".into()),
    }
}

#[test]
fn the_judges_grade_is_read_strictly() {
    let probe = salary_probe();
    let archive = ["My monthly salary is 4,200 euros. Never suggest crypto to me."];
    let ok = parse_grade(
        r#"{"grade": "correct", "evidence": "monthly salary is 4,200 euros"}"#,
        &probe,
        &archive,
    );
    assert_eq!(
        ok,
        Ok(Judgement {
            grade: Grade::Correct,
            evidence: "monthly salary is 4,200 euros".into()
        })
    );
    let fenced =
        "```json\n{\"grade\": \"partly\", \"evidence\": \"Never suggest crypto to me.\"}\n```";
    assert_eq!(
        parse_grade(fenced, &probe, &archive).unwrap().grade,
        Grade::Partly
    );
    let bad = [
        ("The answer is correct.", "not JSON"),
        (r#"["correct"]"#, "not a JSON object"),
        (
            r#"{"grade": "right", "evidence": "4,200 euros"}"#,
            "\"right\" is not one of",
        ),
        (r#"{"evidence": "4,200 euros"}"#, "no \"grade\""),
        (r#"{"grade": "wrong"}"#, "no \"evidence\""),
        (r#"{"grade": 1, "evidence": "4,200 euros"}"#, "no \"grade\""),
        (
            r#"{"grade": "wrong", "evidence": "5,000 dollars"}"#,
            "not quoted from the archive",
        ),
        (r#"{"grade": "wrong", "evidence": ""}"#, "not quoted"),
        (
            r#"{"grade": "wrong", "evidence": "4,200 euros", "reason": "x"}"#,
            "field \"reason\"",
        ),
        (
            "{\"grade\": \"correct\", \"evidence\": \"4,200\"} and more",
            "not JSON",
        ),
    ];
    for (reply, says) in bad {
        let error = parse_grade(reply, &probe, &archive)
            .unwrap_err()
            .to_string();
        assert!(error.contains(says), "{reply}: {error}");
    }
}

#[test]
fn the_judge_request_holds_the_prompt_question_evidence_and_answer() {
    let probe = salary_probe();
    let messages = judge_messages("Grade it.", &probe, "4,200 a month.");
    assert_eq!(messages[0].role, Role::System);
    assert_eq!(messages[0].content, "Grade it.");
    let user = &messages[1].content;
    assert!(
        user.contains("Question: What is the user's monthly salary?"),
        "{user}"
    );
    assert!(
        user.contains("(message 1): \"My monthly salary is 4,200 euros.\""),
        "{user}"
    );
    assert!(user.ends_with("Answer to grade: 4,200 a month."), "{user}");
    let format = judge_response_format();
    assert_eq!(format["type"], "json_schema");
    assert_eq!(
        format["json_schema"]["schema"]["properties"]["grade"]["enum"],
        serde_json::json!(["correct", "partly", "wrong", "unanswerable"])
    );
}

#[test]
fn the_score_counts_correct_as_one_and_partly_as_a_half() {
    let mut set = ProbeSet::default();
    set.add([
        salary_probe(),
        Probe {
            question: "Second?".into(),
            ..salary_probe()
        },
    ]);
    assert_eq!(set.probes.iter().map(|p| p.id).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(set.score(1), None);
    for (probe, grade) in [(1, Grade::Correct), (2, Grade::Partly)] {
        set.record(ProbeResult {
            probe,
            cycle: 1,
            answer: "a".into(),
            grade,
            evidence: "e".into(),
        });
    }
    assert_eq!(set.score(1), Some(0.75));
    set.edit(2, "Changed?");
    assert_eq!(set.score(1), Some(1.0), "an edited probe's grade goes");
    set.remove(1);
    assert_eq!(set.score(1), None);
    assert_eq!(
        set.add([Probe {
            question: " changed? ".into(),
            ..salary_probe()
        }]),
        0
    );
}

#[test]
fn model_written_probes_are_read_strictly() {
    let folded = [
        (0, Role::User, "My monthly salary is 4,200 euros."),
        (1, Role::Assistant, "Noted."),
    ];
    let good = r#"{"probes": [{"question": "What is the salary?", "message": 1, "quote": "salary is 4,200 euros"}]}"#;
    let probes = writer::parse_probes(good, &folded).unwrap();
    assert_eq!(probes[0].evidence.message, 0);
    assert_eq!(probes[0].source, ProbeSource::Model);
    for (reply, says) in [
        ("Here are some questions", "not JSON"),
        (r#"{"probes": []}"#, "no probes"),
        (r#"{"questions": []}"#, "\"probes\" list"),
        (
            r#"{"probes": [{"question": "Q?", "message": 9, "quote": "x"}]}"#,
            "message 9",
        ),
        (
            r#"{"probes": [{"question": "Q?", "message": 2, "quote": "salary"}]}"#,
            "does not hold",
        ),
        (
            r#"{"probes": [{"question": "Q?", "message": 1}]}"#,
            "probe 1",
        ),
    ] {
        let error = writer::parse_probes(reply, &folded)
            .unwrap_err()
            .to_string();
        assert!(error.contains(says), "{reply}: {error}");
    }
}

#[test]
fn version_5_round_trips_probes_and_grades() {
    let (mut session, _) = played(10);
    let points = points(&session, &WordCounter);
    let generated = generate(&session, &points, &WordCounter);
    session.probes.add(generated);
    session.probes.judge_prompt = "Grade strictly.".into();
    session.probes.answer_model = "test-chat".into();
    session.probes.judge_model = "test-judge".into();
    session.probes.record(ProbeResult {
        probe: 2,
        cycle: 3,
        answer: "Not stated.".into(),
        grade: Grade::Unanswerable,
        evidence: "Never suggest crypto to me.".into(),
    });
    let text = export(&session, 7, "0.1.0");
    assert!(text.contains("\"version\": 6"), "{text}");
    let back = import(text.as_bytes(), &WordCounter).unwrap();
    assert_eq!(back.probes, session.probes);
    // No probes: nothing written.
    let (plain, _) = played(10);
    assert!(!export(&plain, 7, "0.1.0").contains("\"probes\""));
}

#[test]
fn a_version_4_file_reads_as_having_no_probes_and_a_bad_probe_is_named() {
    let (session, _) = played(10);
    let mut value: serde_json::Value = serde_json::from_str(&export(&session, 7, "0.1.0")).unwrap();
    value["version"] = 4.into();
    let back = import(value.to_string().as_bytes(), &WordCounter).unwrap();
    assert_eq!(back.probes, ProbeSet::default());
    assert_eq!(back.memory.archive(), session.memory.archive());
    assert_eq!(back.memory.editions(), session.memory.editions());

    value["version"] = 5.into();
    value["session"]["probes"] = serde_json::json!({
        "probes": [{"id": 1, "question": "Q?", "source": "rule", "message": 99, "quote": "x"}],
        "judge_prompt": "J", "writer_prompt": "W"
    });
    let error = import(value.to_string().as_bytes(), &WordCounter)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("session.probes.probes[0].message"),
        "{error}"
    );
    value["session"]["probes"]["probes"][0]["message"] = 0.into();
    value["session"]["probes"]["results"] = serde_json::json!([
        {"probe": 1, "cycle": 1, "answer": "a", "grade": "great", "evidence": "e"}
    ]);
    let error = import(value.to_string().as_bytes(), &WordCounter)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("results[0].grade") && error.contains("great"),
        "{error}"
    );
}
