//! What the export panel (`ui/widgets/export_policy.rs`) does outside the page's own elements:
//! copies the snippet to the clipboard, reads a chosen policy file's text, loads the syntax
//! highlighter (`www/highlight.mjs`, copied into the dist by `scripts/highlight.py`) once and
//! hands it the code block. Each answer comes back through a callback; the words are
//! `view::export`'s.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// Writes `text` to the clipboard in the background, then calls `done` with whether the
/// browser let it.
pub fn copy(text: String, done: impl FnOnce(bool) + 'static) {
    spawn_local(async move { done(copy_text(&text).await) });
}

/// Reads the chosen `file` in the background, then calls `done` with its name and its text, or
/// `None` when the browser could not read it.
pub fn read_file(file: web_sys::File, done: impl FnOnce(String, Option<String>) + 'static) {
    spawn_local(async move {
        let name = file.name();
        let text = JsFuture::from(file.text())
            .await
            .ok()
            .map(|text| text.as_string().unwrap_or_default());
        done(name, text);
    });
}

/// Adds the highlighter's module to the page once; a dist without it answers 404, and the code
/// stays plain.
pub fn load_highlighter() {
    let document = document();
    if document.get_element_by_id("sm-highlight").is_some() {
        return;
    }
    let Ok(script) = document.create_element("script") else {
        return;
    };
    script.set_id("sm-highlight");
    let _ = script.set_attribute("type", "module");
    let _ = script.set_attribute("src", "highlight/highlight.mjs");
    if let Some(body) = document.body() {
        let _ = body.append_child(&script);
    }
}

/// Hands `element` to the highlighter, when it has loaded (it highlights what is on the page
/// itself when it arrives).
pub fn highlight(element: &web_sys::HtmlElement) {
    let global = js_sys::global();
    if let Ok(f) = js_sys::Reflect::get(&global, &JsValue::from_str("smHighlight"))
        && let Ok(f) = f.dyn_into::<js_sys::Function>()
    {
        let _ = f.call1(&JsValue::NULL, element);
    }
}

/// Writes `text` to the clipboard; whether it did.
async fn copy_text(text: &str) -> bool {
    let clipboard = js_sys::Reflect::get(&window().navigator(), &JsValue::from_str("clipboard"))
        .ok()
        .filter(|c| !c.is_undefined());
    let write = clipboard.as_ref().and_then(|c| {
        let f = js_sys::Reflect::get(c, &JsValue::from_str("writeText")).ok()?;
        let f = f.dyn_into::<js_sys::Function>().ok()?;
        f.call1(c, &JsValue::from_str(text))
            .ok()?
            .dyn_into::<js_sys::Promise>()
            .ok()
    });
    match write {
        Some(promise) => JsFuture::from(promise).await.is_ok(),
        None => false,
    }
}
