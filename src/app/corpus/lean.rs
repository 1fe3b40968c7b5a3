//! The lean form of a conversation, as the page hands it to a corpus worker: what the measure
//! and the replay read of a session (its name, the system prompt, the pinned facts the replay's
//! summariser ranks first, and per message its role, content, tool traffic, time and token
//! count), nothing else. Written with postcard, not as the session's export text: the worker
//! parses no JSON, and a text is its length and its bytes, with nothing escaped on the page's
//! side or unescaped on the worker's (`docs/measurements.md`, "The export text against a
//! compact binary form").
//!
//! The counts travel with the vocabulary they were counted in ([`Lean::counted_in`]). The
//! worker keeps them only when that is the run's encoding and counts the conversation itself
//! otherwise, so a count the page holds as an estimate (a session imported before the
//! vocabulary arrived) or in another encoding never reaches a row: the page vouches for a
//! session's counts only as its library records them (`app::library::Entry::counted_in`). A column whose counter is
//! not the run's count (a LlamaIndex column counts in cl100k_base) is sized by its own counter
//! in the engine's measure whatever the form ([`crate::engine::policy::Counter::sized`]).

use serde::{Deserialize, Serialize};

use crate::engine::facts::{FactPattern, PinnedFact};
use crate::engine::library_session::{Session, SessionSettings};
use crate::engine::memory::MemoryState;
use crate::engine::message::{CountTokens, Message, Role, ToolCall};
use crate::engine::policy::{Policy, Trigger};

/// A conversation as a worker measures it, borrowed from the bytes it was read from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lean<'a> {
    pub name: &'a str,
    pub system: &'a str,
    /// The encoding every message's `tokens` was counted in (`o200k_base`), or `None` when the
    /// page cannot vouch for its counts; the worker counts them itself unless it is the run's.
    #[serde(borrow)]
    pub counted_in: Option<&'a str>,
    #[serde(borrow)]
    pub pinned: Vec<LeanFact<'a>>,
    #[serde(borrow)]
    pub messages: Vec<LeanMessage<'a>>,
}

/// A pinned fact: its label, and its pattern as a phrase or a regular expression.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeanFact<'a> {
    pub label: &'a str,
    pub regex: bool,
    pub pattern: &'a str,
}

/// One message: what [`Message`] holds, its count included.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeanMessage<'a> {
    pub role: Role,
    pub content: &'a str,
    pub tokens: u32,
    pub at_ms: u64,
    #[serde(borrow)]
    pub calls: Vec<LeanCall<'a>>,
    #[serde(borrow)]
    pub call_id: Option<&'a str>,
    #[serde(borrow)]
    pub tool_name: Option<&'a str>,
    #[serde(borrow)]
    pub placeholders: Vec<&'a str>,
}

/// A tool call of an assistant message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeanCall<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub arguments: &'a str,
}

impl<'a> Lean<'a> {
    /// The lean form of `session`, its counts vouched for as `counted_in`'s.
    pub fn of(session: &'a Session, counted_in: Option<&'a str>) -> Lean<'a> {
        let memory = &session.memory;
        Lean {
            name: &session.name,
            system: memory.system_prompt(),
            counted_in,
            pinned: session
                .pinned
                .iter()
                .map(|f| {
                    let (regex, pattern) = match &f.pattern {
                        FactPattern::Phrase(p) => (false, p.as_str()),
                        FactPattern::Regex(p) => (true, p.as_str()),
                    };
                    LeanFact {
                        label: &f.label,
                        regex,
                        pattern,
                    }
                })
                .collect(),
            messages: memory
                .archive()
                .iter()
                .map(|m| LeanMessage {
                    role: m.role,
                    content: &m.content,
                    tokens: m.tokens,
                    at_ms: m.at_ms,
                    calls: m
                        .calls
                        .iter()
                        .map(|c| LeanCall {
                            id: &c.id,
                            name: &c.name,
                            arguments: &c.arguments,
                        })
                        .collect(),
                    call_id: m.call_id.as_deref(),
                    tool_name: m.tool_name.as_deref(),
                    placeholders: m.placeholders.iter().map(String::as_str).collect(),
                })
                .collect(),
        }
    }

    /// Its bytes (postcard).
    pub fn to_bytes(&self) -> Vec<u8> {
        // Writing borrowed strings and numbers into a growing vector cannot fail.
        postcard::to_allocvec(self).unwrap_or_default()
    }

    /// Reads the bytes [`Lean::to_bytes`] wrote.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Lean<'a>, String> {
        postcard::from_bytes(bytes).map_err(|e| format!("the conversation does not read: {e}"))
    }

    /// The session the measure reads, its messages unfolded under a manual trigger. The counts
    /// are kept when they are in `run`, the run's encoding; otherwise every message is counted
    /// with `counter`, as an import counts it.
    pub fn session(&self, run: &str, counter: &dyn CountTokens) -> Result<Session, String> {
        let keep = self.counted_in == Some(run);
        let policy = Policy::new(Trigger::Manual { keep: 4 }).map_err(|e| e.to_string())?;
        let mut memory = MemoryState::new(self.system, policy).map_err(|e| e.to_string())?;
        for m in &self.messages {
            let mut message = Message {
                role: m.role,
                content: m.content.to_owned(),
                tokens: m.tokens,
                at_ms: m.at_ms,
                calls: m
                    .calls
                    .iter()
                    .map(|c| ToolCall {
                        id: c.id.to_owned(),
                        name: c.name.to_owned(),
                        arguments: c.arguments.to_owned(),
                    })
                    .collect(),
                call_id: m.call_id.map(str::to_owned),
                tool_name: m.tool_name.map(str::to_owned),
                placeholders: m.placeholders.iter().map(|p| (*p).to_owned()).collect(),
            };
            if !keep {
                message.tokens = message.count_with(counter);
            }
            memory.add_message(message).map_err(|e| e.to_string())?;
        }
        let mut session = Session::new(self.name, SessionSettings::default(), memory);
        session.pinned = self
            .pinned
            .iter()
            .map(|f| PinnedFact {
                label: f.label.to_owned(),
                pattern: if f.regex {
                    FactPattern::Regex(f.pattern.to_owned())
                } else {
                    FactPattern::Phrase(f.pattern.to_owned())
                },
            })
            .collect();
        Ok(session)
    }
}
