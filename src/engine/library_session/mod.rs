//! What the app holds of a conversation, apart from how a file stores it: the [`Session`] (its
//! memory, pinned facts and settings) and, for the live chat only, the [`LiveRecord`] of
//! incomplete replies and model calls; `pair.rs` what makes a session one side of an A/B
//! comparison ([`PairLink`]); `probe_set.rs` what it keeps of its probes ([`ProbeSet`]).
//!
//! No serde here: the file format is [`crate::engine::session`]'s, converted by hand, so a
//! change here never silently changes what is on disk. Both the session format and
//! [`crate::engine::probes`] import this module, and it imports neither.

mod pair;
mod probe_set;

pub use pair::{PairLink, PairSide, SideConfig};

pub use probe_set::{
    Evidence, Grade, JUDGE_PROMPT, Probe, ProbeResult, ProbeSet, ProbeSource, WRITER_PROMPT,
};

use std::collections::BTreeSet;

use crate::engine::facts::PinnedFact;
use crate::engine::memory::MemoryState;

/// Connection settings kept with a session. There is deliberately no API key field: a key never
/// leaves the browser's own storage, not even in an export.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionSettings {
    pub base_url: String,
    pub chat_model: String,
    pub summary_model: String,
    pub temperature: f64,
    pub max_tokens: u32,
    pub reasoning_effort: Option<String>,
}

/// One conversation with its memory, as the app holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Session {
    pub name: String,
    pub settings: SessionSettings,
    pub memory: MemoryState,
    /// The facts the user pinned for this conversation; the drift checks look for them.
    pub pinned: Vec<PinnedFact>,
    /// What the live chat keeps beside its memory; `None` for any other session.
    pub live: Option<LiveRecord>,
    /// The A/B comparison this session is one side of, if any (since version 5).
    pub pair: Option<PairLink>,
    /// The probes, their prompts and their grades per edition (since version 5).
    pub probes: ProbeSet,
    /// The session and edition this one went on from, when it was started from another
    /// conversation's summary ("Continue in a new session"; since version 6).
    pub continued_from: Option<ContinuedFrom>,
}

/// Where a continued session came from: a library session (its id in the browser that
/// continued it, and its name, which an imported copy is found by) and the edition whose summary
/// its first request holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContinuedFrom {
    pub session_id: String,
    pub name: String,
    pub edition: u32,
}

/// What a live chat needs beside its memory to come back exactly after a reload.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveRecord {
    /// Archive indices of assistant replies that were stopped or cut short.
    pub incomplete: BTreeSet<usize>,
    /// The subset of `incomplete` cut short by a failed request rather than by the user: they
    /// stay in the archive, but no later request sends them.
    pub failed: BTreeSet<usize>,
    /// Every model call, with the API's own token counts beside ours.
    pub calls: Vec<CallRecord>,
}

/// Which model a call went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind {
    Chat,
    Summary,
}

/// One model call: the prompt tokens the app counted for the request, and what the API reported
/// (absent when the server sent no usage, or the call failed before it could).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallRecord {
    pub kind: CallKind,
    pub client_prompt_tokens: u32,
    pub api_prompt_tokens: Option<u32>,
    pub api_completion_tokens: Option<u32>,
}

impl CallKind {
    pub fn label(self) -> &'static str {
        match self {
            CallKind::Chat => "chat",
            CallKind::Summary => "summary",
        }
    }
}

impl Session {
    /// A session with no pinned facts that is not the live chat.
    pub fn new(name: impl Into<String>, settings: SessionSettings, memory: MemoryState) -> Self {
        Session {
            name: name.into(),
            settings,
            memory,
            pinned: Vec::new(),
            live: None,
            pair: None,
            probes: ProbeSet::default(),
            continued_from: None,
        }
    }
}

impl Default for SessionSettings {
    /// The seed notebook's provider and model.
    fn default() -> Self {
        SessionSettings {
            base_url: "https://api.groq.com/openai/v1".into(),
            chat_model: "openai/gpt-oss-120b".into(),
            summary_model: "openai/gpt-oss-120b".into(),
            temperature: 0.0,
            max_tokens: 1024,
            reasoning_effort: Some("low".into()),
        }
    }
}
