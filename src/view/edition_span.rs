//! The span an edition covers, as its header says it: its turns, the messages it folded and the
//! time from the first to the last of them (UTC) where the archive records it. Apart from
//! `editions.rs` and `inspect.rs`, which both show it.

use crate::engine::edition::Edition;
use crate::engine::memory::MemoryState;
use crate::engine::prompts::stamp;
use crate::view::labels::turns_label;

/// The span an edition covers, for its header: its turns, how many messages it folded, and
/// the time from its first to its last folded message where the archive has them (UTC), e.g.
/// "Covers turns 3–6 · 8 messages · 2025-03-12 14:05 to 14:20 UTC"; `None` for an edition that
/// folded no turn (a compression, an edit, a restore).
pub fn edition_span(memory: &MemoryState, edition: &Edition) -> Option<String> {
    let range = edition.folded?;
    let messages: Vec<&crate::engine::message::Message> = memory
        .archive()
        .iter()
        .enumerate()
        .filter(|&(i, _)| (range.first..=range.last).contains(&memory.turn_of(i)))
        .map(|(_, m)| m)
        .collect();
    let count = messages.len();
    let mut out = format!(
        "Covers {} · {count} message{}",
        turns_label(range.first, range.last).to_lowercase(),
        if count == 1 { "" } else { "s" }
    );
    let first = messages.iter().find_map(|m| stamp(m.at_ms));
    let last = messages.iter().rev().find_map(|m| stamp(m.at_ms));
    if let (Some(first), Some(last)) = (first, last) {
        let last = match (first.split_once(' '), last.split_once(' ')) {
            (Some((day, _)), Some((same, time))) if day == same => time.to_owned(),
            _ => last,
        };
        out.push_str(&format!(" · {first} to {last} UTC"));
    }
    Some(out)
}
