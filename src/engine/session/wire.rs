//! The on-disk types of the session file. They change only with a new [`VERSION`] and a
//! migration; `import` and `export` convert them by hand to and from the engine's types, so a
//! refactor of the engine never changes what is on disk.

use serde::{Deserialize, Serialize};

/// The `format` of one session file.
pub const FORMAT: &str = "summary-memory-session";
/// The `format` of a file holding many sessions.
pub const ENVELOPE_FORMAT: &str = "summary-memory-sessions";
/// The format name of a policy file: the page's policy export (`engine::export`'s JSON target).
pub const POLICY_FORMAT: &str = "summary-memory-policy";
/// The version this build writes. Version 3 is version 2 with tool traffic and placeholders on
/// archive messages ([`MessageV1`]'s fields since version 3); version 4 adds the exact policy
/// ([`ExactV4`]) and, after a fold that ended inside a turn, the first verbatim message;
/// version 5 adds an A/B comparison's side (`pair`, [`super::pair::PairV5`]) and the probes
/// ([`super::probes::ProbesV5`]); version 6 adds where a continued session came from
/// (`continued_from`, [`ContinuedV6`]). The shapes keep their names.
pub const VERSION: u64 = 6;

#[derive(Serialize, Deserialize)]
pub(super) struct EnvelopeV2 {
    pub(super) format: String,
    pub(super) version: u64,
    pub(super) created_ms: u64,
    pub(super) app_version: String,
    pub(super) sessions: Vec<FileV2>,
}

/// One session file. Public (its fields are not) only so that a benchmark can hand the same
/// value across the wasm boundary in two ways ([`super::wire_of`]).
#[derive(Serialize, Deserialize)]
pub struct FileV2 {
    pub(super) format: String,
    pub(super) version: u64,
    pub(super) created_ms: u64,
    pub(super) app_version: String,
    pub(super) session: SessionV2,
}

#[derive(Serialize, Deserialize)]
pub(super) struct SessionV2 {
    pub(super) name: String,
    pub(super) settings: SettingsV1,
    pub(super) system_prompt: String,
    pub(super) policy: PolicyV1,
    pub(super) archive: Vec<MessageV1>,
    pub(super) editions: Vec<EditionV1>,
    #[serde(default)]
    pub(super) failures: Vec<FailureV1>,
    /// Archive indices the user left out of the requests, ascending; absent when none are
    /// (a build that predates it reads the file with every message sent).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) excluded: Vec<usize>,
    /// Since version 2; a version-1 file has none.
    #[serde(default)]
    pub(super) facts: Vec<FactV2>,
    /// Since version 2, and only for the live chat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) live: Option<LiveV2>,
    /// Since version 4: the archive index of the first verbatim message, written only when an
    /// exact policy's fold ended inside a turn (otherwise the editions' turns say it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) verbatim_from: Option<usize>,
    /// Since version 5: this session is one side of an A/B comparison.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) pair: Option<super::pair::PairV5>,
    /// Since version 5: the probes and their grades; absent when there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) probes: Option<super::probes::ProbesV5>,
    /// Since version 6: the session and edition this one was continued from; absent when it
    /// was not (every older file reads so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) continued_from: Option<ContinuedV6>,
}

/// `continued_from` in a version-6 session.
#[derive(Serialize, Deserialize)]
pub(super) struct ContinuedV6 {
    /// The source's id in the library that continued it.
    pub(super) session_id: String,
    /// The source's name.
    pub(super) name: String,
    /// The edition's cycle, from 1.
    pub(super) edition: u32,
}

#[derive(Serialize, Deserialize)]
pub(super) struct FactV2 {
    pub(super) label: String,
    /// `phrase` or `regex`.
    pub(super) kind: String,
    pub(super) pattern: String,
}

#[derive(Serialize, Deserialize, Default)]
pub(super) struct LiveV2 {
    /// Archive indices, ascending.
    #[serde(default)]
    pub(super) incomplete: Vec<usize>,
    #[serde(default)]
    pub(super) failed: Vec<usize>,
    #[serde(default)]
    pub(super) calls: Vec<CallV2>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct CallV2 {
    /// `chat` or `summary`.
    pub(super) kind: String,
    pub(super) client_prompt_tokens: u32,
    pub(super) api_prompt_tokens: Option<u32>,
    pub(super) api_completion_tokens: Option<u32>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct SettingsV1 {
    pub(super) base_url: String,
    pub(super) chat_model: String,
    pub(super) summary_model: String,
    pub(super) temperature: f64,
    pub(super) max_tokens: u32,
    pub(super) reasoning_effort: Option<String>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct PolicyV1 {
    pub(super) trigger: TriggerV1,
    pub(super) placement: String,
    pub(super) fold: String,
    pub(super) prompt: PromptV1,
    /// `prose` or `structured`; files written before structured memory existed omit it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) format: Option<String>,
    pub(super) summary_budget: Option<u32>,
    /// Since version 4; absent when the exact policy is today's defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) exact: Option<ExactV4>,
}

#[derive(Serialize, Deserialize, Default)]
pub(super) struct TriggerV1 {
    pub(super) kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) max_turns: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) keep: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) budget: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) keep_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) n: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) max_messages: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) context: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) fire_pct: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) keep_pct: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) keep_turns: Option<u32>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct PromptV1 {
    pub(super) preset: String,
    pub(super) text: String,
    pub(super) word_limit: u32,
    pub(super) must_keep: Vec<String>,
    /// Since version 6: the metadata option (each folded turn's time, speaker and the count
    /// folded given to the summariser); absent when off, as in every older file.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) metadata: bool,
}

#[derive(Serialize, Deserialize)]
pub(super) struct MessageV1 {
    /// `user`, `assistant`, or (since version 3) `tool`.
    pub(super) role: String,
    pub(super) content: String,
    #[serde(default)]
    pub(super) at_ms: u64,
    /// Since version 3: an assistant message's tool calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) calls: Vec<ToolCallV3>,
    /// Since version 3: the call a `tool` message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) call_id: Option<String>,
    /// Since version 3: the tool that answered, for a `tool` message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) tool_name: Option<String>,
    /// Since version 3: labels of the non-text parts the content holds as `[label]`
    /// placeholders (their tokens are an estimate).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) placeholders: Vec<String>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct ToolCallV3 {
    #[serde(default)]
    pub(super) id: String,
    pub(super) name: String,
    #[serde(default)]
    pub(super) arguments: String,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
pub(super) struct RangeV1 {
    pub(super) first: u32,
    pub(super) last: u32,
}

#[derive(Serialize, Deserialize)]
pub(super) struct EditionV1 {
    pub(super) cycle: u32,
    pub(super) folded: Option<RangeV1>,
    pub(super) previous: Option<String>,
    pub(super) summary: String,
    pub(super) prompt: String,
    pub(super) model: Option<String>,
    pub(super) tokens_in: u32,
    pub(super) tokens_out: u32,
    /// Written for readers of the file; recounted on import.
    #[serde(default)]
    pub(super) words: u32,
    pub(super) word_limit: u32,
    /// Written for readers of the file; recomputed on import.
    #[serde(default)]
    pub(super) overrun: bool,
    pub(super) at_ms: u64,
    /// `model`, `extractive`, `manual_edit`, `restore`, or the coding agent whose own compaction
    /// wrote it, read from its log: `claude-code` or `codex` (a value added within version 3;
    /// a build that predates it refuses the edition, naming the value).
    pub(super) provenance: String,
    pub(super) level: u8,
    pub(super) restored_from: Option<u32>,
    /// Absent in older files and for progressive editions: only a rebuild writes it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) rebuilt: bool,
}

#[derive(Serialize, Deserialize)]
pub(super) struct FailureV1 {
    pub(super) job_id: u64,
    /// `fold` or `compress`.
    pub(super) kind: String,
    pub(super) turns: Option<RangeV1>,
    pub(super) level: Option<u8>,
    pub(super) reason: String,
    pub(super) at_ms: u64,
}

/// Version 0: the first shape, a bare list of messages and the latest summary, with no
/// editions, policy or settings.
#[derive(Deserialize)]
pub(super) struct SessionV0 {
    pub(super) name: String,
    pub(super) system_prompt: String,
    pub(super) messages: Vec<MessageV0>,
    pub(super) summary: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct MessageV0 {
    pub(super) role: String,
    pub(super) content: String,
}

/// Since version 4: the exact policy's fields ([`crate::engine::policy::Exact`]); absent when
/// they are all today's defaults, and in every older file, which reads them as those.
#[derive(Serialize, Deserialize, Default)]
pub(super) struct ExactV4 {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) counted: Option<CountedV4>,
    /// `above` or `at_least`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) compare: Option<String>,
    /// `after_reply`, `before_request`, `before_turn` or `previous_request`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) check: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) keep: Option<KeepV4>,
    /// Added within version 4: absent (false) in the files written before it, which read as
    /// they did.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) keep_newest: bool,
    /// `anywhere` or `at_user`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) start: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) keep_user_tokens: Option<u32>,
    /// `placement`, `system`, `first_system`, `user`, `user_then_ack` or `assistant_after`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) summary_at: Option<String>,
    /// The acknowledgement of `user_then_ack`, the prompt of `assistant_after`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) summary_at_text: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(super) summary_prefix: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) calls_per_fold: Option<u32>,
    /// `keep` or `resummarise`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) summary_overflow: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) tools_in_turn_only: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) context_message: Option<String>,
    /// The counter's slug (`crate::engine::policy::Counter::slug`). Added within version 4:
    /// absent for o200k_base, the count every file written before it was measured with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) counter: Option<String>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct CountedV4 {
    pub(super) system: bool,
    pub(super) summary: bool,
    pub(super) verbatim: bool,
    pub(super) incoming: bool,
    pub(super) reply: bool,
}

#[derive(Serialize, Deserialize)]
pub(super) struct KeepV4 {
    /// `turns`, `messages`, `tokens`, `window_share` or `history_share`.
    pub(super) kind: String,
    /// The count, the tokens, or the share's percentage.
    pub(super) n: u32,
    /// The window of a `window_share`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) context: Option<u32>,
    /// `tokens` or `chars`, for a share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) by: Option<String>,
}
