//! Turns: where each one begins in the archive (a user message after an assistant reply), and
//! whether a message is still sent verbatim or folded into the summary.

pub use crate::engine::message::starts_turn;
use crate::engine::message::{Message, Role};

/// Whether a message is still sent word for word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageState {
    Verbatim,
    Folded,
}

/// Archive index where each turn of `roles` begins.
pub fn turn_starts(roles: impl IntoIterator<Item = Role>) -> Vec<usize> {
    let mut previous = None;
    let mut starts = Vec::new();
    for (i, role) in roles.into_iter().enumerate() {
        if starts_turn(previous, role) {
            starts.push(i);
        }
        previous = Some(role);
    }
    starts
}

/// Whether `message` completes its turn: an assistant reply that calls no tool. A reply that
/// calls one waits for the result and the answer after it, so the trigger is not checked there
/// and a fold never cuts a turn between a call and its result.
pub fn ends_turn(message: &Message) -> bool {
    message.role == Role::Assistant && message.calls.is_empty()
}
