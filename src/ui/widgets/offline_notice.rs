//! `OfflineNotice`: the small notice that says when the service worker's install could not keep
//! every file of the build offline (the worker itself is registered by `ui/run/offline.rs`).

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::MessageEvent;

use crate::ui::run::offline::container;

/// The message type the worker posts to every open page when its install left files out.
const INCOMPLETE: &str = "sm-offline-incomplete";

/// A small, dismissible notice (`offline-notice`, `role="status"`: it interrupts nothing) shown
/// when the service worker's install could not keep every file of the build. It listens from
/// the first render, before the worker is registered, so the worker's message cannot be missed.
#[component]
pub fn OfflineNotice() -> impl IntoView {
    let missing = RwSignal::new(Vec::<Missing>::new());
    if let Some(container) = container() {
        let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            if let Some(files) = incomplete_install(&event.data()) {
                missing.set(files);
            }
        });
        // Setting `onmessage` (unlike addEventListener) also starts the delivery of the
        // worker's messages to this page.
        container.set_onmessage(Some(handler.as_ref().unchecked_ref()));
        // The page has one container for its whole life, and so one handler.
        handler.forget();
    }
    move || {
        missing.with(|files| !files.is_empty()).then(|| {
            view! {
                <p class="offline-notice" data-testid="offline-notice" role="status">
                    {missing.with(|files| notice_text(files))}
                    " "
                    <button data-testid="offline-notice-dismiss" on:click=move |_| missing.set(Vec::new())>
                        "OK"
                    </button>
                </p>
            }
        })
    }
}

/// One file the worker could not keep, and why.
#[derive(Clone, Debug, PartialEq)]
struct Missing {
    path: String,
    reason: String,
}

/// The files named by the worker's `{type: "sm-offline-incomplete", missing: [{path, reason}]}`
/// message, or `None` for any other message.
fn incomplete_install(data: &JsValue) -> Option<Vec<Missing>> {
    let field = |value: &JsValue, name: &str| js_sys::Reflect::get(value, &name.into()).ok();
    if field(data, "type")?.as_string()? != INCOMPLETE {
        return None;
    }
    let list: js_sys::Array = field(data, "missing")?.dyn_into().ok()?;
    let files: Vec<Missing> = list
        .iter()
        .map(|item| Missing {
            path: field(&item, "path")
                .and_then(|v| v.as_string())
                .unwrap_or_default(),
            reason: field(&item, "reason")
                .and_then(|v| v.as_string())
                .unwrap_or_default(),
        })
        .collect();
    (!files.is_empty()).then_some(files)
}

/// What the notice says: how many files, which (the first three), and what it means for the user.
fn notice_text(files: &[Missing]) -> String {
    let shown: Vec<String> = files
        .iter()
        .take(3)
        .map(|f| format!("{} ({})", f.path, f.reason))
        .collect();
    let more = files.len().saturating_sub(shown.len());
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let count = match files.len() {
        1 => "1 file".to_owned(),
        n => format!("{n} files"),
    };
    format!(
        "Offline use is incomplete: {count} of the app could not be saved in this browser: {}{more}. \
         The app works while online, and tries again as it loads them.",
        shown.join(", ")
    )
}
