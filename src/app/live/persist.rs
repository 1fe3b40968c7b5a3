//! What persistence needs of a live chat, kept apart from the request logic: the
//! [`LiveShape`] the library compares to tell whether the chat changed, the reply as it streams
//! (the library keeps it as it arrives), and [`LiveSession::resume_after_reload`], which offers
//! again what a reload cut off.

use super::LiveSession;
use crate::engine::drift::PinnedFact;
use crate::engine::library_session::Session;
use crate::engine::message::{CountTokens, Message, Role};
use crate::engine::policy::Policy;

/// What the library compares to tell whether the live chat changed: cheap to compute on every
/// streamed piece, and equal for two states the library would store alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveShape {
    /// A reply or a summary is being written (the library saves the chat all the same, a reply
    /// as it arrives: `app::library::LiveShape`).
    pub busy: bool,
    /// Messages, editions and failures.
    counts: (usize, usize, usize),
    summary_len: Option<usize>,
    policy: Policy,
    pinned: Vec<PinnedFact>,
    /// Incomplete replies, failed replies and model calls.
    record: (usize, usize, usize),
    /// The messages left out of the requests.
    excluded: Vec<usize>,
}

impl LiveSession {
    /// What the library compares to tell whether this chat changed since it was last kept.
    pub fn shape(&self) -> LiveShape {
        let m = &self.memory;
        let kept = &self.kept;
        LiveShape {
            busy: self.is_busy(),
            counts: (m.archive().len(), m.editions().len(), m.failures().len()),
            summary_len: m.summary().map(str::len),
            policy: m.policy().clone(),
            pinned: self.pinned.clone(),
            record: (kept.incomplete.len(), kept.failed.len(), kept.calls.len()),
            excluded: m.excluded().collect(),
        }
    }

    /// The reply arriving now, as far as it has arrived.
    pub fn streaming_text(&self) -> Option<&str> {
        self.streaming.as_deref()
    }

    /// The reply arriving now as an assistant message, counted from where its count as it
    /// arrived stands (not from its start); `None` when nothing but spaces has arrived.
    pub fn streaming_message(&self, at_ms: u64, counter: &dyn CountTokens) -> Option<Message> {
        let text = self.streaming_text().filter(|t| !t.trim().is_empty())?;
        let tokens = self.count_arrived(text, counter);
        Some(Message::counted(
            Role::Assistant,
            text.to_owned(),
            tokens,
            at_ms,
        ))
    }

    /// [`LiveSession::resume`] after a reload, offering what the reload cut off: a user message
    /// with no reply, or a reply kept as it was streaming (marked failed, so incomplete), offers
    /// Retry of the reply; a summary that the last reply made due, and that no edition holds,
    /// is offered again as a failed job that Retry runs. Nothing is committed twice: the trigger
    /// is checked against the turns still verbatim.
    pub fn resume_after_reload(session: &Session, at_ms: u64) -> LiveSession {
        let mut live = LiveSession::resume(session);
        let archive = live.memory.archive();
        let Some(last) = archive.last() else {
            return live;
        };
        let cut = last.role == Role::User || live.kept.failed.contains(&(archive.len() - 1));
        if cut {
            live.error = Some(
                "The reply to your last message did not finish before the page was closed or reloaded; what had arrived is kept, marked incomplete. Press Retry to ask again."
                    .to_owned(),
            );
            live.retry_reply = true;
        } else if let Some(job) = live.memory.recheck_trigger() {
            let reason = "the page was closed or reloaded while the summary was being written";
            if live.memory.fail(job.id, reason, at_ms).is_ok() {
                // The summary that was being written fails as it would have, and waits for Retry.
                live.summaries.ask(&job);
                live.summaries.fail(reason);
            }
        }
        live
    }
}
