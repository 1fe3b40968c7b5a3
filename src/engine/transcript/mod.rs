//! Transcripts other tools write, read into conversations: OpenAI Chat Completions messages
//! (`openai_chat.rs`), OpenAI Responses API input items (`responses.rs`), an Anthropic Messages
//! request (`anthropic.rs`), a ChatGPT data export (`chatgpt.rs`), a Claude.ai data export or
//! single conversation (`claude_ai.rs`), ShareGPT datasets (`sharegpt.rs`), and JSON Lines of
//! any of them (`lines.rs`), with the JSON paths and placeholders they share in `parts.rs`. The
//! chat apps' exports have a module each (`openwebui.rs`, `librechat.rs`, `chatbot_ui.rs`,
//! `sillytavern.rs`), coding agents' session logs too (`claude_code.rs`, `codex.rs`), and a
//! request a logging proxy wrapped is unwrapped first (`wrapper.rs`). A
//! ChatGPT export is read by following each conversation's `mapping` from its `current_node` up
//! to the root. The format is detected from the content ([`detect`]), never from a
//! file name, and is reported with the result; [`Format::ALL`] is the one list of what is read.
//!
//! Pure: the readers take parsed JSON and return [`Conversation`]s of [`MessageParts`], or a
//! [`TranscriptError`] naming the place (a JSON path, a line, a conversation and node) and the
//! reason. Counting tokens and building sessions is `engine::session`'s job.
//!
//! What every reader keeps: each message's text; tool calls (name, arguments) on the assistant
//! message that made them; tool results as [`Role::Tool`] messages naming their call (and the
//! tool, looked up from the call when the format names only the id); non-text parts as
//! `[label]` placeholders. Leading `system` and `developer` messages become the system prompt.
//! What none keeps: reasoning that the format marks as such (Anthropic and Claude.ai
//! `thinking`, Responses `reasoning` items, ChatGPT `thoughts` and `reasoning_recap`), since no
//! request sends it back as conversation.

mod agent_log;
mod agents;
mod anthropic;
mod chatbot_ui;
mod chatgpt;
mod claude_ai;
mod claude_code;
mod codex;
mod librechat;
mod lines;
mod openai_chat;
mod openwebui;
mod parts;
mod responses;
mod sharegpt;
mod sillytavern;
pub mod stream;
mod wrapper;

#[cfg(test)]
mod stream_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_apps;
#[cfg(test)]
mod wild_tests;

use serde_json::Value;
use thiserror::Error;

use crate::engine::edition::Compactor;
use crate::engine::message::{MessageParts, Role};

pub use lines::read_lines;

/// How a reader may take a JSON Lines file whose first line is `first`: when it is a whole
/// conversation (as [`read_lines`] reads a file of them), each line can be read on its own, so
/// a file of any size streams line by line. A coding agent's log or a SillyTavern chat, whose
/// lines are records of one conversation, is read whole.
pub fn lines_stream(first: &Value) -> bool {
    lines::is_whole(first) && agents::read(&[(1, first.clone())]).is_none()
}

/// Whether a line of a proxy's log is a request without a body (a health check, a model list),
/// which [`read_lines`] passes over.
pub fn is_bodiless_line(value: &Value) -> bool {
    wrapper::is_bodiless_record(value)
}

/// The transcript formats this module reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    OpenAiChat,
    OpenAiResponses,
    Anthropic,
    ChatGptExport,
    ClaudeExport,
    ShareGpt,
    /// A Claude Code session log (`~/.claude/projects/<dir>/<session>.jsonl`).
    ClaudeCode,
    /// A Codex CLI session rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    Codex,
    OpenWebUi,
    LibreChat,
    ChatbotUi,
    SillyTavern,
}

impl Format {
    /// Every format read, in the order the page lists them. A new format joins this table and
    /// is then named wherever the app says what it reads ([`reads`]).
    pub const ALL: &'static [Format] = &[
        Format::OpenAiChat,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::ChatGptExport,
        Format::ClaudeExport,
        Format::ShareGpt,
        Format::OpenWebUi,
        Format::LibreChat,
        Format::ChatbotUi,
        Format::SillyTavern,
        Format::ClaudeCode,
        Format::Codex,
    ];

    /// The words the page shows for the format read.
    pub fn label(self) -> &'static str {
        match self {
            Format::OpenAiChat => "OpenAI Chat Completions messages",
            Format::OpenAiResponses => "OpenAI Responses API input items",
            Format::Anthropic => "an Anthropic Messages request",
            Format::ChatGptExport => "a ChatGPT data export",
            Format::ClaudeExport => "a Claude.ai export",
            Format::ShareGpt => "a ShareGPT dataset",
            Format::ClaudeCode => "a Claude Code session log",
            Format::Codex => "a Codex CLI session rollout",
            Format::OpenWebUi => "an Open WebUI chat export",
            Format::LibreChat => "a LibreChat conversation export",
            Format::ChatbotUi => "a Chatbot UI export",
            Format::SillyTavern => "a SillyTavern chat",
        }
    }

    /// Whether the format is JSON Lines by definition (a coding agent's log), so saying so adds
    /// nothing to its name or slug.
    pub fn is_lines_only(self) -> bool {
        matches!(self, Format::ClaudeCode | Format::Codex)
    }

    /// A stable slug, the page's `data-format`.
    pub fn slug(self) -> &'static str {
        match self {
            Format::OpenAiChat => "openai-chat",
            Format::OpenAiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::ChatGptExport => "chatgpt-export",
            Format::ClaudeExport => "claude-export",
            Format::ShareGpt => "sharegpt",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::OpenWebUi => "openwebui",
            Format::LibreChat => "librechat",
            Format::ChatbotUi => "chatbot-ui",
            Format::SillyTavern => "sillytavern",
        }
    }
}

/// The formats read, as one phrase: "OpenAI Chat Completions messages, ..., or a ShareGPT
/// dataset", from [`Format::ALL`].
pub fn reads() -> String {
    let labels: Vec<&str> = Format::ALL.iter().map(|f| f.label()).collect();
    match labels.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// What was read: the format, whether it came as JSON Lines, every conversation, and the
/// conversations that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transcript {
    pub format: Format,
    pub json_lines: bool,
    pub conversations: Vec<Conversation>,
    /// Conversations of a many-conversation file that could not be read. One bad conversation
    /// never sinks a file: the others import, and the note names each of these.
    pub skipped: Vec<Skipped>,
}

/// A conversation left out of an import: where it stands, its title if it has one, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub place: String,
    pub title: Option<String>,
    pub reason: String,
}

impl Skipped {
    /// The words the page shows: `[3] "Trip to Rome" at [3].mapping.n2: the node is missing`.
    pub fn describe(&self) -> String {
        match &self.title {
            Some(title) => format!("\"{title}\" ({}: {})", self.place, self.reason),
            None => format!("{}: {}", self.place, self.reason),
        }
    }
}

/// The conversations of a many-conversation file, each read on its own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Batch {
    pub(crate) conversations: Vec<Conversation>,
    pub(crate) skipped: Vec<Skipped>,
}

impl Batch {
    /// Reads one conversation of the file into the batch: its conversations on success, or a
    /// [`Skipped`] naming it (by `value`'s `title` or `name`) on failure.
    pub(crate) fn read(
        &mut self,
        value: &Value,
        read: impl FnOnce() -> Result<Vec<Conversation>, TranscriptError>,
    ) {
        match read() {
            Ok(conversations) => self.conversations.extend(conversations),
            Err(e) => self.skipped.push(Skipped {
                place: e.place,
                title: ["title", "name"]
                    .iter()
                    .find_map(|k| value.get(k).and_then(Value::as_str))
                    .filter(|t| !t.trim().is_empty())
                    .map(str::to_owned),
                reason: e.reason,
            }),
        }
    }

    /// Reads each of `items` (named by `place`) with `read`, a conversation that fails skipped
    /// and named: the batch, or the first error when none could be read.
    pub(crate) fn of_each(
        items: &[Value],
        place: impl Fn(usize) -> String,
        read: impl Fn(&Value, &str) -> Result<Vec<Conversation>, TranscriptError>,
    ) -> Result<Batch, TranscriptError> {
        let mut batch = Batch::default();
        for (i, item) in items.iter().enumerate() {
            batch.read(item, || read(item, &place(i)));
        }
        batch.finish()
    }

    /// Reads an export that is one conversation at `prefix`, or an array of them, each with
    /// `conversation`, as [`Batch::of_each`] does.
    pub(crate) fn of_one_or_many(
        value: &Value,
        prefix: &str,
        conversation: impl Fn(&Value, &str) -> Result<Conversation, TranscriptError>,
    ) -> Result<Batch, TranscriptError> {
        let read = |item: &Value, at: &str| Ok(vec![conversation(item, at)?]);
        match value {
            Value::Array(items) => Batch::of_each(items, |i| format!("{prefix}[{i}]"), read),
            _ => Batch::of_each(std::slice::from_ref(value), |_| prefix.to_owned(), read),
        }
    }

    /// The batch, or the first conversation's error when none could be read: a file with
    /// nothing to import is refused, naming what is wrong with it.
    pub(crate) fn finish(self) -> Result<Batch, TranscriptError> {
        match self.skipped.first() {
            Some(first) if self.conversations.is_empty() => {
                Err(TranscriptError::new(&first.place, &first.reason))
            }
            _ => Ok(self),
        }
    }
}

/// One conversation of a transcript.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conversation {
    /// The title, when the format has one (a ChatGPT export does).
    pub title: Option<String>,
    /// The leading system and developer messages, joined by blank lines.
    pub system: String,
    /// Every other message, in order.
    pub messages: Vec<MessageParts>,
    /// The compactions the tool that wrote the transcript recorded itself (a coding agent's
    /// session log), oldest first; empty for every other format.
    pub compactions: Vec<Compaction>,
}

/// One compaction a tool made of its own conversation: where it cut, and the summary it wrote
/// in place of everything before the cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compaction {
    /// How many of the conversation's messages came before the boundary: the tool replaced them
    /// (and any earlier summary) with `summary`. Never more than the messages read.
    pub at: usize,
    /// The summary as the tool wrote it.
    pub summary: String,
    pub tool: Compactor,
    /// When it compacted, in milliseconds since the epoch; 0 when the log does not say.
    pub at_ms: u64,
    /// `manual` or `auto`, when the log says.
    pub trigger: Option<String>,
    /// The tokens the tool counted in its context just before it compacted, when the log says
    /// (Claude Code's `preTokens`).
    pub tokens_before: Option<u32>,
    /// The model the tool ran when it compacted, when the log says (Codex's turn context).
    pub model: Option<String>,
}

/// Why a transcript could not be read: where, and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("at {place}: {reason}")]
pub struct TranscriptError {
    /// A JSON path (`messages[3].content[1].type`), a line (`line 4: role`), or a conversation
    /// and node of a ChatGPT export.
    pub place: String,
    pub reason: String,
}

impl TranscriptError {
    pub(crate) fn new(place: impl Into<String>, reason: impl Into<String>) -> Self {
        TranscriptError {
            place: place.into(),
            reason: reason.into(),
        }
    }
}

/// Reads a parsed JSON value as a transcript, or `None` when it is none of the formats (the
/// caller then says what it expected). `Some(Err)` is a transcript with a fault. A request
/// captured by a logging proxy is read from the body it wraps, its places named from the top.
pub fn read_value(value: &Value) -> Option<Result<Transcript, TranscriptError>> {
    match wrapper::unwrap(value) {
        Some((prefix, body)) => read_at(&body, &prefix),
        None => read_at(value, ""),
    }
}

fn read_at(value: &Value, prefix: &str) -> Option<Result<Transcript, TranscriptError>> {
    let format = detect(value)?;
    let batch = match value {
        _ if format.is_chat_app() => read_chat_app(format, value, prefix),
        Value::Array(items) => read_items(format, items, &|i| format!("{prefix}[{i}]")),
        Value::Object(_) => match claude_ai::wrapped(value) {
            Some(items) if format == Format::ClaudeExport => {
                read_items(format, items, &|i| format!("{prefix}conversations[{i}]"))
            }
            _ => read_body(format, value, prefix).map(|conversations| Batch {
                conversations,
                skipped: Vec::new(),
            }),
        },
        _ => return None,
    };
    Some(batch.map(|batch| Transcript {
        format,
        json_lines: false,
        conversations: batch.conversations,
        skipped: batch.skipped,
    }))
}

impl Format {
    /// Whether the format is a chat app's export (or chat file), read by its own module into
    /// as many conversations as it holds, rather than a request body of messages.
    fn is_chat_app(self) -> bool {
        matches!(
            self,
            Format::OpenWebUi | Format::LibreChat | Format::ChatbotUi | Format::SillyTavern
        )
    }
}

/// Reads a chat app's export at `prefix` with the module of its format.
fn read_chat_app(format: Format, value: &Value, prefix: &str) -> Result<Batch, TranscriptError> {
    match format {
        Format::OpenWebUi => openwebui::read(value, prefix),
        Format::LibreChat => librechat::read(value, prefix),
        Format::ChatbotUi => chatbot_ui::read(value, prefix),
        _ => Err(TranscriptError::new(
            prefix,
            format!("{} is read from JSON Lines only", format.label()),
        )),
    }
}

/// Which chat app's export a value is, from keys only that app writes: checked before the
/// request formats, whose detection would otherwise see an app's `messages` as a request's.
fn detect_chat_app(value: &Value) -> Option<Format> {
    if openwebui::is_export(value) {
        Some(Format::OpenWebUi)
    } else if librechat::is_export(value) {
        Some(Format::LibreChat)
    } else if chatbot_ui::is_export(value) {
        Some(Format::ChatbotUi)
    } else {
        None
    }
}

/// Which format a value is, from its shape: a chat app's export has keys only that app writes
/// (see [`detect_chat_app`]); a proxy's record is detected by the body it wraps; a ChatGPT
/// export has `mapping`s; a Claude.ai export has `chat_messages`; a ShareGPT record has
/// `conversations` of `from`/`value` turns; a Responses input has typed items (`message`,
/// `function_call`, ...) or `input`; an Anthropic request has a top-level `system`, a `claude`
/// model or Anthropic content blocks; anything else with role-bearing messages is OpenAI Chat
/// Completions.
pub fn detect(value: &Value) -> Option<Format> {
    if let Some(format) = detect_chat_app(value) {
        return Some(format);
    }
    if let Some((_, body)) = wrapper::unwrap(value) {
        return detect(&body);
    }
    match value {
        Value::Array(items) => detect_items(items, None),
        Value::Object(map) => {
            if map.contains_key("mapping") {
                Some(Format::ChatGptExport)
            } else if claude_ai::is_conversation(value) || claude_ai::wrapped(value).is_some() {
                Some(Format::ClaudeExport)
            } else if sharegpt::is_record(value) {
                Some(Format::ShareGpt)
            } else if map.contains_key("input") && !map.contains_key("messages") {
                Some(Format::OpenAiResponses)
            } else if let Some(Value::Array(messages)) = map.get("messages") {
                detect_items(messages, Some(value))
            } else {
                None
            }
        }
        _ => None,
    }
}

pub(crate) fn detect_items(items: &[Value], body: Option<&Value>) -> Option<Format> {
    if items.is_empty() {
        return Some(Format::OpenAiChat);
    }
    // A ChatGPT export is an array of conversations with `mapping`s; one entry without it is a
    // broken conversation of the export (skipped when read), not another format.
    if items.iter().all(Value::is_object) && items.iter().any(|i| i.get("mapping").is_some()) {
        return Some(Format::ChatGptExport);
    }
    if !items.iter().all(Value::is_object) {
        return None;
    }
    // The same holds for a Claude.ai export (conversations with `chat_messages`) and a ShareGPT
    // dataset (records of turns): one entry without them is a broken entry of the file.
    if items.iter().any(claude_ai::is_conversation) {
        return Some(Format::ClaudeExport);
    }
    if items.iter().any(sharegpt::is_record) {
        return Some(Format::ShareGpt);
    }
    if items.iter().any(responses::is_item) {
        return Some(Format::OpenAiResponses);
    }
    // A `system` message is OpenAI's role, but a request sent to Anthropic through a proxy
    // carries one too: there the body or an Anthropic content block decides.
    let openai_only = |i: &Value| {
        i.get("role").and_then(Value::as_str) != Some("system") && openai_chat::has_openai_signal(i)
    };
    if items.iter().any(openai_only) {
        return Some(Format::OpenAiChat);
    }
    let body_says_anthropic = body.is_some_and(|b| {
        b.get("system").is_some()
            || b.get("model")
                .and_then(Value::as_str)
                .is_some_and(|m| m.starts_with("claude"))
    });
    if body_says_anthropic || items.iter().any(anthropic::has_anthropic_signal) {
        return Some(Format::Anthropic);
    }
    if items.iter().any(openai_chat::has_openai_signal) {
        return Some(Format::OpenAiChat);
    }
    if items.iter().all(|i| i.get("role").is_some()) {
        return Some(Format::OpenAiChat);
    }
    None
}

/// Reads a request body (or one ChatGPT conversation object) at `prefix`.
pub(crate) fn read_body(
    format: Format,
    value: &Value,
    prefix: &str,
) -> Result<Vec<Conversation>, TranscriptError> {
    let at = |field: &str| parts::join(prefix, field);
    match format {
        Format::ChatGptExport => Ok(vec![chatgpt::conversation(value, prefix)?]),
        Format::ClaudeExport => Ok(vec![claude_ai::conversation(value, prefix)?]),
        Format::ShareGpt => Ok(vec![sharegpt::record(value, prefix)?]),
        Format::ClaudeCode | Format::Codex => Err(agent_log_alone(format, prefix)),
        Format::OpenAiResponses => {
            let mut builder = Builder::default();
            if let Some(instructions) = value.get("instructions").and_then(Value::as_str) {
                builder.system(instructions, &at("instructions"))?;
            }
            // Responses items sent under `messages` (some proxies log them so) read the same.
            match value.get("input").or_else(|| value.get("messages")) {
                Some(Value::String(text)) => builder.push(MessageParts::text(Role::User, text)),
                Some(Value::Array(items)) => {
                    let place = |i: usize| at(&format!("input[{i}]"));
                    responses::read(&mut builder, items, &place)?;
                }
                _ => {
                    return Err(TranscriptError::new(
                        at("input"),
                        "expected a string or an array of input items",
                    ));
                }
            }
            Ok(vec![builder.finish(None)])
        }
        Format::OpenWebUi | Format::LibreChat | Format::ChatbotUi | Format::SillyTavern => {
            Ok(read_chat_app(format, value, prefix)?.conversations)
        }
        Format::OpenAiChat | Format::Anthropic => {
            let Some(Value::Array(messages)) = value.get("messages") else {
                return Err(TranscriptError::new(
                    at("messages"),
                    "expected an array of messages",
                ));
            };
            // A `system` message inside an Anthropic request's `messages` (which the API itself
            // refuses) is what proxies such as LiteLLM lift into the system prompt wherever it
            // stands (BerriAI/litellm, litellm/llms/anthropic/chat/transformation.py,
            // `translate_system_message`), so here it joins the system prompt in order too.
            let mut builder = Builder {
                late_system_allowed: format == Format::Anthropic,
                ..Builder::default()
            };
            if format == Format::Anthropic
                && let Some(system) = value.get("system")
            {
                let text = anthropic::system_text(system, &at("system"))?;
                builder.system(&text, &at("system"))?;
            }
            let place = |i: usize| at(&format!("messages[{i}]"));
            read_messages(format, &mut builder, messages, &place)?;
            Ok(vec![builder.finish(None)])
        }
    }
}

/// Reads one entry of an export or dataset that is an array of conversations (ChatGPT,
/// Claude.ai, ShareGPT, Open WebUI, LibreChat, Chatbot UI version 1) at `place`, or `None` for
/// a format whose array is not one of conversations. The one conversion of an entry: the
/// whole-file readers ([`Batch::of_each`] over the array) and the streaming reader
/// ([`stream`], entry by entry) both go through each format's function named here.
pub(crate) fn read_entry(
    format: Format,
    item: &Value,
    place: &str,
) -> Option<Result<Conversation, TranscriptError>> {
    Some(match format {
        Format::ChatGptExport => chatgpt::conversation(item, place),
        Format::ClaudeExport => claude_ai::conversation(item, place),
        Format::ShareGpt => sharegpt::record(item, place),
        Format::OpenWebUi => openwebui::conversation(item, place),
        Format::LibreChat => librechat::conversation(item, place),
        Format::ChatbotUi => chatbot_ui::conversation(item, place),
        _ => return None,
    })
}

/// Which format an entry of a top-level array is, when it is a conversation of an export or
/// dataset read entry by entry (see [`read_entry`]), checked in [`detect`]'s order: the chat
/// apps' own keys first.
pub(crate) fn detect_entry(item: &Value) -> Option<Format> {
    if !item.is_object() {
        None
    } else if openwebui::is_entry(item) {
        Some(Format::OpenWebUi)
    } else if librechat::is_conversation(item) {
        Some(Format::LibreChat)
    } else if chatbot_ui::is_conversation(item) {
        Some(Format::ChatbotUi)
    } else if item.get("mapping").is_some() {
        Some(Format::ChatGptExport)
    } else if claude_ai::is_conversation(item) {
        Some(Format::ClaudeExport)
    } else if sharegpt::is_record(item) {
        Some(Format::ShareGpt)
    } else {
        None
    }
}

/// Reads a bare array of items of `format`, each item named by `place`: one conversation of
/// messages, or, for an export or a dataset (ChatGPT, Claude.ai, ShareGPT), one conversation per
/// item, each read on its own.
pub(crate) fn read_items(
    format: Format,
    items: &[Value],
    place: &dyn Fn(usize) -> String,
) -> Result<Batch, TranscriptError> {
    match format {
        Format::ChatGptExport | Format::ClaudeExport | Format::ShareGpt => {
            Batch::of_each(items, place, |item, at| {
                let entry = read_entry(format, item, at).expect("an export's entry");
                Ok(vec![entry?])
            })
        }
        f if f.is_chat_app() => Batch::of_each(items, place, |item, at| {
            Ok(read_chat_app(f, item, at)?.conversations)
        }),
        _ => {
            let mut builder = Builder {
                late_system_allowed: format == Format::Anthropic,
                ..Builder::default()
            };
            read_messages(format, &mut builder, items, place)?;
            Ok(Batch {
                conversations: vec![builder.finish(None)],
                skipped: Vec::new(),
            })
        }
    }
}

fn read_messages(
    format: Format,
    builder: &mut Builder,
    items: &[Value],
    place: &dyn Fn(usize) -> String,
) -> Result<(), TranscriptError> {
    match format {
        Format::OpenAiChat => {
            for (i, item) in items.iter().enumerate() {
                openai_chat::message(builder, item, &place(i))?;
            }
            Ok(())
        }
        Format::Anthropic => {
            for (i, item) in items.iter().enumerate() {
                anthropic::message(builder, item, &place(i))?;
            }
            Ok(())
        }
        Format::OpenAiResponses => responses::read(builder, items, place),
        Format::ChatGptExport
        | Format::ClaudeExport
        | Format::ShareGpt
        | Format::OpenWebUi
        | Format::LibreChat
        | Format::ChatbotUi
        | Format::SillyTavern => Err(TranscriptError::new(
            place(0),
            format!(
                "{} holds whole conversations, which cannot be messages of another",
                format.label()
            ),
        )),
        Format::ClaudeCode | Format::Codex => Err(agent_log_alone(format, &place(0))),
    }
}

/// A coding agent's session log is a whole file of its own records ([`lines`] reads it), never
/// a request body or a message of another format.
fn agent_log_alone(format: Format, place: &str) -> TranscriptError {
    TranscriptError::new(
        place,
        format!("{} is read only as a whole JSON Lines file", format.label()),
    )
}

/// Collects one conversation's messages: leading system text into the system prompt, tool
/// results named after their calls, empty messages dropped.
#[derive(Default)]
pub(crate) struct Builder {
    system: Vec<String>,
    messages: Vec<MessageParts>,
    /// Whether system text after the conversation began is appended to the system prompt (a
    /// ChatGPT export) rather than refused (the request formats, where it may only lead).
    late_system_allowed: bool,
}

impl Builder {
    /// System (or developer) text, which may only lead the conversation.
    /// An empty one is skipped wherever it stands: there is nothing to keep.
    pub(crate) fn system(&mut self, text: &str, place: &str) -> Result<(), TranscriptError> {
        if text.trim().is_empty() {
            return Ok(());
        }
        if !self.messages.is_empty() && !self.late_system_allowed {
            return Err(TranscriptError::new(
                place,
                "a system message may only lead the conversation",
            ));
        }
        self.system.push(text.to_owned());
        Ok(())
    }

    /// A user, assistant or tool message; an empty one (no text, call or part) is dropped.
    pub(crate) fn push(&mut self, mut message: MessageParts) {
        if message.is_empty() {
            return;
        }
        if message.role == Role::Tool
            && message.tool_name.is_none()
            && let Some(id) = message.call_id.as_deref()
        {
            message.tool_name = self
                .messages
                .iter()
                .rev()
                .flat_map(|m| m.calls.iter())
                .find(|c| c.id == id)
                .map(|c| c.name.clone());
        }
        self.messages.push(message);
    }

    /// Adds a tool call to the assistant message just before, or starts one.
    pub(crate) fn push_call(&mut self, call: crate::engine::message::ToolCall, at_ms: u64) {
        match self.messages.last_mut() {
            Some(last) if last.role == Role::Assistant => last.calls.push(call),
            _ => {
                let mut message = MessageParts::text(Role::Assistant, "");
                message.at_ms = at_ms;
                message.calls.push(call);
                self.messages.push(message);
            }
        }
    }

    pub(crate) fn finish(self, title: Option<String>) -> Conversation {
        Conversation {
            title,
            system: self.system.join("\n\n"),
            messages: self.messages,
            compactions: Vec::new(),
        }
    }
}
