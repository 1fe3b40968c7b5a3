//! Inspect as a workspace: the library and one session, each view of a session with its own
//! link, opened from its link and from its button, and Back returning to the view before.

use summary_memory::engine::session::{export, synthetic};

use crate::harness::{Browser, TempDir};
use crate::pages::inspect::InspectPage;
use crate::pages::query::{self, Field, Until, testid};

/// Each view, with a hook only that view draws.
const VIEWS: [(&str, &str); 6] = [
    ("archive", "message"),
    ("editions", "edition"),
    ("probes", "probes"),
    ("replay", "replay-calls"),
    ("ab", "ab"),
    ("export", "export"),
];

/// Waits until view `slug` is the one shown, holding `hook`, and the address bar says so.
async fn wait_shown(browser: &Browser, slug: &str, hook: &str) {
    let panel = testid(&format!("view-{slug}"));
    query::wait(
        browser,
        &panel,
        Until::Is(Field::prop("hidden"), &serde_json::json!(false)),
        &format!("the {slug} view shown"),
    )
    .await;
    query::wait(
        browser,
        &format!("{panel} {}", testid(hook)),
        Until::Present,
        &format!("the {slug} view's {hook}"),
    )
    .await;
    let shown: Vec<bool> =
        query::all(browser, ".session-view", Field::matches(":not([hidden])")).await;
    assert_eq!(
        shown.iter().filter(|s| **s).count(),
        1,
        "one view at a time ({slug})"
    );
    let selected = query::text(
        browser,
        "[data-testid^='session-view-'][aria-selected='true']",
    )
    .await;
    assert!(!selected.is_empty(), "the {slug} button is marked selected");
    if slug == "archive" {
        browser
            .wait_search_excludes("view=", "the first view left out of the link")
            .await;
    } else {
        browser
            .wait_search_includes(&format!("view={slug}"), &format!("the link names {slug}"))
            .await;
    }
}

#[tokio::test]
async fn each_view_of_a_session_opens_from_its_button_and_its_link_and_back_returns_to_the_one_before()
 {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let inspect = InspectPage::open_counted(&browser).await;
    inspect
        .import(&dir.write("twelve.json", &export(&synthetic(12), 5, "0.1.0")))
        .await;
    inspect.wait_sessions(1).await;
    // The import opened the session at its archive, and the link names it.
    wait_shown(&browser, "archive", "message").await;
    let search = browser.search().await;
    let id = search
        .split('&')
        .find_map(|p| p.strip_prefix("session="))
        .unwrap_or_else(|| panic!("the link names the open session: {search}"))
        .to_owned();
    assert_eq!(
        browser.text_of("session-title").await,
        "Budget coach, 12 turns"
    );

    // From each view's button, one after another; Back walks them in reverse.
    for (slug, hook) in VIEWS {
        inspect.show(slug).await;
        wait_shown(&browser, slug, hook).await;
    }
    for (slug, hook) in VIEWS.iter().rev().skip(1) {
        browser.client.back().await.unwrap();
        wait_shown(&browser, slug, hook).await;
    }
    // Back once more leaves the session for the library it was opened from; Forward returns.
    browser.client.back().await.unwrap();
    browser.wait_testid("session-item").await;
    browser
        .wait_gone("session-detail", "the session closed")
        .await;
    browser.client.forward().await.unwrap();
    wait_shown(&browser, "archive", "message").await;

    // "All sessions" is a place too: Back opens the session again at the view it left.
    inspect.show("editions").await;
    inspect.library().await;
    browser
        .wait_search_excludes("session=", "the library's link")
        .await;
    browser.client.back().await.unwrap();
    wait_shown(&browser, "editions", "edition").await;

    // Each view's link, opened in a fresh load, shows that view of that session.
    for (slug, hook) in VIEWS {
        browser
            .open(&format!("?tab=inspect&session={id}&view={slug}"))
            .await;
        wait_shown(&browser, slug, hook).await;
        assert_eq!(
            browser.text_of("session-title").await,
            "Budget coach, 12 turns"
        );
    }

    // A link to a session this browser does not hold says so, and leads back to the library.
    browser
        .open("?tab=inspect&session=gone-1&view=probes")
        .await;
    let missing = browser.text_of("session-missing").await;
    assert!(
        missing.contains("No session \u{201c}gone-1\u{201d} is kept in this browser"),
        "{missing}"
    );
    browser.click_testid("session-close").await;
    browser.wait_testid("session-item").await;
    browser.close().await;
}

#[tokio::test]
async fn the_library_draws_no_empty_parts_and_a_session_without_a_system_prompt_shows_no_heading_for_one()
 {
    let browser = Browser::new().await;
    let inspect = InspectPage::open_counted(&browser).await;
    // An empty library: no corpus comparison, no session list rows, a line saying so.
    browser.wait_testid("import-file").await;
    assert!(
        browser.is_absent("corpus").await,
        "no corpus comparison of nothing"
    );
    // A pasted transcript has no system prompt: the archive shows no empty heading for one.
    inspect
        .paste(r#"[{"role": "user", "content": "Hello there"}, {"role": "assistant", "content": "Hi."}]"#)
        .await;
    inspect.wait_sessions(1).await;
    inspect.show("archive").await;
    browser.wait_count("message", 2, "both messages").await;
    let archive = query::text(&browser, &testid("view-archive")).await;
    assert!(!archive.contains("System prompt"), "{archive}");
    // Its editions view says what it lacks instead of drawing an empty list.
    inspect.show("editions").await;
    let needs = browser.text_of("view-needs").await;
    assert!(needs.starts_with("No summary was written"), "{needs}");
    // The library, once it holds a session, offers the corpus comparison.
    inspect.library().await;
    browser.wait_testid("corpus").await;
    browser.close().await;
}

#[tokio::test]
async fn the_welcome_and_the_lessons_last_step_lead_into_inspect_and_back_returns() {
    let browser = Browser::new().await;
    browser.open("").await;
    browser.click_testid("welcome-inspect").await;
    browser.wait_testid("panel-inspect").await;
    browser
        .wait_search_includes("tab=inspect", "Inspect's link")
        .await;
    browser.client.back().await.unwrap();
    browser.wait_testid("welcome").await;

    browser.open("?lesson=9").await;
    browser.click_testid("lesson-inspect").await;
    browser.wait_testid("panel-inspect").await;
    browser.wait_gone("lesson", "the lesson closed").await;
    browser
        .wait_search_excludes("lesson=", "the lesson left the link")
        .await;
    browser.close().await;
}
