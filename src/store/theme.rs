//! The colour theme in localStorage, and applying it to `<html>`.

use crate::app::theme::Theme;

/// Where the theme lives in localStorage.
pub const THEME_KEY: &str = "summary-memory.theme";

/// The stored theme; the system's when nothing (or nothing readable) is stored.
pub fn load_theme() -> Theme {
    let stored = web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(THEME_KEY).ok().flatten());
    Theme::parse(stored.as_deref())
}

/// Stores the theme. A browser that refuses storage keeps it for this page only, which is
/// harmless for a colour choice, so a failure is ignored.
pub fn save_theme(theme: Theme) {
    if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = storage.set_item(THEME_KEY, theme.slug());
    }
}

/// Sets or removes `data-theme` on `<html>`, which the stylesheet reads.
pub fn apply_theme(theme: Theme) {
    let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    else {
        return;
    };
    let _ = match theme.attribute() {
        Some(value) => root.set_attribute("data-theme", value),
        None => root.remove_attribute("data-theme"),
    };
}
