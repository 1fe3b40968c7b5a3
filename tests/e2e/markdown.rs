//! Assistant replies rendered as Markdown, element by element, against the loopback test server:
//! a list is a list and code is code, raw HTML and `javascript:` links in a reply run nothing and
//! show as text, and the toggle shows the reply exactly as it arrived.

use serde_json::{Value, json};

use crate::harness::Browser;
use crate::live::{Setup, connect, send, text, wait_settled};
use crate::openai_server::TestServer;

const MARKDOWN: &str = "## Your plan\n\nYour take-home salary is **₹1,20,000 per month**, and *half* of it is free.\n\n1. Build the emergency fund\n2. Open a PPF account\n\n- `SIP` in a debt fund\n- [SEBI](https://www.sebi.gov.in/)\n\n```python\nprint(\"save\")\n```\n\n| fund | lock-in |\n| :--- | ---: |\n| PPF | 15 years |";

const HOSTILE: &str = "<img src=x onerror=\"window.__pwned = 1\"> and <script>window.__pwned = 2</script>\n\n[x](javascript:window.__pwned=3) [y](JAVASCRIPT:window.__pwned=4)";

/// What the last reply's rendered content holds, read from the page.
async fn last_reply(browser: &Browser) -> Value {
    browser
        .client
        .execute(
            "const m = [...document.querySelectorAll(\"[data-testid='message'][data-role='assistant']\")].pop(); \
             const c = m.querySelector('.content'); \
             const all = sel => [...c.querySelectorAll(sel)].map(e => e.textContent); \
             return { html: c.innerHTML, text: c.textContent, markdown: c.classList.contains('markdown'), \
                      h: all('h5'), strong: all('strong'), em: all('em'), ol: all('ol > li'), ul: all('ul > li'), \
                      code: all('ul > li code'), pre: all('pre > code'), th: all('table th'), td: all('table td'), \
                      links: [...c.querySelectorAll('a')].map(a => [a.textContent, a.getAttribute('href'), a.rel]), \
                      img: c.querySelectorAll('img').length, script: c.querySelectorAll('script').length };",
            vec![],
        )
        .await
        .unwrap()
}

#[tokio::test]
async fn a_reply_in_markdown_renders_as_elements_and_the_toggle_shows_its_source() {
    let server = TestServer::start().await;
    server.script([text(MARKDOWN)]);
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    send(&browser, "what is my plan?").await;
    wait_settled(&browser, 2).await;
    let reply = last_reply(&browser).await;
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
    let exact = browser
        .client
        .execute(
            "return document.querySelector(\"[data-testid='reply-raw']\").textContent",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(exact, json!(MARKDOWN));
    browser.click_testid("raw-replies").await;
    browser.wait_testid("reply-markdown").await;
    // User messages were never Markdown: they stay the plain text typed.
    let user = browser
        .client
        .execute(
            "return document.querySelector(\"[data-role='user'] .content\").tagName",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(user, "P");
    browser.close().await;
}

#[tokio::test]
async fn html_and_javascript_links_in_a_reply_run_nothing_and_show_as_text() {
    let server = TestServer::start().await;
    server.script([text(HOSTILE)]);
    let browser = Browser::new().await;
    connect(&browser, Setup::new(&server.base_url)).await;
    send(&browser, "be nasty").await;
    wait_settled(&browser, 2).await;
    let reply = last_reply(&browser).await;
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
    browser
        .client
        .execute(
            "[...document.querySelectorAll(\"[data-role='assistant'] .content span\")].forEach(s => s.click())",
            vec![],
        )
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let pwned = browser
        .client
        .execute("return window.__pwned === undefined", vec![])
        .await
        .unwrap();
    assert_eq!(pwned, true, "something in the reply ran");
    let errors = browser.console_errors().await;
    assert!(
        errors
            .iter()
            .all(|e| !e.contains("Content Security Policy")),
        "the page tried to run something: {errors:#?}"
    );
    browser.close().await;
}
