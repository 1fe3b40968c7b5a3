//! The guided lesson: started from the welcome, stepped forward and back with the view each step
//! sets (tab, demo, Tuner parameters) and what it highlights, the step kept in the link so that
//! the link reopens it, and driven from the keyboard.

use fantoccini::key::Key;

use crate::harness::Browser;
use crate::welcome::{focused, press, tab_to};

async fn step_shown(browser: &Browser) -> String {
    browser
        .wait_testid("lesson")
        .await
        .attr("data-step")
        .await
        .unwrap()
        .unwrap_or_default()
}

async fn calls(browser: &Browser) -> String {
    browser
        .wait_testid("summariser-calls")
        .await
        .text()
        .await
        .unwrap()
}

/// Waits until the step's highlight is drawn on an element matching `selector`.
async fn highlighted(browser: &Browser, selector: &str) {
    browser
        .wait_until(
            &format!(
                "(() => {{ const e = document.querySelector(\"{selector}\"); \
                 return e && getComputedStyle(e).outlineStyle === 'solid'; }})()"
            ),
            &format!("{selector} to be highlighted"),
        )
        .await;
}

#[tokio::test]
async fn the_lesson_steps_forward_and_back_and_a_step_s_link_reopens_it() {
    let browser = Browser::new().await;
    browser.open("").await;
    browser.click_testid("lesson-start").await;
    // Step 1: the dry run at 4/2 in the Tuner, four summariser calls.
    assert_eq!(step_shown(&browser).await, "1");
    browser.wait_testid("panel-tuner").await;
    browser
        .wait_until(
            "location.search.includes('lesson=1')",
            "lesson=1 in the link",
        )
        .await;
    assert_eq!(calls(&browser).await, "4");
    highlighted(&browser, "[data-testid='summariser-calls']").await;
    assert!(
        !browser
            .wait_testid("lesson-back")
            .await
            .is_enabled()
            .await
            .unwrap()
    );

    // 4/3: seven calls; 6/2: two.
    browser.click_testid("lesson-next").await;
    browser
        .wait_until("location.search.includes('keep=3')", "keep=3")
        .await;
    assert_eq!(calls(&browser).await, "7");
    browser.click_testid("lesson-next").await;
    browser
        .wait_until("location.search.includes('max_turns=6')", "max_turns=6")
        .await;
    assert_eq!(calls(&browser).await, "2");

    // FinCoach at turn 6: the salary is in the summary and in no verbatim message.
    browser.click_testid("lesson-next").await;
    browser.wait_testid("panel-chat").await;
    browser
        .wait_until(
            "document.querySelector('[data-testid=last-request]')?.dataset.turn === '6'",
            "the request of turn 6",
        )
        .await;
    let summary = browser.wait_testid("summary").await.text().await.unwrap();
    assert!(summary.contains("1,20,000"), "{summary}");
    let verbatim_salary = browser
        .client
        .execute(
            "return [...document.querySelectorAll(\"[data-testid='message'][data-state='verbatim']\")] \
             .some(m => m.textContent.includes('1,20,000'))",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(verbatim_salary, false);
    highlighted(&browser, ".front-page").await;
    browser
        .wait_until("location.search.includes('lesson=4')", "lesson=4")
        .await;

    // Back returns to the Tuner at 6/2.
    browser.click_testid("lesson-back").await;
    browser.wait_testid("panel-tuner").await;
    assert_eq!(step_shown(&browser).await, "3");
    assert_eq!(calls(&browser).await, "2");

    // A step's link, opened fresh, sets up the same view: the drift run's weakened rule.
    let shared = Browser::new().await;
    shared.open("?lesson=6").await;
    assert_eq!(step_shown(&shared).await, "6");
    shared.wait_testid("panel-editions").await;
    shared
        .wait_until(
            "document.querySelectorAll('[data-testid=edition]').length === 3",
            "the drift run's three editions",
        )
        .await;
    highlighted(&shared, "[data-testid='weakened-note']").await;
    let title = shared
        .wait_testid("lesson-title")
        .await
        .text()
        .await
        .unwrap();
    assert!(title.contains("drift"), "{title}");
    // The overrun step, then the archive: twelve messages kept after two cycles.
    shared.click_testid("lesson-next").await;
    shared.click_testid("lesson-next").await;
    highlighted(&shared, "[data-testid='overrun-note']").await;
    shared.click_testid("lesson-next").await;
    shared.wait_testid("panel-chat").await;
    highlighted(&shared, ".archive").await;
    assert_eq!(shared.count_testid("message").await, 12);
    assert!(
        !shared
            .wait_testid("lesson-next")
            .await
            .is_enabled()
            .await
            .unwrap()
    );
    // Closing the lesson takes the bar and the step out of the link.
    shared.click_testid("lesson-close").await;
    shared
        .wait_until(
            "!location.search.includes('lesson=')",
            "the lesson gone from the link",
        )
        .await;
    assert_eq!(shared.count_testid("lesson").await, 0);
    let errors = shared.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    shared.close().await;
    browser.close().await;
}

#[tokio::test]
async fn the_lesson_is_driven_from_the_keyboard() {
    let browser = Browser::new().await;
    browser.open("").await;
    browser.wait_testid("welcome").await;
    tab_to(&browser, "lesson-start").await;
    press(&browser, Key::Enter).await;
    assert_eq!(step_shown(&browser).await, "1");
    tab_to(&browser, "lesson-next").await;
    press(&browser, Key::Enter).await;
    browser
        .wait_until(
            "document.querySelector('[data-testid=lesson]')?.dataset.step === '2'",
            "step 2",
        )
        .await;
    // The focus stays on Next from one step to the next.
    assert_eq!(focused(&browser).await, "lesson-next");
    press(&browser, Key::Enter).await;
    browser
        .wait_until(
            "document.querySelector('[data-testid=lesson]')?.dataset.step === '3'",
            "step 3",
        )
        .await;
    assert_eq!(calls(&browser).await, "2");
    browser.close().await;
}

#[tokio::test]
async fn a_link_to_a_step_beyond_the_lesson_is_named() {
    let browser = Browser::new().await;
    browser.open("?lesson=42").await;
    let error = browser
        .wait_testid("param-error")
        .await
        .text()
        .await
        .unwrap();
    assert!(error.contains("?lesson=42"), "{error}");
    assert_eq!(browser.count_testid("lesson").await, 0);
    browser.close().await;
}
