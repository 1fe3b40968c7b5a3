//! Two functions for the browser benchmarks, exported to JavaScript (as `window.wasmBindings`):
//! `bench_session_file` writes the long made-up session that benches/browser/sessions.mjs
//! imports (`engine::session::fixture::synthetic`), and `bench_chat_file` the long chat with
//! nothing folded that benches/browser/stream.mjs streams into (`fixture::verbatim`). So the
//! files are generated in the page from the same engine code as the e2e tests', not committed.

use wasm_bindgen::prelude::*;

use crate::engine::session::fixture::verbatim;
use crate::engine::session::{export, synthetic};

/// The export file of [`synthetic`]`(turns)`.
#[wasm_bindgen]
pub fn bench_session_file(turns: u32) -> String {
    export(&synthetic(turns), 0, env!("CARGO_PKG_VERSION"))
}

/// The export file of [`verbatim`]`(turns)`, the all-verbatim chat `benches/browser/stream.mjs`
/// streams a reply into.
#[wasm_bindgen]
pub fn bench_chat_file(turns: u32) -> String {
    export(&verbatim(turns), 0, env!("CARGO_PKG_VERSION"))
}
