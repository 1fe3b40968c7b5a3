//! Counting a whole chat request: content tokens plus the chat format's overhead, kept apart so
//! the UI can show both.
//!
//! The rule is the one in OpenAI's cookbook ("How to count tokens with tiktoken") for
//! gpt-3.5-turbo and later: every message costs [`TOKENS_PER_MESSAGE`] tokens for its framing
//! (`<|start|>`, the role/content separator and `<|end|>`), plus the tokens of its role string, plus
//! the tokens of its name and [`TOKENS_PER_NAME`] when a name is set; every request costs
//! [`REPLY_PRIMING`] tokens for `<|start|>assistant<|message|>`, which primes the reply. The role
//! strings `system`, `user` and `assistant` are one token each in both encodings (a test checks
//! this against the vocabularies), so a message without a name has an overhead of 4.
//!
//! This is an approximation. OpenAI does not document the exact framing and it has changed
//! between models; other providers' models (Llama, Mistral, Claude, ...) frame messages with
//! their own templates and tokenizers, so for them both the overhead and the content counts are
//! estimates of the same order, not exact figures.

use crate::engine::{Message, Role};

use super::count::Count;
use super::counter::TokenCounter;
use super::encoding::Encoding;

/// Framing tokens of every message.
pub const TOKENS_PER_MESSAGE: u32 = 3;
/// Extra token when a message carries a `name`.
pub const TOKENS_PER_NAME: u32 = 1;
/// Tokens that prime the assistant's reply, once per request.
pub const REPLY_PRIMING: u32 = 3;
/// Tokens of each role string (`system`, `user`, `assistant`) in both encodings.
const ROLE_TOKENS: u32 = 1;

/// One message of a request as the chat format sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChatTurn<'a> {
    pub role: Role,
    /// The optional `name` field of the OpenAI message format.
    pub name: Option<&'a str>,
    pub content: &'a str,
}

impl<'a> From<&'a Message> for ChatTurn<'a> {
    fn from(message: &'a Message) -> Self {
        ChatTurn {
            role: message.role,
            name: None,
            content: &message.content,
        }
    }
}

/// The count of one message, content and overhead apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnCount {
    /// Tokens of the content.
    pub content: Count,
    /// Tokens of the name (`Exact(0)` without one).
    pub name: Count,
    /// Framing and role tokens, plus [`TOKENS_PER_NAME`] when a name is set.
    pub overhead: u32,
}

impl TurnCount {
    /// Content, name and overhead together.
    pub fn total(&self) -> Count {
        self.content + self.name + self.overhead
    }
}

/// The count of a whole request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatCount {
    /// One entry per message, in order.
    pub turns: Vec<TurnCount>,
    /// [`REPLY_PRIMING`], counted once per request.
    pub reply_priming: u32,
}

impl ChatCount {
    /// The sum of the messages' content tokens.
    pub fn content(&self) -> Count {
        self.turns.iter().map(|t| t.content).sum()
    }

    /// Everything that is not content: framing, roles, names and reply priming.
    pub fn overhead(&self) -> Count {
        let names: Count = self.turns.iter().map(|t| t.name).sum();
        let framing: u32 = self.turns.iter().map(|t| t.overhead).sum();
        names + framing + self.reply_priming
    }

    /// What the request costs in prompt tokens, by the rule above.
    pub fn total(&self) -> Count {
        self.content() + self.overhead()
    }
}

impl TokenCounter {
    /// Counts a chat request with the current encoding; each text goes through the cache, so
    /// recounting after one edit or one new turn tokenises only that text.
    pub fn count_chat<'a>(&self, turns: impl IntoIterator<Item = ChatTurn<'a>>) -> ChatCount {
        self.count_chat_with(self.encoding(), turns)
    }

    /// Counts a chat request with `encoding`.
    pub fn count_chat_with<'a>(
        &self,
        encoding: Encoding,
        turns: impl IntoIterator<Item = ChatTurn<'a>>,
    ) -> ChatCount {
        let turns = turns
            .into_iter()
            .map(|turn| TurnCount {
                content: self.count_with(encoding, turn.content),
                name: turn
                    .name
                    .map_or(Count::Exact(0), |name| self.count_with(encoding, name)),
                overhead: TOKENS_PER_MESSAGE
                    + ROLE_TOKENS
                    + if turn.name.is_some() {
                        TOKENS_PER_NAME
                    } else {
                        0
                    },
            })
            .collect();
        ChatCount {
            turns,
            reply_priming: REPLY_PRIMING,
        }
    }
}
