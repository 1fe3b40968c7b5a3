//! `pair`, the side of an A/B comparison a session is ([`PairLink`]), as a version-5 file
//! writes it; a version-4 file has none.

use serde::{Deserialize, Serialize};

use crate::engine::library_session::{PairLink, PairSide, SideConfig};
use crate::engine::policy::{Choice, SummaryFormat};
use crate::engine::prompts::PresetId;

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
