//! Page object: Inspect's corpus comparison. Opening it, starting and stopping a run, the
//! progress (`corpus-progress`: `data-done`, `data-total`, `data-phase`), the table's policies,
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
    /// Opens the comparison's fold in the Inspect tab already on screen.
    pub async fn open(browser: &'a Browser) -> CorpusPage<'a> {
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

    /// Starts watching the main thread's long tasks (PerformanceObserver 'longtask').
    pub async fn watch_long_tasks(&self) {
        let _: Value = self
            .browser
            .read(
                "(() => { window.__smLong = []; new PerformanceObserver((list) => {
                    for (const e of list.getEntries()) window.__smLong.push(e.duration);
                }).observe({ type: 'longtask' }); return null; })()",
            )
            .await;
    }

    /// The long tasks seen since [`CorpusPage::watch_long_tasks`], in milliseconds.
    pub async fn long_tasks(&self) -> Vec<f64> {
        self.browser.read("window.__smLong || []").await
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

    /// Waits until the run's table is shown (its rows summarised after the run ended).
    pub async fn wait_table(&self) {
        self.browser.wait_testid("corpus-csv").await;
    }
}
