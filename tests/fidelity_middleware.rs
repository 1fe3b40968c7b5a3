//! The Python package's LangChain middleware (`summary_memory.langchain.SummaryMemoryMiddleware`)
//! against the app's dry run of the same policy, request by request.
//!
//! `tests/fidelity/middleware/driver.py` runs the middleware in a real `create_agent` (the
//! tier's recording chat model and reading summariser, the contract's word counter) through the
//! eight fidelity shapes under each policy of `tests/fidelity/middleware/policies.json`, the
//! policies as the page exports them (written here, from the engine's own). Each trace (in
//! `tests/fidelity/middleware-traces/<policy>/<shape>.json`, or the directory in
//! `SM_MIDDLEWARE_TRACES`) is compared with `schedule_messages` of that JSON imported as the
//! page imports it: the requests, the number of summariser calls, and what each call folds.
//! `scripts/test.sh` regenerates the traces from the wheel the Python tier built and runs this
//! on them.

#[path = "fidelity/common.rs"]
#[allow(
    dead_code,
    reason = "the middleware is run with the contract's counter only"
)]
mod common;
#[path = "fidelity/inputs.rs"]
mod inputs;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::{Contract, Library, brief, engine_requests, played, read_json, root, words};
use inputs::{ReadingContract, engine_inputs};
use serde_json::Value;
use summary_memory::engine::export::{ExportContext, Target, export, import_policy};
use summary_memory::engine::peers::library_policy;
use summary_memory::engine::policy::{FoldMode, Keep, Placement, Policy, Trigger};
use summary_memory::engine::schedule::{MessageInput, MessageRun, schedule_messages};
use summary_memory::engine::session::export_policy;

const SHAPES: usize = 8;

/// The policies the middleware runs, by name: the LangChain v1 preset at the tier's
/// parameters (an exact policy: the request's size, a cut by messages), and the app's own
/// rules in each placement and fold mode.
fn policies() -> BTreeMap<&'static str, Policy> {
    let lc = library_policy("langchain-v1-middleware", &|name| match name {
        "trigger.tokens" => Some(300.0),
        "keep.messages" => Some(6.0),
        _ => None,
    })
    .expect("the preset's policy");
    let rule = |trigger, placement, fold| {
        let mut p = Policy::new(trigger).expect("a valid policy");
        p.placement = placement;
        p.fold = fold;
        p
    };
    BTreeMap::from([
        ("langchain-v1-middleware", lc),
        (
            "tokens-300-keep-150",
            rule(
                Trigger::Tokens {
                    budget: 300,
                    keep_tokens: 150,
                },
                Placement::SecondSystem,
                FoldMode::Progressive,
            ),
        ),
        (
            "turns-4-keep-2-user-ack-rebuild",
            rule(
                Trigger::Turns {
                    max_turns: 4,
                    keep: 2,
                },
                Placement::UserAck,
                FoldMode::RebuildFromArchive,
            ),
        ),
        (
            "messages-12-append",
            rule(
                Trigger::MessageCount { max_messages: 12 },
                Placement::AppendToSystem,
                FoldMode::Progressive,
            ),
        ),
    ])
}

fn policies_json() -> String {
    let map: serde_json::Map<String, Value> = policies()
        .iter()
        .map(|(name, p)| {
            let v: Value = serde_json::from_str(&export_policy(p)).expect("the export is JSON");
            ((*name).to_owned(), v)
        })
        .collect();
    serde_json::to_string_pretty(&Value::Object(map)).expect("serialises") + "\n"
}

/// The committed policies file is the engine's export of [`policies`]
/// (`SM_WRITE_MIDDLEWARE_POLICIES=1` rewrites it).
#[test]
fn the_policies_file_is_the_engines_export() {
    let path = root().join("middleware/policies.json");
    let want = policies_json();
    if std::env::var_os("SM_WRITE_MIDDLEWARE_POLICIES").is_some() {
        std::fs::write(&path, &want).expect("written");
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{} is stale: run SM_WRITE_MIDDLEWARE_POLICIES=1 cargo test --test fidelity_middleware",
        path.display()
    );
}

/// The export panel's snippet for the middleware target, for each policy: the driver runs these
/// files unmodified (`tests/fidelity/middleware/snippets/<policy>.py`; the same
/// `SM_WRITE_MIDDLEWARE_POLICIES=1` rewrites them).
#[test]
fn the_snippets_are_the_export_panels() {
    let dir = root().join("middleware/snippets");
    let write = std::env::var_os("SM_WRITE_MIDDLEWARE_POLICIES").is_some();
    for (name, policy) in policies() {
        let ctx = ExportContext {
            summary_prompt: &policy.prompt.text,
            word_limit: Some(policy.prompt.word_limit),
            must_keep: &policy.prompt.must_keep,
            pinned: &[],
            chat_model: "gpt-4o-mini",
            summary_model: "gpt-4o-mini",
            base_url: "https://api.openai.com/v1",
            context_window: 128_000,
        };
        let out = export(Target::SummaryMemoryMiddleware, &policy, &ctx);
        assert!(out.exact, "{name}: {:?}", out.differences);
        let path = dir.join(format!("{}.py", name.replace('-', "_")));
        if write {
            std::fs::create_dir_all(&dir).expect("the folder");
            std::fs::write(&path, &out.code).expect("written");
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == out.code,
            "{} is stale: run SM_WRITE_MIDDLEWARE_POLICIES=1 cargo test --test fidelity_middleware",
            path.display()
        );
    }
}

fn traces_dir() -> PathBuf {
    std::env::var_os("SM_MIDDLEWARE_TRACES")
        .map_or_else(|| root().join("middleware-traces"), PathBuf::from)
}

/// The dry run of the exported `policy` on the trace's conversation.
fn dry_run(policy: &Policy, trace: &Value) -> MessageRun {
    let shape = trace["shape"].as_str().expect("shape");
    let conversation = read_json(&root().join(format!("conversations/{shape}.json")));
    let system = conversation["system"].as_str().expect("system");
    let sizer = ReadingContract(Contract {
        library: Library::Contract,
    });
    schedule_messages(
        policy,
        &MessageInput {
            messages: played(&conversation, Library::Contract),
            system_prompt: system,
            system_tokens: words(system),
            sizer: &sizer,
        },
    )
}

/// The first difference between the dry run and the middleware's trace, in words.
fn difference(run: &MessageRun, trace: &Value) -> Option<String> {
    let ours = engine_requests(run);
    let theirs = trace["requests"].as_array().cloned().unwrap_or_default();
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        if a != b {
            return Some(format!(
                "request {}: the dry run sends\n    {}\n  the middleware sends\n    {}",
                i + 1,
                brief(a),
                brief(b)
            ));
        }
    }
    if ours.len() != theirs.len() {
        return Some(format!(
            "{} requests in the dry run, {} from the middleware",
            ours.len(),
            theirs.len()
        ));
    }
    let calls = trace["summariser_calls"].as_u64().unwrap_or(0);
    if u64::from(run.calls) != calls {
        return Some(format!(
            "summariser calls: the dry run makes {}, the middleware {calls}",
            run.calls
        ));
    }
    inputs::first_difference(&engine_inputs(run), trace)
}

/// Every trace of `name`, with its policy imported from the committed export.
fn traces(name: &str) -> (Policy, Vec<Value>) {
    let exported = read_json(&root().join("middleware/policies.json"));
    let policy = import_policy(&exported[name].to_string())
        .unwrap_or_else(|e| panic!("{name}: the exported policy does not import: {e}"));
    let dir = traces_dir().join(name);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "{}: no middleware traces ({e}); run tests/fidelity/middleware/driver.py (scripts/test.sh does)",
                dir.display()
            )
        })
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    (policy, paths.iter().map(|p| read_json(p)).collect())
}

#[test]
fn the_middleware_is_request_identical_to_the_dry_run_of_its_policy_on_the_eight_shapes() {
    let mut failures = Vec::new();
    for name in policies().keys() {
        let (policy, traces) = traces(name);
        assert_eq!(traces.len(), SHAPES, "{name}: the eight shapes");
        let mut calls = 0;
        for trace in &traces {
            let run = dry_run(&policy, trace);
            calls += run.calls;
            if let Some(d) = difference(&run, trace) {
                failures.push(format!("{name} on {}: {d}", trace["shape"]));
            }
        }
        println!("{name}: {} shapes, {calls} summariser calls", traces.len());
        assert!(calls > 0, "{name}: the policy never folds on the shapes");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The comparison can fail: each policy with its trigger a step later, or its summary placed
/// or prefixed otherwise, differs from the middleware's traces on at least one shape.
#[test]
fn the_comparison_finds_a_planted_fault() {
    for name in policies().keys() {
        let (policy, traces) = traces(name);
        let mut later = policy.clone();
        later.trigger = match later.trigger {
            Trigger::Tokens {
                budget,
                keep_tokens,
            } => Trigger::Tokens {
                budget: budget + 40,
                keep_tokens,
            },
            Trigger::Turns { max_turns, keep } => Trigger::Turns {
                max_turns: max_turns + 1,
                keep,
            },
            Trigger::MessageCount { max_messages } => Trigger::MessageCount {
                max_messages: max_messages + 2,
            },
            other => other,
        };
        if let Some(Keep::Messages(n)) = later.exact.keep {
            later.exact.keep = Some(Keep::Messages(n + 1));
        }
        // The summary placed elsewhere (an exact policy places it by its own fields: its
        // prefix changed instead).
        let mut moved = policy.clone();
        moved.placement = match policy.placement {
            Placement::SecondSystem => Placement::UserAck,
            _ => Placement::SecondSystem,
        };
        moved.exact.summary_prefix.insert_str(0, "Earlier: ");
        for (fault, planted) in [
            ("a later trigger", &later),
            ("a summary placed otherwise", &moved),
        ] {
            assert!(
                traces
                    .iter()
                    .any(|t| difference(&dry_run(planted, t), t).is_some()),
                "{name}: {fault} compares identical on every shape"
            );
        }
    }
}

/// Under the LangChain v1 preset's policy, the package's middleware makes the requests
/// LangChain's own `SummarizationMiddleware` makes (the tier's library traces, or those in
/// `SM_FIDELITY_TRACES`), and folds the same messages.
#[test]
fn under_the_langchain_preset_the_middleware_makes_langchains_own_requests() {
    let name = "langchain-v1-middleware";
    let library = std::env::var_os("SM_FIDELITY_TRACES")
        .map_or_else(|| root().join("traces"), PathBuf::from)
        .join(name);
    let (_, traces) = traces(name);
    for ours in &traces {
        let shape = ours["shape"].as_str().expect("shape");
        let theirs = read_json(&library.join(format!("{shape}.json")));
        for key in ["requests", "summariser_calls", "summariser_inputs"] {
            assert_eq!(
                ours[key], theirs[key],
                "{shape}: {key} differ from LangChain's own"
            );
        }
    }
}
