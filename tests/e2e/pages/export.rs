//! Page object: the "Export policy" panel, drawn the same in the Tuner, the Chat tab's policy
//! panel and Inspect's replay form: the target picked, the snippet, how exact it is, Copy,
//! the download link, the highlighter's work, and a policy JSON imported back.

use serde_json::json;

use super::query::{self, Field, Until, testid};
use crate::harness::Browser;
use summary_memory::engine::export::Target;

/// The export panel of the tab on screen.
#[derive(Clone, Copy)]
pub struct ExportPanel<'a> {
    browser: &'a Browser,
}

/// How exact the snippet is, as the panel says it.
#[derive(Debug)]
pub struct Exactness {
    /// `data-exact`.
    pub exact: bool,
    /// The sentences listed under the verdict, one per difference.
    pub differences: Vec<String>,
    /// The schedule sentence, when one is shown.
    pub schedule: Option<String>,
    /// The lines of the chart beside it (none when there is no chart).
    pub chart_lines: usize,
}

impl<'a> ExportPanel<'a> {
    /// Presses "Export policy" in the tab on screen and waits for the code.
    pub async fn open(browser: &'a Browser) -> ExportPanel<'a> {
        browser.click_testid("export-policy").await;
        let panel = ExportPanel { browser };
        panel.wait_code().await;
        panel
    }

    async fn wait_code(&self) {
        query::wait(
            self.browser,
            &testid("export-code"),
            Until::NotEmpty(Field::text()),
            "the export panel to show a snippet",
        )
        .await;
    }

    /// Picks `target` and waits until its snippet is shown (its download carries its name).
    pub async fn choose(&self, target: Target) {
        self.browser
            .wait_testid("export-target")
            .await
            .select_by_value(target.slug())
            .await
            .unwrap();
        query::wait(
            self.browser,
            &testid("export-download"),
            Until::Is(Field::attr("download"), &json!(target.file_name())),
            &format!("the {} snippet", target.slug()),
        )
        .await;
        self.wait_code().await;
    }

    /// The snippet's text as the code block holds it.
    pub async fn code(&self) -> String {
        query::text(self.browser, &testid("export-code")).await
    }

    /// How exact the panel says the snippet is.
    pub async fn exactness(&self) -> Exactness {
        let read: (String, Vec<String>, Option<String>, usize) = query::value(
            self.browser,
            "(() => { \
               const e = document.querySelector(\"[data-testid='export-exactness']\"); \
               const s = e.querySelector(\"[data-testid='export-schedule']\"); \
               return [e.dataset.exact, [...e.querySelectorAll('li')].map(li => li.textContent), \
                       s ? s.textContent : null, e.querySelectorAll('polyline').length]; \
             })()",
        )
        .await;
        Exactness {
            exact: read.0 == "true",
            differences: read.1,
            schedule: read.2,
            chart_lines: read.3,
        }
    }

    /// Presses Copy and returns the note it leaves.
    pub async fn copy(&self) -> String {
        self.browser.click_testid("export-copy").await;
        query::wait(
            self.browser,
            &testid("export-copied"),
            Until::NotEmpty(Field::text()),
            "the note that Copy leaves",
        )
        .await;
        self.browser.text_content("export-copied").await
    }

    /// The download link: the file name it saves under, and the text of the file it saves.
    pub async fn download(&self) -> (String, String) {
        query::download(self.browser, "export-download").await
    }

    /// What the clipboard holds, read by the page (the test grants it the permission).
    pub async fn clipboard(&self) -> String {
        let value = self
            .browser
            .client
            .execute_async(
                "const done = arguments[arguments.length - 1]; \
                 navigator.clipboard.readText().then(done, (e) => done('refused: ' + e));",
                vec![],
            )
            .await
            .unwrap();
        serde_json::from_value(value).unwrap()
    }

    /// Waits until the highlighter has rebuilt the code block, and returns how many of its
    /// spans carry a highlight.js class.
    pub async fn wait_highlighted(&self) -> usize {
        query::wait(
            self.browser,
            &testid("export-code"),
            Until::Is(Field::data("highlighted"), &json!("true")),
            "the highlighter to colour the snippet",
        )
        .await;
        query::value(
            self.browser,
            "document.querySelectorAll(\"[data-testid='export-code'] span[class^='hljs-']\").length",
        )
        .await
    }

    /// Elements inside the code block other than the highlighter's spans (none, ever).
    pub async fn foreign_elements(&self) -> Vec<String> {
        query::value(
            self.browser,
            "[...document.querySelectorAll(\"[data-testid='export-code'] *\")] \
               .filter(e => e.tagName !== 'SPAN').map(e => e.tagName)",
        )
        .await
    }

    /// Pastes `text` into the import box and presses Import; returns the note (Ok) or the
    /// error (Err) it leaves.
    pub async fn import_pasted(&self, text: &str) -> Result<String, String> {
        self.open_import().await;
        self.browser.set_field("export-import-text", text).await;
        self.browser.click_testid("export-import").await;
        self.import_outcome().await
    }

    /// Chooses the file at `path` in the import's file input; returns what it leaves.
    pub async fn import_file(&self, path: &str) -> Result<String, String> {
        self.open_import().await;
        self.browser.upload("export-import-file", path).await;
        self.import_outcome().await
    }

    async fn open_import(&self) {
        let open: bool = query::value(
            self.browser,
            "document.querySelector(\"[data-testid='export-import-open']\").parentElement.open",
        )
        .await;
        if !open {
            self.browser.click_testid("export-import-open").await;
        }
    }

    async fn import_outcome(&self) -> Result<String, String> {
        self.browser
            .wait_until(
                "document.querySelector(\"[data-testid='export-imported'], [data-testid='export-import-error']\") !== null",
                "the import to say how it went",
            )
            .await;
        if self.browser.is_absent("export-import-error").await {
            Ok(self.browser.text_content("export-imported").await)
        } else {
            Err(self.browser.text_content("export-import-error").await)
        }
    }
}
