//! Turns: where each one begins in the archive (a user message after an assistant reply), and
//! whether a message is still sent verbatim or folded into the summary.

use crate::engine::message::{Message, Role};

/// Whether a message is still sent word for word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageState {
    Verbatim,
    Folded,
}

/// Whether a message with `role` begins a new turn after a message with `previous`: the first
/// message does, and so does every user message that follows an assistant reply or a tool's
/// result. Tool traffic (an assistant's calls and the results) never begins a turn, so it stays
/// in the turn of the user message before it, and is folded with that turn.
pub fn starts_turn(previous: Option<Role>, role: Role) -> bool {
    match previous {
        None => true,
        Some(previous) => role == Role::User && matches!(previous, Role::Assistant | Role::Tool),
    }
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
