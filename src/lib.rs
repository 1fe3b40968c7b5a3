//! Summary Memory: a workbench for summary memory of LLM conversations.
//!
//! The crate is split into a pure core ([`engine`], [`tokens`], [`route`]), a pure application
//! layer ([`app`]: the state machines of the tabs) with the view models computed from it
//! ([`view`]), all built and tested natively, and a thin browser shell ([`ui`], [`api`],
//! [`store`]) that only exists on wasm32.
//! ARCHITECTURE.md maps the modules and the rules that keep the two apart.

pub mod app;
pub mod engine;
pub mod route;
pub mod tokens;
pub mod view;

// The corpus worker's build (`--features corpus-worker`) leaves the page's shell out, so its
// wasm holds no Leptos.
#[cfg(all(target_arch = "wasm32", not(feature = "corpus-worker")))]
pub mod api;
#[cfg(all(target_arch = "wasm32", not(feature = "corpus-worker")))]
pub mod store;
#[cfg(all(target_arch = "wasm32", not(feature = "corpus-worker")))]
pub mod ui;
