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
//! failures; 2 adds the pinned facts and, for the live chat, the `LiveRecord` (which replies
//! are incomplete, which were cut short by a failed request, and the record of model calls).
//! A version-1 file is a version-2 file without those two fields, so it reads as "no facts
//! pinned" and "not a live chat". An older app refuses a version-2 file with
//! [`ImportError::UnsupportedVersion`] instead of silently dropping its facts. Version 3 adds
//! tool traffic and placeholders to archive messages (the `tool` role, an assistant's `calls`,
//! a result's `call_id` and `tool_name`, the `placeholders` of non-text parts); a version-2
//! file is a version-3 file without them, and a version-2 app refuses version 3 rather than
//! drop them. Version 4 adds the policy's `exact` fields and, after an exact fold that ended
//! inside a turn, `verbatim_from`; a version-3 file reads with today's defaults (`exact`).
//! Version 5 adds the probes (`probes.rs`: the probe set, the judge's and writer's prompts, the
//! models used, a grade per probe and edition); a version-4 file reads as having none.
//!
//! What the app keeps of a session (`Session`, `LiveRecord`, the A/B pair, the probe set) is
//! [`crate::engine::library_session`]; this module is only its file form. One concept per
//! file: `wire` the versioned on-disk types, with `exact`, `pair` and `probes` the forms of the
//! policy's exact fields, an A/B side and the probes; `import` reading a file (size cap,
//! version check, invariant checks) and `migrate` the older shapes (version 0, plain message
//! arrays); `export` writing one; [`fixture`] the sessions tests and benchmarks build.
//!
//! [`read`] offers any file that is not a session to [`crate::engine::transcript`] and says
//! which format it read, one session per conversation. [`import_stored`] reads back what the
//! app itself stored, with no size cap. Among the fixtures, `Scripted` is the shared scripted
//! test session, `synthetic(turns)` a long summarised one and `verbatim(turns)` a long chat with
//! nothing folded.

mod compactions;
mod exact;
mod export;
pub mod fixture;
mod import;
mod json_path;
mod migrate;
mod pair;
mod probes;
mod wire;

#[cfg(test)]
mod tests;

use crate::engine::library_session::Session;

pub use export::{export, export_all, export_compact, export_policy};
pub use fixture::synthetic;
pub use import::{
    ImportError, MAX_IMPORT_BYTES, Read, Source, from_conversation, import, import_all,
    import_policy, import_stored, read, read_json, read_unbounded,
};
pub use wire::{ENVELOPE_FORMAT, FORMAT, FileV2 as WireFile, POLICY_FORMAT, VERSION};

/// The serde value of `session`'s export file, which [`export_compact`] writes as JSON: for the
/// browser benchmark that compares handing it across the wasm boundary as that text or as a
/// JavaScript object.
pub fn wire_of(session: &Session, created_ms: u64, app_version: &str) -> WireFile {
    export::to_file(session, created_ms, app_version)
}

/// A policy alone, as a session file of the current [`VERSION`] stores it (its `policy`
/// object): the JSON export of `engine::export` writes it, so the two can never drift apart.
pub fn policy_value(policy: &crate::engine::policy::Policy) -> serde_json::Value {
    serde_json::to_value(export::policy_to_v1(policy)).unwrap_or_default()
}

/// Reads back a [`policy_value`], checking it as a session's policy is checked on import; the
/// error names the JSON path at fault under `path`.
pub fn policy_from_value(
    value: serde_json::Value,
    path: &str,
) -> Result<crate::engine::policy::Policy, ImportError> {
    let wire: wire::PolicyV1 = json_path::deserialize(&value).map_err(|e| ImportError::Field {
        path: if e.path == "." {
            path.to_owned()
        } else {
            format!("{path}.{}", e.path)
        },
        message: e.message,
    })?;
    import::policy_from_v1(wire, path)
}
