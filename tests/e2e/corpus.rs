//! The corpus comparison in Inspect: a 1,000-conversation ShareGPT dataset imported, compared
//! under three policies on the pool of workers, with progress, Stop (the progress freezes below
//! the total and the partial table says so), a run to the end, and a CSV equal to the
//! command-line tool's on the same file. That the run never holds the main thread for 50 ms is
//! its own test; all of one import, with a broken JSON line, another.
//!
//! The page's CSV is checked whole against the command-line tool's (`summary-memory-cli
//! compare`, the binary `SM_CLI` names or one built here) on the same file under the same three
//! policies: both number a conversation by its place in the file.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use summary_memory::engine::peers::PEER_PRESETS;

use crate::harness::{Browser, Task, TempDir, pause};
use crate::pages::corpus::CorpusPage;
use crate::pages::inspect::InspectPage;

/// Conversations in the dataset.
const CONVERSATIONS: usize = 1_000;

/// How long a run of the 1,000 conversations may take in the page. The whole end-to-end tier,
/// this run twice included, takes about 4 minutes warm (docs/setup.md); a run still going after
/// this is a fault to see, not a wait to sit out (it was 600 s).
const RUN_PATIENCE: Duration = Duration::from_secs(240);

/// A ShareGPT dataset of `n` conversations of 2 to 13 exchanges, with figures and a rule
/// in them so the offline checks have something to find.
fn dataset(n: usize) -> String {
    let records: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let turns = 2 + i % 12;
            let mut conversation = Vec::new();
            for t in 0..turns {
                conversation.push(serde_json::json!({
                    "from": "human",
                    "value": format!("Conversation {i}, question {t}: my budget is ${} a month and I must never spend over ${} on rent. What now?", 1000 + i * 7 + t, 400 + t * 3),
                }));
                conversation.push(serde_json::json!({
                    "from": "gpt",
                    "value": format!("For conversation {i} at step {t}, keep {}% for savings, review the {} items you listed, and check the rent cap first.", 10 + t % 5, 3 + i % 9),
                }));
            }
            serde_json::json!({ "id": format!("conv-{i:04}"), "conversations": conversation })
        })
        .collect();
    serde_json::to_string(&records).unwrap()
}

/// The command-line tool: `SM_CLI` (`scripts/test.sh` builds it before this tier), or built
/// here with the cargo running the tests, its path read from cargo's own report of what it built.
fn cli() -> &'static Path {
    static CLI: OnceLock<PathBuf> = OnceLock::new();
    CLI.get_or_init(|| {
        if let Some(path) = std::env::var_os("SM_CLI") {
            return PathBuf::from(path);
        }
        let out = Command::new(env!("CARGO"))
            .args([
                "build",
                "-p",
                "summary-memory-cli",
                "--bin",
                "summary-memory-cli",
                "--message-format=json",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stderr(Stdio::inherit())
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "cargo build -p summary-memory-cli failed"
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter(|m| {
                m["reason"] == "compiler-artifact" && m["target"]["name"] == "summary-memory-cli"
            })
            .find_map(|m| m["executable"].as_str().map(PathBuf::from))
            .expect("cargo named the summary-memory-cli executable it built")
    })
}

/// The rows `summary-memory-cli compare` writes for `file` under `policies` (the page's defaults
/// otherwise: its window, o200k_base, the replay on); the tool must read all of it.
pub(crate) async fn cli_rows(file: &Path, policies: &[String]) -> String {
    let (rows, code, stderr) = cli_compare(file, policies).await;
    assert_eq!(code, Some(0), "summary-memory-cli compare failed: {stderr}");
    rows
}

/// How long the tool may take on one file. scripts/test.sh builds it in debug, where 1,000
/// conversations under three policies take about 20 s of CPU (44 s of wall time beside four
/// other builds on the 2-core machine, 2026-12-04): a tool that hangs fails here, named, instead
/// of holding the tier until CI's limit.
const CLI_PATIENCE: Duration = Duration::from_secs(180);

/// The rows `summary-memory-cli compare` writes for `file` under `policies`, its exit status
/// (2: something was skipped, and named on stderr) and its stderr. The tool is killed, and the
/// test fails, past [`CLI_PATIENCE`].
pub(crate) async fn cli_compare(file: &Path, policies: &[String]) -> (String, Option<i32>, String) {
    let out_dir = TempDir::new();
    let rows = out_dir.0.join("rows.csv");
    let mut command = tokio::process::Command::new(cli());
    command.arg("compare").arg(file);
    for policy in policies {
        command.args(["--policy", policy]);
    }
    // Dropped on the timeout below, the child is killed with it.
    command.arg("--rows").arg(&rows).kill_on_drop(true);
    let out = tokio::time::timeout(CLI_PATIENCE, command.output())
        .await
        .unwrap_or_else(|_| {
            panic!(
                "summary-memory-cli compare {} ran past {} s and was killed",
                file.display(),
                CLI_PATIENCE.as_secs()
            )
        })
        .expect("the CLI runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let written = std::fs::read_to_string(&rows)
        .unwrap_or_else(|e| panic!("summary-memory-cli wrote no rows ({e}): {stderr}"));
    (written, out.status.code(), stderr)
}

/// The two CSVs are equal, byte for byte; if not, the first line that differs is shown.
pub(crate) fn same_csv(page: &str, tool: &str) {
    if page != tool {
        let first = page.lines().zip(tool.lines()).find(|(p, t)| p != t);
        panic!(
            "the page's CSV ({} lines) differs from summary-memory-cli's ({} lines); the first line that differs (page, tool): {first:?}",
            page.lines().count(),
            tool.lines().count()
        );
    }
}

#[tokio::test]
async fn a_thousand_conversations_compare_on_the_pool_with_progress_stop_and_the_cores_csv() {
    let text = dataset(CONVERSATIONS);
    let dir = TempDir::new();
    let path = dir.write("sharegpt.json", &text);
    let browser = Browser::new().await;
    let inspect = InspectPage::open_counted(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(CONVERSATIONS).await;

    let corpus = CorpusPage::open(&browser).await;
    let three = vec![
        "yours".to_owned(),
        PEER_PRESETS[0].slug.to_owned(),
        PEER_PRESETS[1].slug.to_owned(),
    ];
    assert_eq!(corpus.ticked().await, three);

    // A run stopped early: the progress freezes below the total, and the table says it is partial.
    corpus.compare().await;
    let first = corpus
        .wait_progress(
            Duration::from_secs(120),
            "the first conversations done",
            |p| p.done > 0,
        )
        .await;
    assert_eq!(first.total, CONVERSATIONS);
    assert_eq!(first.phase, "running", "{first:?}");
    corpus.stop().await;
    let stopped = corpus
        .wait_progress(Duration::from_secs(5), "the run stopped", |p| {
            p.phase == "stopped"
        })
        .await;
    assert!(stopped.done < CONVERSATIONS, "{stopped:?}");
    corpus.wait_table().await;
    pause(1_000).await;
    assert_eq!(
        corpus.progress().await.done,
        stopped.done,
        "the progress froze"
    );
    assert!(
        corpus.partial().await.unwrap().contains(&format!(
            "covers {} of the 1,000 conversations",
            stopped.done
        )),
        "{:?}",
        corpus.partial().await
    );
    assert_eq!(corpus.policies().await, three);

    // A run to the end; the long tasks are printed (their limit is the test below).
    corpus.watch_long_tasks().await;
    corpus.compare().await;
    let done = corpus
        .wait_progress(RUN_PATIENCE, "the run's end", |p| p.phase != "running")
        .await;
    assert_eq!(done.phase, "done", "{done:?}");
    assert_eq!(done.done, CONVERSATIONS);
    println!("corpus e2e: {}", done.text);
    corpus.wait_table().await;
    let long = corpus.long_tasks().await;
    println!("corpus e2e: main-thread long tasks during the run: {long:?}");
    assert_eq!(corpus.partial().await, None);
    assert_eq!(corpus.policies().await, three);
    // Imported once the vocabulary was in, every conversation went with its counts, and the
    // workers kept them rather than counting each message again.
    assert_eq!(corpus.kept().await, Some(CONVERSATIONS));

    let page_csv = corpus.csv().await;
    assert_eq!(page_csv.lines().count(), 1 + 3 * CONVERSATIONS);
    // The tool's CSV of the same file under the same three policies, whole: the source (the
    // file's name), the index (the conversation's place in the file) and every figure.
    let cli_csv = cli_rows(Path::new(&path), &three).await;
    same_csv(&page_csv, &cli_csv);
}

/// `n` conversations as JSON Lines of OpenAI request bodies, one per line, with line `broken`
/// (from 1) not JSON.
fn json_lines(n: usize, broken: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        if i + 1 == broken {
            text.push_str("{\"messages\": [ this line is broken\n");
            continue;
        }
        let mut messages = vec![
            serde_json::json!({"role": "system", "content": "You are a careful budgeting coach."}),
        ];
        for t in 0..(2 + i % 9) {
            messages.push(serde_json::json!({"role": "user", "content": format!("Line {i}, turn {t}: I never want crypto. Rent is ${} and food ${}; move ${} to savings?", 900 + t * 13 + i, 200 + t, 50 + i % 9)}));
            messages.push(serde_json::json!({"role": "assistant", "content": format!("Keep rent at ${} and move ${} into savings. You must keep the emergency fund at ${}.", 900 + t * 13 + i, 50 + i % 9, 3000 + i)}));
        }
        text.push_str(&serde_json::json!({ "messages": messages }).to_string());
        text.push('\n');
    }
    text
}

/// Two files imported; each import picked on its own covers exactly that file's conversations,
/// and its CSV is the tool's on that file. The JSON Lines file's broken line is skipped and
/// named by its line, on the page as by the tool, and the other lines are kept.
#[tokio::test]
async fn all_of_one_import_is_that_files_conversations_and_a_broken_json_line_is_skipped_by_both() {
    let dir = TempDir::new();
    let sharegpt = dir.write("sharegpt.json", &dataset(30));
    let lines = dir.write("corpus.jsonl", &json_lines(12, 5));
    let browser = Browser::new().await;
    let inspect = InspectPage::open_counted(&browser).await;
    inspect.import(&sharegpt).await;
    inspect.wait_sessions(30).await;
    inspect.import(&lines).await;
    inspect.wait_sessions(30 + 11).await;
    let skipped = browser.all_testid("import-skipped").await;
    assert_eq!(skipped.len(), 1);
    let named = skipped[0].text().await.unwrap();
    assert!(named.contains("line 5"), "{named}");
    assert!(named.contains("not valid JSON"), "{named}");

    let corpus = CorpusPage::open(&browser).await;
    let three = corpus.ticked().await;
    let (tool_rows, code, stderr) = cli_compare(Path::new(&lines), &three).await;
    assert_eq!(
        code,
        Some(2),
        "the tool says something was skipped: {stderr}"
    );
    assert!(
        stderr.contains("corpus.jsonl line 5: not valid JSON"),
        "{stderr}"
    );
    let picked = corpus.pick_import("corpus.jsonl").await;
    assert!(
        picked.starts_with("All 11 from corpus.jsonl, imported "),
        "{picked}"
    );
    corpus.compare().await;
    let done = corpus
        .wait_progress(Duration::from_secs(300), "the run's end", |p| {
            p.phase != "running"
        })
        .await;
    assert_eq!((done.phase.as_str(), done.total), ("done", 11), "{done:?}");
    corpus.wait_table().await;
    same_csv(&corpus.csv().await, &tool_rows);

    let picked = corpus.pick_import("sharegpt.json").await;
    assert!(
        picked.starts_with("All 30 from sharegpt.json, imported "),
        "{picked}"
    );
    corpus.compare().await;
    let done = corpus
        .wait_progress(Duration::from_secs(300), "the second run's end", |p| {
            p.phase != "running" && p.total == 30
        })
        .await;
    assert_eq!(done.phase, "done", "{done:?}");
    corpus.wait_table().await;
    same_csv(
        &corpus.csv().await,
        &cli_rows(Path::new(&sharegpt), &three).await,
    );
}

/// Sessions imported while the vocabulary is still on its way are counted with estimates: the
/// library vouches for none of them, so the workers count every message themselves and the CSV
/// is the tool's. Read again from storage once the vocabulary is in (a reload), they are
/// counted exactly, the workers keep those counts, and the CSV is the tool's still.
#[tokio::test]
async fn counts_estimated_before_the_vocabulary_are_counted_by_the_workers_and_exact_ones_kept() {
    const N: usize = 30;
    let dir = TempDir::new();
    let path = dir.write("sharegpt.json", &dataset(N));
    let policies = vec![
        "yours".to_owned(),
        PEER_PRESETS[0].slug.to_owned(),
        PEER_PRESETS[1].slug.to_owned(),
    ];
    let tool = cli_rows(Path::new(&path), &policies).await;
    let server = crate::tokens::HeldVocabulary::start();
    let browser = Browser::new().await;
    let url = format!("{}?tab=inspect", server.url);
    browser.client.goto(&url).await.unwrap();
    let inspect = InspectPage::new(&browser);
    inspect.import(&path).await;
    inspect.wait_sessions(N).await;
    let loaded: bool = browser
        .read("performance.getEntriesByName('sm-vocab-loaded-o200k_base').length > 0")
        .await;
    assert!(
        !loaded,
        "the vocabulary is held until the import is counted"
    );
    server.release();
    inspect.wait_vocabulary().await;

    let run = |kept: usize| {
        let (browser, tool, policies) = (&browser, &tool, &policies);
        async move {
            let corpus = CorpusPage::open(browser).await;
            assert_eq!(corpus.ticked().await, *policies);
            corpus.compare().await;
            let done = corpus
                .wait_progress(Duration::from_secs(120), "the run's end", |p| {
                    p.phase != "running"
                })
                .await;
            assert_eq!((done.phase.as_str(), done.done), ("done", N), "{done:?}");
            corpus.wait_table().await;
            assert_eq!(corpus.kept().await, Some(kept));
            same_csv(&corpus.csv().await, tool);
        }
    };
    // The estimates went unvouched: the workers counted every message.
    run(0).await;
    // A reload reads the sessions from storage once the vocabulary is in: counted exactly,
    // vouched for in o200k_base, kept by the workers.
    browser.client.goto(&url).await.unwrap();
    inspect.wait_sessions(N).await;
    run(N).await;
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

/// A LlamaIndex column counts in cl100k_base: the workers load that vocabulary beside the
/// run's own o200k_base, and the page's CSV is the tool's, which loads both. The workers held
/// only the run's vocabulary and counted that column with the rough estimate.
#[tokio::test]
async fn a_llamaindex_column_counts_in_cl100k_base_in_the_workers_as_the_tool_does() {
    let dir = TempDir::new();
    let path = dir.write("sharegpt.json", &dataset(20));
    let browser = Browser::new().await;
    let inspect = InspectPage::open_counted(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(20).await;
    let corpus = CorpusPage::open(&browser).await;
    corpus.tick("llamaindex-summary-buffer").await;
    let ticked = corpus.ticked().await;
    assert!(
        ticked.iter().any(|p| p == "llamaindex-summary-buffer"),
        "{ticked:?}"
    );
    corpus.compare().await;
    let done = corpus
        .wait_progress(Duration::from_secs(300), "the run's end", |p| {
            p.phase != "running"
        })
        .await;
    assert_eq!((done.phase.as_str(), done.total), ("done", 20), "{done:?}");
    corpus.wait_table().await;
    same_csv(
        &corpus.csv().await,
        &cli_rows(Path::new(&path), &ticked).await,
    );
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

/// The run never holds the main thread for more than 50 ms of its own work, from Compare to
/// the table, right after a large import (whose writes to IndexedDB go on meanwhile).
///
/// A task's own work is its thread time in Chromium's trace: the CPU time the page's main
/// thread spent in it. Its wall time is not the page's to keep: on CI's two cores this tier runs
/// two browsers and a real model beside it, and a task of 20 ms of work can take 51 ms while
/// the thread waits for a core (seen in one fresh-clone run, and not in the next). On failure it
/// shows what took the main thread: each long task beside the pool's User Timing measures
/// (`sm-corpus-*`).
#[tokio::test]
async fn a_corpus_run_never_holds_the_main_thread_for_50_ms() {
    // The limit is the release build's: a debug build's tasks run several times longer (a
    // batch's answer took 12-51 ms in a debug build under load; no task passed 50 ms in
    // release). A debug dist is refused, not skipped: a pass on it would say nothing.
    if let Some(why) = debug_dist(&page_wasm()) {
        panic!(
            "the 50 ms limit holds for a release build, and this dist is a debug one ({why}): build with `trunk build --release --offline`"
        );
    }
    let text = dataset(CONVERSATIONS);
    let dir = TempDir::new();
    let path = dir.write("sharegpt.json", &text);
    let browser = Browser::traced().await;
    let inspect = InspectPage::open_counted(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(CONVERSATIONS).await;
    let corpus = CorpusPage::open(&browser).await;
    corpus.watch_long_tasks().await;
    browser.mark("sm-test-compare").await;
    corpus.compare().await;
    let done = corpus
        .wait_progress(RUN_PATIENCE, "the run's end", |p| p.phase != "running")
        .await;
    assert_eq!(done.phase, "done", "{done:?}");
    corpus.wait_table().await;
    let tasks = browser
        .main_thread_tasks_between("sm-test-compare", "sm-test-compare-end")
        .await;
    // The trace holds the run: its batches' answers are tasks, hundreds of them.
    assert!(
        tasks.len() >= 100,
        "the trace holds only {} main-thread tasks for the run",
        tasks.len()
    );
    let over = over_50_ms(&tasks);
    let untimed = tasks.iter().filter(|t| t.thread_ms.is_none()).count();
    let worked = tasks.iter().map(work).sum::<f64>();
    let longest_wall = tasks.iter().map(|t| t.wall_ms).fold(0.0, f64::max);
    println!(
        "{} main-thread tasks during the run ({untimed} without a thread time), {worked:.0} ms of work in all; the longest took {:.1} ms of work, and {longest_wall:.1} ms of wall time",
        tasks.len(),
        tasks.iter().map(work).fold(0.0, f64::max)
    );
    assert!(
        over.is_empty(),
        "main-thread tasks over 50 ms of the page's own work during the run: {over:?}; the long tasks by wall time, beside the pool's measures: {:#?}",
        corpus.timeline().await
    );
}

/// The page's wasm in the dist the tier serves.
fn page_wasm() -> PathBuf {
    std::fs::read_dir(crate::harness::dist_dir())
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.starts_with("summary-memory-") && name.ends_with("_bg.wasm")
        })
        .expect("the dist holds the page's wasm")
}

/// Why the wasm at `path` is a debug build's, or `None` for a release build's: a debug build
/// keeps its DWARF sections (`.debug_info`, which the release build's wasm-opt never leaves),
/// and is several times over the 2.75 MiB that no release wasm comes near (scripts/vocab.py).
fn debug_dist(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if bytes.windows(11).any(|w| w == b".debug_info") {
        return Some(format!(
            "{} carries DWARF debug sections (.debug_info)",
            path.display()
        ));
    }
    (bytes.len() > 2816 * 1024).then(|| {
        format!(
            "{} is {} bytes, over the 2.75 MiB release guard",
            path.display(),
            bytes.len()
        )
    })
}

/// The debug-dist check itself: the served dist passes or is named, and a wasm that carries
/// `.debug_info`, or one over the guard, is refused, whatever the rest of its bytes.
#[test]
fn a_debug_dist_is_told_from_a_release_one() {
    let dir = TempDir::new();
    let mut module = b"\0asm\x01\0\0\0".to_vec();
    let release = dir.0.join("release_bg.wasm");
    std::fs::write(&release, &module).unwrap();
    assert_eq!(debug_dist(&release), None);
    // A custom section (id 0) named .debug_info, as rustc's debug output holds.
    module.extend([0, 13, 11]);
    module.extend(b".debug_info");
    module.push(0);
    let debug = dir.0.join("debug_bg.wasm");
    std::fs::write(&debug, &module).unwrap();
    assert!(debug_dist(&debug).is_some_and(|why| why.contains(".debug_info")));
    let large = dir.0.join("large_bg.wasm");
    std::fs::write(&large, vec![0u8; 2816 * 1024 + 1]).unwrap();
    assert!(debug_dist(&large).is_some_and(|why| why.contains("over the 2.75 MiB")));
}

/// The 50 ms check's committed self-test: a task of 80 ms of work planted on the page's main
/// thread, among two hundred small ones, must be what the check reports. If the check ever
/// stopped seeing a long task (a trace without thread times, a renamed task event), this fails.
///
/// The check holds a task to its thread time, so the planted task is 80 ms of the thread's own
/// work, not of the clock: on the 2-core machine under load (a load average of 10 to 12) an
/// 80 ms busy loop by the clock got 39 ms of CPU, and loops sized from the loop's measured speed
/// 22 to 68 ms (2026-12-04). So the planted loop counts only the steps between two clock
/// readings under 0.5 ms apart, the time it ran; a longer step is time the thread waited for a
/// core. It stops at 80 ms of that.
#[tokio::test]
async fn the_main_thread_check_fails_on_a_planted_80_ms_task() {
    let browser = Browser::traced().await;
    browser.open("").await;
    browser.mark("sm-test-planted").await;
    let planted: bool = browser
        .read(
            "new Promise((ok) => {
                let left = 200;
                const tick = () => { if (--left > 0) setTimeout(tick, 0); };
                setTimeout(tick, 0);
                setTimeout(() => {
                    let on = 0, last = performance.now();
                    while (on < 80) {
                        const now = performance.now();
                        if (now - last < 0.5) on += now - last;
                        last = now;
                    }
                    setTimeout(() => ok(true), 300);
                }, 20);
            })",
        )
        .await;
    assert!(planted);
    let tasks = browser
        .main_thread_tasks_between("sm-test-planted", "sm-test-planted-end")
        .await;
    let over = over_50_ms(&tasks);
    assert!(
        !over.is_empty(),
        "the check found no task over 50 ms although one of 80 ms was planted; the tasks it read: {} ({:.1} ms of work at most)",
        tasks.len(),
        tasks.iter().map(work).fold(0.0, f64::max)
    );
    println!("the planted task, as the check reports it: {over:?}");
}

/// A task's own work: its thread time, or for a task Chromium gives none (a few, cut by the
/// trace's start or end) its wall time, which is never less than its work.
fn work(t: &Task) -> f64 {
    t.thread_ms.unwrap_or(t.wall_ms)
}

/// Every main-thread task over 50 ms of the page's own work, described; it fails when too many
/// tasks have no thread time for the check to mean anything.
fn over_50_ms(tasks: &[Task]) -> Vec<String> {
    let untimed = tasks.iter().filter(|t| t.thread_ms.is_none()).count();
    assert!(
        untimed * 10 < tasks.len(),
        "Chromium's trace gives no thread time for {untimed} of {} tasks; nothing here can tell the page's own work from waiting",
        tasks.len()
    );
    tasks
        .iter()
        .filter(|t| work(t) > 50.0)
        .map(|t| {
            format!(
                "{:.1} ms of work ({:.1} ms wall) at {:.0} ms",
                work(t),
                t.wall_ms,
                t.at_ms
            )
        })
        .collect()
}
