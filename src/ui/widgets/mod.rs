//! Components shared by more than one tab, and the chrome shown around every tab. Each renders
//! view models and calls app-layer methods, like a tab; none of them is a tab.
//!
//! - `edition_card.rs`: one edition, wherever an edition is drawn (Editions, Inspect, the Chat
//!   tab's front page);
//! - `virtual_list.rs`: a windowed scroll box for long lists;
//! - `markdown.rs`: an assistant reply rendered from its Markdown tree;
//! - `window_view.rs`: the context window of one request (Chat and Inspect's replay);
//! - `tokens_chart.rs`: tokens per request, three ways (Tuner and Inspect's replay);
//! - `export_policy.rs`: the policy on screen exported as a snippet (Tuner, the policy panel,
//!   Inspect's replay form), its panel a module loaded on first use;
//! - `loaded.rs`: the place of a module loaded on first use (a tab's, the exporters'): loading,
//!   drawn, or failed with Retry;
//! - `download.rs`: the one download link, its file made as a Blob on click (the Tuner's CSV,
//!   the export panel's snippet, the corpus comparison's rows);
//! - `summary_settings.rs`: the summariser's generation fields (Chat's policy panel and Settings);
//! - `run_controls.rs`: a long job's progress, Stop, Go on and Try again (Inspect's live replay,
//!   A/B comparison, probes and corpus comparison);
//! - `token_estimate_note.rs`: the note that counts are estimates until the vocabulary loads;
//! - `store_alerts.rs`, `remote_notice.rs`: the storage alerts and another tab's change;
//! - `storage_line.rs`: whether the browser keeps the library, the space, the export reminder;
//! - `lesson_bar.rs`, `theme_toggle.rs`, `offline_notice.rs`: the lesson above every tab, the
//!   masthead's theme button and the offline notice.
//!
//! Architecture invariant: a widget imports runners and the layers below, never a tab
//! (`tests/purity.rs`).

pub mod download;
pub mod edition_card;
pub mod exact_policy;
pub mod export_policy;
pub mod lesson_bar;
pub mod loaded;
pub mod markdown;
pub mod offline_notice;
pub mod remote_notice;
pub mod run_controls;
pub mod storage_line;
pub mod store_alerts;
pub mod summary_settings;
pub mod theme_toggle;
pub mod token_estimate_note;
pub mod tokens_chart;
pub mod virtual_list;
pub mod window_view;

/// Moves the focus to the first element matching `selector` once the page has redrawn, so that
/// a button that opens something hands the keyboard to it.
pub fn focus_soon(selector: &str) {
    use wasm_bindgen::JsCast;
    let selector = selector.to_owned();
    leptos::prelude::set_timeout(
        move || {
            if let Ok(Some(element)) = leptos::prelude::document().query_selector(&selector)
                && let Ok(element) = element.dyn_into::<web_sys::HtmlElement>()
            {
                let _ = element.focus();
            }
        },
        std::time::Duration::from_millis(0),
    );
}

/// Whether the reader asked the system for less motion.
pub fn prefers_reduced_motion() -> bool {
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window() else {
        return false;
    };
    let query = js_sys::Reflect::get(&window, &"matchMedia".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .and_then(|f| {
            f.call1(&window, &"(prefers-reduced-motion: reduce)".into())
                .ok()
        });
    query
        .and_then(|q| js_sys::Reflect::get(&q, &"matches".into()).ok())
        .and_then(|m| m.as_bool())
        .unwrap_or(false)
}
