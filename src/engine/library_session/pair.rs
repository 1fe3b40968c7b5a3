//! A session that is one side of an A/B comparison ([`crate::engine::ab`]): which side it is,
//! the summariser configuration that wrote its editions, the session both sides replayed, and
//! the id the two sides share. Both sides are whole sessions of the library (the same archive,
//! each with its own editions), so each can be opened, exported and replayed like any other;
//! the shared `id` finds the other side, in the library or in an imported file, with no
//! network. Its file form is `engine::session`'s `pair.rs` (since version 5).

use crate::engine::policy::{Choice, SummaryFormat};
use crate::engine::prompts::PresetId;

/// Which side of an A/B comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PairSide {
    A,
    B,
}

impl PairSide {
    pub const BOTH: [PairSide; 2] = [PairSide::A, PairSide::B];

    /// `a` or `b`: the file's `side` and the page's `data-side`.
    pub fn slug(self) -> &'static str {
        match self {
            PairSide::A => "a",
            PairSide::B => "b",
        }
    }

    pub fn letter(self) -> &'static str {
        match self {
            PairSide::A => "A",
            PairSide::B => "B",
        }
    }

    pub fn other(self) -> PairSide {
        match self {
            PairSide::A => PairSide::B,
            PairSide::B => PairSide::A,
        }
    }

    pub fn from_slug(slug: &str) -> Option<PairSide> {
        PairSide::BOTH.into_iter().find(|s| s.slug() == slug)
    }
}

/// The summariser that wrote one side's editions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SideConfig {
    /// The editions the source session recorded, kept as they were: another tool's own
    /// compactions (`claude-code`, `codex`) or this app's. `summariser` is their provenance
    /// slug (`recorded` when they mix).
    Recorded { summariser: String },
    /// A summariser model the comparison asked, on the same folds.
    Model {
        model: String,
        preset: PresetId,
        word_limit: u32,
        format: SummaryFormat,
    },
}

impl SideConfig {
    /// The words for this configuration, as the page and the session list show it.
    pub fn describe(&self) -> String {
        match self {
            SideConfig::Recorded { summariser } => match summariser.as_str() {
                "claude-code" => "Claude Code's own compactions, as recorded".to_owned(),
                "codex" => "Codex CLI's own compactions, as recorded".to_owned(),
                _ => "the session's editions, as recorded".to_owned(),
            },
            SideConfig::Model {
                model,
                preset,
                word_limit,
                format,
            } => format!(
                "{model}, the {} prompt, {word_limit} words, {}",
                preset.label(),
                format.slug()
            ),
        }
    }

    /// The page's `data-summariser` of a side: a tool's slug, `recorded`, or `model`.
    pub fn summariser_slug(&self) -> &str {
        match self {
            SideConfig::Recorded { summariser } => summariser,
            SideConfig::Model { .. } => "model",
        }
    }
}

/// What makes a session one side of a comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairLink {
    /// Shared by the two sides, and by nothing else.
    pub id: String,
    pub side: PairSide,
    /// The name of the session both sides replayed.
    pub source: String,
    pub config: SideConfig,
}
