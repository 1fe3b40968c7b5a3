//! The Settings tab: Test connection against the loopback server, what the requests carry,
//! network errors, persistence across a reload, and where the API key is kept.

use fantoccini::Locator;

use crate::harness::{Browser, free_port};
use crate::openai_server::TestServer;
use crate::pages::settings::SettingsPage;

const KEY: &str = "sk-e2e-secret";

#[tokio::test]
async fn test_connection_offers_the_models_and_sends_only_the_allowed_headers() {
    let server = TestServer::start().await;
    let browser = Browser::new().await;
    let settings = SettingsPage::test_connection_to(&browser, &server.base_url, KEY).await;
    let found = browser
        .wait_testid("models-found")
        .await
        .text()
        .await
        .unwrap();
    assert!(found.contains("2 models"), "{found}");
    assert!(found.contains("test-chat, test-summary"), "{found}");
    assert_eq!(
        settings.offered_models().await,
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
    SettingsPage::test_connection_to(&browser, &base_url, "").await;
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
    SettingsPage::open(&browser).await.clear_base_url().await;
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
    let settings = SettingsPage::test_connection_to(&browser, &server.base_url, KEY).await;
    browser.wait_testid("models-found").await;
    browser
        .wait_testid("chat-model")
        .await
        .send_keys("test-chat")
        .await
        .unwrap();
    settings
        .wait_saved("\"chat_model\":\"test-chat\"", "the chat model to be saved")
        .await;
    settings.wait_key_in("localStorage", KEY, false).await;
    settings.wait_key_in("sessionStorage", KEY, true).await;

    let settings = SettingsPage::open(&browser).await;
    assert_eq!(settings.value_of("base-url").await, server.base_url);
    assert_eq!(settings.value_of("chat-model").await, "test-chat");
    assert_eq!(
        settings.offered_models().await,
        ["test-chat", "test-summary"]
    );
    // Same tab, so sessionStorage (and with it the key) survived the reload.
    assert_eq!(settings.value_of("api-key").await, KEY);
    settings.wait_key_in("localStorage", KEY, false).await;

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
    settings.wait_key_in("localStorage", KEY, true).await;
    settings.wait_key_in("sessionStorage", KEY, false).await;
    browser.click_testid("remember-key").await;
    settings.wait_key_in("localStorage", KEY, false).await;
    assert!(
        browser
            .client
            .find(Locator::Css("[data-testid='remember-warning']"))
            .await
            .is_err()
    );
    browser.close().await;
}

// The "could not reach" hint for Ollama showed a placeholder origin ("https://your.site")
// instead of the page's own, and did not notice a base URL without /v1.
#[tokio::test]
async fn the_could_not_reach_hint_names_the_page_s_origin_and_a_missing_v1() {
    assert!(
        std::net::TcpStream::connect("127.0.0.1:11434").is_err(),
        "this test needs Ollama's port closed"
    );
    let browser = Browser::new().await;
    SettingsPage::test_connection_to(&browser, "http://localhost:11434", "").await;
    let text = browser.wait_testid("error").await.text().await.unwrap();
    let origin: String = browser.read("location.origin").await;
    assert!(
        text.contains(&format!("OLLAMA_ORIGINS=\"{origin}\"")),
        "{text}"
    );
    assert!(!text.contains("your.site"), "{text}");
    assert!(text.contains("try http://localhost:11434/v1"), "{text}");
    browser.close().await;
}
