//! What a request sends: [`MemoryState::request`], the head as the policy places the summary
//! (with the user messages an exact fold kept), then the verbatim messages; and the messages
//! left out of every request ([`MemoryState::set_excluded`]) and of the summariser's
//! ([`MemoryState::sent`]).

use super::{MemoryError, MemoryState, MessageState, SUMMARY_ACK, SUMMARY_HEADER, turns};
use crate::engine::message::{CountTokens, Message, Role};
use crate::engine::policy::{HeadPart, request_head};

impl MemoryState {
    /// The context window for the next chat call: the system prompt, the summary where the
    /// policy places it, then the verbatim messages that are not excluded.
    pub fn request(&self, counter: &dyn CountTokens) -> Vec<Message> {
        self.request_leaving_out(counter, |_| false)
    }

    /// [`MemoryState::request`], also leaving out the verbatim messages whose archive index
    /// `leave_out` names (the live chat's replies cut short by a failure).
    pub fn request_leaving_out(
        &self,
        counter: &dyn CountTokens,
        leave_out: impl Fn(usize) -> bool,
    ) -> Vec<Message> {
        let mut out = self.request_prefix(counter);
        let turn_now = self.current_turn_from();
        out.extend(
            self.verbatim()
                .iter()
                .enumerate()
                .map(|(i, m)| (self.verbatim_from + i, m))
                .filter(|(index, _)| !self.excluded.contains(index) && !leave_out(*index))
                .filter(|&(index, m)| !self.hides_tool_traffic(m) || index >= turn_now)
                .map(|(_, m)| m.clone()),
        );
        out
    }

    /// Whether `message` is tool traffic (a tool call or a tool result) that an exact policy
    /// with [`crate::engine::policy::Exact::tools_in_turn_only`] sends only in its own turn's requests
    /// and never to the summariser, as classic LangChain's memory, which stores only each
    /// turn's input and output, does.
    pub(super) fn hides_tool_traffic(&self, message: &Message) -> bool {
        self.policy.exact.tools_in_turn_only
            && (message.role == Role::Tool || !message.calls.is_empty())
    }

    /// The archive index just after the last reply that ended a turn: the current turn's
    /// tool traffic begins there.
    fn current_turn_from(&self) -> usize {
        self.archive
            .iter()
            .rposition(turns::ends_turn)
            .map_or(0, |i| i + 1)
    }

    /// The parts of the request before the verbatim part, as the policy places the summary
    /// ([`crate::engine::policy::request_head`], which the dry run reads too).
    pub(super) fn head_parts(&self) -> Vec<HeadPart> {
        request_head(
            &self.policy.exact,
            self.policy.placement,
            &self.system_prompt,
            self.summary.as_deref(),
            SUMMARY_HEADER,
            SUMMARY_ACK,
        )
    }

    /// The request's messages before the verbatim part ([`MemoryState::head_parts`] as
    /// messages).
    pub(super) fn request_prefix(&self, counter: &dyn CountTokens) -> Vec<Message> {
        let at_ms = self.editions.last().map_or(0, |e| e.at_ms);
        let head = self.head_parts();
        let mut kept = Some(self.kept_users());
        let mut out = Vec::new();
        for part in head {
            match part {
                HeadPart::SystemPrompt => out.push(Message::new(
                    Role::System,
                    self.system_prompt.clone(),
                    counter,
                    0,
                )),
                HeadPart::Summary { role, text } => {
                    // Codex puts the user messages a fold kept between the initial context
                    // and the summary.
                    out.extend(
                        kept.take()
                            .into_iter()
                            .flatten()
                            .map(|k| self.archive[k].clone()),
                    );
                    out.push(Message::new(role, text, counter, at_ms));
                }
                HeadPart::Fixed { role, text } => {
                    out.push(Message::new(role, text, counter, at_ms))
                }
            }
        }
        out
    }

    /// The archive indices of the user messages the last fold kept besides the summary (an
    /// exact policy's [`crate::engine::policy::Exact::keep_user_tokens`]), oldest first; none before
    /// the first fold. They follow from where the verbatim part begins, so a conversation read
    /// back from storage keeps the same ones. Excluded messages are left out.
    fn kept_users(&self) -> Vec<usize> {
        let Some(budget) = self.policy.exact.keep_user_tokens else {
            return Vec::new();
        };
        if !self.editions.iter().any(|e| e.folded.is_some()) {
            return Vec::new();
        }
        crate::engine::policy::kept_user_messages(
            self.archive.iter().map(|m| (m.role, m.tokens)),
            self.verbatim_from,
            budget,
        )
        .into_iter()
        .filter(|k| !self.excluded.contains(k))
        .collect()
    }

    /// Leaves archive message `index` out of every later request (`excluded` true), or sends
    /// it again (false). The archive keeps it either way. Refused for a message that is not in
    /// the archive or is already folded into the summary, which no chat request sends.
    pub fn set_excluded(&mut self, index: usize, excluded: bool) -> Result<(), MemoryError> {
        if index >= self.archive.len() {
            return Err(MemoryError::NoSuchMessage(index));
        }
        if excluded && self.message_state(index) == MessageState::Folded {
            return Err(MemoryError::AlreadyFolded(index));
        }
        if excluded {
            self.excluded.insert(index);
        } else {
            self.excluded.remove(&index);
        }
        Ok(())
    }

    /// Whether archive message `index` is left out of the requests.
    pub fn is_excluded(&self, index: usize) -> bool {
        self.excluded.contains(&index)
    }

    /// The archive indices left out of the requests, ascending.
    pub fn excluded(&self) -> impl Iterator<Item = usize> + '_ {
        self.excluded.iter().copied()
    }

    /// The messages of `range` that a summariser request sends: the excluded ones left out.
    pub(super) fn sent(&self, range: std::ops::Range<usize>) -> Vec<Message> {
        range
            .filter(|index| !self.excluded.contains(index))
            .filter(|&index| !self.hides_tool_traffic(&self.archive[index]))
            .map(|index| self.archive[index].clone())
            .collect()
    }
}
