//! A newcomer's first visit: the Chat tab's welcome, whose buttons each start a demo with one
//! click, no wall of disabled controls before a demo is picked, a demo played to its end from the
//! keyboard alone with visible focus, and the Settings form's labels and inline validation.

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;

use crate::harness::Browser;

/// Presses one key on whatever has the focus, as a keyboard would.
pub async fn press(browser: &Browser, key: Key) {
    let key = char::from(key);
    let actions = KeyActions::new("keyboard".to_owned())
        .then(KeyAction::Down { value: key })
        .then(KeyAction::Up { value: key });
    browser.client.perform_actions(actions).await.unwrap();
}

/// The `data-testid` of the focused element, or "" when it has none.
pub async fn focused(browser: &Browser) -> String {
    let value = browser
        .client
        .execute(
            "return document.activeElement?.dataset?.testid ?? ''",
            vec![],
        )
        .await
        .unwrap();
    value.as_str().unwrap_or_default().to_owned()
}

/// Presses Tab until the element with `data-testid=id` has the focus, and checks that the focus
/// can be seen there: a solid outline at least 2 px wide, drawn because the keyboard moved it.
pub async fn tab_to(browser: &Browser, id: &str) {
    for _ in 0..80 {
        press(browser, Key::Tab).await;
        if focused(browser).await == id {
            let outline = browser
                .client
                .execute(
                    "const e = document.activeElement, s = getComputedStyle(e); \
                     return [e.matches(':focus-visible'), s.outlineStyle, parseFloat(s.outlineWidth)]",
                    vec![],
                )
                .await
                .unwrap();
            assert_eq!(outline[0], true, "{id} is focused but not :focus-visible");
            assert_eq!(
                outline[1], "solid",
                "{id} has no visible focus ring: {outline}"
            );
            assert!(outline[2].as_f64().unwrap() >= 2.0, "{id}: {outline}");
            return;
        }
    }
    panic!("Tab never reached data-testid={id}");
}

async fn progress(browser: &Browser) -> String {
    browser.wait_testid("progress").await.text().await.unwrap()
}

#[tokio::test]
async fn a_first_visit_shows_the_welcome_and_each_button_starts_its_demo() {
    for (button, slug, messages) in [
        ("welcome-fincoach", "fincoach", "Hi! I'm Chiru"),
        ("welcome-drift", "drift", "Chiru"),
    ] {
        let browser = Browser::new().await;
        browser.open("").await;
        let welcome = browser.wait_testid("welcome").await;
        let text = welcome.text().await.unwrap();
        assert!(text.contains("Summary memory"), "{text}");
        assert!(
            text.contains("Watch the salary survive six turns"),
            "{text}"
        );
        assert!(text.contains("Watch a hard rule drift"), "{text}");
        // Before a demo is picked, its controls are not in the page at all, disabled or not.
        for id in ["step", "play-all", "reset", "run-live", "demo-summariser"] {
            assert_eq!(
                browser.count_testid(id).await,
                0,
                "{id} shown before a demo"
            );
        }
        let start = browser.wait_testid(button).await;
        assert!(start.is_enabled().await.unwrap());
        start.click().await.unwrap();
        // One click loads the demo and plays its first step: the first user message is sent.
        browser
            .wait_until(
                &format!("location.search.includes('demo={slug}')"),
                "the demo in the link",
            )
            .await;
        assert!(progress(&browser).await.starts_with("Turn 1 of"));
        let shown = browser.all_testid("message").await;
        assert_eq!(shown.len(), 1);
        assert!(shown[0].text().await.unwrap().contains(messages));
        assert_eq!(browser.count_testid("welcome").await, 0);
        assert!(
            browser
                .wait_testid("step")
                .await
                .is_enabled()
                .await
                .unwrap()
        );
        let errors = browser.console_errors().await;
        assert!(errors.is_empty(), "console errors: {errors:#?}");
        browser.close().await;
    }
}

#[tokio::test]
async fn a_keyboard_alone_starts_a_demo_and_plays_it_to_its_end() {
    let browser = Browser::new().await;
    browser.open("").await;
    browser.wait_testid("welcome").await;
    tab_to(&browser, "welcome-fincoach").await;
    press(&browser, Key::Enter).await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=message]').length === 1",
            "the first step",
        )
        .await;
    tab_to(&browser, "step").await;
    for _ in 0..3 {
        press(&browser, Key::Enter).await;
    }
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=message]').length === 4",
            "three more steps",
        )
        .await;
    tab_to(&browser, "play-all").await;
    press(&browser, Key::Enter).await;
    browser
        .wait_until(
            "document.querySelector('[data-testid=progress]')?.textContent.includes('finished')",
            "the demo to finish",
        )
        .await;
    assert_eq!(browser.count_testid("message").await, 12);
    browser.wait_testid("summary").await;
    browser.close().await;
}

#[tokio::test]
async fn a_later_visit_resumes_the_live_chat_without_the_welcome() {
    // The live chat is saved as a session after every change; a reload opens it, not the welcome.
    let server = crate::openai_server::TestServer::start().await;
    server.script([crate::live::text("Hello again.")]);
    let browser = Browser::new().await;
    crate::live::connect(&browser, crate::live::Setup::new(&server.base_url)).await;
    assert_eq!(browser.count_testid("welcome").await, 1);
    crate::live::send(&browser, "remember me").await;
    crate::live::wait_settled(&browser, 2).await;
    assert_eq!(browser.count_testid("welcome").await, 0);
    browser.client.refresh().await.unwrap();
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=message]').length === 2",
            "the live chat resumed",
        )
        .await;
    assert_eq!(browser.count_testid("welcome").await, 0);
    browser.close().await;
}

#[tokio::test]
async fn settings_fields_have_visible_labels_and_problems_show_beside_their_field() {
    let browser = Browser::new().await;
    browser.open("?tab=settings").await;
    // Every input and select has a visible <label for> (checkboxes wrapped in theirs).
    let unlabelled = browser
        .client
        .execute(
            "return [...document.querySelectorAll('[data-testid=panel-settings] input, [data-testid=panel-settings] select')] \
             .filter(e => { const l = e.labels && e.labels[0]; \
                            return !l || !l.textContent.trim() || l.getBoundingClientRect().width === 0; }) \
             .map(e => e.id || e.outerHTML)",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        unlabelled,
        serde_json::json!([]),
        "fields without a visible label"
    );
    // The four groups, in order.
    let legends = browser
        .client
        .execute(
            "return [...document.querySelectorAll('.settings .form-group > legend')].map(l => l.textContent)",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        legends,
        serde_json::json!(["Endpoint", "Models", "Generation", "Privacy"])
    );
    // A fresh form flags nothing field by field.
    assert_eq!(browser.count_testid("base-url-error").await, 0);

    for (field, value, words) in [
        ("base-url", "ftp://example.com", "http://"),
        ("temperature", "5", "0 to 2"),
        ("timeout", "0", "seconds"),
    ] {
        browser.set_field(field, value).await;
        let error = browser.wait_testid(&format!("{field}-error")).await;
        let text = error.text().await.unwrap();
        assert!(text.contains(words), "{field}: {text}");
        // Beside the field: on the same row, to its right, and named by the input.
        let placed = browser
            .client
            .execute(
                "const input = document.querySelector(`[data-testid='${arguments[0]}']`); \
                 const error = document.querySelector(`[data-testid='${arguments[0]}-error']`); \
                 const a = input.getBoundingClientRect(), b = error.getBoundingClientRect(); \
                 return [input.closest('.field-row') === error.closest('.field-row'), \
                         b.left >= a.right, b.top < a.bottom, \
                         input.getAttribute('aria-invalid'), \
                         (input.getAttribute('aria-describedby') || '').includes(error.id)]",
                vec![serde_json::json!(field)],
            )
            .await
            .unwrap();
        assert_eq!(
            placed,
            serde_json::json!([true, true, true, "true", true]),
            "{field}"
        );
    }
    // Fixing the value takes the message away.
    browser.set_field("temperature", "0.7").await;
    browser
        .wait_until(
            "!document.querySelector(\"[data-testid='temperature-error']\")",
            "the temperature message to go",
        )
        .await;
    // Privacy says where the key is kept, and follows "Remember".
    let kept = browser.wait_testid("key-kept").await;
    assert!(kept.text().await.unwrap().contains("sessionStorage"));
    browser.click_testid("remember-key").await;
    browser
        .wait_until(
            "document.querySelector(\"[data-testid='key-kept']\").textContent.includes('localStorage')",
            "the key's place to follow Remember",
        )
        .await;
    assert!(
        browser
            .wait_testid("export-holds")
            .await
            .text()
            .await
            .unwrap()
            .contains("without the key")
    );
    browser.close().await;
}

/// The value of the field or select with `data-testid=id`.
async fn value_of(browser: &Browser, id: &str) -> String {
    let field = browser.wait_testid(id).await;
    field.prop("value").await.unwrap().unwrap_or_default()
}

#[tokio::test]
async fn a_later_visit_to_the_bare_address_reopens_the_last_view_and_a_link_still_wins() {
    let query = "?tab=tuner&trigger=tokens&budget=3000";
    let search = "location.search";
    // A first visit with a fresh profile is the welcome, with nothing in the address bar.
    let browser = Browser::new().await;
    browser.open("").await;
    browser.wait_testid("welcome").await;
    assert_eq!(
        browser
            .client
            .execute(&format!("return {search}"), vec![])
            .await
            .unwrap(),
        ""
    );
    // A view opened once...
    browser.open(query).await;
    browser.wait_testid("panel-tuner").await;
    assert_eq!(value_of(&browser, "budget").await, "3000");
    // ...is what the bare address opens next time: the tab, its parameters and the link.
    browser.open("").await;
    browser.wait_testid("panel-tuner").await;
    assert_eq!(value_of(&browser, "trigger").await, "tokens");
    assert_eq!(value_of(&browser, "budget").await, "3000");
    browser
        .wait_until(
            &format!("{search} === '{query}'"),
            "the resumed view in the link",
        )
        .await;
    assert_eq!(browser.count_testid("welcome").await, 0);
    // A link with its own query wins over the stored view, and becomes the view resumed next.
    browser.open("?tab=tokens").await;
    browser.wait_testid("panel-tokens").await;
    assert_eq!(browser.count_testid("panel-tuner").await, 0);
    browser
        .wait_until(
            &format!("{search} === '?tab=tokens'"),
            "the link's own view",
        )
        .await;
    browser.open("").await;
    browser.wait_testid("panel-tokens").await;
    // A stored view that no longer parses is ignored, quietly: a first visit's welcome.
    browser
        .client
        .execute(
            "localStorage.setItem('summary-memory.view', 'tab=tuner&lesson=99')",
            vec![],
        )
        .await
        .unwrap();
    browser.open("").await;
    browser.wait_testid("welcome").await;
    assert_eq!(browser.count_testid("param-error").await, 0);
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
    // Another profile has no stored view: its first visit is the welcome.
    let fresh = Browser::new().await;
    fresh.open("").await;
    fresh.wait_testid("welcome").await;
    fresh.close().await;
}

#[tokio::test]
async fn storage_that_throws_costs_only_the_resume() {
    // localStorage refuses the stored view both ways, as a blocked or full storage does.
    let browser = Browser::new().await;
    crate::persistence::before_every_page(
        &browser,
        "for (const name of ['getItem', 'setItem']) {
             const real = Storage.prototype[name];
             Storage.prototype[name] = function (key, ...rest) {
                 if (key === 'summary-memory.view') {
                     throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
                 }
                 return real.call(this, key, ...rest);
             };
         }",
    )
    .await;
    browser.open("?tab=tuner&trigger=tokens&budget=3000").await;
    browser.wait_testid("panel-tuner").await;
    assert_eq!(value_of(&browser, "budget").await, "3000");
    browser.click_testid("tab-tokens").await;
    browser.wait_testid("panel-tokens").await;
    // Nothing could be stored, so the bare address is a first visit, and the app works.
    browser.open("").await;
    browser.wait_testid("welcome").await;
    browser.click_testid("welcome-drift").await;
    browser
        .wait_until("location.search.includes('demo=drift')", "the demo started")
        .await;
    assert_eq!(browser.count_testid("store-error").await, 0);
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}
