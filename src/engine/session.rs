//! The session file: its own versioned types, converted by hand to and from the engine's, so
//! that changing an engine type never silently changes what is on disk.
//!
//! Import is a pure function: it caps the size before parsing, parses, migrates older versions,
//! checks every invariant the engine relies on, and returns a new value or an [`ImportError`]
//! that names the JSON path at fault. Nothing is changed when it fails.
//!
//! What a file does not hold: an API key (the settings have no field for one), a job in flight
//! (it is transient; the trigger is checked again on the next reply), and derived numbers such
//! as token counts and word counts (recounted on import, so a file cannot lie about them).
//!
//! Versions: 0 was a bare message list and a summary; 1 added the policy, the editions and the
//! failures; 2 adds the pinned facts and, for the live chat, the [`LiveRecord`] (which replies
//! are incomplete, which were cut short by a failed request, and the record of model calls).
//! A version-1 file is a version-2 file without those two fields, so it reads as "no facts
//! pinned" and "not a live chat". An older app refuses a version-2 file with
//! [`ImportError::UnsupportedVersion`] instead of silently dropping its facts.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use super::drift::{FactPattern, PinnedFact};
use super::edition::{Edition, EditionDraft, MAX_LEVEL, Provenance, TurnRange};
use super::memory::{Failure, JobKind, MemoryState, turn_starts};
use super::message::{CountTokens, Message, Role};
use super::policy::{FoldMode, Placement, Policy, SummaryFormat, Trigger};
use super::prompts::{PresetId, PromptSpec};

/// The `format` of one session file.
pub const FORMAT: &str = "summary-memory-session";
/// The `format` of a file holding many sessions.
pub const ENVELOPE_FORMAT: &str = "summary-memory-sessions";
/// The version this build writes.
pub const VERSION: u64 = 2;
/// Files larger than this are refused before parsing, so a huge file cannot exhaust memory.
pub const MAX_IMPORT_BYTES: usize = 64 * 1024 * 1024;

/// Connection settings kept with a session. There is deliberately no API key field: a key never
/// leaves the browser's own storage, not even in an export.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

/// Why a file could not be imported. Nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ImportError {
    /// The file is over [`MAX_IMPORT_BYTES`].
    #[error(
        "the file is {bytes} bytes, over the {limit}-byte limit; split the export into smaller files"
    )]
    TooLarge { bytes: usize, limit: usize },
    /// The bytes are not JSON.
    #[error("the file is not valid JSON (line {line}, column {column}): {message}")]
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    /// The JSON is neither a session file, a session list nor a messages array.
    #[error(
        "unknown file format {found:?}; expected \"{FORMAT}\", \"{ENVELOPE_FORMAT}\" or an array of {{role, content}} messages"
    )]
    UnknownFormat { found: String },
    /// The file was written by a newer or unknown version of the app.
    #[error(
        "session format version {0} is not supported (this app reads versions 0 to 2); update the app"
    )]
    UnsupportedVersion(u64),
    /// A field is missing or has the wrong type.
    #[error("at {path}: {message}")]
    Field { path: String, message: String },
    /// The values parse but contradict each other.
    #[error("at {path}: {reason}")]
    Invalid { path: String, reason: String },
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

/// Writes one session as a file of the current [`VERSION`].
pub fn export(session: &Session, created_ms: u64, app_version: &str) -> String {
    let file = to_file(session, created_ms, app_version);
    serde_json::to_string_pretty(&file).unwrap_or_default()
}

/// Writes many sessions as one envelope file.
pub fn export_all(sessions: &[Session], created_ms: u64, app_version: &str) -> String {
    let envelope = EnvelopeV2 {
        format: ENVELOPE_FORMAT.into(),
        version: VERSION,
        created_ms,
        app_version: app_version.into(),
        sessions: sessions
            .iter()
            .map(|s| to_file(s, created_ms, app_version))
            .collect(),
    };
    serde_json::to_string_pretty(&envelope).unwrap_or_default()
}

/// Reads one session: a session file (version 0, 1 or 2) or a plain `[{role, content}]` array.
/// An envelope holding exactly one session is accepted too.
pub fn import(bytes: &[u8], counter: &dyn CountTokens) -> Result<Session, ImportError> {
    let mut sessions = import_all(bytes, counter)?;
    if sessions.len() != 1 {
        return Err(ImportError::Invalid {
            path: "sessions".into(),
            reason: format!(
                "the file holds {} sessions; import it as a session list",
                sessions.len()
            ),
        });
    }
    Ok(sessions.remove(0))
}

/// Reads every session in a file: an envelope, a single session file or a messages array.
pub fn import_all(bytes: &[u8], counter: &dyn CountTokens) -> Result<Vec<Session>, ImportError> {
    if bytes.len() > MAX_IMPORT_BYTES {
        return Err(ImportError::TooLarge {
            bytes: bytes.len(),
            limit: MAX_IMPORT_BYTES,
        });
    }
    let value: Value = serde_json::from_slice(bytes).map_err(|e| ImportError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    match &value {
        Value::Array(_) => Ok(vec![from_messages_array(value, counter)?]),
        Value::Object(map) => match map.get("format").and_then(Value::as_str) {
            Some(ENVELOPE_FORMAT) => {
                check_version(map.get("version"), "version", VERSION)?;
                let Some(Value::Array(items)) = map.get("sessions") else {
                    return Err(ImportError::Field {
                        path: "sessions".into(),
                        message: "expected an array of sessions".into(),
                    });
                };
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        from_file_value(item.clone(), &format!("sessions[{i}]"), counter)
                    })
                    .collect()
            }
            Some(FORMAT) => Ok(vec![from_file_value(value, "", counter)?]),
            other => Err(ImportError::UnknownFormat {
                found: other.unwrap_or("(none)").to_owned(),
            }),
        },
        _ => Err(ImportError::UnknownFormat {
            found: "(not an object or array)".into(),
        }),
    }
}

// The on-disk types. They change only with a new version number and a migration.

#[derive(Serialize, Deserialize)]
struct EnvelopeV2 {
    format: String,
    version: u64,
    created_ms: u64,
    app_version: String,
    sessions: Vec<FileV2>,
}

#[derive(Serialize, Deserialize)]
struct FileV2 {
    format: String,
    version: u64,
    created_ms: u64,
    app_version: String,
    session: SessionV2,
}

#[derive(Serialize, Deserialize)]
struct SessionV2 {
    name: String,
    settings: SettingsV1,
    system_prompt: String,
    policy: PolicyV1,
    archive: Vec<MessageV1>,
    editions: Vec<EditionV1>,
    #[serde(default)]
    failures: Vec<FailureV1>,
    /// Since version 2; a version-1 file has none.
    #[serde(default)]
    facts: Vec<FactV2>,
    /// Since version 2, and only for the live chat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    live: Option<LiveV2>,
}

#[derive(Serialize, Deserialize)]
struct FactV2 {
    label: String,
    /// `phrase` or `regex`.
    kind: String,
    pattern: String,
}

#[derive(Serialize, Deserialize, Default)]
struct LiveV2 {
    /// Archive indices, ascending.
    #[serde(default)]
    incomplete: Vec<usize>,
    #[serde(default)]
    failed: Vec<usize>,
    #[serde(default)]
    calls: Vec<CallV2>,
}

#[derive(Serialize, Deserialize)]
struct CallV2 {
    /// `chat` or `summary`.
    kind: String,
    client_prompt_tokens: u32,
    api_prompt_tokens: Option<u32>,
    api_completion_tokens: Option<u32>,
}

#[derive(Serialize, Deserialize)]
struct SettingsV1 {
    base_url: String,
    chat_model: String,
    summary_model: String,
    temperature: f64,
    max_tokens: u32,
    reasoning_effort: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct PolicyV1 {
    trigger: TriggerV1,
    placement: String,
    fold: String,
    prompt: PromptV1,
    /// `prose` or `structured`; files written before structured memory existed omit it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    format: Option<String>,
    summary_budget: Option<u32>,
}

#[derive(Serialize, Deserialize, Default)]
struct TriggerV1 {
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_turns: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    keep: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    budget: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    keep_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    n: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_messages: Option<u32>,
}

#[derive(Serialize, Deserialize)]
struct PromptV1 {
    preset: String,
    text: String,
    word_limit: u32,
    must_keep: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct MessageV1 {
    role: String,
    content: String,
    #[serde(default)]
    at_ms: u64,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
struct RangeV1 {
    first: u32,
    last: u32,
}

#[derive(Serialize, Deserialize)]
struct EditionV1 {
    cycle: u32,
    folded: Option<RangeV1>,
    previous: Option<String>,
    summary: String,
    prompt: String,
    model: Option<String>,
    tokens_in: u32,
    tokens_out: u32,
    /// Written for readers of the file; recounted on import.
    #[serde(default)]
    words: u32,
    word_limit: u32,
    /// Written for readers of the file; recomputed on import.
    #[serde(default)]
    overrun: bool,
    at_ms: u64,
    provenance: String,
    level: u8,
    restored_from: Option<u32>,
}

#[derive(Serialize, Deserialize)]
struct FailureV1 {
    job_id: u64,
    /// `fold` or `compress`.
    kind: String,
    turns: Option<RangeV1>,
    level: Option<u8>,
    reason: String,
    at_ms: u64,
}

/// Version 0: the first shape, a bare list of messages and the latest summary, with no
/// editions, policy or settings.
#[derive(Deserialize)]
struct SessionV0 {
    name: String,
    system_prompt: String,
    messages: Vec<MessageV0>,
    summary: Option<String>,
}

#[derive(Deserialize)]
struct MessageV0 {
    role: String,
    content: String,
}

fn check_version(found: Option<&Value>, path: &str, newest: u64) -> Result<u64, ImportError> {
    let version = found
        .and_then(Value::as_u64)
        .ok_or_else(|| ImportError::Field {
            path: path.to_owned(),
            message: "expected a version number".into(),
        })?;
    if version > newest {
        return Err(ImportError::UnsupportedVersion(version));
    }
    Ok(version)
}

fn join(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty() || path == ".") {
        (true, _) => path.to_owned(),
        (false, true) => prefix.to_owned(),
        (false, false) => format!("{prefix}.{path}"),
    }
}

fn typed<T: serde::de::DeserializeOwned>(value: Value, prefix: &str) -> Result<T, ImportError> {
    serde_path_to_error::deserialize(value).map_err(|e| ImportError::Field {
        path: join(prefix, &e.path().to_string()),
        message: e.inner().to_string(),
    })
}

fn from_file_value(
    value: Value,
    prefix: &str,
    counter: &dyn CountTokens,
) -> Result<Session, ImportError> {
    let version = check_version(value.get("version"), &join(prefix, "version"), VERSION)?;
    let file: FileV2 = match version {
        0 => migrate_v0(typed(value, prefix)?),
        // Version 1 is version 2 without `facts` and `live`, which default to none.
        _ => typed(value, prefix)?,
    };
    if file.format != FORMAT {
        return Err(ImportError::UnknownFormat { found: file.format });
    }
    from_session_v2(file.session, &join(prefix, "session"), counter)
}

/// Version 0 kept no record of which turns its summary covered, so every message stays
/// verbatim and the summary becomes edition 1, marked as restored from the old file.
fn migrate_v0(old: SessionV0) -> FileV2 {
    let editions = old
        .summary
        .filter(|s| !s.trim().is_empty())
        .map(|summary| EditionV1 {
            cycle: 1,
            folded: None,
            previous: None,
            summary,
            prompt: String::new(),
            model: None,
            tokens_in: 0,
            tokens_out: 0,
            words: 0,
            word_limit: Policy::default().prompt.word_limit,
            overrun: false,
            at_ms: 0,
            provenance: "restore".into(),
            level: 0,
            restored_from: None,
        })
        .into_iter()
        .collect();
    FileV2 {
        format: FORMAT.into(),
        version: VERSION,
        created_ms: 0,
        app_version: String::new(),
        session: SessionV2 {
            name: old.name,
            settings: settings_to_v1(&SessionSettings::default()),
            system_prompt: old.system_prompt,
            policy: policy_to_v1(&Policy::default()),
            archive: old
                .messages
                .into_iter()
                .map(|m| MessageV1 {
                    role: m.role,
                    content: m.content,
                    at_ms: 0,
                })
                .collect(),
            editions,
            failures: Vec::new(),
            facts: Vec::new(),
            live: None,
        },
    }
}

fn from_messages_array(value: Value, counter: &dyn CountTokens) -> Result<Session, ImportError> {
    let messages: Vec<MessageV0> = typed(value, "")?;
    let mut system = Vec::new();
    let mut archive = Vec::new();
    for (i, m) in messages.into_iter().enumerate() {
        let path = format!("[{i}].role");
        match parse_role(&m.role, &path)? {
            Role::System if archive.is_empty() => system.push(m.content),
            Role::System => {
                return Err(ImportError::Invalid {
                    path,
                    reason: "a system message may only lead the conversation".into(),
                });
            }
            role => archive.push(Message::new(role, m.content, counter, 0)),
        }
    }
    let memory = MemoryState::from_parts(
        system.join("\n\n"),
        Policy::default(),
        archive,
        Vec::new(),
        Vec::new(),
        counter,
    );
    Ok(Session::new(
        "Imported conversation",
        SessionSettings::default(),
        memory,
    ))
}

fn parse_role(role: &str, path: &str) -> Result<Role, ImportError> {
    match role {
        "system" => Ok(Role::System),
        "user" => Ok(Role::User),
        "assistant" => Ok(Role::Assistant),
        other => Err(ImportError::Invalid {
            path: path.to_owned(),
            reason: format!("unknown role {other:?}; expected user or assistant"),
        }),
    }
}

fn invalid(path: String, reason: impl Into<String>) -> ImportError {
    ImportError::Invalid {
        path,
        reason: reason.into(),
    }
}

fn from_session_v2(
    s: SessionV2,
    prefix: &str,
    counter: &dyn CountTokens,
) -> Result<Session, ImportError> {
    let policy = policy_from_v1(s.policy, &join(prefix, "policy"))?;
    let mut archive = Vec::with_capacity(s.archive.len());
    for (i, m) in s.archive.into_iter().enumerate() {
        let path = join(prefix, &format!("archive[{i}].role"));
        match parse_role(&m.role, &path)? {
            Role::System => {
                return Err(invalid(path, "system messages belong in system_prompt"));
            }
            role => archive.push(Message::new(role, m.content, counter, m.at_ms)),
        }
    }
    let starts = turn_starts(archive.iter().map(|m| m.role));
    let turns = starts.len() as u32;
    let last_complete = archive.last().is_none_or(|m| m.role == Role::Assistant);
    let complete_turns = if last_complete {
        turns
    } else {
        turns.saturating_sub(1)
    };

    let mut editions = Vec::with_capacity(s.editions.len());
    let mut folded_to = 0u32;
    let mut previous_summary: Option<String> = None;
    for (i, e) in s.editions.into_iter().enumerate() {
        let at = |field: &str| join(prefix, &format!("editions[{i}].{field}"));
        if e.cycle as usize != i + 1 {
            return Err(invalid(
                at("cycle"),
                format!("edition cycles must run 1, 2, 3, ...; expected {}", i + 1),
            ));
        }
        if let Some(r) = e.folded {
            if r.first != folded_to + 1 || r.last < r.first {
                return Err(invalid(
                    at("folded"),
                    format!(
                        "folded turns {}..={} must continue right after turn {folded_to}",
                        r.first, r.last
                    ),
                ));
            }
            if r.last > complete_turns {
                return Err(invalid(
                    at("folded"),
                    format!(
                        "folds up to turn {} but the archive holds {complete_turns} complete turns",
                        r.last
                    ),
                ));
            }
            folded_to = r.last;
        }
        if e.summary.trim().is_empty() {
            return Err(invalid(
                at("summary"),
                "an edition's summary cannot be empty",
            ));
        }
        if e.previous != previous_summary {
            return Err(invalid(
                at("previous"),
                "must equal the summary of the edition before it",
            ));
        }
        if e.level > MAX_LEVEL {
            return Err(invalid(
                at("level"),
                format!("levels run from 0 to {MAX_LEVEL}"),
            ));
        }
        let provenance = match e.provenance.as_str() {
            "model" => Provenance::Model,
            "extractive" => Provenance::Extractive,
            "manual_edit" => Provenance::ManualEdit,
            "restore" => Provenance::Restore,
            other => {
                return Err(invalid(
                    at("provenance"),
                    format!(
                        "unknown provenance {other:?}; expected model, extractive, manual_edit or restore"
                    ),
                ));
            }
        };
        if let Some(from) = e.restored_from
            && (provenance != Provenance::Restore || from == 0 || from > e.cycle.saturating_sub(1))
        {
            return Err(invalid(
                at("restored_from"),
                "only a restore names an edition, and it must be an earlier one",
            ));
        }
        previous_summary = Some(e.summary.clone());
        editions.push(Edition::from_draft(
            e.cycle,
            EditionDraft {
                folded: e.folded.map(|r| TurnRange {
                    first: r.first,
                    last: r.last,
                }),
                previous: e.previous,
                summary: e.summary,
                prompt: e.prompt,
                model: e.model,
                tokens_in: e.tokens_in,
                tokens_out: e.tokens_out,
                word_limit: e.word_limit,
                at_ms: e.at_ms,
                provenance,
                level: e.level,
                restored_from: e.restored_from,
            },
        ));
    }

    let start_of = |turn: u32| starts.get(turn as usize).copied().unwrap_or(archive.len());
    let mut failures = Vec::with_capacity(s.failures.len());
    for (i, f) in s.failures.into_iter().enumerate() {
        let at = |field: &str| join(prefix, &format!("failures[{i}].{field}"));
        let kind = match (f.kind.as_str(), f.turns, f.level) {
            ("fold", Some(r), _) if r.first >= 1 && r.first <= r.last && r.last <= turns => {
                JobKind::Fold {
                    turns: TurnRange {
                        first: r.first,
                        last: r.last,
                    },
                    from: start_of(r.first - 1),
                    to: start_of(r.last),
                }
            }
            ("compress", _, Some(level)) if (1..=MAX_LEVEL).contains(&level) => {
                JobKind::Compress { level }
            }
            _ => {
                return Err(invalid(
                    at("kind"),
                    "expected a fold with turns inside the archive, or a compress with a level from 1 to 3",
                ));
            }
        };
        failures.push(Failure {
            job_id: f.job_id,
            kind,
            reason: f.reason,
            at_ms: f.at_ms,
        });
    }

    let mut pinned = Vec::with_capacity(s.facts.len());
    for (i, f) in s.facts.into_iter().enumerate() {
        let at = join(prefix, &format!("facts[{i}]"));
        let fact = match f.kind.as_str() {
            "phrase" => PinnedFact::phrase(f.label, f.pattern),
            "regex" => PinnedFact::regex(f.label, f.pattern),
            other => {
                return Err(invalid(
                    join(&at, "kind"),
                    format!("unknown fact kind {other:?}; expected phrase or regex"),
                ));
            }
        };
        fact.compile().map_err(|e| invalid(at, e.to_string()))?;
        pinned.push(fact);
    }
    let live = s
        .live
        .map(|l| live_from_v2(l, &archive, &join(prefix, "live")))
        .transpose()?;

    let settings = SessionSettings {
        base_url: s.settings.base_url,
        chat_model: s.settings.chat_model,
        summary_model: s.settings.summary_model,
        temperature: s.settings.temperature,
        max_tokens: s.settings.max_tokens,
        reasoning_effort: s.settings.reasoning_effort,
    };
    let memory = MemoryState::from_parts(
        s.system_prompt,
        policy,
        archive,
        editions,
        failures,
        counter,
    );
    Ok(Session {
        name: s.name,
        settings,
        memory,
        pinned,
        live,
    })
}

/// Checks that every marked reply is an assistant message of the archive, and that a reply cut
/// short by a failure is marked incomplete too.
fn live_from_v2(l: LiveV2, archive: &[Message], prefix: &str) -> Result<LiveRecord, ImportError> {
    let replies = |indices: Vec<usize>, field: &str| -> Result<BTreeSet<usize>, ImportError> {
        indices
            .into_iter()
            .enumerate()
            .map(|(i, index)| match archive.get(index) {
                Some(m) if m.role == Role::Assistant => Ok(index),
                _ => Err(invalid(
                    join(prefix, &format!("{field}[{i}]")),
                    format!("message {index} is not an assistant reply in the archive"),
                )),
            })
            .collect()
    };
    let incomplete = replies(l.incomplete, "incomplete")?;
    let failed = replies(l.failed, "failed")?;
    if let Some((i, _)) = failed
        .iter()
        .enumerate()
        .find(|(_, index)| !incomplete.contains(index))
    {
        return Err(invalid(
            join(prefix, &format!("failed[{i}]")),
            "a reply cut short by a failure must be listed as incomplete too",
        ));
    }
    let calls = l
        .calls
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let kind = match c.kind.as_str() {
                "chat" => CallKind::Chat,
                "summary" => CallKind::Summary,
                other => {
                    return Err(invalid(
                        join(prefix, &format!("calls[{i}].kind")),
                        format!("unknown call kind {other:?}; expected chat or summary"),
                    ));
                }
            };
            Ok(CallRecord {
                kind,
                client_prompt_tokens: c.client_prompt_tokens,
                api_prompt_tokens: c.api_prompt_tokens,
                api_completion_tokens: c.api_completion_tokens,
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(LiveRecord {
        incomplete,
        failed,
        calls,
    })
}

fn facts_to_v2(facts: &[PinnedFact]) -> Vec<FactV2> {
    facts
        .iter()
        .map(|f| {
            let (kind, pattern) = match &f.pattern {
                FactPattern::Phrase(p) => ("phrase", p),
                FactPattern::Regex(p) => ("regex", p),
            };
            FactV2 {
                label: f.label.clone(),
                kind: kind.into(),
                pattern: pattern.clone(),
            }
        })
        .collect()
}

fn live_to_v2(l: &LiveRecord) -> LiveV2 {
    LiveV2 {
        incomplete: l.incomplete.iter().copied().collect(),
        failed: l.failed.iter().copied().collect(),
        calls: l
            .calls
            .iter()
            .map(|c| CallV2 {
                kind: c.kind.label().into(),
                client_prompt_tokens: c.client_prompt_tokens,
                api_prompt_tokens: c.api_prompt_tokens,
                api_completion_tokens: c.api_completion_tokens,
            })
            .collect(),
    }
}

fn policy_from_v1(p: PolicyV1, prefix: &str) -> Result<Policy, ImportError> {
    let t = &p.trigger;
    let need = |value: Option<u32>, field: &str| {
        value.ok_or_else(|| ImportError::Field {
            path: join(prefix, &format!("trigger.{field}")),
            message: format!("a {} trigger needs {field}", t.kind),
        })
    };
    let trigger = match t.kind.as_str() {
        "turns" => Trigger::Turns {
            max_turns: need(t.max_turns, "max_turns")?,
            keep: need(t.keep, "keep")?,
        },
        "tokens" => Trigger::Tokens {
            budget: need(t.budget, "budget")?,
            keep_tokens: need(t.keep_tokens, "keep_tokens")?,
        },
        "every" => Trigger::Every { n: need(t.n, "n")? },
        "messages" => Trigger::MessageCount {
            max_messages: need(t.max_messages, "max_messages")?,
        },
        "manual" => Trigger::Manual {
            keep: t.keep.unwrap_or(0),
        },
        other => {
            return Err(invalid(
                join(prefix, "trigger.kind"),
                format!(
                    "unknown trigger {other:?}; expected turns, tokens, every, messages or manual"
                ),
            ));
        }
    };
    let placement = match p.placement.as_str() {
        "second_system" => Placement::SecondSystem,
        "append_to_system" => Placement::AppendToSystem,
        "user_ack" => Placement::UserAck,
        other => {
            return Err(invalid(
                join(prefix, "placement"),
                format!(
                    "unknown placement {other:?}; expected second_system, append_to_system or user_ack"
                ),
            ));
        }
    };
    let fold = match p.fold.as_str() {
        "progressive" => FoldMode::Progressive,
        "rebuild_from_archive" => FoldMode::RebuildFromArchive,
        other => {
            return Err(invalid(
                join(prefix, "fold"),
                format!(
                    "unknown fold mode {other:?}; expected progressive or rebuild_from_archive"
                ),
            ));
        }
    };
    let format = match p.format.as_deref() {
        None | Some("prose") => SummaryFormat::Prose,
        Some("structured") => SummaryFormat::Structured,
        Some(other) => {
            return Err(invalid(
                join(prefix, "format"),
                format!("unknown summary format {other:?}; expected prose or structured"),
            ));
        }
    };
    let preset = [
        PresetId::FinancialAdvisor,
        PresetId::Technical,
        PresetId::CustomerSupport,
        PresetId::Research,
        PresetId::Generic,
        PresetId::Custom,
    ]
    .into_iter()
    .find(|id| preset_slug(*id) == p.prompt.preset)
    .ok_or_else(|| {
        invalid(
            join(prefix, "prompt.preset"),
            format!("unknown preset {:?}", p.prompt.preset),
        )
    })?;
    let policy = Policy {
        trigger,
        placement,
        fold,
        prompt: PromptSpec {
            preset,
            text: p.prompt.text,
            word_limit: p.prompt.word_limit,
            must_keep: p.prompt.must_keep,
        },
        format,
        summary_budget: p.summary_budget,
    };
    policy
        .validate()
        .map_err(|e| invalid(prefix.to_owned(), e.to_string()))?;
    Ok(policy)
}

fn preset_slug(id: PresetId) -> &'static str {
    match id {
        PresetId::FinancialAdvisor => "financial_advisor",
        PresetId::Technical => "technical",
        PresetId::CustomerSupport => "customer_support",
        PresetId::Research => "research",
        PresetId::Generic => "generic",
        PresetId::Custom => "custom",
    }
}

fn settings_to_v1(s: &SessionSettings) -> SettingsV1 {
    SettingsV1 {
        base_url: s.base_url.clone(),
        chat_model: s.chat_model.clone(),
        summary_model: s.summary_model.clone(),
        temperature: s.temperature,
        max_tokens: s.max_tokens,
        reasoning_effort: s.reasoning_effort.clone(),
    }
}

fn policy_to_v1(p: &Policy) -> PolicyV1 {
    let trigger = match p.trigger {
        Trigger::Turns { max_turns, keep } => TriggerV1 {
            kind: "turns".into(),
            max_turns: Some(max_turns),
            keep: Some(keep),
            ..TriggerV1::default()
        },
        Trigger::Tokens {
            budget,
            keep_tokens,
        } => TriggerV1 {
            kind: "tokens".into(),
            budget: Some(budget),
            keep_tokens: Some(keep_tokens),
            ..TriggerV1::default()
        },
        Trigger::Every { n } => TriggerV1 {
            kind: "every".into(),
            n: Some(n),
            ..TriggerV1::default()
        },
        Trigger::MessageCount { max_messages } => TriggerV1 {
            kind: "messages".into(),
            max_messages: Some(max_messages),
            ..TriggerV1::default()
        },
        Trigger::Manual { keep } => TriggerV1 {
            kind: "manual".into(),
            keep: Some(keep),
            ..TriggerV1::default()
        },
    };
    PolicyV1 {
        trigger,
        placement: match p.placement {
            Placement::SecondSystem => "second_system",
            Placement::AppendToSystem => "append_to_system",
            Placement::UserAck => "user_ack",
        }
        .into(),
        fold: match p.fold {
            FoldMode::Progressive => "progressive",
            FoldMode::RebuildFromArchive => "rebuild_from_archive",
        }
        .into(),
        prompt: PromptV1 {
            preset: preset_slug(p.prompt.preset).into(),
            text: p.prompt.text.clone(),
            word_limit: p.prompt.word_limit,
            must_keep: p.prompt.must_keep.clone(),
        },
        format: match p.format {
            SummaryFormat::Prose => None,
            SummaryFormat::Structured => Some("structured".into()),
        },
        summary_budget: p.summary_budget,
    }
}

fn range_to_v1(r: TurnRange) -> RangeV1 {
    RangeV1 {
        first: r.first,
        last: r.last,
    }
}

fn to_file(session: &Session, created_ms: u64, app_version: &str) -> FileV2 {
    let m = &session.memory;
    FileV2 {
        format: FORMAT.into(),
        version: VERSION,
        created_ms,
        app_version: app_version.into(),
        session: SessionV2 {
            name: session.name.clone(),
            settings: settings_to_v1(&session.settings),
            system_prompt: m.system_prompt().to_owned(),
            policy: policy_to_v1(m.policy()),
            archive: m
                .archive()
                .iter()
                .map(|msg| MessageV1 {
                    role: msg.role.as_str().into(),
                    content: msg.content.clone(),
                    at_ms: msg.at_ms,
                })
                .collect(),
            editions: m
                .editions()
                .iter()
                .map(|e| EditionV1 {
                    cycle: e.cycle,
                    folded: e.folded.map(range_to_v1),
                    previous: e.previous.clone(),
                    summary: e.summary.clone(),
                    prompt: e.prompt.clone(),
                    model: e.model.clone(),
                    tokens_in: e.tokens_in,
                    tokens_out: e.tokens_out,
                    words: e.words,
                    word_limit: e.word_limit,
                    overrun: e.overrun,
                    at_ms: e.at_ms,
                    provenance: match e.provenance {
                        Provenance::Model => "model",
                        Provenance::Extractive => "extractive",
                        Provenance::ManualEdit => "manual_edit",
                        Provenance::Restore => "restore",
                    }
                    .into(),
                    level: e.level,
                    restored_from: e.restored_from,
                })
                .collect(),
            failures: m
                .failures()
                .iter()
                .map(|f| {
                    let (kind, turns, level) = match f.kind {
                        JobKind::Fold { turns, .. } => ("fold", Some(range_to_v1(turns)), None),
                        JobKind::Compress { level } => ("compress", None, Some(level)),
                    };
                    FailureV1 {
                        job_id: f.job_id,
                        kind: kind.into(),
                        turns,
                        level,
                        reason: f.reason.clone(),
                        at_ms: f.at_ms,
                    }
                })
                .collect(),
            facts: facts_to_v2(&session.pinned),
            live: session.live.as_ref().map(live_to_v2),
        },
    }
}

/// A long made-up session for scale tests and the browser benchmark: `turns` turns of a
/// budgeting conversation under "summarise at 8 turns, keep 4", a summary committed at every
/// cycle (so about one edition per four turns), and a must-keep fact that the summaries keep.
/// Deterministic, and built through [`MemoryState`] so it satisfies every import check.
pub fn synthetic(turns: u32) -> Session {
    use super::memory::CommitMeta;
    use super::message::WordCounter;
    let mut policy = Policy::new(Trigger::Turns {
        max_turns: 8,
        keep: 4,
    })
    .expect("8 and 4 are a valid turn trigger");
    policy.prompt.must_keep = vec!["no equities".into()];
    let mut memory = MemoryState::new("You are a careful budgeting coach.", policy)
        .expect("the policy above is valid");
    for t in 1..=u64::from(turns) {
        let question = format!(
            "Turn {t}: I spent {} on groceries and {} on transport this week; should I move {} into savings?",
            40 + t % 37,
            10 + t % 11,
            25 + t % 50
        );
        let reply = format!(
            "For turn {t}: keep groceries near {}, and yes, move {} into the savings pot. \
             You still hold no equities, as agreed, so the bond ladder stays as it is.",
            40 + t % 37,
            25 + t % 50
        );
        let _ = memory.add_message(Message::new(Role::User, question, &WordCounter, t));
        let job = memory.add_message(Message::new(Role::Assistant, reply, &WordCounter, t));
        if let Ok(Some(job)) = job {
            let meta = CommitMeta {
                model: None,
                provenance: Provenance::Extractive,
                at_ms: t,
            };
            let summary = format!(
                "Up to turn {t}: the client saves weekly, holds no equities and keeps a bond ladder."
            );
            let _ = memory.commit(job.id, &summary, meta, &WordCounter);
        }
    }
    Session::new(
        format!("Budget coach, {turns} turns"),
        SessionSettings::default(),
        memory,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::CommitMeta;
    use crate::engine::message::WordCounter;
    use serde_json::json;

    fn played() -> Session {
        let mut policy = Policy::new(Trigger::Turns {
            max_turns: 2,
            keep: 1,
        })
        .unwrap();
        policy.placement = Placement::UserAck;
        let mut memory = MemoryState::new("You are FinCoach.", policy).unwrap();
        let meta = CommitMeta {
            model: Some("m".into()),
            provenance: Provenance::Model,
            at_ms: 9,
        };
        for t in 1..=4 {
            memory
                .add_message(Message::new(Role::User, format!("q{t}"), &WordCounter, t))
                .unwrap();
            let job = memory
                .add_message(Message::new(
                    Role::Assistant,
                    format!("a{t}"),
                    &WordCounter,
                    t,
                ))
                .unwrap();
            if let Some(job) = job {
                if t == 3 {
                    memory.fail(job.id, "timeout", 3).unwrap();
                    let job = memory.retry_job().unwrap();
                    memory
                        .commit(job.id, "S3", meta.clone(), &WordCounter)
                        .unwrap();
                } else {
                    memory
                        .commit(job.id, &format!("S{t}"), meta.clone(), &WordCounter)
                        .unwrap();
                }
            }
        }
        memory.edit_summary("By hand.", 10, &WordCounter).unwrap();
        memory.restore(1, 11, &WordCounter).unwrap();
        Session {
            name: "Chiru".into(),
            settings: SessionSettings::default(),
            memory,
            pinned: vec![
                PinnedFact::phrase("first summary", "S1"),
                PinnedFact::regex("hand", r"(?i)by\s+hand"),
            ],
            live: None,
        }
    }

    /// `played()` as the live chat: reply 3 (index 5) cut short by a failure, reply 4 stopped.
    fn played_live() -> Session {
        Session {
            live: Some(LiveRecord {
                incomplete: [5, 7].into(),
                failed: [5].into(),
                calls: vec![
                    CallRecord {
                        kind: CallKind::Chat,
                        client_prompt_tokens: 12,
                        api_prompt_tokens: Some(14),
                        api_completion_tokens: Some(3),
                    },
                    CallRecord {
                        kind: CallKind::Summary,
                        client_prompt_tokens: 30,
                        api_prompt_tokens: None,
                        api_completion_tokens: None,
                    },
                ],
            }),
            ..played()
        }
    }

    fn file_json(session: &Session) -> Value {
        serde_json::from_str(&export(session, 1, "0.1.0")).unwrap()
    }

    fn import_value(value: &Value) -> Result<Session, ImportError> {
        import(value.to_string().as_bytes(), &WordCounter)
    }

    #[test]
    fn export_then_import_gives_the_same_conversation() {
        let session = played();
        let back = import(export(&session, 1, "0.1.0").as_bytes(), &WordCounter).unwrap();
        assert_eq!(back.name, session.name);
        assert_eq!(back.settings, session.settings);
        let (a, b) = (&session.memory, &back.memory);
        assert_eq!(a.archive(), b.archive());
        assert_eq!(a.verbatim(), b.verbatim());
        assert_eq!(a.editions(), b.editions());
        assert_eq!(a.failures(), b.failures());
        assert_eq!(a.summary(), b.summary());
        assert_eq!(a.policy(), b.policy());
        assert_eq!(a.system_prompt(), b.system_prompt());
        assert_eq!(b.summarised_to(), 3);
        assert_eq!(back.pinned, session.pinned);
        assert_eq!(back.live, None);
    }

    #[test]
    fn pinned_facts_and_the_live_record_survive_export_and_import() {
        let session = played_live();
        let text = export(&session, 1, "0.1.0");
        let back = import(text.as_bytes(), &WordCounter).unwrap();
        assert_eq!(back.pinned, session.pinned);
        assert_eq!(back.live, session.live);
        // Exporting what was imported writes the same file again.
        assert_eq!(export(&back, 1, "0.1.0"), text);
        let value = file_json(&session);
        assert_eq!(
            value["session"]["facts"][1],
            json!({"label": "hand", "kind": "regex", "pattern": r"(?i)by\s+hand"})
        );
        assert_eq!(value["session"]["live"]["incomplete"], json!([5, 7]));
        // A session that is not the live chat writes no live part at all.
        assert!(file_json(&played())["session"].get("live").is_none());
        let envelope = export_all(&[session.clone(), played()], 1, "0.1.0");
        let both = import_all(envelope.as_bytes(), &WordCounter).unwrap();
        assert_eq!(
            (both[0].live.as_ref(), both[1].live.as_ref()),
            (session.live.as_ref(), None)
        );
    }

    #[test]
    fn version_1_files_are_read_with_no_facts_and_no_live_part() {
        // What the previous version of the app wrote: no `facts`, no `live`, version 1.
        let mut value = file_json(&played_live());
        value["version"] = json!(1);
        let session = value["session"].as_object_mut().unwrap();
        session.remove("facts");
        session.remove("live");
        let back = import_value(&value).unwrap();
        assert!(back.pinned.is_empty());
        assert_eq!(back.live, None);
        assert_eq!(back.memory.archive(), played().memory.archive());
        assert_eq!(back.memory.editions(), played().memory.editions());
        // Saved again, it is a version-2 file.
        assert_eq!(file_json(&back)["version"], 2);
        let mut envelope: Value =
            serde_json::from_str(&export_all(&[played()], 1, "0.1.0")).unwrap();
        envelope["version"] = json!(1);
        envelope["sessions"][0]["version"] = json!(1);
        assert!(import_value(&envelope).is_ok());
    }

    #[test]
    fn damaged_facts_and_live_parts_name_what_is_wrong() {
        let refused = |damage: &dyn Fn(&mut Value), path: &str| {
            let mut value = file_json(&played_live());
            damage(&mut value);
            match import_value(&value) {
                Err(ImportError::Invalid { path: p, .. })
                | Err(ImportError::Field { path: p, .. }) => assert_eq!(p, path),
                other => panic!("expected an error at {path}, got {other:?}"),
            }
        };
        refused(
            &|v| v["session"]["facts"][1]["pattern"] = json!("(unclosed"),
            "session.facts[1]",
        );
        refused(
            &|v| v["session"]["facts"][0]["label"] = json!(" "),
            "session.facts[0]",
        );
        refused(
            &|v| v["session"]["facts"][0]["kind"] = json!("glob"),
            "session.facts[0].kind",
        );
        refused(
            &|v| v["session"]["live"]["incomplete"] = json!([4]),
            "session.live.incomplete[0]",
        );
        refused(
            &|v| v["session"]["live"]["incomplete"] = json!([5, 99]),
            "session.live.incomplete[1]",
        );
        refused(
            &|v| v["session"]["live"]["failed"] = json!([3]),
            "session.live.failed[0]",
        );
        refused(
            &|v| v["session"]["live"]["calls"][1]["kind"] = json!("embed"),
            "session.live.calls[1].kind",
        );
    }

    #[test]
    fn the_file_is_versioned_and_holds_no_api_key() {
        let value = file_json(&played());
        assert_eq!(value["format"], FORMAT);
        assert_eq!(value["version"], 2);
        assert_eq!(value["app_version"], "0.1.0");
        assert!(!value.to_string().to_lowercase().contains("api_key"));
        assert!(value["session"]["settings"].get("base_url").is_some());
    }

    #[test]
    fn the_summary_format_survives_export_and_older_files_read_as_prose() {
        let mut session = played();
        let mut policy = session.memory.policy().clone();
        policy.format = SummaryFormat::Structured;
        session.memory = MemoryState::new("You are FinCoach.", policy).unwrap();
        let mut value = file_json(&session);
        assert_eq!(value["session"]["policy"]["format"], "structured");
        let back = import_value(&value).unwrap();
        assert_eq!(back.memory.policy().format, SummaryFormat::Structured);

        value["session"]["policy"]
            .as_object_mut()
            .unwrap()
            .remove("format");
        let back = import_value(&value).unwrap();
        assert_eq!(back.memory.policy().format, SummaryFormat::Prose);

        value["session"]["policy"]["format"] = "yaml".into();
        let err = import_value(&value).unwrap_err().to_string();
        assert!(
            err.contains("format") && err.contains("prose or structured"),
            "{err}"
        );
    }

    #[test]
    fn many_sessions_round_trip_through_an_envelope() {
        let sessions = vec![played(), played()];
        let text = export_all(&sessions, 5, "0.1.0");
        let back = import_all(text.as_bytes(), &WordCounter).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back[1].memory.archive(), sessions[1].memory.archive());
        let err = import(text.as_bytes(), &WordCounter).unwrap_err();
        assert!(matches!(err, ImportError::Invalid { ref path, .. } if path == "sessions"));
    }

    #[test]
    fn a_plain_messages_array_becomes_a_new_session() {
        let array = json!([
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
            {"role": "user", "content": "bye"}
        ]);
        let session = import_value(&array).unwrap();
        assert_eq!(session.memory.system_prompt(), "Be brief.");
        assert_eq!(session.memory.archive().len(), 3);
        assert_eq!(session.memory.verbatim().len(), 3);
        assert!(session.memory.editions().is_empty());
        let late_system =
            json!([{"role": "user", "content": "a"}, {"role": "system", "content": "b"}]);
        assert!(matches!(
            import_value(&late_system),
            Err(ImportError::Invalid { ref path, .. }) if path == "[1].role"
        ));
    }

    #[test]
    fn version_0_files_are_migrated() {
        let v0 = json!({
            "format": FORMAT,
            "version": 0,
            "name": "Old",
            "system_prompt": "sys",
            "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": "a"}
            ],
            "summary": "Earlier talk."
        });
        let session = import_value(&v0).unwrap();
        assert_eq!(session.name, "Old");
        assert_eq!(session.memory.archive().len(), 2);
        assert_eq!(session.memory.verbatim().len(), 2);
        assert_eq!(session.memory.summary(), Some("Earlier talk."));
        let edition = &session.memory.editions()[0];
        assert_eq!(
            (edition.cycle, edition.provenance, edition.folded),
            (1, Provenance::Restore, None)
        );
        assert_eq!(session.memory.policy(), &Policy::default());
        assert_eq!((session.pinned.len(), session.live.is_none()), (0, true));
    }

    /// Checks that a damaged file is refused with an error naming `path`.
    fn check_refused(damage: impl FnOnce(&mut Value), path: &str) {
        let mut value = file_json(&played());
        damage(&mut value);
        match import_value(&value) {
            Err(ImportError::Invalid { path: p, .. }) | Err(ImportError::Field { path: p, .. }) => {
                assert_eq!(p, path)
            }
            other => panic!("expected an error at {path}, got {other:?}"),
        }
    }

    #[test]
    fn damaged_files_name_what_is_wrong() {
        check_refused(
            |v| v["session"]["archive"][2]["role"] = json!("robot"),
            "session.archive[2].role",
        );
        check_refused(
            |v| v["session"]["archive"][0]["role"] = json!("system"),
            "session.archive[0].role",
        );
        check_refused(
            |v| v["session"]["archive"][1]["content"] = json!(7),
            "session.archive[1].content",
        );
        check_refused(
            |v| v["session"]["editions"][1]["cycle"] = json!(5),
            "session.editions[1].cycle",
        );
        check_refused(
            |v| v["session"]["editions"][1]["folded"] = json!({"first": 1, "last": 2}),
            "session.editions[1].folded",
        );
        check_refused(
            |v| v["session"]["editions"][2]["folded"] = json!({"first": 4, "last": 9}),
            "session.editions[2].folded",
        );
        check_refused(
            |v| v["session"]["editions"][2]["previous"] = json!("x"),
            "session.editions[2].previous",
        );
        check_refused(
            |v| v["session"]["editions"][0]["level"] = json!(4),
            "session.editions[0].level",
        );
        check_refused(
            |v| v["session"]["editions"][0]["provenance"] = json!("magic"),
            "session.editions[0].provenance",
        );
        check_refused(
            |v| v["session"]["editions"][0]["summary"] = json!(" "),
            "session.editions[0].summary",
        );
        check_refused(
            |v| v["session"]["policy"]["trigger"]["keep"] = json!(2),
            "session.policy",
        );
        check_refused(
            |v| v["session"]["policy"]["placement"] = json!("top"),
            "session.policy.placement",
        );
        check_refused(
            |v| v["session"]["failures"][0]["turns"] = json!({"first": 1, "last": 99}),
            "session.failures[0].kind",
        );
        check_refused(
            |v| {
                v["session"].as_object_mut().unwrap().remove("archive");
            },
            "session",
        );
    }

    #[test]
    fn folds_cannot_claim_an_incomplete_turn() {
        let mut value = file_json(&played());
        // Drop the final assistant reply: turn 4 is no longer complete, yet nothing folds it.
        value["session"]["archive"].as_array_mut().unwrap().pop();
        assert!(import_value(&value).is_ok());
        // Now drop turn 3's reply as well; the editions still claim turn 3 was folded.
        let archive = value["session"]["archive"].as_array_mut().unwrap();
        archive.truncate(5);
        assert!(matches!(
            import_value(&value),
            Err(ImportError::Invalid { ref path, .. }) if path == "session.editions[2].folded"
        ));
    }

    #[test]
    fn wrong_format_version_size_and_syntax_are_refused() {
        let mut value = file_json(&played());
        value["version"] = json!(3);
        assert_eq!(
            import_value(&value).unwrap_err(),
            ImportError::UnsupportedVersion(3)
        );
        value["format"] = json!("something-else");
        assert!(matches!(
            import_value(&value),
            Err(ImportError::UnknownFormat { .. })
        ));
        assert!(matches!(
            import(b"{ not json", &WordCounter),
            Err(ImportError::Json { line: 1, .. })
        ));
        assert!(matches!(
            import(b"42", &WordCounter),
            Err(ImportError::UnknownFormat { .. })
        ));
        let huge = vec![b' '; MAX_IMPORT_BYTES + 1];
        assert_eq!(
            import(&huge, &WordCounter).unwrap_err(),
            ImportError::TooLarge {
                bytes: MAX_IMPORT_BYTES + 1,
                limit: MAX_IMPORT_BYTES
            }
        );
    }

    #[test]
    fn token_and_word_counts_are_recounted_not_trusted() {
        let mut value = file_json(&played());
        value["session"]["editions"][0]["words"] = json!(999);
        value["session"]["editions"][0]["overrun"] = json!(true);
        let session = import_value(&value).unwrap();
        assert_eq!(session.memory.editions()[0].words, 1);
        assert!(!session.memory.editions()[0].overrun);
        assert_eq!(session.memory.archive()[0].tokens, 1);
    }
}
