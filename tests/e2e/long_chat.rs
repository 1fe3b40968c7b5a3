//! A long live chat stays a window of rows (issue 16): a stored 2,000-turn chat, every turn
//! verbatim, resumed as the live chat after a reload, keeps only the rows in view (and a few
//! dozen either side) in the page; scrolling to the top reaches the first message; and a reply
//! streamed from the test server still appears, is counted as it arrives and is followed to the
//! bottom.

use summary_memory::engine::session::export;
use summary_memory::engine::session::fixture::verbatim;

use crate::harness::{Browser, TempDir, text};
use crate::openai_server::TestServer;
use crate::pages::chat::{ChatPage, Row, Setup};

const TURNS: u32 = 2000;

#[tokio::test]
async fn a_long_live_chat_keeps_a_window_of_rows_reaches_its_first_message_and_follows_a_reply() {
    let server = TestServer::start().await;
    server.chunk_delay(std::time::Duration::from_millis(40));
    let reply = "Here is the plan for this month: put a fifth of the salary aside first, \
        then pay the card with the highest rate, and review both once the month is over. \
        Keep three months of spending in the savings account before anything else.";
    server.script([text(reply)]);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;

    // The stored chat, resumed as the live chat after a reload, as a long chat is.
    let dir = TempDir::new();
    let path = dir.write("long.json", &export(&verbatim(TURNS), 0, "test"));
    browser.open("?tab=inspect").await;
    browser.upload("import-file", &path).await;
    let id = browser
        .wait_stored("the session was never stored", |records| match records {
            [one] => one["id"].as_str().map(str::to_owned),
            _ => None,
        })
        .await;
    browser.store_item("summary-memory.live-session", &id).await;
    browser.open("?tab=chat").await;

    // It opens at its newest message, with a window of rows in the page, not 4,000.
    let last = Row::of(TURNS, "assistant");
    chat.wait_in_view(&last, "the last turn's reply in view")
        .await;
    let shown = chat.row_count().await;
    assert!(
        (2..150).contains(&shown),
        "{shown} message rows in the page for {} messages",
        2 * TURNS
    );

    // Scrolling to the top reaches the first message, still a window.
    let first = Row::of(1, "user");
    chat.scroll_until_in_view(&first, "the first message", async || {
        chat.scroll_to_top().await;
    })
    .await;
    let text_of_first = chat.row_text(&first).await;
    assert!(
        text_of_first.contains("Turn 1: how much"),
        "{text_of_first}"
    );
    let shown = chat.row_count().await;
    assert!((2..150).contains(&shown), "{shown} rows at the top");

    // Back at the bottom (End, from the keyboard), a reply streamed from the server appears
    // as it arrives, with its count so far, and the list follows it.
    chat.scroll_until_in_view(&last, "the last turn, after End", async || {
        chat.press_end_in_list().await;
    })
    .await;
    chat.send("What should I do this month?").await;
    chat.wait_in_view_holding(
        &Row::in_state("streaming"),
        "put a fifth",
        "the reply arriving, in view",
    )
    .await;
    browser.wait_testid("streamed-tokens").await;
    chat.wait_in_view_holding(
        &Row::of(TURNS + 1, "assistant").and_state("verbatim"),
        "three months of spending",
        "the whole reply archived and in view at the bottom",
    )
    .await;
    chat.wait_list_at_bottom("the list at its bottom once the reply is archived")
        .await;
    let shown = chat.row_count().await;
    assert!((2..150).contains(&shown), "{shown} rows after the reply");
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "{errors:?}");
    browser.close().await;
}
