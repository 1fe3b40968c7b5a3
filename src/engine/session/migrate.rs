//! Older versions brought up to the current one. Version 0 (a bare message list and the latest
//! summary) becomes a current file here; versions 1 to 5 need no migration (version 5 is version
//! 6 without `continued_from`, read as not continued; version 4 is version 5 without probes), each being the next
//! without the fields that default to none (version 3 has no exact policy and no first
//! verbatim message inside a turn, version 2 no tool traffic or placeholders on its messages
//! either, version 1 neither facts nor a live part).

use super::export::{policy_to_v1, settings_to_v1};
use super::wire::{EditionV1, FORMAT, FileV2, MessageV1, SessionV0, SessionV2, VERSION};
use crate::engine::library_session::SessionSettings;
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
            rebuilt: false,
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
                    calls: Vec::new(),
                    call_id: None,
                    tool_name: None,
                    placeholders: Vec::new(),
                })
                .collect(),
            editions,
            failures: Vec::new(),
            excluded: Vec::new(),
            facts: Vec::new(),
            live: None,
            verbatim_from: None,
            pair: None,
            probes: None,
            continued_from: None,
        },
    }
}
