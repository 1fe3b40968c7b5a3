//! Page object: settings. The endpoint's fields, Test connection and its verdict, the models it
//! offers, and where the settings and the key are kept (localStorage, sessionStorage).

use super::query::{self, Field, Until, testid};
use crate::harness::Browser;

/// Where the settings are saved, in localStorage.
const SETTINGS_KEY: &str = "summary-memory.settings";
/// Where the API key is kept: sessionStorage, or localStorage once the user asks to remember it.
const API_KEY_KEY: &str = "summary-memory.api-key";

/// The Settings tab of one browser.
#[derive(Clone, Copy)]
pub struct SettingsPage<'a> {
    browser: &'a Browser,
}

impl<'a> SettingsPage<'a> {
    /// The Settings tab of a page already open.
    pub fn new(browser: &'a Browser) -> SettingsPage<'a> {
        SettingsPage { browser }
    }

    /// Opens the app on the Settings tab (a reload when it is already open).
    pub async fn open(browser: &'a Browser) -> SettingsPage<'a> {
        browser.open("?tab=settings").await;
        SettingsPage { browser }
    }

    /// Opens Settings, types the base URL and the key (none when empty), presses Test
    /// connection and waits for the verdict.
    pub async fn test_connection_to(
        browser: &'a Browser,
        base_url: &str,
        key: &str,
    ) -> SettingsPage<'a> {
        let page = SettingsPage::open(browser).await;
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
        page.press_test_connection().await;
        page
    }

    /// Presses Test connection and waits for its verdict: the models found, or an error.
    pub async fn press_test_connection(&self) {
        self.browser.click_testid("test-connection").await;
        query::wait(
            self.browser,
            "[data-testid='models-found'], [data-testid='error']",
            Until::Present,
            "Test connection to finish",
        )
        .await;
    }

    /// Presses Test connection, fails the test if it fails, and returns the "models found"
    /// text.
    pub async fn test_connection(&self) -> String {
        self.press_test_connection().await;
        if let Ok(error) = self
            .browser
            .client
            .find(fantoccini::Locator::Css("[data-testid='error']"))
            .await
        {
            panic!(
                "Test connection failed: {}",
                error.text().await.unwrap_or_default()
            );
        }
        self.browser
            .wait_testid("models-found")
            .await
            .text()
            .await
            .unwrap()
    }

    /// Sets fields the way typing would (value plus an input event).
    pub async fn fill(&self, fields: &[(&str, &str)]) {
        for (id, value) in fields {
            self.browser.set_field(id, value).await;
        }
    }

    /// Empties the base URL field the way a person's delete key would, with an input event.
    pub async fn clear_base_url(&self) {
        self.browser.set_field("base-url", "").await;
    }

    /// The models the page now offers in the model fields' list.
    pub async fn offered_models(&self) -> Vec<String> {
        query::all(self.browser, "#model-options option", Field::prop("value")).await
    }

    /// The value of the field with `data-testid=id` ("" when it has none).
    pub async fn value_of(&self, id: &str) -> String {
        self.browser
            .wait_testid(id)
            .await
            .prop("value")
            .await
            .unwrap()
            .unwrap_or_default()
    }

    /// The value of the field with `data-testid=id`, read in the page at once (no wait).
    pub async fn field_value(&self, id: &str) -> Option<String> {
        query::one(self.browser, &testid(id), Field::prop("value")).await
    }

    /// Waits until the saved settings (in localStorage) hold `fragment` of their JSON.
    pub async fn wait_saved(&self, fragment: &str, what: &str) {
        query::wait_item_holds(self.browser, "localStorage", SETTINGS_KEY, fragment, what).await;
    }

    /// Waits until the saved settings are no longer `planted` (the app has saved its own).
    pub async fn wait_saved_settings_differ(&self, planted: &str, what: &str) {
        query::wait_item_changed(self.browser, "localStorage", SETTINGS_KEY, planted, what).await;
    }

    /// Waits until `storage` holds (or no longer holds) `key`: the app saves from an effect, a
    /// moment after the click.
    pub async fn wait_key_in(&self, storage: &str, key: &str, present: bool) {
        let what = format!(
            "{storage} to {} the key",
            if present { "hold" } else { "lose" }
        );
        query::wait_storage_holds(self.browser, &[storage], key, present, &what).await;
    }

    /// Waits until neither localStorage nor sessionStorage holds `key` anywhere.
    pub async fn wait_key_forgotten(&self, key: &str) {
        query::wait_storage_holds(
            self.browser,
            &["localStorage", "sessionStorage"],
            key,
            false,
            "the storage to forget the key",
        )
        .await;
    }

    /// The key kept for this tab (sessionStorage).
    pub async fn session_key(&self) -> Option<String> {
        query::storage_item(self.browser, "sessionStorage", API_KEY_KEY).await
    }

    /// The key remembered on the device (localStorage).
    pub async fn remembered_key(&self) -> Option<String> {
        query::storage_item(self.browser, "localStorage", API_KEY_KEY).await
    }

    /// Writes a settings record where the app keeps it (localStorage and IndexedDB) and a
    /// remembered key into localStorage, as a damaged copy of the app would have left them.
    pub async fn plant(&self, settings: &str, remembered_key: &str) {
        self.browser.store_item(SETTINGS_KEY, settings).await;
        query::set_storage_item(self.browser, "localStorage", API_KEY_KEY, remembered_key).await;
    }
}
