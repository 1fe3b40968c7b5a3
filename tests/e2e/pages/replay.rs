//! Page object: an open session's Replay view in Inspect: the replay form, its dry run and chart,
//! the chosen turn's request, the live replay's run, and Save. [`InspectPage::replay`] shows the
//! view and hands this over.

use std::time::Duration;

use serde_json::json;

use super::inspect::InspectPage;
use super::query::{self, Field, Until, testid};
use crate::harness::{Browser, PATIENCE};

#[derive(Clone, Copy)]
pub struct ReplayView<'a> {
    browser: &'a Browser,
}

impl<'a> ReplayView<'a> {
    pub fn new(browser: &'a Browser) -> ReplayView<'a> {
        ReplayView { browser }
    }

    /// Waits until the replay's chart draws `n` lines.
    pub async fn wait_lines(&self, n: usize) {
        query::wait(
            self.browser,
            "[data-testid='view-replay'] figure.chart polyline",
            Until::Count(n),
            &format!("the replay's {n} lines"),
        )
        .await;
    }

    /// Types `turn` into the replay's turn field, whose stacked bar then follows.
    pub async fn choose_turn(&self, turn: u32) {
        let input = self.browser.wait_testid("replay-turn").await;
        input.clear().await.unwrap();
        input.send_keys(&turn.to_string()).await.unwrap();
    }

    /// Waits until the stacked bar of one request shows turn `turn`.
    pub async fn wait_last_request_turn(&self, turn: u32) {
        query::wait(
            self.browser,
            &testid("last-request"),
            Until::Is(Field::data("turn"), &json!(turn.to_string())),
            "the stacked bar of the chosen turn",
        )
        .await;
    }

    /// The replay form's trigger kind (its select's value).
    pub async fn trigger(&self) -> Option<String> {
        query::one(
            self.browser,
            &testid("replay-trigger"),
            Field::prop("value"),
        )
        .await
    }

    /// Every replay row's `data-summarised-to`, in one script.
    pub async fn summarised_to(&self) -> Vec<String> {
        query::all(
            self.browser,
            &testid("replay-row"),
            Field::data("summarisedTo"),
        )
        .await
    }

    /// Waits until the dry run counts `calls` summariser calls.
    pub async fn wait_calls(&self, calls: usize, what: &str) {
        query::wait(
            self.browser,
            &testid("replay-calls"),
            Until::Is(Field::text(), &json!(calls.to_string())),
            what,
        )
        .await;
    }

    /// Waits until the replay form's error holds `needle`.
    pub async fn wait_error(&self, needle: &str, what: &str) {
        query::wait(
            self.browser,
            &testid("replay-error"),
            Until::Contains(Field::text(), needle),
            what,
        )
        .await;
    }

    /// Whether every replayed edition says it was rebuilt from the archive.
    pub async fn every_edition_rebuilt(&self) -> bool {
        let rebuilt: Vec<Option<String>> = query::all(
            self.browser,
            &testid("replay-edition"),
            Field::data("rebuilt"),
        )
        .await;
        rebuilt.iter().all(|r| r.as_deref() == Some("true"))
    }

    /// Every replayed edition's text, read in one script.
    pub async fn editions(&self) -> Vec<String> {
        query::all(self.browser, &testid("replay-edition"), Field::text()).await
    }

    /// Saves the replay and checks that the list now holds it, under a name ending in `suffix`.
    pub async fn save(&self, suffix: &str) {
        self.browser.click_testid("replay-save").await;
        self.browser.wait_testid("replay-saved").await;
        InspectPage::new(self.browser).wait_sessions(2).await;
        let names = InspectPage::new(self.browser).listed().await;
        assert!(names.contains(suffix), "the new session is listed: {names}");
    }

    /// Waits until the live replay's progress is `status` (running, stopped, failed, done).
    pub async fn wait_live_status(&self, status: &str) {
        self.wait_live_status_patiently(status, PATIENCE).await;
    }

    /// [`ReplayView::wait_live_status`] with a patience of its own, for a real model.
    pub async fn wait_live_status_patiently(&self, status: &str, patience: Duration) {
        query::wait_patiently(
            self.browser,
            &testid("replay-live-progress"),
            Until::Is(Field::data("status"), &json!(status)),
            &format!("the live replay to be {status}"),
            patience,
        )
        .await;
    }

    /// Whether the replay form is locked (its fields disabled).
    pub async fn form_locked(&self) -> bool {
        query::one::<Option<bool>>(
            self.browser,
            &testid("replay-a"),
            Field::matches(":disabled"),
        )
        .await
        .unwrap_or_else(|| panic!("no replay form"))
    }

    /// The note that says the live replay needs an endpoint, read in one script.
    pub async fn live_unavailable_note(&self) -> String {
        query::text(self.browser, &testid("replay-live-unavailable")).await
    }
}
