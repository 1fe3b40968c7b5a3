//! The app shell: it mounts cleanly, its tabs follow the URL, and its CSP holds.

use fantoccini::Locator;

use crate::harness::Browser;
use crate::openai_server::TestServer;

const TABS: [(&str, &str); 6] = [
    ("chat", "Chat"),
    ("editions", "Editions"),
    ("tuner", "Tuner"),
    ("tokens", "Tokens"),
    ("inspect", "Inspect"),
    ("settings", "Settings"),
];

#[tokio::test]
async fn the_shell_renders_every_tab_without_console_errors() {
    let browser = Browser::new().await;
    browser.open("").await;
    let title = browser.client.find(Locator::Css("h1")).await.unwrap();
    assert_eq!(title.text().await.unwrap(), "Summary Memory");
    let tabs = browser
        .client
        .find_all(Locator::Css("[role='tab']"))
        .await
        .unwrap();
    let mut labels = Vec::new();
    for tab in &tabs {
        labels.push(tab.text().await.unwrap());
    }
    assert_eq!(labels, TABS.map(|(_, label)| label));
    let selected = browser.wait_testid("tab-chat").await;
    assert_eq!(
        selected.attr("aria-selected").await.unwrap().as_deref(),
        Some("true")
    );
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn the_tab_comes_from_the_query_and_goes_back_into_it() {
    let browser = Browser::new().await;
    for (slug, label) in TABS {
        browser.open(&format!("?tab={slug}")).await;
        let panel = browser.wait_testid(&format!("panel-{slug}")).await;
        let heading = panel.find(Locator::Css("h2")).await.unwrap();
        assert_eq!(heading.text().await.unwrap(), label);
        let tab = browser.wait_testid(&format!("tab-{slug}")).await;
        assert_eq!(
            tab.attr("aria-selected").await.unwrap().as_deref(),
            Some("true")
        );
    }
    // Clicking a tab rewrites the address bar, so the view can be shared as a link.
    browser.open("?tab=chat&max_turns=4").await;
    browser.click_testid("tab-tuner").await;
    browser.wait_testid("panel-tuner").await;
    browser
        .wait_search_is("?tab=tuner&max_turns=4", "the URL to follow the tab")
        .await;
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

#[tokio::test]
async fn a_bad_parameter_shows_param_error_and_the_app_still_works() {
    let browser = Browser::new().await;
    browser.open("?tab=nowhere&keep=many").await;
    let error = browser.wait_testid("param-error").await;
    assert!(error.is_displayed().await.unwrap());
    let text = error.text().await.unwrap();
    assert!(text.contains("?tab=nowhere"), "{text}");
    assert!(text.contains("?keep=many"), "{text}");
    browser.wait_testid("panel-chat").await;
    browser.click_testid("tab-settings").await;
    browser.wait_testid("panel-settings").await;
    browser.close().await;
}

#[tokio::test]
async fn the_csp_blocks_injected_scripts_but_lets_the_page_reach_any_endpoint() {
    let server = TestServer::start().await;
    let browser = Browser::new().await;
    browser.open("").await;
    // An inline script that got into the DOM (say, through a rendered reply) must not run.
    browser.plant_inline_scripts().await;
    assert!(browser.nothing_ran().await, "an injected script ran");
    // connect-src allows any http(s) origin: the user's endpoint is theirs to choose.
    assert_eq!(
        browser.fetch_models_in_page(&server.base_url).await,
        "test-chat,test-summary"
    );
    browser.close().await;
}
