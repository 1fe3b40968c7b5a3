//! The conversation on screen: a demo being played or the live chat, behind one trait, so the
//! Chat and Editions tabs, the policy panel and the workbench ask "the conversation" and never
//! which kind it is. [`OnScreen`] is implemented by [`DemoPlayer`] and [`LiveSession`], and
//! [`crate::app::workbench::Workbench::on_screen`] is the one place that picks.

use thiserror::Error;

use crate::app::live::{LiveError, LiveSession};
use crate::app::rows::{MessageRow, rows_of};
use crate::engine::demo::{DemoError, DemoPlayer, DemoSummariser, Writer};
use crate::engine::drift::PinnedFact;
use crate::engine::memory::MemoryState;
use crate::engine::message::CountTokens;
use crate::engine::policy::Policy;

/// Why the conversation on screen refused an action, in words the user can act on.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ChatError {
    /// The demo refused it (or could not be loaded).
    #[error(transparent)]
    Demo(#[from] DemoError),
    /// The live chat refused it.
    #[error(transparent)]
    Live(#[from] LiveError),
}

/// What the tabs read of a conversation and the changes they make to it.
pub trait OnScreen {
    fn memory(&self) -> &MemoryState;

    /// The facts its editions are checked for.
    fn pinned(&self) -> &[PinnedFact];

    /// Every message, in order, with its state (and the live reply arriving now).
    fn rows(&self) -> Vec<MessageRow>;

    /// Who writes its summaries, in words, for the policy panel.
    fn summariser(&self) -> &'static str;

    /// The conversation's own error, shown when the last action raised none: the live chat's
    /// failed request, which waits for Retry.
    fn own_error(&self) -> Option<String>;

    /// Which offline summariser wrote edition `cycle`, for a demo; `None` when the edition's
    /// provenance says it all (a model's, a hand edit, a restore).
    fn writer(&self, _cycle: u32) -> Option<Writer> {
        None
    }

    /// Applies a new policy and pinned facts from the next reply on; refused, with nothing
    /// changed, when either is invalid.
    fn set_policy(&mut self, policy: Policy, facts: Vec<PinnedFact>) -> Result<(), ChatError>;

    /// Edition `cycle`'s text becomes the current summary again, as a new edition.
    fn restore(
        &mut self,
        cycle: u32,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<(), ChatError>;

    /// The user's own text becomes the current summary, as a new edition edited by hand.
    fn edit_summary(
        &mut self,
        text: &str,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<(), ChatError>;

    /// What the Editions cards depend on: how many editions, the last one's time and text,
    /// and the pinned facts. A streamed piece of a live reply changes none of them, so the
    /// cards (word diffs of every edition) are rebuilt only when this changes.
    fn editions_shape(&self) -> EditionsShape {
        let editions = self.memory().editions();
        EditionsShape {
            editions: editions.len(),
            last: editions.last().map(|e| (e.at_ms, e.summary.clone())),
            pinned: self.pinned().to_vec(),
        }
    }
}

/// See [`OnScreen::editions_shape`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditionsShape {
    editions: usize,
    last: Option<(u64, String)>,
    pinned: Vec<PinnedFact>,
}

impl OnScreen for DemoPlayer {
    fn memory(&self) -> &MemoryState {
        DemoPlayer::memory(self)
    }

    fn pinned(&self) -> &[PinnedFact] {
        DemoPlayer::pinned(self)
    }

    fn rows(&self) -> Vec<MessageRow> {
        rows_of(DemoPlayer::memory(self), |_| false)
    }

    fn summariser(&self) -> &'static str {
        match DemoPlayer::summariser(self) {
            DemoSummariser::Scripted if self.script().recording().is_some() => {
                "the editions a real model wrote in the recorded run, named on each edition card (offline, no model call)"
            }
            DemoSummariser::Scripted => {
                "scripted editions written for this demo (offline; the built-in extractive summariser where the script does not cover a fold)"
            }
            DemoSummariser::Extractive => "built-in extractive (offline, no model call)",
            DemoSummariser::Recorded => "a real model's recorded editions (offline)",
        }
    }

    fn writer(&self, cycle: u32) -> Option<Writer> {
        DemoPlayer::writer(self, cycle)
    }

    fn own_error(&self) -> Option<String> {
        None
    }

    fn set_policy(&mut self, policy: Policy, facts: Vec<PinnedFact>) -> Result<(), ChatError> {
        Ok(DemoPlayer::set_policy(self, policy, facts)?)
    }

    /// A demo keeps its own clock, so `at_ms` is not used.
    fn restore(
        &mut self,
        cycle: u32,
        _at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<(), ChatError> {
        Ok(DemoPlayer::restore(self, cycle, counter)?)
    }

    fn edit_summary(
        &mut self,
        text: &str,
        _at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<(), ChatError> {
        Ok(DemoPlayer::edit_summary(self, text, counter)?)
    }
}

impl OnScreen for LiveSession {
    fn memory(&self) -> &MemoryState {
        LiveSession::memory(self)
    }

    fn pinned(&self) -> &[PinnedFact] {
        LiveSession::pinned(self)
    }

    fn rows(&self) -> Vec<MessageRow> {
        LiveSession::rows(self)
    }

    fn summariser(&self) -> &'static str {
        "the summariser model set in Settings (the chat model when none is set)"
    }

    fn own_error(&self) -> Option<String> {
        self.error().map(str::to_owned)
    }

    fn set_policy(&mut self, policy: Policy, facts: Vec<PinnedFact>) -> Result<(), ChatError> {
        Ok(LiveSession::set_policy(self, policy, facts)?)
    }

    fn restore(
        &mut self,
        cycle: u32,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<(), ChatError> {
        Ok(LiveSession::restore(self, cycle, at_ms, counter)?)
    }

    fn edit_summary(
        &mut self,
        text: &str,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<(), ChatError> {
        Ok(LiveSession::edit_summary(self, text, at_ms, counter)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::live::ReplyEnd;
    use crate::engine::demo::DemoScript;
    use crate::engine::message::WordCounter;

    #[test]
    fn a_demo_and_the_live_chat_answer_alike() {
        let mut demo = DemoPlayer::new(DemoScript::fincoach()).unwrap();
        demo.play_all(&WordCounter).unwrap();
        let mut live = LiveSession::default();
        live.send("hello", 1, &WordCounter).unwrap();
        live.delta("Hi");
        let shown: [&dyn OnScreen; 2] = [&demo, &live];
        assert_eq!(shown[0].rows().len(), 12);
        assert_eq!(shown[1].rows().len(), 2, "the reply arriving is a row too");
        assert_eq!(shown[1].rows()[1].tokens, None);
        assert!(shown[0].summariser().contains("extractive"));
        assert!(shown[1].summariser().contains("Settings"));
        // A streamed piece does not change what the Editions cards depend on.
        let before = shown[1].editions_shape();
        live.delta(" there");
        assert_eq!(live.editions_shape(), before);
        live.finish(ReplyEnd::Complete("Hi there".into()), 2, &WordCounter);
        assert_eq!(live.editions_shape(), before);
        // Both refuse a restore of an edition that was never printed, with their own words.
        let demo_error = OnScreen::restore(&mut demo, 9, 0, &WordCounter).unwrap_err();
        let live_error = OnScreen::restore(&mut live, 9, 0, &WordCounter).unwrap_err();
        assert!(matches!(demo_error, ChatError::Demo(_)));
        assert!(matches!(live_error, ChatError::Live(_)));
        assert_ne!(demo_error.to_string(), live_error.to_string());
    }
}
