//! The probe the user is typing in Inspect's probes: a question, the archive message that
//! answers it and the words there, each kept as typed ([`ProbeDraftEdit`]). The message number
//! says what is wrong beside its field as soon as it is not one; the rest is checked when the
//! probe is added ([`ProbeDraft::probe`], through [`typed_probe`]), by Inspect's probes
//! ([`crate::app::probes`]).

use crate::app::probes::{message_number, typed_probe};
use crate::engine::library_session::{Probe, Session};

/// One change to the probe being typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProbeDraftEdit {
    Question(String),
    /// The archive message that answers it, by its number from 1, as typed.
    Message(String),
    /// The words of that message that answer it; empty for the whole message.
    Quote(String),
}

/// The probe being typed, as typed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProbeDraft {
    pub question: String,
    pub message: String,
    pub quote: String,
}

impl ProbeDraft {
    /// Records one change.
    pub fn edit(&mut self, edit: ProbeDraftEdit) {
        match edit {
            ProbeDraftEdit::Question(text) => self.question = text,
            ProbeDraftEdit::Message(text) => self.message = text,
            ProbeDraftEdit::Quote(text) => self.quote = text,
        }
    }

    /// Why the message number typed is not one, beside its field (`probe-message-error`);
    /// `None` while it is empty, since nothing was typed yet, or a number.
    pub fn message_error(&self) -> Option<String> {
        if self.message.trim().is_empty() {
            return None;
        }
        message_number(&self.message).err()
    }

    /// The probe the fields describe in `session`, or why it cannot be added.
    pub fn probe(&self, session: &Session) -> Result<Probe, String> {
        typed_probe(session, &self.question, &self.message, &self.quote)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_number_typed_wrong_is_kept_and_named_and_a_fix_clears_it() {
        let mut draft = ProbeDraft::default();
        assert_eq!(draft.message_error(), None, "nothing typed yet");
        draft.edit(ProbeDraftEdit::Message("first".into()));
        assert_eq!(draft.message, "first", "the text typed is kept");
        let error = draft.message_error().unwrap();
        assert!(
            error.contains("\"first\" is not a message number"),
            "{error}"
        );
        draft.edit(ProbeDraftEdit::Message(" 1 ".into()));
        assert_eq!(draft.message_error(), None);
    }

    #[test]
    fn a_valid_draft_makes_the_probe_and_a_wrong_one_says_why() {
        let session = crate::engine::session::synthetic(3);
        let first = session.memory.archive()[0].content.clone();
        let mut draft = ProbeDraft::default();
        draft.edit(ProbeDraftEdit::Question("What came first?".into()));
        draft.edit(ProbeDraftEdit::Message("x".into()));
        assert_eq!(draft.probe(&session), Err(draft.message_error().unwrap()));
        draft.edit(ProbeDraftEdit::Message("1".into()));
        let probe = draft.probe(&session).unwrap();
        assert_eq!(probe.question, "What came first?");
        assert_eq!(probe.evidence.message, 0);
        assert_eq!(probe.evidence.quote, first.trim());
        draft.edit(ProbeDraftEdit::Quote("not in it at all".into()));
        assert!(draft.probe(&session).unwrap_err().contains("does not hold"));
    }
}
