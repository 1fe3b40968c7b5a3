//! The words the tabs use for core values: turn ranges, roles, triggers, placements, fold modes
//! and summary budgets. Shared by Chat, Editions and Inspect, and importing no other view.

use crate::engine::edition::Compactor;
use crate::engine::message::Role;
use crate::engine::policy::{Choice, FoldMode, Placement, Policy, Trigger};

/// "turn 3" or "turns 3–4".
pub fn turns_label(first: u32, last: u32) -> String {
    if first == last {
        format!("turn {first}")
    } else {
        format!("turns {first}–{last}")
    }
}

/// "1 turn" or "4 turns".
pub fn turn_count(n: u32) -> String {
    if n == 1 {
        "1 turn".to_owned()
    } else {
        format!("{n} turns")
    }
}

pub fn role_label(role: Role) -> &'static str {
    match role {
        Role::System => "System",
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::Tool => "Tool",
    }
}

/// The trigger in words.
pub fn describe_trigger(trigger: &Trigger) -> String {
    match *trigger {
        Trigger::Turns { max_turns, keep } => format!(
            "every {max_turns} turns: summarise once {max_turns} turns are verbatim, keep the last {keep}"
        ),
        Trigger::Tokens {
            budget,
            keep_tokens,
        } => format!(
            "token budget: summarise past {budget} tokens, keep {keep_tokens} tokens verbatim"
        ),
        Trigger::Every { n } => format!("every {n} messages, keeping the latest turn"),
        Trigger::MessageCount { max_messages } => {
            format!("over {max_messages} verbatim messages, keeping the latest turn")
        }
        Trigger::Manual { keep } => format!("manual: summarise on request, keep the last {keep}"),
        Trigger::Window {
            context,
            fire_pct,
            keep_pct,
            keep_turns: 0,
        } => format!(
            "{fire_pct}% of a {context}-token window: summarise once the request passes it, keep the newest {keep_pct}% verbatim"
        ),
        Trigger::Window {
            context,
            fire_pct,
            keep_turns,
            ..
        } => format!(
            "{fire_pct}% of a {context}-token window: summarise once the request passes it, keep the last {keep_turns} turns"
        ),
    }
}

/// The placement in words: its one label in the engine's table ([`Choice`]).
pub fn placement_label(placement: Placement) -> &'static str {
    placement.label()
}

/// The fold mode in words: its one label in the engine's table ([`Choice`]).
pub fn fold_label(fold: FoldMode) -> &'static str {
    fold.label()
}

pub fn summary_budget(policy: &Policy) -> String {
    match policy.summary_budget {
        Some(budget) => format!("{budget} tokens, then compress a level up"),
        None => "off".to_owned(),
    }
}

/// Who wrote an edition that a coding agent's own compaction wrote: the tool, and the model it
/// ran when its log names one.
pub fn compacted_by(tool: Compactor, model: Option<&str>) -> String {
    let model = model.map(|m| format!(" (model {m})")).unwrap_or_default();
    format!(
        "Written by {}{model} when it compacted the session itself: its own summary, read from its log",
        tool.name()
    )
}
