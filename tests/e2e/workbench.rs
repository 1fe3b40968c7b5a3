//! The workbench's editing controls: the Chat side panel's memory policy, and Restore and Edit on
//! each edition.

use fantoccini::Locator;
use summary_memory::engine::demo::DemoSummariser;
use summary_memory::engine::{DemoPlayer, DemoScript, Policy, Trigger, WordCounter};

use crate::harness::Browser;

/// Opens the drift demo in the Editions tab and plays it to its three editions; returns the
/// engine's own run of it, to compare the page against.
async fn drift_played_in_editions(browser: &Browser) -> DemoPlayer {
    browser.open("?demo=drift&tab=editions").await;
    browser.click_testid("play-all-editions").await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=edition]').length === 3",
            "three editions",
        )
        .await;
    let mut engine =
        DemoPlayer::with_summariser(DemoScript::drift(), DemoSummariser::Scripted).unwrap();
    engine.play_all(&WordCounter).unwrap();
    engine
}

#[tokio::test]
async fn changing_the_trigger_in_the_panel_moves_the_summary_cycle() {
    let browser = Browser::new().await;
    browser.open("?demo=fincoach").await;
    // The demo is replayed with exact counts once the vocabulary arrives; edit the panel after
    // that, so the edit and the recount never race on a loaded machine.
    browser
        .wait_until(
            "performance.getEntriesByName('sm-vocab-loaded-o200k_base').length > 0",
            "the o200k_base vocabulary to load",
        )
        .await;
    // Summarise at 2 turns while keeping 2 is invalid: the panel says so and nothing applies.
    browser.type_into("policy-max_turns", "2").await;
    let error = browser.wait_testid("param-error").await;
    assert!(
        error
            .text()
            .await
            .unwrap()
            .contains("keep (2) must be smaller"),
        "{}",
        error.text().await.unwrap()
    );
    browser.type_into("policy-keep", "1").await;
    browser
        .wait_until(
            "!document.querySelector('[data-testid=param-error]')",
            "the error to clear",
        )
        .await;
    // Under the script's policy (4, keep 2) turn 2's reply folds nothing; under (2, keep 1) it
    // folds turn 1: ask 1, reply 1, ask 2, reply 2, then the cycle.
    for _ in 0..5 {
        browser.click_testid("step").await;
    }
    let summary = browser.wait_testid("summary").await;
    assert!(summary.text().await.unwrap().contains("1,20,000"));
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=message][data-state=folded]').length === 2",
            "turn 1 folded",
        )
        .await;
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
    browser
        .wait_until(
            "document.querySelector('[data-testid=progress]')?.textContent.includes('finished')",
            "the demo to finish",
        )
        .await;
    assert_eq!(
        browser.wait_testid("summary").await.text().await.unwrap(),
        engine.summary().unwrap()
    );
    browser.click_testid("tab-editions").await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=edition]').length === 5",
            "five editions, one per turn from turn 2",
        )
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
        .wait_until(
            "document.querySelectorAll('[data-testid=pinned-fact]').length === 3",
            "the new fact pinned",
        )
        .await;
    // Unpin the first (the salary).
    browser.click_testid("unpin-fact").await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=pinned-fact]').length === 2",
            "the salary unpinned",
        )
        .await;
    let placement = browser.wait_testid("policy-placement").await;
    placement.select_by_value("user_ack").await.unwrap();
    browser.click_testid("play-all").await;
    browser
        .wait_until(
            "document.querySelector('[data-testid=policy]')?.textContent.includes('as a user message')",
            "the placement in use",
        )
        .await;
    browser.click_testid("tab-editions").await;
    browser.wait_testid("edition").await;
    let phrases: Vec<String> = {
        let mut out = Vec::new();
        let first = &browser.all_testid("edition").await[0];
        for badge in first
            .find_all(Locator::Css("[data-testid=fact]"))
            .await
            .unwrap()
        {
            out.push(badge.attr("data-fact").await.unwrap().unwrap_or_default());
        }
        out
    };
    assert_eq!(phrases, ["equit", "emergency fund"]);
    browser.close().await;
}

#[tokio::test]
async fn restore_brings_back_an_old_edition_as_the_summary() {
    let browser = Browser::new().await;
    let engine = drift_played_in_editions(&browser).await;
    let first = engine.editions()[0].summary.clone();
    let editions = browser.all_testid("edition").await;
    editions[0]
        .find(Locator::Css("[data-testid=edition-restore]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=edition]').length === 4",
            "a fourth edition",
        )
        .await;
    let fourth = &browser.all_testid("edition").await[3];
    assert_eq!(
        fourth
            .find(Locator::Css("h3"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
        "Edition 4 · edition 1 restored"
    );
    browser.click_testid("tab-chat").await;
    assert_eq!(
        browser.wait_testid("summary").await.text().await.unwrap(),
        first
    );
    browser.close().await;
}

#[tokio::test]
async fn edit_saves_a_hand_edited_edition_and_escape_cancels() {
    let browser = Browser::new().await;
    browser.open("?demo=fincoach&tab=editions").await;
    browser.click_testid("play-all-editions").await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=edition]').length === 2",
            "two editions",
        )
        .await;
    // Esc closes the editor without saving.
    let last = browser.all_testid("edition").await.pop().unwrap();
    let editor = browser.open_edition_editor(&last).await;
    editor.send_keys("\u{e00c}").await.unwrap();
    browser
        .wait_until(
            "!document.querySelector('[data-testid=edition-editor]')",
            "Esc to close the editor",
        )
        .await;
    assert_eq!(browser.count_testid("edition").await, 2);

    let last = browser.all_testid("edition").await.pop().unwrap();
    browser
        .edit_edition(
            &last,
            "The user earns ₹1,20,000 a month and never wants equities.",
        )
        .await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=edition]').length === 3",
            "a third edition",
        )
        .await;
    let third = browser.all_testid("edition").await.pop().unwrap();
    assert_eq!(
        third
            .find(Locator::Css("h3"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
        "Edition 3 · edited by hand"
    );
    browser.click_testid("tab-chat").await;
    assert_eq!(
        browser.wait_testid("summary").await.text().await.unwrap(),
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
    let attribute = "document.documentElement.getAttribute('data-theme')";
    // System, then light, then dark.
    toggle.click().await.unwrap();
    browser
        .wait_until(&format!("{attribute} === 'light'"), "the light theme")
        .await;
    browser.click_testid("theme-toggle").await;
    browser
        .wait_until(&format!("{attribute} === 'dark'"), "the dark theme")
        .await;
    browser.client.refresh().await.unwrap();
    browser.wait_testid("tab-chat").await;
    browser
        .wait_until(&format!("{attribute} === 'dark'"), "dark after a reload")
        .await;
    assert_eq!(
        browser
            .wait_testid("theme-toggle")
            .await
            .text()
            .await
            .unwrap(),
        "Theme: dark"
    );
    // The page really is dark: the body's background follows the theme's paper colour.
    let background = browser
        .client
        .execute(
            "return getComputedStyle(document.body).backgroundColor",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(background, "rgb(23, 25, 28)");
    browser.click_testid("theme-toggle").await;
    browser
        .wait_until(&format!("{attribute} === null"), "back to the system's")
        .await;
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
        browser.wait_testid(testid).await;
        browser
            .client
            .execute(
                "const input = document.querySelector(`[data-testid='${arguments[0]}']`); \
                 input.value = arguments[1]; \
                 input.dispatchEvent(new Event('input', { bubbles: true }));",
                vec![serde_json::json!(testid), serde_json::json!(value)],
            )
            .await
            .unwrap();
    }
    let field = browser.wait_testid("summary-model").await;
    assert_eq!(field.prop("value").await.unwrap().unwrap_or_default(), "");
    assert_eq!(
        field.attr("placeholder").await.unwrap().as_deref(),
        Some("the chat model")
    );
    browser.click_testid("tab-chat").await;
    browser
        .wait_until(
            "!document.querySelector(\"[data-testid='chat-input']\").disabled",
            "the message box to be enabled without a summariser model",
        )
        .await;
    browser.close().await;
}

#[tokio::test]
async fn the_timeline_steps_through_the_cycles_and_plays_the_rewrite_to_the_end() {
    let browser = Browser::new().await;
    let engine = drift_played_in_editions(&browser).await;
    let cycle = "document.querySelector('[data-testid=timeline]').dataset.cycle";
    browser
        .wait_until(&format!("{cycle} === '1'"), "the first cycle")
        .await;
    browser.click_testid("timeline-next").await;
    browser
        .wait_until(&format!("{cycle} === '2'"), "the second cycle")
        .await;
    // The arrow keys step too, from any control of the timeline (Next is disabled at the end).
    let play = browser.wait_testid("timeline-play").await;
    play.send_keys("\u{e014}").await.unwrap();
    browser
        .wait_until(&format!("{cycle} === '3'"), "the third cycle by keyboard")
        .await;
    play.send_keys("\u{e012}").await.unwrap();
    browser
        .wait_until(&format!("{cycle} === '2'"), "back to the second")
        .await;
    let position = browser.wait_testid("timeline-position").await;
    assert!(
        position
            .text()
            .await
            .unwrap()
            .starts_with("2 of 3: Edition 2")
    );

    browser.click_testid("timeline-play").await;
    let rewrite = "document.querySelector('[data-testid=rewrite]')";
    browser
        .wait_until(
            &format!("+{rewrite}.dataset.step < +{rewrite}.dataset.steps"),
            "the animation to start",
        )
        .await;
    browser
        .wait_until(
            &format!("{rewrite}.querySelector('del.leaving, ins.arriving')"),
            "words being struck or added",
        )
        .await;
    browser
        .wait_until(
            &format!("{rewrite}.dataset.step === {rewrite}.dataset.steps"),
            "the animation to finish",
        )
        .await;
    let text = browser.wait_testid("rewrite").await.text().await.unwrap();
    let expected = &engine.editions()[1].summary;
    assert_eq!(
        text.split_whitespace().collect::<Vec<_>>(),
        expected.split_whitespace().collect::<Vec<_>>()
    );
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}
