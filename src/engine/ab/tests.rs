use super::*;
use crate::engine::edition::Compactor;
use crate::engine::memory::JobKind;
use crate::engine::message::WordCounter;
use crate::engine::prompts::PresetId;
use crate::engine::run::RunStatus;
use crate::engine::session::fixture::verbatim;
use crate::engine::session::{export, import, read, synthetic};

const CLAUDE_CODE: &str =
    include_str!("../../../tests/fixtures/transcripts/claude_code_session.jsonl");

fn model(name: &str, word_limit: u32) -> SideSpec {
    let mut prompt = PromptSpec::from_preset(PresetId::Generic);
    prompt.word_limit = word_limit;
    SideSpec::Model(ModelSide {
        model: name.to_owned(),
        prompt,
        format: SummaryFormat::Prose,
    })
}

fn folded_turns(job: &SummaryJob) -> TurnRange {
    match job.kind {
        JobKind::Fold { turns, .. } => turns,
        JobKind::Compress { .. } => panic!("a comparison never compresses"),
    }
}

/// Runs to the end, each side's summary naming its model and the turns it folded. Returns the
/// jobs in the order they were asked.
fn run_all(run: &mut AbRun, mut job: Option<AbJob>) -> Vec<AbJob> {
    let mut asked = Vec::new();
    while let Some(j) = job {
        let turns = folded_turns(&j.job);
        let text = format!(
            "{} folded turns {} to {}.",
            j.model, turns.first, turns.last
        );
        asked.push(j.clone());
        job = run
            .answered(j.job.id, Ok(text), SummaryCost::default(), &WordCounter)
            .unwrap();
    }
    asked
}

fn folds_of(session: &Session) -> Vec<Option<TurnRange>> {
    session.memory.editions().iter().map(|e| e.folded).collect()
}

#[test]
fn both_sides_fold_the_same_turns_as_the_sessions_own_editions() {
    let session = synthetic(20);
    let recorded = folds_of(&session);
    assert!(recorded.len() >= 2, "the fixture folds more than once");
    let policy = session.memory.policy().clone();
    // Two very different word limits: the folds stay where the session's were.
    let (mut run, job) = AbRun::start(
        &session,
        &policy,
        model("alpha", 20),
        model("beta", 300),
        "pair-1",
        &WordCounter,
    )
    .unwrap();
    assert_eq!(run.plan().source, FoldSource::Editions);
    assert_eq!(run.progress().total, Some(2 * recorded.len() as u64));
    let asked = run_all(&mut run, job);
    // Cycle by cycle, A then B, each on the same turns and the same folded messages.
    for pair in asked.chunks(2) {
        let [a, b] = pair else { panic!("two sides") };
        assert_eq!((a.side, b.side), (PairSide::A, PairSide::B));
        assert_eq!((a.model.as_str(), b.model.as_str()), ("alpha", "beta"));
        assert_eq!(folded_turns(&a.job), folded_turns(&b.job));
        assert_eq!(a.job.kind, b.job.kind, "the same archive messages");
        assert_eq!(a.job.word_limit, 20);
        assert_eq!(b.job.word_limit, 300);
    }
    let [sa, sb] = run.finished().expect("done");
    assert_eq!(folds_of(&sa), recorded);
    assert_eq!(folds_of(&sb), recorded);
    assert_eq!(sa.memory.archive(), session.memory.archive());
    assert_eq!(sb.memory.archive().len(), session.memory.archive().len());
    assert!(sa.memory.editions()[0].summary.starts_with("alpha"));
    assert!(sb.memory.editions()[0].summary.starts_with("beta"));
    assert_eq!(sb.memory.editions()[0].model.as_deref(), Some("beta"));
    assert_eq!(sb.settings.summary_model, "beta");
    // Linked: the same id, each its side and configuration, the source named.
    let (la, lb) = (sa.pair.clone().unwrap(), sb.pair.clone().unwrap());
    assert_eq!((la.id.as_str(), lb.id.as_str()), ("pair-1", "pair-1"));
    assert_eq!((la.side, lb.side), (PairSide::A, PairSide::B));
    assert_eq!(la.source, session.name);
    assert_eq!(
        lb.config,
        SideConfig::Model {
            model: "beta".into(),
            preset: PresetId::Generic,
            word_limit: 300,
            format: SummaryFormat::Prose
        }
    );
    // Paired by cycle, each row the same turns on both sides.
    let rows = pair_rows(sa.memory.editions(), sb.memory.editions());
    assert_eq!(rows.len(), recorded.len());
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.cycle, i as u32 + 1);
        assert_eq!((row.a, row.b), (Some(i), Some(i)));
        assert_eq!(row.folded, recorded[i]);
    }
}

#[test]
fn a_tools_own_compactions_are_side_a_against_the_users_summariser_on_the_same_folds() {
    let session = read(CLAUDE_CODE.as_bytes(), &WordCounter)
        .unwrap()
        .sessions
        .remove(0);
    let policy = session.memory.policy().clone();
    let (mut run, job) = AbRun::start(
        &session,
        &policy,
        SideSpec::Recorded,
        model("mine", 120),
        "pair-cc",
        &WordCounter,
    )
    .unwrap();
    // Claude Code's first compaction folded turns 1 and 2; its second fell inside turn 3 and
    // folded no whole turn, so side B has one fold to write.
    assert_eq!(
        run.plan().folds,
        [TurnRange { first: 1, last: 2 }],
        "{:?}",
        run.plan()
    );
    assert_eq!(run.progress().total, Some(1));
    let asked = run_all(&mut run, job);
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].side, PairSide::B);
    assert_eq!(folded_turns(&asked[0].job), TurnRange { first: 1, last: 2 });
    let [sa, sb] = run.finished().unwrap();
    // Side A is the tool's summaries as recorded.
    assert_eq!(sa.memory.editions(), session.memory.editions());
    assert!(
        sa.memory
            .editions()
            .iter()
            .all(|e| e.provenance == Provenance::Tool(Compactor::ClaudeCode))
    );
    assert_eq!(
        sa.pair.as_ref().unwrap().config,
        SideConfig::Recorded {
            summariser: "claude-code".into()
        }
    );
    assert!(sa.name.contains("Claude Code"), "{}", sa.name);
    let rows = pair_rows(sa.memory.editions(), sb.memory.editions());
    assert_eq!(
        rows,
        [
            PairRow {
                cycle: 1,
                folded: Some(TurnRange { first: 1, last: 2 }),
                a: Some(0),
                b: Some(0)
            },
            PairRow {
                cycle: 2,
                folded: None,
                a: Some(1),
                b: None
            },
        ]
    );
}

#[test]
fn a_failed_summary_commits_nothing_and_go_on_asks_the_same_one_until_both_sides_are_done() {
    let session = synthetic(20);
    let policy = session.memory.policy().clone();
    let (mut run, job) = AbRun::start(
        &session,
        &policy,
        model("alpha", 80),
        model("beta", 80),
        "p",
        &WordCounter,
    )
    .unwrap();
    let first = job.unwrap();
    let second = run
        .answered(
            first.job.id,
            Ok("A one.".into()),
            SummaryCost::default(),
            &WordCounter,
        )
        .unwrap()
        .unwrap();
    assert_eq!(second.side, PairSide::B);
    let before = run.sides();
    let failed = run
        .answered(
            second.job.id,
            Err("HTTP 500".into()),
            SummaryCost::default(),
            &WordCounter,
        )
        .unwrap();
    assert_eq!(failed, None);
    assert_eq!(run.status(), &RunStatus::Failed("HTTP 500".into()));
    assert_eq!(
        run.sides()[1].memory.editions(),
        before[1].memory.editions()
    );
    assert_eq!(run.progress().done, 1);
    assert!(
        run.finished().is_none(),
        "nothing is a result before the end"
    );
    // An empty answer fails the same way.
    let again = run.resume().unwrap();
    assert_eq!(again, second);
    assert_eq!(
        run.answered(
            again.job.id,
            Ok("  ".into()),
            SummaryCost::default(),
            &WordCounter
        )
        .unwrap(),
        None
    );
    assert!(matches!(run.status(), RunStatus::Failed(_)));
    // Stopped: a late answer is not committed.
    let again = run.resume().unwrap();
    run.stop();
    assert_eq!(
        run.answered(
            again.job.id,
            Ok("late".into()),
            SummaryCost::default(),
            &WordCounter
        )
        .unwrap(),
        None
    );
    assert_eq!(run.progress().done, 1);
    let again = run.resume().unwrap();
    assert_eq!(again, second);
    let rest = run_all(&mut run, Some(again));
    let [sa, sb] = run.finished().expect("done after Go on");
    assert_eq!(sa.memory.editions().len(), sb.memory.editions().len());
    assert_eq!(Some(rest.len() as u64 + 1), run.progress().total);
    assert_eq!(run.resume(), None, "not waiting");
}

#[test]
fn a_session_with_no_editions_folds_where_its_policy_would_and_cannot_offer_recorded_ones() {
    let session = verbatim(12);
    assert!(session.memory.editions().is_empty());
    let policy = Policy::new(Trigger::Turns {
        max_turns: 4,
        keep: 2,
    })
    .unwrap();
    let plan = fold_plan(&session, &policy, &WordCounter).unwrap();
    assert_eq!(plan.source, FoldSource::Policy);
    let expected = replay_offline(&session, policy.clone(), &WordCounter, "x").unwrap();
    assert_eq!(
        plan.folds.iter().map(|r| Some(*r)).collect::<Vec<_>>(),
        folds_of(&expected)
    );
    let e = AbRun::start(
        &session,
        &policy,
        SideSpec::Recorded,
        model("b", 80),
        "p",
        &WordCounter,
    )
    .unwrap_err();
    assert_eq!(e, AbError::NothingRecorded("A"));
    assert!(e.to_string().contains("choose a summariser"), "{e}");
    assert_eq!(
        AbRun::start(
            &session,
            &policy,
            model("a", 80),
            model(" ", 80),
            "p",
            &WordCounter
        )
        .unwrap_err(),
        AbError::NoModel("B")
    );
}

#[test]
fn the_estimate_counts_the_calls_of_both_sides_and_structured_memory_estimates_too() {
    let session = synthetic(20);
    let policy = session.memory.policy().clone();
    let folds = normalised(session.memory.editions()).len() as u32;
    let (est, plan) = estimate(
        &session,
        &policy,
        model("a", 80),
        model("b", 80),
        &WordCounter,
        Some(100),
    )
    .unwrap();
    assert_eq!(plan.folds.len() as u32, folds);
    assert_eq!(est.calls, 2 * folds);
    assert!(est.tokens_sent > 0);
    assert_eq!(est.received_at_most, Some(100 * u64::from(2 * folds)));
    let SideSpec::Model(mut structured) = model("s", 80) else {
        unreachable!()
    };
    structured.format = SummaryFormat::Structured;
    let (one, _) = estimate(
        &session,
        &policy,
        SideSpec::Recorded,
        SideSpec::Model(structured),
        &WordCounter,
        None,
    )
    .unwrap();
    assert_eq!(one.calls, folds, "the recorded side asks nothing");
}

#[test]
fn a_pair_survives_export_and_import_and_a_version_4_file_reads_with_none() {
    let session = synthetic(20);
    let policy = session.memory.policy().clone();
    let (mut run, job) = AbRun::start(
        &session,
        &policy,
        SideSpec::Recorded,
        model("beta", 60),
        "pair-x",
        &WordCounter,
    )
    .unwrap();
    run_all(&mut run, job);
    for side in run.finished().unwrap() {
        let file = export(&side, 1, "test");
        let back = import(file.as_bytes(), &WordCounter).unwrap();
        assert_eq!(back.pair, side.pair);
        assert_eq!(back.memory.editions(), side.memory.editions());
    }
    // Version 4 had no pair: a file of it reads as none.
    let plain = export(&session, 1, "test");
    let mut value: serde_json::Value = serde_json::from_str(&plain).unwrap();
    assert_eq!(value["version"], crate::engine::session::VERSION);
    assert!(value["session"].get("pair").is_none(), "absent when none");
    value["version"] = 4.into();
    let old = import(value.to_string().as_bytes(), &WordCounter).unwrap();
    assert_eq!(old.pair, None);
    // A malformed pair is refused, naming the field.
    let [_, b] = run.finished().unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&export(&b, 1, "t")).unwrap();
    value["session"]["pair"]["side"] = "c".into();
    let e = import(value.to_string().as_bytes(), &WordCounter)
        .unwrap_err()
        .to_string();
    assert!(e.contains("session.pair.side"), "{e}");
    value["session"]["pair"]["side"] = "b".into();
    value["session"]["pair"]["preset"] = "nonsense".into();
    let e = import(value.to_string().as_bytes(), &WordCounter)
        .unwrap_err()
        .to_string();
    assert!(e.contains("session.pair.preset"), "{e}");
}

#[test]
fn a_side_with_probes_keeps_both_its_pair_and_its_grades_through_export_and_import() {
    use crate::engine::library_session::{Evidence, Grade, Probe, ProbeResult, ProbeSource};
    let session = synthetic(20);
    let policy = session.memory.policy().clone();
    let (mut run, job) = AbRun::start(
        &session,
        &policy,
        model("alpha", 40),
        model("beta", 60),
        "pair-both",
        &WordCounter,
    )
    .unwrap();
    run_all(&mut run, job);
    let [_, mut b] = run.finished().unwrap();
    let quote = b.memory.archive()[0].content.clone();
    b.probes.add([Probe {
        id: 0,
        question: "What did the user say first?".into(),
        evidence: Evidence { message: 0, quote },
        source: ProbeSource::User,
    }]);
    b.probes.record(ProbeResult {
        probe: 1,
        cycle: 1,
        answer: "beta's answer".into(),
        grade: Grade::Partly,
        evidence: "quoted".into(),
    });
    let back = import(export(&b, 1, "test").as_bytes(), &WordCounter).unwrap();
    assert!(back.pair.is_some());
    assert_eq!(back.pair, b.pair);
    assert_eq!(back.probes, b.probes);
    assert_eq!(back.probes.results.len(), 1);
}
