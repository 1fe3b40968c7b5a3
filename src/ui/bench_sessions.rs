//! One function for benches/browser/sessions.mjs, exported to JavaScript (as
//! `window.wasmBindings`): it writes the long made-up session the benchmark imports, so the file
//! is generated in the page from the same engine code as the e2e test's, not committed.

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
