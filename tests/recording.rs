//! The recorded real-model run the app ships (`src/engine/demos/real-135m.json`): it parses,
//! it is what the recorder writes (nobody edited it), it fits the demos it was played from, and
//! the demos "a real 135M model" play its replies and editions. What the model did is asserted
//! through the checks, by structure, never by its words.

use summary_memory::engine::TurnRange;
use summary_memory::engine::checks::{EditionChecks, Verdict, check_edition};
use summary_memory::engine::demo::{
    DemoPlayer, DemoScript, DemoSummariser, shipped, written_sources,
};
use summary_memory::engine::edition::Provenance;
use summary_memory::engine::message::WordCounter;
use summary_memory::engine::recording::{Folds, RECORDING_JSON, Recording, RecordingError};

/// The checks of each edition of a played recorded demo, against the messages archived
/// and folded when it was written.
fn edition_checks(player: &DemoPlayer) -> Vec<EditionChecks> {
    let run = player.script().recording().unwrap();
    let archive: Vec<&str> = player
        .memory()
        .archive()
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    run.editions
        .iter()
        .map(|e| {
            let archived = &archive[..2 * e.after_turn as usize];
            let folded = &archive[..2 * e.folds.map_or(0, |f| f.last) as usize];
            check_edition(&e.text, archived, folded, player.pinned(), 80)
        })
        .collect()
}

#[test]
fn the_shipped_recording_parses_and_matches_the_demos() {
    let recording = Recording::parse(RECORDING_JSON, &written_sources()).unwrap();
    assert!(recording.note.contains("do not edit by hand"));
    assert_eq!(recording.model.quantisation, "Q4_1");
    assert!(
        recording.model.name.contains("135M"),
        "{:?}",
        recording.model
    );
    assert!(recording.model.server.starts_with("llama-cpp-python "));
    assert_eq!(recording.settings.temperature, 0.0);
    let sources: Vec<&str> = recording.runs.iter().map(|r| r.source.as_str()).collect();
    assert_eq!(sources, ["drift", "fincoach"]);
    for run in &recording.runs {
        let demo = DemoScript::from_slug(&run.source).unwrap();
        let users: Vec<&str> = run.turns.iter().map(|t| t.user.as_str()).collect();
        let expect: Vec<&str> = demo.turns.iter().map(|t| t.0).collect();
        assert_eq!(users, expect, "{}", run.source);
        assert!(run.turns.iter().all(|t| !t.reply.trim().is_empty()));
    }
    // Written back, the file is what the recorder writes: nobody edited it by hand.
    assert_eq!(recording.to_json(), RECORDING_JSON);
}

#[test]
fn a_recording_that_does_not_fit_its_demo_is_refused() {
    let good = Recording::parse(RECORDING_JSON, &written_sources()).unwrap();
    let mut bad = good.clone();
    bad.runs[0].turns[1].user.push('!');
    assert!(matches!(
        bad.check(&written_sources()),
        Err(RecordingError::TurnMismatch { turn: 2, .. })
    ));
    let mut bad = good.clone();
    bad.runs[0].turns.pop();
    assert!(bad.check(&written_sources()).is_err());
    let mut bad = good.clone();
    bad.runs[0].source = "nope".into();
    assert_eq!(
        bad.check(&written_sources()),
        Err(RecordingError::UnknownSource("nope".into()))
    );
    let mut bad = good.clone();
    bad.runs[0].editions[0].folds = Some(Folds { first: 2, last: 3 });
    assert!(matches!(
        bad.check(&written_sources()),
        Err(RecordingError::BadEdition { cycle: 1, .. })
    ));
    let mut bad = good.clone();
    bad.runs[0].editions[0].after_turn = 99;
    assert!(bad.check(&written_sources()).is_err());
    let mut bad = good;
    bad.runs[0].editions[1].cycle = 7;
    assert!(bad.check(&written_sources()).is_err());
    assert!(matches!(
        Recording::parse("{\"note\": 1}", &written_sources()),
        Err(RecordingError::Parse(_))
    ));
}

#[test]
fn the_recorded_demos_play_the_models_replies_and_editions() {
    for script in DemoScript::recorded() {
        let run = script.recording().unwrap();
        let mut player =
            DemoPlayer::with_summariser(script.clone(), DemoSummariser::Scripted).unwrap();
        player.play_all(&WordCounter).unwrap();
        let replies: Vec<&str> = player
            .memory()
            .archive()
            .iter()
            .skip(1)
            .step_by(2)
            .map(|m| m.content.as_str())
            .collect();
        let recorded: Vec<&str> = run.turns.iter().map(|t| t.reply.as_str()).collect();
        assert_eq!(replies, recorded, "{}", script.slug);
        // The editions are the recorded ones, at the cycles and folds they were written.
        assert_eq!(player.editions().len(), run.editions.len());
        for (edition, recorded) in player.editions().iter().zip(&run.editions) {
            assert_eq!(edition.summary, recorded.text);
            assert_eq!(edition.folded, recorded.folds.map(TurnRange::from));
            assert_eq!(edition.provenance, Provenance::Model);
            assert_eq!(
                edition.model.as_deref(),
                Some(shipped().model_label().as_str())
            );
            let writer = player.writer(edition.cycle).unwrap();
            assert_eq!(writer.summariser, DemoSummariser::Recorded);
            assert_eq!(writer.summariser.slug(), "model");
        }
        // The extractive baseline over the same recorded replies is a choice too.
        let extractive = player
            .replayed(DemoSummariser::Extractive, &WordCounter)
            .unwrap();
        assert!(
            extractive
                .editions()
                .iter()
                .all(|e| e.provenance == Provenance::Extractive)
        );
    }
}

/// What the model did, read through the checks (structure, not its words): by the second
/// edition of each run the salary of turn 1 is gone, the hard rule of the drift run is
/// never kept as a rule, and the summaries hold figures no message holds.
#[test]
fn the_checks_find_what_the_real_model_lost_and_invented() {
    let played = |script: DemoScript| {
        let mut player = DemoPlayer::with_summariser(script, DemoSummariser::Scripted).unwrap();
        player.play_all(&WordCounter).unwrap();
        player
    };
    let drift = played(DemoScript::real_135m());
    let tracks = drift.fact_tracks();
    let equity = tracks.iter().find(|t| t.label == "never suggest").unwrap();
    assert!(equity.kept.iter().all(|k| !k), "{:?}", equity.kept);
    let checks = edition_checks(&drift);
    assert!(
        checks
            .iter()
            .all(|c| c.rules.iter().all(|r| r.verdict != Verdict::Kept))
    );
    let salary = |player: &DemoPlayer| -> Vec<bool> {
        player
            .editions()
            .iter()
            .map(|e| e.summary.contains("1,20,000"))
            .collect()
    };
    assert!(
        !salary(&drift)[1],
        "the drift run's second edition lost the salary"
    );
    let invented: usize = checks.iter().map(|c| c.unsourced.len()).sum();
    assert!(
        invented > 0,
        "the model's summaries hold figures no message holds"
    );

    let fincoach = played(DemoScript::real_135m_fincoach());
    assert!(salary(&fincoach).iter().all(|held| !held));
    // So the reply at turn 6 cannot give the salary back.
    let last = fincoach.memory().archive().last().unwrap();
    assert!(!last.content.contains("1,20,000"));
}
