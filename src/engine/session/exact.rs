//! The exact policy to and from its version-4 wire form ([`ExactV4`]), by hand, so a change of
//! the engine's types never changes what is on disk. A file without it reads as today's
//! defaults; a value this build does not know is an error naming its path.

use super::wire::{CountedV4, ExactV4, KeepV4};
use crate::engine::policy::{
    CheckAt, Compare, Counted, Counter, Exact, Keep, Measure, ShareOf, Start, SummaryAt,
    SummaryOverflow,
};

/// A value of the wire form this build does not know: where it is, and why it is refused.
/// (The import turns it into its `ImportError::Invalid`.)
pub(super) struct Refused {
    pub(super) path: String,
    pub(super) reason: String,
}

/// The wire form, `None` for the defaults (so older readers' files stay as they were). A
/// policy of today's rules with another counter writes the counter alone.
pub(super) fn exact_to_v4(e: &Exact) -> Option<ExactV4> {
    let counter = (e.counter != Counter::default()).then(|| e.counter.slug().to_owned());
    if !e.is_exact() {
        return counter.map(|counter| ExactV4 {
            counter: Some(counter),
            ..ExactV4::default()
        });
    }
    let (summary_at, summary_at_text) = match &e.summary_at {
        SummaryAt::Placement => ("placement", None),
        SummaryAt::System => ("system", None),
        SummaryAt::FirstSystem => ("first_system", None),
        SummaryAt::User => ("user", None),
        SummaryAt::UserThenAck(text) => ("user_then_ack", Some(text.clone())),
        SummaryAt::AssistantAfter(text) => ("assistant_after", Some(text.clone())),
    };
    Some(ExactV4 {
        counted: e.counted.map(|c| CountedV4 {
            system: c.system,
            summary: c.summary,
            verbatim: c.verbatim,
            incoming: c.incoming,
            reply: c.reply,
        }),
        compare: Some(
            match e.compare {
                Compare::Above => "above",
                Compare::AtLeast => "at_least",
            }
            .into(),
        ),
        check: Some(
            match e.check {
                CheckAt::AfterReply => "after_reply",
                CheckAt::BeforeRequest => "before_request",
                CheckAt::BeforeTurn => "before_turn",
                CheckAt::PreviousRequest => "previous_request",
            }
            .into(),
        ),
        keep: e.keep.map(|k| match k {
            Keep::Turns(n) => keep("turns", n, None, None),
            Keep::Messages(n) => keep("messages", n, None, None),
            Keep::Tokens(n) => keep("tokens", n, None, None),
            Keep::Share { of, pct, by } => {
                let by = Some(match by {
                    Measure::Tokens => "tokens",
                    Measure::Chars => "chars",
                });
                match of {
                    ShareOf::Window(context) => keep("window_share", pct, Some(context), by),
                    ShareOf::History => keep("history_share", pct, None, by),
                }
            }
        }),
        keep_newest: e.keep_newest,
        start: Some(
            match e.start {
                Start::Anywhere => "anywhere",
                Start::AtUser => "at_user",
            }
            .into(),
        ),
        keep_user_tokens: e.keep_user_tokens,
        summary_at: Some(summary_at.into()),
        summary_at_text,
        summary_prefix: e.summary_prefix.clone(),
        calls_per_fold: Some(e.calls_per_fold),
        summary_overflow: Some(
            match e.summary_overflow {
                SummaryOverflow::Keep => "keep",
                SummaryOverflow::Resummarise => "resummarise",
            }
            .into(),
        ),
        tools_in_turn_only: e.tools_in_turn_only,
        context_message: e.context_message.clone(),
        counter,
    })
}

fn keep(kind: &str, n: u32, context: Option<u32>, by: Option<&str>) -> KeepV4 {
    KeepV4 {
        kind: kind.into(),
        n,
        context,
        by: by.map(str::to_owned),
    }
}

/// The engine's exact policy from its wire form; `path` is where the form is in the file.
pub(super) fn exact_from_v4(w: Option<ExactV4>, path: &str) -> Result<Exact, Refused> {
    let Some(w) = w else {
        return Ok(Exact::default());
    };
    let bad = |field: &str, found: &str, expected: &str| Refused {
        path: format!("{path}.{field}"),
        reason: format!("unknown value {found:?}; expected {expected}"),
    };
    let pick = |field: &str, value: &Option<String>, options: &[&str]| -> Result<usize, Refused> {
        match value {
            None => Ok(0),
            Some(v) => options
                .iter()
                .position(|o| o == v)
                .ok_or_else(|| bad(field, v, &options.join(", "))),
        }
    };
    let compare =
        [Compare::Above, Compare::AtLeast][pick("compare", &w.compare, &["above", "at_least"])?];
    let check = [
        CheckAt::AfterReply,
        CheckAt::BeforeRequest,
        CheckAt::BeforeTurn,
        CheckAt::PreviousRequest,
    ][pick(
        "check",
        &w.check,
        &[
            "after_reply",
            "before_request",
            "before_turn",
            "previous_request",
        ],
    )?];
    let start =
        [Start::Anywhere, Start::AtUser][pick("start", &w.start, &["anywhere", "at_user"])?];
    let summary_overflow = [SummaryOverflow::Keep, SummaryOverflow::Resummarise][pick(
        "summary_overflow",
        &w.summary_overflow,
        &["keep", "resummarise"],
    )?];
    let text = || w.summary_at_text.clone().unwrap_or_default();
    let summary_at = match pick(
        "summary_at",
        &w.summary_at,
        &[
            "placement",
            "system",
            "first_system",
            "user",
            "user_then_ack",
            "assistant_after",
        ],
    )? {
        0 => SummaryAt::Placement,
        1 => SummaryAt::System,
        2 => SummaryAt::FirstSystem,
        3 => SummaryAt::User,
        4 => SummaryAt::UserThenAck(text()),
        _ => SummaryAt::AssistantAfter(text()),
    };
    let keep = match w.keep {
        None => None,
        Some(k) => {
            let by = match k.by.as_deref() {
                None | Some("tokens") => Measure::Tokens,
                Some("chars") => Measure::Chars,
                Some(other) => return Err(bad("keep.by", other, "tokens, chars")),
            };
            Some(match k.kind.as_str() {
                "turns" => Keep::Turns(k.n),
                "messages" => Keep::Messages(k.n),
                "tokens" => Keep::Tokens(k.n),
                "window_share" => Keep::Share {
                    of: ShareOf::Window(k.context.ok_or_else(|| Refused {
                        path: format!("{path}.keep.context"),
                        reason: "a window share needs its window".into(),
                    })?),
                    pct: k.n,
                    by,
                },
                "history_share" => Keep::Share {
                    of: ShareOf::History,
                    pct: k.n,
                    by,
                },
                other => {
                    return Err(bad(
                        "keep.kind",
                        other,
                        "turns, messages, tokens, window_share, history_share",
                    ));
                }
            })
        }
    };
    let counter = match w.counter.as_deref() {
        None => Counter::default(),
        Some(slug) => Counter::from_slug(slug).ok_or_else(|| {
            let slugs: Vec<&str> = Counter::ALL.iter().map(|c| c.slug()).collect();
            bad("counter", slug, &slugs.join(", "))
        })?,
    };
    Ok(Exact {
        counted: w.counted.map(|c| Counted {
            system: c.system,
            summary: c.summary,
            verbatim: c.verbatim,
            incoming: c.incoming,
            reply: c.reply,
        }),
        compare,
        check,
        keep,
        keep_newest: w.keep_newest,
        start,
        keep_user_tokens: w.keep_user_tokens,
        summary_at,
        summary_prefix: w.summary_prefix,
        calls_per_fold: w.calls_per_fold.unwrap_or(1),
        summary_overflow,
        tools_in_turn_only: w.tools_in_turn_only,
        context_message: w.context_message,
        counter,
    })
}
