//! A policy read back: a policy file alone ([`import_policy`]: a bare policy, a session file's,
//! or the page's policy export) and a session's `policy` object ([`policy_from_v1`]), checked
//! field by field and validated, each fault naming its JSON path.

use serde_json::Value;

use super::{ImportError, invalid, join, typed};
use crate::engine::policy::{FoldMode, Placement, Policy, SummaryFormat, Trigger};
use crate::engine::prompts::{PresetId, PromptSpec};
use crate::engine::session::wire::{FORMAT, POLICY_FORMAT, PolicyV1, VERSION};

/// A policy alone, in the shape a session file stores it (the `session.policy` object): a bare
/// policy object, a whole session file whose policy is taken, or the page's policy export
/// (`engine::export`'s JSON target, its `policy`). Every fault names its JSON
/// path, and the policy is validated.
pub fn import_policy(bytes: &[u8]) -> Result<Policy, ImportError> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| ImportError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let (value, prefix) = policy_in(value)?;
    policy_from_v1(typed(value, prefix)?, prefix).map_err(|e| match e {
        // A fault of the whole policy (it does not validate) is named as the policy's.
        ImportError::Invalid { path, reason } if path.is_empty() => ImportError::Invalid {
            path: "the policy".into(),
            reason,
        },
        e => e,
    })
}

/// Where a policy file keeps its policy. A file that names itself (a `format` or a `version`)
/// is the page's policy export (`engine::export`'s JSON target, the policy under `policy`
/// beside the models and pinned facts it carries for the reader) or a session file (under
/// `session.policy`), and must hold one; any other object is a bare policy.
fn policy_in(value: Value) -> Result<(Value, &'static str), ImportError> {
    let Some(object) = value.as_object() else {
        return Err(ImportError::Invalid {
            path: "the file".into(),
            reason: "it holds no JSON object at its top level".into(),
        });
    };
    let format = object.get("format");
    match format.map(|f| f.as_str()) {
        None => {}
        Some(Some(POLICY_FORMAT | FORMAT)) => {}
        Some(_) => {
            return Err(ImportError::Field {
                path: "format".into(),
                message: format!(
                    "{} is not a policy file; expected {:?}",
                    format.expect("matched Some"),
                    POLICY_FORMAT
                ),
            });
        }
    }
    let version = object.get("version");
    if let Some(version) = version
        && version.as_u64().is_none_or(|v| v > VERSION)
    {
        return Err(ImportError::Field {
            path: "version".into(),
            message: format!("{version} is not a version this app reads (0 to {VERSION})"),
        });
    }
    match (value.pointer("/session/policy"), value.pointer("/policy")) {
        (Some(policy), _) => Ok((policy.clone(), "session.policy")),
        (None, Some(policy)) if policy.is_object() => Ok((policy.clone(), "policy")),
        _ if format.is_some() || version.is_some() => Err(ImportError::Field {
            path: "policy".into(),
            message: "missing; the file holds no policy".into(),
        }),
        _ => Ok((value, "")),
    }
}

/// A session's `policy` object (under `prefix`) as the engine's [`Policy`], checked.
pub(in crate::engine::session) fn policy_from_v1(
    p: PolicyV1,
    prefix: &str,
) -> Result<Policy, ImportError> {
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
        "window" => Trigger::Window {
            context: need(t.context, "context")?,
            fire_pct: need(t.fire_pct, "fire_pct")?,
            keep_pct: need(t.keep_pct, "keep_pct")?,
            keep_turns: t.keep_turns.unwrap_or(0),
        },
        other => {
            return Err(invalid(
                join(prefix, "trigger.kind"),
                format!(
                    "unknown trigger {other:?}; expected turns, tokens, window, every, messages or manual"
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
        Some("topics") => SummaryFormat::Topics,
        Some(other) => {
            return Err(invalid(
                join(prefix, "format"),
                format!(
                    "unknown summary format {other:?}; expected prose or structured (or topics, for topic sections)"
                ),
            ));
        }
    };
    let preset = PresetId::from_slug(&p.prompt.preset).ok_or_else(|| {
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
            metadata: p.prompt.metadata,
        },
        format,
        summary_budget: p.summary_budget,
        exact: crate::engine::session::exact::exact_from_v4(p.exact, &join(prefix, "exact"))
            .map_err(|r| ImportError::Invalid {
                path: r.path,
                reason: r.reason,
            })?,
    };
    policy
        .validate()
        .map_err(|e| invalid(prefix.to_owned(), e.to_string()))?;
    Ok(policy)
}
