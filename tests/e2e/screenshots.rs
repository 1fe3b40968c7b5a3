//! Takes the README's screenshots of every tab from the release build:
//! `cargo test --features e2e --test e2e screenshots -- --ignored`. It is ignored in the normal
//! run because it writes into docs/; it still fails if a tab does not render.

use std::path::PathBuf;

use crate::harness::Browser;

#[tokio::test]
#[ignore = "writes docs/*.png; run by hand when the UI changes"]
async fn screenshots() {
    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let browser = Browser::new().await;
    // Each shot: its file name, the page to open, a button to press, a tab to switch to after
    // it (the demo's state survives tab switches) and an element to scroll into view.
    type Shot = (
        &'static str,
        &'static str,
        Option<&'static str>,
        Option<&'static str>,
        Option<&'static str>,
    );
    let shots: [Shot; 6] = [
        (
            "chat",
            "?tab=chat&demo=fincoach",
            Some("play-all"),
            None,
            Some("summary"),
        ),
        (
            "editions",
            "?tab=chat&demo=fincoach",
            Some("play-all"),
            Some("tab-editions"),
            None,
        ),
        (
            "tuner",
            "?tab=tuner&trigger=turns&max_turns=4&keep=2&turns=10",
            None,
            None,
            None,
        ),
        ("tokens", "?tab=tokens", None, None, None),
        ("inspect", "?tab=inspect", None, None, None),
        ("settings", "?tab=settings", None, None, None),
    ];
    for (name, query, click, then, scroll) in shots {
        browser.open(query).await;
        for id in click.into_iter().chain(then) {
            browser.click_testid(id).await;
        }
        browser.wait_testid(&format!("panel-{name}")).await;
        if let Some(id) = scroll {
            browser.wait_testid(id).await;
            browser
                .client
                .execute(
                    &format!("document.querySelector(\"[data-testid='{id}']\").scrollIntoView({{block: 'center'}})"),
                    vec![],
                )
                .await
                .unwrap();
        }
        tokio::time::sleep(std::time::Duration::from_millis(800)).await;
        let png = browser.client.screenshot().await.unwrap();
        std::fs::write(docs.join(format!("{name}.png")), png).unwrap();
    }
    browser.close().await;
}
