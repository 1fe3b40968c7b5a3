//! A newcomer's first visit: the Chat tab's welcome, whose buttons each start a demo with one
//! click, no wall of disabled controls before a demo is picked, a demo played to its end from the
//! keyboard alone with visible focus, and the Settings form's labels and inline validation.

use fantoccini::key::Key;

use crate::harness::{Browser, text};
use crate::openai_server::TestServer;
use crate::pages::chat::{ChatPage, Setup};

#[tokio::test]
async fn a_first_visit_shows_the_welcome_and_each_button_starts_its_demo() {
    for (button, slug, messages) in [
        ("welcome-fincoach", "fincoach", "Hi! I'm Chiru"),
        ("welcome-drift", "drift", "Chiru"),
    ] {
        let browser = Browser::new().await;
        let chat = ChatPage::new(&browser);
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
            .wait_search_includes(&format!("demo={slug}"), "the demo in the link")
            .await;
        assert!(chat.progress().await.starts_with("Turn 1 of"));
        let shown = browser.all_testid("message").await;
        assert_eq!(shown.len(), 1);
        assert!(shown[0].text().await.unwrap().contains(messages));
        assert_eq!(browser.count_testid("welcome").await, 0);
        assert!(browser.is_enabled("step").await);
        let errors = browser.console_errors().await;
        assert!(errors.is_empty(), "console errors: {errors:#?}");
        browser.close().await;
    }
}

#[tokio::test]
async fn a_keyboard_alone_starts_a_demo_and_plays_it_to_its_end() {
    let browser = Browser::new().await;
    let chat = ChatPage::new(&browser);
    browser.open("").await;
    browser.wait_testid("welcome").await;
    browser.tab_to("welcome-fincoach").await;
    browser.press(Key::Enter).await;
    chat.wait_messages(1, "the first step").await;
    // The welcome goes with its button; the focus goes to the demo it opened, not the body.
    browser
        .wait_until(
            "document.activeElement?.dataset?.testid === 'step'",
            "the focus on Step",
        )
        .await;
    for _ in 0..3 {
        browser.press(Key::Enter).await;
    }
    chat.wait_messages(4, "three more steps").await;
    browser.tab_to("play-all").await;
    browser.press(Key::Enter).await;
    chat.wait_demo_finished().await;
    assert_eq!(browser.count_testid("message").await, 12);
    browser.wait_testid("summary").await;
    browser.close().await;
}

#[tokio::test]
async fn a_later_visit_resumes_the_live_chat_without_the_welcome() {
    // The live chat is saved as a session after every change; a reload opens it, not the welcome.
    let server = TestServer::start().await;
    server.script([text("Hello again.")]);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    assert_eq!(browser.count_testid("welcome").await, 1);
    chat.send("remember me").await;
    chat.wait_settled(2).await;
    assert_eq!(browser.count_testid("welcome").await, 0);
    browser.client.refresh().await.unwrap();
    chat.wait_messages(2, "the live chat resumed").await;
    assert_eq!(browser.count_testid("welcome").await, 0);
    browser.close().await;
}

#[tokio::test]
async fn settings_fields_have_visible_labels_and_problems_show_beside_their_field() {
    let browser = Browser::new().await;
    browser.open("?tab=settings").await;
    // Settings is a module loaded on first use: its form is drawn once it has arrived (a busy
    // machine takes seconds), and a check of its labels before then would look at nothing.
    browser
        .wait_until(
            "document.querySelectorAll('.settings .form-group > legend').length > 0",
            "the Settings module's form",
        )
        .await;
    // Every input and select has a visible <label for> (checkboxes wrapped in theirs).
    let unlabelled = browser.unlabelled_fields("panel-settings").await;
    assert_eq!(
        unlabelled,
        Vec::<String>::new(),
        "fields without a visible label"
    );
    // The four groups, in order.
    assert_eq!(
        browser.settings_legends().await,
        ["Endpoint", "Models", "Generation", "Privacy"]
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
        let placed = browser.problem_beside(field).await;
        assert_eq!(
            placed,
            serde_json::json!([true, true, true, "true", true]),
            "{field}"
        );
    }
    // Fixing the value takes the message away.
    browser.set_field("temperature", "0.7").await;
    browser
        .wait_gone("temperature-error", "the temperature message to go")
        .await;
    // Privacy says where the key is kept, and follows "Remember".
    let kept = browser.wait_testid("key-kept").await;
    assert!(kept.text().await.unwrap().contains("sessionStorage"));
    browser.click_testid("remember-key").await;
    browser
        .wait_text_contains(
            "key-kept",
            "localStorage",
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

#[tokio::test]
async fn a_later_visit_to_the_bare_address_reopens_the_last_view_and_a_link_still_wins() {
    let query = "?tab=tuner&trigger=tokens&budget=3000";
    // A first visit with a fresh profile is the welcome, with nothing in the address bar.
    let browser = Browser::new().await;
    browser.open("").await;
    browser.wait_testid("welcome").await;
    assert_eq!(browser.search().await, "");
    // A view opened once...
    browser.open(query).await;
    browser.wait_testid("panel-tuner").await;
    assert_eq!(browser.value_of("budget").await, "3000");
    // ...is what the bare address opens next time: the tab, its parameters and the link.
    browser.open("").await;
    browser.wait_testid("panel-tuner").await;
    assert_eq!(browser.value_of("trigger").await, "tokens");
    assert_eq!(browser.value_of("budget").await, "3000");
    browser
        .wait_search_is(query, "the resumed view in the link")
        .await;
    assert_eq!(browser.count_testid("welcome").await, 0);
    // A link with its own query wins over the stored view, and becomes the view resumed next.
    browser.open("?tab=tokens").await;
    browser.wait_testid("panel-tokens").await;
    assert_eq!(browser.count_testid("panel-tuner").await, 0);
    browser
        .wait_search_is("?tab=tokens", "the link's own view")
        .await;
    browser.open("").await;
    browser.wait_testid("panel-tokens").await;
    // A stored view that no longer parses is ignored, quietly: a first visit's welcome.
    browser
        .store_item("summary-memory.view", "tab=tuner&lesson=99")
        .await;
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
async fn storage_that_throws_costs_nothing_while_indexeddb_keeps_the_view() {
    // localStorage refuses the stored view both ways, as a blocked or full storage does.
    let browser = Browser::new().await;
    browser.storage_refuses("summary-memory.view").await;
    browser.open("?tab=tuner&trigger=tokens&budget=3000").await;
    browser.wait_testid("panel-tuner").await;
    assert_eq!(browser.value_of("budget").await, "3000");
    browser.click_testid("tab-tokens").await;
    browser.wait_testid("panel-tokens").await;
    // IndexedDB kept the view (`store::durable`), so the bare address still reopens it, and no
    // storage error is shown for a copy the app did not need.
    browser.open("").await;
    browser.wait_testid("panel-tokens").await;
    // Forgotten everywhere, the bare address is a first visit, and the app works.
    browser.forget_view().await;
    browser.open("").await;
    browser.wait_testid("welcome").await;
    browser.click_testid("welcome-drift").await;
    browser
        .wait_search_includes("demo=drift", "the demo started")
        .await;
    assert_eq!(browser.count_testid("store-error").await, 0);
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

// The tabs were marked up as tabs but the arrow keys did nothing, and there was no skip link.
#[tokio::test]
async fn the_tabs_follow_the_aria_pattern_and_a_skip_link_reaches_the_content() {
    let browser = Browser::new().await;
    browser.open("?tab=tuner").await;
    browser.wait_testid("panel-tuner").await;
    // The first Tab reaches the skip link, which hands the focus to the tab's content.
    browser.press(Key::Tab).await;
    assert_eq!(browser.focused().await, "skip-link");
    browser.press(Key::Enter).await;
    browser
        .wait_until(
            "document.activeElement?.id === 'panel'",
            "the focus on the content",
        )
        .await;
    // Only the selected tab is in the Tab order; the arrows, Home and End move and open.
    let in_order: Vec<String> = browser
        .read("Array.from(document.querySelectorAll('[role=tab]')).filter(t => t.tabIndex === 0).map(t => t.dataset.testid)")
        .await;
    assert_eq!(in_order, ["tab-tuner"]);
    browser.tab_to("tab-tuner").await;
    for (key, tab) in [
        (Key::Right, "tokens"),
        (Key::End, "settings"),
        (Key::Right, "chat"),
        (Key::Left, "settings"),
        (Key::Home, "chat"),
    ] {
        browser.press(key).await;
        browser.wait_testid(&format!("panel-{tab}")).await;
        assert_eq!(browser.focused().await, format!("tab-{tab}"));
        let selected: String = browser
            .read("document.querySelector('[role=tab][aria-selected=true]').dataset.testid")
            .await;
        assert_eq!(selected, format!("tab-{tab}"));
    }
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}
