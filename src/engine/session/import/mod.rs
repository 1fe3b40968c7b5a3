//! Reading a session file: the size cap before parsing, the format and version check, the
//! conversion of versions 1 to 4 into the engine's types, and every invariant the engine relies
//! on checked after. Anything that is not a session file is offered to `engine::transcript`
//! (OpenAI and Anthropic requests, ChatGPT and Claude.ai exports, ShareGPT datasets, JSON
//! Lines of them, and so the plain `[{role, content}]` array), each conversation becoming a
//! session; [`read`] says which format was read. Nothing is changed when it fails: the result
//! is new [`Session`]s or an [`ImportError`] that names the JSON path (or line, or
//! conversation) at fault. A policy alone ([`import_policy`]) is read in `policy.rs`.

use std::collections::BTreeSet;

use serde_json::Value;
use thiserror::Error;

use super::migrate::migrate_v0;
use super::wire::{
    ContinuedV6, ENVELOPE_FORMAT, FORMAT, FileV2, LiveV2, MessageV1, SessionV2, VERSION,
};
use crate::engine::edition::{Compactor, Edition, EditionDraft, MAX_LEVEL, Provenance, TurnRange};
use crate::engine::facts::PinnedFact;
use crate::engine::library_session::{
    CallKind, CallRecord, ContinuedFrom, LiveRecord, Session, SessionSettings,
};
use crate::engine::memory::{Failure, JobKind, MemoryState, ends_turn, turn_starts};
use crate::engine::message::{CountTokens, Message, MessageParts, Role, ToolCall};
use crate::engine::policy::Policy;
use crate::engine::prompts::{PresetId, PromptSpec};
use crate::engine::transcript::{self, Conversation, Transcript, TranscriptError};

mod policy;

pub use policy::import_policy;
pub(in crate::engine::session) use policy::policy_from_v1;

/// Files larger than this are refused before parsing, so a huge file cannot exhaust memory.
pub const MAX_IMPORT_BYTES: usize = 64 * 1024 * 1024;

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
    /// The JSON is none of the formats read. `found` says what the file is instead.
    #[error(
        "unknown file format: the file is {found}; this app reads its own session files (\"{FORMAT}\", \"{ENVELOPE_FORMAT}\") and {reads}, as JSON or JSON Lines",
        reads = transcript::reads()
    )]
    UnknownFormat { found: String },
    /// The file was written by a newer or unknown version of the app.
    #[error(
        "session format version {0} is not supported (this app reads versions 0 to {VERSION}); update the app"
    )]
    UnsupportedVersion(u64),
    /// A field is missing or has the wrong type.
    #[error("at {path}: {message}")]
    Field { path: String, message: String },
    /// The values parse but contradict each other.
    #[error("at {path}: {reason}")]
    Invalid { path: String, reason: String },
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

/// Reads every session in a file: an envelope, a single session file, or any transcript
/// `engine::transcript` reads.
pub fn import_all(bytes: &[u8], counter: &dyn CountTokens) -> Result<Vec<Session>, ImportError> {
    read(bytes, counter).map(|read| read.sessions)
}

/// What a file was read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// This app's session file or envelope.
    SessionFile,
    /// Another tool's transcript, as JSON or JSON Lines.
    Transcript {
        format: transcript::Format,
        json_lines: bool,
    },
}

impl Source {
    /// The format's words, as the page says them ("a ChatGPT data export", "OpenAI Chat
    /// Completions messages as JSON Lines").
    pub fn label(self) -> String {
        match self {
            Source::SessionFile => "a Summary Memory session file".into(),
            Source::Transcript {
                format,
                json_lines: false,
            } => format.label().into(),
            Source::Transcript { format, .. } if format.is_lines_only() => format.label().into(),
            Source::Transcript {
                format,
                json_lines: true,
            } => format!("{} as JSON Lines", format.label()),
        }
    }

    /// A stable slug for the page's `data-format`: `session`, or the transcript format's slug
    /// (with `-jsonl` for JSON Lines).
    pub fn slug(self) -> String {
        match self {
            Source::SessionFile => "session".into(),
            Source::Transcript { format, json_lines } => {
                let lines = json_lines && !format.is_lines_only();
                format!("{}{}", format.slug(), if lines { "-jsonl" } else { "" })
            }
        }
    }
}

/// The sessions a file holds, what it was read as, and the conversations left out.
#[derive(Clone, Debug, PartialEq)]
pub struct Read {
    pub source: Source,
    pub sessions: Vec<Session>,
    /// Conversations of the file that could not be read (the others were).
    pub skipped: Vec<transcript::Skipped>,
}

impl Read {
    /// The sentence the page shows after an import, the skipped conversations named in it.
    pub fn describe(&self) -> String {
        let read = self.headline();
        match self.skipped.as_slice() {
            [] => read,
            [one] => format!("{read} Skipped 1 conversation: {}.", one.describe()),
            many => format!(
                "{read} Skipped {} conversations: {}.",
                many.len(),
                many.iter()
                    .map(transcript::Skipped::describe)
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        }
    }
}

impl Read {
    /// What was read, without the skipped conversations ("Read 3 conversations from a ChatGPT
    /// data export."), for a page that lists those one by one.
    pub fn headline(&self) -> String {
        let n = self.sessions.len();
        let what = if self.source == Source::SessionFile {
            if n == 1 { "session" } else { "sessions" }
        } else if n == 1 {
            "conversation"
        } else {
            "conversations"
        };
        format!("Read {n} {what} from {}.", self.source.label())
    }
}

/// Reads every session in a file and says what the file was: a session file or envelope, or a
/// transcript of another tool, detected from the content alone.
pub fn read(bytes: &[u8], counter: &dyn CountTokens) -> Result<Read, ImportError> {
    if bytes.len() > MAX_IMPORT_BYTES {
        return Err(ImportError::TooLarge {
            bytes: bytes.len(),
            limit: MAX_IMPORT_BYTES,
        });
    }
    read_any(bytes, counter)
}

/// Reads one session the app itself stored, with no size cap: the cap guards against files from
/// elsewhere, and what this app wrote must always read back, however long the chat grew. Only
/// the app's own format is read (the store holds nothing else), so the library read at start
/// reaches none of the other tools' readers: they stay in the module that imports files.
pub fn import_stored(bytes: &[u8], counter: &dyn CountTokens) -> Result<Session, ImportError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| ImportError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let mut sessions = read_session_value(value, counter)?;
    if sessions.len() != 1 {
        return Err(ImportError::Invalid {
            path: "sessions".into(),
            reason: format!("the record holds {} sessions", sessions.len()),
        });
    }
    Ok(sessions.remove(0))
}

/// [`read`] with no size cap, for the command-line tool: the cap guards the page against a file
/// from elsewhere filling its memory, and a user's own machine reading a file they named has
/// no such need.
pub fn read_unbounded(bytes: &[u8], counter: &dyn CountTokens) -> Result<Read, ImportError> {
    read_any(bytes, counter)
}

/// [`read`] with no size cap.
fn read_any(bytes: &[u8], counter: &dyn CountTokens) -> Result<Read, ImportError> {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(e) => {
            let lines = std::str::from_utf8(bytes)
                .ok()
                .and_then(transcript::read_lines);
            return match lines {
                Some(read) => from_transcript(read, counter),
                None => Err(ImportError::Json {
                    line: e.line(),
                    column: e.column(),
                    message: e.to_string(),
                }),
            };
        }
    };
    read_json(value, counter)
}

/// Reads a parsed JSON value as [`read`] reads a file's (a session file or envelope, or a
/// transcript), with no size cap: for the command-line tool, which parses each line of a JSON
/// Lines file of conversations once and reads it on its own.
pub fn read_json(value: Value, counter: &dyn CountTokens) -> Result<Read, ImportError> {
    let is_session = value
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| f == FORMAT || f == ENVELOPE_FORMAT);
    if !is_session && let Some(read) = transcript::read_value(&value) {
        return from_transcript(read, counter);
    }
    Ok(Read {
        source: Source::SessionFile,
        sessions: read_session_value(value, counter)?,
        skipped: Vec::new(),
    })
}

fn from_transcript(
    read: Result<Transcript, TranscriptError>,
    counter: &dyn CountTokens,
) -> Result<Read, ImportError> {
    let read = read.map_err(|e| ImportError::Invalid {
        path: e.place,
        reason: e.reason,
    })?;
    let many = read.conversations.len() > 1;
    let sessions = read
        .conversations
        .into_iter()
        .enumerate()
        .map(|(i, c)| from_conversation(c, if many { Some(i + 1) } else { None }, counter))
        .collect();
    Ok(Read {
        source: Source::Transcript {
            format: read.format,
            json_lines: read.json_lines,
        },
        sessions,
        skipped: read.skipped,
    })
}

/// The policy an imported conversation starts with: the default trigger, and the Generic prompt
/// with no must-keep list, so it is judged by its own content rather than as a financial-advice
/// chat (the default policy's preset is the demos').
pub fn imported_policy() -> Policy {
    let mut prompt = PromptSpec::from_preset(PresetId::Generic);
    prompt.must_keep.clear();
    Policy {
        prompt,
        ..Policy::default()
    }
}

/// One conversation as a new session under [`imported_policy`]: every message verbatim, but
/// for the turns the tool that wrote it folded into its own compactions. Named by its title, or
/// `Imported conversation {number}` (`number` from 1, `None` when the file holds it alone).
pub fn from_conversation(
    c: Conversation,
    number: Option<usize>,
    counter: &dyn CountTokens,
) -> Session {
    let name = match (c.title.filter(|t| !t.trim().is_empty()), number) {
        (Some(title), _) => title,
        (None, Some(n)) => format!("Imported conversation {n}"),
        (None, None) => "Imported conversation".to_owned(),
    };
    let archive: Vec<Message> = c
        .messages
        .into_iter()
        .map(|parts| Message::with_parts(parts, counter))
        .collect();
    // A coding agent's own compactions become the session's editions.
    let editions = super::compactions::editions(&archive, &c.compactions, counter);
    let memory = MemoryState::from_parts(
        c.system,
        imported_policy(),
        archive,
        editions,
        Vec::new(),
        counter,
    );
    Session::new(name, SessionSettings::default(), memory)
}

fn read_session_value(
    value: Value,
    counter: &dyn CountTokens,
) -> Result<Vec<Session>, ImportError> {
    match &value {
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
            _ => Err(ImportError::UnknownFormat {
                found: describe(&value),
            }),
        },
        _ => Err(ImportError::UnknownFormat {
            found: describe(&value),
        }),
    }
}

/// What a JSON value that is none of the formats looks like, for the error: its kind, and the
/// keys of an object (or of an array's first item), so the user sees what the app saw.
fn describe(value: &Value) -> String {
    fn keys(map: &serde_json::Map<String, Value>) -> String {
        const SHOWN: usize = 6;
        let mut names: Vec<String> = map.keys().take(SHOWN).map(|k| format!("{k:?}")).collect();
        if map.len() > SHOWN {
            names.push(format!("and {} more", map.len() - SHOWN));
        }
        if names.is_empty() {
            "no keys".to_owned()
        } else {
            format!("keys {}", names.join(", "))
        }
    }
    fn kind(value: &Value) -> String {
        match value {
            Value::Null => "null".into(),
            Value::Bool(_) => "true or false".into(),
            Value::Number(_) => "a number".into(),
            Value::String(_) => "a string".into(),
            Value::Array(items) => format!("an array of {} items", items.len()),
            Value::Object(map) => match map.get("format").and_then(Value::as_str) {
                Some(format) => format!("an object of format {format:?}"),
                None => format!("an object with {}", keys(map)),
            },
        }
    }
    match value {
        Value::Array(items) => match items.first() {
            None => "an empty array".into(),
            Some(first) => format!("{}, the first {}", kind(value), kind(first)),
        },
        other => kind(other),
    }
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
    super::json_path::deserialize(&value).map_err(|e| ImportError::Field {
        path: join(prefix, &e.path),
        message: e.message,
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
        return Err(ImportError::UnknownFormat {
            found: format!("an object of format {:?}", file.format),
        });
    }
    from_session_v2(file.session, &join(prefix, "session"), counter)
}

fn parse_role(role: &str, path: &str) -> Result<Role, ImportError> {
    match role {
        "system" => Ok(Role::System),
        "user" => Ok(Role::User),
        "assistant" => Ok(Role::Assistant),
        "tool" => Ok(Role::Tool),
        other => Err(ImportError::Invalid {
            path: path.to_owned(),
            reason: format!("unknown role {other:?}; expected user, assistant or tool"),
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
        let at = join(prefix, &format!("archive[{i}]"));
        archive.push(message_from_v1(m, &at, counter)?);
    }
    let starts = turn_starts(archive.iter().map(|m| m.role));
    let turns = starts.len() as u32;
    let last_complete = archive.last().is_none_or(ends_turn);
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
            other => match Compactor::from_slug(other) {
                Some(tool) => Provenance::Tool(tool),
                None => {
                    return Err(invalid(
                        at("provenance"),
                        format!(
                            "unknown provenance {other:?}; expected model, extractive, manual_edit, restore, claude-code or codex"
                        ),
                    ));
                }
            },
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
                rebuilt: e.rebuilt,
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
    let mut memory = MemoryState::from_parts(
        s.system_prompt,
        policy,
        archive,
        editions,
        failures,
        counter,
    );
    if let Some(from) = s.verbatim_from {
        memory
            .set_verbatim_inside_a_turn(from)
            .map_err(|reason| invalid(join(prefix, "verbatim_from"), reason))?;
    }
    for index in s.excluded {
        memory
            .set_excluded(index, true)
            .map_err(|e| invalid(join(prefix, "excluded"), e.to_string()))?;
    }
    let pair = s
        .pair
        .map(|p| super::pair::pair_from_v5(p, &join(prefix, "pair")))
        .transpose()
        .map_err(|(path, reason)| invalid(path, reason))?;
    let probes = super::probes::probes_from_v5(
        s.probes,
        memory.archive().len(),
        memory.editions().len() as u32,
        &join(prefix, "probes"),
    )
    .map_err(|(path, reason)| invalid(path, reason))?;
    let continued_from = s
        .continued_from
        .map(|c| continued_from_v6(c, &join(prefix, "continued_from")))
        .transpose()?;
    Ok(Session {
        name: s.name,
        settings,
        memory,
        pinned,
        live,
        pair,
        probes,
        continued_from,
    })
}

/// The link a file's `continued_from` describes: its edition is counted from 1.
fn continued_from_v6(c: ContinuedV6, prefix: &str) -> Result<ContinuedFrom, ImportError> {
    if c.edition == 0 {
        return Err(invalid(
            join(prefix, "edition"),
            "editions are counted from 1; found 0",
        ));
    }
    Ok(ContinuedFrom {
        session_id: c.session_id,
        name: c.name,
        edition: c.edition,
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

/// One archive message of a file, its tool traffic checked against its role.
fn message_from_v1(
    m: MessageV1,
    at: &str,
    counter: &dyn CountTokens,
) -> Result<Message, ImportError> {
    let role = match parse_role(&m.role, &join(at, "role"))? {
        Role::System => {
            return Err(invalid(
                join(at, "role"),
                "system messages belong in system_prompt",
            ));
        }
        role => role,
    };
    if !m.calls.is_empty() && role != Role::Assistant {
        return Err(invalid(
            join(at, "calls"),
            "only an assistant message makes tool calls",
        ));
    }
    if (m.call_id.is_some() || m.tool_name.is_some()) && role != Role::Tool {
        return Err(invalid(
            join(at, "call_id"),
            "only a tool message answers a call",
        ));
    }
    Ok(Message::with_parts(
        MessageParts {
            role,
            content: m.content,
            at_ms: m.at_ms,
            calls: m
                .calls
                .into_iter()
                .map(|c| ToolCall {
                    id: c.id,
                    name: c.name,
                    arguments: c.arguments,
                })
                .collect(),
            call_id: m.call_id,
            tool_name: m.tool_name,
            placeholders: m.placeholders,
        },
        counter,
    ))
}
