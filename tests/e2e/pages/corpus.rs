//! Page object: Inspect's corpus comparison. Opening it, starting and stopping a run, the
//! progress (`corpus-progress`: `data-done`, `data-total`, `data-phase`), the conversations
//! whose counts the workers kept (`corpus`'s `data-kept`), the table's policies,
//! the CSV file `corpus-csv` saves, and the main thread's long tasks while it runs.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::query::{self, testid};
use crate::harness::{Browser, pause};

/// The progress as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpusProgress {
    pub done: usize,
    pub total: usize,
    /// `running`, `stopped`, `done` or `failed`.
    pub phase: String,
    /// The line under the bar.
    pub text: String,
}

/// The corpus comparison in the Inspect tab of one browser.
#[derive(Clone, Copy)]
pub struct CorpusPage<'a> {
    browser: &'a Browser,
}

impl<'a> CorpusPage<'a> {
    /// Opens the comparison's fold in the Inspect tab already on screen (back in the library,
    /// where it is, when a session is open).
    pub async fn open(browser: &'a Browser) -> CorpusPage<'a> {
        crate::pages::inspect::InspectPage::new(browser)
            .library()
            .await;
        query::click(browser, "[data-testid='corpus'] > summary").await;
        browser.wait_testid("corpus-compare").await;
        CorpusPage { browser }
    }

    /// The ids of the policies ticked.
    pub async fn ticked(&self) -> Vec<String> {
        self.browser
            .read(
                "[...document.querySelectorAll(\"[data-testid='corpus-policy']\")]
                    .filter((c) => c.checked).map((c) => c.dataset.policy)",
            )
            .await
    }

    /// Ticks (or unticks) the policy `policy` (a preset's slug, or `yours`).
    pub async fn tick(&self, policy: &str) {
        query::click(
            self.browser,
            &format!("[data-testid='corpus-policy'][data-policy='{policy}']"),
        )
        .await;
    }

    /// Starts watching the main thread's long tasks (PerformanceObserver 'longtask').
    pub async fn watch_long_tasks(&self) {
        let _: Value = self
            .browser
            .read(
                "(() => { window.__smLong = []; new PerformanceObserver((list) => {
                    for (const e of list.getEntries()) window.__smLong.push([e.startTime, e.duration]);
                }).observe({ type: 'longtask' }); return null; })()",
            )
            .await;
    }

    /// The long tasks seen since [`CorpusPage::watch_long_tasks`], in milliseconds.
    pub async fn long_tasks(&self) -> Vec<f64> {
        let tasks: Vec<(f64, f64)> = self.browser.read("window.__smLong || []").await;
        tasks.into_iter().map(|(_, ms)| ms).collect()
    }

    /// What took the main thread: each long task and each of the pool's User Timing measures
    /// (`sm-corpus-*`) over 10 ms, as `name at start: duration` in milliseconds, by start.
    pub async fn timeline(&self) -> Vec<String> {
        let entries: Vec<(String, f64, f64)> = self
            .browser
            .read(
                "[...(window.__smLong || []).map(([at, ms]) => ['longtask', at, ms]),
                  ...performance.getEntriesByType('measure')
                    .filter((m) => m.name.startsWith('sm-corpus') && m.duration > 10)
                    .map((m) => [m.name, m.startTime, m.duration])]
                  .sort((a, b) => a[1] - b[1])",
            )
            .await;
        entries
            .into_iter()
            .map(|(name, at, ms)| format!("{name} at {at:.0}: {ms:.0} ms"))
            .collect()
    }

    /// Picks the import whose label (`corpus-import`'s option) names `file`, and returns the
    /// label.
    pub async fn pick_import(&self, file: &str) -> String {
        let label: Option<String> = self
            .browser
            .read(&format!(
                "(() => {{ const s = document.querySelector(\"{}\");
                   const o = [...s.options].find((o) => o.textContent.includes({file:?}));
                   if (!o) return null;
                   s.value = o.value; s.dispatchEvent(new Event('change', {{ bubbles: true }}));
                   return o.textContent; }})()",
                testid("corpus-import")
            ))
            .await;
        label.unwrap_or_else(|| panic!("no import of {file} is offered"))
    }

    pub async fn compare(&self) {
        self.browser.click_testid("corpus-compare").await;
    }

    pub async fn stop(&self) {
        self.browser.click_testid("corpus-stop").await;
    }

    /// The progress, once it is shown.
    pub async fn progress(&self) -> CorpusProgress {
        self.browser.wait_testid("corpus-progress").await;
        let v: Value = self
            .browser
            .read(&format!(
                "(() => {{ const p = document.querySelector(\"{}\");
                   return [p.dataset.done, p.dataset.total, p.dataset.phase, p.textContent]; }})()",
                testid("corpus-progress")
            ))
            .await;
        let s = |i: usize| v[i].as_str().unwrap_or_default().to_owned();
        CorpusProgress {
            done: s(0).parse().unwrap(),
            total: s(1).parse().unwrap(),
            phase: s(2),
            text: s(3).trim().to_owned(),
        }
    }

    /// Waits, up to `patience`, until `test` holds of the progress, and returns it.
    pub async fn wait_progress(
        &self,
        patience: Duration,
        what: &str,
        test: impl Fn(&CorpusProgress) -> bool,
    ) -> CorpusProgress {
        let deadline = Instant::now() + patience;
        loop {
            let last = self.try_progress().await.ok().flatten();
            if let Some(p) = &last
                && test(p)
            {
                return p.clone();
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; the progress is {last:?}"
            );
            pause(50).await;
        }
    }

    async fn try_progress(&self) -> Result<Option<CorpusProgress>, ()> {
        if self.browser.count_testid("corpus-progress").await == 0 {
            return Ok(None);
        }
        Ok(Some(self.progress().await))
    }

    /// The `data-policy` of each table row, in the table's order.
    pub async fn policies(&self) -> Vec<String> {
        query::all(
            self.browser,
            &testid("corpus-row"),
            query::Field::attr("data-policy"),
        )
        .await
    }

    /// Whether the table says it covers part of the corpus.
    pub async fn partial(&self) -> Option<String> {
        if self.browser.count_testid("corpus-partial").await == 0 {
            return None;
        }
        Some(self.browser.text_of("corpus-partial").await)
    }

    /// The CSV file the download link saves, once the table is shown.
    pub async fn csv(&self) -> String {
        query::download(self.browser, "corpus-csv").await.1
    }

    /// The `corpus` fold's `data-kept`: of the last run's conversations, those handed to the
    /// workers with the library's counts, which they kept (`None` before a run).
    pub async fn kept(&self) -> Option<usize> {
        let kept: Option<String> = self
            .browser
            .read(&format!(
                "document.querySelector(\"{}\").dataset.kept ?? null",
                testid("corpus")
            ))
            .await;
        kept.map(|k| k.parse().unwrap())
    }

    /// Waits until the run's table is shown (its rows summarised after the run ended).
    pub async fn wait_table(&self) {
        self.browser.wait_testid("corpus-csv").await;
    }
}
