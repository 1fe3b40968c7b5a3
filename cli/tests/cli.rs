//! The command as a user runs it: on the repository's fixtures, a directory, a bad file among
//! good ones, a streamed JSON Lines file, shards, thread counts, policy files and replays. The
//! rows it writes are checked against the core run directly on the same files, as the page
//! runs it on its import.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use summary_memory::engine::corpus::{Column, CorpusSettings, Row, measure, rows_csv, sort_rows};
use summary_memory::engine::message::{CountTokens, WordCounter};
use summary_memory::engine::policy::{Policy, Trigger};
use summary_memory::engine::replay::replay_offline;
use summary_memory::engine::session::{self, export_policy};
use summary_memory::tokens::{Encoding, TokenCounter};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_summary-memory-cli"))
        .args(args)
        .output()
        .expect("the command runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The rows the core gives for `files` (each named by its file name), read whole as the page
/// reads an import, under `columns`.
fn core_rows(
    files: &[(String, PathBuf)],
    columns: &[Column],
    settings: &CorpusSettings,
    counter: &dyn CountTokens,
) -> String {
    let mut rows: Vec<Row> = Vec::new();
    for (name, path) in files {
        let read = session::read_unbounded(&std::fs::read(path).unwrap(), counter).unwrap();
        for (i, s) in read.sessions.iter().enumerate() {
            rows.extend(measure(name, i as u32, s, columns, settings, counter).unwrap());
        }
    }
    sort_rows(&mut rows, columns);
    rows_csv(&rows)
}

/// A file of `n` conversations, one per line as OpenAI request bodies, of 1 to 30 turns, with
/// figures and rules for the checks to find.
fn streamed_corpus(path: &Path, n: usize, bad_line: Option<usize>) {
    let mut text = String::new();
    for i in 0..n {
        if Some(i) == bad_line {
            text.push_str("{\"messages\": [ this line is broken\n");
            continue;
        }
        let mut messages = vec![
            serde_json::json!({"role": "system", "content": "You are a careful budgeting coach."}),
        ];
        for t in 0..(1 + i * 7 % 30) {
            messages.push(serde_json::json!({"role": "user", "content": format!(
                "Turn {t}: I never want crypto. I spent {} on rent and {} on food; move {} to savings?",
                900 + t * 13 + i, 200 + t, 50 + i % 9)}));
            messages.push(serde_json::json!({"role": "assistant", "content": format!(
                "Keep rent at {} and move {} into savings. You must keep the emergency fund at {}.",
                900 + t * 13 + i, 50 + i % 9, 3000 + i)}));
        }
        text.push_str(&serde_json::json!({ "messages": messages }).to_string());
        text.push('\n');
        if i % 10 == 3 {
            text.push('\n');
        }
    }
    std::fs::write(path, text).unwrap();
}

fn turns(max_turns: u32, keep: u32) -> Policy {
    Policy::new(Trigger::Turns { max_turns, keep }).unwrap()
}

#[test]
fn compare_on_the_fixture_directory_writes_the_rows_the_core_gives_on_each_file() {
    let dir = tempfile::tempdir().unwrap();
    let (rows, csv) = (dir.path().join("rows.csv"), dir.path().join("table.csv"));
    let transcripts = fixtures().join("transcripts");
    let out = cli(&[
        "compare",
        transcripts.to_str().unwrap(),
        "--policy",
        "yours",
        "--policy",
        "claude-code",
        "--rows",
        rows.to_str().unwrap(),
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(&transcripts)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), e.path())
        })
        .collect();
    files.sort();
    let settings = CorpusSettings::default();
    let columns = vec![
        Column::new("yours", "Yours", Policy::default()).unwrap(),
        Column::preset("claude-code", settings.window).unwrap(),
    ];
    let counter = TokenCounter::new(Encoding::O200kBase);
    counter.load(Encoding::O200kBase).unwrap();
    let expected = core_rows(&files, &columns, &settings, &counter);
    assert_eq!(std::fs::read_to_string(&rows).unwrap(), expected);
    // Every fixture format read: seven files, each with at least one row per policy.
    for (name, _) in &files {
        assert!(expected.contains(&format!("\r\n{name},0,")), "{name}");
    }
    let table = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(table.lines().count(), 3, "a header and one line per policy");
    assert!(String::from_utf8_lossy(&out.stdout).contains("claude-code"));
}

#[test]
fn a_bad_file_among_good_ones_is_named_with_its_reason_and_the_rest_are_compared() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("a-good.json");
    std::fs::copy(fixtures().join("transcripts/openai_chat.json"), &good).unwrap();
    std::fs::write(dir.path().join("b-bad.json"), "{\"messages\": [oops").unwrap();
    std::fs::write(dir.path().join("c-other.json"), "{\"hello\": 1}").unwrap();
    std::fs::write(
        dir.path().join("notes.txt"),
        "not read: not a JSON extension",
    )
    .unwrap();
    let rows = dir.path().join("rows.csv");
    let out = cli(&[
        "compare",
        dir.path().to_str().unwrap(),
        "--policy",
        "yours",
        "--encoding",
        "words",
        "--rows",
        rows.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("b-bad.json: the file is not valid JSON"),
        "{err}"
    );
    assert!(err.contains("c-other.json: unknown file format"), "{err}");
    assert!(!err.contains("notes.txt"), "{err}");
    let rows = std::fs::read_to_string(&rows).unwrap();
    assert_eq!(rows.lines().count(), 2, "{rows}");
    assert!(rows.contains("\r\na-good.json,0,"));
}

#[test]
fn a_streamed_json_lines_file_reads_as_the_page_reads_it_whole_bad_line_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("corpus.jsonl");
    streamed_corpus(&file, 40, Some(17));
    let rows = dir.path().join("rows.csv");
    let out = cli(&[
        "compare",
        file.to_str().unwrap(),
        "--policy",
        "yours",
        "--policy",
        "langchain-summary-buffer",
        "--encoding",
        "words",
        "--window",
        "4000",
        "--rows",
        rows.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    // Line 17's conversation is the 18th line plus the blank lines before it (after 3 and 13).
    let err = stderr(&out);
    assert!(
        err.contains("corpus.jsonl line 20: not valid JSON (column 17)"),
        "{err}"
    );
    let settings = CorpusSettings {
        window: 4000,
        ..CorpusSettings::default()
    };
    let columns = vec![
        Column::new("yours", "Yours", Policy::default()).unwrap(),
        Column::preset("langchain-summary-buffer", 4000).unwrap(),
    ];
    // The page reads the same file whole: it skips the broken line and names it by its line,
    // as the command does, and the rows of the rest are the command's.
    let read = session::read_unbounded(&std::fs::read(&file).unwrap(), &WordCounter).unwrap();
    assert_eq!(
        read.skipped
            .iter()
            .map(|s| s.place.as_str())
            .collect::<Vec<_>>(),
        ["line 20"]
    );
    assert!(
        read.skipped[0]
            .reason
            .starts_with("not valid JSON (column 17)"),
        "{:?}",
        read.skipped
    );
    let expected = core_rows(
        &[("corpus.jsonl".into(), file.clone())],
        &columns,
        &settings,
        &WordCounter,
    );
    let written = std::fs::read_to_string(&rows).unwrap();
    assert_eq!(written, expected);
    assert_eq!(written.lines().count(), 1 + 39 * 2);
    assert!(written.contains(",Imported conversation 39,"));
}

#[test]
fn rows_of_two_shards_concatenated_are_the_rows_of_the_whole_run_and_jobs_do_not_matter() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    streamed_corpus(&a, 30, None);
    streamed_corpus(&b, 25, None);
    let run = |files: &[&Path], jobs: &str, out: &str| -> String {
        let rows = dir.path().join(out);
        let mut args = vec!["compare"];
        args.extend(files.iter().map(|f| f.to_str().unwrap()));
        args.extend([
            "--policy",
            "yours",
            "--policy",
            "openai-cookbook-session",
            "--encoding",
            "words",
            // The dry run only: the property is about splitting the work, and the replay's
            // columns are shown split alike by the core's own tests and the stream test here.
            "--no-replay",
            "--jobs",
            jobs,
            "--rows",
            rows.to_str().unwrap(),
        ]);
        let result = cli(&args);
        assert!(result.status.success(), "{}", stderr(&result));
        std::fs::read_to_string(rows).unwrap()
    };
    let whole = run(&[&a, &b], "2", "whole.csv");
    let first = run(&[&a], "1", "first.csv");
    let second = run(&[&b], "2", "second.csv");
    let (_, second_body) = second.split_once("\r\n").unwrap();
    assert_eq!(format!("{first}{second_body}"), whole);
    assert_eq!(run(&[&a, &b], "1", "one-thread.csv"), whole);
    assert_eq!(whole.lines().count(), 1 + 55 * 2);
}

#[test]
fn a_policy_file_is_read_as_a_session_stores_it_and_a_bad_one_is_named_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("tight.json");
    std::fs::write(&policy, export_policy(&turns(3, 1))).unwrap();
    let corpus = dir.path().join("c.jsonl");
    streamed_corpus(&corpus, 6, None);
    let rows = dir.path().join("rows.csv");
    let out = cli(&[
        "compare",
        corpus.to_str().unwrap(),
        "--policy",
        policy.to_str().unwrap(),
        "--encoding",
        "words",
        "--rows",
        rows.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let expected = core_rows(
        &[("c.jsonl".into(), corpus.clone())],
        &[Column::new("tight", "tight.json", turns(3, 1)).unwrap()],
        &CorpusSettings::default(),
        &WordCounter,
    );
    assert_eq!(std::fs::read_to_string(&rows).unwrap(), expected);

    let bad = dir.path().join("bad.json");
    let mut value: serde_json::Value = serde_json::from_str(&export_policy(&turns(3, 1))).unwrap();
    value["trigger"]["max_turns"] = serde_json::json!("three");
    std::fs::write(&bad, value.to_string()).unwrap();
    let out = cli(&[
        "compare",
        corpus.to_str().unwrap(),
        "--policy",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("bad.json: at trigger.max_turns: invalid type"),
        "{err}"
    );

    let out = cli(&[
        "compare",
        corpus.to_str().unwrap(),
        "--policy",
        "no-such-preset",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no-such-preset: no such file, and not a preset"));
}

#[test]
fn replay_writes_session_files_that_import_back_as_the_replays_the_engine_makes() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("c.jsonl");
    streamed_corpus(&corpus, 5, None);
    let out_dir = dir.path().join("out");
    let out = cli(&[
        "replay",
        corpus.to_str().unwrap(),
        "--policy",
        "yours",
        "--policy",
        "langchain-summary-buffer",
        "--encoding",
        "words",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let read = session::read_unbounded(&std::fs::read(&corpus).unwrap(), &WordCounter).unwrap();
    let columns = [
        Column::new("yours", "Yours", Policy::default()).unwrap(),
        Column::preset("langchain-summary-buffer", CorpusSettings::default().window).unwrap(),
    ];
    let mut editions = 0;
    for (i, original) in read.sessions.iter().enumerate() {
        for column in &columns {
            let file = out_dir.join(format!("c.jsonl-{i}-{}.json", column.id));
            let imported = session::import(&std::fs::read(&file).unwrap(), &WordCounter)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let expected =
                replay_offline(original, column.policy.clone(), &WordCounter, "").unwrap();
            assert_eq!(
                imported.name,
                format!("{} (replayed under {})", original.name, column.label)
            );
            assert_eq!(imported.memory.editions(), expected.memory.editions());
            assert_eq!(
                imported.memory.archive().len(),
                original.memory.archive().len()
            );
            editions += imported.memory.editions().len();
        }
    }
    assert!(editions > 0, "the replays folded something");
    assert_eq!(std::fs::read_dir(&out_dir).unwrap().count(), 10);
}

/// A four-turn conversation whose sizes are easy to count by hand: word counts, the
/// `--encoding words` counter (whitespace-separated words; checked with Python's
/// `len(s.split())`).
const HAND_COUNTED: &str = r#"{"messages": [
    {"role": "system", "content": "You are a budgeting coach."},
    {"role": "user", "content": "My rent is 900 euros."},
    {"role": "assistant", "content": "Noted, rent is 900 euros."},
    {"role": "user", "content": "I earn 4200 a month."},
    {"role": "assistant", "content": "Then save 600 each month."},
    {"role": "user", "content": "Should I buy bonds?"},
    {"role": "assistant", "content": "Yes, buy bonds with 300."},
    {"role": "user", "content": "And the rest?"},
    {"role": "assistant", "content": "Keep it in cash."}
]}"#;

/// The rows' calls and token columns of [`HAND_COUNTED`], against figures worked out by hand,
/// not with `measure` or another run of the command.
///
/// Words: system prompt 5; turn 1 = 5 + 5 = 10, turn 2 = 5 + 5 = 10, turn 3 = 4 + 5 = 9,
/// turn 4 = 3 + 4 = 7. Turn t's chat request is the system prompt, the summary once there is
/// one (the dry run's assumed 150 tokens), the verbatim turns before t and t's user message.
/// A summariser call reads the assumed 100-token instructions, the previous summary (150, a
/// progressive fold) and the turns it folds; each writes the assumed 150.
///
/// "yours" (summarise at 4 turns, keep 2): no fold before turn 4's reply, then turns 1-2 fold:
/// 1 call. Requests: 5+5 = 10, 5+10+5 = 20, 5+20+4 = 29, 5+29+3 = 37: chat 96, largest 37.
/// Summariser in: 100 + 0 + (10 + 10) = 120; out 150.
///
/// "tight.json" (summarise at 2 turns, keep 1): turn 2's reply folds turn 1, turn 3's folds
/// turn 2, turn 4's folds turn 3: 3 calls. Requests: 10, 5+10+5 = 20, 5+150+10+4 = 169,
/// 5+150+9+3 = 167: chat 366, largest 169. Summariser in: (100+0+10) + (100+150+10) +
/// (100+150+9) = 110 + 260 + 259 = 629; out 3 × 150 = 450.
#[test]
fn a_rows_calls_and_tokens_are_the_figures_worked_out_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hand.json");
    std::fs::write(&file, HAND_COUNTED).unwrap();
    let policy = dir.path().join("tight.json");
    std::fs::write(&policy, export_policy(&turns(2, 1))).unwrap();
    let rows = dir.path().join("rows.csv");
    let out = cli(&[
        "compare",
        file.to_str().unwrap(),
        "--policy",
        "yours",
        "--policy",
        policy.to_str().unwrap(),
        "--encoding",
        "words",
        "--no-replay",
        "--rows",
        rows.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let written = std::fs::read_to_string(&rows).unwrap();
    let mut lines = written.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let picked: Vec<Vec<String>> = lines
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            [
                "policy",
                "turns",
                "summariser_calls",
                "chat_tokens",
                "summariser_tokens_in",
                "summariser_tokens_out",
                "largest_request",
            ]
            .iter()
            .map(|name| cells[column(name)].to_owned())
            .collect()
        })
        .collect();
    // policy, turns, calls, chat tokens, summariser in, summariser out, largest request.
    let hand = [
        ["yours", "4", "1", "96", "120", "150", "37"],
        ["tight", "4", "3", "366", "629", "450", "169"],
    ];
    assert_eq!(picked, hand, "{written}");
}
