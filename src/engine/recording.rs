//! The recorded real-model run behind the demos "a real 135M model": the drift conversation's
//! user messages and the FinCoach six turns, played once through SmolLM2-135M-Instruct behind
//! llama-cpp-python's server at temperature 0, with its chat replies and the summaries it wrote
//! when the engine asked for them.
//!
//! `examples/record_real_model.rs` (run by `scripts/record-real-model.sh`, by hand) writes
//! `demos/real-135m.json` with these types; the app embeds that file and plays it offline, so
//! the replies and editions are the model's own, with nothing scripted. Nobody edits the file by
//! hand: running the script again replaces it.
//!
//! [`Recording::check`] holds a recording to what the demo player needs: each run's user
//! messages are its source demo's, word for word, and each edition folds turns that exist and
//! was written after them.

use serde::{Deserialize, Serialize};

use super::demo::DemoScript;
use super::edition::TurnRange;

/// The file the app ships, written by `scripts/record-real-model.sh`.
pub const RECORDING_JSON: &str = include_str!("demos/real-135m.json");

/// A whole recording: the model, the settings, one run per source demo.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    /// Where the file comes from, for whoever opens it: written by the recorder, never by hand.
    pub note: String,
    /// The UTC time the run was recorded, as the recorder's shell printed it.
    pub recorded_at: String,
    pub model: RecordedModel,
    pub settings: RecordedSettings,
    pub runs: Vec<RecordedRun>,
}

/// Which model and server answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedModel {
    /// E.g. `SmolLM2-135M-Instruct`.
    pub name: String,
    /// E.g. `Q4_1`, read from the GGUF file's name.
    pub quantisation: String,
    /// The GGUF file's name.
    pub file: String,
    /// E.g. `llama-cpp-python 0.3.36`.
    pub server: String,
}

/// The generation settings every call of the run used.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedSettings {
    pub temperature: f64,
    pub seed: u64,
    /// `max_tokens` of a chat reply.
    pub chat_max_tokens: u32,
    /// `max_tokens` of a summariser call.
    pub summary_max_tokens: u32,
    /// The server's context window (`--n_ctx`).
    pub n_ctx: u32,
    /// The server's threads (`--n_threads`).
    pub n_threads: u32,
}

/// One conversation played through the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedRun {
    /// The slug of the bundled demo whose user messages and policy were played.
    pub source: String,
    pub turns: Vec<RecordedTurn>,
    pub editions: Vec<RecordedEdition>,
}

/// One turn: the user's message as sent and the model's reply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedTurn {
    pub user: String,
    pub reply: String,
    pub finish_reason: Option<String>,
    pub completion_tokens: Option<u32>,
}

/// One summary the model wrote, as the engine committed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedEdition {
    pub cycle: u32,
    /// The turn whose reply triggered the cycle.
    pub after_turn: u32,
    /// The turns it folded; `None` for a compression.
    pub folds: Option<Folds>,
    pub text: String,
    pub finish_reason: Option<String>,
    pub completion_tokens: Option<u32>,
}

/// The turns an edition folded, counted from 1, both ends included (the file's form of
/// [`TurnRange`], which the engine keeps free of serde).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Folds {
    pub first: u32,
    pub last: u32,
}

impl From<TurnRange> for Folds {
    fn from(range: TurnRange) -> Folds {
        Folds {
            first: range.first,
            last: range.last,
        }
    }
}

impl From<Folds> for TurnRange {
    fn from(folds: Folds) -> TurnRange {
        TurnRange {
            first: folds.first,
            last: folds.last,
        }
    }
}

/// Why a recording cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordingError {
    /// The file is not a recording.
    #[error("the recording is not valid JSON of the expected shape: {0}")]
    Parse(String),
    /// A run names a demo that is not bundled.
    #[error("run {0} names no bundled demo")]
    UnknownSource(String),
    /// A run's user messages are not its demo's.
    #[error("run {run} turn {turn}: the user message is not the demo's")]
    TurnMismatch { run: String, turn: usize },
    /// An edition is out of order or folds turns the run does not have.
    #[error("run {run} edition {cycle}: {why}")]
    BadEdition {
        run: String,
        cycle: u32,
        why: &'static str,
    },
}

impl Recording {
    /// Parses a recording and checks it (see [`Recording::check`]).
    pub fn parse(text: &str) -> Result<Recording, RecordingError> {
        let recording: Recording =
            serde_json::from_str(text).map_err(|e| RecordingError::Parse(e.to_string()))?;
        recording.check()?;
        Ok(recording)
    }

    /// The recording as the file holds it: pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a recording serialises");
        text.push('\n');
        text
    }

    /// Each run's user messages are its source demo's in order and number; editions are
    /// numbered from 1, each written after the turns it folds, the folds consecutive and within
    /// the run.
    pub fn check(&self) -> Result<(), RecordingError> {
        for run in &self.runs {
            // Only the written demos: a recorded one is built from this recording.
            let source = DemoScript::all()
                .into_iter()
                .find(|d| d.slug == run.source)
                .ok_or_else(|| RecordingError::UnknownSource(run.source.clone()))?;
            let mismatch = |turn| RecordingError::TurnMismatch {
                run: run.source.clone(),
                turn,
            };
            if run.turns.len() != source.turns.len() {
                return Err(mismatch(run.turns.len().min(source.turns.len()) + 1));
            }
            for (i, (turn, (user, _))) in run.turns.iter().zip(&source.turns).enumerate() {
                if turn.user != *user {
                    return Err(mismatch(i + 1));
                }
            }
            let mut folded_to = 0;
            for (i, edition) in run.editions.iter().enumerate() {
                let bad = |why| RecordingError::BadEdition {
                    run: run.source.clone(),
                    cycle: edition.cycle,
                    why,
                };
                if edition.cycle != i as u32 + 1 {
                    return Err(bad("cycles are not numbered 1, 2, 3…"));
                }
                if edition.after_turn == 0 || edition.after_turn as usize > run.turns.len() {
                    return Err(bad("written after a turn the run does not have"));
                }
                if edition.text.trim().is_empty() {
                    return Err(bad("the text is empty"));
                }
                if let Some(folds) = edition.folds {
                    if folds.first != folded_to + 1 || folds.last < folds.first {
                        return Err(bad("folds turns out of order"));
                    }
                    if folds.last > edition.after_turn {
                        return Err(bad("folds a turn not yet answered"));
                    }
                    folded_to = folds.last;
                }
            }
        }
        Ok(())
    }

    /// The run played from the demo with this slug.
    pub fn run(&self, source: &str) -> Option<&RecordedRun> {
        self.runs.iter().find(|r| r.source == source)
    }

    /// E.g. "SmolLM2-135M-Instruct (Q4_1, llama-cpp-python 0.3.36, temperature 0)": what an
    /// edition the model wrote names as its model.
    pub fn model_label(&self) -> String {
        format!(
            "{} ({}, {}, temperature {})",
            self.model.name, self.model.quantisation, self.model.server, self.settings.temperature
        )
    }
}

/// The recording the app ships, parsed once. The file is checked by a native test, so a
/// failure here means the build embedded a file that test rejects.
pub fn shipped() -> &'static Recording {
    static SHIPPED: std::sync::LazyLock<Recording> = std::sync::LazyLock::new(|| {
        Recording::parse(RECORDING_JSON).expect("the shipped recording is checked by its tests")
    });
    &SHIPPED
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::checks::Verdict;
    use crate::engine::demo::{DemoPlayer, DemoSummariser};
    use crate::engine::edition::Provenance;
    use crate::engine::message::WordCounter;
    use crate::engine::checks::{EditionChecks, check_edition};

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
        let recording = Recording::parse(RECORDING_JSON).unwrap();
        assert!(recording.note.contains("do not edit by hand"));
        assert_eq!(recording.model.quantisation, "Q4_1");
        assert!(recording.model.name.contains("135M"), "{:?}", recording.model);
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
        let good = Recording::parse(RECORDING_JSON).unwrap();
        let mut bad = good.clone();
        bad.runs[0].turns[1].user.push('!');
        assert!(matches!(
            bad.check(),
            Err(RecordingError::TurnMismatch { turn: 2, .. })
        ));
        let mut bad = good.clone();
        bad.runs[0].turns.pop();
        assert!(bad.check().is_err());
        let mut bad = good.clone();
        bad.runs[0].source = "nope".into();
        assert_eq!(bad.check(), Err(RecordingError::UnknownSource("nope".into())));
        let mut bad = good.clone();
        bad.runs[0].editions[0].folds = Some(Folds { first: 2, last: 3 });
        assert!(matches!(bad.check(), Err(RecordingError::BadEdition { cycle: 1, .. })));
        let mut bad = good.clone();
        bad.runs[0].editions[0].after_turn = 99;
        assert!(bad.check().is_err());
        let mut bad = good;
        bad.runs[0].editions[1].cycle = 7;
        assert!(bad.check().is_err());
        assert!(matches!(
            Recording::parse("{\"note\": 1}"),
            Err(RecordingError::Parse(_))
        ));
    }

    #[test]
    fn the_recorded_demos_play_the_models_replies_and_editions() {
        for script in DemoScript::recorded() {
            let run = script.recording().unwrap();
            let mut player = DemoPlayer::with_summariser(script.clone(), DemoSummariser::Scripted)
                .unwrap();
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
                assert_eq!(edition.model.as_deref(), Some(shipped().model_label().as_str()));
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
        assert!(checks.iter().all(|c| c.rules.iter().all(|r| r.verdict != Verdict::Kept)));
        let salary = |player: &DemoPlayer| -> Vec<bool> {
            player
                .editions()
                .iter()
                .map(|e| e.summary.contains("1,20,000"))
                .collect()
        };
        assert!(!salary(&drift)[1], "the drift run's second edition lost the salary");
        let invented: usize = checks.iter().map(|c| c.unsourced.len()).sum();
        assert!(invented > 0, "the model's summaries hold figures no message holds");

        let fincoach = played(DemoScript::real_135m_fincoach());
        assert!(salary(&fincoach).iter().all(|held| !held));
        // So the reply at turn 6 cannot give the salary back.
        let last = fincoach.memory().archive().last().unwrap();
        assert!(!last.content.contains("1,20,000"));
    }
}
