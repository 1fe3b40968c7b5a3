//! Messages, roles and the token-counting seam the engine is given.

use serde::{Deserialize, Serialize};

/// Who wrote a message, as in the OpenAI chat format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    /// The wire name: `system`, `user` or `assistant`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One message of the conversation. `tokens` is the content's token count, computed once when
/// the message enters the engine and cached here so no later step recounts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub content: String,
    pub tokens: u32,
    /// Milliseconds since the Unix epoch, supplied by the shell (the engine reads no clock).
    pub at_ms: u64,
}

/// One message of a request's `messages` array, as an OpenAI-compatible endpoint takes it. Both
/// the chat requests and the summariser's jobs are made of these.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

/// The one word rule lives in [`super::text`]; this path stays for existing callers.
pub use super::text::word_count;

/// Counts the tokens of a text. The engine is handed one so that it never depends on where the
/// vocabulary comes from; tests use [`WordCounter`].
pub trait CountTokens {
    fn count(&self, text: &str) -> u32;
}

/// A deterministic stand-in counter for tests and dry runs without a vocabulary: one token per
/// whitespace-separated word.
#[derive(Clone, Copy, Debug, Default)]
pub struct WordCounter;

impl CountTokens for WordCounter {
    fn count(&self, text: &str) -> u32 {
        text.split_whitespace().count() as u32
    }
}

impl Message {
    pub fn new(
        role: Role,
        content: impl Into<String>,
        counter: &dyn CountTokens,
        at_ms: u64,
    ) -> Self {
        let content = content.into();
        let tokens = counter.count(&content);
        Message {
            role,
            content,
            tokens,
            at_ms,
        }
    }
}
