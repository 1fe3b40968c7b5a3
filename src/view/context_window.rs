//! The context window of one request as a stacked bar (system prompt, summary, turns), next to
//! what a sliding window of the same policy would have sent instead, and which pinned facts each
//! holds. Chat draws it for a demo's last request; Inspect for any turn of a replay.

use crate::engine::compare::window_turns;
use crate::engine::demo::{DemoPlayer, TurnRequest};
use crate::engine::drift::CompiledFact;
use crate::engine::memory::starts_turn;
use crate::engine::message::Role;
use crate::engine::policy::Placement;

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
}
