//! One message of the Chat tab's conversation as drawn ([`MessageLine::of`]): its classes, its
//! turn and token labels; the archive's heading ([`archive_heading`]), the sentence a screen
//! reader hears for the newest message ([`announcement`]) and a reply's count as it streams
//! ([`streamed_tokens`]).

use crate::app::rows::MessageRow;

/// What a message's row shows beside its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageLine {
    /// The row's classes: `message`, its role, its state, and `excluded` when left out.
    pub class: String,
    /// "turn 3".
    pub turn: String,
    /// "42 tokens", or `None` while the count is unknown (a reply still arriving).
    pub tokens: Option<String>,
    /// The marker's classes: `marker` and the state.
    pub marker_class: String,
}

impl MessageLine {
    /// The labels of `row`.
    pub fn of(row: &MessageRow) -> MessageLine {
        let state = row.state_slug();
        MessageLine {
            class: format!(
                "message {} {state}{}",
                row.role.as_str(),
                if row.excluded { " excluded" } else { "" }
            ),
            turn: format!("turn {}", row.turn),
            tokens: row.tokens.map(|t| format!("{t} tokens")),
            marker_class: format!("marker {state}"),
        }
    }
}

/// The folded archive's heading.
pub fn archive_heading(folded: usize) -> String {
    format!("Archive · {folded} messages folded into the summary")
}

/// The newest whole message, as a screen reader hears it.
pub fn announcement(row: &MessageRow) -> String {
    format!("{}, turn {}: {}", row.role_label(), row.turn, row.content)
}

/// A reply's count as it streams.
pub fn streamed_tokens(tokens: u32) -> String {
    format!("{tokens} tokens so far")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::rows::RowState;
    use crate::engine::message::Role;

    fn row(role: Role, state: RowState, tokens: Option<u32>, excluded: bool) -> MessageRow {
        MessageRow {
            index: 4,
            role,
            content: "The salary is 1,20,000.".to_owned(),
            tokens,
            state,
            turn: 3,
            reasoning: None,
            excluded,
        }
    }

    #[test]
    fn a_verbatim_message_has_its_role_state_turn_and_count() {
        let line = MessageLine::of(&row(Role::User, RowState::Verbatim, Some(42), false));
        assert_eq!(line.class, "message user verbatim");
        assert_eq!(line.turn, "turn 3");
        assert_eq!(line.tokens.as_deref(), Some("42 tokens"));
        assert_eq!(line.marker_class, "marker verbatim");
    }

    #[test]
    fn a_message_left_out_is_marked_excluded() {
        let line = MessageLine::of(&row(Role::Assistant, RowState::Folded, Some(1), true));
        assert_eq!(line.class, "message assistant folded excluded");
        assert_eq!(line.marker_class, "marker folded");
    }

    #[test]
    fn a_reply_arriving_has_no_count_until_it_streams_one() {
        let line = MessageLine::of(&row(Role::Assistant, RowState::Streaming, None, false));
        assert_eq!(line.class, "message assistant streaming");
        assert_eq!(line.tokens, None);
        assert_eq!(streamed_tokens(17), "17 tokens so far");
    }

    #[test]
    fn the_archive_heading_and_the_announcement_say_what_is_there() {
        assert_eq!(
            archive_heading(6),
            "Archive · 6 messages folded into the summary"
        );
        assert_eq!(
            announcement(&row(Role::User, RowState::Verbatim, Some(5), false)),
            "User, turn 3: The salary is 1,20,000."
        );
    }
}
