//! The workbench's editing controls: the Chat side panel's memory policy, and Restore and Edit on
//! each edition.

use summary_memory::engine::demo::DemoSummariser;
use summary_memory::engine::{DemoPlayer, DemoScript, Policy, Trigger, WordCounter};

use crate::harness::Browser;
use crate::pages::chat::ChatPage;
use crate::pages::editions::EditionsPage;

/// Opens the drift demo in the Editions tab and plays it to its three editions; returns the
/// engine's own run of it, to compare the page against.
async fn drift_played_in_editions(browser: &Browser) -> DemoPlayer {
    browser.open("?demo=drift&tab=editions").await;
    let editions = EditionsPage::new(browser);
    editions.play_all().await;
    editions.wait_count(3, "three editions").await;
    let mut engine =
        DemoPlayer::with_summariser(DemoScript::drift(), DemoSummariser::Scripted).unwrap();
    engine.play_all(&WordCounter).unwrap();
    engine
}

#[tokio::test]
async fn changing_the_trigger_in_the_panel_moves_the_summary_cycle() {
    let browser = Browser::new().await;
    let chat = ChatPage::new(&browser);
    browser.open("?demo=fincoach").await;
    // The demo needs no vocabulary (its counts were computed at build time), but the edit below
    // gives it texts the build did not count, which fetch one; the demo is replayed with exact
    // counts once it arrives. Fetch it first (opening Tokens does) and edit the panel after
    // that, so the edit and the recount never race on a loaded machine.
    browser.click_testid("tab-tokens").await;
    browser.wait_testid("panel-tokens").await;
    browser.wait_vocabulary().await;
    browser.click_testid("tab-chat").await;
    // Summarise at 2 turns while keeping 2 is invalid: the panel says so and nothing applies.
    browser.type_into("policy-max_turns", "2").await;
    let error = browser.text_of("param-error").await;
    assert!(error.contains("keep (2) must be smaller"), "{error}");
    browser.type_into("policy-keep", "1").await;
    browser.wait_gone("param-error", "the error to clear").await;
    // Under the script's policy (4, keep 2) turn 2's reply folds nothing; under (2, keep 1) it
    // folds turn 1: ask 1, reply 1, ask 2, reply 2, then the cycle.
    chat.step(5).await;
    assert!(chat.summary().await.contains("1,20,000"));
    chat.wait_in_state("folded", 2, "turn 1 folded").await;
    browser.click_testid("play-all").await;

    let mut engine =
        DemoPlayer::with_summariser(DemoScript::fincoach(), DemoSummariser::Scripted).unwrap();
    let policy = Policy {
        trigger: Trigger::Turns {
            max_turns: 2,
            keep: 1,
        },
        ..engine.memory().policy().clone()
    };
    let facts = engine.pinned().to_vec();
    engine.set_policy(policy, facts).unwrap();
    engine.play_all(&WordCounter).unwrap();
    assert_eq!(engine.editions().len(), 5);
    chat.wait_demo_finished().await;
    assert_eq!(chat.summary().await, engine.summary().unwrap());
    let editions = EditionsPage::new(&browser);
    editions.open().await;
    editions
        .wait_count(5, "five editions, one per turn from turn 2")
        .await;
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn pinned_facts_are_added_and_removed_in_the_panel_and_badged_in_the_editions() {
    let browser = Browser::new().await;
    browser.open("?demo=fincoach").await;
    assert_eq!(browser.count_testid("pinned-fact").await, 2);
    browser.click_testid("fact-add").await;
    browser.wait_testid("fact-error").await;
    browser.type_into("fact-input", "emergency fund").await;
    browser.click_testid("fact-add").await;
    browser
        .wait_count("pinned-fact", 3, "the new fact pinned")
        .await;
    // Unpin the first (the salary).
    browser.click_testid("unpin-fact").await;
    browser
        .wait_count("pinned-fact", 2, "the salary unpinned")
        .await;
    ChatPage::new(&browser)
        .choose("policy-placement", "user_ack")
        .await;
    browser.click_testid("play-all").await;
    browser
        .wait_text_contains("policy", "as a user message", "the placement in use")
        .await;
    let editions = EditionsPage::new(&browser);
    editions.open().await;
    browser.wait_testid("edition").await;
    let phrases = editions.cards().await[0].fact_phrases().await;
    assert_eq!(phrases, ["equit", "emergency fund"]);
    browser.close().await;
}

#[tokio::test]
async fn restore_brings_back_an_old_edition_as_the_summary() {
    let browser = Browser::new().await;
    let engine = drift_played_in_editions(&browser).await;
    let first = engine.editions()[0].summary.clone();
    let editions = EditionsPage::new(&browser);
    editions.cards().await[0].restore().await;
    editions.wait_count(4, "a fourth edition").await;
    let fourth = &editions.cards().await[3];
    assert_eq!(fourth.heading().await, "Edition 4 · edition 1 restored");
    browser.click_testid("tab-chat").await;
    assert_eq!(ChatPage::new(&browser).summary().await, first);
    browser.close().await;
}

#[tokio::test]
async fn edit_saves_a_hand_edited_edition_and_escape_cancels() {
    let browser = Browser::new().await;
    let editions = EditionsPage::new(&browser);
    browser.open("?demo=fincoach&tab=editions").await;
    editions.play_all().await;
    editions.wait_count(2, "two editions").await;
    // Esc closes the editor without saving.
    let last = editions.cards().await.pop().unwrap();
    let editor = editions.open_editor(&last).await;
    editor.send_keys("\u{e00c}").await.unwrap();
    browser
        .wait_gone("edition-editor", "Esc to close the editor")
        .await;
    assert_eq!(browser.count_testid("edition").await, 2);

    let last = editions.cards().await.pop().unwrap();
    editions
        .edit(
            &last,
            "The user earns ₹1,20,000 a month and never wants equities.",
        )
        .await;
    editions.wait_count(3, "a third edition").await;
    let third = editions.cards().await.pop().unwrap();
    assert_eq!(third.heading().await, "Edition 3 · edited by hand");
    browser.click_testid("tab-chat").await;
    assert_eq!(
        ChatPage::new(&browser).summary().await,
        "The user earns ₹1,20,000 a month and never wants equities."
    );
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn the_theme_toggle_is_remembered_across_a_reload() {
    let browser = Browser::new().await;
    browser.open("").await;
    let toggle = browser.wait_testid("theme-toggle").await;
    assert_eq!(toggle.text().await.unwrap(), "Theme: follow the system");
    // System, then light, then dark.
    toggle.click().await.unwrap();
    browser.wait_theme(Some("light"), "the light theme").await;
    browser.click_testid("theme-toggle").await;
    browser.wait_theme(Some("dark"), "the dark theme").await;
    browser.client.refresh().await.unwrap();
    browser.wait_testid("tab-chat").await;
    browser
        .wait_theme(Some("dark"), "dark after a reload")
        .await;
    assert_eq!(browser.text_of("theme-toggle").await, "Theme: dark");
    // The page really is dark: the body's background follows the theme's paper colour.
    assert_eq!(browser.body_background().await, "rgb(23, 25, 28)");
    browser.click_testid("theme-toggle").await;
    browser.wait_theme(None, "back to the system's").await;
    browser.close().await;
}

#[tokio::test]
async fn a_chat_model_alone_is_enough_to_chat_live() {
    let browser = Browser::new().await;
    browser.open("?tab=settings").await;
    for (testid, value) in [
        ("base-url", "http://127.0.0.1:9/v1"),
        ("chat-model", "test-chat"),
    ] {
        browser.set_field(testid, value).await;
    }
    let field = browser.wait_testid("summary-model").await;
    assert_eq!(field.prop("value").await.unwrap().unwrap_or_default(), "");
    assert_eq!(
        field.attr("placeholder").await.unwrap().as_deref(),
        Some("the chat model")
    );
    browser.click_testid("tab-chat").await;
    ChatPage::new(&browser)
        .wait_enabled("the message box to be enabled without a summariser model")
        .await;
    browser.close().await;
}

#[tokio::test]
async fn the_timeline_steps_through_the_cycles_and_plays_the_rewrite_to_the_end() {
    let browser = Browser::new().await;
    let engine = drift_played_in_editions(&browser).await;
    let editions = EditionsPage::new(&browser);
    editions.wait_timeline_cycle(1, "the first cycle").await;
    browser.click_testid("timeline-next").await;
    editions.wait_timeline_cycle(2, "the second cycle").await;
    // The arrow keys step too, from any control of the timeline (Next is disabled at the end).
    let play = browser.wait_testid("timeline-play").await;
    play.send_keys("\u{e014}").await.unwrap();
    editions
        .wait_timeline_cycle(3, "the third cycle by keyboard")
        .await;
    play.send_keys("\u{e012}").await.unwrap();
    editions.wait_timeline_cycle(2, "back to the second").await;
    assert!(
        editions
            .timeline_position()
            .await
            .starts_with("2 of 3: Edition 2")
    );

    browser.click_testid("timeline-play").await;
    editions.wait_rewrite_started().await;
    editions.wait_rewrite_moving().await;
    editions.wait_rewrite_done().await;
    let text = editions.rewrite_text().await;
    let expected = &engine.editions()[1].summary;
    assert_eq!(
        text.split_whitespace().collect::<Vec<_>>(),
        expected.split_whitespace().collect::<Vec<_>>()
    );
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}
