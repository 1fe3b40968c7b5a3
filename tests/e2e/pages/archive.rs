//! Page objects: an open session's Archive view (its messages, tool results, the virtualised
//! scroll box) and its "Editions and checks" view (each edition as its row shows it).
//! [`InspectPage::archive`] and [`InspectPage::editions`] show the view and hand these over.

use std::time::Instant;

use fantoccini::key::Key;
use serde_json::{Value, json};

use super::query::{self, Field, Until, testid};
use crate::harness::{Browser, PATIENCE};

/// One edition as the open session's detail lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveEdition {
    /// `data-summariser`: `claude-code`, `codex`, `model`, `extractive`, ...
    pub summariser: String,
    /// The line naming who wrote it; empty when the row has none.
    pub writer: String,
    /// The figures its checks mark as in no archived message.
    pub unsourced: Vec<String>,
    /// Whether it shows what its folded turns said that it still holds.
    pub survival: bool,
    /// The words its diff against the summary before marks added, and dropped, run together.
    pub added: String,
    pub removed: String,
}

/// The Archive view of the open session.
#[derive(Clone, Copy)]
pub struct ArchiveView<'a> {
    browser: &'a Browser,
}

impl<'a> ArchiveView<'a> {
    pub fn new(browser: &'a Browser) -> ArchiveView<'a> {
        ArchiveView { browser }
    }

    /// Every archive row's `data-state`, in one script (the virtualised rows may be rebuilt
    /// between two WebDriver calls).
    pub async fn message_states(&self) -> Vec<String> {
        query::all(self.browser, &testid("message"), Field::data("state")).await
    }

    /// Waits until `n` tool results are shown as rows of their own.
    pub async fn wait_tool_results(&self, n: usize, what: &str) {
        query::wait(
            self.browser,
            "[data-testid='message'][data-role='tool'][data-tool-call='result']",
            Until::Count(n),
            what,
        )
        .await;
    }

    /// Presses End in the archive's scroll box until the row of turn `turn`'s reply is in view,
    /// and returns that row's text.
    pub async fn scroll_to_end(&self, turn: u32) -> String {
        let archive = self
            .browser
            .client
            .find(fantoccini::Locator::Css(".vlist.archive"))
            .await
            .unwrap();
        archive.click().await.unwrap();
        let row = format!("[data-testid='message'][data-turn='{turn}'][data-role='assistant']");
        let end = String::from(char::from(Key::End));
        let deadline = Instant::now() + PATIENCE;
        loop {
            archive.send_keys(&end).await.unwrap();
            crate::harness::pause(150).await;
            let shown = self
                .browser
                .client
                .execute(
                    "const box = document.querySelector('.vlist.archive').getBoundingClientRect();
                     const row = document.querySelector(arguments[0]); if (!row) return false;
                     const r = row.getBoundingClientRect();
                     return r.bottom > box.top && r.top < box.bottom;",
                    vec![json!(row)],
                )
                .await
                .unwrap();
            if shown == Value::Bool(true) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the last turn never came into view"
            );
        }
        query::text(self.browser, &row).await
    }
}

/// The "Editions and checks" view of the open session.
#[derive(Clone, Copy)]
pub struct SessionEditionsView<'a> {
    browser: &'a Browser,
}

impl<'a> SessionEditionsView<'a> {
    pub fn new(browser: &'a Browser) -> SessionEditionsView<'a> {
        SessionEditionsView { browser }
    }

    /// Every edition's summary as rendered, in one script.
    pub async fn summaries(&self) -> Vec<String> {
        query::all(self.browser, &testid("edition-after"), Field::inner_text()).await
    }

    /// Waits until the open session lists `n` editions, then reads each as its row shows it:
    /// its `data-summariser`, who wrote it (empty when the row does not say), the figures its
    /// checks mark unsourced, and whether it shows its survival table.
    pub async fn wait_editions(&self, n: usize) -> Vec<ArchiveEdition> {
        let rows = format!("{} {}", testid("session-detail"), testid("edition"));
        query::wait(
            self.browser,
            &rows,
            Until::Count(n),
            &format!("{n} editions listed"),
        )
        .await;
        let script = format!(
            "[...document.querySelectorAll({rows:?})].map((e) => [
                e.dataset.summariser ?? '',
                e.querySelector(\"[data-testid='edition-writer']\")?.innerText ?? '',
                [...e.querySelectorAll(\"[data-testid='unsourced-figure']\")].map((m) => m.textContent),
                !!e.querySelector(\"[data-testid='survival']\"),
                [...e.querySelectorAll(\"[data-testid='edition-diff'] ins\")].map((m) => m.textContent).join(''),
                [...e.querySelectorAll(\"[data-testid='edition-diff'] del\")].map((m) => m.textContent).join(''),
            ])"
        );
        let read: Vec<(String, String, Vec<String>, bool, String, String)> =
            query::value(self.browser, &script).await;
        read.into_iter()
            .map(
                |(summariser, writer, unsourced, survival, added, removed)| ArchiveEdition {
                    summariser,
                    writer,
                    unsourced,
                    survival,
                    added,
                    removed,
                },
            )
            .collect()
    }
}
