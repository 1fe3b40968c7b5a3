//! The three targets whose summary logic the snippet writes itself: a LangGraph graph, an
//! OpenAI Agents SDK session and the lesson's `SummaryMemory` class. No library decides
//! anything in them, so each carries the app's own rule ([`crate::engine::Policy::decide`] with
//! the default exact fields): every trigger kind, as its fragment in `templates/rules/`, the
//! three placements and both fold modes, exactly. What a snippet cannot carry is dropped, and
//! said: the exact fields of a peer preset (what the threshold counts, when it is checked,
//! where a peer puts its summary), the summary budget (hierarchical compression) and the
//! structured (JSON) memory format.
//!
//! Where they follow another's shape: the graph, the summary/chat/router layout of the source
//! material's LangGraph lesson (`../shared/seeds/003_0ca150e992b2d075.txt`); the session, the
//! cookbook's `SummarizingSession` (openai/openai-cookbook `examples/agents_sdk/session_memory.ipynb`
//! at 12e0c9224d47dee8955edd55883866a05dfe0b72, as `tests/fidelity/openai_agents_driver.py`
//! describes it), storing the Runner's items whole; the class, the interface of the lesson's
//! `SummaryMemory` (`../shared/seeds/000_8bb66bf47b9b71af.txt`).

use crate::engine::policy::{
    Choice, Counter, Exact, FoldMode, Policy, SUMMARY_ACK, SUMMARY_HEADER, SummaryFormat, Trigger,
};
use crate::engine::sections::TOPIC_SECTIONS_INSTRUCTION;

use super::rules::{Mapped, lit, num};
use super::{ExportContext, Target};

/// The LangGraph graph with a summarise node and a router.
pub(super) fn langgraph(policy: &Policy, ctx: &ExportContext<'_>) -> Mapped {
    written(policy, ctx, Target::Langgraph, "The LangGraph snippet")
}

/// The Agents SDK `SummarizingSession`.
pub(super) fn agents_session(policy: &Policy, ctx: &ExportContext<'_>) -> Mapped {
    written(policy, ctx, Target::AgentsSession, "The Agents SDK session")
}

/// The lesson's `SummaryMemory` class.
pub(super) fn seed_class(policy: &Policy, ctx: &ExportContext<'_>) -> Mapped {
    written(policy, ctx, Target::SeedClass, "The SummaryMemory class")
}

/// The trigger's rule fragment with its numbers filled in: the Python `turns_to_fold` (after a
/// reply) and `turns_to_fold_on_request` (a cycle asked for) of that trigger kind.
pub fn fold_rule(trigger: &Trigger) -> String {
    let fragment = match trigger {
        Trigger::Turns { .. } => super::template("rules/turns.py"),
        Trigger::Tokens { .. } => super::template("rules/tokens.py"),
        Trigger::Every { .. } => super::template("rules/every.py"),
        Trigger::MessageCount { .. } => super::template("rules/messages.py"),
        Trigger::Manual { .. } => super::template("rules/manual.py"),
        Trigger::Window { .. } => super::template("rules/window.py"),
    };
    let mut out = fragment.trim_end().to_owned();
    for (param, value) in trigger.params() {
        out = out.replace(
            &format!("__SM_{}__", param.to_uppercase()),
            &value.to_string(),
        );
    }
    out
}

fn written(policy: &Policy, _ctx: &ExportContext<'_>, target: Target, system: &str) -> Mapped {
    let mut runs = policy.clone();
    let mut differences = Vec::new();
    if policy.exact.is_exact() {
        runs.exact = Exact::default();
        differences.push(format!(
            "{system} runs the app's own rule for your trigger: it checks after each reply and folds whole turns, with the summary where your placement puts it. Your policy's exact fields (what the threshold counts, when it is checked, what it keeps, where its summary goes) are left out."
        ));
    }
    if policy.format == SummaryFormat::Structured {
        runs.format = SummaryFormat::Prose;
        differences.push(format!(
            "{system} asks for a paragraph, not the JSON memory your format asks for, and keeps whatever the model writes."
        ));
    }
    if let Some(budget) = policy.summary_budget {
        runs.summary_budget = None;
        differences.push(format!(
            "{system} has no summary budget: a summary over your {} tokens is not compressed again.",
            num(budget)
        ));
    }
    // The snippet counts with its `count_tokens`, tiktoken's o200k_base unless one is passed.
    runs.exact.counter = Counter::O200K;
    if policy.exact.counter != Counter::O200K {
        differences.push(format!(
            "{system} counts with tiktoken's o200k_base (its count_tokens default), not {} as your policy is measured; pass a count_tokens that counts so to match it.",
            policy.exact.counter.label()
        ));
    }
    let sections = if runs.format == SummaryFormat::Topics {
        lit(TOPIC_SECTIONS_INSTRUCTION)
    } else {
        "None".to_owned()
    };
    let fills = vec![
        ("POLICY", describe(&runs)),
        ("FILE_NAME", target.file_name().to_owned()),
        ("FOLD_RULE", fold_rule(&runs.trigger)),
        ("FOLD_MODE", lit(fold_slug(runs.fold))),
        ("PLACEMENT", lit(runs.placement.slug())),
        ("SUMMARY_SECTIONS", sections),
        ("SUMMARY_HEADER", lit(SUMMARY_HEADER)),
        ("SUMMARY_ACK", lit(SUMMARY_ACK)),
    ];
    Mapped {
        runs,
        differences,
        fills,
    }
}

/// The snippets' names for the fold modes.
fn fold_slug(fold: FoldMode) -> &'static str {
    match fold {
        FoldMode::Progressive => "progressive",
        FoldMode::RebuildFromArchive => "rebuild",
    }
}

/// The policy in one line of the snippet's opening comment.
fn describe(policy: &Policy) -> String {
    let trigger = match policy.trigger {
        Trigger::Turns { max_turns, keep } => {
            format!("summarise at {max_turns} turns, keep {keep} word for word")
        }
        Trigger::Tokens {
            budget,
            keep_tokens,
        } => format!(
            "summarise over {} tokens of verbatim turns, keep {}",
            num(budget),
            num(keep_tokens)
        ),
        Trigger::Every { n } => format!("summarise every {n} messages"),
        Trigger::MessageCount { max_messages } => {
            format!("summarise over {max_messages} verbatim messages")
        }
        Trigger::Manual { keep } => format!("summarise when asked, keep {keep} turns"),
        Trigger::Window {
            context,
            fire_pct,
            keep_pct,
            keep_turns,
        } => {
            let keep = if keep_turns > 0 {
                format!("{keep_turns} turns")
            } else {
                format!("{keep_pct}%")
            };
            format!(
                "summarise at {fire_pct}% of a {}-token window, keep {keep}",
                num(context)
            )
        }
    };
    wrap(&format!(
        "{trigger}; the summary {}; folds: {}; tokens counted with {}.",
        policy.placement.label(),
        policy.fold.label(),
        policy.exact.counter.label()
    ))
}

/// `text` in lines of at most 96 characters, for the snippet's opening comment.
fn wrap(text: &str) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split_whitespace() {
        if line > 0 && line + 1 + word.len() > 96 {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += word.len();
    }
    out
}

#[cfg(test)]
mod tests;
