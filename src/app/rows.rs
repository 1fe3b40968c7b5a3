//! One message as any conversation shows it: a demo's, the live chat's, or a saved session's.
//! A [`MessageRow`] carries the message's reasoning, and its [`RowState`], which includes
//! whether it is left out of the requests.

use crate::engine::memory::{MemoryState, MessageState};
use crate::engine::message::Role;

/// One message with its place in the conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageRow {
    /// Position in the archive, from 0; stable, so it keys the row (a reply arriving takes the
    /// next free one).
    pub index: usize,
    pub role: Role,
    pub content: String,
    /// The cached token count; `None` for a reply still arriving.
    pub tokens: Option<u32>,
    pub state: RowState,
    pub turn: u32,
    /// The model's visible reasoning behind this reply, when it showed any (live chat only).
    pub reasoning: Option<String>,
    /// Left out of the requests by the user; the archive keeps it.
    pub excluded: bool,
}

/// The state a message is shown in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowState {
    /// Sent word for word with every request.
    Verbatim,
    /// Folded into the summary; kept in the archive.
    Folded,
    /// The live reply arriving now.
    Streaming,
    /// A live reply that stopped before its end (Stop, or a failed request).
    Incomplete,
}

impl RowState {
    /// The `data-state` value.
    pub fn slug(self) -> &'static str {
        match self {
            RowState::Verbatim => "verbatim",
            RowState::Folded => "folded",
            RowState::Streaming => "streaming",
            RowState::Incomplete => "incomplete",
        }
    }

    /// The visible marker next to the message.
    pub fn marker(self) -> &'static str {
        match self {
            RowState::Verbatim => "verbatim",
            RowState::Folded => "folded into the summary",
            RowState::Streaming => "arriving…",
            RowState::Incomplete => "incomplete: stopped before the end",
        }
    }
}

impl From<MessageState> for RowState {
    fn from(state: MessageState) -> RowState {
        match state {
            MessageState::Verbatim => RowState::Verbatim,
            MessageState::Folded => RowState::Folded,
        }
    }
}

impl MessageRow {
    /// The `data-state` value.
    pub fn state_slug(&self) -> &'static str {
        self.state.slug()
    }

    /// The visible marker next to the message.
    pub fn marker(&self) -> &'static str {
        self.state.marker()
    }

    pub fn role_label(&self) -> &'static str {
        match self.role {
            Role::System => "System",
            Role::User => "User",
            Role::Assistant => "Assistant",
            Role::Tool => "Tool",
        }
    }

    /// Whether the message is folded into the summary.
    pub fn is_folded(&self) -> bool {
        self.state == RowState::Folded
    }
}

/// Every archived message of `memory`, folded ones included, in order; `incomplete(index)` says
/// which verbatim ones to mark incomplete.
pub fn rows_of(memory: &MemoryState, incomplete: impl Fn(usize) -> bool) -> Vec<MessageRow> {
    memory
        .archive()
        .iter()
        .enumerate()
        .map(|(index, message)| MessageRow {
            index,
            role: message.role,
            content: message.content.clone(),
            tokens: Some(message.tokens),
            state: match memory.message_state(index) {
                MessageState::Verbatim if incomplete(index) => RowState::Incomplete,
                state => state.into(),
            },
            turn: memory.turn_of(index),
            reasoning: None,
            excluded: memory.is_excluded(index),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_has_its_own_slug_and_marker() {
        let all = [
            RowState::Verbatim,
            RowState::Folded,
            RowState::Streaming,
            RowState::Incomplete,
        ];
        let slugs: Vec<_> = all.iter().map(|s| s.slug()).collect();
        assert_eq!(slugs, ["verbatim", "folded", "streaming", "incomplete"]);
        assert_eq!(RowState::Folded.marker(), "folded into the summary");
        assert_eq!(RowState::from(MessageState::Folded), RowState::Folded);
    }
}
