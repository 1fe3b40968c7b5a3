//! The service worker (www/sw.js) that lets the app load and run with no network after the first
//! visit, and makes it installable as a window: its registration, which the token service asks
//! for once the first vocabulary has loaded, and the worker's message when its install could not
//! keep every file ([`on_incomplete_install`]), which a widget shows
//! (`ui/widgets/offline_notice.rs`).
//!
//! The worker's cache is named per build (`scripts/precache.py` writes the build's id and file
//! list into it). At install it copies the files from the browser's HTTP cache, which the page
//! has just filled, so nothing is downloaded twice; on activate it deletes older builds' caches
//! of this scope. It answers same-origin GETs from the network first and from the cache when
//! that fails, and a copy it could not save never reaches the page.

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::MessageEvent;

use crate::view::offline::MissingFile;

/// The message type the worker posts to every open page when its install left files out.
const INCOMPLETE: &str = "sm-offline-incomplete";

/// Calls `handler` with the files the worker could not keep, each time it says its install left
/// some out. Called from the first render, before the worker is registered, so the worker's
/// message cannot be missed; where the browser has no service workers it never calls.
pub fn on_incomplete_install(handler: impl Fn(Vec<MissingFile>) + 'static) {
    let Some(container) = container() else {
        return;
    };
    let listener = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        if let Some(files) = incomplete_install(&event.data()) {
            handler(files);
        }
    });
    // Setting `onmessage` (unlike addEventListener) also starts the delivery of the worker's
    // messages to this page.
    container.set_onmessage(Some(listener.as_ref().unchecked_ref()));
    // The page has one container for its whole life, and so one listener.
    listener.forget();
}

/// The files named by the worker's `{type: "sm-offline-incomplete", missing: [{path, reason}]}`
/// message, or `None` for any other message.
fn incomplete_install(data: &JsValue) -> Option<Vec<MissingFile>> {
    let field = |value: &JsValue, name: &str| js_sys::Reflect::get(value, &name.into()).ok();
    if field(data, "type")?.as_string()? != INCOMPLETE {
        return None;
    }
    let list: js_sys::Array = field(data, "missing")?.dyn_into().ok()?;
    let files: Vec<MissingFile> = list
        .iter()
        .map(|item| MissingFile {
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

/// Registers the service worker once the page is idle after mount: `requestIdleCallback` where
/// the browser has it (with a 2 s timeout, so a busy page still gets it), else a 1 s timeout
/// after the next animation frame. Its install then fetches every file of the build in the
/// background (`www/sw.js`), the vocabulary and the on-demand modules included, none of which
/// the lesson's path requests itself.
pub fn register_when_idle() {
    leptos::prelude::request_animation_frame(|| {
        let Some(window) = web_sys::window() else {
            return;
        };
        let register = wasm_bindgen::closure::Closure::once_into_js(register_service_worker);
        let idle = js_sys::Reflect::get(&window, &"requestIdleCallback".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        let asked = match idle {
            Some(idle) => {
                let options = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&options, &"timeout".into(), &2000.into());
                idle.call2(&window, &register, &options).is_ok()
            }
            None => false,
        };
        if !asked {
            leptos::prelude::set_timeout(
                register_service_worker,
                std::time::Duration::from_secs(1),
            );
        }
    });
}

/// Asks the browser to install the service worker. Where there is none (an old browser, a page
/// not served over http(s) or localhost), the app simply keeps needing the network to load.
pub fn register_service_worker() {
    let Some(container) = container() else {
        return;
    };
    // The promise's rejection is only logged: the app itself works the same without offline.
    let promise = container.register("./sw.js");
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(error) = wasm_bindgen_futures::JsFuture::from(promise).await {
            web_sys::console::warn_2(&"offline mode unavailable:".into(), &error);
        }
    });
}

/// The page's service-worker container, or `None` where the browser offers none.
fn container() -> Option<web_sys::ServiceWorkerContainer> {
    let navigator = web_sys::window()?.navigator();
    // Outside a secure context `navigator.serviceWorker` is undefined, and calling it would throw.
    js_sys::Reflect::has(&navigator, &"serviceWorker".into())
        .unwrap_or(false)
        .then(|| navigator.service_worker())
}
