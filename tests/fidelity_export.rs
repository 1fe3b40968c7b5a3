//! The export tier: every exported Python and JavaScript snippet, run unmodified in the real
//! library (`tests/fidelity/export/export_driver.py`, `export_driver.mjs`), makes the requests
//! of the app's dry run of the policy the export says it runs (`Export::runs`), request by
//! request and in summariser calls.
//!
//! The cases (targets and policies) are `tests/fidelity/export/cases.rs`; the traces are
//! `tests/fidelity/export-traces/<target>/<case>-<shape>.json` (or the folder in
//! `SM_FIDELITY_EXPORT_TRACES`). The dry run plays `tests/fidelity/conversations/<shape>.json`
//! with the contract's counter and summariser, as `tests/fidelity.rs` does (`fidelity/common.rs`).

#[path = "fidelity/export/cases.rs"]
mod cases;
#[path = "fidelity/common.rs"]
mod common;

use std::path::PathBuf;

use common::{Contract, Library, brief, engine_requests, played, read_json, root, words};
use serde_json::Value;
use summary_memory::engine::export::{Target, export};
use summary_memory::engine::message::ToolCall;
use summary_memory::engine::policy::{Counter, Vocabularies};
use summary_memory::engine::schedule::{
    MessageInput, MessageRun, PlayedMessage, Sizer, schedule_messages,
};
use summary_memory::engine::{Message, Role};
use summary_memory::tokens::{Encoding, TokenCounter};

fn traces_dir() -> PathBuf {
    std::env::var_os("SM_FIDELITY_EXPORT_TRACES")
        .map_or_else(|| root().join("export-traces"), PathBuf::from)
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
            messages: played(
                &conversation,
                if target == Target::Llamaindex {
                    Library::ContentOnly
                } else {
                    Library::Contract
                },
            ),
            system_prompt: system,
            system_tokens: words(system),
            sizer: &Contract {
                library: Library::Contract,
            },
        },
    );
    compare(&run, trace)
}

/// The first difference between the dry run `run` and the trace; `None` when identical.
fn compare(run: &MessageRun, trace: &Value) -> Option<String> {
    let ours = engine_requests(run);
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
                if let Some(d) = difference(run.target, case, &trace) {
                    failures.push(format!(
                        "{} {} on {shape}: {d}",
                        run.target.slug(),
                        case.name
                    ));
                }
            }
        }
    }
    println!("{compared} traces compared, {folds} summariser calls in them");
    assert!(
        failures.is_empty(),
        "{} of {compared} traces differ from the dry run of Export::runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The conversation's messages as the engine holds them (the system prompt left out).
fn messages(conversation: &Value) -> Vec<Message> {
    conversation["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| {
            let role = match m["role"].as_str() {
                Some("user") => Role::User,
                Some("assistant") => Role::Assistant,
                _ => Role::Tool,
            };
            let mut message =
                Message::counted(role, m["content"].as_str().unwrap_or_default().into(), 0, 0);
            for c in m["tool_calls"].as_array().into_iter().flatten() {
                message.calls.push(ToolCall {
                    id: c["id"].as_str().unwrap_or_default().into(),
                    name: c["name"].as_str().unwrap_or_default().into(),
                    arguments: c["arguments"].as_str().unwrap_or_default().into(),
                });
            }
            message.call_id = m["tool_call_id"].as_str().map(str::to_owned);
            message
        })
        .collect()
}

/// The contract's summariser, its texts counted with a policy's counter.
struct CountedSizer<'a> {
    counter: Counter,
    vocab: &'a dyn Vocabularies,
}

impl Sizer for CountedSizer<'_> {
    fn tokens(&self, text: &str) -> u32 {
        self.counter.text(Role::User, text, self.vocab)
    }

    fn summary(&self, call: u32) -> String {
        Contract {
            library: Library::Contract,
        }
        .summary(call)
    }
}

/// The dry run of `target`'s export of `case` on the trace's conversation, every message, the
/// system prompt and each summary counted with `counter` (the real vocabularies).
fn counted_run(
    target: Target,
    case: &cases::Case,
    trace: &Value,
    counter: Counter,
    vocab: &TokenCounter,
) -> MessageRun {
    let shape = trace["shape"].as_str().expect("shape");
    let conversation = read_json(&root().join(format!("conversations/{shape}.json")));
    let mut runs = export(target, &(case.policy)(), &cases::context()).runs;
    runs.exact.counter = counter;
    let system = conversation["system"].as_str().expect("system");
    let played: Vec<PlayedMessage> = messages(&conversation)
        .iter()
        .map(|m| PlayedMessage {
            role: m.role,
            tokens: counter.message(m, vocab),
            chars: m.content.len() as u32,
            calls: !m.calls.is_empty(),
        })
        .collect();
    schedule_messages(
        &runs,
        &MessageInput {
            messages: played,
            system_prompt: system,
            system_tokens: counter.text(Role::System, system, vocab) + counter.per_request(),
            sizer: &CountedSizer { counter, vocab },
        },
    )
}

/// A snippet run with its own counter (a tiktoken counter, as its policy is measured) makes the
/// requests of the dry run that counts with the engine's counter; the word contract's dry run
/// does not (the counter decides where it folds).
#[test]
fn a_snippet_run_with_its_own_counter_makes_the_requests_of_the_dry_run_with_that_counter() {
    let dir = traces_dir();
    let vocab = TokenCounter::new(Encoding::O200kBase);
    vocab
        .load(Encoding::O200kBase)
        .expect("the vocabulary loads");
    let mut compared = 0;
    let mut failures = Vec::new();
    let mut apart = 0;
    for (target, name) in cases::OWN_COUNTER {
        let run = cases::RUN
            .iter()
            .find(|r| r.target == target)
            .expect("a run");
        let case = run.cases.iter().find(|c| c.name == name).expect("a case");
        let counter = export(target, &(case.policy)(), &cases::context())
            .runs
            .exact
            .counter;
        assert_eq!(
            counter,
            Counter::O200K,
            "the snippet passes a tiktoken counter"
        );
        for shape in shapes() {
            let path = dir
                .join(target.slug())
                .join("own-counter")
                .join(format!("{name}-{shape}.json"));
            let trace = read_json(&path);
            compared += 1;
            if let Some(d) = compare(&counted_run(target, case, &trace, counter, &vocab), &trace) {
                failures.push(format!("{} {name} on {shape}: {d}", target.slug()));
            }
            // The same snippet with the contract's words, or with the chat format's framing on
            // top of its counter (a planted difference), is told apart somewhere.
            let framed = Counter::Tiktoken {
                vocabulary: summary_memory::engine::policy::Vocabulary::O200k,
                chat: true,
            };
            if compare(
                &counted_run(target, case, &trace, Counter::Words, &vocab),
                &trace,
            )
            .is_some()
                && compare(&counted_run(target, case, &trace, framed, &vocab), &trace).is_some()
            {
                apart += 1;
            }
        }
    }
    println!(
        "{compared} own-counter traces compared, {apart} told apart from the word and framed counts"
    );
    assert!(
        failures.is_empty(),
        "{} of {compared} own-counter traces differ from the dry run:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(apart > 0, "no trace tells the counters apart");
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
