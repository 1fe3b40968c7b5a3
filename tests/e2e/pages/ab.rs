//! Inspect's "Two summarisers side by side": the sides' fields, the estimate, the run and its
//! progress, and the rows, one `ab-pair` per cycle, each read in one script.

use serde_json::json;

use crate::harness::Browser;
use crate::pages::query::{self, Field, Until, testid};

/// One `ab-pair` as the page shows it.
#[derive(Debug, serde::Deserialize)]
pub struct PairShown {
    pub cycle: u32,
    /// Each side's summary, empty when that side wrote none here.
    pub a: String,
    pub b: String,
    /// Words only in A and only in B, from the diff; `None` without a diff.
    pub only_a: Option<String>,
    pub only_b: Option<String>,
    /// Whether each side's card shows its offline checks (the survival table).
    pub checks_a: bool,
    pub checks_b: bool,
    /// Who wrote each side's edition, as its card says.
    pub writer_a: String,
    pub writer_b: String,
    /// Why a side has no edition here.
    pub note: String,
}

#[derive(Clone, Copy)]
pub struct AbPage<'a> {
    browser: &'a Browser,
}

impl<'a> AbPage<'a> {
    pub fn new(browser: &'a Browser) -> AbPage<'a> {
        AbPage { browser }
    }

    /// Shows the open session's Two summarisers view, where everything here is.
    pub async fn here(&self) {
        crate::pages::inspect::show_view(self.browser, "ab").await;
    }

    /// Names each side's model (A first).
    pub async fn models(&self, a: &str, b: &str) {
        self.here().await;
        self.browser.set_field("ab-a-model", a).await;
        self.browser.set_field("ab-b-model", b).await;
    }

    /// Waits for the estimate and returns its number of calls.
    pub async fn wait_estimate(&self) -> usize {
        self.here().await;
        query::wait(
            self.browser,
            &testid("ab-estimate"),
            Until::Present,
            "the A/B estimate",
        )
        .await;
        let calls: String =
            query::one(self.browser, &testid("ab-estimate"), Field::data("calls")).await;
        calls.parse().unwrap()
    }

    /// The estimate's sentence.
    pub async fn estimate_text(&self) -> String {
        self.here().await;
        query::text(self.browser, &testid("ab-estimate")).await
    }

    /// Waits until the run's progress is `status` (running, stopped, failed, done).
    pub async fn wait_status(&self, status: &str) {
        self.here().await;
        query::wait(
            self.browser,
            &testid("ab-progress"),
            Until::Is(Field::data("status"), &json!(status)),
            &format!("the A/B run to be {status}"),
        )
        .await;
    }

    /// Waits for `n` rows, then reads them all in one script; `within` narrows them to a part
    /// of the page (`ab-stored` for a saved pair's rows).
    pub async fn wait_pairs(&self, within: &str, n: usize) -> Vec<PairShown> {
        self.here().await;
        let rows = format!("{} {}", testid(within), testid("ab-pair"));
        query::wait(
            self.browser,
            &rows,
            Until::Count(n),
            &format!("{n} A/B rows in {within}"),
        )
        .await;
        let script = format!(
            "(() => {{ const q = (e, css) => e.querySelector(css);
             const side = (e, l) => q(e, `[data-testid='ab-card-${{l}}']`);
             const text = (e, css) => q(e, css)?.innerText ?? '';
             return [...document.querySelectorAll({rows:?})].map((e) => ({{
                cycle: Number(e.dataset.cycle),
                a: text(side(e, 'a'), \"[data-testid='ab-summary']\"),
                b: text(side(e, 'b'), \"[data-testid='ab-summary']\"),
                only_a: q(e, \"[data-testid='ab-diff']\")?.dataset.onlyA ?? null,
                only_b: q(e, \"[data-testid='ab-diff']\")?.dataset.onlyB ?? null,
                checks_a: !!q(side(e, 'a'), \"[data-testid='survival']\"),
                checks_b: !!q(side(e, 'b'), \"[data-testid='survival']\"),
                writer_a: text(side(e, 'a'), '.meta'),
                writer_b: text(side(e, 'b'), '.meta'),
                note: text(e, \"[data-testid='ab-note']\"),
             }})); }})()"
        );
        self.browser.read(&script).await
    }

    /// Presses "Save as a pair" and waits for it to say so.
    pub async fn save(&self) {
        self.here().await;
        self.browser.click_testid("ab-save").await;
        self.browser.wait_testid("ab-saved").await;
    }
}
