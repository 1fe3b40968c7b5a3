//! The memory engine: triggers, schedules, summary jobs, editions, drift checks, the SSE parser
//! and the session format.
//!
//! It decides and emits what it wants done as data; it never performs I/O. It imports nothing
//! from leptos, web-sys, gloo, wasm-bindgen or js-sys (tests/purity.rs enforces this).

pub mod drift;
pub mod extractive;
pub mod message;
pub mod openai;
pub mod settings;
pub mod sse;
pub mod structured;

pub use message::{CountTokens, Message, Role, WordCounter};
