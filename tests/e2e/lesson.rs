//! The guided lesson: started from the welcome, stepped forward and back with the view each step
//! sets (tab, demo, Tuner parameters) and what it highlights, the step kept in the link so that
//! the link reopens it, and driven from the keyboard.

use fantoccini::key::Key;

use crate::harness::Browser;
use crate::pages::chat::ChatPage;
use crate::pages::lesson::LessonPage;

/// The Tuner's count of summariser calls in its dry run.
async fn calls(browser: &Browser) -> String {
    browser.text_of("summariser-calls").await
}

#[tokio::test]
async fn the_lesson_steps_forward_and_back_and_a_step_s_link_reopens_it() {
    let browser = Browser::new().await;
    let lesson = LessonPage::new(&browser);
    let chat = ChatPage::new(&browser);
    browser.open("").await;
    lesson.start().await;
    // Step 1: the dry run at 4/2 in the Tuner, four summariser calls.
    assert_eq!(lesson.step().await, "1");
    browser.wait_testid("panel-tuner").await;
    browser
        .wait_search_includes("lesson=1", "lesson=1 in the link")
        .await;
    assert_eq!(calls(&browser).await, "4");
    lesson
        .wait_highlight("[data-testid='summariser-calls']")
        .await;
    assert!(!browser.is_enabled("lesson-back").await);

    // 4/3: seven calls; 6/2: two.
    lesson.next().await;
    browser.wait_search_includes("keep=3", "keep=3").await;
    assert_eq!(calls(&browser).await, "7");
    lesson.next().await;
    browser
        .wait_search_includes("max_turns=6", "max_turns=6")
        .await;
    assert_eq!(calls(&browser).await, "2");

    // FinCoach at turn 6: the salary is in the summary and in no verbatim message.
    lesson.next().await;
    browser.wait_testid("panel-chat").await;
    chat.wait_last_request_turn(6).await;
    let summary = chat.summary().await;
    assert!(summary.contains("1,20,000"), "{summary}");
    assert!(!chat.verbatim_mentions("1,20,000").await);
    lesson.wait_highlight(".front-page").await;
    browser.wait_search_includes("lesson=4", "lesson=4").await;

    // Back returns to the Tuner at 6/2.
    lesson.back().await;
    browser.wait_testid("panel-tuner").await;
    assert_eq!(lesson.step().await, "3");
    assert_eq!(calls(&browser).await, "2");

    // A step's link, opened fresh, sets up the same view: the drift run's weakened rule.
    let shared = Browser::new().await;
    let shared_lesson = LessonPage::new(&shared);
    shared.open("?lesson=6").await;
    assert_eq!(shared_lesson.step().await, "6");
    shared.wait_testid("panel-editions").await;
    shared
        .wait_count("edition", 3, "the drift run's three editions")
        .await;
    shared_lesson
        .wait_highlight("[data-testid='weakened-note']")
        .await;
    let title = shared_lesson.title().await;
    assert!(title.contains("drift"), "{title}");
    // The overrun step, then the archive: twelve messages kept after two cycles.
    shared_lesson.next().await;
    shared_lesson.next().await;
    shared_lesson
        .wait_highlight("[data-testid='overrun-note']")
        .await;
    shared_lesson.next().await;
    shared.wait_testid("panel-chat").await;
    shared_lesson.wait_highlight(".archive").await;
    assert_eq!(shared.count_testid("message").await, 12);
    assert_eq!(shared.text_of("lesson-next").await, "Done");
    // Closing the lesson takes the bar and the step out of the link.
    shared_lesson.close().await;
    shared
        .wait_search_excludes("lesson=", "the lesson gone from the link")
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
    let lesson = LessonPage::new(&browser);
    browser.open("").await;
    browser.wait_testid("welcome").await;
    browser.tab_to("lesson-start").await;
    browser.press(Key::Enter).await;
    assert_eq!(lesson.step().await, "1");
    browser.tab_to("lesson-next").await;
    browser.press(Key::Enter).await;
    lesson.wait_step(2).await;
    // The focus stays on Next from one step to the next.
    assert_eq!(browser.focused().await, "lesson-next");
    browser.press(Key::Enter).await;
    lesson.wait_step(3).await;
    assert_eq!(calls(&browser).await, "2");
    browser.close().await;
}

#[tokio::test]
async fn a_link_to_a_step_beyond_the_lesson_is_named() {
    let browser = Browser::new().await;
    browser.open("?lesson=42").await;
    let error = browser.text_of("param-error").await;
    assert!(error.contains("?lesson=42"), "{error}");
    assert_eq!(browser.count_testid("lesson").await, 0);
    browser.close().await;
}

/// Every bundled demo, as the picker's values name them.
const DEMOS: [&str; 4] = ["fincoach", "drift", "real135m", "real135m_fincoach"];

/// Every tab, as the tab bar's `data-testid`s name them.
const TABS: [&str; 6] = ["chat", "editions", "tuner", "tokens", "inspect", "settings"];

// Going from step 5 to step 6 panicked ("Tried to access a reactive value that has already been
// disposed", then `RuntimeError: unreachable`): the Chat tab's virtual list measured its rows
// in an animation frame that came after the tab had been taken off the page.
#[tokio::test]
async fn the_lesson_every_demo_and_every_tab_leave_the_console_clean_in_both_themes_and_on_a_phone()
{
    let browser = Browser::new().await;
    let lesson = LessonPage::new(&browser);
    let chat = ChatPage::new(&browser);
    let mut errors = Vec::new();
    for (theme, width) in [("light", 1400), ("dark", 1400), ("light", 390)] {
        browser.client.set_window_size(width, 900).await.unwrap();
        browser.open("").await;
        browser.store_theme(theme).await;
        let round = format!("{theme} at {width} px");
        // The lesson, walked from its first step to its last by Next.
        browser.open("?lesson=1").await;
        lesson.wait_step(1).await;
        for number in 2..=9 {
            lesson.next().await;
            lesson.wait_step(number).await;
            // The views a step opens draw over a few frames; a panic in them comes within them.
            crate::harness::pause(300).await;
            errors.extend(
                browser
                    .console_errors()
                    .await
                    .into_iter()
                    .map(|e| format!("{round}, lesson step {number}: {e}")),
            );
        }
        lesson.close().await;
        // Every demo played to its end on the Chat tab, then its editions.
        for demo in DEMOS {
            browser.open(&format!("?tab=chat&demo={demo}")).await;
            browser.click_testid("play-all").await;
            chat.wait_demo_finished().await;
            browser.click_testid("tab-editions").await;
            browser.wait_testid("edition").await;
            errors.extend(
                browser
                    .console_errors()
                    .await
                    .into_iter()
                    .map(|e| format!("{round}, demo {demo}: {e}")),
            );
        }
        // Every tab, with the last demo still on screen.
        for tab in TABS {
            browser.click_testid(&format!("tab-{tab}")).await;
            browser.wait_testid(&format!("panel-{tab}")).await;
            crate::harness::pause(200).await;
            errors.extend(
                browser
                    .console_errors()
                    .await
                    .into_iter()
                    .map(|e| format!("{round}, tab {tab}: {e}")),
            );
        }
    }
    assert!(errors.is_empty(), "console errors:\n{}", errors.join("\n"));
    browser.close().await;
}

// From step 4 on, each step scrolled to its target and left the lesson card, with its text and
// Back / Next / Close, far above the window (Next at -2,146 px on step 5); the last step had no
// Done, the card never took the focus, and Esc did nothing.
#[tokio::test]
async fn the_lesson_card_stays_in_view_beside_its_target_takes_the_focus_and_closes_on_esc() {
    let browser = Browser::new().await;
    let lesson = LessonPage::new(&browser);
    for width in [1400, 390] {
        browser.client.set_window_size(width, 900).await.unwrap();
        // A first visit: the view the last round left is forgotten, so the welcome shows.
        browser.open("").await;
        browser.forget_view().await;
        browser.open("").await;
        browser.wait_testid("welcome").await;
        lesson.start().await;
        lesson.wait_step(1).await;
        // The card has the focus, and Next is one Tab away (Back is disabled on step 1).
        assert_eq!(browser.focused().await, "lesson", "at {width} px");
        browser.press(Key::Tab).await;
        assert_eq!(browser.focused().await, "lesson-next", "at {width} px");
        for number in 1..=9 {
            if number > 1 {
                lesson.next().await;
                lesson.wait_step(number).await;
            }
            let at = lesson.positions().await;
            let place = format!("step {number} at {width} px: {at:?}");
            assert!(
                at.card[0] >= 0.0 && at.card[1] <= at.height,
                "card out of view, {place}"
            );
            assert!(
                at.next[0] >= 0.0 && at.next[1] <= at.height,
                "Next out of view, {place}"
            );
            let target = at.target.unwrap_or_else(|| panic!("no target, {place}"));
            // The target starts below the card (its highlight's outline too) and inside the window.
            assert!(target[0] >= at.card[1], "target under the card, {place}");
            assert!(
                target[0] < at.height - 40.0,
                "target below the window, {place}"
            );
        }
        // The last step ends with Done, which closes the lesson and gives the focus to the tab.
        assert_eq!(browser.text_of("lesson-next").await, "Done");
        lesson.next().await;
        browser
            .wait_gone("lesson", "Done to close the lesson")
            .await;
        browser
            .wait_search_excludes("lesson=", "the lesson gone from the link")
            .await;
        browser
            .wait_focus("tab-chat", "the focus on the Chat tab after Done")
            .await;
    }
    // Esc closes the lesson from anywhere on the page.
    browser.open("?lesson=3").await;
    lesson.wait_step(3).await;
    browser.press(Key::Escape).await;
    browser.wait_gone("lesson", "Esc to close the lesson").await;
    browser
        .wait_focus("tab-tuner", "the focus on the Tuner tab after Esc")
        .await;
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

// Step 9 said "twelve messages" where the archive showed 8; step 6 quoted "avoids equities"
// where edition 3 says "prefers fixed-income options to equities"; step 7 highlighted the kept
// badges, not the weakened one.
#[tokio::test]
async fn the_lesson_s_words_quote_what_the_screen_shows() {
    let browser = Browser::new().await;
    let lesson = LessonPage::new(&browser);
    browser.open("?lesson=6").await;
    lesson.wait_step(6).await;
    browser
        .wait_count("edition", 3, "the drift run's three editions")
        .await;
    let text = browser.text_of("lesson-text").await;
    let quote = text
        .rsplit('\u{201c}')
        .next()
        .and_then(|q| q.strip_suffix('\u{201d}'))
        .unwrap_or_else(|| panic!("no quote in {text}"));
    let third: String = browser
        .read(
            "(() => { const after = document.querySelector('[data-testid=edition][data-cycle=\"3\"] [data-testid=edition-after]').cloneNode(true); \
             after.querySelectorAll('.removed').forEach(r => r.remove()); return after.textContent; })()",
        )
        .await;
    assert!(
        crate::harness::words(&third).contains(quote),
        "{quote:?} not in edition 3: {third}"
    );

    lesson.next().await;
    lesson.wait_step(7).await;
    lesson
        .wait_highlight("[data-testid='fact'][data-verdict='weakened']")
        .await;
    let highlighted: Vec<String> = browser
        .read("Array.from(document.querySelectorAll('[data-testid=fact]')).filter(b => getComputedStyle(b).outlineStyle === 'solid').map(b => b.dataset.verdict)")
        .await;
    assert!(!highlighted.is_empty());
    assert!(
        highlighted.iter().all(|v| v == "weakened"),
        "{highlighted:?}"
    );

    lesson.next().await;
    lesson.next().await;
    lesson.wait_step(9).await;
    let label: String = browser
        .read("document.querySelector('.archive .section-label').textContent")
        .await;
    let shown = label
        .split_whitespace()
        .find_map(|w| w.parse::<u32>().ok())
        .unwrap_or_else(|| panic!("no count in {label}"));
    let text = browser.text_of("lesson-text").await;
    assert!(
        text.contains(&format!("word for word, {shown} messages")),
        "the archive shows {shown}: {text}"
    );
    browser.close().await;
}
