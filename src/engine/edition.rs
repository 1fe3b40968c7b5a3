//! Editions: every summary that was ever current, kept in order and never overwritten, so that
//! drift can be traced cycle by cycle and any earlier text can be restored.
//!
//! An [`Edition`] records its cycle, the turns it folded, the text before and after, the prompt,
//! the model, the tokens in and out, its words against the limit, its level, who wrote it, and
//! whether a rebuild from the archive wrote it (`rebuilt`).

use super::text::word_count;

/// The highest compression level: level 0 is a summary of turns, levels 1 to 3 are ever
/// shorter rewrites of the summary itself.
pub const MAX_LEVEL: u8 = 3;

/// A range of turns, counted from 1, both ends included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TurnRange {
    pub first: u32,
    pub last: u32,
}

/// Who wrote an edition's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provenance {
    /// A summariser model.
    Model,
    /// The extractive summariser (no model call).
    Extractive,
    /// The user edited the summary by hand.
    ManualEdit,
    /// The user brought back an earlier edition's text.
    Restore,
    /// Another tool compacted the conversation itself and wrote this summary: an edition read
    /// from a coding agent's own session log (its compact boundary and summary).
    Tool(Compactor),
}

/// A coding agent whose session logs record its own compactions, read as editions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compactor {
    /// Claude Code: a `compact_boundary` record, then the summary as a user message marked
    /// `isCompactSummary`.
    ClaudeCode,
    /// Codex CLI: a `compacted` rollout item holding the summary.
    Codex,
}

impl Compactor {
    /// Every compactor, for slug look-ups.
    pub const ALL: [Compactor; 2] = [Compactor::ClaudeCode, Compactor::Codex];

    /// The stable slug: the page's `data-summariser` and the session file's `compactor`.
    pub fn slug(self) -> &'static str {
        match self {
            Compactor::ClaudeCode => "claude-code",
            Compactor::Codex => "codex",
        }
    }

    /// The tool's name as the page says it.
    pub fn name(self) -> &'static str {
        match self {
            Compactor::ClaudeCode => "Claude Code",
            Compactor::Codex => "Codex CLI",
        }
    }

    /// The compactor with this slug.
    pub fn from_slug(slug: &str) -> Option<Compactor> {
        Compactor::ALL.into_iter().find(|c| c.slug() == slug)
    }
}

/// One committed summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edition {
    /// Counted from 1, one per committed summary, consecutive.
    pub cycle: u32,
    /// The turns this edition folded out of the verbatim part; `None` when it folded none
    /// (compression, manual edit, restore).
    pub folded: Option<TurnRange>,
    pub previous: Option<String>,
    pub summary: String,
    /// The summariser system message used, or empty when no model was asked.
    pub prompt: String,
    pub model: Option<String>,
    /// Tokens given to the summariser: the folded turns (all folded turns when rebuilding from
    /// the archive) plus the previous summary when it was sent.
    pub tokens_in: u32,
    pub tokens_out: u32,
    pub words: u32,
    /// The prompt's word limit; 0 for none (another tool's compaction states none).
    pub word_limit: u32,
    /// The summary has more words than the limit: a word limit in a prompt is a request, not a
    /// guarantee. Never set when there is no limit.
    pub overrun: bool,
    pub at_ms: u64,
    pub provenance: Provenance,
    /// 0 for a summary of turns, 1 to [`MAX_LEVEL`] for compressions of a summary.
    pub level: u8,
    /// For a restore, the cycle whose text came back.
    pub restored_from: Option<u32>,
    /// Rebuilt from the archive ([`crate::engine::policy::FoldMode::RebuildFromArchive`]): the
    /// summariser read every folded turn so far and not the previous summary.
    pub rebuilt: bool,
}

/// What a new edition records, before it gets its cycle number and word statistics.
#[derive(Clone, Debug)]
pub struct EditionDraft {
    pub folded: Option<TurnRange>,
    pub previous: Option<String>,
    pub summary: String,
    pub prompt: String,
    pub model: Option<String>,
    pub tokens_in: u32,
    pub tokens_out: u32,
    pub word_limit: u32,
    pub at_ms: u64,
    pub provenance: Provenance,
    pub level: u8,
    pub restored_from: Option<u32>,
    pub rebuilt: bool,
}

impl TurnRange {
    /// Number of turns in the range.
    pub fn len(&self) -> u32 {
        self.last.saturating_sub(self.first) + 1
    }

    /// A range always holds at least one turn.
    pub fn is_empty(&self) -> bool {
        false
    }
}

impl Edition {
    /// Completes a draft as edition number `cycle`, counting its words against the limit.
    pub fn from_draft(cycle: u32, draft: EditionDraft) -> Edition {
        let words = word_count(&draft.summary);
        Edition {
            cycle,
            folded: draft.folded,
            previous: draft.previous,
            words,
            overrun: draft.word_limit > 0 && words > draft.word_limit,
            summary: draft.summary,
            prompt: draft.prompt,
            model: draft.model,
            tokens_in: draft.tokens_in,
            tokens_out: draft.tokens_out,
            word_limit: draft.word_limit,
            at_ms: draft.at_ms,
            provenance: draft.provenance,
            level: draft.level.min(MAX_LEVEL),
            restored_from: draft.restored_from,
            rebuilt: draft.rebuilt,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary the seed's FinCoach run printed after turn 6, under an 80-word prompt.
    const SEED_TURN_6_SUMMARY: &str = "Chiru earns ₹1,20,000 net monthly, spends ₹60,000 and has \
        ₹60,000 discretionary income. He holds a ₹50,000 fixed deposit maturing in three months \
        and is risk‑averse. FinCoach advised keeping about ₹30,000 in a short‑term FD (3‑6 \
        months) for liquidity and ₹20,000 in a government‑backed debt fund or RD, while \
        continuing to save ₹15‑20 k each month for a 3‑6‑month emergency fund (₹1.8‑3.6 L). \
        After the cushion is built, allocate ₹20‑25 k to a conservative hybrid SIP (≈30 % \
        equity, 70 % debt).";

    fn draft(summary: &str, word_limit: u32) -> EditionDraft {
        EditionDraft {
            folded: Some(TurnRange { first: 3, last: 4 }),
            previous: Some("old".into()),
            summary: summary.into(),
            prompt: "p".into(),
            model: Some("m".into()),
            tokens_in: 468,
            tokens_out: 151,
            word_limit,
            at_ms: 7,
            provenance: Provenance::Model,
            level: 0,
            restored_from: None,
            rebuilt: false,
        }
    }

    #[test]
    fn seed_summary_of_81_words_overruns_an_80_word_limit() {
        let edition = Edition::from_draft(2, draft(SEED_TURN_6_SUMMARY, 80));
        assert_eq!(edition.words, 81);
        assert!(edition.overrun);
        let within = Edition::from_draft(2, draft(SEED_TURN_6_SUMMARY, 81));
        assert!(!within.overrun);
    }

    #[test]
    fn levels_are_capped() {
        let mut d = draft("short", 80);
        d.level = 9;
        assert_eq!(Edition::from_draft(1, d).level, MAX_LEVEL);
    }
}
