//! The export tier: every exported Python and JavaScript snippet, run unmodified in the real
//! library (`tests/fidelity/export/export_driver.py`, `export_driver.mjs`), makes the requests
//! of the app's dry run of the policy the export says it runs (`Export::runs`), request by
//! request and in summariser calls.
//!
//! The cases (targets and policies) are `tests/fidelity/export/cases.rs`; the traces are
//! `tests/fidelity/export-traces/<target>/<case>-<shape>.json` (or the folder in
//! `SM_FIDELITY_EXPORT_TRACES`). The dry run plays `tests/fidelity/conversations/<shape>.json`
//! with the contract's counter and summariser, as `tests/fidelity.rs` does (whose helpers for
//! Gemini CLI are not needed here, so the few it shares are written again below).

#[path = "fidelity/export/cases.rs"]
mod cases;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use summary_memory::engine::Role;
use summary_memory::engine::export::{Target, export};
use summary_memory::engine::schedule::{
    MessageInput, MessageRun, PlayedMessage, Sizer, Slot, schedule_messages,
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fidelity")
}

fn traces_dir() -> PathBuf {
    std::env::var_os("SM_FIDELITY_EXPORT_TRACES")
        .map_or_else(|| root().join("export-traces"), PathBuf::from)
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

fn words(text: &str) -> u32 {
    text.split_whitespace().count() as u32
}

/// The shapes, as the drivers list them.
fn shapes() -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(root().join("conversations"))
        .expect("the conversations folder")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_suffix(".json").map(str::to_owned)
        })
        .collect();
    out.sort();
    out
}

/// The conversation as the dry run plays it. LlamaIndex's buffer counts a message's content
/// only (its `tokenizer_fn` never sees a tool call's name and arguments), as in
/// `tests/fidelity.rs`; every other library gets the contract's counter.
fn played(conversation: &Value, content_only: bool) -> Vec<PlayedMessage> {
    conversation["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let role = match m["role"].as_str() {
                Some("user") => Role::User,
                Some("assistant") => Role::Assistant,
                Some("tool") => Role::Tool,
                other => panic!("message {i}: unknown role {other:?}"),
            };
            let content = m["content"].as_str().unwrap_or_default();
            let calls = m["tool_calls"].as_array().cloned().unwrap_or_default();
            let call_words: u32 = calls
                .iter()
                .map(|c| {
                    words(c["name"].as_str().unwrap_or_default())
                        + words(c["arguments"].as_str().unwrap_or_default())
                })
                .sum();
            PlayedMessage {
                role,
                tokens: words(content) + if content_only { 0 } else { call_words },
                chars: content.len() as u32,
                calls: !calls.is_empty(),
            }
        })
        .collect()
}

/// The contract's counter and summariser.
struct Contract;

impl Sizer for Contract {
    fn tokens(&self, text: &str) -> u32 {
        words(text)
    }

    fn summary(&self, call: u32) -> String {
        let mut out = format!("S{call}");
        for _ in 0..19 {
            out.push_str(" w");
        }
        out
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

fn engine_requests(run: &MessageRun) -> Vec<Value> {
    run.requests
        .iter()
        .map(|r| {
            let messages: Vec<Value> = r
                .messages
                .iter()
                .map(|slot| match slot {
                    Slot::System => json!({"kind": "system"}),
                    Slot::Summary { call, role, text } => json!({
                        "kind": "summary", "summary": call, "role": role_name(*role), "text": text
                    }),
                    Slot::Verbatim(i) => json!({"kind": "verbatim", "index": i}),
                    Slot::Fixed { role, text } => {
                        json!({"kind": "fixed", "role": role_name(*role), "text": text})
                    }
                })
                .collect();
            json!({"request": r.request, "answers": r.answers, "messages": messages})
        })
        .collect()
}

/// A request in one line: `system`, `S<k>/<role>`, the verbatim indices, `fixed/<role>`.
fn brief(request: &Value) -> String {
    let parts: Vec<String> = request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| match m["kind"].as_str() {
            Some("system") => "system".to_owned(),
            Some("summary") => format!("S{}/{}", m["summary"], m["role"].as_str().unwrap_or("?")),
            Some("verbatim") => m["index"].to_string(),
            Some("fixed") => format!("fixed/{}", m["role"].as_str().unwrap_or("?")),
            Some("altered") => format!("altered:{}", m["index"]),
            other => format!("{other:?}"),
        })
        .collect();
    format!("answers {}: {}", request["answers"], parts.join(" "))
}

/// The first difference between the trace at `path` and the dry run of what the export of
/// `case` to `target` says it runs; `None` when identical.
fn difference(target: Target, case: &cases::Case, trace: &Value) -> Option<String> {
    let shape = trace["shape"].as_str().expect("shape");
    let conversation = read_json(&root().join(format!("conversations/{shape}.json")));
    let runs = export(target, &(case.policy)(), &cases::context()).runs;
    let system = conversation["system"].as_str().expect("system");
    let run = schedule_messages(
        &runs,
        &MessageInput {
            messages: played(&conversation, target == Target::Llamaindex),
            system_prompt: system,
            system_tokens: words(system),
            sizer: &Contract,
        },
    );
    let ours = engine_requests(&run);
    let theirs = trace["requests"].as_array().cloned().unwrap_or_default();
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        if a != b {
            return Some(format!(
                "request {}: the dry run sends\n    {}\n  the snippet sends\n    {}",
                i + 1,
                brief(a),
                brief(b)
            ));
        }
    }
    if ours.len() != theirs.len() {
        return Some(format!(
            "{} requests in the dry run, {} from the snippet",
            ours.len(),
            theirs.len()
        ));
    }
    let calls = trace["summariser_calls"].as_u64().unwrap_or(0);
    (u64::from(run.calls) != calls).then(|| {
        format!(
            "summariser calls: the dry run makes {}, the snippet {calls}",
            run.calls
        )
    })
}

/// Where a snippet is known to part from the dry run of `Export::runs`, and why: each must
/// still differ (a stale entry fails), and nothing else may.
const KNOWN: [(&str, &str, &str, &str); 4] = [
    (
        "langchain-middleware-py",
        "tokens-300-keep-150",
        "giant-message",
        LC_KEEPS_NEWEST,
    ),
    (
        "langchain-middleware-py",
        "window-500-80-30",
        "giant-message",
        LC_KEEPS_NEWEST,
    ),
    (
        "langchain-middleware-js",
        "tokens-300-keep-150",
        "giant-message",
        LC_KEEPS_NEWEST,
    ),
    (
        "langchain-middleware-js",
        "window-500-80-30",
        "giant-message",
        LC_KEEPS_NEWEST,
    ),
];

/// The exact vocabulary's `Keep::Tokens` keeps nothing when the newest message alone is over
/// the kept tokens (LlamaIndex's and the classic buffer's rule); LangChain v1's token cut keeps
/// the newest message anyway (`cutoff_candidate = len(messages) - 1` in `_find_token_based_cutoff`,
/// `cutoffCandidate = messages.length - 1` in `findTokenBasedCutoff`).
const LC_KEEPS_NEWEST: &str =
    "LangChain v1 keeps the newest message when it alone is over the kept tokens";

#[test]
fn every_exported_snippet_makes_the_requests_of_the_policy_it_says_it_runs() {
    let dir = traces_dir();
    let mut compared = 0;
    let mut failures = Vec::new();
    let mut folds = 0u64;
    for run in &cases::RUN {
        for case in run.cases {
            for shape in shapes() {
                let path = dir
                    .join(run.target.slug())
                    .join(format!("{}-{shape}.json", case.name));
                let trace = read_json(&path);
                assert_eq!(
                    trace["params"]["case"],
                    case.name,
                    "{}: the trace of another case",
                    path.display()
                );
                folds += trace["summariser_calls"].as_u64().unwrap_or(0);
                compared += 1;
                let known = KNOWN
                    .iter()
                    .find(|k| (k.0, k.1, k.2) == (run.target.slug(), case.name, shape.as_str()));
                match (difference(run.target, case, &trace), known) {
                    (Some(d), None) => failures.push(format!(
                        "{} {} on {shape}: {d}",
                        run.target.slug(),
                        case.name
                    )),
                    (None, Some(k)) => failures.push(format!(
                        "{} {} on {shape} is listed in KNOWN ({}) but matches; remove it",
                        run.target.slug(),
                        case.name,
                        k.3
                    )),
                    _ => {}
                }
            }
        }
    }
    println!(
        "{compared} traces compared, {} known to differ, {folds} summariser calls in them",
        KNOWN.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {compared} traces differ from the dry run of Export::runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_target_is_run_with_six_policies_or_more_and_the_snippets_are_fresh() {
    let ctx = cases::context();
    for run in &cases::RUN {
        assert!(
            run.cases.len() >= 6,
            "{}: fewer than six policies",
            run.target.slug()
        );
        for case in run.cases {
            let path = root()
                .join("export/snippets")
                .join(cases::snippet_path(run.target, case));
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            let code = export(run.target, &(case.policy)(), &ctx).code;
            assert!(
                committed == code,
                "{} is stale; run `cargo run --example export_snippets`",
                path.display()
            );
        }
    }
}

#[test]
fn the_comparison_finds_a_planted_difference() {
    // A trace with one request's last message dropped must not compare identical.
    let run = &cases::RUN[0];
    let case = &run.cases[0];
    let path = traces_dir()
        .join(run.target.slug())
        .join(format!("{}-short-turns.json", case.name));
    let mut trace = read_json(&path);
    assert!(difference(run.target, case, &trace).is_none());
    let last = trace["requests"][3]["messages"]
        .as_array_mut()
        .expect("messages")
        .pop();
    assert!(last.is_some());
    let found = difference(run.target, case, &trace).expect("a planted difference is found");
    assert!(found.starts_with("request 4:"), "{found}");
}
