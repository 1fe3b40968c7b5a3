//! The browser shell: Leptos components that show core values.
//!
//! Components hold no business logic: they read app values ([`crate::app`]) and view models
//! ([`crate::view`]) and call app-layer methods. App-wide state is created in [`App`] and shared
//! through context; effects only mirror state out to the URL, storage or the network.
//!
//! The rooms, top to bottom (`tests/purity.rs` holds the arrows between them):
//! - this file and `shell.rs`: mounting, the App root, the header and the tab bar; `url.rs`, the
//!   address bar; `bench.rs` and `bench_sessions.rs`, exports for the browser benchmarks;
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
    crate::store::theme::apply_theme(crate::store::theme::load_theme());
    leptos::mount::mount_to_body(App);
    // Mounting is synchronous: from here the tab bar is in the page and answers clicks.
    run::token_service::mark("sm-mounted");
    // The service worker is registered once the first vocabulary has loaded
    // (ui/run/token_service.rs).
}
