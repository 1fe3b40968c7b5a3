//! Two functions for benches/browser, exported to JavaScript (Trunk exposes them as
//! `window.wasmBindings`). They time a fresh counter, apart from the app's own, so the browser
//! benchmark measures our tokenizer in the release build the users get.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use crate::tokens::{Encoding, TokenCounter};

thread_local! {
    static BENCH_COUNTER: RefCell<Option<TokenCounter>> = const { RefCell::new(None) };
}

/// Parses the `encoding` vocabulary ("o200k_base" or "cl100k_base") into a fresh counter and
/// returns the milliseconds it took.
#[wasm_bindgen]
pub fn bench_tokens_load(encoding: &str) -> Result<f64, JsError> {
    let encoding: Encoding = encoding.parse()?;
    let counter = TokenCounter::new(encoding);
    let start = now();
    counter.load(encoding)?;
    let millis = now() - start;
    BENCH_COUNTER.with(|c| *c.borrow_mut() = Some(counter));
    Ok(millis)
}

/// Counts every text `rounds` times without the cache, with the counter that
/// [`bench_tokens_load`] made, and returns the total number of tokens (to check against the
/// other tokenizer). The caller times it.
#[wasm_bindgen]
pub fn bench_tokens_count(texts: Vec<String>, rounds: u32) -> Result<f64, JsError> {
    BENCH_COUNTER.with(|c| {
        let counter = c.borrow();
        let counter = counter
            .as_ref()
            .ok_or_else(|| JsError::new("call bench_tokens_load first"))?;
        let encoding = counter.encoding();
        let mut tokens = 0u64;
        for _ in 0..rounds {
            for text in &texts {
                tokens += u64::from(counter.count_uncached(encoding, text).value().unwrap_or(0));
            }
        }
        Ok(tokens as f64)
    })
}

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}
