//! Asking the browser to keep the library (`navigator.storage.persist()`): Settings says what it
//! answered and the space used and free, and a large library that the browser may evict gets a
//! reminder to export, in Settings and in Inspect. The browser's answer is planted, so that both
//! answers are tested whatever this Chromium would decide from its own heuristics.

use serde_json::json;
use summary_memory::engine::session::{export, export_all, synthetic};

use crate::harness::{Browser, TempDir};
use crate::pages::inspect::InspectPage;
use crate::pages::query::{self, Field, Until};
use crate::sessions::played;

/// A browser whose `navigator.storage` answers `persist()` with `granted` (and says the data is
/// kept once it has been granted), counting the requests in `window.__persistAsked`.
async fn browser_that_answers(granted: bool) -> Browser {
    let browser = Browser::new().await;
    browser
        .before_every_page(&format!(
            "(() => {{
                 const granted = {granted};
                 let asked = 0;
                 StorageManager.prototype.persisted = function () {{
                     return Promise.resolve(asked > 0 && granted);
                 }};
                 StorageManager.prototype.persist = function () {{
                     asked += 1;
                     window.__persistAsked = asked;
                     return Promise.resolve(granted);
                 }};
             }})()"
        ))
        .await;
    browser
}

async fn wait_answer(browser: &Browser, state: &str) -> String {
    let state = json!(state);
    query::wait(
        browser,
        "[data-testid='storage-persist']",
        Until::Is(Field::data("state"), &state),
        "the browser's answer in Settings",
    )
    .await;
    browser.text_of("storage-persist").await
}

#[tokio::test]
async fn the_browser_is_asked_to_keep_the_library_once_it_holds_a_session() {
    let browser = browser_that_answers(true).await;
    browser.open("?tab=settings").await;
    let before = wait_answer(&browser, "not-asked").await;
    assert!(before.contains("not been asked"), "{before}");
    let asked: u64 = browser.read("window.__persistAsked ?? 0").await;
    assert_eq!(asked, 0, "an empty library is not worth asking for");

    let dir = TempDir::new();
    let path = dir.write("aarav.json", &export(&played(), 5, "0.1.0"));
    browser.click_testid("tab-inspect").await;
    let inspect = InspectPage::new(&browser);
    inspect.import(&path).await;
    inspect.wait_sessions(1).await;
    browser.click_testid("tab-settings").await;
    let after = wait_answer(&browser, "granted").await;
    assert!(after.contains("keeps this site's data"), "{after}");
    assert!(after.contains("used") && after.contains("free"), "{after}");
    let asked: u64 = browser.read("window.__persistAsked ?? 0").await;
    assert_eq!(asked, 1, "asked once");
    assert!(browser.is_absent("persist-reminder").await);
    browser.close().await;
}

#[tokio::test]
async fn a_large_library_the_browser_may_evict_gets_a_reminder_to_export() {
    let browser = browser_that_answers(false).await;
    let dir = TempDir::new();
    let all: Vec<_> = (0..20)
        .map(|n| {
            let mut session = synthetic(2);
            session.name = format!("Conversation {n:02}");
            session
        })
        .collect();
    let path = dir.write("twenty.json", &export_all(&all, 5, "0.1.0"));
    let inspect = InspectPage::open(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(20).await;
    inspect.library().await;
    let reminder = browser.wait_testid("persist-reminder").await;
    let text = reminder.text().await.unwrap();
    assert!(text.contains("20 sessions"), "{text}");
    browser.wait_testid("persist-export").await;
    browser.click_testid("tab-settings").await;
    let answer = wait_answer(&browser, "refused").await;
    assert!(answer.contains("may clear"), "{answer}");
    browser.wait_testid("persist-reminder").await;
    browser.close().await;
}
