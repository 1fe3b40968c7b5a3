//! The browser tier: modules that only work in a real browser, run by wasm-bindgen-test in
//! headless Chromium (`cargo test --target wasm32-unknown-unknown --test browser`).
#![cfg(target_arch = "wasm32")]

use summary_memory::route::{Route, Tab};
use summary_memory::ui::url::{current_query, replace_query};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn replace_query_rewrites_the_address_bar_without_navigating() {
    let before = web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .length()
        .unwrap();
    replace_query("tab=tuner&max_turns=4");
    assert_eq!(current_query(), "?tab=tuner&max_turns=4");
    let route = Route::parse(&current_query());
    assert_eq!(route.tab, Tab::Tuner);
    assert_eq!(route.max_turns, Some(4));
    // replaceState, not pushState: the back button must not walk through every keystroke.
    let after = web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .length()
        .unwrap();
    assert_eq!(before, after);
}

#[wasm_bindgen_test]
fn an_empty_query_drops_the_question_mark() {
    replace_query("tab=tokens");
    replace_query("");
    assert_eq!(current_query(), "");
    let href = web_sys::window().unwrap().location().href().unwrap();
    assert!(!href.contains('?'), "{href}");
}
