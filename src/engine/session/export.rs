//! Writing sessions: one file or an envelope of many, always of the current [`VERSION`],
//! converted by hand from the engine's types into `wire`'s.

use super::wire::{
    CallV2, ENVELOPE_FORMAT, EditionV1, EnvelopeV2, FORMAT, FactV2, FailureV1, FileV2, LiveV2,
    MessageV1, PolicyV1, PromptV1, RangeV1, SessionV2, SettingsV1, ToolCallV3, TriggerV1, VERSION,
};
use crate::engine::edition::{Provenance, TurnRange};
use crate::engine::facts::{FactPattern, PinnedFact};
use crate::engine::library_session::{LiveRecord, Session, SessionSettings};
use crate::engine::memory::JobKind;
use crate::engine::policy::{FoldMode, Placement, Policy, SummaryFormat, Trigger};

/// Writes one session as a file of the current [`VERSION`].
pub fn export(session: &Session, created_ms: u64, app_version: &str) -> String {
    let file = to_file(session, created_ms, app_version);
    serde_json::to_string_pretty(&file).unwrap_or_default()
}

/// Writes one session as [`export`] does, without the indentation: the form the browser
/// stores, a third smaller or more, which reads back the same.
pub fn export_compact(session: &Session, created_ms: u64, app_version: &str) -> String {
    let file = to_file(session, created_ms, app_version);
    serde_json::to_string(&file).unwrap_or_default()
}

/// Writes a policy alone, as a session file stores it: what [`super::import_policy`] reads.
pub fn export_policy(policy: &Policy) -> String {
    serde_json::to_string_pretty(&policy_to_v1(policy)).unwrap_or_default()
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

pub(super) fn settings_to_v1(s: &SessionSettings) -> SettingsV1 {
    SettingsV1 {
        base_url: s.base_url.clone(),
        chat_model: s.chat_model.clone(),
        summary_model: s.summary_model.clone(),
        temperature: s.temperature,
        max_tokens: s.max_tokens,
        reasoning_effort: s.reasoning_effort.clone(),
    }
}

pub(super) fn policy_to_v1(p: &Policy) -> PolicyV1 {
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
        Trigger::Window {
            context,
            fire_pct,
            keep_pct,
            keep_turns,
        } => TriggerV1 {
            kind: "window".into(),
            context: Some(context),
            fire_pct: Some(fire_pct),
            keep_pct: Some(keep_pct),
            keep_turns: (keep_turns > 0).then_some(keep_turns),
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
            preset: p.prompt.preset.slug().into(),
            text: p.prompt.text.clone(),
            word_limit: p.prompt.word_limit,
            must_keep: p.prompt.must_keep.clone(),
            metadata: p.prompt.metadata,
        },
        format: match p.format {
            SummaryFormat::Prose => None,
            SummaryFormat::Structured => Some("structured".into()),
            SummaryFormat::Topics => Some("topics".into()),
        },
        summary_budget: p.summary_budget,
        exact: super::exact::exact_to_v4(&p.exact),
    }
}

fn range_to_v1(r: TurnRange) -> RangeV1 {
    RangeV1 {
        first: r.first,
        last: r.last,
    }
}

pub(super) fn to_file(session: &Session, created_ms: u64, app_version: &str) -> FileV2 {
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
                    calls: msg
                        .calls
                        .iter()
                        .map(|c| ToolCallV3 {
                            id: c.id.clone(),
                            name: c.name.clone(),
                            arguments: c.arguments.clone(),
                        })
                        .collect(),
                    call_id: msg.call_id.clone(),
                    tool_name: msg.tool_name.clone(),
                    placeholders: msg.placeholders.clone(),
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
                        Provenance::Tool(tool) => tool.slug(),
                    }
                    .into(),
                    level: e.level,
                    restored_from: e.restored_from,
                    rebuilt: e.rebuilt,
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
            excluded: m.excluded().collect(),
            facts: facts_to_v2(&session.pinned),
            live: session.live.as_ref().map(live_to_v2),
            verbatim_from: m.verbatim_inside_a_turn(),
            pair: session.pair.as_ref().map(super::pair::pair_to_v5),
            probes: super::probes::probes_to_v5(&session.probes),
            continued_from: session
                .continued_from
                .as_ref()
                .map(|c| super::wire::ContinuedV6 {
                    session_id: c.session_id.clone(),
                    name: c.name.clone(),
                    edition: c.edition,
                }),
        },
    }
}
