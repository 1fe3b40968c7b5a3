//! The exactness rules: each target's mapping from the app's policy onto the library's own
//! parameters, and from those back onto the exact policy the library runs
//! (`engine::peers::exact`, request-identical to the real library in the fidelity tier).

use crate::engine::peers::exact;
use crate::engine::policy::{
    Counter, FoldMode, Keep, Placement, Policy, ShareOf, SummaryAt, SummaryFormat, Trigger,
    Vocabulary,
};

use super::ExportContext;

/// What a rule found: the policy the snippet runs, the sentences, and the placeholders.
pub(super) struct Mapped {
    pub runs: Policy,
    pub differences: Vec<String>,
    pub fills: Vec<(&'static str, String)>,
}

/// A size as LangChain v1's middleware takes it: `("tokens", n)`, `("messages", n)` or
/// `("fraction", f)` of the model's `max_input_tokens` (kept here in percent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LcSize {
    Tokens(u32),
    Messages(u32),
    FractionPct(u32),
}

impl LcSize {
    fn python(self) -> String {
        match self {
            LcSize::Tokens(n) => format!("(\"tokens\", {n})"),
            LcSize::Messages(n) => format!("(\"messages\", {n})"),
            LcSize::FractionPct(p) => format!("(\"fraction\", {})", fraction(p)),
        }
    }

    fn javascript(self) -> String {
        match self {
            LcSize::Tokens(n) => format!("{{ tokens: {n} }}"),
            LcSize::Messages(n) => format!("{{ messages: {n} }}"),
            LcSize::FractionPct(p) => format!("{{ fraction: {} }}", fraction(p)),
        }
    }

    /// The tokens a size in tokens or a fraction comes to, as the library computes it:
    /// `int(max_input_tokens * fraction)`, at least 1 (the same IEEE arithmetic in Rust).
    fn tokens(self, window: u32) -> Option<u32> {
        match self {
            LcSize::Tokens(n) => Some(n.max(1)),
            LcSize::FractionPct(p) => {
                Some(((f64::from(window) * (f64::from(p) / 100.0)) as u32).max(1))
            }
            LcSize::Messages(_) => None,
        }
    }
}

/// `0.3` for 30 percent: the shortest decimal, as Python's and JavaScript's literals read it.
fn fraction(pct: u32) -> String {
    let value = f64::from(pct) / 100.0;
    format!("{value}")
}

/// Thousands with commas, as the sentences write numbers.
pub(super) fn num(n: u32) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A Python or JavaScript string literal (JSON's escapes are valid in both).
pub(super) fn lit(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// A list of string literals.
fn lits(items: &[String]) -> String {
    serde_json::to_string(items).unwrap_or_else(|_| "[]".to_owned())
}

/// The placeholders every template shares: the prompt's parts and the models (never a key).
pub(super) fn common_fills(ctx: &ExportContext<'_>) -> Vec<(&'static str, String)> {
    vec![
        ("SUMMARY_PROMPT", lit(ctx.summary_prompt)),
        (
            "WORD_LIMIT",
            ctx.word_limit.map_or("None".to_owned(), |n| n.to_string()),
        ),
        (
            "WORD_LIMIT_JS",
            ctx.word_limit.map_or("null".to_owned(), |n| n.to_string()),
        ),
        ("MUST_KEEP", lits(ctx.must_keep)),
        ("PINNED", lits(ctx.pinned)),
        ("CHAT_MODEL", lit(ctx.chat_model)),
        ("SUMMARY_MODEL", lit(ctx.summary_model)),
        ("BASE_URL", lit(ctx.base_url)),
        ("CONTEXT_WINDOW", ctx.context_window.to_string()),
    ]
}

/// The JSON target: the policy itself.
pub(super) fn json(policy: &Policy, ctx: &ExportContext<'_>) -> Mapped {
    let body = serde_json::json!({
        "format": super::POLICY_FORMAT,
        "version": crate::engine::session::VERSION,
        "policy": crate::engine::session::policy_value(policy),
        "models": {
            "chat": ctx.chat_model,
            "summary": ctx.summary_model,
            "base_url": ctx.base_url,
            "context_window": ctx.context_window,
        },
        "pinned": ctx.pinned,
    });
    Mapped {
        runs: policy.clone(),
        differences: Vec::new(),
        fills: vec![(
            "POLICY_JSON",
            serde_json::to_string_pretty(&body).unwrap_or_default(),
        )],
    }
}

/// The Python package's middleware: the engine itself, so the policy as it is, but for the few
/// fields the middleware does not run (`summary_memory._core.unsupported`, which refuses them),
/// each left out and named.
pub(super) fn summary_memory_middleware(policy: &Policy, _: &ExportContext<'_>) -> Mapped {
    let mut runs = policy.clone();
    let mut differences = Vec::new();
    if runs.summary_budget.take().is_some() {
        differences.push(
            "The middleware never compresses the summary one level up: your summary budget is left out."
                .to_owned(),
        );
    }
    if runs.exact.keep_user_tokens.take().is_some() {
        differences.push(
            "The middleware keeps no user messages beside the summary: that part of your policy is left out."
                .to_owned(),
        );
    }
    if runs.exact.calls_per_fold > 1 {
        runs.exact.calls_per_fold = 1;
        differences
            .push("The middleware makes one summariser call a fold, not several.".to_owned());
    }
    if runs.exact.tools_in_turn_only {
        runs.exact.tools_in_turn_only = false;
        differences.push(
            "The middleware keeps tool calls and results in the history, where your policy sends them in their own turn only."
                .to_owned(),
        );
    }
    Mapped {
        fills: vec![("POLICY_JSON", crate::engine::session::export_policy(&runs))],
        runs,
        differences,
    }
}

/// The fields of the input a library run carries over unchanged (the prompt and the
/// placement's pick; the placement does not act on an exact policy whose summary has its own
/// place), and the sentences for what it cannot carry.
fn carry(mut runs: Policy, policy: &Policy, system: &str, out: &mut Vec<String>) -> Policy {
    runs.placement = policy.placement;
    runs.prompt = policy.prompt.clone();
    runs.fold = FoldMode::Progressive;
    if policy.fold == FoldMode::RebuildFromArchive {
        out.push(format!(
            "{system} summarises the old summary with the new messages each time; it cannot rebuild the summary from every folded turn, as yours does."
        ));
    }
    runs.format = policy.format;
    if policy.format == SummaryFormat::Structured {
        runs.format = SummaryFormat::Prose;
        out.push(format!(
            "{system} does not check the JSON memory your format asks for: the prompt asks for it, and whatever the model writes is kept."
        ));
    }
    runs.summary_budget = None;
    if let Some(budget) = policy.summary_budget {
        out.push(format!(
            "{system} has no summary budget: a summary over your {} tokens is not compressed again.",
            num(budget)
        ));
    }
    runs
}

/// How many messages `turns` turns are, for the sentences and the nearest sizes.
fn turn_messages(turns: u32) -> u32 {
    turns.saturating_mul(2)
}

/// The LangChain v1 parameters nearest to `policy`, and the sentences that say how near.
///
/// `least` is the fewest messages the library keeps: Python's middleware refuses 0, the
/// JavaScript one takes it.
fn lc_params(
    policy: &Policy,
    system: &str,
    least: u32,
    out: &mut Vec<String>,
) -> (Option<LcSize>, LcSize) {
    let mut keep_tail = |exact: Option<Keep>| -> Option<LcSize> {
        Some(match exact? {
            Keep::Messages(n) => LcSize::Messages(n.max(least)),
            Keep::Tokens(n) => LcSize::Tokens(n.max(1)),
            Keep::Turns(n) => {
                out_turns(out, system, n, least);
                LcSize::Messages(turn_messages(n).max(least))
            }
            Keep::Share {
                of: ShareOf::Window(_),
                pct,
                ..
            } => LcSize::FractionPct(pct),
            Keep::Share { pct, .. } => {
                out.push(format!(
                    "{system} cannot keep a share of the history itself; it keeps {pct}% of the window instead."
                ));
                LcSize::FractionPct(pct)
            }
        })
    };
    let kept = keep_tail(policy.exact.keep);
    let exact = policy.exact.is_exact();
    let at_least = policy.exact.compare == crate::engine::policy::Compare::AtLeast;
    let (trigger, keep) = match policy.trigger {
        Trigger::Tokens {
            budget,
            keep_tokens,
        } => {
            let fire = if exact && at_least {
                budget
            } else {
                budget.saturating_add(1)
            };
            (
                Some(LcSize::Tokens(fire)),
                kept.unwrap_or(LcSize::Tokens(keep_tokens.max(1))),
            )
        }
        Trigger::Window {
            fire_pct,
            keep_pct,
            keep_turns,
            ..
        } => {
            let keep = kept.unwrap_or(if keep_turns > 0 {
                out.push(format!(
                    "{system} keeps messages, not turns: keep {} messages ≈ your {keep_turns} turns.",
                    turn_messages(keep_turns)
                ));
                LcSize::Messages(turn_messages(keep_turns))
            } else {
                LcSize::FractionPct(keep_pct)
            });
            (Some(LcSize::FractionPct(fire_pct)), keep)
        }
        Trigger::Turns { max_turns, keep } => {
            out.push(format!(
                "{system} counts messages, not turns: it fires at {} stored messages ≈ your {max_turns} turns.",
                turn_messages(max_turns)
            ));
            let kept = kept.unwrap_or_else(|| {
                out.push(format!(
                    "It keeps messages, not turns: keep {} messages ≈ your {keep} turns.",
                    turn_messages(keep).max(least)
                ));
                LcSize::Messages(turn_messages(keep).max(least))
            });
            (Some(LcSize::Messages(turn_messages(max_turns))), kept)
        }
        Trigger::MessageCount { max_messages } => (
            Some(LcSize::Messages(max_messages.saturating_add(1))),
            kept.unwrap_or(LcSize::Messages(2)),
        ),
        Trigger::Every { n } => {
            out.push(format!(
                "{system} has no \"every {n} messages\" rule: it fires once {n} messages are stored, and again each time they reach {n} after a fold."
            ));
            (
                Some(LcSize::Messages(n.max(1))),
                kept.unwrap_or(LcSize::Messages(2)),
            )
        }
        Trigger::Manual { keep } => {
            out.push(format!(
                "{system} has no \"summarise now\" button: with no trigger it never summarises by itself, as yours does until you ask."
            ));
            (
                None,
                kept.unwrap_or(LcSize::Messages(turn_messages(keep).max(least))),
            )
        }
    };
    (trigger, keep)
}

fn out_turns(out: &mut Vec<String>, system: &str, n: u32, least: u32) {
    out.push(format!(
        "{system} keeps messages, not turns: keep {} messages ≈ your {n} turns.",
        turn_messages(n).max(least)
    ));
}

/// The exact policy LangChain v1's Python `SummarizationMiddleware` runs for these parameters
/// (`langchain` 1.5.2, `langchain/agents/middleware/summarization.py`): `before_model` counts
/// the stored messages and fires at `>=` the trigger (`len(messages) >= n` for messages,
/// `int(max_input_tokens * f)` for a fraction); it keeps the last `n` messages, or the longest
/// tail within the tokens but never less than the newest message
/// ([`exact::langchain_v1_keeping`]), moving the cut back onto the tool call a result answers.
/// No trigger
/// never fires. `window` is the model profile's `max_input_tokens`.
pub fn langchain_v1_runs(trigger: Option<LcSize>, keep: LcSize, window: u32) -> Policy {
    let keep = match keep {
        LcSize::Messages(n) => LcSize::Messages(n.max(1)),
        other => other,
    };
    lc_runs(trigger, keep, window)
}

/// The exact policy LangChain.js v1's `summarizationMiddleware` runs for these parameters
/// (npm `langchain` 1.5.14, `dist/agents/middleware/summarization.js`). Read apart from the
/// Python one, it agrees on what this vocabulary states: `beforeModel` counts the state's
/// messages and fires at `>=` (`messages.length < n` and `totalTokens < n` do not fire,
/// `Math.floor(maxInputTokens * fraction)` for a fraction), the cut by messages or by a binary
/// search for the longest tail within the tokens moves back onto the tool call a result
/// answers, and the summary is one human message with the same prefix. Where they part: it
/// takes `keep: { messages: 0 }` (everything is summarised, the incoming message too), it never
/// fires on a reply's reported usage (Python also fires when the last reply's
/// `usage_metadata.total_tokens` reaches a token trigger), and its summary prefix is an option
/// (`summaryPrefix`).
pub fn langchain_v1_js_runs(trigger: Option<LcSize>, keep: LcSize, window: u32) -> Policy {
    lc_runs(trigger, keep, window)
}

fn lc_runs(trigger: Option<LcSize>, keep: LcSize, window: u32) -> Policy {
    let mut policy = exact::langchain_v1_keeping(
        1,
        match keep {
            LcSize::Messages(n) => Keep::Messages(n),
            size => Keep::Tokens(size.tokens(window).unwrap_or(1)),
        },
    );
    policy.trigger = match trigger {
        None => Trigger::Manual { keep: 0 },
        Some(LcSize::Messages(n)) => Trigger::MessageCount {
            max_messages: n.saturating_sub(1).max(2),
        },
        Some(size) => {
            let tokens = size.tokens(window).unwrap_or(1);
            Trigger::Tokens {
                budget: tokens,
                keep_tokens: tokens,
            }
        }
    };
    policy
}

/// When a policy checks its trigger, in the sentences' words.
fn check_words(policy: &Policy) -> &'static str {
    use crate::engine::policy::CheckAt;
    match policy.exact.check {
        CheckAt::AfterReply => "after each reply",
        CheckAt::BeforeRequest => "before each request",
        CheckAt::BeforeTurn => "once a turn, before its first request",
        CheckAt::PreviousRequest => "on the previous request's reported size",
    }
}

fn lc_sentences(policy: &Policy, runs: &Policy, system: &str, out: &mut Vec<String>) {
    if !policy.exact.is_exact() || policy.exact.check != runs.exact.check {
        out.push(format!(
            "{system} checks before each model call and counts the stored messages, the summary and the new message included but not the system prompt; yours checks {}.",
            check_words(policy)
        ));
    }
    if policy.exact.summary_at != runs.exact.summary_at {
        out.push(format!(
            "{system} puts the summary in a user message (\"Here is a summary of the conversation to date\"), not {}.",
            placement_words(policy)
        ));
    }
}

/// The sentence for a floor of one newest message that the library has and the policy lacks,
/// or the other way round ([`crate::engine::policy::Exact::keep_newest`]).
fn newest_sentence(policy: &Policy, runs: &Policy, system: &str, out: &mut Vec<String>) {
    // Today's rules (no exact policy) always leave the latest turn, so only an exact policy
    // that keeps by tokens can fold the newest message.
    let by_tokens = policy.exact.is_exact()
        && matches!(
            policy.exact.keep,
            Some(Keep::Tokens(_) | Keep::Share { .. })
        );
    match (policy.exact.keep_newest, runs.exact.keep_newest) {
        (false, true) if by_tokens => out.push(format!(
            "{system} always keeps the newest message, even when it alone is over the tokens it keeps; yours summarises that message too."
        )),
        (true, false) => out.push(format!(
            "{system} can summarise the newest message too, when it alone is over what it keeps; yours always keeps it."
        )),
        _ => {}
    }
}

fn placement_words(policy: &Policy) -> String {
    match &policy.exact.summary_at {
        SummaryAt::Placement => match policy.placement {
            Placement::SecondSystem => "as a second system message".to_owned(),
            Placement::AppendToSystem => "in the system prompt".to_owned(),
            Placement::UserAck => "as a user message with an acknowledgement".to_owned(),
        },
        SummaryAt::System => "as its own system message".to_owned(),
        SummaryAt::FirstSystem => "as the first system message".to_owned(),
        SummaryAt::User => "as a lone user message".to_owned(),
        SummaryAt::UserThenAck(_) => "as a user message with an acknowledgement".to_owned(),
        SummaryAt::AssistantAfter(_) => "as the assistant's answer to a fixed question".to_owned(),
    }
}

fn lc_middleware(
    policy: &Policy,
    ctx: &ExportContext<'_>,
    system: &str,
    runs_of: fn(Option<LcSize>, LcSize, u32) -> Policy,
    js: bool,
) -> Mapped {
    let mut out = Vec::new();
    let (trigger, mut keep) = lc_params(policy, system, 0, &mut out);
    if !js && keep == LcSize::Messages(0) {
        // Python refuses keep=("messages", 0); LangChain.js summarises everything.
        keep = LcSize::Messages(1);
        out.push(format!(
            "{system} keeps at least 1 message (LangChain.js's can keep none): keep 1 message ≈ your 0 turns kept."
        ));
    }
    let window = match policy.trigger {
        Trigger::Window { context, .. } => context,
        _ => ctx.context_window,
    };
    let mut runs = runs_of(trigger, keep, window);
    if matches!(runs.exact.keep, Some(Keep::Messages(n)) if n > 0) {
        // The last `n ≥ 1` messages hold the newest one anyway, so the floor changes nothing
        // and is carried as the input has it.
        runs.exact.keep_newest = policy.exact.keep_newest;
    }
    let mut sentences = Vec::new();
    lc_sentences(policy, &runs, system, &mut sentences);
    newest_sentence(policy, &runs, system, &mut sentences);
    sentences.extend(out);
    let mut runs = carry(runs, policy, system, &mut sentences);
    let counter = lc_counter(policy.exact.counter, system, &mut sentences);
    runs.exact.counter = counter;
    let size = |s: LcSize| if js { s.javascript() } else { s.python() };
    let none = if js { "undefined" } else { "None" };
    Mapped {
        runs,
        differences: sentences,
        fills: vec![
            ("TRIGGER", trigger.map_or(none.to_owned(), size)),
            ("KEEP", size(keep)),
            ("MAX_INPUT_TOKENS", window.to_string()),
            ("COUNTER", counter_literal(counter, js)),
        ],
    }
}

/// The counter a LangChain middleware snippet passes for a policy measured with `counter`:
/// its own default (`count_tokens_approximately`), or exact tiktoken counts; any other is
/// stood in for by exact o200k_base counts, said in a sentence.
fn lc_counter(counter: Counter, system: &str, out: &mut Vec<String>) -> Counter {
    match counter {
        Counter::LangChainApprox | Counter::Tiktoken { .. } => counter,
        other => {
            out.push(format!(
                "{system} cannot count with {}: the snippet passes exact o200k_base counts instead.",
                other.label()
            ));
            Counter::O200K
        }
    }
}

/// The snippet's `COUNTER`: `None` (`null`) for the library's own default, else the tiktoken
/// encoding and whether the chat format's overhead is added.
fn counter_literal(counter: Counter, js: bool) -> String {
    match counter {
        Counter::Tiktoken { vocabulary, chat } => {
            let name = encoding_name(vocabulary);
            if js {
                format!("[\"{name}\", {chat}]")
            } else {
                let chat = if chat { "True" } else { "False" };
                format!("(\"{name}\", {chat})")
            }
        }
        _ if js => "null".to_owned(),
        _ => "None".to_owned(),
    }
}

/// tiktoken's name of a vocabulary.
fn encoding_name(vocabulary: Vocabulary) -> &'static str {
    match vocabulary {
        Vocabulary::O200k => "o200k_base",
        Vocabulary::Cl100k => "cl100k_base",
    }
}

pub(super) fn langchain_middleware_py(policy: &Policy, ctx: &ExportContext<'_>) -> Mapped {
    lc_middleware(
        policy,
        ctx,
        "LangChain's middleware",
        langchain_v1_runs,
        false,
    )
}

pub(super) fn langchain_middleware_js(policy: &Policy, ctx: &ExportContext<'_>) -> Mapped {
    lc_middleware(
        policy,
        ctx,
        "LangChain.js's middleware",
        langchain_v1_js_runs,
        true,
    )
}

/// Tokens a turn is taken to hold when a token-only library stands in for a turn rule.
pub const TOKENS_PER_TURN: u32 = 250;

/// The one token limit of a buffer that fires over it and keeps what fits in it (LangChain's
/// classic buffer, LlamaIndex's), nearest to `policy`.
fn one_limit(policy: &Policy, ctx: &ExportContext<'_>, system: &str, out: &mut Vec<String>) -> u32 {
    match policy.trigger {
        Trigger::Tokens {
            budget,
            keep_tokens,
        } => {
            if keep_tokens < budget {
                out.push(format!(
                    "{system} has one limit: over {} tokens it keeps the newest messages that fit in {}, where yours keeps {} tokens.",
                    num(budget),
                    num(budget),
                    num(keep_tokens)
                ));
            }
            budget
        }
        Trigger::Window {
            context, fire_pct, ..
        } => {
            let limit = ((u64::from(context) * u64::from(fire_pct) / 100) as u32).max(1);
            out.push(format!(
                "{system} has one limit in tokens: {} tokens ≈ your {fire_pct}% of a {}-token window, counted over the stored messages without the system prompt; it keeps what fits in the same limit.",
                num(limit),
                num(context)
            ));
            limit
        }
        Trigger::Turns { max_turns, .. } => {
            let limit = max_turns.saturating_mul(TOKENS_PER_TURN).max(1);
            out.push(format!(
                "{system} counts tokens, not turns: {} tokens ≈ your {max_turns} turns at about {TOKENS_PER_TURN} tokens a turn.",
                num(limit)
            ));
            limit
        }
        Trigger::MessageCount { max_messages } | Trigger::Every { n: max_messages } => {
            let limit = max_messages.saturating_mul(TOKENS_PER_TURN / 2).max(1);
            out.push(format!(
                "{system} counts tokens, not messages: {} tokens ≈ your {max_messages} messages at about {} tokens a message.",
                num(limit),
                TOKENS_PER_TURN / 2
            ));
            limit
        }
        Trigger::Manual { .. } => {
            out.push(format!(
                "{system} has no \"summarise now\" button: the nearest lets the conversation grow to the {}-token window before it summarises.",
                num(ctx.context_window)
            ));
            ctx.context_window.max(1)
        }
    }
}

pub(super) fn langchain_buffer(policy: &Policy, ctx: &ExportContext<'_>) -> Mapped {
    let system = "LangChain's classic buffer";
    let mut out = Vec::new();
    let limit = match (&policy.trigger, &policy.exact.keep) {
        (Trigger::Tokens { budget, .. }, Some(Keep::Tokens(_))) => *budget,
        _ => one_limit(policy, ctx, system, &mut out),
    };
    let runs = exact::langchain_classic(limit);
    let mut sentences = Vec::new();
    if policy.exact.check != runs.exact.check || !policy.exact.is_exact() {
        sentences.push(format!(
            "{system} prunes after each exchange, message by message, so the kept part may start on a reply; it counts the messages kept verbatim only."
        ));
    }
    if policy.exact.summary_at != runs.exact.summary_at {
        sentences.push(format!(
            "{system} puts the summary in a system message before the kept messages, not {}.",
            placement_words(policy)
        ));
    }
    newest_sentence(policy, &runs, system, &mut sentences);
    // The buffer counts with its summary model's get_num_tokens_from_messages, which the
    // snippet leaves in place: ChatOpenAI's on a GPT-4o model is o200k_base with the chat
    // format's overhead, the preset's counter.
    let own = Counter::Tiktoken {
        vocabulary: Vocabulary::O200k,
        chat: true,
    };
    if policy.exact.counter != own {
        sentences.push(format!(
            "{system} counts with its summary model's get_num_tokens_from_messages ({} for ChatOpenAI on a GPT-4o model), not {} as your policy is measured.",
            own.label(),
            policy.exact.counter.label()
        ));
    }
    sentences.extend(out);
    let runs = carry(runs, policy, system, &mut sentences);
    Mapped {
        runs,
        differences: sentences,
        fills: vec![("MAX_TOKEN_LIMIT", limit.to_string())],
    }
}

pub(super) fn llamaindex(policy: &Policy, ctx: &ExportContext<'_>) -> Mapped {
    let system = "LlamaIndex's buffer";
    let mut out = Vec::new();
    let limit = match (&policy.trigger, &policy.exact.keep) {
        (Trigger::Tokens { budget, .. }, Some(Keep::Tokens(_))) => *budget,
        _ => one_limit(policy, ctx, system, &mut out),
    };
    let runs = exact::llamaindex(limit);
    let mut sentences = Vec::new();
    if policy.exact.check != runs.exact.check || !policy.exact.is_exact() {
        sentences.push(format!(
            "{system} checks once a turn, before its first model call, and counts the stored messages with the summary but not the system prompt; the kept part starts at a user message."
        ));
    }
    if policy.exact.summary_at != runs.exact.summary_at {
        sentences.push(format!(
            "{system} puts the summary in a system message before the kept messages, not {}.",
            placement_words(policy)
        ));
    }
    newest_sentence(policy, &runs, system, &mut sentences);
    sentences.extend(out);
    let mut runs = carry(runs, policy, system, &mut sentences);
    // Its tokenizer counts a message's content in one tiktoken vocabulary: its default,
    // cl100k_base, or the one passed as tokenizer_fn.
    let vocabulary = match policy.exact.counter {
        Counter::Tiktoken {
            vocabulary,
            chat: false,
        } => vocabulary,
        other => {
            sentences.push(format!(
                "{system} counts a message's text with a tiktoken vocabulary, not with {}: the snippet counts exact o200k_base.",
                other.label()
            ));
            Vocabulary::O200k
        }
    };
    runs.exact.counter = Counter::Tiktoken {
        vocabulary,
        chat: false,
    };
    let tokenizer = match vocabulary {
        // LlamaIndex's own default tokenizer.
        Vocabulary::Cl100k => "None".to_owned(),
        other => format!("\"{}\"", encoding_name(other)),
    };
    Mapped {
        runs,
        differences: sentences,
        fills: vec![("TOKEN_LIMIT", limit.to_string()), ("TOKENIZER", tokenizer)],
    }
}
