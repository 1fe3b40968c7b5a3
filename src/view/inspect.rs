//! The Inspect tab's view of one stored or imported session, read-only: its archive, its
//! editions, the drift of the prompt's must-keep facts and the session's pinned facts, and a
//! dry run of the same conversation under a trigger the user picks.
//!
//! Everything here is computed from the session alone, so inspecting needs no endpoint, no key
//! and no network.

use crate::app::rows::{MessageRow, RowState, rows_of};
use crate::engine::compare::{Comparison, compare, window_turns};
use crate::engine::drift::{
    FactVerdict, PinnedFact, compile_facts, fact_presence, fact_verdict, must_keep_verdict,
};
use crate::engine::edition::{Edition, Provenance};
use crate::engine::library_session::Session;
use crate::engine::message::{CountTokens, Role, word_count};
use crate::engine::policy::{Policy, PolicyError, Trigger};
use crate::engine::schedule::{Schedule, ScheduleInput, TurnSize, schedule};
use crate::view::context_window::{ContextWindow, SegmentKind, WindowAlternative, stacked};
use crate::view::labels::{compacted_by, turns_label};

/// One archived message as Inspect lists it: an [`MessageRow`] with the fields Inspect's
/// components read (its `state` as the `data-state` slug). Inspect's components are to read
/// `MessageRow` directly; this shape is kept until they do.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageView {
    pub turn: u32,
    pub role: Role,
    pub content: String,
    pub tokens: u32,
    /// Verbatim or folded; [`RowState::slug`] spells it as the `data-state` hook does.
    pub state: RowState,
    /// Each tool call the message makes, as `name(arguments)`.
    pub calls: Vec<String>,
    /// For a tool's result: the tool (or, unnamed, the call id) it comes from.
    pub answers: Option<String>,
    /// Whether `tokens` is an estimate (a non-text part stands in as a placeholder).
    pub estimate: bool,
}

impl From<MessageRow> for MessageView {
    fn from(row: MessageRow) -> MessageView {
        MessageView {
            turn: row.turn,
            role: row.role,
            tokens: row.tokens.unwrap_or_default(),
            state: row.state,
            content: row.content,
            calls: Vec::new(),
            answers: None,
            estimate: false,
        }
    }
}

impl MessageView {
    /// The row's classes: `message` and its role.
    pub fn class(&self) -> String {
        format!("message {}", self.role.as_str())
    }

    /// The `data-tool-call` marker: `call` for a message that calls tools, `result` for a
    /// tool's result, none for any other message.
    pub fn tool_marker(&self) -> Option<&'static str> {
        if self.role == Role::Tool {
            Some("result")
        } else if !self.calls.is_empty() {
            Some("call")
        } else {
            None
        }
    }

    /// The line above the text: turn, role (and the tool answered), tokens (`≈` when an
    /// estimate), and whether it is folded.
    pub fn meta(&self) -> String {
        let role = match &self.answers {
            Some(tool) => format!("tool result of {tool}"),
            None => self.role.as_str().to_owned(),
        };
        format!(
            "turn {} · {} · {}{} tokens{}{}",
            self.turn,
            role,
            if self.estimate { "≈" } else { "" },
            self.tokens,
            if self.estimate {
                " (estimate: a non-text part)"
            } else {
                ""
            },
            if self.state == RowState::Folded {
                " · folded"
            } else {
                ""
            }
        )
    }
}

/// One edition: what the summary was before, which turns it folded, and what it became.
#[derive(Clone, Debug, PartialEq)]
pub struct EditionView {
    pub cycle: u32,
    pub before: String,
    /// The folded turns as text (`user: …` / `assistant: …` lines); empty for a compression,
    /// an edit or a restore, which fold no turns.
    pub folded: String,
    pub folded_turns: Option<(u32, u32)>,
    pub after: String,
    pub words: u32,
    pub word_limit: u32,
    pub overrun: bool,
    /// `model`, `extractive`, `manual edit`, `restore`, or the coding agent whose own compaction
    /// it is (`claude-code`, `codex`).
    pub provenance: &'static str,
    /// What `data-summariser` carries: `model`, `extractive`, `manual`, the coding agent
    /// (`claude-code`, `codex`), or for a restore the restored edition's.
    pub summariser: &'static str,
    /// Who wrote it, in words, for an edition a coding agent's own compaction wrote; empty for
    /// the others, whose provenance says enough.
    pub written_by: String,
    /// The span it covers in messages and time (`view::editions::edition_span`).
    pub span: Option<String>,
}

/// Whether the latest edition still states a must-keep fact, and where it was first lost.
#[derive(Clone, Debug, PartialEq)]
pub struct FactView {
    pub phrase: String,
    pub kept: bool,
    /// The first edition (from 1) that no longer states it.
    pub first_lost: Option<usize>,
    /// How the latest edition states it ([`must_keep_verdict`] for a must-keep item): a
    /// summary that states the opposite is contradicted, and never shown as kept.
    pub verdict: FactVerdict,
}

impl FactView {
    /// The mark before the phrase: kept or not.
    pub fn mark(&self) -> &'static str {
        if self.kept { "✓ " } else { "✗ " }
    }

    /// After the phrase: a summary that states the opposite is said so, before where the
    /// fact was first lost; nothing for a fact never lost.
    pub fn lost_note(&self) -> String {
        if self.verdict == FactVerdict::Contradicted {
            " (the latest edition states the opposite)".to_owned()
        } else {
            self.first_lost
                .map(|c| format!(" (first lost in edition {c})"))
                .unwrap_or_default()
        }
    }
}

/// Everything Inspect shows about a session.
#[derive(Clone, Debug, PartialEq)]
pub struct InspectView {
    pub name: String,
    pub system_prompt: String,
    pub turns: u32,
    pub messages: Vec<MessageView>,
    pub editions: Vec<EditionView>,
    pub facts: Vec<FactView>,
    /// The trigger the session was recorded under, the starting point for a replay.
    pub trigger: Trigger,
    pub sizes: ScheduleInput,
    /// Whether `sizes.summary_tokens` is an edition's real size, not the assumed one.
    pub summary_measured: bool,
}

impl InspectView {
    pub fn new(session: &Session, counter: &dyn CountTokens) -> InspectView {
        let memory = &session.memory;
        let messages = rows_of(memory, |_| false)
            .into_iter()
            .zip(memory.archive())
            .map(|(row, message)| MessageView {
                calls: message
                    .calls
                    .iter()
                    .map(|c| format!("{}({})", c.name, c.arguments))
                    .collect(),
                answers: (message.role == Role::Tool).then(|| {
                    message
                        .tool_name
                        .clone()
                        .or_else(|| message.call_id.clone())
                        .unwrap_or_else(|| "a tool".to_owned())
                }),
                estimate: message.is_estimate(),
                ..MessageView::from(row)
            })
            .collect::<Vec<_>>();
        let editions = memory
            .editions()
            .iter()
            .map(|e| EditionView {
                cycle: e.cycle,
                before: e.previous.clone().unwrap_or_default(),
                folded: e
                    .folded
                    .map(|r| {
                        // Messages are in turn order, so a fold's turns are one slice, found by
                        // bisection: thousands of editions over thousands of turns stay linear.
                        let from = messages.partition_point(|m| m.turn < r.first);
                        let to = messages.partition_point(|m| m.turn <= r.last);
                        memory.archive()[from..to]
                            .iter()
                            .map(|m| format!("{}: {}", m.role.as_str(), m.readable()))
                            .collect::<Vec<_>>()
                            .join("\n")
                    })
                    .unwrap_or_default(),
                folded_turns: e.folded.map(|r| (r.first, r.last)),
                after: e.summary.clone(),
                words: word_count(&e.summary),
                word_limit: e.word_limit,
                overrun: e.overrun,
                provenance: provenance_label(e.provenance),
                summariser: summariser(memory.editions(), e),
                written_by: match e.provenance {
                    Provenance::Tool(tool) => compacted_by(tool, e.model.as_deref()),
                    _ => String::new(),
                },
                span: super::edition_span::edition_span(memory, e),
            })
            .collect::<Vec<_>>();
        let facts = drift(
            &memory.policy().prompt.must_keep,
            &session.pinned,
            &editions,
        );
        let recorded = memory
            .editions()
            .last()
            .map(|e| e.tokens_out)
            .filter(|&t| t > 0);
        let summary_tokens = recorded.unwrap_or_else(|| ScheduleInput::uniform(0).summary_tokens);
        let sizes = ScheduleInput {
            turns: memory.turn_count(),
            sizes: turn_sizes(&messages),
            system_tokens: counter.count(memory.system_prompt()),
            summary_tokens,
            summary_sizes: Vec::new(),
        };
        InspectView {
            name: session.name.clone(),
            system_prompt: memory.system_prompt().to_owned(),
            turns: memory.turn_count(),
            messages,
            editions,
            facts,
            trigger: memory.policy().trigger.clone(),
            sizes,
            summary_measured: recorded.is_some(),
        }
    }

    /// The same conversation, with its real per-turn token sizes, under another trigger: what
    /// each request would have held, how many summariser calls it would have cost, and what a
    /// sliding window of the same size and the full history would have sent instead.
    pub fn replay(&self, session: &Session, trigger: Trigger) -> Result<Replay, PolicyError> {
        let mut policy: Policy = session.memory.policy().clone();
        policy.trigger = trigger;
        policy.validate()?;
        Ok(self.replay_policy(&policy))
    }

    /// The same dry run under a whole policy (its trigger and placement shape each request).
    pub fn replay_policy(&self, policy: &Policy) -> Replay {
        let schedule = schedule(policy, &self.sizes);
        let comparison = compare(&self.sizes, window_turns(&policy.trigger), &schedule);
        Replay {
            schedule,
            comparison,
        }
    }

    /// What the replayed request of `turn` held, as the Chat tab's stacked bar draws it: the
    /// system prompt, the summary (at its recorded size) and each verbatim turn, against the
    /// sliding window's request. `None` for a turn outside the session.
    pub fn context_at(&self, replay: &Replay, turn: u32) -> Option<ContextWindow> {
        let row = replay.schedule.rows.get(turn.checked_sub(1)? as usize)?;
        let compared = replay.comparison.rows.get(turn as usize - 1)?;
        let mut parts = vec![(
            SegmentKind::System,
            "System prompt".to_owned(),
            self.sizes.system_tokens,
        )];
        if row.summarised_to > 0 {
            // The summary sent is the one the latest cycle before this turn wrote.
            let cycles = replay.schedule.rows[..turn as usize - 1]
                .iter()
                .filter(|r| r.folds.is_some())
                .count() as u32;
            parts.push((
                SegmentKind::Summary,
                format!("Summary of {}", turns_label(1, row.summarised_to)),
                self.sizes.summary_after(cycles),
            ));
        }
        for t in row.verbatim_from..=turn {
            let size = self.sizes.size(t);
            // The turn being asked has no reply yet.
            let tokens = if t == turn {
                size.user
            } else {
                size.user + size.assistant
            };
            parts.push((SegmentKind::Turn, format!("Turn {t}"), tokens));
        }
        let (segments, total) = stacked(parts);
        let size = replay.comparison.window_turns.max(1);
        let first = turn.saturating_sub(size - 1).max(1);
        Some(ContextWindow {
            turn,
            summary_sent: row.summarised_to > 0,
            segments,
            total,
            window: WindowAlternative {
                size,
                first,
                last: turn,
                dropped_to: first - 1,
                tokens: u32::try_from(compared.window_tokens).unwrap_or(u32::MAX),
            },
            facts: Vec::new(),
        })
    }
}

impl InspectView {
    /// This view with each summary sized as the replay's own edition for that cycle, so the
    /// dry run, its chart and the context window count, cycle by cycle, the summaries the replay
    /// wrote rather than an assumed size (or one size for all). A compression or an edit between
    /// two folds replaces the summary its cycle left. A replay with no edition leaves the view as
    /// it is.
    pub fn sized_by(&self, replayed: &Session) -> InspectView {
        let mut sizes: Vec<u32> = Vec::new();
        for edition in replayed.memory.editions() {
            if edition.tokens_out == 0 {
                continue;
            }
            match (edition.folded, sizes.last_mut()) {
                (None, Some(last)) => *last = edition.tokens_out,
                _ => sizes.push(edition.tokens_out),
            }
        }
        let mut view = self.clone();
        if let Some(&last) = sizes.last() {
            view.sizes.summary_tokens = last;
            view.sizes.summary_sizes = sizes;
            view.summary_measured = true;
        }
        view
    }

    /// The words under the dry run's chart: where its summary sizes come from.
    pub fn summary_caption(&self) -> String {
        let per_cycle = &self.sizes.summary_sizes;
        if !per_cycle.is_empty() {
            let list: Vec<String> = per_cycle.iter().map(u32::to_string).collect();
            format!(
                "Each cycle's summary counts the tokens of the replay's own edition for it ({}), as the replay wrote them.",
                list.join(", ")
            )
        } else if self.summary_measured {
            format!(
                "The summary counts {} tokens, the size of this session's own latest edition.",
                self.sizes.summary_tokens
            )
        } else {
            format!(
                "This session has no edition yet, so the summary is assumed to be {} tokens until a replay writes one.",
                self.sizes.summary_tokens
            )
        }
    }
}

/// What an offline replay's result says, and whether it can be saved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayResult {
    pub note: String,
    /// A replay that wrote no edition adds nothing to the library, so it offers no Save.
    pub can_save: bool,
}

/// The result line of an offline replay that wrote `replayed` under `trigger`.
pub fn replay_result(replayed: &Session, trigger: &Trigger) -> ReplayResult {
    let count = replayed.memory.editions().len();
    if count == 0 {
        let turns = replayed.memory.turn_count();
        let turns = if turns == 1 {
            "1 turn".to_owned()
        } else {
            format!("{turns} turns")
        };
        return ReplayResult {
            note: format!(
                "The replay wrote no edition: over this session's {turns} the trigger ({}) never fired, so there is nothing new to save.",
                crate::view::labels::describe_trigger(trigger)
            ),
            can_save: false,
        };
    }
    let editions = if count == 1 {
        "1 edition".to_owned()
    } else {
        format!("{count} editions")
    };
    ReplayResult {
        note: format!("The replay wrote {editions}."),
        can_save: true,
    }
}

/// A dry run of a session under another trigger, beside the sliding window and the full history.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    pub schedule: Schedule,
    pub comparison: Comparison,
}

/// Sums the user and assistant tokens of each turn, oldest first.
fn turn_sizes(messages: &[MessageView]) -> Vec<TurnSize> {
    let mut sizes: Vec<TurnSize> = Vec::new();
    for m in messages {
        let index = m.turn.saturating_sub(1) as usize;
        if sizes.len() <= index {
            sizes.resize(
                index + 1,
                TurnSize {
                    user: 0,
                    assistant: 0,
                },
            );
        }
        match m.role {
            Role::User => sizes[index].user += m.tokens,
            // Tool calls and results are sent after the question, like the reply.
            Role::Assistant | Role::Tool => sizes[index].assistant += m.tokens,
            Role::System => {}
        }
    }
    sizes
}

/// The prompt's must-keep phrases, then the session's pinned facts that are not one of them,
/// each named by its phrase or pattern (what `data-fact` carries).
fn drift(must_keep: &[String], pinned: &[PinnedFact], editions: &[EditionView]) -> Vec<FactView> {
    if editions.is_empty() {
        return Vec::new();
    }
    let mut facts: Vec<PinnedFact> = must_keep
        .iter()
        .filter(|p| !p.trim().is_empty())
        .map(|p| PinnedFact::phrase(p.clone(), p.clone()))
        .collect();
    for fact in pinned {
        let source = crate::app::policy_form::fact_source(fact);
        if !facts.iter().any(|f| f.label == source) {
            facts.push(PinnedFact {
                label: source.to_owned(),
                pattern: fact.pattern.clone(),
            });
        }
    }
    // Phrases always compile and an import checks pinned facts; a failure here would only drop
    // the drift panel, never the tab.
    let Ok(compiled) = compile_facts(&facts) else {
        return Vec::new();
    };
    let summaries: Vec<&str> = editions.iter().map(|e| e.after.as_str()).collect();
    // What every edition folded, and the editions before the latest (a fact they stated was
    // known), read against the latest edition.
    let (latest, earlier) = summaries.split_last().unwrap_or((&"", &[]));
    let folded: Vec<&str> = editions
        .iter()
        .map(|e| e.folded.as_str())
        .chain(earlier.iter().copied())
        .collect();
    // The must-keep phrases come first in `facts`.
    let items = must_keep.iter().filter(|p| !p.trim().is_empty()).count();
    fact_presence(&compiled, &summaries)
        .into_iter()
        .zip(&compiled)
        .enumerate()
        .map(|(i, (track, fact))| {
            let verdict = if i < items {
                must_keep_verdict(&track.label, latest, &folded)
            } else {
                fact_verdict(fact, latest, &folded, false)
            };
            FactView {
                phrase: track.label,
                kept: track.kept.last().copied().unwrap_or(false)
                    && verdict != FactVerdict::Contradicted,
                first_lost: track.first_lost,
                verdict,
            }
        })
        .collect()
}

/// The `data-summariser` slug of `edition`: a restore carries the restored edition's.
fn summariser(editions: &[Edition], edition: &Edition) -> &'static str {
    let source = match (edition.provenance, edition.restored_from) {
        (Provenance::Restore, Some(from)) => editions
            .iter()
            .find(|e| e.cycle == from && e.provenance != Provenance::Restore)
            .unwrap_or(edition),
        _ => edition,
    };
    match source.provenance {
        Provenance::Model => "model",
        Provenance::Extractive | Provenance::Restore => "extractive",
        Provenance::ManualEdit => "manual",
        Provenance::Tool(tool) => tool.slug(),
    }
}

fn provenance_label(p: Provenance) -> &'static str {
    match p {
        Provenance::Model => "model",
        Provenance::Extractive => "extractive",
        Provenance::ManualEdit => "manual edit",
        Provenance::Restore => "restore",
        Provenance::Tool(tool) => tool.slug(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::edition::Provenance;
    use crate::engine::library_session::SessionSettings;
    use crate::engine::memory::{CommitMeta, MemoryState};
    use crate::engine::message::{Message, WordCounter};

    /// Four turns under "summarise at 2, keep 1", with a must-keep fact the third summary drops.
    fn played() -> Session {
        played_with(
            "no equities",
            [
                "Client wants no equities.",
                "Still no equities, bonds only.",
                "Bonds only.",
            ],
        )
    }

    /// [`played`] with another must-keep item and other summaries.
    fn played_with(must_keep: &str, summaries: [&str; 3]) -> Session {
        let mut policy = Policy::new(Trigger::Turns {
            max_turns: 2,
            keep: 1,
        })
        .unwrap();
        policy.prompt.must_keep = vec![must_keep.into()];
        let mut memory = MemoryState::new("You are FinCoach.", policy).unwrap();
        let mut cycle = 0;
        for t in 1..=4u64 {
            let question = "q ".repeat(t as usize);
            memory
                .add_message(Message::new(Role::User, question, &WordCounter, t))
                .unwrap();
            let job = memory
                .add_message(Message::new(Role::Assistant, "a a a", &WordCounter, t))
                .unwrap();
            if let Some(job) = job {
                let meta = CommitMeta {
                    model: None,
                    provenance: Provenance::Extractive,
                    at_ms: t,
                };
                memory
                    .commit(job.id, summaries[cycle], meta, &WordCounter)
                    .unwrap();
                cycle += 1;
            }
        }
        Session::new("FinCoach", SessionSettings::default(), memory)
    }

    #[test]
    fn messages_carry_their_turn_and_whether_they_were_folded() {
        let view = InspectView::new(&played(), &WordCounter);
        let rows: Vec<(u32, &str, &str)> = view
            .messages
            .iter()
            .map(|m| (m.turn, m.role.as_str(), m.state.slug()))
            .collect();
        assert_eq!(view.turns, 4);
        assert_eq!(rows[0], (1, "user", "folded"));
        assert_eq!(rows[7], (4, "assistant", "verbatim"));
        assert_eq!(
            rows.iter().filter(|r| r.2 == "folded").count(),
            2 * view.editions.last().unwrap().folded_turns.unwrap().1 as usize
        );
    }

    #[test]
    fn editions_show_before_folded_and_after() {
        let view = InspectView::new(&played(), &WordCounter);
        assert_eq!(view.editions.len(), 3);
        let first = &view.editions[0];
        assert_eq!(first.cycle, 1);
        assert_eq!(first.before, "");
        assert_eq!(first.folded_turns, Some((1, 1)));
        assert_eq!(first.folded, "user: q \nassistant: a a a");
        assert_eq!(first.after, "Client wants no equities.");
        assert_eq!(first.words, 4);
        let second = &view.editions[1];
        assert_eq!(second.before, first.after);
        assert_eq!(second.provenance, "extractive");
    }

    #[test]
    fn drift_names_the_first_edition_that_lost_a_fact() {
        let view = InspectView::new(&played(), &WordCounter);
        assert_eq!(
            view.facts,
            [FactView {
                phrase: "no equities".into(),
                kept: false,
                first_lost: Some(3),
                verdict: FactVerdict::Lost,
            }]
        );
    }

    // A summary stating the opposite of a must-keep item showed a green "✓ kept": only a pinned
    // rule was checked for contradiction.
    #[test]
    fn a_summary_stating_the_opposite_of_a_must_keep_item_is_never_shown_kept() {
        let session = played_with(
            "stay away from equity",
            [
                "Client will stay away from equity for now.",
                "Client will stay away from equity; bonds only.",
                "Client holds bonds and about 25 % in equity. He still means to stay away from equity later.",
            ],
        );
        let view = InspectView::new(&session, &WordCounter);
        let fact = &view.facts[0];
        assert_eq!(
            fact.verdict,
            FactVerdict::Kept,
            "one sentence still keeps away"
        );
        let session = played_with(
            "stay away from equity",
            [
                "Client will stay away from equity for now.",
                "Client will stay away from equity; bonds only.",
                "Client holds bonds, with about 25 % in equity as advised.",
            ],
        );
        let fact = &InspectView::new(&session, &WordCounter).facts[0];
        assert_eq!(fact.verdict, FactVerdict::Contradicted);
        assert!(!fact.kept);
    }

    #[test]
    fn the_pinned_facts_of_a_session_are_checked_for_drift_too() {
        let mut session = played();
        session.pinned = vec![
            // The same phrase as the must-keep fact is listed once.
            PinnedFact::phrase("equities", "no equities"),
            PinnedFact::regex("bonds", r"(?i)\bbonds\b"),
        ];
        let view = InspectView::new(&session, &WordCounter);
        assert_eq!(
            view.facts,
            [
                FactView {
                    phrase: "no equities".into(),
                    kept: false,
                    first_lost: Some(3),
                    verdict: FactVerdict::Lost,
                },
                FactView {
                    phrase: r"(?i)\bbonds\b".into(),
                    kept: true,
                    first_lost: Some(1),
                    verdict: FactVerdict::Kept,
                }
            ]
        );
        // And they are read back from the session file.
        let file = crate::engine::session::export(&session, 0, "t");
        let back = crate::engine::session::import(file.as_bytes(), &WordCounter).unwrap();
        assert_eq!(InspectView::new(&back, &WordCounter).facts, view.facts);
    }

    #[test]
    fn replay_uses_the_sessions_real_turn_sizes() {
        let session = played();
        let view = InspectView::new(&session, &WordCounter);
        // Turn t asks t words and gets three back.
        let sizes: Vec<(u32, u32)> = view
            .sizes
            .sizes
            .iter()
            .map(|s| (s.user, s.assistant))
            .collect();
        assert_eq!(sizes, [(1, 3), (2, 3), (3, 3), (4, 3)]);
        assert_eq!(view.sizes.system_tokens, 3);

        let recorded = view.replay(&session, view.trigger.clone()).unwrap();
        assert_eq!(recorded.schedule.calls, view.editions.len() as u32);
        let never = view.replay(&session, Trigger::Manual { keep: 1 }).unwrap();
        assert_eq!(never.schedule.calls, 0);
        // Without a summary, turn 4's request holds the system prompt, all four questions and
        // the three earlier replies (its own reply is not sent yet).
        assert_eq!(never.schedule.rows[3].tokens, 3 + (1 + 2 + 3 + 4) + 3 * 3);
        // Never summarising is the full history.
        let full: Vec<u64> = never
            .comparison
            .rows
            .iter()
            .map(|r| r.full_tokens)
            .collect();
        let sent: Vec<u64> = never.schedule.rows.iter().map(|r| r.tokens).collect();
        assert_eq!(full, sent);
        assert!(
            view.replay(
                &session,
                Trigger::Turns {
                    max_turns: 2,
                    keep: 2
                }
            )
            .is_err()
        );
    }

    #[test]
    fn a_five_thousand_turn_session_imports_and_every_edition_shows_exactly_its_turns() {
        // Regression: each edition's folded text was found by scanning the whole archive, so
        // opening a long session cost editions × messages.
        let long = crate::engine::session::synthetic(5_000);
        let file = crate::engine::session::export(&long, 1, "test");
        let session = crate::engine::session::import(file.as_bytes(), &WordCounter).unwrap();
        assert_eq!(session.memory.archive(), long.memory.archive());
        assert_eq!(session.memory.editions(), long.memory.editions());
        let view = InspectView::new(&session, &WordCounter);
        assert_eq!((view.turns, view.messages.len()), (5_000, 10_000));
        assert!(view.editions.len() > 1_000, "{}", view.editions.len());
        for e in &view.editions {
            let (first, last) = e.folded_turns.unwrap();
            let lines: Vec<&str> = e.folded.lines().collect();
            assert_eq!(lines.len() as u32, 2 * (last - first + 1));
            assert!(
                lines[0].starts_with(&format!("user: Turn {first}:")),
                "{}",
                lines[0]
            );
            assert!(
                lines
                    .last()
                    .unwrap()
                    .starts_with(&format!("assistant: For turn {last}:"))
            );
        }
        assert!(view.facts.iter().all(|f| f.kept));
        let replay = view.replay(&session, Trigger::Manual { keep: 4 }).unwrap();
        assert_eq!(replay.schedule.rows.len(), 5_000);
        assert_eq!(replay.comparison.rows.len(), 5_000);
        assert!(view.context_at(&replay, 5_000).is_some());
    }

    #[test]
    fn the_context_window_of_a_replayed_turn_adds_up_to_its_request() {
        let session = played();
        let view = InspectView::new(&session, &WordCounter);
        let trigger = Trigger::Turns {
            max_turns: 2,
            keep: 1,
        };
        let replay = view.replay(&session, trigger).unwrap();
        for row in &replay.schedule.rows {
            let window = view.context_at(&replay, row.turn).unwrap();
            assert_eq!(u64::from(window.total), row.tokens, "turn {}", row.turn);
            assert_eq!(window.summary_sent, row.summarised_to > 0);
            let turns: Vec<String> = window
                .segments
                .iter()
                .filter(|s| s.kind == SegmentKind::Turn)
                .map(|s| s.label.clone())
                .collect();
            let expect: Vec<String> = (row.verbatim_from..=row.turn)
                .map(|t| format!("Turn {t}"))
                .collect();
            assert_eq!(turns, expect);
            let shares: f64 = window.segments.iter().map(|s| s.percent).sum();
            assert!((shares - 100.0).abs() < 1e-9);
            let compared = &replay.comparison.rows[row.turn as usize - 1];
            assert_eq!(u64::from(window.window.tokens), compared.window_tokens);
        }
        // Turn 4 under "summarise at 2, keep 1": a summary of turns 1-2, then turns 3 and 4.
        let four = view.context_at(&replay, 4).unwrap();
        let labels: Vec<&str> = four.segments.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(
            labels,
            ["System prompt", "Summary of turns 1–2", "Turn 3", "Turn 4"]
        );
        assert!(view.context_at(&replay, 0).is_none());
        assert!(view.context_at(&replay, 5).is_none());
    }

    /// A transcript with tool traffic: the call and the result are rows of their own, marked,
    /// in the turn of their question, and the replay, the sliding window and the full history
    /// all count their tokens.
    #[test]
    fn tool_calls_and_results_are_rows_of_their_turn_and_are_counted() {
        let chat = br#"[
            {"role": "user", "content": [{"type": "text", "text": "weather in Oslo"}, {"type": "image_url", "image_url": {"url": "x"}}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "forecast", "arguments": "{\"city\": \"Oslo\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "snow all day"},
            {"role": "assistant", "content": "It snows."},
            {"role": "user", "content": "thanks"},
            {"role": "assistant", "content": "welcome"}
        ]"#;
        let session = crate::engine::session::import(chat, &WordCounter).unwrap();
        let view = InspectView::new(&session, &WordCounter);
        assert_eq!(view.turns, 2);
        let m = &view.messages;
        let markers: Vec<Option<&str>> = m.iter().map(MessageView::tool_marker).collect();
        assert_eq!(
            markers,
            [None, Some("call"), Some("result"), None, None, None]
        );
        assert_eq!(m[1].calls, ["forecast({\"city\": \"Oslo\"})"]);
        assert_eq!(m[2].answers.as_deref(), Some("forecast"));
        assert_eq!(m[2].turn, 1);
        assert!(m[0].estimate && m[0].meta().contains("≈"));
        assert!(m[2].meta().contains("tool result of forecast"));
        // Turn 1's reply side: the call (1 + 2 words), the result (3) and the answer (2).
        assert_eq!(view.sizes.size(1).assistant, 3 + 3 + 2);
        let replay = view
            .replay(
                &session,
                Trigger::Turns {
                    max_turns: 4,
                    keep: 2,
                },
            )
            .unwrap();
        let second = &replay.comparison.rows[1];
        let turn_one = u64::from(view.sizes.size(1).user + view.sizes.size(1).assistant);
        let system = u64::from(view.sizes.system_tokens);
        assert_eq!(second.full_tokens, system + turn_one + 1);
        // A window of four turns still holds turn 1, tool traffic included.
        assert_eq!(second.window_tokens, second.full_tokens);
        assert_eq!(replay.schedule.rows[1].tokens, second.full_tokens);
    }

    #[test]
    fn a_coding_agents_compactions_show_as_its_editions_with_their_checks() {
        let text = include_str!("../../tests/fixtures/transcripts/claude_code_session.jsonl");
        let read = crate::engine::session::read(text.as_bytes(), &WordCounter).unwrap();
        let session = &read.sessions[0];
        let view = InspectView::new(session, &WordCounter);
        let slugs: Vec<&str> = view.editions.iter().map(|e| e.summariser).collect();
        assert_eq!(slugs, ["claude-code", "claude-code"]);
        assert!(
            view.editions[0]
                .written_by
                .starts_with("Written by Claude Code")
        );
        assert_eq!(view.editions[0].folded_turns, Some((1, 2)));
        assert!(
            view.editions[0]
                .folded
                .starts_with("user: Add a CSV import")
        );
        // The second summary says rent is 1500 EUR; the archive only ever says 1450.
        let checks = crate::view::editions::edition_checks(&session.memory, &session.pinned);
        use crate::view::editions::EditionCard;
        let card = EditionCard::of_archive(&view.editions[1]).with_checks(&checks[1]);
        let marked: Vec<&str> = card
            .marked
            .iter()
            .filter(|(_, unsourced)| *unsourced)
            .map(|(text, _)| text.as_str())
            .collect();
        assert_eq!(marked, ["1500"]);
        assert_eq!(card.limit_label(), " words (no limit)");
        // The diff shows the drift: the rent the first summary kept, replaced.
        let diff = card.clone().with_diff();
        let of = |kind| -> String {
            diff.after
                .iter()
                .filter(|s| s.kind == kind)
                .map(|s| s.text.as_str())
                .collect()
        };
        assert!(of(crate::engine::drift::DiffKind::Removed).contains("1450"));
        assert!(of(crate::engine::drift::DiffKind::Added).contains("1500"));
        assert!(
            EditionCard::of_archive(&view.editions[0])
                .with_diff()
                .after
                .is_empty(),
            "the first edition has nothing before it to differ from"
        );
        assert!(!card.overrun);
    }

    // A replayed travel transcript showed seven red failures from the Financial-advisor preset's
    // must-keep list; after a replay the chart counted an assumed 150-token summary where the
    // edition had 16 words; and a replay that wrote no edition said "0 editions" and offered Save.
    #[test]
    fn an_import_is_judged_by_its_own_content_and_a_replay_by_its_own_summaries() {
        let text = r#"[{"role":"user","content":"Plan a trip to Lisbon in May."},{"role":"assistant","content":"Three days: Alfama, Belem, Sintra."},{"role":"user","content":"And the budget?"},{"role":"assistant","content":"About 600 euros."},{"role":"user","content":"Trains or buses?"},{"role":"assistant","content":"Trains to Sintra."}]"#;
        let imported = crate::engine::session::import(text.as_bytes(), &WordCounter).unwrap();
        let policy = imported.memory.policy();
        assert_eq!(
            policy.prompt.preset,
            crate::engine::prompts::PresetId::Generic
        );
        assert!(policy.prompt.must_keep.is_empty());
        let view = InspectView::new(&imported, &WordCounter);
        assert!(!view.summary_measured);
        assert!(view.summary_caption().contains("assumed to be 150 tokens"));

        // Three turns under a four-turn trigger: nothing fires.
        let mut quiet = imported.memory.policy().clone();
        quiet.trigger = Trigger::Turns {
            max_turns: 4,
            keep: 2,
        };
        let none = crate::app::replay::replay_offline(&imported, quiet.clone(), &WordCounter, "r")
            .unwrap();
        let result = replay_result(&none, &quiet.trigger);
        assert!(!result.can_save);
        assert!(result.note.contains("3 turns"), "{}", result.note);
        assert!(result.note.contains("never fired"), "{}", result.note);
        assert_eq!(view.sized_by(&none), view);

        let mut busy = quiet;
        busy.trigger = Trigger::Turns {
            max_turns: 2,
            keep: 1,
        };
        let some =
            crate::app::replay::replay_offline(&imported, busy.clone(), &WordCounter, "r").unwrap();
        let result = replay_result(&some, &busy.trigger);
        assert!(result.can_save);
        let sized = view.sized_by(&some);
        let real: Vec<u32> = some
            .memory
            .editions()
            .iter()
            .map(|e| e.tokens_out)
            .collect();
        assert!(!real.is_empty());
        assert!(sized.summary_measured);
        assert!(real.iter().all(|&t| t < 150), "{real:?}");
        // Each cycle counts its own edition's size, not their mean: the dry run, the chart and
        // the context window all read the size of the summary the cycle before them wrote.
        assert_eq!(sized.sizes.summary_sizes, real);
        let run = sized.replay_policy(&busy);
        let mut cycles = 0usize;
        for row in &run.schedule.rows {
            let sent = if cycles == 0 { 0 } else { real[cycles - 1] };
            let turns: u64 = (row.verbatim_from..row.turn)
                .map(|t| u64::from(sized.sizes.size(t).user + sized.sizes.size(t).assistant))
                .sum();
            let want = u64::from(sized.sizes.system_tokens)
                + u64::from(sent)
                + turns
                + u64::from(sized.sizes.size(row.turn).user);
            assert_eq!(row.tokens, want, "turn {}", row.turn);
            let window = sized.context_at(&run, row.turn).unwrap();
            assert_eq!(u64::from(window.total), want, "turn {}", row.turn);
            cycles += usize::from(row.folds.is_some());
        }
        assert!(cycles >= 2, "the test needs two cycles of different sizes");
        assert!(
            sized
                .summary_caption()
                .contains(&format!("{}, {}", real[0], real[1]))
        );
    }

    #[test]
    fn a_compression_between_two_folds_replaces_the_size_its_cycle_left() {
        let session = played();
        let mut replayed = session.clone();
        // The played session's three fold editions, then a manual edit of the third.
        let sizes: Vec<u32> = replayed
            .memory
            .editions()
            .iter()
            .map(|e| e.tokens_out)
            .collect();
        replayed
            .memory
            .edit_summary("Bonds only, no equities ever.", 9, &WordCounter)
            .unwrap();
        let view = InspectView::new(&session, &WordCounter).sized_by(&replayed);
        let edited = replayed.memory.editions().last().unwrap().tokens_out;
        assert_eq!(view.sizes.summary_sizes, [sizes[0], sizes[1], edited]);
    }

    #[test]
    fn a_facts_line_says_whether_it_is_kept_where_it_was_lost_or_that_it_is_contradicted() {
        let fact = |kept, first_lost, verdict| FactView {
            phrase: "salary".into(),
            kept,
            first_lost,
            verdict,
        };
        let kept = fact(true, None, FactVerdict::Kept);
        assert_eq!((kept.mark(), kept.lost_note()), ("✓ ", String::new()));
        let lost = fact(false, Some(3), FactVerdict::Lost);
        assert_eq!(
            (lost.mark(), lost.lost_note()),
            ("✗ ", " (first lost in edition 3)".to_owned())
        );
        let opposite = fact(false, Some(2), FactVerdict::Contradicted);
        assert_eq!(
            opposite.lost_note(),
            " (the latest edition states the opposite)"
        );
        let row = |role| MessageView {
            turn: 1,
            role,
            content: String::new(),
            tokens: 0,
            state: RowState::Verbatim,
            calls: Vec::new(),
            answers: None,
            estimate: false,
        };
        assert_eq!(row(Role::User).class(), "message user");
        assert_eq!(row(Role::Tool).class(), "message tool");
    }
}
