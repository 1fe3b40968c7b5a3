//! Reading and rewriting the address bar's query string.

use leptos::prelude::window;

/// The current query string, including its leading `?` when there is one.
pub fn current_query() -> String {
    window().location().search().unwrap_or_default()
}

/// Replaces the query string without a navigation or a history entry, so the address bar always
/// holds a link to the current view. An empty query removes the `?` altogether.
pub fn replace_query(query: &str) {
    let location = window().location();
    let path = location.pathname().unwrap_or_else(|_| "/".into());
    let url = if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    };
    if let Ok(history) = window().history() {
        // A failure only leaves the address bar stale; the app itself is unaffected.
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}
