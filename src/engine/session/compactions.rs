//! The compactions a coding agent recorded in its own session log, as editions of the imported
//! session: each folds the whole turns before its boundary that no earlier one folded, its text
//! is the summary the agent wrote, and its provenance names the agent. So the drift checks, the
//! survival table and the diff read a real tool's real summaries, offline.
//!
//! An edition folds whole turns. A boundary inside a turn (an automatic compaction in the
//! middle of a tool loop) leaves that turn verbatim; the edition still holds the summary, and
//! the next one folds the turn. A compaction with no new whole turn folds none.

use crate::engine::edition::{Edition, EditionDraft, Provenance, TurnRange};
use crate::engine::memory::{ends_turn, turn_starts};
use crate::engine::message::{CountTokens, Message};
use crate::engine::transcript::Compaction;

/// The editions of `compactions` over `archive` (the conversation's messages), oldest first.
pub(super) fn editions(
    archive: &[Message],
    compactions: &[Compaction],
    counter: &dyn CountTokens,
) -> Vec<Edition> {
    let starts = turn_starts(archive.iter().map(|m| m.role));
    let mut editions: Vec<Edition> = Vec::with_capacity(compactions.len());
    let mut folded_to = 0u32;
    for (i, compaction) in compactions.iter().enumerate() {
        let whole = whole_turns_before(archive, &starts, compaction.at);
        let folded = (whole > folded_to).then(|| TurnRange {
            first: folded_to + 1,
            last: whole,
        });
        let previous = editions.last().map(|e| e.summary.clone());
        // What the agent read: its own count when the log has one, else the turns it folded
        // and the summary it had before.
        let tokens_in = compaction.tokens_before.unwrap_or_else(|| {
            let from = starts.get(folded_to as usize).copied().unwrap_or(0);
            let to = starts.get(whole as usize).copied().unwrap_or(archive.len());
            let turns: u32 = archive[from.min(to)..to].iter().map(|m| m.tokens).sum();
            turns + previous.as_deref().map_or(0, |p| counter.count(p))
        });
        folded_to = folded_to.max(whole);
        editions.push(Edition::from_draft(
            i as u32 + 1,
            EditionDraft {
                folded,
                previous,
                summary: compaction.summary.clone(),
                prompt: String::new(),
                model: compaction.model.clone(),
                tokens_in,
                tokens_out: counter.count(&compaction.summary),
                word_limit: 0,
                at_ms: compaction.at_ms,
                provenance: Provenance::Tool(compaction.tool),
                level: 0,
                restored_from: None,
                rebuilt: false,
            },
        ));
    }
    editions
}

/// How many turns lie wholly before message `at`: the turns a boundary at `at` can fold. The
/// archive's last turn counts only once it is complete (its reply calls no tool), as a session
/// file requires of any folded turn.
fn whole_turns_before(archive: &[Message], starts: &[usize], at: usize) -> u32 {
    let at = at.min(archive.len());
    let mut whole = 0;
    for turn in 0..starts.len() {
        let end = starts.get(turn + 1).copied().unwrap_or(archive.len());
        if end > at || (end == archive.len() && !archive.last().is_some_and(ends_turn)) {
            break;
        }
        whole = turn as u32 + 1;
    }
    whole
}
