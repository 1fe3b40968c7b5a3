//! Page object: a large file's import in the Inspect tab (`import-progress`): where it stands,
//! how far it got, Stop.

use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::harness::{Browser, pause};

/// The import's note as the page shows it.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct Progress {
    /// `running`, `stopped`, `failed` or `done`; empty while there is no note.
    pub status: String,
    pub read: u64,
    pub added: u64,
    pub bytes: u64,
    pub cut_off: bool,
    pub line: String,
}

/// The import's note of one browser.
#[derive(Clone, Copy)]
pub struct ImportProgress<'a> {
    browser: &'a Browser,
}

impl<'a> ImportProgress<'a> {
    pub fn new(browser: &'a Browser) -> ImportProgress<'a> {
        ImportProgress { browser }
    }

    /// The note now (a default one while there is none).
    pub async fn now(&self) -> Progress {
        let script = "const el = document.querySelector(\"[data-testid='import-progress']\");
            if (!el) return null;
            return {
                status: el.dataset.status,
                read: Number(el.dataset.read),
                added: Number(el.dataset.added),
                bytes: Number(el.dataset.bytes),
                cut_off: el.dataset.cutOff === 'true',
                line: el.textContent,
            };";
        let value = self.browser.client.execute(script, vec![]).await.unwrap();
        serde_json::from_value::<Option<Progress>>(value)
            .unwrap()
            .unwrap_or_default()
    }

    /// Waits, up to `patience`, until the note satisfies `test`, and returns it.
    pub async fn wait(
        &self,
        patience: Duration,
        what: &str,
        test: impl Fn(&Progress) -> bool,
    ) -> Progress {
        let deadline = Instant::now() + patience;
        loop {
            let now = self.now().await;
            if test(&now) {
                return now;
            }
            assert!(Instant::now() < deadline, "never {what}: {now:?}");
            pause(100).await;
        }
    }

    /// Stop.
    pub async fn stop(&self) {
        self.browser.click_testid("import-stop").await;
    }
}
