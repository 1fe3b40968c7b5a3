//! The demos played from the recorded real-model run ("a real 135M model"), with no endpoint:
//! the replies and editions are SmolLM2-135M-Instruct's own, the edition cards say a model
//! wrote them and name it, and the checks run on them. And topic sections: the format chosen
//! in the policy panel prints sectioned editions whose sections show on the cards.
//!
//! They assert structure, never the model's words.

use fantoccini::Locator;
use fantoccini::elements::Element;

use crate::harness::Browser;

async fn attr(element: &Element, name: &str) -> String {
    element.attr(name).await.unwrap().unwrap_or_default()
}

async fn inside(element: &Element, testid: &str) -> Vec<Element> {
    element
        .find_all(Locator::Css(&format!("[data-testid={testid}]")))
        .await
        .unwrap()
}

#[tokio::test]
async fn the_real_135m_demo_plays_offline_with_the_models_editions_and_their_checks() {
    let browser = Browser::new().await;
    browser.open("?demo=real135m").await;
    let picker = browser.wait_testid("demo-picker").await;
    assert_eq!(
        picker.prop("value").await.unwrap().as_deref(),
        Some("real135m")
    );
    let option = browser
        .client
        .find(Locator::Css(
            "[data-testid=demo-summariser] option[value=scripted]",
        ))
        .await
        .unwrap();
    assert!(option.text().await.unwrap().contains("Recorded"));
    browser.click_testid("play-all").await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=message]').length === 12",
            "the six recorded turns",
        )
        .await;
    browser.click_testid("tab-editions").await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=edition]').length === 3",
            "the three recorded editions",
        )
        .await;
    let editions = browser.all_testid("edition").await;
    for edition in &editions {
        assert_eq!(attr(edition, "data-summariser").await, "model");
        let writer = &inside(edition, "edition-writer").await[0];
        let text = writer.text().await.unwrap();
        assert!(text.contains("SmolLM2-135M-Instruct"), "{text}");
        assert!(
            text.contains("Q4_1") && text.contains("llama-cpp-python"),
            "{text}"
        );
        // The checks run on the model's text: a survival table, and a badge per pinned fact.
        assert_eq!(inside(edition, "edition-checks").await.len(), 1);
        assert_eq!(inside(edition, "survival").await.len(), 1);
        let badges = inside(edition, "fact").await;
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
    for badge in inside(last, "fact").await {
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
    browser.open("?demo=drift").await;
    let format = browser.wait_testid("policy-format").await;
    format.select_by_value("topics").await.unwrap();
    browser.click_testid("play-all").await;
    browser.click_testid("tab-editions").await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=edition]').length === 3",
            "three editions",
        )
        .await;
    let editions = browser.all_testid("edition").await;
    for edition in &editions {
        // The scripted editions are prose, so the extractive summariser wrote the sections.
        assert_eq!(attr(edition, "data-summariser").await, "extractive");
        assert_eq!(inside(edition, "edition-sections").await.len(), 1);
        let sections = inside(edition, "edition-section").await;
        assert!(!sections.is_empty());
        let mut headings = Vec::new();
        for section in &sections {
            headings.push(attr(section, "data-heading").await);
        }
        assert!(headings.iter().all(|h| !h.is_empty()), "{headings:?}");
        assert!(headings.iter().any(|h| h == "Rules"), "{headings:?}");
    }
    // Edition 1's rule lives in its "Rules" section, with the pinned rule phrase.
    let first = inside(&editions[0], "edition-section").await;
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
    browser.open("?demo=real135m_fincoach&tab=editions").await;
    browser.click_testid("play-all-editions").await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=edition]').length === 2",
            "the two recorded editions",
        )
        .await;
    for edition in browser.all_testid("edition").await {
        assert_eq!(attr(&edition, "data-summariser").await, "model");
        let mut salary = None;
        for badge in inside(&edition, "fact").await {
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
