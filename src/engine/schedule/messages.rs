//! The dry run at message level: every request of a played conversation, message by message,
//! under any policy (the exact vocabulary included), with an instant summariser.
//!
//! The conversation is played as a chat client plays it: each user message, and each run of
//! tool results, is answered by one request, and the assistant messages are the replies. A
//! policy is asked, through [`Policy::decide`] as [`crate::engine::MemoryState`] asks it,
//! before each request and after each reply that ends a turn; a fold decided before a request
//! is already in that request, one decided after a reply in the next.
//!
//! Each request is listed as the fidelity traces list one (`tests/fidelity.rs`): the system
//! prompt, the summary (which summariser call wrote it), the verbatim messages by index, and
//! the fixed messages the policy adds.

use crate::engine::message::{CountTokens, Message, Role};
use crate::engine::policy::{
    Check, Counter, FoldMode, FoldView, HeadPart, Measured, Moment, Policy, SummarySize,
    head_measured, kept_user_messages, request_head, summary_size,
};

/// The sizes of the texts a dry run adds itself: the summary each call writes, and the fixed
/// messages and prefixes of a placement.
pub trait Sizer {
    /// Tokens of `text`.
    fn tokens(&self, text: &str) -> u32;
    /// Characters of a message of `role` holding `text`, as a share by characters measures
    /// it; by default the characters of the text.
    fn chars(&self, role: Role, text: &str) -> u32 {
        let _ = role;
        text.chars().count() as u32
    }
    /// The text summariser call `call` (from 1, over the whole run) writes.
    fn summary(&self, call: u32) -> String;
    /// The text a summariser call writes when it is given `input`; by default
    /// [`Sizer::summary`] of its number, whatever it was given. A sizer whose summary depends
    /// on what it folds (the fidelity tier's, which writes a digest of it) overrides this.
    fn summary_of(&self, input: &SummaryInput) -> String {
        self.summary(input.call)
    }
}

/// What one summariser call is given to fold, in the order a library's summariser receives
/// it: the summary so far (when the policy folds progressively), the conversation messages,
/// then what the fold's earlier calls wrote (Gemini CLI's second call checks its first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummaryInput {
    /// From 1, over the whole run.
    pub call: u32,
    /// The summariser call that wrote the summary it folds into the new one.
    pub summary: Option<u32>,
    /// The conversation messages it folds, by index, in order.
    pub messages: Vec<usize>,
    /// The calls of this fold before it, whose texts it is given after the messages.
    pub earlier: Vec<u32>,
    /// Tokens of all of it (the summaries' texts and the messages), as the run counts them.
    pub tokens: u64,
}

/// One message of the played conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayedMessage {
    pub role: Role,
    pub tokens: u32,
    pub chars: u32,
    /// An assistant message that calls a tool.
    pub calls: bool,
}

/// What to play.
pub struct MessageInput<'a> {
    pub messages: Vec<PlayedMessage>,
    pub system_prompt: &'a str,
    pub system_tokens: u32,
    pub sizer: &'a dyn Sizer,
}

/// One message of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    System,
    /// The summary, written by summariser call `call`, whole as the request carries it.
    Summary {
        call: u32,
        role: Role,
        text: String,
    },
    /// Message `0` of the conversation, unchanged.
    Verbatim(usize),
    Fixed {
        role: Role,
        text: String,
    },
}

/// One chat request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestRow {
    /// From 1.
    pub request: u32,
    /// The index of the user or tool message the request answers.
    pub answers: usize,
    pub messages: Vec<Slot>,
    pub tokens: u64,
    /// The first verbatim message of the conversation in this request.
    pub from: usize,
}

/// The whole run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageRun {
    pub requests: Vec<RequestRow>,
    /// Summariser calls, every call of a fold counted.
    pub calls: u32,
    /// Folds.
    pub folds: u32,
    /// What each summariser call was given, in call order.
    pub inputs: Vec<SummaryInput>,
}

/// A conversation's messages as the dry run plays them under a policy measured with
/// `counter` (system messages left out): each sized by [`Counter::sized`] in a run counting
/// with `run`.
pub fn played(messages: &[Message], counter: Counter, run: &dyn CountTokens) -> Vec<PlayedMessage> {
    messages
        .iter()
        .filter(|m| m.role != Role::System)
        .map(|m| PlayedMessage {
            role: m.role,
            tokens: counter.sized(m, run),
            chars: m.content.chars().count() as u32,
            calls: !m.calls.is_empty(),
        })
        .collect()
}

/// The system prompt's tokens as a policy measured with `counter` sees them: the run's count
/// for the default; else the prompt as a system message (none when it is empty), plus what
/// the counter adds once per request (the chat format's reply priming).
pub fn system_tokens(prompt: &str, counter: Counter, run: &dyn CountTokens) -> u32 {
    if counter.is_default() {
        run.count(prompt)
    } else if prompt.is_empty() {
        counter.per_request()
    } else {
        counter.sized_text(Role::System, prompt, run) + counter.per_request()
    }
}

/// Whether a request answers message `i`: a user message or the last of a run of tool
/// results, followed by a reply or by nothing.
pub fn answers(messages: &[PlayedMessage], i: usize) -> bool {
    matches!(messages[i].role, Role::User | Role::Tool)
        && messages
            .get(i + 1)
            .is_none_or(|next| next.role == Role::Assistant)
}

/// Plays `input` under `policy`.
pub fn schedule_messages(policy: &Policy, input: &MessageInput<'_>) -> MessageRun {
    let sized: Vec<Measured> = input
        .messages
        .iter()
        .map(|m| Measured {
            role: m.role,
            tokens: m.tokens,
            chars: m.chars,
            calls: m.calls,
        })
        .collect();
    let mut run = State {
        policy,
        input,
        sized,
        stored: Vec::new(),
        scratch: Vec::new(),
        from: 0,
        summary: None,
        kept_users: Vec::new(),
        calls: 0,
        folds: 0,
        checked: 0,
        reported: None,
        texts: Vec::new(),
        inputs: Vec::new(),
    };
    let mut requests = Vec::new();
    let turn_only = policy.exact.tools_in_turn_only;
    for i in 0..input.messages.len() {
        let m = input.messages[i];
        let tool_traffic = m.role == Role::Tool || m.calls;
        if turn_only && tool_traffic {
            run.scratch.push(i);
        } else {
            run.stored.push(i);
            if m.role == Role::Assistant {
                run.scratch.clear();
            }
        }
        if answers(&input.messages, i) {
            run.check(i, Moment::BeforeRequest);
            let row = run.request(requests.len() as u32 + 1, i);
            run.reported = Some(row.tokens);
            requests.push(row);
        }
        if m.role == Role::Assistant && !m.calls {
            run.check(i, Moment::AfterReply);
        }
    }
    MessageRun {
        requests,
        calls: run.calls,
        folds: run.folds,
        inputs: run.inputs,
    }
}

struct State<'p, 'i> {
    policy: &'p Policy,
    input: &'i MessageInput<'i>,
    sized: Vec<Measured>,
    /// The messages the history stores, in order, as conversation indices.
    stored: Vec<usize>,
    /// This turn's tool traffic, when it is sent in its own turn only.
    scratch: Vec<usize>,
    /// The first verbatim message, as an index into `stored`.
    from: usize,
    /// The current summary: the call that wrote it, and its text.
    summary: Option<(u32, String)>,
    /// The user messages a fold kept besides the summary (Codex), oldest first.
    kept_users: Vec<usize>,
    calls: u32,
    folds: u32,
    /// Messages at the previous check.
    checked: usize,
    reported: Option<u64>,
    /// The text each summariser call wrote, by call (from 1).
    texts: Vec<String>,
    inputs: Vec<SummaryInput>,
}

impl State<'_, '_> {
    fn head(&self) -> Vec<HeadPart> {
        request_head(
            &self.policy.exact,
            self.policy.placement,
            self.input.system_prompt,
            self.summary.as_ref().map(|s| s.1.as_str()),
            crate::engine::policy::SUMMARY_HEADER,
            crate::engine::policy::SUMMARY_ACK,
        )
    }

    fn summary_size(&self, head: &[HeadPart]) -> Option<SummarySize> {
        let sizer = self.input.sizer;
        summary_size(
            head,
            self.policy.exact.context_message.as_deref(),
            u64::from(self.input.system_tokens),
            |t| u64::from(sizer.tokens(t)),
            |role, t| u64::from(sizer.chars(role, t)),
        )
    }

    /// Asks the policy at message `i` and applies what it decides.
    fn check(&mut self, i: usize, moment: Moment) {
        let head = self.head();
        let sizer = self.input.sizer;
        let stored = head_measured(&head, |t| sizer.tokens(t), |role, t| sizer.chars(role, t));
        let history: Vec<Measured> = self.stored[self.from..]
            .iter()
            .map(|&k| self.sized[k])
            .collect();
        let check = Check {
            view: FoldView {
                messages: &history,
                moment,
                system_tokens: u64::from(self.input.system_tokens),
                summary: self.summary_size(&head),
                head: &stored,
                reported: self.reported,
            },
            messages_before: self.checked,
            messages_now: i + 1,
        };
        let fold = self.policy.decide(&check);
        if moment == Moment::AfterReply {
            self.checked = i + 1;
        }
        if !fold.call {
            return;
        }
        let folded_to = self.from + fold.messages;
        if let Some(budget) = self.policy.exact.keep_user_tokens {
            let to = self.stored.get(folded_to).copied().unwrap_or(i + 1);
            self.kept_users = kept_user_messages(
                self.input.messages.iter().map(|m| (m.role, m.tokens)),
                to,
                budget,
            );
        }
        // What the summariser is given: progressively, the summary so far and the messages
        // this fold takes; rebuilding, every message folded so far and no summary.
        let (start, summary) = match self.policy.fold {
            FoldMode::Progressive => (self.from, self.summary.as_ref().map(|s| s.0)),
            FoldMode::RebuildFromArchive => (0, None),
        };
        let messages = self.stored[start..folded_to].to_vec();
        let written = |call: u32| u64::from(sizer.tokens(&self.texts[call as usize - 1]));
        let folded: u64 = summary.map_or(0, written)
            + messages
                .iter()
                .map(|&k| u64::from(self.input.messages[k].tokens))
                .sum::<u64>();
        self.from = folded_to;
        self.folds += 1;
        let mut earlier: Vec<u32> = Vec::new();
        let mut tokens = folded;
        for _ in 0..self.policy.exact.calls_per_fold.max(1) {
            self.calls += 1;
            let input = SummaryInput {
                call: self.calls,
                summary,
                messages: messages.clone(),
                earlier: earlier.clone(),
                tokens,
            };
            let text = sizer.summary_of(&input);
            // A fold's later call checks the text its earlier one wrote (Gemini CLI's second).
            tokens += u64::from(sizer.tokens(&text));
            self.texts.push(text);
            self.inputs.push(input);
            earlier.push(self.calls);
        }
        let text = self.texts.last().cloned().unwrap_or_default();
        self.summary = Some((self.calls, text));
    }

    /// The request that answers message `i`.
    fn request(&self, request: u32, i: usize) -> RequestRow {
        let head = self.head();
        let sizer = self.input.sizer;
        let mut messages = Vec::new();
        let mut tokens = 0u64;
        let call = self.summary.as_ref().map_or(0, |s| s.0);
        let kept = self.kept_users.iter().map(|&k| Slot::Verbatim(k));
        let mut kept = Some(kept);
        for part in head {
            match part {
                HeadPart::SystemPrompt => {
                    tokens += u64::from(self.input.system_tokens);
                    messages.push(Slot::System);
                }
                HeadPart::Summary { role, text } => {
                    // Codex puts the kept user messages between the initial context and the
                    // summary.
                    for slot in kept.take().into_iter().flatten() {
                        if let Slot::Verbatim(k) = slot {
                            tokens += u64::from(self.input.messages[k].tokens);
                        }
                        messages.push(slot);
                    }
                    tokens += u64::from(sizer.tokens(&text));
                    messages.push(Slot::Summary { call, role, text });
                }
                HeadPart::Fixed { role, text } => {
                    tokens += u64::from(sizer.tokens(&text));
                    messages.push(Slot::Fixed { role, text });
                }
            }
        }
        for &k in self.stored[self.from..].iter().chain(&self.scratch) {
            tokens += u64::from(self.input.messages[k].tokens);
            messages.push(Slot::Verbatim(k));
        }
        RequestRow {
            request,
            answers: i,
            messages,
            tokens,
            from: self.stored.get(self.from).copied().unwrap_or(i + 1),
        }
    }
}

#[cfg(test)]
mod tests;
