//! A long live chat stays a window of rows (issue 16): a stored 2,000-turn chat, every turn
//! verbatim, resumed as the live chat after a reload, keeps only the rows in view (and a few
//! dozen either side) in the page; scrolling to the top reaches the first message; and a reply
//! streamed from the test server still appears, is counted as it arrives and is followed to the
//! bottom.

use serde_json::Value;
use summary_memory::engine::session::export;
use summary_memory::engine::session::fixture::verbatim;

use crate::harness::{Browser, TempDir};
use crate::live::{Setup, connect, send, text};
use crate::openai_server::TestServer;
use crate::sessions::{import, write_file};

const TURNS: u32 = 2000;

/// The id of the one session IndexedDB holds, once it holds one.
async fn stored_id(browser: &Browser) -> String {
    let script = "const done = arguments[arguments.length - 1];
        const open = indexedDB.open('summary-memory');
        open.onerror = () => done(null);
        open.onsuccess = () => {
            try {
                const all = open.result.transaction('sessions').objectStore('sessions').getAll();
                all.onsuccess = () => { open.result.close(); done(all.result.length === 1 ? all.result[0].id : null); };
                all.onerror = () => done(null);
            } catch (e) { done(null); }
        };";
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    loop {
        if let Value::String(id) = browser.client.execute_async(script, vec![]).await.unwrap() {
            return id;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the session was never stored"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

async fn rows(browser: &Browser) -> u64 {
    browser
        .client
        .execute(
            "return document.querySelectorAll(\"[data-testid='message']\").length",
            vec![],
        )
        .await
        .unwrap()
        .as_u64()
        .unwrap()
}

/// Whether the element `selector` names is inside the verbatim list's scroll box, in view.
fn in_view(selector: &str) -> String {
    format!(
        "(() => {{ const box = document.querySelector('.vlist.verbatim').getBoundingClientRect();
            const row = document.querySelector(\"{selector}\"); if (!row) return false;
            const r = row.getBoundingClientRect();
            return r.bottom > box.top && r.top < box.bottom; }})()"
    )
}

/// Does `step` (a scroll) until the row `selector` names is in view, or fails naming `what`.
async fn until_in_view(browser: &Browser, selector: &str, what: &str, step: impl AsyncFn()) {
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    loop {
        step().await;
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
        let shown = browser
            .client
            .execute(&format!("return !!({})", in_view(selector)), vec![])
            .await
            .unwrap();
        if shown == Value::Bool(true) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{what} never came into view"
        );
    }
}

#[tokio::test]
async fn a_long_live_chat_keeps_a_window_of_rows_reaches_its_first_message_and_follows_a_reply() {
    let server = TestServer::start().await;
    server.chunk_delay(std::time::Duration::from_millis(40));
    let reply = "Here is the plan for this month: put a fifth of the salary aside first, \
        then pay the card with the highest rate, and review both once the month is over. \
        Keep three months of spending in the savings account before anything else.";
    server.script([text(reply)]);
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;

    // The stored chat, resumed as the live chat after a reload, as a long chat is.
    let dir = TempDir::new();
    let file = export(&verbatim(TURNS), 0, "test");
    let path = write_file(&dir, "long.json", &file);
    browser.open("?tab=inspect").await;
    import(&browser, &path).await;
    let id = stored_id(&browser).await;
    browser
        .client
        .execute(
            "localStorage.setItem('summary-memory.live-session', arguments[0]); return true;",
            vec![Value::String(id)],
        )
        .await
        .unwrap();
    browser.open("?tab=chat").await;

    // It opens at its newest message, with a window of rows in the page, not 4,000.
    let last = format!("[data-testid='message'][data-turn='{TURNS}'][data-role='assistant']");
    browser
        .wait_until(&in_view(&last), "the last turn's reply in view")
        .await;
    let shown = rows(&browser).await;
    assert!(
        (2..150).contains(&shown),
        "{shown} message rows in the page for {} messages",
        2 * TURNS
    );

    // Scrolling to the top reaches the first message, still a window.
    let first = "[data-testid='message'][data-turn='1'][data-role='user']";
    until_in_view(&browser, first, "the first message", async || {
        browser
            .client
            .execute(
                "document.querySelector('.vlist.verbatim').scrollTop = 0; return true;",
                vec![],
            )
            .await
            .unwrap();
    })
    .await;
    let text_of_first = browser
        .client
        .execute(
            &format!("return document.querySelector(\"{first}\").textContent"),
            vec![],
        )
        .await
        .unwrap();
    assert!(
        text_of_first.as_str().unwrap().contains("Turn 1: how much"),
        "{text_of_first}"
    );
    let shown = rows(&browser).await;
    assert!((2..150).contains(&shown), "{shown} rows at the top");

    // Back at the bottom (End, from the keyboard), a reply streamed from the server appears
    // as it arrives, with its count so far, and the list follows it.
    let list = browser
        .client
        .find(fantoccini::Locator::Css(".vlist.verbatim"))
        .await
        .unwrap();
    let end = String::from(char::from(fantoccini::key::Key::End));
    until_in_view(&browser, &last, "the last turn, after End", async || {
        list.send_keys(&end).await.unwrap();
    })
    .await;
    send(&browser, "What should I do this month?").await;
    let streaming = "[data-testid='message'][data-state='streaming']";
    browser
        .wait_until(
            &format!(
                "(() => {{ const m = document.querySelector(\"{streaming}\");
                    return m && m.textContent.includes('put a fifth') && {}; }})()",
                in_view(streaming)
            ),
            "the reply arriving, in view",
        )
        .await;
    browser
        .wait_until(
            "document.querySelector(\"[data-testid='streamed-tokens']\")",
            "the reply's count so far",
        )
        .await;
    let answered = format!(
        "[data-testid='message'][data-turn='{}'][data-role='assistant'][data-state='verbatim']",
        TURNS + 1
    );
    browser
        .wait_until(
            &format!(
                "(() => {{ const m = document.querySelector(\"{answered}\");
                    return m && m.textContent.includes('three months of spending') && {}; }})()",
                in_view(&answered)
            ),
            "the whole reply archived and in view at the bottom",
        )
        .await;
    browser
        .wait_until(
            "(() => { const b = document.querySelector('.vlist.verbatim');
                return b.scrollTop + b.clientHeight + 8 >= b.scrollHeight; })()",
            "the list at its bottom once the reply is archived",
        )
        .await;
    let shown = rows(&browser).await;
    assert!((2..150).contains(&shown), "{shown} rows after the reply");
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "{errors:?}");
    browser.close().await;
}
