//! The parts of the app loaded on first use (docs/size.md): the lesson and the demos fetch none of
//! them, each other tab fetches its own the first time it opens, and a module that cannot be
//! fetched says so in the tab's place and loads on Retry once it can. The policy exporters are a
//! module too, fetched when "Export policy" first opens.

use summary_memory::route::LESSON_STEPS;

use crate::harness::{Browser, StoppableApp, free_port, pause};
use crate::pages::chat::{ChatPage, Setup};
use crate::pages::lesson::LessonPage;
use crate::pages::tokens::TokensPage;

/// Every resource the page itself requested, as paths (what the service worker fetched for its
/// own cache is not the page's and is not listed).
async fn page_requests(browser: &Browser) -> Vec<String> {
    browser
        .read("performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)")
        .await
}

/// What a first visit on the lesson's path may download, brotli, the page included.
const FIRST_VISIT_BROTLI: u64 = 800_000;

/// The vocabulary files among the page's requests.
fn vocabularies_in(requests: &[String]) -> Vec<&String> {
    requests
        .iter()
        .filter(|path| path.ends_with(".smv"))
        .collect()
}

/// Plays `?demo=<demo>` to its end on a fresh page and says what the page requested: the
/// demo's counts come from the table computed at build time, so neither a module nor the
/// vocabulary is among them, even a moment later (a count the table missed would ask for the
/// vocabulary after the next frame).
async fn play_demo(browser: &Browser, demo: &str, folded: usize) -> Vec<String> {
    let chat = ChatPage::new(browser);
    browser.open(&format!("?demo={demo}")).await;
    chat.step(3).await;
    browser.click_testid("play-all").await;
    chat.wait_in_state("folded", folded, "the demo played to its end")
        .await;
    browser.click_testid("tab-editions").await;
    browser.wait_testid("panel-editions").await;
    browser.click_testid("tab-tuner").await;
    browser.wait_testid("panel-tuner").await;
    pause(1500).await;
    page_requests(browser).await
}

/// The corpus worker's files (its loader and its wasm) among the page's requests.
fn workers_in(requests: &[String]) -> Vec<&String> {
    requests
        .iter()
        .filter(|path| path.contains("corpus_worker"))
        .collect()
}

/// The token counter's module among the page's requests.
fn counters_in(requests: &[String]) -> Vec<&String> {
    requests
        .iter()
        .filter(|path| path.starts_with("/split_counter-") && path.ends_with(".wasm"))
        .collect()
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
    pause(1500).await;
    let requests = page_requests(&browser).await;
    // For docs/size.md: the bytes of the files the lesson's path requested, brotli where the
    // build wrote a brotli copy (what the server sends), else raw.
    let dist = crate::harness::dist_dir();
    let (mut raw, mut brotli) = (0, 0);
    let once: std::collections::BTreeSet<&String> = requests.iter().collect();
    for path in std::iter::once(&"/".to_owned()).chain(once) {
        let file = dist.join(path.trim_start_matches('/'));
        let file = if path == "/" {
            dist.join("index.html")
        } else {
            file
        };
        let Ok(original) = std::fs::metadata(&file) else {
            continue;
        };
        let br = std::fs::metadata(format!("{}.br", file.display()));
        raw += original.len();
        brotli += br.map_or(original.len(), |m| m.len());
        println!("  {path}");
    }
    println!("the lesson's path requested {raw} bytes raw, {brotli} brotli (the page included)");
    // Issue #37's goal: the welcome, the lesson and the demos are interactive after 0.8 MB.
    assert!(
        brotli <= FIRST_VISIT_BROTLI,
        "the lesson's path is {brotli} bytes brotli, over {FIRST_VISIT_BROTLI} (docs/size.md; a \
         debug dist is far over it: build with `trunk build --release --offline`)"
    );
    assert!(
        modules_in(&requests).is_empty(),
        "the lesson fetched modules: {requests:?}"
    );
    assert!(
        vocabularies_in(&requests).is_empty(),
        "the lesson fetched a vocabulary: {requests:?}"
    );
    assert!(
        workers_in(&requests).is_empty(),
        "the lesson fetched the corpus worker: {requests:?}"
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
        if tab == "tokens" {
            // Opening Tokens is what first needs the vocabulary here: it is fetched, once, and
            // with it the counter's module.
            browser.wait_vocabulary().await;
            let requests = page_requests(&browser).await;
            assert_eq!(vocabularies_in(&requests).len(), 1, "{requests:?}");
            assert_eq!(counters_in(&requests).len(), 1, "{requests:?}");
        }
    }
    // The exporters are a module of their own: the Tuner, in the first load, shows the button,
    // and opening the panel fetches them, once.
    browser.click_testid("tab-tuner").await;
    browser.click_testid("export-policy").await;
    browser.wait_testid("export-code").await;
    let exporters = |requests: &[String]| {
        requests
            .iter()
            .filter(|path| path.starts_with("/split_export-") && path.ends_with(".wasm"))
            .count()
    };
    assert_eq!(exporters(&page_requests(&browser).await), 1);
    browser.click_testid("export-policy").await;
    browser.click_testid("export-policy").await;
    browser.wait_testid("export-code").await;
    assert_eq!(exporters(&page_requests(&browser).await), 1);
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
async fn both_demos_play_with_no_vocabulary_and_opening_tokens_then_fetches_it() {
    let app = StoppableApp::start();
    let browser = Browser::new().await;
    browser.client.goto(&app.url).await.unwrap();
    for (demo, folded) in [("fincoach", 8), ("drift", 12)] {
        let requests = play_demo(&browser, demo, folded).await;
        assert!(
            vocabularies_in(&requests).is_empty(),
            "{demo} fetched a vocabulary: {requests:?}"
        );
        assert!(
            modules_in(&requests).is_empty(),
            "{demo} fetched a module: {requests:?}"
        );
        assert!(
            workers_in(&requests).is_empty(),
            "{demo} fetched the corpus worker: {requests:?}"
        );
        // Its counts were exact all along: no note says they are estimates.
        browser.click_testid("tab-chat").await;
        browser.wait_testid("panel-chat").await;
        assert!(browser.is_absent("token-estimate-note").await, "{demo}");
    }
    browser.click_testid("tab-tokens").await;
    browser.wait_testid("panel-tokens").await;
    browser.wait_vocabulary().await;
    let requests = page_requests(&browser).await;
    assert_eq!(vocabularies_in(&requests).len(), 1, "{requests:?}");
    browser.close().await;
}

#[tokio::test]
async fn a_module_that_cannot_be_fetched_says_so_and_retry_loads_it_once_it_can() {
    // The Inspect module fails as it does for a visitor offline before it was ever fetched: the
    // browser refuses the request (Chromium's request blocking), on the first visit, before the
    // service worker holds anything.
    let browser = Browser::new().await;
    browser.block_urls(&["*split_inspect-*"]).await;
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
    browser.block_urls(&[]).await;
    browser.click_testid("module-retry").await;
    browser.wait_testid("panel-inspect").await;
    browser
        .wait_gone("module-failed", "the failure to go once the module loaded")
        .await;
    browser.close().await;
}

#[tokio::test]
async fn exporters_that_cannot_be_fetched_say_so_in_the_panels_place_and_load_on_retry() {
    let browser = Browser::new().await;
    browser.block_urls(&["*split_export-*"]).await;
    browser.open("?tab=tuner").await;
    browser.click_testid("export-policy").await;
    let failed = browser.wait_testid("module-failed").await;
    assert_eq!(
        failed.attr("data-module").await.unwrap().as_deref(),
        Some("export")
    );
    let text = browser.text_of("module-failed").await;
    assert!(
        text.starts_with("The exporters could not be loaded"),
        "{text}"
    );
    // The Tuner goes on working around it.
    assert!(browser.is_absent("export-code").await);
    browser.wait_testid("panel-tuner").await;

    browser.block_urls(&[]).await;
    browser.click_testid("module-retry").await;
    browser.wait_testid("export-code").await;
    browser
        .wait_gone(
            "module-failed",
            "the failure to go once the exporters loaded",
        )
        .await;
    browser.close().await;
}

#[tokio::test]
async fn typing_in_the_chat_box_fetches_the_counter_module_once_with_the_vocabulary() {
    // Nothing answers at this port: typing needs no model, only the counter.
    let base_url = format!("http://127.0.0.1:{}/v1", free_port());
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&base_url)).await;
    pause(500).await;
    let requests = page_requests(&browser).await;
    assert!(counters_in(&requests).is_empty(), "{requests:?}");
    assert!(vocabularies_in(&requests).is_empty(), "{requests:?}");
    chat.input()
        .await
        .send_keys("How many tokens")
        .await
        .unwrap();
    browser.wait_vocabulary().await;
    chat.input().await.send_keys(" is this?").await.unwrap();
    pause(500).await;
    let requests = page_requests(&browser).await;
    assert_eq!(counters_in(&requests).len(), 1, "{requests:?}");
    assert_eq!(vocabularies_in(&requests).len(), 1, "{requests:?}");
    // The counts the page shows are exact: no note says they are estimates.
    assert!(browser.is_absent("token-estimate-note").await);
    browser.close().await;
}

#[tokio::test]
async fn a_counter_module_that_cannot_be_fetched_fails_the_load_and_try_again_loads_it() {
    // The counter's module refused as it is for a visitor offline before it was ever fetched:
    // the vocabulary arrives, but nothing can build it, so counts are estimates marked "≈" and
    // Tokens says the load failed and offers Try again, as for a vocabulary that cannot be had.
    let browser = Browser::new().await;
    browser.block_urls(&["*split_counter-*"]).await;
    browser.open("?tab=tokens").await;
    browser.wait_testid("token-count").await;
    let tokens = TokensPage::new(&browser);
    tokens
        .wait_estimate("the count to become an estimate")
        .await;
    tokens.wait_failures("o200k_base", 1).await;
    let message = tokens.failure().await;
    assert!(
        message.contains("could not load the o200k_base vocabulary")
            && message.contains("the token counter's module could not be fetched"),
        "{message}"
    );

    // Online again: Try again fetches the module, and the counts become exact.
    browser.block_urls(&[]).await;
    browser.click_testid("vocab-retry").await;
    browser.wait_vocabulary().await;
    tokens
        .wait_state("exact", "the count to become exact once the module loaded")
        .await;
    let requests = page_requests(&browser).await;
    assert!(!counters_in(&requests).is_empty(), "{requests:?}");
    assert!(browser.is_absent("vocab-retry").await);
    browser.close().await;
}
