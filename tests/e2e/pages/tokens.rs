//! Page object: tokens. The count and its state (pending, exact, estimate), the encoding, the
//! text box, the vocabulary's load status and what the page fetched.

use serde_json::json;

use super::query::{self, Field, Until, testid};
use crate::harness::Browser;

/// The Tokens tab of one browser.
#[derive(Clone, Copy)]
pub struct TokensPage<'a> {
    browser: &'a Browser,
}

impl<'a> TokensPage<'a> {
    /// The Tokens tab of a page already open (or loading).
    pub fn new(browser: &'a Browser) -> TokensPage<'a> {
        TokensPage { browser }
    }

    /// Opens the app on the Tokens tab and waits until it has mounted.
    pub async fn open(browser: &'a Browser) -> TokensPage<'a> {
        browser.open("?tab=tokens").await;
        TokensPage { browser }
    }

    /// The count's text and its `data-state`, read in one script so that both come from the
    /// same moment (the vocabulary may finish loading between two separate reads).
    pub async fn count(&self) -> (String, String) {
        self.browser.wait_testid("token-count").await;
        let rows: Vec<(String, Option<String>)> = query::rows(
            self.browser,
            &testid("token-count"),
            &[Field::text(), Field::data("state")],
        )
        .await;
        let (text, state) = rows.into_iter().next().expect("the count");
        (text, state.unwrap_or_default())
    }

    /// Waits until the count's `data-state` is `state` (pending, exact, estimate).
    pub async fn wait_state(&self, state: &str, what: &str) {
        query::wait(
            self.browser,
            &testid("token-count"),
            Until::Is(Field::data("state"), &json!(state)),
            what,
        )
        .await;
    }

    /// Waits until the count is exact and equal to `expect`.
    pub async fn wait_exact(&self, expect: usize, what: &str) {
        let count = testid("token-count");
        let expect = json!(expect.to_string());
        // Both in one script: an exact count of an older text must not pass.
        let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
        loop {
            let rows: Vec<(String, Option<String>)> =
                query::rows(self.browser, &count, &[Field::text(), Field::data("state")]).await;
            if let Some((text, state)) = rows.first()
                && state.as_deref() == Some("exact")
                && json!(text) == expect
            {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "timed out waiting for {what}"
            );
            crate::harness::pause(50).await;
        }
    }

    /// Chooses the encoding `encoding` (its option's value).
    pub async fn choose(&self, encoding: &str) {
        let select = self.browser.wait_testid("tokenizer-encoding").await;
        select.select_by_value(encoding).await.unwrap();
    }

    /// Fills the text box with `n` copies of `text`, built in the page (a megabyte is not sent
    /// over WebDriver), with one `input` event, as a paste would.
    pub async fn paste_repeated(&self, text: &str, n: usize) {
        self.browser.wait_testid("tokenizer-input").await;
        self.browser
            .client
            .execute(
                "const area = document.querySelector(arguments[0]);
                 area.value = arguments[1].repeat(arguments[2]);
                 area.dispatchEvent(new Event('input', { bubbles: true }));",
                vec![json!(testid("tokenizer-input")), json!(text), json!(n)],
            )
            .await
            .unwrap();
    }

    /// Waits until the count is an estimate and reads it: marked "≈", and never 0.
    pub async fn wait_estimate(&self, what: &str) -> u32 {
        self.wait_state("estimate", what).await;
        let (text, _) = self.count().await;
        let value: u32 = text
            .strip_prefix('≈')
            .unwrap_or_else(|| panic!("an estimate is marked with ≈, got {text:?}"))
            .parse()
            .unwrap_or_else(|e| panic!("the estimate {text:?} is not a number: {e}"));
        assert!(value > 0, "an estimate is never 0, got {text:?}");
        value
    }

    /// The vocabulary's load failure as the page announces it: the status, shown as an alert.
    pub async fn failure(&self) -> String {
        let status = self.browser.wait_testid("vocab-status").await;
        assert_eq!(status.attr("role").await.unwrap().as_deref(), Some("alert"));
        status.text().await.unwrap()
    }

    /// The vocabulary's load status as shown (loading, loaded in so many ms, or why it failed).
    pub async fn status(&self) -> String {
        query::text(self.browser, &testid("vocab-status")).await
    }

    /// How many times the page has started to load, or failed to load, the `encoding`
    /// vocabulary (`outcome` is `start`, `loaded` or `failed`: the app's performance marks).
    pub async fn loads(&self, outcome: &str, encoding: &str) -> usize {
        query::marks(self.browser, &format!("sm-vocab-{outcome}-{encoding}")).await
    }

    /// Waits until the page has failed to load the `encoding` vocabulary `n` times.
    pub async fn wait_failures(&self, encoding: &str, n: usize) {
        query::wait_marks(
            self.browser,
            &format!("sm-vocab-failed-{encoding}"),
            n,
            &format!("{n} failed loads of the {encoding} vocabulary"),
        )
        .await;
    }

    /// Every resource the page fetched: its path and its decoded size in bytes.
    pub async fn fetched(&self) -> Vec<(String, u64)> {
        query::value(
            self.browser,
            "performance.getEntriesByType('resource')
               .map((e) => [new URL(e.name).pathname, e.decodedBodySize || 0])",
        )
        .await
    }
}
