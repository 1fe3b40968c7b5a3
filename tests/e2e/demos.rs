//! The bundled demos, played offline in the Chat tab and read back in the Editions tab. What the
//! page shows is checked against the engine itself, played natively with the same counter.

use summary_memory::engine::demo::DemoSummariser;
use summary_memory::engine::{DemoPlayer, DemoScript, WordCounter};

use crate::harness::{Browser, attr};
use crate::pages::chat::ChatPage;
use crate::pages::editions::EditionsPage;

/// The engine's own run of a demo with the page's default summariser (the scripted one), to
/// compare the page against.
fn played(script: DemoScript) -> DemoPlayer {
    let mut player = DemoPlayer::with_summariser(script, DemoSummariser::Scripted).unwrap();
    player.play_all(&WordCounter).unwrap();
    player
}

#[tokio::test]
async fn fincoach_answers_turn_6_from_the_summary_without_an_endpoint() {
    let browser = Browser::new().await;
    let chat = ChatPage::new(&browser);
    browser.open("?demo=fincoach").await;
    assert!(browser.all_testid("summary").await.is_empty());
    // The message box is there but disabled: without an endpoint nothing is sent or faked.
    assert!(!browser.is_enabled("send").await);

    // Step until turn 6's question has been sent: 5 turns of two messages, one cycle, one question.
    chat.step(5 * 2 + 1 + 1).await;
    chat.wait_last_request_turn(6).await;
    let request = browser.wait_testid("last-request").await;
    assert_eq!(attr(&request, "data-summary-sent").await, "true");
    assert!(request.text().await.unwrap().contains("summary sent"));
    let summary = chat.summary().await;
    assert!(summary.contains("1,20,000"), "{summary}");

    let shown = chat.rendered_messages().await;
    assert_eq!(shown.len(), 11);
    let folded: Vec<&str> = shown
        .iter()
        .filter(|m| m.1 == "folded")
        .map(|m| m.0.as_str())
        .collect();
    assert_eq!(folded, ["user", "assistant", "user", "assistant"]);
    // The salary is in no verbatim message: only the summary carries it to turn 6.
    assert!(
        shown
            .iter()
            .filter(|m| m.1 == "verbatim")
            .all(|m| !m.2.contains("1,20,000"))
    );
    assert!(shown[0].2.contains("₹1,20,000"));

    browser.click_testid("play-all").await;
    chat.wait_in_state("folded", 8, "the second cycle to fold turns 3 and 4")
        .await;
    let engine = played(DemoScript::fincoach());
    assert_eq!(chat.summary().await, engine.summary().unwrap());
    let last = chat.rendered_messages().await.pop().unwrap();
    assert_eq!(last.0, "assistant");
    assert!(last.2.contains("₹1,20,000"));
    assert!(!browser.is_enabled("step").await);

    // The editions survive the change of tab: the state lives at the app root.
    let editions = EditionsPage::new(&browser);
    editions.open().await;
    editions.wait_count(2, "two editions").await;
    let cards = editions.cards().await;
    for (card, expect) in cards.iter().zip(engine.editions()) {
        assert_eq!(card.attr("data-cycle").await, expect.cycle.to_string());
        assert_eq!(card.attr("data-overrun").await, expect.overrun.to_string());
        assert!(
            card.part("edition-words")
                .await
                .starts_with(&format!("{} words of 80", expect.words))
        );
        assert!(card.marks_added_words().await);
    }
    let second = &cards[1];
    assert_eq!(second.heading().await, "Edition 2 · turns 3–4 folded");
    assert!(
        second.marks_removed_words().await,
        "edition 2 drops words of edition 1"
    );
    assert!(
        second
            .part("edition-before")
            .await
            .contains(engine.editions()[0].summary.as_str())
    );
    check_fact_badges(&browser, &engine).await;
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn drift_prints_three_editions_and_tracks_the_rule() {
    let browser = Browser::new().await;
    let chat = ChatPage::new(&browser);
    let editions = EditionsPage::new(&browser);
    browser.open("").await;
    // Picking a demo loads it and writes it into the link.
    chat.pick_demo("drift").await;
    browser
        .wait_search_includes("demo=drift", "demo=drift in the link")
        .await;
    browser.click_testid("play-all").await;
    chat.wait_in_state("folded", 12, "all twelve messages folded")
        .await;
    editions.open().await;
    editions.wait_count(3, "three editions").await;
    let engine = played(DemoScript::drift());
    let mut cycles = Vec::new();
    for card in editions.cards().await {
        cycles.push(card.attr("data-cycle").await);
    }
    assert_eq!(cycles, ["1", "2", "3"]);
    check_fact_badges(&browser, &engine).await;
    assert_eq!(editions.timeline_links().await, 3);
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn reset_starts_over_and_the_page_fits_a_phone() {
    let browser = Browser::new().await;
    let chat = ChatPage::new(&browser);
    browser.client.set_window_size(360, 800).await.unwrap();
    browser.open("?demo=fincoach").await;
    browser.wait_window_width_at_most(400).await;
    browser.click_testid("play-all").await;
    browser.wait_testid("summary").await;
    browser.wait_fits_width("the chat to fit 360 px").await;
    browser.click_testid("reset").await;
    chat.wait_empty("an empty conversation after Reset").await;
    browser.click_testid("play-all").await;
    EditionsPage::new(&browser).open().await;
    browser.wait_testid("edition").await;
    browser.wait_fits_width("the editions to fit 360 px").await;
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

/// Every `fact` badge says what the engine's fact tracking says about its edition.
async fn check_fact_badges(browser: &Browser, engine: &DemoPlayer) {
    let tracks = engine.fact_tracks();
    let sources = engine.script().fact_sources();
    let cards = EditionsPage::new(browser).cards().await;
    assert_eq!(cards.len(), engine.editions().len());
    for (i, card) in cards.iter().enumerate() {
        let badges = card.facts().await;
        assert_eq!(badges.len(), tracks.len());
        for ((badge, track), (_, phrase)) in badges.iter().zip(&tracks).zip(&sources) {
            assert_eq!(&attr(badge, "data-fact").await, phrase);
            assert_eq!(
                attr(badge, "data-kept").await,
                track.kept[i].to_string(),
                "{} in edition {}",
                track.label,
                i + 1
            );
        }
    }
}

// "Play all" jumped to the end at once, so nothing could be watched.
#[tokio::test]
async fn play_all_plays_the_demo_one_step_at_a_time() {
    let browser = Browser::new().await;
    let chat = ChatPage::new(&browser);
    browser.open("?tab=chat&demo=fincoach").await;
    browser.click_testid("play-all").await;
    // Part-way: some messages are on screen and the demo is not over yet.
    browser
        .wait_until(
            "(() => { const n = document.querySelectorAll('[data-testid=message]').length; \
             return n >= 2 && n < 12 && !document.querySelector('[data-testid=progress]').textContent.includes('finished'); })()",
            "the demo part-way through",
        )
        .await;
    chat.wait_demo_finished().await;
    assert_eq!(browser.count_testid("message").await, 12);
    browser.close().await;
}

// Once Play all stepped on a timer, a Reset pressed while it played was stepped over by the
// timer, and the conversation never came back empty.
#[tokio::test]
async fn reset_while_play_all_plays_stops_it() {
    let browser = Browser::new().await;
    let chat = ChatPage::new(&browser);
    browser.open("?tab=chat&demo=fincoach").await;
    browser.click_testid("play-all").await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=message]').length >= 2",
            "the demo part-way through",
        )
        .await;
    browser.click_testid("reset").await;
    chat.wait_empty("an empty conversation after Reset").await;
    // It stays empty: no timer steps the demo after the Reset.
    crate::harness::pause(800).await;
    assert_eq!(browser.count_testid("message").await, 0);
    browser.close().await;
}
