//! The token counter a policy is measured with: each library's own default, part of the policy.
//!
//! A library's trigger fires on the count its own counter gives, not on exact tokens, so a
//! policy names the counter it is measured with ([`Counter`]) and every dry run (the Tuner, the
//! replay, the corpus comparison, the command line) counts the conversation with it. Each
//! counter is one pure function of a message ([`Counter::message`]) and of a list of messages
//! ([`Counter::messages`], what the library returns for the list); the exact ones are handed
//! the vocabulary's count of a text ([`Vocabularies`]), since the vocabularies live in
//! `crate::tokens`, above this module.
//!
//! The counters, each ported from the library's source and checked to the token against the
//! library itself (`tests/counters.rs` against `tests/fidelity/counters/expected.json`, which
//! `tests/fidelity/counters.py` writes with the real libraries):
//! - **o200k_base / cl100k_base**, exact: a message is the tokens of its content and of each
//!   tool call's name and arguments (the engine's own rule); with the chat format, each message
//!   adds [`CHAT_TOKENS_PER_MESSAGE`] and its role's tokens, and a list adds
//!   [`CHAT_REPLY_PRIMING`] once (OpenAI's cookbook, as `ChatOpenAI.get_num_tokens_from_messages`
//!   counts);
//! - **LangChain's `count_tokens_approximately`** (langchain-core 1.x, `messages/utils.py`, at
//!   its defaults): per message, the characters (code points) of the content, of `repr()` of
//!   an AI message's parsed tool calls, of a tool message's `tool_call_id`, of the role and of
//!   the name, divided by 4 and rounded up, plus 3;
//! - **Gemini CLI's estimate** (`@google/gemini-cli-core`, `utils/tokenCalculation.js`,
//!   `estimateTokenCountSync`): a text part is a quarter token per ASCII UTF-16 unit and 1.5 per
//!   other unit (a text over 100,000 units is its length over 4); a function call part is its
//!   `JSON.stringify` length over 4; a function response its name's length and its response's
//!   JSON length over 4; the list's sum is rounded down once;
//! - **words**: the engine's word rule over the content and each call's name and arguments;
//! - **the reply's reported usage**: what the server reports for the request (a system that
//!   fires on it: Codex, Claude Code, Gemini CLI). A dry run has no server, so it stands in the
//!   prompt tokens an OpenAI server reports, o200k_base with the chat format.

use crate::engine::message::{CountTokens, Message, Role, Vocabularies, Vocabulary};
use crate::engine::text::word_count;

/// Framing tokens of each message in the chat format.
pub const CHAT_TOKENS_PER_MESSAGE: u32 = 3;
/// Tokens priming the reply, once per request in the chat format.
pub const CHAT_REPLY_PRIMING: u32 = 3;

/// LangChain's `count_tokens_approximately` defaults: characters per token, and extra tokens
/// per message.
pub const LANGCHAIN_CHARS_PER_TOKEN: u32 = 4;
pub const LANGCHAIN_EXTRA_PER_MESSAGE: u32 = 3;

/// Gemini CLI: above this many UTF-16 units a text is estimated at its length over 4.
pub const GEMINI_MAX_CHARS_FOR_FULL_HEURISTIC: usize = 100_000;

/// The counter a policy is measured with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Counter {
    /// Exact counts in a tiktoken vocabulary; `chat` adds the chat format's overhead.
    Tiktoken { vocabulary: Vocabulary, chat: bool },
    /// LangChain 1.x's `count_tokens_approximately`, at its defaults.
    LangChainApprox,
    /// Gemini CLI's character estimate (`estimateTokenCountSync`).
    GeminiEstimate,
    /// The engine's word count.
    Words,
    /// The reply's reported usage (modelled as o200k_base with the chat format).
    Reported,
}

impl Default for Counter {
    /// Exact o200k_base counts without the chat overhead: the app's own count.
    fn default() -> Self {
        Counter::O200K
    }
}

impl Counter {
    /// Exact o200k_base counts, content only: the app's own count, and the default.
    pub const O200K: Counter = Counter::Tiktoken {
        vocabulary: Vocabulary::O200k,
        chat: false,
    };

    /// Every counter, in the order a picker offers them.
    pub const ALL: [Counter; 8] = [
        Counter::O200K,
        Counter::Tiktoken {
            vocabulary: Vocabulary::O200k,
            chat: true,
        },
        Counter::Tiktoken {
            vocabulary: Vocabulary::Cl100k,
            chat: false,
        },
        Counter::Tiktoken {
            vocabulary: Vocabulary::Cl100k,
            chat: true,
        },
        Counter::LangChainApprox,
        Counter::GeminiEstimate,
        Counter::Words,
        Counter::Reported,
    ];

    /// The stable name, in saved policies, links and the command line.
    pub fn slug(self) -> &'static str {
        match self {
            Counter::Tiktoken {
                vocabulary: Vocabulary::O200k,
                chat: false,
            } => "o200k",
            Counter::Tiktoken {
                vocabulary: Vocabulary::O200k,
                chat: true,
            } => "o200k-chat",
            Counter::Tiktoken {
                vocabulary: Vocabulary::Cl100k,
                chat: false,
            } => "cl100k",
            Counter::Tiktoken {
                vocabulary: Vocabulary::Cl100k,
                chat: true,
            } => "cl100k-chat",
            Counter::LangChainApprox => "langchain-approx",
            Counter::GeminiEstimate => "gemini-estimate",
            Counter::Words => "words",
            Counter::Reported => "reported",
        }
    }

    /// The counter in words, as a CSV's `parameters` column and a preset's source name it.
    pub fn label(self) -> &'static str {
        match self {
            Counter::Tiktoken {
                vocabulary: Vocabulary::O200k,
                chat: false,
            } => "o200k_base (exact)",
            Counter::Tiktoken {
                vocabulary: Vocabulary::O200k,
                chat: true,
            } => "o200k_base with the chat format's overhead (exact)",
            Counter::Tiktoken {
                vocabulary: Vocabulary::Cl100k,
                chat: false,
            } => "cl100k_base (exact)",
            Counter::Tiktoken {
                vocabulary: Vocabulary::Cl100k,
                chat: true,
            } => "cl100k_base with the chat format's overhead (exact)",
            Counter::LangChainApprox => "LangChain's count_tokens_approximately",
            Counter::GeminiEstimate => "Gemini CLI's character estimate",
            Counter::Words => "a word count",
            Counter::Reported => "the reply's reported usage",
        }
    }

    /// The counter named `slug`.
    pub fn from_slug(slug: &str) -> Option<Counter> {
        Counter::ALL.into_iter().find(|c| c.slug() == slug)
    }

    /// Tokens of one message, as the counter adds it to a list. Gemini CLI's estimate rounds
    /// down once over the whole list ([`Counter::messages`]); a single message is rounded down
    /// on its own here.
    pub fn message(self, message: &Message, vocab: &dyn Vocabularies) -> u32 {
        match self {
            Counter::Tiktoken { vocabulary, chat } => {
                tiktoken_message(message, vocabulary, chat, vocab)
            }
            Counter::Reported => tiktoken_message(message, Vocabulary::O200k, true, vocab),
            Counter::LangChainApprox => langchain_message(message),
            Counter::GeminiEstimate => (gemini_quarters(message) / 4) as u32,
            Counter::Words => words_message(message),
        }
    }

    /// Tokens a request adds once, whatever its messages (the chat format's reply priming).
    pub fn per_request(self) -> u32 {
        match self {
            Counter::Tiktoken { chat: true, .. } | Counter::Reported => CHAT_REPLY_PRIMING,
            _ => 0,
        }
    }

    /// Tokens of a text standing alone in a message of `role` (a system prompt, a summary): the
    /// counter's count of a message holding only that text.
    pub fn text(self, role: Role, text: &str, vocab: &dyn Vocabularies) -> u32 {
        self.message(&Message::counted(role, text.to_owned(), 0, 0), vocab)
    }

    /// What the library returns for `messages` as a whole.
    pub fn messages(self, messages: &[Message], vocab: &dyn Vocabularies) -> u64 {
        match self {
            Counter::GeminiEstimate => messages.iter().map(gemini_quarters).sum::<u64>() / 4,
            _ => {
                messages
                    .iter()
                    .map(|m| u64::from(self.message(m, vocab)))
                    .sum::<u64>()
                    + u64::from(self.per_request())
            }
        }
    }
}

impl Counter {
    /// Whether this is the default: the run's own count, as each message was counted when read
    /// (o200k_base, unless the run counts otherwise: a word count in tests, `--encoding`).
    pub fn is_default(self) -> bool {
        self == Counter::default()
    }

    /// The vocabulary this counter reads beyond the run's own count: none for the default
    /// (the run's count) and the estimates; o200k_base for the reply's reported usage.
    pub fn vocabulary(self) -> Option<Vocabulary> {
        match self {
            _ if self.is_default() => None,
            Counter::Tiktoken { vocabulary, .. } => Some(vocabulary),
            Counter::Reported => Some(Vocabulary::O200k),
            Counter::LangChainApprox | Counter::GeminiEstimate | Counter::Words => None,
        }
    }

    /// One message's size under this counter in a run counting with `run`: the message's own
    /// count for the default, else [`Counter::message`] over `run`'s vocabularies.
    pub fn sized(self, message: &Message, run: &dyn CountTokens) -> u32 {
        if self.is_default() {
            message.tokens
        } else {
            self.message(message, &Through(run))
        }
    }

    /// A text standing alone in a message of `role`, as [`Counter::sized`] sizes a message:
    /// `run`'s count of the text for the default.
    pub fn sized_text(self, role: Role, text: &str, run: &dyn CountTokens) -> u32 {
        if self.is_default() {
            run.count(text)
        } else {
            self.text(role, text, &Through(run))
        }
    }
}

/// A run's vocabularies: its counter's own ([`CountTokens::vocabularies`]), or, for a count
/// without any (a word count), that count for every vocabulary.
pub struct Through<'a>(pub &'a dyn CountTokens);

impl Vocabularies for Through<'_> {
    fn tokens(&self, vocabulary: Vocabulary, text: &str) -> u32 {
        match self.0.vocabularies() {
            Some(v) => v.tokens(vocabulary, text),
            None => self.0.count(text),
        }
    }
}

/// A run's count as a policy's counter measures it: a text is [`Counter::sized_text`] of it in
/// a user message, and the vocabularies are the run's. Whatever counts through it (the
/// replay's memory, the corpus's dry run) counts in the policy's counter.
pub struct CountedBy<'a> {
    counter: Counter,
    run: &'a dyn CountTokens,
    through: Through<'a>,
}

impl<'a> CountedBy<'a> {
    pub fn new(counter: Counter, run: &'a dyn CountTokens) -> Self {
        CountedBy {
            counter,
            run,
            through: Through(run),
        }
    }

    /// The policy's counter.
    pub fn counter(&self) -> Counter {
        self.counter
    }
}

impl CountTokens for CountedBy<'_> {
    fn count(&self, text: &str) -> u32 {
        self.counter.sized_text(Role::User, text, self.run)
    }

    fn vocabularies(&self) -> Option<&dyn Vocabularies> {
        Some(&self.through)
    }
}

/// A tiktoken count: the content and each call's name and arguments; in the chat format, plus
/// the framing and the role's tokens.
pub fn tiktoken_message(
    message: &Message,
    vocabulary: Vocabulary,
    chat: bool,
    vocab: &dyn Vocabularies,
) -> u32 {
    let mut tokens = vocab.tokens(vocabulary, &message.content);
    for call in &message.calls {
        tokens += vocab.tokens(vocabulary, &call.name) + vocab.tokens(vocabulary, &call.arguments);
    }
    if chat {
        tokens += CHAT_TOKENS_PER_MESSAGE + vocab.tokens(vocabulary, message.role.as_str());
    }
    tokens
}

/// The words of the content and of each call's name and arguments.
pub fn words_message(message: &Message) -> u32 {
    word_count(&message.content)
        + message
            .calls
            .iter()
            .map(|c| word_count(&c.name) + word_count(&c.arguments))
            .sum::<u32>()
}

/// LangChain's `count_tokens_approximately` of one message, at its defaults (4 characters a
/// token, 3 extra per message, names counted): an AI message's tool calls are `repr()` of the
/// parsed calls (`{'name': …, 'args': {…}, 'id': …, 'type': 'tool_call'}`; a call whose
/// arguments are not a JSON object is an invalid call, which LangChain does not count); a tool
/// message adds its `tool_call_id` and its name.
pub fn langchain_message(message: &Message) -> u32 {
    let mut chars = message.content.chars().count();
    if message.role == Role::Assistant {
        let calls: Vec<usize> = message
            .calls
            .iter()
            .filter_map(|call| {
                let args = serde_json::from_str::<serde_json::Value>(&call.arguments).ok()?;
                args.is_object().then(|| {
                    // {'name': N, 'args': A, 'id': I, 'type': 'tool_call'}
                    let fixed = "{'name': , 'args': , 'id': , 'type': 'tool_call'}".len();
                    fixed
                        + repr::python_str_len(&call.name)
                        + repr::python_len(&args)
                        + repr::python_str_len(&call.id)
                })
            })
            .collect();
        if !calls.is_empty() {
            // [c1, c2]
            chars += 2 + calls.iter().sum::<usize>() + 2 * (calls.len() - 1);
        }
    }
    if message.role == Role::Tool {
        chars += message.call_id.as_deref().unwrap_or("").chars().count();
        chars += message.tool_name.as_deref().unwrap_or("").chars().count();
    }
    chars += message.role.as_str().len();
    (chars.div_ceil(LANGCHAIN_CHARS_PER_TOKEN as usize) as u32) + LANGCHAIN_EXTRA_PER_MESSAGE
}

/// Gemini CLI's estimate of one message in quarter tokens (every term of its sum is a multiple
/// of a quarter). The message is the Content the CLI holds: a text part (an assistant's text
/// even when empty), a `functionCall` part per call (`{id, name, args}`, the arguments parsed),
/// and for a tool's result a `functionResponse` part (`{id, name, response: {output}}`).
pub fn gemini_quarters(message: &Message) -> u64 {
    match message.role {
        Role::Tool => {
            let name = message.tool_name.as_deref().unwrap_or("");
            // {"output":<content>}
            let response = r#"{"output":}"#.len() + repr::js_str_len(&message.content);
            (utf16_len(name) + response) as u64
        }
        _ => {
            let mut quarters = gemini_text_quarters(&message.content);
            for call in &message.calls {
                let args = serde_json::from_str::<serde_json::Value>(&call.arguments)
                    .unwrap_or_else(|_| serde_json::Value::String(call.arguments.clone()));
                // {"functionCall":{"id":I,"name":N,"args":A}}
                let fixed = r#"{"functionCall":{"id":,"name":,"args":}}"#.len();
                quarters += (fixed
                    + repr::js_str_len(&call.id)
                    + repr::js_str_len(&call.name)
                    + repr::js_len(&args)) as u64;
            }
            quarters
        }
    }
}

/// A text part in quarter tokens: 1 per ASCII UTF-16 unit, 6 per other unit; over 100,000
/// units, one per unit (the length over 4).
fn gemini_text_quarters(text: &str) -> u64 {
    let units = utf16_len(text);
    if units > GEMINI_MAX_CHARS_FOR_FULL_HEURISTIC {
        return units as u64;
    }
    text.chars()
        .map(|c| match c.len_utf16() {
            _ if c.is_ascii() => 1,
            n => 6 * n as u64,
        })
        .sum()
}

fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

mod repr;
pub mod simulated;

#[cfg(test)]
mod tests;
