//! A library of tens of thousands of sessions stays usable (issue 36): [`SESSIONS`] short
//! conversations imported through the real import (a ChatGPT export generated here at test
//! time, never committed, beside a small file of three others), then the Inspect list scrolled
//! to its middle and its end and a session opened from there, the corpus picker's search by name
//! narrowing the count as a name is typed, and "All of one import" picked with the count it will
//! run shown, each step under the traced check that no main-thread task takes over 50 ms.

use std::time::Duration;

use serde_json::json;

use crate::big_import::chatgpt_export_while;
use crate::harness::{Browser, Task, TempDir};
use crate::pages::corpus::CorpusPage;
use crate::pages::import::ImportProgress;
use crate::pages::inspect::InspectPage;
use crate::pages::query::{self, Field, Until, testid};

/// How many sessions the large file holds.
const SESSIONS: usize = 20_000;
/// Messages per conversation: short ones, so 20,000 sessions are a file of about 25 MB.
const MESSAGES: usize = 2;
/// The longest a main-thread task may take, in milliseconds of the thread's own work.
const LONGEST_MS: f64 = 50.0;

/// The main thread's tasks in the step that began at the mark `step` and ends now (the
/// trace must reach its end, [`Browser::main_thread_tasks_between`]): a line saying how many
/// and the longest, into `lines`, and each one over [`LONGEST_MS`] into `over`.
async fn check_step(
    browser: &Browser,
    step: &str,
    what: &str,
    lines: &mut Vec<String>,
    over: &mut Vec<String>,
) {
    let tasks = browser
        .main_thread_tasks_between(step, &format!("{step}-end"))
        .await;
    let work = |t: &Task| t.thread_ms.unwrap_or(t.wall_ms);
    let longest = tasks.iter().map(work).fold(0.0, f64::max);
    let span = tasks.last().map_or(0.0, |t| t.at_ms);
    lines.push(format!(
        "{what}: {} main-thread tasks over {span:.0} ms, the longest {longest:.1} ms of work",
        tasks.len()
    ));
    over.extend(tasks.iter().filter(|t| work(t) > LONGEST_MS).map(|t| {
        format!(
            "{what}: {:.1} ms of work ({:.1} ms wall) at {:.0} ms",
            work(t),
            t.wall_ms,
            t.at_ms
        )
    }));
}

/// The list's scroll box scrolled to `fraction` of its height.
async fn scroll_to(browser: &Browser, fraction: f64) {
    let _: serde_json::Value = query::value(
        browser,
        &format!(
            "(() => {{ const b = document.querySelector(\"{} [role='list']\");
               b.scrollTop = (b.scrollHeight - b.clientHeight) * {fraction}; return null; }})()",
            testid("session-list")
        ),
    )
    .await;
}

/// Waits until the list draws the row at `index` showing `name`.
async fn wait_row(browser: &Browser, index: usize, name: &str) {
    query::wait(
        browser,
        &format!(
            "{} .vrow[data-index='{index}'] {}",
            testid("session-list"),
            testid("session-name")
        ),
        Until::Is(Field::text(), &json!(name)),
        &format!("row {index} drawn as {name}"),
    )
    .await;
}

/// Waits until the corpus picker says it will run `n` sessions.
async fn wait_count(browser: &Browser, n: usize) {
    query::wait(
        browser,
        &testid("corpus-count"),
        Until::Is(Field::data("count"), &json!(n.to_string())),
        &format!("the corpus picker counting {n} sessions"),
    )
    .await;
}

#[tokio::test]
async fn a_library_of_20000_sessions_scrolls_opens_searches_and_picks_an_import_with_no_long_task()
{
    let dir = TempDir::new();
    let big = std::path::Path::new(&dir.write("conversations.json", "")).to_owned();
    let n = chatgpt_export_while(&big, MESSAGES, |_, n| n < SESSIONS);
    assert_eq!(n, SESSIONS);
    // Three more from another file, named and identified apart, so "all sessions" and "all of
    // one import" count differently.
    let other = std::path::Path::new(&dir.write("other.json", "")).to_owned();
    chatgpt_export_while(&other, MESSAGES, |_, n| n < 3);
    let text = std::fs::read_to_string(&other)
        .unwrap()
        .replace("Conversation ", "Other ")
        .replace("c0ffee00", "beef0000");
    std::fs::write(&other, text).unwrap();

    let browser = Browser::traced().await;
    let inspect = InspectPage::open_counted(&browser).await;
    inspect.import(&other.display().to_string()).await;
    inspect.wait_sessions(3).await;

    let (mut checks, mut over) = (Vec::new(), Vec::new());
    browser.mark("sm-test-library-import").await;
    let started = std::time::Instant::now();
    inspect.import(&big.display().to_string()).await;
    let done = ImportProgress::new(&browser)
        .wait(Duration::from_secs(300), "the import's end", |p| {
            (p.status != "running" && p.read == n as u64) || p.status == "failed"
        })
        .await;
    assert_eq!(
        (done.status.as_str(), done.added),
        ("done", n as u64),
        "{done:?}"
    );
    inspect.wait_sessions(n + 3).await;
    let took = started.elapsed().as_secs_f64();
    println!(
        "bench: page import of {n} short conversations ({:.1} MB): {took:.1} s, {:.0} conversations/s",
        std::fs::metadata(&big).unwrap().len() as f64 / 1e6,
        n as f64 / took
    );
    check_step(
        &browser,
        "sm-test-library-import",
        "importing 20,000 sessions",
        &mut checks,
        &mut over,
    )
    .await;

    // The list, newest first: one import's sessions share their time, so they stand by name.
    browser.mark("sm-test-library-scroll").await;
    scroll_to(&browser, 0.5).await;
    // The rows drawn move to the middle (those from the top stay until the scroll is read).
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    loop {
        let first: Option<usize> = query::value(
            &browser,
            &format!(
                "(() => {{ const r = document.querySelector(\"{} .vrow[data-index]\");
                   return r ? Number(r.dataset.index) : null; }})()",
                testid("session-list")
            ),
        )
        .await;
        if first.is_some_and(|f| (5_000..15_000).contains(&f)) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the middle of the list draws rows from {first:?}"
        );
        crate::harness::pause(50).await;
    }
    scroll_to(&browser, 1.0).await;
    // The three of the other file were imported earlier, so they are listed last.
    wait_row(&browser, n + 2, "Other 00002").await;
    wait_row(&browser, n - 1, &format!("Conversation {:05}", n - 1)).await;

    check_step(
        &browser,
        "sm-test-library-scroll",
        "scrolling the list",
        &mut checks,
        &mut over,
    )
    .await;

    browser.mark("sm-test-library-open").await;
    query::click(
        &browser,
        &format!(
            "{} .vrow[data-index='{}'] {}",
            testid("session-list"),
            n - 1,
            testid("session-name")
        ),
    )
    .await;
    query::wait(
        &browser,
        &testid("session-title"),
        Until::Is(Field::text(), &json!(format!("Conversation {:05}", n - 1))),
        "the session opened",
    )
    .await;
    inspect.library().await;
    inspect.wait_sessions(n + 3).await;
    check_step(
        &browser,
        "sm-test-library-open",
        "opening a session and going back",
        &mut checks,
        &mut over,
    )
    .await;

    let corpus = CorpusPage::open(&browser).await;
    wait_count(&browser, n + 3).await;
    browser.mark("sm-test-library-search").await;
    // Typed a key at a time, each keystroke a new count over every name (about 1.5 ms each).
    // One key per command: chromedriver dispatches a whole string's keys in one task of the
    // page, which a person's typing never is (18 keys took 29.7 to 49.6 ms in one task).
    let field = browser.wait_testid("corpus-filter").await;
    for key in "Conversation 12345".chars() {
        field.send_keys(&key.to_string()).await.unwrap();
    }
    wait_count(&browser, 1).await;
    check_step(
        &browser,
        "sm-test-library-search",
        "typing a name to search by",
        &mut checks,
        &mut over,
    )
    .await;

    browser.mark("sm-test-library-picker").await;
    let label = corpus.pick_import("conversations.json").await;
    assert!(label.contains("20,000"), "{label}");
    wait_count(&browser, 1).await;
    browser.set_field("corpus-filter", "").await;
    wait_count(&browser, n).await;
    corpus.pick_import("other.json").await;
    wait_count(&browser, 3).await;
    check_step(
        &browser,
        "sm-test-library-picker",
        "picking all of one import",
        &mut checks,
        &mut over,
    )
    .await;

    println!("{}", checks.join("\n"));
    assert!(
        over.is_empty(),
        "main-thread tasks over {LONGEST_MS} ms: {over:?}"
    );
    browser.close().await;
}
