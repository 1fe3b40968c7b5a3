//! A session that is one side of an A/B comparison ([`crate::engine::ab`]): which side it is,
//! the summariser configuration that wrote its editions, the session both sides replayed, and
//! the id the two sides share. Both sides are whole sessions of the library (the same archive,
//! each with its own editions), so each can be opened, exported and replayed like any other;
//! the shared `id` finds the other side, in the library or in an imported file, with no
//! network. Written since version 5 (`pair`); a version-4 file has none.

use serde::{Deserialize, Serialize};

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

/// `pair` in a version-5 session.
#[derive(Serialize, Deserialize)]
pub(super) struct PairV5 {
    pub(super) id: String,
    /// `a` or `b`.
    pub(super) side: String,
    pub(super) source: String,
    /// `model`, `recorded`, or a tool's slug (`claude-code`, `codex`).
    pub(super) summariser: String,
    /// For `model` only: the model, the prompt preset's slug, the word limit and the format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) preset: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) word_limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) format: Option<String>,
}

pub(super) fn pair_to_v5(link: &PairLink) -> PairV5 {
    let (summariser, model, preset, word_limit, format) = match &link.config {
        SideConfig::Recorded { summariser } => (summariser.clone(), None, None, None, None),
        SideConfig::Model {
            model,
            preset,
            word_limit,
            format,
        } => (
            "model".to_owned(),
            Some(model.clone()),
            Some(preset.slug().to_owned()),
            Some(*word_limit),
            Some(format.slug().to_owned()),
        ),
    };
    PairV5 {
        id: link.id.clone(),
        side: link.side.slug().to_owned(),
        source: link.source.clone(),
        summariser,
        model,
        preset,
        word_limit,
        format,
    }
}

/// The link a file's `pair` describes, or the field at fault (under `prefix`) and why.
pub(super) fn pair_from_v5(p: PairV5, prefix: &str) -> Result<PairLink, (String, String)> {
    let at = |field: &str| format!("{prefix}.{field}");
    if p.id.trim().is_empty() {
        return Err((at("id"), "a pair needs an id its two sides share".into()));
    }
    let side = PairSide::from_slug(&p.side)
        .ok_or_else(|| (at("side"), format!("expected a or b, found {:?}", p.side)))?;
    let config = if p.summariser == "model" {
        let model = p
            .model
            .filter(|m| !m.trim().is_empty())
            .ok_or_else(|| (at("model"), "a model's side names its model".to_owned()))?;
        let preset = p.preset.unwrap_or_default();
        let preset = PresetId::from_slug(&preset)
            .ok_or_else(|| (at("preset"), format!("unknown prompt preset {preset:?}")))?;
        let format = p.format.unwrap_or_else(|| "prose".to_owned());
        let format = SummaryFormat::from_slug(&format).ok_or_else(|| {
            (
                at("format"),
                format!("expected prose, structured or topics, found {format:?}"),
            )
        })?;
        SideConfig::Model {
            model,
            preset,
            word_limit: p.word_limit.unwrap_or(0),
            format,
        }
    } else {
        SideConfig::Recorded {
            summariser: p.summariser,
        }
    };
    Ok(PairLink {
        id: p.id,
        side,
        source: p.source,
        config,
    })
}
