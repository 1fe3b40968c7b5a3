//! Every engine control in the Chat tab's policy panel, driven in the page: the summary budget
//! (hierarchical compression to level 1 and up, the level on each card), the must-keep list (the
//! source's exercise: edit it and compare the editions), the fold mode (a rebuild from the
//! archive says so on its card), invalid values explained beside their fields, and the
//! summariser's own generation settings, checked in the summary requests the loopback server
//! records.

use crate::harness::{Browser, attr, posts};
use crate::openai_server::TestServer;
use crate::pages::chat::{ChatPage, Setup};
use crate::pages::editions::EditionsPage;

/// Opens a demo in the Chat tab with the vocabulary loaded (the recount that follows it
/// replays the demo, so an edit made earlier could race it). The demo itself needs no
/// vocabulary (its counts were computed at build time): opening Tokens fetches it.
async fn open_demo(browser: &Browser, demo: &str) {
    browser.open(&format!("?demo={demo}")).await;
    browser.click_testid("tab-tokens").await;
    browser.wait_testid("panel-tokens").await;
    browser.wait_vocabulary().await;
    browser.click_testid("tab-chat").await;
    browser.wait_testid("policy-editor").await;
}

/// Plays the demo on screen to its end from the Editions tab.
async fn play_editions(editions: &EditionsPage<'_>) {
    editions.open().await;
    editions.play_all().await;
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
        .wait_gone(
            "policy-summary_budget-error",
            "the error to go once the budget is valid",
        )
        .await;
    let editions = EditionsPage::new(&browser);
    play_editions(&editions).await;
    editions
        .wait_level_at_least(1, "an edition compressed to level 1 or more")
        .await;
    let mut levels = Vec::new();
    for card in &editions.cards().await {
        let level: u8 = card.attr("data-level").await.parse().unwrap();
        assert!(level <= 3);
        let dateline = card.dateline().await;
        assert!(
            dateline.starts_with(&format!("Level {level} ")),
            "the level shows as text: {dateline}"
        );
        if level >= 1 {
            let headline = card.headline().await;
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
    let policy = ChatPage::new(&browser).policy().await;
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
    let chat = ChatPage::new(&browser);
    let editions = EditionsPage::new(&browser);
    open_demo(&browser, "drift").await;
    play_editions(&editions).await;
    editions.wait_count(3, "the scripted editions").await;
    let scripted = editions.after_texts().await;

    // The source's exercise: add "hard rules the user stated" to the must-keep list.
    browser.click_testid("tab-chat").await;
    browser.click_testid("reset").await;
    chat.wait_messages(0, "the demo back at its start").await;
    let list = browser.value_of("policy-must_keep").await;
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
        .wait_text_contains(
            "policy-prompt-state",
            "Edited from the preset",
            "the prompt marked as edited",
        )
        .await;
    assert!(state.text().await.unwrap().contains("extractive"));
    play_editions(&editions).await;
    editions
        .wait_written_by(
            "extractive",
            Some(3),
            "editions written by the extractive summariser",
        )
        .await;
    let cards = editions.cards().await;
    let edited = editions.after_texts().await;
    assert_ne!(edited[0], scripted[0], "the next edition changed");
    let writer = cards[0].part("edition-writer").await;
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
    assert_eq!(browser.value_of("policy-must_keep").await, list);
    play_editions(&editions).await;
    editions
        .wait_written_by("scripted", Some(3), "the scripted editions after the reset")
        .await;
    assert_eq!(editions.after_texts().await, scripted);

    // With the extractive summariser chosen, the edited list reorders what it keeps.
    browser.click_testid("tab-chat").await;
    chat.pick_demo("fincoach").await;
    chat.pick_summariser("extractive").await;
    play_editions(&editions).await;
    editions
        .wait_count(2, "the extractive FinCoach editions")
        .await;
    let plain = editions.after_texts().await;
    browser.click_testid("tab-chat").await;
    browser.click_testid("reset").await;
    let list = browser.value_of("policy-must_keep").await;
    browser
        .set_field(
            "policy-must_keep",
            &format!("{list}\nSIPs and mutual funds"),
        )
        .await;
    play_editions(&editions).await;
    editions
        .wait_count(2, "the FinCoach editions with the edited list")
        .await;
    let ranked = editions.after_texts().await;
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
    let policy = ChatPage::new(&browser).policy().await;
    assert!(policy.contains("80 words"), "{policy}");
    // What was typed stays.
    assert_eq!(browser.value_of("policy-word_limit").await, "0");
    browser.set_field("policy-word_limit", "40").await;
    browser.click_testid("policy-prompt-reset").await;
    browser
        .wait_all_gone(
            &["policy-prompt-error", "policy-word_limit-error"],
            "both errors gone after the reset",
        )
        .await;
    browser.close().await;
}

#[tokio::test]
async fn fold_mode_rebuild_builds_each_edition_from_the_archive() {
    let browser = Browser::new().await;
    let chat = ChatPage::new(&browser);
    let editions = EditionsPage::new(&browser);
    open_demo(&browser, "drift").await;
    chat.choose("policy-fold", "rebuild").await;
    browser.wait_testid("policy").await;
    browser
        .wait_text_contains(
            "policy",
            "rebuilt from every folded turn",
            "the policy in use to say rebuild",
        )
        .await;
    play_editions(&editions).await;
    editions.wait_count(3, "three rebuilt editions").await;
    let cards = editions.cards().await;
    let headline = cards[1].headline().await;
    assert_eq!(
        headline,
        "Edition 2 · turns 3–4 folded, rebuilt from the archive (turns 1–4 read, no earlier summary)"
    );
    // The scripted editions are progressive ones: the extractive summariser wrote these.
    assert_eq!(cards[1].attr("data-summariser").await, "extractive");
    assert!(
        cards[1]
            .part("edition-writer")
            .await
            .contains("rebuild from the archive")
    );
    // Back to progressive, after a reset: the headline is a plain fold again.
    browser.click_testid("tab-chat").await;
    browser.click_testid("reset").await;
    browser
        .wait_value("policy-fold", "progressive", "the demo's own fold mode")
        .await;
    play_editions(&editions).await;
    editions.wait_count(3, "three progressive editions").await;
    let cards = editions.cards().await;
    assert_eq!(cards[1].headline().await, "Edition 2 · turns 3–4 folded");
    browser.close().await;
}

#[tokio::test]
async fn the_summarisers_own_settings_reach_every_summary_request_and_not_the_chats() {
    let server = TestServer::start().await;
    let browser = Browser::new().await;
    let mut setup = Setup::new(&server.base_url);
    setup.max_tokens = Some("64");
    let chat = ChatPage::connect(&browser, setup).await;
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
    chat.choose("summary-reasoning_effort", "high").await;
    chat.wait_enabled_without(
        "summary-temperature-error",
        "valid settings and the message box enabled",
    )
    .await;
    // Rebuild from the archive, so the second summary reads every folded turn.
    chat.choose("policy-fold", "rebuild").await;
    for n in 1..=6 {
        chat.send(&format!("question {n}")).await;
        chat.wait_settled(2 * n).await;
    }
    chat.wait_in_state("folded", 8, "two summary cycles").await;
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
    let editions = EditionsPage::new(&browser);
    editions.open().await;
    editions
        .wait_headline_contains(
            "rebuilt from the archive",
            "the live chat's rebuilt edition",
        )
        .await;
    browser.close().await;
}

/// The exact policy in plain words: the whole policy in one line above the section; a field
/// changed from its default is marked (its class, `data-changed` and a visible "changed" with a
/// Reset) and the line says what it changed; Reset takes both back.
#[tokio::test]
async fn a_changed_exact_field_is_marked_and_said_in_the_line_and_reset_unmarks_it() {
    let browser = Browser::new().await;
    let chat = ChatPage::new(&browser);
    open_demo(&browser, "drift").await;
    let before = browser.text_content("policy-exact-summary").await;
    assert!(before.starts_with("checked after each reply; "), "{before}");
    assert!(
        before.contains("the summary is sent as a second system message"),
        "{before}"
    );
    chat.open_exact().await;
    assert_eq!(chat.exact_marks("exact_check").await, (false, false, false));
    let folded = browser.text_content("policy-exact-defaults").await;
    assert!(folded.contains("11 more at their defaults"), "{folded}");

    chat.choose("policy-exact_check", "before_request").await;
    browser
        .wait_text_contains(
            "policy-exact-summary",
            "checked before each request; ",
            "the line to say when the policy looks now",
        )
        .await;
    browser
        .wait_until(
            "document.querySelector(\"[data-testid='policy-exact_check-field']\").dataset.changed === 'true'",
            "the field marked changed",
        )
        .await;
    assert_eq!(chat.exact_marks("exact_check").await, (true, true, true));
    for other in ["exact_counted", "exact_keep", "exact_summary_at"] {
        assert_eq!(
            chat.exact_marks(other).await,
            (false, false, false),
            "{other}"
        );
    }
    let line = browser.text_content("policy-exact-summary").await;
    assert_eq!(
        line.replace(
            "checked before each request; ",
            "checked after each reply; "
        ),
        before,
        "only when it looks changed"
    );

    browser.click_testid("policy-exact_check-reset").await;
    browser
        .wait_gone("policy-exact_check-reset", "Reset to go with the mark")
        .await;
    assert_eq!(chat.exact_marks("exact_check").await, (false, false, false));
    assert_eq!(browser.value_of("policy-exact_check").await, "after_reply");
    browser
        .wait_until(
            &format!(
                "document.querySelector(\"[data-testid='policy-exact-summary']\").textContent === {}",
                serde_json::json!(before)
            ),
            "the line back to today's rules",
        )
        .await;
    // The counter is a field too (issue #39): picked, it is said in the line, and marked.
    chat.open_exact().await;
    chat.choose("policy-exact_counter", "langchain-approx")
        .await;
    browser
        .wait_text_contains(
            "policy-exact-summary",
            "the dry runs count tokens with LangChain's count_tokens_approximately",
            "the line to name the counter",
        )
        .await;
    assert_eq!(chat.exact_marks("exact_counter").await, (true, true, true));
    browser.click_testid("policy-exact_counter-reset").await;
    browser
        .wait_gone("policy-exact_counter-reset", "Reset to go with the mark")
        .await;
    assert_eq!(browser.value_of("policy-exact_counter").await, "o200k");
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}
