//! Every engine control in the Chat tab's policy panel, driven in the page: the summary budget
//! (hierarchical compression to level 1 and up, the level on each card), the must-keep list (the
//! source's exercise: edit it and compare the editions), the fold mode (a rebuild from the
//! archive says so on its card), invalid values explained beside their fields, and the
//! summariser's own generation settings, checked in the summary requests the loopback server
//! records.

use fantoccini::Locator;
use fantoccini::elements::Element;

use crate::harness::Browser;
use crate::live::{Setup, connect, posts, send, wait_settled};
use crate::openai_server::TestServer;

async fn attr(element: &Element, name: &str) -> String {
    element.attr(name).await.unwrap().unwrap_or_default()
}

async fn child_text(element: &Element, testid: &str) -> String {
    element
        .find(Locator::Css(&format!("[data-testid={testid}]")))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// Opens a demo in the Chat tab once the vocabulary has loaded (the recount that follows it
/// replays the demo, so an edit made earlier could race it).
async fn open_demo(browser: &Browser, demo: &str) {
    browser.open(&format!("?demo={demo}")).await;
    browser
        .wait_until(
            "performance.getEntriesByName('sm-vocab-loaded-o200k_base').length > 0",
            "the o200k_base vocabulary to load",
        )
        .await;
    browser.wait_testid("policy-editor").await;
}

/// Plays the demo on screen to its end from the Editions tab and returns the editions' cards,
/// once `ready` (a script over the cards) holds.
async fn play_editions(browser: &Browser, ready: &str, what: &str) -> Vec<Element> {
    browser.click_testid("tab-editions").await;
    browser.click_testid("play-all-editions").await;
    browser.wait_until(ready, what).await;
    browser.all_testid("edition").await
}

/// The "Today" text of every edition on the page.
async fn edition_texts(browser: &Browser) -> Vec<String> {
    let mut out = Vec::new();
    for edition in browser.all_testid("edition").await {
        out.push(child_text(&edition, "edition-after").await);
    }
    out
}

#[tokio::test]
async fn a_small_summary_budget_compresses_an_edition_to_level_one_and_the_card_says_so() {
    let browser = Browser::new().await;
    open_demo(&browser, "drift").await;
    // A budget of nothing is explained beside the field and changes nothing.
    browser.set_field("policy-summary_budget", "0").await;
    let error = browser
        .wait_testid("policy-summary_budget-error")
        .await
        .text()
        .await
        .unwrap();
    assert!(error.contains("\"0\" is not valid"), "{error}");
    assert!(error.contains("empty to turn compression off"), "{error}");
    browser.set_field("policy-summary_budget", "20").await;
    browser
        .wait_until(
            "!document.querySelector('[data-testid=policy-summary_budget-error]')",
            "the error to go once the budget is valid",
        )
        .await;
    let cards = play_editions(
        &browser,
        "[...document.querySelectorAll('[data-testid=edition]')].some(e => Number(e.dataset.level) >= 1)",
        "an edition compressed to level 1 or more",
    )
    .await;
    let mut levels = Vec::new();
    for card in &cards {
        let level: u8 = attr(card, "data-level").await.parse().unwrap();
        assert!(level <= 3);
        let dateline = card
            .find(Locator::Css(".dateline"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            dateline.starts_with(&format!("Level {level} ")),
            "the level shows as text: {dateline}"
        );
        if level >= 1 {
            let headline = card
                .find(Locator::Css(".headline"))
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            assert!(
                headline.contains(&format!("compressed to level {level}")),
                "{headline}"
            );
        }
        levels.push(level);
    }
    assert!(levels.contains(&0) && levels.contains(&1), "{levels:?}");
    // The policy in use says so too.
    browser.click_testid("tab-chat").await;
    let policy = browser.wait_testid("policy").await.text().await.unwrap();
    assert!(
        policy.contains("20 tokens, then compress a level up"),
        "{policy}"
    );
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn an_edited_must_keep_list_changes_the_next_edition_and_reset_brings_the_preset_back() {
    let browser = Browser::new().await;
    open_demo(&browser, "drift").await;
    let three = "document.querySelectorAll('[data-testid=edition]').length === 3";
    play_editions(&browser, three, "the scripted editions").await;
    let scripted = edition_texts(&browser).await;

    // The source's exercise: add "hard rules the user stated" to the must-keep list.
    browser.click_testid("tab-chat").await;
    browser.click_testid("reset").await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=message]').length === 0",
            "the demo back at its start",
        )
        .await;
    let list = browser
        .wait_testid("policy-must_keep")
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(
        list.contains("salary and monthly expenses"),
        "the preset's list: {list}"
    );
    browser
        .set_field(
            "policy-must_keep",
            &format!("{list}\nhard rules the user stated"),
        )
        .await;
    let state = browser.wait_testid("policy-prompt-state").await;
    browser
        .wait_until(
            "document.querySelector('[data-testid=policy-prompt-state]').textContent.includes('Edited from the preset')",
            "the prompt marked as edited",
        )
        .await;
    assert!(state.text().await.unwrap().contains("extractive"));
    let cards = play_editions(
        &browser,
        &format!("{three} && [...document.querySelectorAll('[data-testid=edition]')].every(e => e.dataset.summariser === 'extractive')"),
        "editions written by the extractive summariser",
    )
    .await;
    let edited = edition_texts(&browser).await;
    assert_ne!(edited[0], scripted[0], "the next edition changed");
    let writer = child_text(&cards[0], "edition-writer").await;
    assert!(
        writer.contains("edited prompt"),
        "the card says who wrote it: {writer}"
    );

    // Reset to preset: the scripted editions again.
    browser.click_testid("tab-chat").await;
    browser.click_testid("reset").await;
    browser
        .set_field(
            "policy-must_keep",
            &format!("{list}\nhard rules the user stated"),
        )
        .await;
    browser.click_testid("policy-prompt-reset").await;
    let value = browser
        .wait_testid("policy-must_keep")
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default();
    assert_eq!(value, list);
    play_editions(
        &browser,
        &format!("{three} && [...document.querySelectorAll('[data-testid=edition]')].every(e => e.dataset.summariser === 'scripted')"),
        "the scripted editions after the reset",
    )
    .await;
    assert_eq!(edition_texts(&browser).await, scripted);

    // With the extractive summariser chosen, the edited list reorders what it keeps.
    browser.click_testid("tab-chat").await;
    browser
        .wait_testid("demo-picker")
        .await
        .select_by_value("fincoach")
        .await
        .unwrap();
    browser
        .wait_testid("demo-summariser")
        .await
        .select_by_value("extractive")
        .await
        .unwrap();
    let two = "document.querySelectorAll('[data-testid=edition]').length === 2";
    play_editions(&browser, two, "the extractive FinCoach editions").await;
    let plain = edition_texts(&browser).await;
    browser.click_testid("tab-chat").await;
    browser.click_testid("reset").await;
    let list = browser
        .wait_testid("policy-must_keep")
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default();
    browser
        .set_field(
            "policy-must_keep",
            &format!("{list}\nSIPs and mutual funds"),
        )
        .await;
    play_editions(&browser, two, "the FinCoach editions with the edited list").await;
    let ranked = edition_texts(&browser).await;
    assert_eq!(plain[0], ranked[0], "edition 1 has no SIP sentence to rank");
    assert_ne!(
        plain[1], ranked[1],
        "edition 2 keeps the SIP sentence first"
    );
    assert!(
        ranked[1].contains("Systematic Investment Plan (SIP) puts"),
        "{}",
        ranked[1]
    );
    assert!(
        !plain[1].contains("Systematic Investment Plan (SIP) puts"),
        "{}",
        plain[1]
    );
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn invalid_prompt_fields_are_explained_beside_them_and_change_nothing() {
    let browser = Browser::new().await;
    open_demo(&browser, "fincoach").await;
    browser.set_field("policy-word_limit", "0").await;
    let error = browser.wait_testid("policy-word_limit-error").await;
    assert_eq!(attr(&error, "role").await, "alert");
    assert!(error.text().await.unwrap().contains("\"0\" is not valid"));
    browser.set_field("policy-prompt", "   ").await;
    let error = browser.wait_testid("policy-prompt-error").await;
    assert!(error.text().await.unwrap().contains("The prompt is empty"));
    // Nothing applied: the policy in use still has the preset's limit.
    let policy = browser.wait_testid("policy").await.text().await.unwrap();
    assert!(policy.contains("80 words"), "{policy}");
    // What was typed stays.
    let typed = browser
        .wait_testid("policy-word_limit")
        .await
        .prop("value")
        .await
        .unwrap();
    assert_eq!(typed.as_deref(), Some("0"));
    browser.set_field("policy-word_limit", "40").await;
    browser.click_testid("policy-prompt-reset").await;
    browser
        .wait_until(
            "!document.querySelector('[data-testid=policy-prompt-error]') && !document.querySelector('[data-testid=policy-word_limit-error]')",
            "both errors gone after the reset",
        )
        .await;
    browser.close().await;
}

#[tokio::test]
async fn fold_mode_rebuild_builds_each_edition_from_the_archive() {
    let browser = Browser::new().await;
    open_demo(&browser, "drift").await;
    browser
        .wait_testid("policy-fold")
        .await
        .select_by_value("rebuild")
        .await
        .unwrap();
    browser.wait_testid("policy").await;
    browser
        .wait_until(
            "document.querySelector('[data-testid=policy]').textContent.includes('rebuilt from every folded turn')",
            "the policy in use to say rebuild",
        )
        .await;
    let cards = play_editions(
        &browser,
        "document.querySelectorAll('[data-testid=edition]').length === 3",
        "three rebuilt editions",
    )
    .await;
    let headline = cards[1]
        .find(Locator::Css(".headline"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(
        headline,
        "Edition 2 · turns 3–4 folded, rebuilt from the archive (turns 1–4 read, no earlier summary)"
    );
    // The scripted editions are progressive ones: the extractive summariser wrote these.
    assert_eq!(attr(&cards[1], "data-summariser").await, "extractive");
    assert!(
        child_text(&cards[1], "edition-writer")
            .await
            .contains("rebuild from the archive")
    );
    // Back to progressive, after a reset: the headline is a plain fold again.
    browser.click_testid("tab-chat").await;
    browser.click_testid("reset").await;
    browser
        .wait_until(
            "document.querySelector('[data-testid=policy-fold]').value === 'progressive'",
            "the demo's own fold mode",
        )
        .await;
    let cards = play_editions(
        &browser,
        "document.querySelectorAll('[data-testid=edition]').length === 3",
        "three progressive editions",
    )
    .await;
    let headline = cards[1]
        .find(Locator::Css(".headline"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(headline, "Edition 2 · turns 3–4 folded");
    browser.close().await;
}

#[tokio::test]
async fn the_summarisers_own_settings_reach_every_summary_request_and_not_the_chats() {
    let server = TestServer::start().await;
    let browser = Browser::new().await;
    let mut setup = Setup::new(&server.base_url);
    setup.max_tokens = Some("64");
    connect(&browser, setup).await;
    browser.wait_testid("summary-settings").await;
    // A bad value is explained beside its field.
    browser.set_field("summary-temperature", "hot").await;
    let error = browser.wait_testid("summary-temperature-error").await;
    let text = error.text().await.unwrap();
    assert!(
        text.contains("summariser") && text.contains("\"hot\""),
        "{text}"
    );
    browser.set_field("summary-temperature", "0").await;
    browser.set_field("summary-max_tokens", "1000").await;
    browser
        .wait_testid("summary-reasoning_effort")
        .await
        .select_by_value("high")
        .await
        .unwrap();
    browser
        .wait_until(
            "!document.querySelector('[data-testid=summary-temperature-error]') && \
             !document.querySelector(\"[data-testid='chat-input']\").disabled",
            "valid settings and the message box enabled",
        )
        .await;
    // Rebuild from the archive, so the second summary reads every folded turn.
    browser
        .wait_testid("policy-fold")
        .await
        .select_by_value("rebuild")
        .await
        .unwrap();
    for n in 1..=6 {
        send(&browser, &format!("question {n}")).await;
        wait_settled(&browser, 2 * n).await;
    }
    browser
        .wait_until(
            "document.querySelectorAll(\"[data-state='folded']\").length === 8",
            "two summary cycles",
        )
        .await;
    let bodies = posts(&server);
    let (summaries, chats): (Vec<_>, Vec<_>) =
        bodies.iter().partition(|b| b["model"] == "test-summary");
    assert_eq!((summaries.len(), chats.len()), (2, 6), "{bodies:#?}");
    for summary in &summaries {
        assert_eq!(summary["max_tokens"], 1000, "{summary}");
        assert_eq!(summary["temperature"], 0.0, "{summary}");
        assert_eq!(summary["reasoning_effort"], "high", "{summary}");
    }
    for chat in &chats {
        assert_eq!(chat["max_tokens"], 64, "{chat}");
        assert!(chat.get("temperature").is_none(), "{chat}");
        assert!(chat.get("reasoning_effort").is_none(), "{chat}");
    }
    // The second summary was rebuilt from the archive: turn 1 again, no earlier summary.
    let second = summaries[1].to_string();
    assert!(
        second.contains("question 1") && second.contains("question 4"),
        "{second}"
    );
    assert!(!second.contains("EXISTING SUMMARY"), "{second}");
    browser.click_testid("tab-editions").await;
    browser
        .wait_until(
            "[...document.querySelectorAll('[data-testid=edition] .headline')].some(h => h.textContent.includes('rebuilt from the archive'))",
            "the live chat's rebuilt edition",
        )
        .await;
    browser.close().await;
}
