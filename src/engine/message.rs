//! Messages, roles and the token-counting seam the engine is given.
//!
//! A message can carry tool traffic, as real transcripts do: an assistant message may hold
//! [`ToolCall`]s (its text may then be empty), and a [`Role::Tool`] message is a call's result,
//! naming the call it answers. A non-text part (an image, audio, a file) is kept in the text as a
//! labelled placeholder such as `[image]`, and listed in `placeholders`, so its token count is
//! known to be an estimate. The token count covers the text, each call's name and arguments,
//! and nothing else. [`Message::readable`] writes the tool traffic out as text for the chat and
//! summariser requests.
//!
//! The [`CountTokens`] seam can count a text that grows at its end (a reply as it streams) from
//! where a [`GrowingCount`] left it; by default it recounts the whole text.

use serde::{Deserialize, Serialize};

/// Who wrote a message, as in the OpenAI chat format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    /// A tool's result (OpenAI's `tool` and legacy `function` roles, Anthropic's
    /// `tool_result` blocks, the Responses API's `function_call_output`).
    Tool,
}

impl Role {
    /// The wire name: `system`, `user`, `assistant` or `tool`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// One tool (function) call an assistant message asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolCall {
    /// The call's id as the transcript gave it (empty for the legacy `function_call`).
    pub id: String,
    pub name: String,
    /// The arguments as written, usually a JSON object in a string.
    pub arguments: String,
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
    /// The tool calls of an assistant message; empty for every other message.
    pub calls: Vec<ToolCall>,
    /// For a [`Role::Tool`] result: the id of the call it answers, when the transcript gave one.
    pub call_id: Option<String>,
    /// For a [`Role::Tool`] result: the tool's name, when the transcript gave it.
    pub tool_name: Option<String>,
    /// The labels of the non-text parts kept in `content` as `[label]` placeholders, in order;
    /// when there is any, `tokens` is an estimate.
    pub placeholders: Vec<String>,
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

/// One message of a request's `messages` array, as an OpenAI-compatible endpoint takes it. Both
/// the chat requests and the summariser's jobs are made of these.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

/// The one word rule lives in [`super::text`]; this path stays for existing callers.
pub use super::text::word_count;

/// The tiktoken vocabularies a policy's counter may count with
/// ([`crate::engine::policy::Counter`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Vocabulary {
    O200k,
    Cl100k,
}

/// Counts a text with a vocabulary (`crate::tokens::TokenCounter` implements it).
pub trait Vocabularies {
    /// Tokens of `text` in `vocabulary`, as tiktoken's `encode_ordinary` counts them.
    fn tokens(&self, vocabulary: Vocabulary, text: &str) -> u32;
}

/// Counts the tokens of a text. The engine is handed one so that it never depends on where the
/// vocabulary comes from; tests use [`WordCounter`].
pub trait CountTokens {
    fn count(&self, text: &str) -> u32;

    /// The vocabularies behind this count, for a policy whose counter names one; `None` for a
    /// count without any (a word count, an estimate), which then stands in for every
    /// vocabulary.
    fn vocabularies(&self) -> Option<&dyn Vocabularies> {
        None
    }

    /// The vocabulary every count this counter gives from now on is exact in, or `None` when a
    /// count may be an estimate (a vocabulary not loaded yet, or failed) or is no vocabulary's
    /// (a word count). A vocabulary once loaded stays, so texts counted after this said
    /// `Some(v)` hold counts exact in `v`: the library records it for each session it counts
    /// ([`crate::app::library::Entry::counted_in`]), and a corpus worker keeps such counts.
    fn exact_in(&self) -> Option<Vocabulary> {
        None
    }

    /// Counts `text`, a text growing at its end (a reply arriving), where `growing` is what
    /// the last call on a shorter version of it left. Always equal to [`CountTokens::count`] of
    /// the whole text; a counter that can do better than counting it again from the start
    /// (the vocabulary's, which recounts only after the last piece boundary that cannot move)
    /// keeps its place in `growing`. Pass a fresh one for a new text.
    fn count_growing(&self, text: &str, growing: &mut GrowingCount) -> u32 {
        *growing = GrowingCount::default();
        self.count(text)
    }
}

/// Where a counter stands in a growing text ([`CountTokens::count_growing`]): how far the text
/// is counted for good, and its count up to there, for the counter that wrote it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GrowingCount {
    /// Which counter (and encoding) wrote it; 0 for none, so a fresh one starts from the start.
    pub by: u8,
    /// Byte offset up to which the text is counted for good.
    pub settled: usize,
    /// Tokens before `settled`.
    pub tokens: u64,
    /// Part of what is before `settled` was estimated rather than tokenised.
    pub estimated: bool,
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
        Message::counted(role, content, tokens, at_ms)
    }

    /// A plain message whose text was counted already (a reply counted as it arrived).
    pub fn counted(role: Role, content: String, tokens: u32, at_ms: u64) -> Self {
        Message {
            role,
            content,
            tokens,
            at_ms,
            calls: Vec::new(),
            call_id: None,
            tool_name: None,
            placeholders: Vec::new(),
        }
    }

    /// A message with tool traffic or placeholders, counted once all its parts are known.
    pub fn with_parts(parts: MessageParts, counter: &dyn CountTokens) -> Self {
        let mut message = Message {
            role: parts.role,
            content: parts.content,
            tokens: 0,
            at_ms: parts.at_ms,
            calls: parts.calls,
            call_id: parts.call_id,
            tool_name: parts.tool_name,
            placeholders: parts.placeholders,
        };
        message.tokens = message.count_with(counter);
        message
    }

    /// The tokens of the text and of each call's name and arguments.
    pub fn count_with(&self, counter: &dyn CountTokens) -> u32 {
        let calls: u32 = self
            .calls
            .iter()
            .map(|c| counter.count(&c.name) + counter.count(&c.arguments))
            .sum();
        counter.count(&self.content) + calls
    }

    /// Whether the message holds tool traffic: calls, or a tool's result.
    pub fn is_tool_traffic(&self) -> bool {
        self.role == Role::Tool || !self.calls.is_empty()
    }

    /// Whether `tokens` is an estimate, because a non-text part stands in as a placeholder.
    pub fn is_estimate(&self) -> bool {
        !self.placeholders.is_empty()
    }

    /// The message as a reader (the summariser, a chat request) takes it: the text, then one
    /// `[called name(arguments)]` line per tool call; a tool result is headed
    /// `[result of name]`. A message without tool traffic is its text alone.
    pub fn readable(&self) -> std::borrow::Cow<'_, str> {
        if !self.is_tool_traffic() {
            return std::borrow::Cow::Borrowed(&self.content);
        }
        let mut out = String::new();
        if self.role == Role::Tool {
            match (&self.tool_name, &self.call_id) {
                (Some(name), _) => out.push_str(&format!("[result of {name}]")),
                (None, Some(id)) => out.push_str(&format!("[result of call {id}]")),
                (None, None) => out.push_str("[tool result]"),
            }
            if !self.content.is_empty() {
                out.push(' ');
            }
        }
        out.push_str(&self.content);
        for call in &self.calls {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!("[called {}({})]", call.name, call.arguments));
        }
        std::borrow::Cow::Owned(out)
    }
}

/// What [`Message::with_parts`] builds a message from (everything but the count).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageParts {
    pub role: Role,
    pub content: String,
    pub at_ms: u64,
    pub calls: Vec<ToolCall>,
    pub call_id: Option<String>,
    pub tool_name: Option<String>,
    pub placeholders: Vec<String>,
}

impl MessageParts {
    /// A plain text message.
    pub fn text(role: Role, content: impl Into<String>) -> Self {
        MessageParts {
            role,
            content: content.into(),
            at_ms: 0,
            calls: Vec::new(),
            call_id: None,
            tool_name: None,
            placeholders: Vec::new(),
        }
    }

    /// Whether there is nothing to keep: no text, no call and no placeholder.
    pub fn is_empty(&self) -> bool {
        self.content.trim().is_empty() && self.calls.is_empty() && self.placeholders.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_counted_and_rendered_readably() {
        let mut parts = MessageParts::text(Role::Assistant, "Let me look.");
        parts.calls.push(ToolCall {
            id: "c1".into(),
            name: "get_weather".into(),
            arguments: "{\"city\": \"Paris\"}".into(),
        });
        let m = Message::with_parts(parts, &WordCounter);
        assert_eq!(m.tokens, 3 + 1 + 2);
        assert_eq!(
            m.readable(),
            "Let me look.\n[called get_weather({\"city\": \"Paris\"})]"
        );
        assert!(m.is_tool_traffic() && !m.is_estimate());

        let mut result = MessageParts::text(Role::Tool, "18 C");
        result.tool_name = Some("get_weather".into());
        let r = Message::with_parts(result, &WordCounter);
        assert_eq!(r.readable(), "[result of get_weather] 18 C");
        let plain = Message::new(Role::User, "hi", &WordCounter, 0);
        assert_eq!(plain.readable(), "hi");
    }

    /// The summariser reads a call and its result as lines of their own, not as empty
    /// assistant text.
    #[test]
    fn the_summariser_request_renders_tool_traffic_readably() {
        let question = Message::new(Role::User, "Weather in Oslo?", &WordCounter, 0);
        let mut call = MessageParts::text(Role::Assistant, "");
        call.calls.push(ToolCall {
            id: "c1".into(),
            name: "forecast".into(),
            arguments: "{\"city\":\"Oslo\"}".into(),
        });
        let mut result = MessageParts::text(Role::Tool, "snow");
        result.call_id = Some("c1".into());
        let turns = [
            question,
            Message::with_parts(call, &WordCounter),
            Message::with_parts(result, &WordCounter),
        ];
        assert_eq!(
            crate::engine::prompts::render_turns(&turns),
            "USER: Weather in Oslo?\nASSISTANT: [called forecast({\"city\":\"Oslo\"})]\nTOOL: [result of call c1] snow"
        );
        // A chat request sends the result as readable user text, since the endpoint would
        // refuse a tool message without the call it belongs to.
        let wire = ChatMessage::from(&turns[2]);
        assert_eq!(
            (wire.role, wire.content.as_str()),
            (Role::User, "[result of call c1] snow")
        );
    }
}
