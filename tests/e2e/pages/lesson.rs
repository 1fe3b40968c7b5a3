//! Page object: the guided lesson's bar. Its step, title, Back, Next and Close, and the
//! highlight each step draws on what it is about.

use crate::harness::Browser;

/// The lesson bar of one browser.
pub struct LessonPage<'a> {
    browser: &'a Browser,
}

impl<'a> LessonPage<'a> {
    pub fn new(browser: &'a Browser) -> Self {
        LessonPage { browser }
    }

    /// Starts the lesson from the welcome.
    pub async fn start(&self) {
        self.browser.click_testid("lesson-start").await;
    }

    pub async fn next(&self) {
        self.browser.click_testid("lesson-next").await;
    }

    pub async fn back(&self) {
        self.browser.click_testid("lesson-back").await;
    }

    /// Closes the lesson: the bar goes, and the step leaves the link.
    pub async fn close(&self) {
        self.browser.click_testid("lesson-close").await;
    }

    /// The step shown (`data-step`), once the bar is there.
    pub async fn step(&self) -> String {
        self.browser
            .wait_testid("lesson")
            .await
            .attr("data-step")
            .await
            .unwrap()
            .unwrap_or_default()
    }

    /// Waits until the bar shows step `step`.
    pub async fn wait_step(&self, step: u32) {
        self.browser
            .wait_until(
                &format!(
                    "document.querySelector('[data-testid=lesson]')?.dataset.step === '{step}'"
                ),
                &format!("step {step}"),
            )
            .await;
    }

    pub async fn title(&self) -> String {
        self.browser.text_of("lesson-title").await
    }

    /// Waits until the step's highlight is drawn on an element matching `selector`.
    pub async fn wait_highlight(&self, selector: &str) {
        self.browser
            .wait_until(
                &format!(
                    "(() => {{ const e = document.querySelector(\"{selector}\"); \
                     return e && getComputedStyle(e).outlineStyle === 'solid'; }})()"
                ),
                &format!("{selector} to be highlighted"),
            )
            .await;
    }
}
