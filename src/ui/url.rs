//! Reading and writing the address bar's query string, and hearing Back and Forward.

use leptos::prelude::window;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use crate::route::Navigation;

/// The current query string, including its leading `?` when there is one.
pub fn current_query() -> String {
    window().location().search().unwrap_or_default()
}

/// Writes `query` into the address bar without a navigation, as `how` says: a new history entry
/// for another place ([`Navigation::Push`], so Back returns to the one before), else a rewrite of
/// the entry the page is in, so the address bar always holds a link to the current view. An empty
/// query removes the `?` altogether.
pub fn write_query(query: &str, how: Navigation) {
    let location = window().location();
    let path = location.pathname().unwrap_or_else(|_| "/".into());
    let url = if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    };
    let Ok(history) = window().history() else {
        return;
    };
    // A failure only leaves the address bar stale; the app itself is unaffected.
    let _ = match how {
        Navigation::None => return,
        Navigation::Replace => {
            history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        }
        Navigation::Push => {
            history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        }
    };
}

/// Replaces the query string without a navigation or a history entry.
pub fn replace_query(query: &str) {
    write_query(query, Navigation::Replace);
}

/// Calls `moved` with the new query string whenever Back or Forward moves between the app's
/// own history entries, for the page's whole life.
pub fn on_history_move(moved: impl Fn(String) + 'static) {
    let listener = Closure::<dyn Fn(web_sys::Event)>::new(move |_| moved(current_query()));
    let _ =
        window().add_event_listener_with_callback("popstate", listener.as_ref().unchecked_ref());
    // The listener lives as long as the page.
    listener.forget();
}
