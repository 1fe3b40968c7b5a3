//! The older shapes a file may have, brought up to the current one: version 0 (a bare message
//! list and the latest summary) and a plain `[{role, content}]` array. Version 1 needs no
//! migration: it is version 2 without the fields that default to none.

use serde_json::Value;

use super::domain::{Session, SessionSettings};
use super::export::{policy_to_v1, settings_to_v1};
use super::import::{ImportError, parse_role, typed};
use super::wire::{EditionV1, FORMAT, FileV2, MessageV0, MessageV1, SessionV0, SessionV2, VERSION};
use crate::engine::memory::MemoryState;
use crate::engine::message::{CountTokens, Message, Role};
use crate::engine::policy::Policy;

/// Version 0 kept no record of which turns its summary covered, so every message stays
/// verbatim and the summary becomes edition 1, marked as restored from the old file.
pub(super) fn migrate_v0(old: SessionV0) -> FileV2 {
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

pub(super) fn from_messages_array(
    value: Value,
    counter: &dyn CountTokens,
) -> Result<Session, ImportError> {
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
