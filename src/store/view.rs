//! The view the user last had (the route's query string) in localStorage, so a later visit to
//! the bare address resumes it (`app::resume` decides when). Storage that is blocked, full or
//! throwing only costs the resume: every failure is ignored and the app works without it.

/// Where the last view's query string lives in localStorage.
pub const VIEW_KEY: &str = "summary-memory.view";

fn local() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// The stored query string, if storage can be read and holds one: IndexedDB's copy, or else
/// localStorage's (`store::durable`).
pub fn load_view() -> Option<String> {
    crate::app::storage::durable_or_hint(
        super::durable::get(VIEW_KEY),
        local().and_then(|s| s.get_item(VIEW_KEY).ok().flatten()),
    )
}

/// Stores the query string; a failure is ignored (see the module doc).
pub fn save_view(query: &str) {
    super::durable::set(VIEW_KEY, query);
    if let Some(storage) = local() {
        let _ = storage.set_item(VIEW_KEY, query);
    }
}
