//! The browser shell: Leptos components that show core values.
//!
//! Components hold no business logic: they read app values ([`crate::app`]) and view models
//! ([`crate::view`]) and call app-layer methods. App-wide state is created in [`App`] and shared
//! through context; effects only mirror state out to the URL, storage or the network.
//!
//! The rooms, top to bottom (`tests/purity.rs` holds the arrows between them):
//! - this file and `shell.rs`: mounting, the App root, the header and the tab bar; `url.rs`, the
//!   address bar; `on_demand.rs`, the tabs loaded on first use; `bench.rs` and
//!   `bench_sessions.rs`, exports for the browser benchmarks;
//! - one folder per tab: `chat/`, `editions/`, `tuner/`, `tokens/`, `inspect/`, `settings/`. A tab
//!   imports widgets and runners, never another tab;
//! - `widgets/`: components more than one tab shows, and the chrome around every tab;
//! - `run/`: the runners and services that perform what the app layer asks for (the live chat's
//!   requests, the library's storage, the token counter, the service worker) and the clock. They
//!   draw nothing.

mod bench;
mod bench_sessions;
mod chat;
mod editions;
mod inspect;
mod on_demand;
mod run;
mod settings;
mod shell;
mod tokens;
mod tuner;
pub mod url;
mod widgets;

pub use shell::App;

/// Mounts the app on `<body>`. Called by `main` and nothing else.
pub fn start() {
    console_error_panic_hook::set_once();
    // The stored theme goes on <html> before the first paint of the app, so a dark choice never
    // flashes light.
    run::theme::apply_stored();
    // What a crash must not lose is read from IndexedDB before the app mounts, so the view,
    // the draft, the settings and the live chat's session come from what was durably stored,
    // not from localStorage, which a killed browser may not have written (`store::durable`).
    // IndexedDB that is missing or slow costs only that: the app mounts after a short wait.
    wasm_bindgen_futures::spawn_local(async {
        let patience =
            gloo_timers::future::TimeoutFuture::new(crate::store::durable::LOAD_PATIENCE_MS);
        first_of(crate::store::durable::load(), patience).await;
        leptos::mount::mount_to_body(App);
        // Mounting is synchronous: from here the tab bar is in the page and answers clicks.
        run::token_service::mark("sm-mounted");
        // The service worker is registered once the first vocabulary has loaded
        // (ui/run/token_service.rs).
    });
}

/// Waits until either future is done.
async fn first_of(first: impl std::future::Future, second: impl std::future::Future) {
    let mut first = std::pin::pin!(first);
    let mut second = std::pin::pin!(second);
    std::future::poll_fn(move |cx| {
        if first.as_mut().poll(cx).is_ready() || second.as_mut().poll(cx).is_ready() {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await
}
