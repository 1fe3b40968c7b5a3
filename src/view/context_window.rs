//! The context window of one request as a stacked bar (system prompt, summary, turns), next to
//! what a sliding window of the same policy would have sent instead, and which pinned facts each
//! holds. Chat draws it for a demo's last request, and for a continued chat's next one
//! ([`continued_window`]); Inspect for any turn of a replay.

use crate::engine::compare::window_turns;
use crate::engine::demo::{DemoPlayer, TurnRequest};
use crate::engine::drift::CompiledFact;
use crate::engine::library_session::ContinuedFrom;
use crate::engine::memory::{MemoryState, starts_turn};
use crate::engine::message::{CountTokens, Role};
use crate::engine::policy::Placement;
use crate::view::labels::{turn_count, turns_label};

/// The parts of one request, in order, with their tokens.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextWindow {
    pub turn: u32,
    pub summary_sent: bool,
    pub segments: Vec<Segment>,
    pub total: u32,
    pub window: WindowAlternative,
    /// Per pinned fact: (label, in this request, in the sliding window's request).
    pub facts: Vec<(String, bool, bool)>,
}

/// One stretch of the stacked bar.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    pub kind: SegmentKind,
    pub label: String,
    pub tokens: u32,
    /// Share of the whole request, 0 to 100.
    pub percent: f64,
}

/// What a stretch of the request holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    System,
    Summary,
    Turn,
}

/// The request a sliding window of the same policy would have sent at that turn: the system
/// prompt and the last `size` turns, with nothing in place of the older ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowAlternative {
    pub size: u32,
    pub first: u32,
    pub last: u32,
    /// Turns 1 to `dropped_to` are gone from it; 0 when none are.
    pub dropped_to: u32,
    pub tokens: u32,
}

impl SegmentKind {
    /// The class the stacked bar colours by.
    pub fn slug(self) -> &'static str {
        match self {
            SegmentKind::System => "system",
            SegmentKind::Summary => "summary",
            SegmentKind::Turn => "turn",
        }
    }
}

/// The context window of the latest request, or `None` before the first message.
pub fn context_window(player: &DemoPlayer) -> Option<ContextWindow> {
    let request = player.last_request()?;
    Some(window_of(player, request))
}

fn window_of(player: &DemoPlayer, request: &TurnRequest) -> ContextWindow {
    let messages = &request.messages;
    // How many messages after the system prompt carry the summary depends on the placement.
    let summary_messages = match (request.summary_sent, request.placement) {
        (false, _) | (true, Placement::AppendToSystem) => 0,
        (true, Placement::SecondSystem) => 1,
        (true, Placement::UserAck) => 2,
    };
    let mut segments = Vec::new();
    if let Some(system) = messages.first() {
        let label = if request.summary_sent && summary_messages == 0 {
            "System prompt and summary"
        } else {
            "System prompt"
        };
        segments.push((SegmentKind::System, label.to_owned(), system.tokens));
    }
    let summary_end = (1 + summary_messages).min(messages.len());
    if summary_messages > 0 {
        let tokens = messages[1..summary_end].iter().map(|m| m.tokens).sum();
        segments.push((
            SegmentKind::Summary,
            format!("Summary of turns 1–{}", request.summarised_to),
            tokens,
        ));
    }
    let mut turn = request.summarised_to;
    let mut previous = None;
    for message in &messages[summary_end..] {
        if starts_turn(previous, message.role) {
            turn += 1;
            segments.push((SegmentKind::Turn, format!("Turn {turn}"), 0));
        }
        if let Some(last) = segments.last_mut() {
            last.2 += message.tokens;
        }
        previous = Some(message.role);
    }
    let (segments, total) = stacked(segments);

    let window = sliding_window(player, request);
    let facts = fact_columns(player, request, &window);
    ContextWindow {
        turn: request.turn,
        summary_sent: request.summary_sent,
        segments,
        total,
        window,
        facts,
    }
}

/// The context window of the live chat's next request, before it is sent: the system prompt,
/// the summary as the policy places it (labelled with where it came from), and the verbatim
/// turns. Drawn for a chat continued from another session's edition ([`ContinuedFrom`]), so
/// its first request shows before anything is sent; `None` for any other chat.
pub fn continued_window(
    memory: &MemoryState,
    from: Option<&ContinuedFrom>,
    facts: &[CompiledFact],
    counter: &dyn CountTokens,
) -> Option<ContextWindow> {
    let from = from?;
    let request = memory.request(counter);
    let placement = memory.policy().placement;
    let summary_sent = memory.summary().is_some();
    let summary_messages = match (summary_sent, placement) {
        (false, _) | (true, Placement::AppendToSystem) => 0,
        (true, Placement::SecondSystem) => 1,
        (true, Placement::UserAck) => 2,
    };
    let mut parts = Vec::new();
    if let Some(system) = request.first() {
        let label = if summary_sent && summary_messages == 0 {
            "System prompt and summary"
        } else {
            "System prompt"
        };
        parts.push((SegmentKind::System, label.to_owned(), system.tokens));
    }
    let summary_end = (1 + summary_messages).min(request.len());
    if summary_messages > 0 {
        let tokens = request[1..summary_end].iter().map(|m| m.tokens).sum();
        parts.push((
            SegmentKind::Summary,
            format!("Summary from {}, edition {}", from.name, from.edition),
            tokens,
        ));
    }
    let mut turn = 0;
    let mut previous = None;
    for message in &request[summary_end..] {
        if starts_turn(previous, message.role) {
            turn += 1;
            parts.push((SegmentKind::Turn, format!("Turn {turn}"), 0));
        }
        if let Some(last) = parts.last_mut() {
            last.2 += message.tokens;
        }
        previous = Some(message.role);
    }
    let (segments, total) = stacked(parts);
    // A sliding window of the same size sends the system prompt and the newest turns only.
    let size = window_turns(&memory.policy().trigger);
    let last = memory.turn_count() + 1;
    let first = last.saturating_sub(size - 1).max(1);
    let archive = memory.archive();
    let in_window: Vec<&str> = std::iter::once(memory.system_prompt())
        .chain(
            archive
                .iter()
                .enumerate()
                .filter(|(i, _)| memory.turn_of(*i) >= first)
                .map(|(_, m)| m.content.as_str()),
        )
        .collect();
    let window_tokens = request.first().map_or(0, |m| m.tokens)
        + archive
            .iter()
            .enumerate()
            .filter(|(i, _)| memory.turn_of(*i) >= first)
            .map(|(_, m)| m.tokens)
            .sum::<u32>();
    let facts = facts
        .iter()
        .map(|fact| {
            let here = request.iter().any(|m| fact.is_match(&m.content));
            let there = in_window.iter().any(|text| fact.is_match(text));
            (fact.label.clone(), here, there)
        })
        .collect();
    Some(ContextWindow {
        turn: last,
        summary_sent,
        segments,
        total,
        window: WindowAlternative {
            size,
            first,
            last,
            dropped_to: first - 1,
            tokens: window_tokens,
        },
        facts,
    })
}

/// The stretches of a stacked bar from `(kind, label, tokens)` parts, each with its share of the
/// whole, and the whole.
pub fn stacked(parts: Vec<(SegmentKind, String, u32)>) -> (Vec<Segment>, u32) {
    let total: u32 = parts.iter().map(|p| p.2).sum();
    let segments = parts
        .into_iter()
        .map(|(kind, label, tokens)| Segment {
            kind,
            label,
            tokens,
            percent: if total == 0 {
                0.0
            } else {
                f64::from(tokens) * 100.0 / f64::from(total)
            },
        })
        .collect();
    (segments, total)
}

fn sliding_window(player: &DemoPlayer, request: &TurnRequest) -> WindowAlternative {
    let size = window_turns(&player.memory().policy().trigger);
    let last = request.turn;
    let first = last.saturating_sub(size - 1).max(1);
    let system = system_prompt_tokens(player);
    let turns: u32 = window_messages(player, first, last).map(|m| m.tokens).sum();
    WindowAlternative {
        size,
        first,
        last,
        dropped_to: first - 1,
        tokens: system + turns,
    }
}

/// Tokens of the bare system prompt, as counted for the first request (which never has a
/// summary, since no cycle can run before the first reply).
fn system_prompt_tokens(player: &DemoPlayer) -> u32 {
    player
        .requests()
        .first()
        .and_then(|r| r.messages.first())
        .map_or(0, |m| m.tokens)
}

/// The archived messages of turns `first..=last` that had been sent by the time turn `last` was
/// asked (its reply not included).
fn window_messages(
    player: &DemoPlayer,
    first: u32,
    last: u32,
) -> impl Iterator<Item = &crate::engine::message::Message> {
    let memory = player.memory();
    memory
        .archive()
        .iter()
        .enumerate()
        .filter(move |(i, m)| {
            let turn = memory.turn_of(*i);
            turn >= first && (turn < last || (turn == last && m.role == Role::User))
        })
        .map(|(_, m)| m)
}

fn fact_columns(
    player: &DemoPlayer,
    request: &TurnRequest,
    window: &WindowAlternative,
) -> Vec<(String, bool, bool)> {
    player
        .facts()
        .iter()
        .map(|fact: &CompiledFact| {
            let in_request = request.messages.iter().any(|m| fact.is_match(&m.content));
            let in_window = window_messages(player, window.first, window.last)
                .any(|m| fact.is_match(&m.content));
            (fact.label.clone(), in_request, in_window)
        })
        .collect()
}

/// Every sentence, class and style the context window's card draws, as plain values
/// ([`ContextWindowScreen::of`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ContextWindowScreen {
    /// `data-turn`.
    pub turn: u32,
    /// `data-summary-sent`: `true` or `false`.
    pub summary_sent: &'static str,
    /// E.g. "Context window · turn 6 · 412 tokens · summary sent".
    pub heading: String,
    /// The stacked bar, one piece a segment.
    pub bar: Vec<BarPiece>,
    /// The bar's key, one line a segment.
    pub key: Vec<KeyLine>,
    /// What a sliding window of the same size would have sent, in one sentence.
    pub alternative: String,
    /// One row a pinned fact.
    pub facts: Vec<FactRow>,
}

/// One stretch of the stacked bar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarPiece {
    /// E.g. `seg summary`.
    pub class: String,
    /// Its share of the bar, e.g. `flex-grow: 120` (at least 1, so an empty stretch shows).
    pub style: String,
    /// E.g. "Turn 3: 40 tokens".
    pub title: String,
}

/// One line of the bar's key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyLine {
    /// E.g. `seg-key turn`.
    pub class: String,
    /// `data-kind`: the segment's slug.
    pub kind: &'static str,
    /// E.g. "Turn 3 · 40 tokens (10%)".
    pub text: String,
}

/// One pinned fact's row: whether this request and the sliding window's hold it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactRow {
    pub label: String,
    /// "yes" or "no".
    pub here: &'static str,
    pub there: &'static str,
}

impl ContextWindowScreen {
    pub fn of(window: &ContextWindow) -> ContextWindowScreen {
        let heading = format!(
            "Context window · turn {} · {} tokens{}",
            window.turn,
            window.total,
            if window.summary_sent {
                " · summary sent"
            } else {
                " · no summary"
            },
        );
        let alt = &window.window;
        let alternative = if alt.dropped_to == 0 {
            format!(
                "A sliding window of {} would send the same turns ({} tokens) and nothing is dropped yet.",
                turn_count(alt.size),
                alt.tokens
            )
        } else {
            format!(
                "A sliding window of {} would send the system prompt and {} ({} tokens), and drop {} with nothing in their place.",
                turn_count(alt.size),
                turns_label(alt.first, alt.last),
                alt.tokens,
                turns_label(1, alt.dropped_to),
            )
        };
        ContextWindowScreen {
            turn: window.turn,
            summary_sent: if window.summary_sent { "true" } else { "false" },
            heading,
            bar: window
                .segments
                .iter()
                .map(|s| BarPiece {
                    class: format!("seg {}", s.kind.slug()),
                    style: format!("flex-grow: {}", s.tokens.max(1)),
                    title: format!("{}: {} tokens", s.label, s.tokens),
                })
                .collect(),
            key: window
                .segments
                .iter()
                .map(|s| KeyLine {
                    class: format!("seg-key {}", s.kind.slug()),
                    kind: s.kind.slug(),
                    text: format!("{} · {} tokens ({:.0}%)", s.label, s.tokens, s.percent),
                })
                .collect(),
            alternative,
            facts: window
                .facts
                .iter()
                .map(|(label, here, there)| FactRow {
                    label: label.clone(),
                    here: yes_no(*here),
                    there: yes_no(*there),
                })
                .collect(),
        }
    }
}

fn yes_no(present: bool) -> &'static str {
    if present { "yes" } else { "no" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::demo::DemoScript;
    use crate::engine::message::WordCounter;

    fn at_turn(script: DemoScript, turn: u32) -> DemoPlayer {
        let mut player = DemoPlayer::new(script).unwrap();
        while player.progress().0 < turn {
            player.next(&WordCounter).unwrap().unwrap();
        }
        player
    }

    #[test]
    fn a_continued_chat_shows_its_first_request_before_anything_is_sent() {
        use crate::app::live::LiveSession;
        use crate::engine::library_session::Session;
        use crate::engine::policy::Placement;
        let player = at_turn(
            DemoScript::fincoach(),
            DemoScript::fincoach().turns.len() as u32,
        );
        let source = Session {
            pinned: player.script().facts.clone(),
            ..Session::new("FinCoach", Default::default(), player.memory().clone())
        };
        let facts = crate::engine::facts::compile_facts(&source.pinned).unwrap();
        let cycle = source.memory.editions().last().unwrap().cycle;
        for (placement, kinds) in [
            (Placement::SecondSystem, vec!["system", "summary"]),
            (Placement::AppendToSystem, vec!["system"]),
            (Placement::UserAck, vec!["system", "summary"]),
        ] {
            let mut source = source.clone();
            let mut policy = source.memory.policy().clone();
            policy.placement = placement;
            source.memory.set_policy(policy).unwrap();
            let live = LiveSession::continue_from(&source, "fin", cycle, 0, &WordCounter).unwrap();
            assert_eq!(
                continued_window(live.memory(), None, &facts, &WordCounter),
                None
            );
            let window =
                continued_window(live.memory(), live.continued_from(), &facts, &WordCounter)
                    .unwrap();
            let screen = ContextWindowScreen::of(&window);
            assert_eq!(
                window
                    .segments
                    .iter()
                    .map(|s| s.kind.slug())
                    .collect::<Vec<_>>(),
                kinds,
                "{placement:?}: no turn"
            );
            assert_eq!(window.turn, 1);
            assert!(window.summary_sent);
            let sent: u32 = live
                .memory()
                .request(&WordCounter)
                .iter()
                .map(|m| m.tokens)
                .sum();
            assert_eq!(window.total, sent);
            assert!(screen.heading.contains("turn 1"), "{}", screen.heading);
            if placement != Placement::AppendToSystem {
                assert_eq!(
                    window.segments[1].label,
                    format!("Summary from FinCoach, edition {cycle}")
                );
            }
            // The facts the summary holds are in this request, and not in a sliding window
            // of a chat that has no turn yet.
            let kept: Vec<_> = window.facts.iter().filter(|f| f.1).collect();
            assert!(!kept.is_empty(), "{:?}", window.facts);
            assert!(kept.iter().all(|f| !f.2), "{:?}", window.facts);
        }
    }

    #[test]
    fn fincoach_turn_6_sends_system_summary_and_four_turns() {
        let player = at_turn(DemoScript::fincoach(), 6);
        let window = context_window(&player).unwrap();
        assert_eq!(window.turn, 6);
        assert!(window.summary_sent);
        let labels: Vec<&str> = window.segments.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "System prompt",
                "Summary of turns 1–2",
                "Turn 3",
                "Turn 4",
                "Turn 5",
                "Turn 6"
            ]
        );
        let request = player.last_request().unwrap();
        let sum: u32 = request.messages.iter().map(|m| m.tokens).sum();
        assert_eq!(window.total, sum);
        let percent: f64 = window.segments.iter().map(|s| s.percent).sum();
        assert!((percent - 100.0).abs() < 1e-9);
        // Turn 6 holds only the question: its reply has not arrived yet.
        assert_eq!(
            window.segments[5].tokens,
            request.messages.last().unwrap().tokens
        );
    }

    #[test]
    fn a_sliding_window_at_turn_6_has_lost_the_salary_the_summary_kept() {
        let player = at_turn(DemoScript::fincoach(), 6);
        let window = context_window(&player).unwrap();
        // The tuner's comparison window for keep 2: the last two turns.
        assert_eq!(
            (
                window.window.size,
                window.window.first,
                window.window.dropped_to
            ),
            (2, 5, 4)
        );
        assert_eq!(
            window.facts[0],
            ("salary".to_owned(), true, false),
            "summary memory still sends the salary, the window does not"
        );
        assert!(window.window.tokens < window.total);
    }

    #[test]
    fn the_card_words_fincoach_turn_6_and_its_sliding_window() {
        let player = at_turn(DemoScript::fincoach(), 6);
        let window = context_window(&player).unwrap();
        let screen = ContextWindowScreen::of(&window);
        assert_eq!((screen.turn, screen.summary_sent), (6, "true"));
        assert_eq!(
            screen.heading,
            format!(
                "Context window · turn 6 · {} tokens · summary sent",
                window.total
            )
        );
        assert_eq!(
            screen.alternative,
            format!(
                "A sliding window of 2 turns would send the system prompt and turns 5–6 ({} \
                 tokens), and drop turns 1–4 with nothing in their place.",
                window.window.tokens
            )
        );
        let summary = &window.segments[1];
        assert_eq!(
            screen.bar[1],
            BarPiece {
                class: "seg summary".to_owned(),
                style: format!("flex-grow: {}", summary.tokens),
                title: format!("Summary of turns 1–2: {} tokens", summary.tokens),
            }
        );
        assert_eq!(screen.key[0].class, "seg-key system");
        assert_eq!(screen.key[2].kind, "turn");
        assert!(
            screen.key[2]
                .text
                .starts_with(&format!("Turn 3 · {} tokens (", window.segments[2].tokens)),
            "{}",
            screen.key[2].text
        );
        assert!(screen.key[2].text.ends_with("%)"));
        assert_eq!(
            screen.facts[0],
            FactRow {
                label: "salary".to_owned(),
                here: "yes",
                there: "no",
            }
        );
    }

    #[test]
    fn a_window_that_drops_nothing_says_so_and_an_empty_stretch_still_shows() {
        let window = ContextWindow {
            turn: 1,
            summary_sent: false,
            segments: vec![
                Segment {
                    kind: SegmentKind::System,
                    label: "System prompt".to_owned(),
                    tokens: 0,
                    percent: 0.0,
                },
                Segment {
                    kind: SegmentKind::Turn,
                    label: "Turn 1".to_owned(),
                    tokens: 30,
                    percent: 100.0,
                },
            ],
            total: 30,
            window: WindowAlternative {
                size: 1,
                first: 1,
                last: 1,
                dropped_to: 0,
                tokens: 30,
            },
            facts: vec![],
        };
        let screen = ContextWindowScreen::of(&window);
        assert_eq!(screen.summary_sent, "false");
        assert_eq!(
            screen.heading,
            "Context window · turn 1 · 30 tokens · no summary"
        );
        assert_eq!(
            screen.alternative,
            "A sliding window of 1 turn would send the same turns (30 tokens) and nothing is \
             dropped yet."
        );
        assert_eq!(screen.bar[0].style, "flex-grow: 1");
        assert_eq!(screen.bar[0].title, "System prompt: 0 tokens");
        assert_eq!(screen.key[1].text, "Turn 1 · 30 tokens (100%)");
        assert!(screen.facts.is_empty());
    }
}
