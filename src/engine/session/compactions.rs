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

#[cfg(test)]
mod tests {
    use super::super::{Source, export, import, read};
    use crate::engine::edition::{Compactor, Provenance, TurnRange};
    use crate::engine::message::WordCounter;
    use crate::engine::transcript::Format;

    const CLAUDE_CODE: &str =
        include_str!("../../../tests/fixtures/transcripts/claude_code_session.jsonl");
    const CODEX: &str = include_str!("../../../tests/fixtures/transcripts/codex_rollout.jsonl");

    fn folds(text: &str) -> Vec<(Option<TurnRange>, Provenance, u32, bool)> {
        let read = read(text.as_bytes(), &WordCounter).unwrap();
        assert_eq!(read.sessions.len(), 1);
        read.sessions[0]
            .memory
            .editions()
            .iter()
            .map(|e| (e.folded, e.provenance, e.tokens_in, e.overrun))
            .collect()
    }

    fn turns(first: u32, last: u32) -> Option<TurnRange> {
        Some(TurnRange { first, last })
    }

    #[test]
    fn claude_codes_compactions_are_editions_of_the_session() {
        // The edge case's turns: 1 = u1 a1 r1 a2, 2 = u2 a3, 3 = u4 a4 r2 a5, 4 = u6 a6. The
        // first boundary falls after turn 2; the second inside turn 3 (after its tool result),
        // so it folds no whole turn and turn 3 stays verbatim.
        let tool = Provenance::Tool(Compactor::ClaudeCode);
        assert_eq!(
            folds(CLAUDE_CODE),
            [
                (turns(1, 2), tool, 48_210, false),
                (None, tool, 155_020, false)
            ]
        );
        let read = read(CLAUDE_CODE.as_bytes(), &WordCounter).unwrap();
        assert_eq!(
            read.source,
            Source::Transcript {
                format: Format::ClaudeCode,
                json_lines: true
            }
        );
        assert_eq!(read.source.slug(), "claude-code");
        assert_eq!(read.source.label(), "a Claude Code session log");
        let session = &read.sessions[0];
        assert_eq!(session.name, "Budget tracker: CSV import");
        let memory = &session.memory;
        assert_eq!(memory.archive().len(), 12, "the summaries are not messages");
        let [first, second] = memory.editions() else {
            panic!("two editions")
        };
        assert_eq!(first.previous, None);
        assert_eq!(second.previous.as_deref(), Some(first.summary.as_str()));
        assert_eq!((first.word_limit, first.level), (0, 0));
        assert_eq!(memory.summary(), Some(second.summary.as_str()));
        assert_eq!(memory.turn_of(6), 3, "turn 3 is verbatim");
    }

    #[test]
    fn codexs_compactions_are_editions_with_the_model_that_wrote_them() {
        // Turns of four messages each from message 0, 4, 8 and 12; the boundaries fall after
        // messages 8 and 12. Without Codex's own count, tokens in are the folded turns' words.
        let read = read(CODEX.as_bytes(), &WordCounter).unwrap();
        let memory = &read.sessions[0].memory;
        let editions = memory.editions();
        assert_eq!(editions.len(), 2);
        assert_eq!(editions[0].folded, turns(1, 2));
        assert_eq!(editions[1].folded, turns(3, 3));
        assert_eq!(editions[0].model.as_deref(), Some("gpt-5.1-codex"));
        assert!(
            editions
                .iter()
                .all(|e| e.provenance == Provenance::Tool(Compactor::Codex))
        );
        let turn_words: u32 = memory.archive()[0..8].iter().map(|m| m.tokens).sum();
        assert_eq!(editions[0].tokens_in, turn_words);
    }

    #[test]
    fn a_tools_editions_survive_export_and_import() {
        for text in [CLAUDE_CODE, CODEX] {
            let session = read(text.as_bytes(), &WordCounter)
                .unwrap()
                .sessions
                .remove(0);
            let file = export(&session, 1, "test");
            assert!(
                file.contains("\"provenance\": \"claude-code\"")
                    || file.contains("\"provenance\": \"codex\"")
            );
            let back = import(file.as_bytes(), &WordCounter).unwrap();
            assert_eq!(back.memory.editions(), session.memory.editions());
            assert_eq!(back.memory.archive(), session.memory.archive());
        }
    }

    #[test]
    fn an_unknown_provenance_is_refused_naming_the_tools_it_knows() {
        let session = read(CLAUDE_CODE.as_bytes(), &WordCounter)
            .unwrap()
            .sessions
            .remove(0);
        let file = export(&session, 1, "test").replace("\"claude-code\"", "\"cursor\"");
        let e = import(file.as_bytes(), &WordCounter)
            .unwrap_err()
            .to_string();
        assert!(e.contains("editions[0].provenance"), "{e}");
        assert!(e.contains("claude-code or codex"), "{e}");
    }
}
