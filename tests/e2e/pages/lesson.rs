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

    /// Where the card, its Next button and the step's target are in the window, once the
    /// target has been scrolled to: each as `[top, bottom]` in CSS pixels, with the window's
    /// height. Read when the target is drawn and the page stands still (two reads 100 ms apart
    /// agree), or after 4 s.
    pub async fn positions(&self) -> Positions {
        let script = "(() => {
            const card = document.querySelector('[data-testid=lesson]');
            const target = document.querySelector(card.dataset.target);
            const next = document.querySelector('[data-testid=lesson-next]');
            const edges = e => { if (!e) return null; const r = e.getBoundingClientRect(); return [Math.round(r.top), Math.round(r.bottom)]; };
            return { card: edges(card), next: edges(next), target: edges(target), height: window.innerHeight };
        })()";
        let mut last: Option<Positions> = None;
        for _ in 0..40 {
            crate::harness::pause(100).await;
            let now: Positions = self.browser.read(script).await;
            if now.target.is_some() && last.as_ref() == Some(&now) {
                return now;
            }
            last = Some(now);
        }
        last.unwrap()
    }
}

/// Where the lesson card, its Next button and the step's target are (see [`LessonPage::positions`]).
#[derive(Debug, PartialEq, serde::Deserialize)]
pub struct Positions {
    pub card: [f64; 2],
    pub next: [f64; 2],
    pub target: Option<[f64; 2]>,
    pub height: f64,
}
