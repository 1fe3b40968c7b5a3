//! The engine's side of the summariser's inputs (`tests/fidelity/inputs.py` and `inputs.mjs`
//! are the libraries'): the summariser whose text depends on what it folds, and each call's
//! input written as the traces' `summariser_inputs`.

use serde_json::{Value, json};
use summary_memory::engine::Role;
use summary_memory::engine::schedule::{MessageRun, Sizer, SummaryInput};

use crate::common::Contract;

/// Words of summary per input token past the first (inputs.py's `SPREAD`).
const SPREAD: u64 = 16;

/// FNV-1a, 32 bits (inputs.py's `fnv1a32`).
fn fnv1a32(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5, |h: u32, byte| {
        (h ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

/// The input's canonical form: `S<k>` for a summary, the index for a message, in the order the
/// summariser is given them.
fn canonical(input: &SummaryInput) -> String {
    let summaries = |calls: &[u32]| calls.iter().map(|k| format!("S{k}")).collect::<Vec<_>>();
    let mut parts = summaries(input.summary.as_slice());
    parts.extend(input.messages.iter().map(usize::to_string));
    parts.extend(summaries(&input.earlier));
    parts.join(" ")
}

/// The text of summariser call `input.call` (inputs.py's `summary_text`).
pub fn summary_text(input: &SummaryInput) -> String {
    let digest = format!("d{:08x}", fnv1a32(&canonical(input)));
    let mut words = vec![format!("S{}", input.call)];
    words.extend(std::iter::repeat_n(
        digest,
        1 + (input.tokens / SPREAD) as usize,
    ));
    words.join(" ")
}

/// The contract's counter, measuring as the library does, and the summariser whose text
/// depends on its input.
pub struct ReadingContract(pub Contract);

impl Sizer for ReadingContract {
    fn tokens(&self, text: &str) -> u32 {
        self.0.tokens(text)
    }

    fn chars(&self, role: Role, text: &str) -> u32 {
        self.0.chars(role, text)
    }

    fn summary(&self, call: u32) -> String {
        self.0.summary(call)
    }

    fn summary_of(&self, input: &SummaryInput) -> String {
        summary_text(input)
    }
}

/// The engine's summariser calls as a trace's `summariser_inputs`.
pub fn engine_inputs(run: &MessageRun) -> Vec<Value> {
    run.inputs
        .iter()
        .map(|input| {
            let summary = |k: &u32| json!({"kind": "summary", "summary": k});
            let folds: Vec<Value> = input
                .summary
                .iter()
                .map(summary)
                .chain(
                    input
                        .messages
                        .iter()
                        .map(|i| json!({"kind": "verbatim", "index": i})),
                )
                .chain(input.earlier.iter().map(summary))
                .collect();
            json!({"call": input.call, "folds": folds, "tokens": input.tokens})
        })
        .collect()
}

/// One input in a line: `S<k>`, the indices, and its tokens.
fn brief(input: &Value) -> String {
    let folds: Vec<String> = input["folds"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| match f["kind"].as_str() {
            Some("summary") => format!("S{}", f["summary"]),
            _ => f["index"].to_string(),
        })
        .collect();
    format!("{} ({} tokens)", folds.join(" "), input["tokens"])
}

/// The first summariser call whose input differs between the engine's run and the trace,
/// in words; `None` when every call was given the same.
pub fn first_difference(ours: &[Value], trace: &Value) -> Option<String> {
    let Some(theirs) = trace["summariser_inputs"].as_array() else {
        return Some(
            "the trace records no summariser_inputs: regenerate it with tests/fidelity/run.sh"
                .to_owned(),
        );
    };
    for (a, b) in ours.iter().zip(theirs) {
        if a != b {
            return Some(format!(
                "summariser call {}: the engine folds\n    {}\n  the library folds\n    {}",
                a["call"],
                brief(a),
                brief(b)
            ));
        }
    }
    (ours.len() != theirs.len()).then(|| {
        format!(
            "{} summariser inputs in the engine's run, {} in the library's",
            ours.len(),
            theirs.len()
        )
    })
}
