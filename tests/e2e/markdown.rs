//! Assistant replies rendered as Markdown, element by element, against the loopback test server:
//! a list is a list and code is code, raw HTML and `javascript:` links in a reply run nothing and
//! show as text, and the toggle shows the reply exactly as it arrived.

use serde_json::json;

use crate::harness::{Browser, text};
use crate::openai_server::TestServer;
use crate::pages::chat::{ChatPage, Setup};

const MARKDOWN: &str = "## Your plan\n\nYour take-home salary is **₹1,20,000 per month**, and *half* of it is free.\n\n1. Build the emergency fund\n2. Open a PPF account\n\n- `SIP` in a debt fund\n- [SEBI](https://www.sebi.gov.in/)\n\n```python\nprint(\"save\")\n```\n\n| fund | lock-in |\n| :--- | ---: |\n| PPF | 15 years |";

const HOSTILE: &str = "<img src=x onerror=\"window.__pwned = 1\"> and <script>window.__pwned = 2</script>\n\n[x](javascript:window.__pwned=3) [y](JAVASCRIPT:window.__pwned=4)";

#[tokio::test]
async fn a_reply_in_markdown_renders_as_elements_and_the_toggle_shows_its_source() {
    let server = TestServer::start().await;
    server.script([text(MARKDOWN)]);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("what is my plan?").await;
    chat.wait_settled(2).await;
    let reply = chat.last_reply().await;
    assert_eq!(reply["markdown"], true, "{reply}");
    assert_eq!(reply["h"], json!(["Your plan"]));
    assert_eq!(reply["strong"], json!(["₹1,20,000 per month"]));
    assert_eq!(reply["em"], json!(["half"]));
    assert_eq!(
        reply["ol"],
        json!(["Build the emergency fund", "Open a PPF account"])
    );
    assert_eq!(reply["ul"], json!(["SIP in a debt fund", "SEBI"]));
    assert_eq!(reply["code"], json!(["SIP"]));
    assert_eq!(reply["pre"], json!(["print(\"save\")\n"]));
    assert_eq!(reply["th"], json!(["fund", "lock-in"]));
    assert_eq!(reply["td"], json!(["PPF", "15 years"]));
    assert_eq!(
        reply["links"],
        json!([["SEBI", "https://www.sebi.gov.in/", "noopener noreferrer"]])
    );
    // No asterisks or pound signs are left on screen.
    let shown = reply["text"].as_str().unwrap();
    assert!(!shown.contains("**") && !shown.contains("##"), "{shown}");

    // The toggle shows the reply exactly as the server sent it, and back.
    browser.click_testid("raw-replies").await;
    let raw = browser.wait_testid("reply-raw").await;
    assert_eq!(raw.text().await.unwrap(), MARKDOWN.trim_end());
    assert_eq!(browser.text_content("reply-raw").await, MARKDOWN);
    browser.click_testid("raw-replies").await;
    browser.wait_testid("reply-markdown").await;
    // User messages were never Markdown: they stay the plain text typed.
    assert_eq!(chat.user_content_tag().await, "P");
    browser.close().await;
}

#[tokio::test]
async fn html_and_javascript_links_in_a_reply_run_nothing_and_show_as_text() {
    let server = TestServer::start().await;
    server.script([text(HOSTILE)]);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("be nasty").await;
    chat.wait_settled(2).await;
    let reply = chat.last_reply().await;
    assert_eq!(reply["img"], 0, "{reply}");
    assert_eq!(reply["script"], 0, "{reply}");
    assert_eq!(
        reply["links"],
        json!([]),
        "a javascript: link became a link"
    );
    let shown = reply["text"].as_str().unwrap();
    for words in [
        "<img src=x onerror=\"window.__pwned = 1\">",
        "<script>window.__pwned = 2</script>",
        "x",
        "y",
    ] {
        assert!(shown.contains(words), "{words:?} not shown in {shown:?}");
    }
    // Clicking where the link would have been does nothing either.
    chat.click_reply_spans().await;
    assert!(browser.nothing_ran().await, "something in the reply ran");
    let errors = browser.console_errors().await;
    assert!(
        errors
            .iter()
            .all(|e| !e.contains("Content Security Policy")),
        "the page tried to run something: {errors:#?}"
    );
    browser.close().await;
}
