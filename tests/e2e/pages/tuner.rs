//! Page object: tuner. The schedule table and its summariser calls, the parameters' errors and
//! the loop warning, the conversation chosen, and the comparison with other systems' presets
//! (its table, chart and CSV, and how exact each preset is).

use serde_json::json;

use super::query::{self, Field, Until, testid};
use crate::harness::Browser;

/// Where a field's error sits (see [`TunerPage::field_error_layout`]).
#[derive(Debug)]
pub struct FieldErrorLayout {
    pub invalid: Option<String>,
    pub described_by: Option<String>,
    pub id: String,
    pub text: String,
    /// Pixels from the input's bottom edge to the error's top.
    pub gap: f64,
    /// The error and the input overlap sideways.
    pub overlap: bool,
    /// The error is under the Tuner's heading, not above it.
    pub below_heading: bool,
}

/// The Tuner tab of one browser.
#[derive(Clone, Copy)]
pub struct TunerPage<'a> {
    browser: &'a Browser,
}

impl<'a> TunerPage<'a> {
    /// The Tuner tab of a page already open.
    pub fn new(browser: &'a Browser) -> TunerPage<'a> {
        TunerPage { browser }
    }

    /// Clicks the Tuner tab (in the same page).
    pub async fn click_tab(browser: &'a Browser) -> TunerPage<'a> {
        browser.click_testid("tab-tuner").await;
        TunerPage { browser }
    }

    /// (turn, summarised_to, verbatim) for every schedule row on the page.
    pub async fn rows(&self) -> Vec<(u32, u32, String)> {
        let mut out = Vec::new();
        for row in self.browser.all_testid("schedule-row").await {
            let attr = |name: &'static str| {
                let row = row.clone();
                async move { row.attr(name).await.unwrap().unwrap_or_default() }
            };
            out.push((
                attr("data-turn").await.parse().unwrap(),
                attr("data-summarised-to").await.parse().unwrap(),
                attr("data-verbatim").await,
            ));
        }
        out
    }

    /// The summariser calls the schedule counts, as shown.
    pub async fn calls(&self) -> String {
        self.browser
            .wait_testid("summariser-calls")
            .await
            .text()
            .await
            .unwrap()
    }

    /// Waits until the summariser calls shown are `calls`.
    pub async fn wait_calls(&self, calls: &str, what: &str) {
        query::wait(
            self.browser,
            &testid("summariser-calls"),
            Until::Is(Field::text(), &json!(calls)),
            what,
        )
        .await;
    }

    /// Waits until no field says an error, no last valid run stands in, and the table has `n`
    /// rows again.
    pub async fn wait_table_back(&self, n: usize, what: &str) {
        query::wait(
            self.browser,
            &testid("tuner-field-error"),
            Until::Absent,
            what,
        )
        .await;
        query::wait(
            self.browser,
            &testid("tuner-last-valid"),
            Until::Absent,
            what,
        )
        .await;
        query::wait(self.browser, &testid("schedule-row"), Until::Count(n), what).await;
    }

    /// Waits until the field `param` says an error holding `needle`.
    pub async fn wait_field_error(&self, param: &str, needle: &str, what: &str) {
        query::wait(
            self.browser,
            &format!("[data-testid=tuner-field-error][data-param='{param}']"),
            Until::Contains(Field::text(), needle),
            what,
        )
        .await;
    }

    /// How the field `param` and its error sit on the screen, read in one script: the input's
    /// `aria-invalid` and `aria-describedby`, the error's id and text, the gap in pixels from
    /// the input's bottom edge to the error's top, whether they overlap sideways, and the
    /// error's top against the Tuner heading's bottom.
    pub async fn field_error_layout(&self, param: &str) -> FieldErrorLayout {
        let (invalid, described_by, id, text, gap, overlap, below_heading): (
            Option<String>,
            Option<String>,
            String,
            String,
            f64,
            bool,
            bool,
        ) = self
            .browser
            .read(&format!(
                "(() => {{ const input = document.querySelector(\"[data-testid='{param}']\"); \
                 const error = document.querySelector(\"[data-testid=tuner-field-error][data-param='{param}']\"); \
                 const heading = document.querySelector('[data-testid=panel-tuner] h2'); \
                 const a = input.getBoundingClientRect(), b = error.getBoundingClientRect(), h = heading.getBoundingClientRect(); \
                 return [input.getAttribute('aria-invalid'), input.getAttribute('aria-describedby'), error.id, error.innerText, \
                   b.top - a.bottom, b.left < a.right && a.left < b.right, b.top >= h.bottom]; }})()"
            ))
            .await;
        FieldErrorLayout {
            invalid,
            described_by,
            id,
            text,
            gap,
            overlap,
            below_heading,
        }
    }

    /// The comparison chart's lines in drawing order: (class, points, computed
    /// `stroke-dasharray`), read in one script.
    pub async fn compare_line_styles(&self) -> Vec<(String, String, String)> {
        self.browser
            .read(
                "Array.from(document.querySelectorAll('[data-testid=compare-chart] polyline')).map(l => \
                 [l.getAttribute('class'), l.getAttribute('points'), getComputedStyle(l).strokeDasharray])",
            )
            .await
    }

    /// The presets whose checkbox is ticked, in page order.
    pub async fn ticked_presets(&self) -> Vec<String> {
        self.browser
            .read(
                "Array.from(document.querySelectorAll('[data-testid=compare-preset]')).filter(c => c.checked).map(c => c.dataset.preset)",
            )
            .await
    }

    /// The comparison as the CSV file its download link saves.
    pub async fn csv(&self) -> String {
        query::download(self.browser, "compare-csv").await.1
    }

    /// Waits until the link carries every one of `parts` (`trigger=tokens`, say).
    pub async fn wait_link_has(&self, parts: &[&str], what: &str) {
        query::wait_link_has(self.browser, parts, what).await;
    }

    /// For every schedule row, whether a summary fires there.
    pub async fn folds(&self) -> Vec<bool> {
        query::all(
            self.browser,
            &testid("schedule-row"),
            Field::has_class("fires"),
        )
        .await
    }

    /// Waits until the loop warning holds `needle`.
    pub async fn wait_loop_warning(&self, needle: &str, what: &str) {
        query::wait(
            self.browser,
            &testid("loop-warning"),
            Until::Contains(Field::text(), needle),
            what,
        )
        .await;
    }

    /// Waits until no loop warning is shown.
    pub async fn wait_no_loop_warning(&self, what: &str) {
        query::wait(self.browser, &testid("loop-warning"), Until::Absent, what).await;
    }

    /// Adds the preset `slug` to the comparison.
    pub async fn compare(&self, slug: &str) {
        self.browser
            .client
            .find(fantoccini::Locator::Css(&format!(
                "[data-testid=compare-preset][data-preset='{slug}']"
            )))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
    }

    /// What the comparison says about each chosen preset's fidelity, in page order: (slug,
    /// exactness, the `preset-source` text, the whole entry's text).
    pub async fn peer_presets(&self) -> Vec<(String, String, String, String)> {
        query::rows(
            self.browser,
            &testid("peer-preset"),
            &[
                Field::attr("data-preset"),
                Field::attr("data-exactness"),
                Field::text().within("[data-testid=preset-source]"),
                Field::text(),
            ],
        )
        .await
    }

    /// Waits until the comparison shows the fidelity of `n` presets.
    pub async fn wait_peer_presets(&self, n: usize, what: &str) {
        query::wait(self.browser, &testid("peer-preset"), Until::Count(n), what).await;
    }

    /// Waits until the comparison's table has `n` rows.
    pub async fn wait_compare_rows(&self, n: usize, what: &str) {
        query::wait(self.browser, &testid("compare-row"), Until::Count(n), what).await;
    }

    /// How many lines the comparison's chart draws.
    pub async fn compare_lines(&self) -> usize {
        query::count(self.browser, "[data-testid=compare-chart] polyline").await
    }

    /// For each of the comparison chart's lines, how many points it has.
    pub async fn compare_points(&self) -> Vec<usize> {
        let points: Vec<Option<String>> = query::all(
            self.browser,
            "[data-testid=compare-chart] polyline",
            Field::attr("points"),
        )
        .await;
        points
            .into_iter()
            .map(|p| p.unwrap_or_default().split_whitespace().count())
            .collect()
    }

    /// The texts of the cells at `columns` (0 is the policy's name) in `policy`'s row of the
    /// comparison, read in one script.
    pub async fn compare_cells(&self, policy: &str, columns: &[usize]) -> Vec<String> {
        let css = format!("[data-testid=compare-row][data-policy='{policy}']");
        let fields: Vec<String> = columns
            .iter()
            .map(|c| format!(":scope > :nth-child({})", c + 1))
            .collect();
        let fields: Vec<Field<'_>> = fields.iter().map(|c| Field::text().within(c)).collect();
        let mut rows: Vec<Vec<String>> = query::rows(self.browser, &css, &fields).await;
        assert!(!rows.is_empty(), "no comparison row for {policy}");
        rows.swap_remove(0)
    }

    /// Waits until the cell at `column` of every comparison row reads `text`.
    pub async fn wait_every_cell(&self, column: usize, text: &str, what: &str) {
        let cell = format!(":scope > :nth-child({})", column + 1);
        query::wait(
            self.browser,
            &testid("compare-row"),
            Until::Every(Field::text().within(&cell), &json!(text)),
            what,
        )
        .await;
    }

    /// Waits until the conversation `value` is offered with a label that holds `needle`.
    pub async fn wait_conversation_offered(&self, value: &str, needle: &str, what: &str) {
        query::wait(
            self.browser,
            &format!("[data-testid=tuner-conversation] option[value='{value}']"),
            Until::Contains(Field::text(), needle),
            what,
        )
        .await;
    }
}
