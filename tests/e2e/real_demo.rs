//! The demos played from the recorded real-model run ("a real 135M model"), with no endpoint:
//! the replies and editions are SmolLM2-135M-Instruct's own, the edition cards say a model
//! wrote them and name it, and the checks run on them. And topic sections: the format chosen
//! in the policy panel prints sectioned editions whose sections show on the cards.
//!
//! They assert structure, never the model's words.

use crate::harness::{Browser, attr};
use crate::pages::chat::ChatPage;
use crate::pages::editions::EditionsPage;

#[tokio::test]
async fn the_real_135m_demo_plays_offline_with_the_models_editions_and_their_checks() {
    let browser = Browser::new().await;
    let chat = ChatPage::new(&browser);
    let page = EditionsPage::new(&browser);
    browser.open("?demo=real135m").await;
    assert_eq!(browser.value_of("demo-picker").await, "real135m");
    assert!(
        chat.summariser_option("scripted")
            .await
            .contains("Recorded")
    );
    browser.click_testid("play-all").await;
    chat.wait_messages(12, "the six recorded turns").await;
    page.open().await;
    page.wait_count(3, "the three recorded editions").await;
    let editions = page.cards().await;
    for edition in &editions {
        assert_eq!(edition.attr("data-summariser").await, "model");
        let writer = &edition.inside("edition-writer").await[0];
        let text = writer.text().await.unwrap();
        assert!(text.contains("SmolLM2-135M-Instruct"), "{text}");
        assert!(
            text.contains("Q4_1") && text.contains("llama-cpp-python"),
            "{text}"
        );
        // The checks run on the model's text: a survival table, and a badge per pinned fact.
        assert_eq!(edition.inside("edition-checks").await.len(), 1);
        assert_eq!(edition.inside("survival").await.len(), 1);
        let badges = edition.facts().await;
        assert_eq!(
            badges.len(),
            3,
            "one badge per pinned fact of the drift demo"
        );
        for badge in &badges {
            assert!(matches!(
                attr(badge, "data-kept").await.as_str(),
                "true" | "false"
            ));
        }
    }
    // What the recording holds, read through the checks: the model's summaries carry figures
    // no message holds, and some pinned fact is lost by the last edition.
    assert!(browser.count_testid("unsourced-figure").await > 0);
    let last = &editions[2];
    let mut lost = 0;
    for badge in last.facts().await {
        if attr(&badge, "data-kept").await == "false"
            || attr(&badge, "data-weakened").await == "true"
        {
            lost += 1;
        }
    }
    assert!(lost > 0, "the last edition lost or weakened a pinned fact");
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn the_topic_format_prints_editions_in_sections_shown_on_the_cards() {
    let browser = Browser::new().await;
    let page = EditionsPage::new(&browser);
    browser.open("?demo=drift").await;
    ChatPage::new(&browser)
        .choose("policy-format", "topics")
        .await;
    browser.click_testid("play-all").await;
    page.open().await;
    page.wait_count(3, "three editions").await;
    let editions = page.cards().await;
    for edition in &editions {
        // The scripted editions are prose, so the extractive summariser wrote the sections.
        assert_eq!(edition.attr("data-summariser").await, "extractive");
        assert_eq!(edition.inside("edition-sections").await.len(), 1);
        let sections = edition.inside("edition-section").await;
        assert!(!sections.is_empty());
        let mut headings = Vec::new();
        for section in &sections {
            headings.push(attr(section, "data-heading").await);
        }
        assert!(headings.iter().all(|h| !h.is_empty()), "{headings:?}");
        assert!(headings.iter().any(|h| h == "Rules"), "{headings:?}");
    }
    // Edition 1's rule lives in its "Rules" section, with the pinned rule phrase.
    let first = editions[0].inside("edition-section").await;
    let mut rules_facts = String::new();
    for section in &first {
        if attr(section, "data-heading").await == "Rules" {
            rules_facts = attr(section, "data-facts").await;
        }
    }
    assert!(rules_facts.contains("never suggest"), "{rules_facts:?}");
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn the_real_135m_fincoach_demo_shows_the_salary_lost_from_the_summaries() {
    let browser = Browser::new().await;
    let page = EditionsPage::new(&browser);
    browser.open("?demo=real135m_fincoach&tab=editions").await;
    page.play_all().await;
    page.wait_count(2, "the two recorded editions").await;
    for edition in page.cards().await {
        assert_eq!(edition.attr("data-summariser").await, "model");
        let mut salary = None;
        for badge in edition.facts().await {
            if attr(&badge, "data-fact").await == "1,20,000" {
                salary = Some(attr(&badge, "data-kept").await);
            }
        }
        assert_eq!(
            salary.as_deref(),
            Some("false"),
            "the salary badge says lost"
        );
    }
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}
