//! The service worker (www/sw.js) that lets the app load and run with no network after the first
//! visit, and makes it installable as a window: its registration, which the token service asks
//! for once the first vocabulary has loaded. The notice that says when its install could not keep
//! every file is a widget (`ui/widgets/offline_notice.rs`).
//!
//! The worker's cache is named per build (`scripts/precache.py` writes the build's id and file
//! list into it). At install it copies the files from the browser's HTTP cache, which the page
//! has just filled, so nothing is downloaded twice; on activate it deletes older builds' caches
//! of this scope. It answers same-origin GETs from the network first and from the cache when
//! that fails, and a copy it could not save never reaches the page.

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
pub(crate) fn container() -> Option<web_sys::ServiceWorkerContainer> {
    let navigator = web_sys::window()?.navigator();
    // Outside a secure context `navigator.serviceWorker` is undefined, and calling it would throw.
    js_sys::Reflect::has(&navigator, &"serviceWorker".into())
        .unwrap_or(false)
        .then(|| navigator.service_worker())
}
