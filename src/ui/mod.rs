//! The browser shell: Leptos components that show core values.
//!
//! Components hold no business logic. App-wide state is created in [`App`] and shared through
//! context; effects only mirror state out to the URL, storage or the network.

mod bench;
mod chat;
mod editions;
mod inspect;
mod offline;
mod settings;
mod shell;
mod tokens;
mod tuner;
pub mod url;

pub use shell::App;
pub use tokens::{AppCounter, LoadState, TokenService};

/// Mounts the app on `<body>`. Called by `main` and nothing else.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
    // Mounting is synchronous: from here the tab bar is in the page and answers clicks.
    tokens::mark("sm-mounted");
    // The service worker is registered once the first vocabulary has loaded (ui/tokens.rs).
}
