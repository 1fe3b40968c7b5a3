//! The browser shell: Leptos components that show core values.
//!
//! Components hold no business logic: they read app values ([`crate::app`]) and view models
//! ([`crate::view`]) and call app-layer methods. App-wide state is created in [`App`] and shared
//! through context; effects only mirror state out to the URL, storage or the network. The
//! runners that perform what the app asks for (the live chat's requests) have modules of their
//! own (`live_driver.rs`).

mod bench;
mod bench_sessions;
mod chat;
mod clock;
mod editions;
mod inspect;
mod lesson;
mod library_sync;
mod live_driver;
mod markdown;
mod offline;
mod settings;
mod shell;
mod store_alerts;
mod streamed;
mod theme;
mod tokens;
mod tuner;
pub mod url;
mod virtual_list;

pub use shell::App;
pub use tokens::{LoadState, SharedCounter, TokenService};

/// Mounts the app on `<body>`. Called by `main` and nothing else.
pub fn start() {
    console_error_panic_hook::set_once();
    // The stored theme goes on <html> before the first paint of the app, so a dark choice never
    // flashes light.
    crate::store::theme::apply_theme(crate::store::theme::load_theme());
    leptos::mount::mount_to_body(App);
    // Mounting is synchronous: from here the tab bar is in the page and answers clicks.
    tokens::mark("sm-mounted");
    // The service worker is registered once the first vocabulary has loaded (ui/tokens.rs).
}
