//! Registers the service worker (www/sw.js) that lets the app load and run with no network after
//! the first visit.

/// Asks the browser to install the service worker. Where there is none (an old browser, a page
/// not served over http(s) or localhost), the app simply keeps needing the network to load.
pub fn register_service_worker() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let navigator = window.navigator();
    // Outside a secure context `navigator.serviceWorker` is undefined, and calling it would throw.
    if !js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false) {
        return;
    }
    let container = navigator.service_worker();
    // The promise's rejection is only logged: the app itself works the same without offline.
    let promise = container.register("./sw.js");
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(error) = wasm_bindgen_futures::JsFuture::from(promise).await {
            web_sys::console::warn_2(&"offline mode unavailable:".into(), &error);
        }
    });
}
