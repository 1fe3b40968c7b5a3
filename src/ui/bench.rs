//! Small functions for benches/browser, exported to JavaScript (Trunk exposes them as
//! `window.wasmBindings`). They time a fresh counter, apart from the app's own, so the browser
//! benchmark measures our tokenizer in the release build the users get. `benches/browser/run.mjs`
//! times loading a vocabulary file and counting, with the texts passed from JavaScript on each
//! call or held in wasm memory, and the structured clone of a session record in each of the two
//! forms it could be stored in.

use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;

use crate::tokens::{Encoding, StartLoading, TokenCounter};

thread_local! {
    static BENCH_COUNTER: RefCell<Option<TokenCounter>> = const { RefCell::new(None) };
    static HELD_TEXTS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    static START_LOADING: Cell<Option<StartLoading>> = const { Cell::new(None) };
}

/// Fetches the token counter's module, as the app does with its first vocabulary (the
/// vocabulary's parse, the splitter and the merge are there, not in the first load). Await it
/// before [`bench_tokens_load`].
#[wasm_bindgen]
pub async fn bench_tokens_module() -> Result<(), JsError> {
    let module = super::run::token_service::provided_counter_module()
        .ok_or_else(|| JsError::new("the app has not started"))?;
    let start = module()
        .await
        .map_err(|_| JsError::new("the token counter's module could not be fetched"))?;
    START_LOADING.with(|s| s.set(Some(start)));
    Ok(())
}

/// The URL of the `encoding` vocabulary file that the page names, so the bench can fetch it
/// before timing the parse (as it fetches gpt-tokenizer's module file before timing its init).
#[wasm_bindgen]
pub fn bench_tokens_vocabulary_url(encoding: &str) -> Result<String, JsError> {
    let encoding: Encoding = encoding.parse()?;
    super::run::token_service::vocabulary_url(encoding).map_err(|e| JsError::new(&e))
}

/// Parses `data`, the compact `encoding` vocabulary ("o200k_base" or "cl100k_base"), into a
/// fresh counter and returns the milliseconds it took ([`bench_tokens_module`] first).
#[wasm_bindgen]
pub fn bench_tokens_load(encoding: &str, data: &[u8]) -> Result<f64, JsError> {
    let encoding: Encoding = encoding.parse()?;
    let start_loading = START_LOADING
        .with(Cell::get)
        .ok_or_else(|| JsError::new("await bench_tokens_module first"))?;
    let counter = TokenCounter::new(encoding);
    let start = now();
    // All of it at once, as `TokenCounter::load_from` would: the page builds it in slices.
    let mut loading = start_loading(encoding, data)?;
    while !loading.step(usize::MAX)? {}
    counter.finish_loading(loading)?;
    let millis = now() - start;
    BENCH_COUNTER.with(|c| *c.borrow_mut() = Some(counter));
    Ok(millis)
}

/// Counts every text `rounds` times without the per-text cache, with the counter that
/// [`bench_tokens_load`] made, and returns the total number of tokens (to check against the
/// other tokenizer). With `cold`, the per-piece cache is emptied before each round, like
/// gpt-tokenizer's merge cache in its cold run. The caller times it.
#[wasm_bindgen]
pub fn bench_tokens_count(texts: Vec<String>, rounds: u32, cold: bool) -> Result<f64, JsError> {
    bench_tokens_count_slice(&texts, rounds, cold)
}

/// Counts one text passed from JavaScript (converted from the JS string into wasm memory on
/// each call, as a keystroke's text is), with the counter [`bench_tokens_load`] made, without the
/// per-text cache. The per-piece cache stays warm.
#[wasm_bindgen]
pub fn bench_tokens_count_one(text: &str) -> Result<u32, JsError> {
    BENCH_COUNTER.with(|c| {
        let counter = c.borrow();
        let counter = counter
            .as_ref()
            .ok_or_else(|| JsError::new("call bench_tokens_load first"))?;
        Ok(counter
            .count_uncached(counter.encoding(), text)
            .value()
            .unwrap_or(0))
    })
}

/// Keeps `texts` in wasm memory for [`bench_tokens_count_held`], which counts them with no
/// conversion from JavaScript, as the app counts the messages it holds.
#[wasm_bindgen]
pub fn bench_tokens_hold(texts: Vec<String>) {
    HELD_TEXTS.with(|held| *held.borrow_mut() = texts);
}

/// Counts the texts [`bench_tokens_hold`] kept, once each, warm; returns the total.
#[wasm_bindgen]
pub fn bench_tokens_count_held() -> Result<f64, JsError> {
    HELD_TEXTS.with(|held| bench_tokens_count_slice(&held.borrow(), 1, false))
}

fn bench_tokens_count_slice(texts: &[String], rounds: u32, cold: bool) -> Result<f64, JsError> {
    BENCH_COUNTER.with(|c| {
        let counter = c.borrow();
        let counter = counter
            .as_ref()
            .ok_or_else(|| JsError::new("call bench_tokens_load first"))?;
        let encoding = counter.encoding();
        let mut tokens = 0u64;
        for _ in 0..rounds {
            if cold {
                counter.clear_cache();
            }
            for text in texts {
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

#[cfg(feature = "record-bench")]
/// The two ways a session record could cross between the app and IndexedDB or the tab channel:
/// as the export text (a JSON string, what the store keeps), or as a JavaScript object built and
/// read by serde-wasm-bindgen.
fn record_way(way: &str) -> Result<bool, JsError> {
    match way {
        "json" => Ok(false),
        "serde-wasm-bindgen" => Ok(true),
        _ => Err(JsError::new("way is \"json\" or \"serde-wasm-bindgen\"")),
    }
}

#[cfg(feature = "record-bench")]
/// A `turns`-turn session's record as the JS value that would be stored: the export text, or the
/// object serde-wasm-bindgen builds. The bench times the browser's structured clone of each (what
/// IndexedDB's `put` and `postMessage` do).
#[wasm_bindgen]
pub fn bench_record_value(turns: u32, way: &str) -> Result<JsValue, JsError> {
    let wire =
        crate::engine::session::wire_of(&crate::engine::session::synthetic(turns), 0, "bench");
    if record_way(way)? {
        Ok(serde_wasm_bindgen::to_value(&wire)?)
    } else {
        Ok(JsValue::from_str(&serde_json::to_string(&wire)?))
    }
}

#[cfg(feature = "record-bench")]
/// Milliseconds per round for a `turns`-turn session's record to go out to JavaScript and back
/// into the wasm's wire type, `rounds` times, one way or the other.
#[wasm_bindgen]
pub fn bench_record_roundtrip(turns: u32, way: &str, rounds: u32) -> Result<f64, JsError> {
    use crate::engine::session::WireFile;
    let swb = record_way(way)?;
    let wire =
        crate::engine::session::wire_of(&crate::engine::session::synthetic(turns), 0, "bench");
    let start = now();
    for _ in 0..rounds.max(1) {
        let back: WireFile = if swb {
            serde_wasm_bindgen::from_value(serde_wasm_bindgen::to_value(&wire)?)?
        } else {
            let value = JsValue::from_str(&serde_json::to_string(&wire)?);
            serde_json::from_str(&value.as_string().unwrap_or_default())?
        };
        std::hint::black_box(back);
    }
    Ok((now() - start) / f64::from(rounds.max(1)))
}
