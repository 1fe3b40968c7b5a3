//! Our counts must equal an independent implementation's: gpt-tokenizer (JavaScript), pinned in
//! tests/tokenizer-oracle/package-lock.json. The corpus is tests/tokenizer-oracle/corpus.json plus
//! a few long texts built here, which go through the chunked path.
//!
//! The corpus leaves out U+FEFF (the byte-order mark): JavaScript's `\s` includes it and Rust's
//! does not, so gpt-tokenizer splits text around it differently from tiktoken (OpenAI's Python
//! tiktoken runs a Rust regex too, so tiktoken-rs is the one that agrees with OpenAI there).
//!
//! Node.js is required: without it this test fails (it does not skip), because a skipped
//! exactness check would let a wrong count through unnoticed.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};
use summary_memory::tokens::{Count, Encoding, TokenCounter};

#[derive(Serialize, Deserialize)]
struct Entry {
    name: String,
    text: String,
}

fn oracle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tokenizer-oracle")
}

/// The corpus file plus long texts: the whole corpus repeated past the chunk size, 200 KB of
/// base64, and runs of whitespace and punctuation just under the piece limit.
fn corpus() -> Vec<Entry> {
    let path = oracle_dir().join("corpus.json");
    let json = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut entries: Vec<Entry> = serde_json::from_str(&json).expect("corpus.json is valid");
    let joined: String = entries
        .iter()
        .map(|e| e.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let base64: String = (0..200_000u32)
        .map(|i| alphabet[((i.wrapping_mul(2_654_435_761) >> 7) % 64) as usize] as char)
        .collect();
    let generated = [
        (
            "whole corpus, repeated past the chunk size",
            joined.repeat(40),
        ),
        ("200 KB of base64 without whitespace", base64),
        (
            "a newline and 6000 spaces before a word",
            format!("x\n{}word", " ".repeat(6000)),
        ),
        ("7000 equals signs", "=".repeat(7000)),
        (
            "alternating tabs and spaces before digits",
            " \t".repeat(3000) + "2024",
        ),
    ];
    entries.extend(generated.into_iter().map(|(name, text)| Entry {
        name: name.to_owned(),
        text,
    }));
    entries
}

/// Runs a command in the oracle folder, failing the test with `hint` if it cannot start or fails.
fn run(program: &str, args: &[&str], hint: &str) -> Vec<u8> {
    let output = Command::new(program)
        .args(args)
        .current_dir(oracle_dir())
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{program}` ({e}). {hint}"));
    assert!(
        output.status.success(),
        "`{program} {}` failed: {}\n{hint}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

fn oracle_tokens(corpus_path: &Path) -> serde_json::Map<String, serde_json::Value> {
    let node_hint = "Node.js (18 or later) and npm are needed for the exactness test: \
                     install them, e.g. `apt-get install nodejs npm`.";
    run("node", &["--version"], node_hint);
    // Installed by scripts/tools.sh (README command 2 runs it first): no test installs anything.
    assert!(
        oracle_dir().join("node_modules/gpt-tokenizer").is_dir(),
        "the pinned gpt-tokenizer is not installed in tests/tokenizer-oracle/node_modules: run \
         scripts/tools.sh, which installs it"
    );
    let stdout = run(
        "node",
        &["oracle.mjs", corpus_path.to_str().expect("a UTF-8 path")],
        node_hint,
    );
    serde_json::from_slice(&stdout).expect("the oracle prints JSON")
}

#[test]
fn counts_equal_gpt_tokenizer() {
    let corpus = corpus();
    let corpus_path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tokens-exact-corpus.json");
    std::fs::write(&corpus_path, serde_json::to_string(&corpus).unwrap()).unwrap();
    let oracle = oracle_tokens(&corpus_path);

    let counter = TokenCounter::default();
    let mut mismatches = Vec::new();
    for encoding in Encoding::ALL {
        counter
            .load(encoding)
            .expect("the embedded vocabulary parses");
        let expected: Vec<Vec<u32>> = serde_json::from_value(oracle[encoding.name()].clone())
            .expect("one list of token ids per entry");
        assert_eq!(expected.len(), corpus.len());
        for (entry, expected) in corpus.iter().zip(&expected) {
            let count = counter.count_with(encoding, &entry.text);
            let ids: Vec<Option<u32>> = counter
                .tokens_of_with(encoding, &entry.text)
                .expect("loaded")
                .into_iter()
                .map(|span| span.token)
                .collect();
            let expected_ids: Vec<Option<u32>> = expected.iter().copied().map(Some).collect();
            if count != Count::Exact(expected.len() as u32) || ids != expected_ids {
                mismatches.push(format!(
                    "{encoding} \"{}\": ours {count:?}, gpt-tokenizer {} tokens",
                    entry.name,
                    expected.len()
                ));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} counts differ from gpt-tokenizer:\n{}",
        mismatches.len(),
        2 * corpus.len(),
        mismatches.join("\n")
    );
}
