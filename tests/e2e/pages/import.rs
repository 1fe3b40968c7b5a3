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

    /// Waits, in the page itself (a check every few milliseconds, so a fast import is not
    /// missed between two WebDriver round trips), until the import runs with at least
    /// `bytes` of the file read and `added` conversations added; presses Stop at that moment
    /// when `stop`. Fails when the import ends first, or after `patience`.
    pub async fn wait_running(&self, bytes: u64, added: u64, stop: bool, patience: Duration) {
        let script = "const [bytes, added, stop] = arguments;
            const done = arguments[arguments.length - 1];
            const until = Date.now() + 20000;
            (function poll() {
                const el = document.querySelector(\"[data-testid='import-progress']\");
                const status = el ? el.dataset.status : '';
                if (status === 'running' && Number(el.dataset.bytes) >= bytes
                    && Number(el.dataset.added) >= added) {
                    if (stop) el.querySelector(\"[data-testid='import-stop']\").click();
                    return done('reached');
                }
                if (status && status !== 'running') return done('ended');
                if (Date.now() > until) return done('waiting');
                setTimeout(poll, 2);
            })();";
        let deadline = Instant::now() + patience;
        loop {
            let answer = self
                .browser
                .client
                .execute_async(script, vec![bytes.into(), added.into(), stop.into()])
                .await
                .unwrap();
            match answer.as_str() {
                Some("reached") => return,
                Some("waiting") if Instant::now() < deadline => continue,
                _ => panic!(
                    "the import never ran with {bytes} bytes read and {added} conversations added ({answer}): {:?}",
                    self.now().await
                ),
            }
        }
    }
}
