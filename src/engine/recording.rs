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
//! This file knows nothing of the demos (`engine::demo` builds the recorded ones from it, and
//! parses the shipped copy). [`Recording::check`] holds a recording to what the demo player
//! needs: each run's user
//! messages are its source demo's, word for word, and each edition folds turns that exist and
//! was written after them.

use serde::{Deserialize, Serialize};

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

/// A demo a run may be played from: its link name and its user messages in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source<'a> {
    pub slug: &'a str,
    pub users: Vec<&'a str>,
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
    /// Parses a recording and checks it against `sources` (see [`Recording::check`]).
    pub fn parse(text: &str, sources: &[Source<'_>]) -> Result<Recording, RecordingError> {
        let recording: Recording =
            serde_json::from_str(text).map_err(|e| RecordingError::Parse(e.to_string()))?;
        recording.check(sources)?;
        Ok(recording)
    }

    /// The recording as the file holds it: pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a recording serialises");
        text.push('\n');
        text
    }

    /// Each run's user messages are those of the demo in `sources` it names, in order and
    /// number; editions are numbered from 1, each written after the turns it folds, the folds
    /// consecutive and within the run.
    pub fn check(&self, sources: &[Source<'_>]) -> Result<(), RecordingError> {
        for run in &self.runs {
            let source = sources
                .iter()
                .find(|s| s.slug == run.source)
                .ok_or_else(|| RecordingError::UnknownSource(run.source.clone()))?;
            let mismatch = |turn| RecordingError::TurnMismatch {
                run: run.source.clone(),
                turn,
            };
            if run.turns.len() != source.users.len() {
                return Err(mismatch(run.turns.len().min(source.users.len()) + 1));
            }
            for (i, (turn, user)) in run.turns.iter().zip(&source.users).enumerate() {
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
