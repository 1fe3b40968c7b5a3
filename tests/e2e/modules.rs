//! The parts of the app loaded on first use (docs/size.md): the lesson and the demos fetch none of
//! them, each other tab fetches its own the first time it opens, and a module that cannot be
//! fetched says so in the tab's place and loads on Retry once it can.

use serde_json::json;
use summary_memory::route::LESSON_STEPS;

use crate::harness::{Browser, StoppableApp};
use crate::pages::lesson::LessonPage;

/// Every resource the page itself requested, as paths (what the service worker fetched for its
/// own cache is not the page's and is not listed).
async fn page_requests(browser: &Browser) -> Vec<String> {
    browser
        .read("performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)")
        .await
}

fn modules_in(requests: &[String]) -> Vec<&String> {
    requests
        .iter()
        .filter(|path| path.contains("/split_") || path.contains("/chunk_"))
        .collect()
}

#[tokio::test]
async fn the_lesson_and_the_demos_fetch_no_module_and_each_other_tab_fetches_its_own() {
    let app = StoppableApp::start();
    let browser = Browser::new().await;
    browser.client.goto(&app.url).await.unwrap();
    let lesson = LessonPage::new(&browser);
    lesson.start().await;
    for step in 2..=LESSON_STEPS {
        lesson.next().await;
        lesson.wait_step(step).await;
    }
    lesson.close().await;
    browser.click_testid("tab-editions").await;
    browser.wait_testid("panel-editions").await;
    let requests = page_requests(&browser).await;
    assert!(
        modules_in(&requests).is_empty(),
        "the lesson fetched modules: {requests:?}"
    );

    for (tab, module) in [
        ("tokens", "split_tokens-"),
        ("inspect", "split_inspect-"),
        ("settings", "split_settings-"),
    ] {
        browser.click_testid(&format!("tab-{tab}")).await;
        browser.wait_testid(&format!("panel-{tab}")).await;
        let requests = page_requests(&browser).await;
        let fetched: Vec<_> = requests
            .iter()
            .filter(|path| path.starts_with(&format!("/{module}")) && path.ends_with(".wasm"))
            .collect();
        assert_eq!(fetched.len(), 1, "{tab}: {requests:?}");
    }
    // A module is fetched once: back to Inspect, nothing new.
    let before = page_requests(&browser).await.len();
    browser.click_testid("tab-chat").await;
    browser.click_testid("tab-inspect").await;
    browser.wait_testid("panel-inspect").await;
    let requests = page_requests(&browser).await;
    assert_eq!(
        modules_in(&requests[before..]).len(),
        0,
        "{:?}",
        &requests[before..]
    );
    browser.close().await;
}

#[tokio::test]
async fn a_module_that_cannot_be_fetched_says_so_and_retry_loads_it_once_it_can() {
    // The Inspect module fails as it does for a visitor offline before it was ever fetched: the
    // browser refuses the request (Chromium's request blocking), on the first visit, before the
    // service worker holds anything.
    let browser = Browser::new().await;
    browser.devtools("Network.enable", json!({})).await;
    browser
        .devtools(
            "Network.setBlockedURLs",
            json!({ "urls": ["*split_inspect-*"] }),
        )
        .await;
    browser.open("?tab=inspect").await;
    let failed = browser.wait_testid("module-failed").await;
    assert_eq!(
        failed.attr("data-module").await.unwrap().as_deref(),
        Some("inspect")
    );
    assert_eq!(failed.attr("role").await.unwrap().as_deref(), Some("alert"));
    let text = browser.text_of("module-failed").await;
    assert!(text.contains("Inspect could not be loaded"), "{text}");
    assert!(browser.is_absent("panel-inspect").await);
    // The rest of the app works meanwhile, and Inspect still says what failed.
    browser.click_testid("tab-chat").await;
    browser.wait_testid("panel-chat").await;
    browser.click_testid("tab-inspect").await;
    browser.wait_testid("module-failed").await;

    // Online again: Retry fetches it.
    browser
        .devtools("Network.setBlockedURLs", json!({ "urls": [] }))
        .await;
    browser.click_testid("module-retry").await;
    browser.wait_testid("panel-inspect").await;
    browser
        .wait_gone("module-failed", "the failure to go once the module loaded")
        .await;
    browser.close().await;
}
