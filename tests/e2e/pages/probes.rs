//! Page object: the open session's probes in Inspect. The probe set (generated, typed,
//! removed), the estimate, the run with its progress and Retry, and the matrix read back as
//! (probe, edition, grade) cells and a score per edition.

use serde_json::json;

use super::query::{self, Field, Until, testid};
use crate::harness::{Browser, PATIENCE};

/// One cell of the matrix: the probe's id, the edition's cycle, its `data-grade`.
pub type ShownCell = (String, String, String);

/// The probes section of one browser's open session.
#[derive(Clone, Copy)]
pub struct ProbesPage<'a> {
    browser: &'a Browser,
}

impl<'a> ProbesPage<'a> {
    pub fn new(browser: &'a Browser) -> ProbesPage<'a> {
        ProbesPage { browser }
    }

    /// Shows the open session's Probes view, where everything here is.
    pub async fn here(&self) {
        crate::pages::inspect::show_view(self.browser, "probes").await;
    }

    /// Presses "Add probes from the pinned facts and rules" and waits for `n` probes.
    pub async fn generate(&self, n: usize) {
        self.here().await;
        self.browser.click_testid("probes-generate").await;
        self.wait_probes(n).await;
    }

    /// Waits until the matrix lists `n` probes.
    pub async fn wait_probes(&self, n: usize) {
        self.here().await;
        query::wait_count(self.browser, "probe-row", n).await;
    }

    /// Types a probe (question, archive message counted from 1, the words) and adds it.
    pub async fn add(&self, question: &str, message: u32, quote: &str) {
        self.here().await;
        self.browser.set_field("probe-question", question).await;
        self.browser
            .set_field("probe-message", &message.to_string())
            .await;
        self.browser.set_field("probe-quote", quote).await;
        self.browser.click_testid("probe-add").await;
    }

    /// Removes the probe whose question holds `part`.
    pub async fn remove(&self, part: &str) {
        self.here().await;
        let questions = self.questions().await;
        let index = questions
            .iter()
            .position(|q| q.contains(part))
            .unwrap_or_else(|| panic!("no probe asks {part:?}: {questions:?}"));
        query::click(
            self.browser,
            &format!(
                "[data-testid='probe-row']:nth-of-type({}) [data-testid='probe-remove']",
                index + 1
            ),
        )
        .await;
    }

    /// Changes the first probe's question, as a person does: typed, then the field left.
    pub async fn edit_first(&self, question: &str) {
        self.here().await;
        self.browser.set_field("probe-edit", question).await;
        query::dispatch(self.browser, &testid("probe-edit"), "change").await;
    }

    /// Replaces the prompt that asks the model for probes, as a person does: typed, then left.
    pub async fn edit_writer_prompt(&self, prompt: &str) {
        self.here().await;
        self.browser.set_field("probes-writer-prompt", prompt).await;
        query::dispatch(self.browser, &testid("probes-writer-prompt"), "change").await;
    }

    /// Asks the model to write probes, and waits until it says how many it added (`added`).
    pub async fn write_probes(&self, added: usize) {
        self.here().await;
        self.browser.click_testid("probes-write").await;
        query::wait(
            self.browser,
            &testid("probes-written"),
            Until::Is(Field::data("added"), &json!(added.to_string())),
            "the model's probes",
        )
        .await;
    }

    /// The probes' questions, in the matrix's order.
    pub async fn questions(&self) -> Vec<String> {
        self.here().await;
        query::all(self.browser, &testid("probe-edit"), Field::prop("value")).await
    }

    /// The estimate's calls, read once it is shown.
    pub async fn estimated_calls(&self) -> (u64, u64) {
        self.here().await;
        let estimate = testid("probes-estimate");
        query::wait(
            self.browser,
            &estimate,
            Until::Present,
            "the probes' estimate",
        )
        .await;
        let calls: String = query::one(self.browser, &estimate, Field::data("calls")).await;
        let tokens: String = query::one(self.browser, &estimate, Field::data("tokens")).await;
        (calls.parse().unwrap(), tokens.parse().unwrap())
    }

    /// Presses Run.
    pub async fn run(&self) {
        self.here().await;
        self.browser.click_testid("probes-run").await;
    }

    /// Presses Retry.
    pub async fn retry(&self) {
        self.here().await;
        self.browser.click_testid("probes-retry").await;
    }

    /// Waits until the run is `status` (running, stopped, failed, done).
    pub async fn wait_status(&self, status: &str) {
        self.here().await;
        query::wait_patiently(
            self.browser,
            &testid("probes-progress"),
            Until::Is(Field::data("status"), &json!(status)),
            &format!("the probe run to be {status}"),
            PATIENCE,
        )
        .await;
    }

    /// Waits, up to `patience`, until the run has ended (`done`) or waits for Retry
    /// (`failed`); returns which.
    pub async fn wait_ended(&self, patience: std::time::Duration) -> String {
        self.here().await;
        let started = std::time::Instant::now();
        loop {
            let now: Option<String> = query::one(
                self.browser,
                &testid("probes-progress"),
                Field::data("status"),
            )
            .await;
            if let Some(now) = now.filter(|s| s == "done" || s == "failed") {
                return now;
            }
            assert!(
                started.elapsed() < patience,
                "the probe run neither ended nor failed in {patience:?}"
            );
            crate::harness::pause(250).await;
        }
    }

    /// Every cell of the matrix, in order.
    pub async fn cells(&self) -> Vec<ShownCell> {
        self.here().await;
        query::rows(
            self.browser,
            &testid("probe-cell"),
            &[
                Field::data("probe"),
                Field::data("cycle"),
                Field::data("grade"),
            ],
        )
        .await
    }

    /// Each edition's `data-score` (`None` where nothing is graded), in cycle order.
    pub async fn scores(&self) -> Vec<(String, Option<String>)> {
        self.here().await;
        query::rows(
            self.browser,
            &testid("probe-score"),
            &[Field::data("cycle"), Field::data("score")],
        )
        .await
    }

    /// The answers the matrix holds (each behind its cell's mark).
    pub async fn answers(&self) -> Vec<String> {
        self.here().await;
        query::all(self.browser, &testid("probe-answer"), Field::text()).await
    }

    /// Whether the section says where to connect an endpoint.
    pub async fn unavailable(&self) -> bool {
        self.here().await;
        self.browser.count_testid("probes-unavailable").await == 1
    }
}
