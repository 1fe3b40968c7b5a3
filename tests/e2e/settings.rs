//! The Settings tab: Test connection against the loopback server, what the requests carry,
//! network errors, persistence across a reload, and where the API key is kept.

use fantoccini::Locator;

use crate::harness::{Browser, free_port};
use crate::openai_server::TestServer;

const KEY: &str = "sk-e2e-secret";

/// Types the base URL and the key, presses Test connection and waits for the verdict.
async fn test_connection(browser: &Browser, base_url: &str, key: &str) {
    browser.open("?tab=settings").await;
    browser
        .wait_testid("base-url")
        .await
        .send_keys(base_url)
        .await
        .unwrap();
    if !key.is_empty() {
        browser
            .wait_testid("api-key")
            .await
            .send_keys(key)
            .await
            .unwrap();
    }
    browser.click_testid("test-connection").await;
    browser
        .wait_until(
            "document.querySelector(\"[data-testid='models-found'], [data-testid='error']\")",
            "Test connection to finish",
        )
        .await;
}

async fn offered_models(browser: &Browser) -> Vec<String> {
    let value = browser
        .client
        .execute(
            "return [...document.querySelectorAll(\"#model-options option\")].map(o => o.value)",
            vec![],
        )
        .await
        .unwrap();
    serde_json::from_value(value).unwrap()
}

async fn value_of(browser: &Browser, testid: &str) -> String {
    browser
        .wait_testid(testid)
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default()
}

/// Waits until `storage` holds (or no longer holds) the key: the app saves from an effect, a
/// moment after the click.
async fn expect_key_in(browser: &Browser, storage: &str, present: bool) {
    let script = format!(
        "Object.keys({storage}).some(k => {storage}.getItem(k).includes('{KEY}')) === {present}"
    );
    let what = format!(
        "{storage} to {} the key",
        if present { "hold" } else { "lose" }
    );
    browser.wait_until(&script, &what).await;
}

#[tokio::test]
async fn test_connection_offers_the_models_and_sends_only_the_allowed_headers() {
    let server = TestServer::start().await;
    let browser = Browser::new().await;
    test_connection(&browser, &server.base_url, KEY).await;
    let found = browser
        .wait_testid("models-found")
        .await
        .text()
        .await
        .unwrap();
    assert!(found.contains("2 models"), "{found}");
    assert!(found.contains("test-chat, test-summary"), "{found}");
    assert_eq!(
        offered_models(&browser).await,
        ["test-chat", "test-summary"]
    );

    let requests = server.requests();
    let preflight = requests
        .iter()
        .find(|r| r.method == "OPTIONS")
        .expect("a key makes the GET non-simple, so the browser sends a preflight");
    let asked = preflight
        .headers
        .iter()
        .find(|(name, _)| name == "access-control-request-headers")
        .map(|(_, value)| value.as_str());
    assert_eq!(asked, Some("authorization"));
    let get = requests
        .iter()
        .find(|r| r.method == "GET")
        .expect("the GET /models request");
    assert_eq!(get.path, "/v1/models");
    let header = |name: &str| {
        get.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(header("authorization"), Some(format!("Bearer {KEY}")));
    // Everything else is what the browser itself adds; nothing the page chose.
    let page_headers = get.page_headers();
    assert!(
        page_headers.iter().all(|h| *h == "authorization"),
        "unexpected headers {page_headers:?}"
    );
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

#[tokio::test]
async fn a_closed_port_shows_a_network_error_with_the_fix() {
    let browser = Browser::new().await;
    let base_url = format!("http://127.0.0.1:{}/v1", free_port());
    test_connection(&browser, &base_url, "").await;
    let error = browser.wait_testid("error").await;
    assert_eq!(error.attr("role").await.unwrap().as_deref(), Some("alert"));
    let text = error.text().await.unwrap();
    assert!(
        text.starts_with(&format!("Could not reach {base_url}")),
        "{text}"
    );
    assert!(text.contains("CORS"), "{text}");
    // An invalid URL is explained before any request is made. The reload kept the old URL, so
    // the field is emptied the way a person's delete key would, with an input event.
    browser.open("?tab=settings").await;
    browser
        .client
        .execute(
            "const input = document.querySelector(\"[data-testid='base-url']\"); \
             input.value = ''; input.dispatchEvent(new Event('input', { bubbles: true }));",
            vec![],
        )
        .await
        .unwrap();
    browser
        .wait_testid("base-url")
        .await
        .send_keys("localhost:1234/v1")
        .await
        .unwrap();
    browser.click_testid("test-connection").await;
    let text = browser.wait_testid("error").await.text().await.unwrap();
    assert!(
        text.contains("must start with http:// or https://"),
        "{text}"
    );
    browser.close().await;
}

#[tokio::test]
async fn a_reload_keeps_the_settings_and_the_key_stays_out_of_local_storage() {
    let server = TestServer::start().await;
    let browser = Browser::new().await;
    test_connection(&browser, &server.base_url, KEY).await;
    browser.wait_testid("models-found").await;
    browser
        .wait_testid("chat-model")
        .await
        .send_keys("test-chat")
        .await
        .unwrap();
    browser
        .wait_until(
            "(localStorage.getItem('summary-memory.settings') || '').includes('\"chat_model\":\"test-chat\"')",
            "the chat model to be saved",
        )
        .await;
    expect_key_in(&browser, "localStorage", false).await;
    expect_key_in(&browser, "sessionStorage", true).await;

    browser.open("?tab=settings").await;
    assert_eq!(value_of(&browser, "base-url").await, server.base_url);
    assert_eq!(value_of(&browser, "chat-model").await, "test-chat");
    assert_eq!(
        offered_models(&browser).await,
        ["test-chat", "test-summary"]
    );
    // Same tab, so sessionStorage (and with it the key) survived the reload.
    assert_eq!(value_of(&browser, "api-key").await, KEY);
    expect_key_in(&browser, "localStorage", false).await;

    // Opting in stores the key on the device, with a plain warning; opting out removes it.
    browser.click_testid("remember-key").await;
    let warning = browser
        .wait_testid("remember-warning")
        .await
        .text()
        .await
        .unwrap();
    assert!(
        warning.contains("Anyone who uses this browser profile"),
        "{warning}"
    );
    expect_key_in(&browser, "localStorage", true).await;
    expect_key_in(&browser, "sessionStorage", false).await;
    browser.click_testid("remember-key").await;
    expect_key_in(&browser, "localStorage", false).await;
    assert!(
        browser
            .client
            .find(Locator::Css("[data-testid='remember-warning']"))
            .await
            .is_err()
    );
    browser.close().await;
}
