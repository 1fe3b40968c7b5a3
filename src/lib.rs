//! Summary Memory: a workbench for summary memory of LLM conversations.
//!
//! The crate is split into a pure core ([`engine`], [`tokens`], [`route`], [`view`]) that builds and is
//! tested natively, and a thin browser shell ([`ui`]) that only exists on wasm32.
//! ARCHITECTURE.md maps the modules and the rules that keep the two apart.

pub mod app;
pub mod engine;
pub mod route;
pub mod tokens;
pub mod view;

#[cfg(target_arch = "wasm32")]
pub mod api;
#[cfg(target_arch = "wasm32")]
pub mod store;
#[cfg(target_arch = "wasm32")]
pub mod ui;
