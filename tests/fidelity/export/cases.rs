//! The export tier's cases, shared by the generator (`examples/export_snippets.rs`) and the
//! comparison (`tests/fidelity_export.rs`): which targets are run, with which policies, and
//! the context every snippet is exported with. A new target is one row of [`RUN`].

use summary_memory::engine::export::{ExportContext, Target};
use summary_memory::engine::peers::exact;
use summary_memory::engine::policy::{FoldMode, Placement, Policy, SummaryFormat, Trigger};

/// One exported policy: its name (in the snippet's and the trace's file names) and the policy.
pub struct Case {
    pub name: &'static str,
    pub policy: fn() -> Policy,
}

/// One target the tier runs: the driver that runs its snippets, and its cases.
pub struct Run {
    pub target: Target,
    /// The driver, in tests/fidelity/export/, that imports each snippet unmodified (run.sh
    /// runs each; the table says which runs which).
    #[allow(dead_code)]
    pub driver: &'static str,
    pub cases: &'static [Case],
}

fn with(trigger: Trigger, placement: Placement) -> Policy {
    let mut policy = Policy::new(trigger).expect("a case's trigger is valid");
    policy.placement = placement;
    policy
}

/// The six policies every target is run with: each trigger kind (turns, tokens, every N
/// messages, over N messages, a fraction of a window, manual) and each placement.
const COMMON: [Case; 6] = [
    Case {
        name: "turns-6-keep-2",
        policy: || {
            with(
                Trigger::Turns {
                    max_turns: 6,
                    keep: 2,
                },
                Placement::SecondSystem,
            )
        },
    },
    Case {
        name: "tokens-300-keep-150",
        policy: || {
            with(
                Trigger::Tokens {
                    budget: 300,
                    keep_tokens: 150,
                },
                Placement::AppendToSystem,
            )
        },
    },
    Case {
        name: "every-8",
        policy: || with(Trigger::Every { n: 8 }, Placement::UserAck),
    },
    Case {
        name: "messages-10",
        policy: || {
            with(
                Trigger::MessageCount { max_messages: 10 },
                Placement::SecondSystem,
            )
        },
    },
    Case {
        name: "window-500-80-30",
        policy: || {
            with(
                Trigger::Window {
                    context: 500,
                    fire_pct: 80,
                    keep_pct: 30,
                    keep_turns: 0,
                },
                Placement::UserAck,
            )
        },
    },
    Case {
        name: "manual-keep-1",
        policy: || with(Trigger::Manual { keep: 1 }, Placement::AppendToSystem),
    },
];

const fn cases_with(own: Case) -> [Case; 7] {
    let [a, b, c, d, e, f] = COMMON;
    [a, b, c, d, e, f, own]
}

const LC_V1: [Case; 7] = cases_with(Case {
    name: "exact-langchain-v1",
    policy: || exact::langchain_v1(300, 6),
});
const LC_CLASSIC: [Case; 7] = cases_with(Case {
    name: "exact-langchain-classic",
    policy: || exact::langchain_classic(120),
});
const LLAMAINDEX: [Case; 7] = cases_with(Case {
    name: "exact-llamaindex",
    policy: || exact::llamaindex(250),
});

/// The targets whose logic the snippet writes (LangGraph, the Agents session, the seed class):
/// the six, then what only they carry (a rebuilt summary in topic sections, a window that keeps
/// turns), then two the export runs as its nearest policy (a peer preset's exact fields, and
/// structured memory with a summary budget).
const WRITTEN: [Case; 10] = {
    let [a, b, c, d, e, f] = COMMON;
    [
        a,
        b,
        c,
        d,
        e,
        f,
        Case {
            name: "turns-4-keep-2-rebuild-topics",
            policy: || {
                let mut policy = with(
                    Trigger::Turns {
                        max_turns: 4,
                        keep: 2,
                    },
                    Placement::UserAck,
                );
                policy.fold = FoldMode::RebuildFromArchive;
                policy.format = SummaryFormat::Topics;
                policy
            },
        },
        Case {
            name: "window-800-50-keep-2-turns",
            policy: || {
                with(
                    Trigger::Window {
                        context: 800,
                        fire_pct: 50,
                        keep_pct: 30,
                        keep_turns: 2,
                    },
                    Placement::SecondSystem,
                )
            },
        },
        Case {
            name: "nearest-cookbook",
            policy: || exact::cookbook(2, 4),
        },
        Case {
            name: "nearest-structured-budget",
            policy: || {
                let mut policy = with(
                    Trigger::Tokens {
                        budget: 250,
                        keep_tokens: 100,
                    },
                    Placement::AppendToSystem,
                );
                policy.format = SummaryFormat::Structured;
                policy.summary_budget = Some(15);
                policy
            },
        },
    ]
};

/// Every target the tier runs.
pub const RUN: [Run; 7] = [
    Run {
        target: Target::LangchainMiddlewarePy,
        driver: "export_driver.py",
        cases: &LC_V1,
    },
    Run {
        target: Target::LangchainMiddlewareJs,
        driver: "export_driver.mjs",
        cases: &LC_V1,
    },
    Run {
        target: Target::LangchainBuffer,
        driver: "export_driver.py",
        cases: &LC_CLASSIC,
    },
    Run {
        target: Target::Llamaindex,
        driver: "export_driver.py",
        cases: &LLAMAINDEX,
    },
    Run {
        target: Target::Langgraph,
        driver: "langgraph_driver.py",
        cases: &WRITTEN,
    },
    Run {
        target: Target::AgentsSession,
        driver: "agents_session_driver.py",
        cases: &WRITTEN,
    },
    Run {
        target: Target::SeedClass,
        driver: "seed_class_driver.py",
        cases: &WRITTEN,
    },
];

/// The context every snippet is exported with: a prompt with braces and quotes (the
/// templates' escaping is run by the libraries), and no key.
pub fn context() -> ExportContext<'static> {
    static MUST: [String; 0] = [];
    ExportContext {
        summary_prompt: "Summarise the conversation so far {briefly}, keeping \"every figure\".",
        word_limit: Some(150),
        must_keep: &MUST,
        pinned: &MUST,
        chat_model: "gpt-4o-mini",
        summary_model: "gpt-4o-mini",
        base_url: "https://api.openai.com/v1",
        context_window: 128_000,
    }
}

/// Where a case's snippet lives under the snippets folder.
pub fn snippet_path(target: Target, case: &Case) -> String {
    let ext = target.file_name().rsplit('.').next().unwrap_or("txt");
    format!("{}/{}.{ext}", target.slug(), case.name.replace('-', "_"))
}

/// The cases also run with the snippet's own counter (its `COUNTER`, the counter its policy is
/// measured with: a tiktoken counter), as `export_driver.py`'s `OWN_COUNTER` lists them; their
/// traces are `export-traces/<target>/own-counter/<case>-<shape>.json`.
#[allow(dead_code, reason = "examples/export_snippets.rs writes no trace")]
pub const OWN_COUNTER: [(Target, &str); 1] =
    [(Target::LangchainMiddlewarePy, "tokens-300-keep-150")];
