//! Every control on every tab has an accessible name, as the browser itself computes it
//! (WebDriver's Get Computed Label), with a demo played so that messages and editions exist.

use fantoccini::Locator;
use fantoccini::elements::Element;
use fantoccini::wd::WebDriverCompatibleCommand;
use serde_json::Value;

use crate::harness::Browser;
use crate::pages::chat::ChatPage;

/// `GET /session/{id}/element/{id}/computedlabel`, which fantoccini has no method for.
#[derive(Debug)]
struct ComputedLabel(String);

impl WebDriverCompatibleCommand for ComputedLabel {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!(
            "session/{}/element/{}/computedlabel",
            session.unwrap_or_default(),
            self.0
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::GET, None)
    }
}

const CONTROLS: &str = "button, input, select, textarea, a[href]";

/// Every visible control on the page without an accessible name, described by its markup.
async fn unnamed(browser: &Browser) -> Vec<String> {
    let mut out = Vec::new();
    let controls: Vec<Element> = browser
        .client
        .find_all(Locator::Css(CONTROLS))
        .await
        .unwrap();
    assert!(!controls.is_empty());
    for control in controls {
        if !control.is_displayed().await.unwrap_or(false) {
            continue;
        }
        let label = browser
            .client
            .issue_cmd(ComputedLabel(control.element_id().to_string()))
            .await
            .unwrap();
        let named = matches!(&label, Value::String(text) if !text.trim().is_empty());
        if !named {
            let html = control.html(false).await.unwrap_or_default();
            out.push(html.chars().take(200).collect());
        }
    }
    out
}

#[tokio::test]
async fn every_control_on_every_tab_has_an_accessible_name() {
    let browser = Browser::new().await;
    let mut problems = Vec::new();
    // The first visit's welcome, and the guided lesson's bar over a step.
    for (query, testid) in [("", "welcome"), ("?lesson=4", "lesson")] {
        browser.open(query).await;
        browser.wait_testid(testid).await;
        for html in unnamed(&browser).await {
            problems.push(format!("{testid}: {html}"));
        }
    }
    browser.open("?demo=fincoach").await;
    browser.click_testid("play-all").await;
    ChatPage::new(&browser).wait_demo_finished().await;
    for tab in ["chat", "editions", "tuner", "tokens", "inspect", "settings"] {
        browser
            .wait_testid(&format!("tab-{tab}"))
            .await
            .click()
            .await
            .unwrap();
        browser.wait_testid(&format!("panel-{tab}")).await;
        if tab == "editions" {
            // Open one inline editor, so its textarea and buttons are checked too.
            browser.click_testid("edition-edit").await;
            browser.wait_testid("edition-editor").await;
        }
        for html in unnamed(&browser).await {
            problems.push(format!("{tab}: {html}"));
        }
    }
    assert!(
        problems.is_empty(),
        "controls without an accessible name:\n{}",
        problems.join("\n")
    );
    // The check itself catches an unnamed control: an icon-only button added to the page.
    browser.plant_unnamed_button("unnamed").await;
    let found = unnamed(&browser).await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("unnamed"));
    browser.close().await;
}
