//! Inspect's replay under a whole policy: trigger, placement and fold mode changed, the session
//! replayed offline with the extractive summariser, and its editions kept as a new session.

use summary_memory::engine::session::{export, synthetic};

use crate::harness::{Browser, TempDir};
use crate::sessions::{count, import, wait_count, write_file};

#[tokio::test]
async fn a_replay_under_another_placement_and_fold_mode_shows_new_editions_and_saves_them() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    // Twelve turns under "summarise at 8, keep 4": two recorded editions.
    let path = write_file(&dir, "twelve.json", &export(&synthetic(12), 5, "0.1.0"));
    browser.open("?tab=inspect").await;
    browser
        .wait_until(
            "performance.getEntriesByName('sm-vocab-loaded-o200k_base').length > 0",
            "the o200k_base vocabulary to load",
        )
        .await;
    import(&browser, &path).await;
    wait_count(&browser, "session-item", 1).await;
    assert_eq!(count(&browser, "edition").await, 2, "the recorded editions");

    // Summarise at 2 turns, keep 1, the summary as a user message, rebuilt from the archive.
    browser.set_field("replay-a", "2").await;
    browser.set_field("replay-b", "1").await;
    browser
        .wait_testid("replay-placement")
        .await
        .select_by_value("user_ack")
        .await
        .unwrap();
    browser
        .wait_testid("replay-fold")
        .await
        .select_by_value("rebuild")
        .await
        .unwrap();
    // The dry run follows: folds after every turn from the second.
    browser
        .wait_until(
            "document.querySelector('[data-testid=replay-calls]')?.textContent === '11'",
            "eleven summariser calls in the dry run",
        )
        .await;
    browser.click_testid("replay-run").await;
    wait_count(&browser, "replay-edition", 11).await;
    let rebuilt = browser
        .client
        .execute(
            "return [...document.querySelectorAll('[data-testid=replay-edition]')].every(e => e.dataset.rebuilt === 'true');",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        rebuilt, true,
        "every replayed edition was rebuilt from the archive"
    );

    browser.click_testid("replay-save").await;
    browser.wait_testid("replay-saved").await;
    wait_count(&browser, "session-item", 2).await;
    let names = browser
        .client
        .execute(
            "return [...document.querySelectorAll('[data-testid=session-item]')].map(e => e.textContent).join(' | ');",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        names.as_str().unwrap().contains("(replayed)"),
        "the new session is listed: {names}"
    );
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "{errors:?}");
    browser.close().await;
}

#[tokio::test]
async fn an_invalid_replay_policy_is_named_and_cannot_run() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let path = write_file(&dir, "twelve.json", &export(&synthetic(12), 5, "0.1.0"));
    browser.open("?tab=inspect").await;
    import(&browser, &path).await;
    wait_count(&browser, "session-item", 1).await;
    browser.set_field("replay-word_limit", "0").await;
    browser
        .wait_until(
            "document.querySelector('[data-testid=replay-error]')?.textContent.includes('word limit')",
            "the word limit named",
        )
        .await;
    let disabled = browser
        .wait_testid("replay-run")
        .await
        .prop("disabled")
        .await
        .unwrap();
    assert_eq!(disabled.as_deref(), Some("true"));
    browser.close().await;
}
