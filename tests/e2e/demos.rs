//! The bundled demos, played offline in the Chat tab and read back in the Editions tab. What the
//! page shows is checked against the engine itself, played natively with the same counter.

use fantoccini::Locator;
use fantoccini::elements::Element;
use summary_memory::engine::demo::DemoSummariser;
use summary_memory::engine::{DemoPlayer, DemoScript, WordCounter};

use crate::harness::Browser;

async fn attr(element: &Element, name: &str) -> String {
    element.attr(name).await.unwrap().unwrap_or_default()
}

/// (data-role, data-state, text) of every message on the page, read in one script: the
/// virtualised rows may be rebuilt between two WebDriver calls.
async fn messages(browser: &Browser) -> Vec<(String, String, String)> {
    crate::sessions::snapshot(
        browser,
        "[...document.querySelectorAll(\"[data-testid='message']\")].map(m => \
         [m.dataset.role ?? '', m.dataset.state ?? '', m.querySelector('.content').innerText])",
    )
    .await
}

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
    browser.open("?demo=fincoach").await;
    assert!(browser.all_testid("summary").await.is_empty());
    // The message box is there but disabled: without an endpoint nothing is sent or faked.
    let send = browser.wait_testid("send").await;
    assert!(!send.is_enabled().await.unwrap());

    // Step until turn 6's question has been sent: 5 turns of two messages, one cycle, one question.
    for _ in 0..(5 * 2 + 1 + 1) {
        browser.click_testid("step").await;
    }
    browser
        .wait_until(
            "document.querySelector('[data-testid=last-request]')?.dataset.turn === '6'",
            "the request of turn 6",
        )
        .await;
    let request = browser.wait_testid("last-request").await;
    assert_eq!(attr(&request, "data-summary-sent").await, "true");
    assert!(request.text().await.unwrap().contains("summary sent"));
    let summary = browser.wait_testid("summary").await.text().await.unwrap();
    assert!(summary.contains("1,20,000"), "{summary}");

    let shown = messages(&browser).await;
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
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=message][data-state=folded]').length === 8",
            "the second cycle to fold turns 3 and 4",
        )
        .await;
    let engine = played(DemoScript::fincoach());
    let summary = browser.wait_testid("summary").await.text().await.unwrap();
    assert_eq!(summary, engine.summary().unwrap());
    let last = messages(&browser).await.pop().unwrap();
    assert_eq!(last.0, "assistant");
    assert!(last.2.contains("₹1,20,000"));
    assert!(
        !browser
            .wait_testid("step")
            .await
            .is_enabled()
            .await
            .unwrap()
    );

    // The editions survive the change of tab: the state lives at the app root.
    browser.click_testid("tab-editions").await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=edition]').length === 2",
            "two editions",
        )
        .await;
    let editions = browser.all_testid("edition").await;
    for (edition, expect) in editions.iter().zip(engine.editions()) {
        assert_eq!(attr(edition, "data-cycle").await, expect.cycle.to_string());
        assert_eq!(
            attr(edition, "data-overrun").await,
            expect.overrun.to_string()
        );
        let words = edition
            .find(Locator::Css("[data-testid=edition-words]"))
            .await
            .unwrap();
        assert!(
            words
                .text()
                .await
                .unwrap()
                .starts_with(&format!("{} words of 80", expect.words))
        );
        let after = edition
            .find(Locator::Css("[data-testid=edition-after]"))
            .await
            .unwrap();
        assert!(
            !after
                .find_all(Locator::Css("ins.added"))
                .await
                .unwrap()
                .is_empty()
        );
    }
    let second = &editions[1];
    let heading = second.find(Locator::Css("h3")).await.unwrap();
    assert_eq!(
        heading.text().await.unwrap(),
        "Edition 2 · turns 3–4 folded"
    );
    assert!(
        !second
            .find_all(Locator::Css("[data-testid=edition-after] del.removed"))
            .await
            .unwrap()
            .is_empty(),
        "edition 2 drops words of edition 1"
    );
    let before = second
        .find(Locator::Css("[data-testid=edition-before]"))
        .await
        .unwrap();
    assert!(
        before
            .text()
            .await
            .unwrap()
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
    browser.open("").await;
    // Picking a demo loads it and writes it into the link.
    let picker = browser.wait_testid("demo-picker").await;
    picker.select_by_value("drift").await.unwrap();
    browser
        .wait_until(
            "location.search.includes('demo=drift')",
            "demo=drift in the link",
        )
        .await;
    browser.click_testid("play-all").await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=message][data-state=folded]').length === 12",
            "all twelve messages folded",
        )
        .await;
    browser.click_testid("tab-editions").await;
    browser
        .wait_until(
            "document.querySelectorAll('[data-testid=edition]').length === 3",
            "three editions",
        )
        .await;
    let engine = played(DemoScript::drift());
    let cycles: Vec<String> = {
        let mut out = Vec::new();
        for e in browser.all_testid("edition").await {
            out.push(attr(&e, "data-cycle").await);
        }
        out
    };
    assert_eq!(cycles, ["1", "2", "3"]);
    check_fact_badges(&browser, &engine).await;
    let timeline = browser
        .client
        .find_all(Locator::Css(".timeline a"))
        .await
        .unwrap();
    assert_eq!(timeline.len(), 3);
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn reset_starts_over_and_the_page_fits_a_phone() {
    let browser = Browser::new().await;
    browser.client.set_window_size(360, 800).await.unwrap();
    browser.open("?demo=fincoach").await;
    browser
        .wait_until("window.innerWidth <= 400", "a phone-sized window")
        .await;
    browser.click_testid("play-all").await;
    browser.wait_testid("summary").await;
    let fits = "document.documentElement.scrollWidth <= window.innerWidth";
    browser.wait_until(fits, "the chat to fit 360 px").await;
    browser.click_testid("reset").await;
    browser
        .wait_until(
            "!document.querySelector('[data-testid=summary]') && !document.querySelector('[data-testid=message]')",
            "an empty conversation after Reset",
        )
        .await;
    browser.click_testid("play-all").await;
    browser.click_testid("tab-editions").await;
    browser.wait_testid("edition").await;
    browser.wait_until(fits, "the editions to fit 360 px").await;
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

/// Every `fact` badge says what the engine's fact tracking says about its edition.
async fn check_fact_badges(browser: &Browser, engine: &DemoPlayer) {
    let tracks = engine.fact_tracks();
    let sources = engine.script().fact_sources();
    let editions = browser.all_testid("edition").await;
    assert_eq!(editions.len(), engine.editions().len());
    for (i, edition) in editions.iter().enumerate() {
        let badges = edition
            .find_all(Locator::Css("[data-testid=fact]"))
            .await
            .unwrap();
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
