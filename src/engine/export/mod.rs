//! The policy on screen exported as working code for another stack: one snippet per
//! [`Target`], filled from a template beside this module (`templates/<slug>.py|.mjs|.json`),
//! with the policy the snippet really runs ([`Export::runs`]) and, when that is not the policy
//! given, what differs in plain sentences ([`Export::differences`]).
//!
//! Exactness is decided one way for every target: the policy is mapped onto the library's own
//! parameters (its rule in [`TARGETS`]), and those parameters back onto the exact policy the
//! library runs, built from `engine::peers::exact`, which the fidelity tier proved
//! request-identical to the real library. The export is exact when that policy is the one
//! given. [`schedule_difference`] says what a difference does on the conversation on screen,
//! from the message-level dry run of both policies.
//!
//! The JSON target is the policy as a session file stores it (`engine::session`, format
//! version 4), so [`import_policy`] reads it back to the same policy.
//!
//! Placeholders in a template are `__SM_NAME__` (a valid identifier in Python and JavaScript,
//! so a template stays a parseable file), each replaced by a literal the module writes; no
//! template engine is needed for so few.

mod rules;
mod written;

use crate::engine::message::{Message, Role};
use crate::engine::policy::Policy;
use crate::engine::schedule::{MessageInput, PlayedMessage, Sizer, Slot, schedule_messages};

pub use rules::{LcSize, langchain_v1_js_runs, langchain_v1_runs};

/// A stack a policy can be exported to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    LangchainMiddlewarePy,
    LangchainMiddlewareJs,
    LangchainBuffer,
    Langgraph,
    Llamaindex,
    AgentsSession,
    SeedClass,
    /// The Python package's LangChain middleware: this app's engine decides every fold.
    SummaryMemoryMiddleware,
    Json,
}

/// The language a snippet is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Python,
    JavaScript,
    Json,
}

impl Language {
    /// The name a code block's syntax highlighter knows the language by.
    pub fn slug(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::Json => "json",
        }
    }
}

/// One target's row: its names, its template and its rule. The only place a target is
/// described; a new target is a new row (and its template file).
pub struct TargetSpec {
    pub target: Target,
    /// The end-to-end hooks' value (`data-target`).
    pub slug: &'static str,
    pub label: &'static str,
    pub file_name: &'static str,
    pub language: Language,
    /// The template's file under `templates/`, read with [`template`].
    template: &'static str,
    rule: fn(&Policy, &ExportContext<'_>) -> rules::Mapped,
}

/// Every target, in the order the page offers them.
pub const TARGETS: [TargetSpec; 9] = [
    TargetSpec {
        target: Target::LangchainMiddlewarePy,
        slug: "langchain-middleware-py",
        label: "LangChain v1 SummarizationMiddleware (Python)",
        file_name: "summary_memory_langchain.py",
        language: Language::Python,
        template: "langchain-middleware-py.py",
        rule: rules::langchain_middleware_py,
    },
    TargetSpec {
        target: Target::LangchainMiddlewareJs,
        slug: "langchain-middleware-js",
        label: "LangChain v1 summarizationMiddleware (JavaScript)",
        file_name: "summary_memory_langchain.mjs",
        language: Language::JavaScript,
        template: "langchain-middleware-js.mjs",
        rule: rules::langchain_middleware_js,
    },
    TargetSpec {
        target: Target::LangchainBuffer,
        slug: "langchain-buffer",
        label: "LangChain classic ConversationSummaryBufferMemory (Python)",
        file_name: "summary_memory_langchain_buffer.py",
        language: Language::Python,
        template: "langchain-buffer.py",
        rule: rules::langchain_buffer,
    },
    TargetSpec {
        target: Target::Langgraph,
        slug: "langgraph",
        label: "LangGraph graph with a summarise node (Python)",
        file_name: "summary_memory_langgraph.py",
        language: Language::Python,
        template: "langgraph.py",
        rule: written::langgraph,
    },
    TargetSpec {
        target: Target::Llamaindex,
        slug: "llamaindex",
        label: "LlamaIndex ChatSummaryMemoryBuffer (Python)",
        file_name: "summary_memory_llamaindex.py",
        language: Language::Python,
        template: "llamaindex.py",
        rule: rules::llamaindex,
    },
    TargetSpec {
        target: Target::AgentsSession,
        slug: "agents-session",
        label: "OpenAI Agents SDK session (Python)",
        file_name: "summary_memory_agents_session.py",
        language: Language::Python,
        template: "agents-session.py",
        rule: written::agents_session,
    },
    TargetSpec {
        target: Target::SeedClass,
        slug: "seed-class",
        label: "The article's SummaryMemory class (Python)",
        file_name: "summary_memory_class.py",
        language: Language::Python,
        template: "seed-class.py",
        rule: written::seed_class,
    },
    TargetSpec {
        target: Target::SummaryMemoryMiddleware,
        slug: "summary-memory-middleware",
        label: "SummaryMemoryMiddleware for LangChain v1 (Python): runs this app's engine, exact by construction",
        file_name: "summary_memory_middleware.py",
        language: Language::Python,
        template: "summary-memory-middleware.py",
        rule: rules::summary_memory_middleware,
    },
    TargetSpec {
        target: Target::Json,
        slug: "json",
        label: "This app's policy (JSON)",
        file_name: "summary_memory_policy.json",
        language: Language::Json,
        template: "json.json",
        rule: rules::json,
    },
];

impl Target {
    pub const ALL: [Target; 9] = [
        Target::LangchainMiddlewarePy,
        Target::LangchainMiddlewareJs,
        Target::LangchainBuffer,
        Target::Langgraph,
        Target::Llamaindex,
        Target::AgentsSession,
        Target::SeedClass,
        Target::SummaryMemoryMiddleware,
        Target::Json,
    ];

    /// This target's row of [`TARGETS`] (a test checks that every target has one).
    pub fn spec(self) -> &'static TargetSpec {
        TARGETS
            .iter()
            .find(|s| s.target == self)
            .unwrap_or(&TARGETS[TARGETS.len() - 1])
    }

    /// The end-to-end hooks' value.
    pub fn slug(self) -> &'static str {
        self.spec().slug
    }

    pub fn from_slug(slug: &str) -> Option<Target> {
        TARGETS.iter().find(|s| s.slug == slug).map(|s| s.target)
    }

    pub fn label(self) -> &'static str {
        self.spec().label
    }

    /// The name the download is saved under.
    pub fn file_name(self) -> &'static str {
        self.spec().file_name
    }

    pub fn language(self) -> Language {
        self.spec().language
    }
}

/// What the snippet carries besides the policy: from Settings and the policy panel.
#[derive(Clone, Copy, Debug)]
pub struct ExportContext<'a> {
    pub summary_prompt: &'a str,
    pub word_limit: Option<u32>,
    pub must_keep: &'a [String],
    /// Pinned facts as the session shows them ("salary: ₹1,20,000").
    pub pinned: &'a [String],
    pub chat_model: &'a str,
    pub summary_model: &'a str,
    /// The endpoint's base URL; never a key.
    pub base_url: &'a str,
    /// The chat model's context window in tokens, for targets that take a fraction of it.
    pub context_window: u32,
}

/// One exported snippet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Export {
    pub target: Target,
    pub code: String,
    /// True when the snippet runs this very policy (request for request).
    pub exact: bool,
    /// The policy the snippet really runs (== the input policy when exact).
    pub runs: Policy,
    /// Plain sentences in the user's words: what differs and why. Empty when exact.
    pub differences: Vec<String>,
}

/// Exports `policy` for `target`.
pub fn export(target: Target, policy: &Policy, ctx: &ExportContext<'_>) -> Export {
    let spec = target.spec();
    let mapped = (spec.rule)(policy, ctx);
    let exact = mapped.runs == *policy;
    let mut differences = mapped.differences;
    if exact {
        differences.clear();
    } else if differences.is_empty() {
        // A rule that finds a difference it cannot name still says there is one.
        differences.push(format!(
            "{} runs a slightly different policy from yours; the dry run beside yours shows where they part.",
            spec.label
        ));
    }
    let mut fills = rules::common_fills(ctx);
    fills.extend(mapped.fills);
    Export {
        target,
        code: fill(template(spec.template), &fills),
        exact,
        runs: mapped.runs,
        differences,
    }
}

/// Where two policies fold on one conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleDifference {
    /// The turns (from 1) whose request first carries each new summary, under yours.
    pub yours: Vec<u32>,
    /// The same under the policy the snippet runs.
    pub runs: Vec<u32>,
    pub sentence: String,
}

/// What the difference does on the conversation on screen: the turns at which each policy
/// folds, from the message-level dry run of each (a fold counts at the turn whose request first
/// carries its summary), and one sentence.
pub fn schedule_difference(
    yours: &Policy,
    runs: &Policy,
    conversation: &MessageInput<'_>,
) -> ScheduleDifference {
    let yours_at = fold_turns(yours, conversation);
    let runs_at = fold_turns(runs, conversation);
    let sentence = if yours_at == runs_at {
        if yours_at.is_empty() {
            "on this conversation neither folds".to_owned()
        } else {
            format!(
                "on this conversation it folds at the same {} ({})",
                turns_word(yours_at.len()),
                and_list(&yours_at)
            )
        }
    } else if runs_at.is_empty() {
        format!(
            "on this conversation it never folds, where yours folds at {} {}",
            turns_word(yours_at.len()),
            and_list(&yours_at)
        )
    } else if yours_at.is_empty() {
        format!(
            "on this conversation it folds at {} {}, where yours never folds",
            turns_word(runs_at.len()),
            and_list(&runs_at)
        )
    } else {
        format!(
            "on this conversation it folds at {} {} instead of {}",
            turns_word(runs_at.len()),
            and_list(&runs_at),
            and_list(&yours_at)
        )
    };
    ScheduleDifference {
        yours: yours_at,
        runs: runs_at,
        sentence,
    }
}

/// The conversation on screen as the message-level dry run plays it, for
/// [`schedule_difference`]: each message with the count it already carries (system messages
/// are the request's own, so they are left out).
pub fn played(messages: &[Message]) -> Vec<PlayedMessage> {
    messages
        .iter()
        .filter(|m| m.role != Role::System)
        .map(|m| PlayedMessage {
            role: m.role,
            tokens: m.tokens,
            chars: m.content.chars().count() as u32,
            calls: !m.calls.is_empty(),
        })
        .collect()
}

/// A [`Sizer`] for a dry run of the conversation on screen: fixed texts a token a word, and
/// each summary `words` words long (the Tuner's assumed summary size).
#[derive(Clone, Copy, Debug)]
pub struct AssumedSummary {
    pub words: u32,
}

impl Sizer for AssumedSummary {
    fn tokens(&self, text: &str) -> u32 {
        crate::engine::text::word_count(text)
    }

    fn summary(&self, call: u32) -> String {
        // The call's number first, so two summaries are never the same text.
        let mut out = format!("S{call}");
        for _ in 1..self.words.max(1) {
            out.push_str(" w");
        }
        out
    }
}

/// The JSON target's envelope format name.
pub use crate::engine::session::POLICY_FORMAT;

/// The JSON target read back: the policy, in the shape a session stores it, so
/// `import_policy(&export(Target::Json, p, ctx).code) == Ok(p)`. A whole session file, or a
/// bare policy, is read too: this is the session reader's [`session::import_policy`], the one
/// policy reader (the command line's `--policy` uses it as well), with its error in words.
///
/// [`session::import_policy`]: crate::engine::session::import_policy
pub fn import_policy(text: &str) -> Result<Policy, String> {
    crate::engine::session::import_policy(text.as_bytes()).map_err(|e| e.to_string())
}

/// The turns whose request first carries a new summary.
fn fold_turns(policy: &Policy, input: &MessageInput<'_>) -> Vec<u32> {
    let run = schedule_messages(policy, input);
    let mut out = Vec::new();
    let mut newest = 0;
    for request in &run.requests {
        let call = request
            .messages
            .iter()
            .filter_map(|slot| match slot {
                Slot::Summary { call, .. } => Some(*call),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        if call > newest {
            newest = call;
            let turn = input.messages[..=request.answers.min(input.messages.len() - 1)]
                .iter()
                .filter(|m| m.role == Role::User)
                .count() as u32;
            if out.last() != Some(&turn) {
                out.push(turn);
            }
        }
    }
    out
}

fn turns_word(n: usize) -> &'static str {
    if n == 1 { "turn" } else { "turns" }
}

/// "6", "6 and 12", "6, 12 and 18".
fn and_list(turns: &[u32]) -> String {
    let words: Vec<String> = turns.iter().map(u32::to_string).collect();
    match words.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// Replaces each `__SM_NAME__` of `template` by its value.
/// The export templates, packed by `build.rs` into one deflate stream.
static PACKED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/templates.deflate"));

/// Every template's file name (under `templates/`) and text, inflated on first use.
static TEMPLATES: std::sync::LazyLock<Vec<(String, String)>> = std::sync::LazyLock::new(|| {
    let blob =
        miniz_oxide::inflate::decompress_to_vec(PACKED).expect("build.rs packs a valid stream");
    let text = String::from_utf8(blob).expect("the templates are UTF-8");
    let mut parts = text.split('\0');
    let mut out = Vec::new();
    while let (Some(name), Some(body)) = (parts.next(), parts.next()) {
        if !name.is_empty() {
            out.push((name.to_owned(), body.to_owned()));
        }
    }
    out
});

/// The text of the template file `name` (as `langgraph.py` or `rules/turns.py`).
pub(crate) fn template(name: &str) -> &'static str {
    TEMPLATES
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, text)| text.as_str())
        .unwrap_or_else(|| panic!("no export template {name} was packed"))
}

fn fill(template: &str, fills: &[(&'static str, String)]) -> String {
    let mut out = template.to_owned();
    for (name, value) in fills {
        out = out.replace(&format!("__SM_{name}__"), value);
    }
    out
}

#[cfg(test)]
mod tests;
