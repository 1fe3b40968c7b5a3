//! The browser tier: modules that only work in a real browser, run by wasm-bindgen-test in
//! headless Chromium (`cargo test --target wasm32-unknown-unknown --test browser`).
#![cfg(target_arch = "wasm32")]

use summary_memory::route::{Route, Tab};
use summary_memory::ui::url::{current_query, replace_query};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn replace_query_rewrites_the_address_bar_without_navigating() {
    let before = web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .length()
        .unwrap();
    replace_query("tab=tuner&max_turns=4");
    assert_eq!(current_query(), "?tab=tuner&max_turns=4");
    let route = Route::parse(&current_query());
    assert_eq!(route.tab, Tab::Tuner);
    assert_eq!(route.max_turns, Some(4));
    // replaceState, not pushState: the back button must not walk through every keystroke.
    let after = web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .length()
        .unwrap();
    assert_eq!(before, after);
}

#[wasm_bindgen_test]
fn an_empty_query_drops_the_question_mark() {
    replace_query("tab=tokens");
    replace_query("");
    assert_eq!(current_query(), "");
    let href = web_sys::window().unwrap().location().href().unwrap();
    assert!(!href.contains('?'), "{href}");
}

mod key_storage {
    use summary_memory::engine::settings::Settings;
    use summary_memory::store::{API_KEY_KEY, SETTINGS_KEY, load_settings, save_settings};
    use wasm_bindgen_test::*;
    use web_sys::Storage;

    fn local() -> Storage {
        web_sys::window().unwrap().local_storage().unwrap().unwrap()
    }

    fn session() -> Storage {
        web_sys::window()
            .unwrap()
            .session_storage()
            .unwrap()
            .unwrap()
    }

    fn stored(storage: &Storage, key: &str) -> Option<String> {
        storage.get_item(key).unwrap()
    }

    // One test walks the whole lifecycle, because the tests of this file share one page and
    // therefore one localStorage.
    #[wasm_bindgen_test]
    fn the_key_lives_in_session_storage_unless_the_user_opts_in() {
        local().clear().unwrap();
        session().clear().unwrap();
        let mut settings = Settings {
            base_url: "http://127.0.0.1:11434/v1".into(),
            api_key: "sk-browser-test".into(),
            chat_model: "test-chat".into(),
            ..Settings::default()
        };

        // By default the key goes to sessionStorage only, and the settings record omits it.
        save_settings(&settings).unwrap();
        assert_eq!(
            stored(&session(), API_KEY_KEY).as_deref(),
            Some("sk-browser-test")
        );
        assert_eq!(stored(&local(), API_KEY_KEY), None);
        let record = stored(&local(), SETTINGS_KEY).unwrap();
        assert!(record.contains("test-chat"), "{record}");
        assert!(!record.contains("sk-browser-test"), "{record}");
        assert_eq!(load_settings().unwrap(), settings);

        // Opting in moves it to localStorage and out of sessionStorage.
        settings.remember_key = true;
        save_settings(&settings).unwrap();
        assert_eq!(
            stored(&local(), API_KEY_KEY).as_deref(),
            Some("sk-browser-test")
        );
        assert_eq!(stored(&session(), API_KEY_KEY), None);
        // A new tab has an empty sessionStorage; the remembered key must still load.
        session().clear().unwrap();
        assert_eq!(load_settings().unwrap(), settings);

        // Opting out removes it from localStorage again.
        settings.remember_key = false;
        save_settings(&settings).unwrap();
        assert_eq!(stored(&local(), API_KEY_KEY), None);
        assert_eq!(
            stored(&session(), API_KEY_KEY).as_deref(),
            Some("sk-browser-test")
        );

        // Clearing the key removes it everywhere.
        settings.api_key.clear();
        save_settings(&settings).unwrap();
        assert_eq!(stored(&local(), API_KEY_KEY), None);
        assert_eq!(stored(&session(), API_KEY_KEY), None);
        let all_local: Vec<String> = (0..local().length().unwrap())
            .filter_map(|i| local().key(i).unwrap())
            .filter_map(|k| stored(&local(), &k))
            .collect();
        assert!(
            all_local.iter().all(|v| !v.contains("sk-browser-test")),
            "{all_local:?}"
        );
    }

    #[wasm_bindgen_test]
    fn unreadable_stored_settings_are_reported_not_panicked_on() {
        local().set_item(SETTINGS_KEY, "{not json").unwrap();
        let error = load_settings().unwrap_err();
        assert!(error.to_string().contains("could not be read"), "{error}");
        local().remove_item(SETTINGS_KEY).unwrap();
        assert_eq!(load_settings().unwrap().base_url, "");
    }
}
