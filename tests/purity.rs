//! The first architecture invariant: the pure core imports nothing from the browser crates.
//! It is what lets `cargo test` exercise the engine natively, and it keeps decisions (core) apart
//! from I/O (shell). See ARCHITECTURE.md.

use std::fs;
use std::path::{Path, PathBuf};

/// The modules that must stay pure, relative to the crate root.
const PURE: &[&str] = &[
    "src/engine",
    "src/tokens",
    "src/view",
    "src/route.rs",
    "crates/bpe/src",
];

/// Crates that only the shell may name.
const WEB_CRATES: &[&str] = &[
    "leptos",
    "web_sys",
    "js_sys",
    "wasm_bindgen",
    "wasm_bindgen_futures",
    "gloo",
];

#[test]
fn pure_modules_import_no_web_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for entry in PURE {
        collect_rust_files(&root.join(entry), &mut files);
    }
    assert!(
        files.len() > 3,
        "found only {files:?}: the pure modules moved; update PURE"
    );
    let offences: Vec<String> = files
        .iter()
        .flat_map(|path| {
            let text = fs::read_to_string(path).unwrap();
            web_imports(&text)
                .into_iter()
                .map(move |(line, krate)| format!("{}:{line} names `{krate}`", path.display()))
        })
        .collect();
    assert!(
        offences.is_empty(),
        "the pure core must not depend on browser crates (ARCHITECTURE.md):\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_checker_catches_every_form_of_import() {
    for code in [
        "use leptos::prelude::*;",
        "use leptos;",
        "    let w = web_sys::window();",
        "pub use gloo_net::http::Request;",
        "use gloo::timers::callback::Timeout;",
        "#[wasm_bindgen]",
        "extern crate js_sys;",
        "use { wasm_bindgen::JsValue };",
    ] {
        assert_eq!(web_imports(code).len(), 1, "missed: {code}");
    }
    for code in [
        "// leptos::prelude is only for the shell",
        "/// Imports nothing from leptos, web-sys, gloo, wasm-bindgen or js-sys.",
        "let leptos_like = 1;",
        r#"let s = "see web_sys::window in the shell";"#,
    ] {
        assert!(web_imports(code).is_empty(), "false alarm: {code}");
    }
}

/// Returns (line number, crate) for every line of code that names a web crate. Comments and
/// string literals are ignored so that prose may mention the crates.
fn web_imports(source: &str) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    for (index, line) in source.lines().enumerate() {
        let code = strip_comment_and_strings(line);
        for krate in WEB_CRATES {
            if names_crate(&code, krate) {
                found.push((index + 1, *krate));
                break;
            }
        }
    }
    found
}

fn names_crate(code: &str, krate: &str) -> bool {
    let bytes = code.as_bytes();
    let mut start = 0;
    while let Some(offset) = code[start..].find(krate) {
        let at = start + offset;
        let end = at + krate.len();
        start = end;
        let before_ok = at == 0 || !is_ident(bytes[at - 1]);
        if !before_ok {
            continue;
        }
        // `gloo` also covers gloo_net, gloo_timers, ...
        let mut tail = end;
        if krate == "gloo" {
            while tail < bytes.len() && is_ident(bytes[tail]) {
                tail += 1;
            }
        } else if tail < bytes.len() && is_ident(bytes[tail]) {
            continue;
        }
        let rest = code[tail..].trim_start();
        let head = code[..at].trim_end();
        if rest.starts_with("::")
            || head.ends_with("use")
            || head.ends_with("crate")
            || head.ends_with("#[")
            || head.ends_with('{')
        {
            return true;
        }
    }
    false
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn strip_comment_and_strings(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_string = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => in_string = !in_string,
            '\\' if in_string => {
                chars.next();
            }
            '/' if !in_string && chars.peek() == Some(&'/') => break,
            _ if in_string => {}
            _ => out.push(c),
        }
    }
    out
}

fn collect_rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.to_path_buf());
        }
        return;
    }
    let mut entries: Vec<_> = fs::read_dir(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for entry in entries {
        collect_rust_files(&entry, out);
    }
}

/// The application layer (`src/app/`) is pure like the core: it names no web crate.
#[test]
fn the_app_layer_imports_no_web_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect_rust_files(&root.join("src/app"), &mut files);
    assert!(
        files.len() > 3,
        "found only {files:?}: the app layer moved; update this test"
    );
    let offences: Vec<String> = files
        .iter()
        .flat_map(|path| {
            let text = fs::read_to_string(path).unwrap();
            web_imports(&text)
                .into_iter()
                .map(move |(line, krate)| format!("{}:{line} names `{krate}`", path.display()))
        })
        .collect();
    assert!(
        offences.is_empty(),
        "the app layer must not depend on browser crates (ARCHITECTURE.md):\n{}",
        offences.join("\n")
    );
}

/// The engine's state machines, which the shell must change only through app-layer methods.
const ENGINE_STATE: &[&str] = &["MemoryState", "DemoPlayer"];

/// ARCHITECTURE.md, invariant 3: components call no engine mutator directly. Checked in two
/// halves: the shell (`src/ui/`) never names `MemoryState` or `DemoPlayer`, so it can hold
/// them only as the app layer hands them out; and no public function of the app layer hands
/// one out as `&mut`. So every change to them is a method of an app type.
#[test]
fn the_shell_changes_engine_state_only_through_the_app_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut shell = Vec::new();
    collect_rust_files(&root.join("src/ui"), &mut shell);
    let mut app = Vec::new();
    collect_rust_files(&root.join("src/app"), &mut app);
    assert!(
        shell.len() > 5 && app.len() > 3,
        "the layers moved; update this test"
    );
    let mut offences = Vec::new();
    for path in &shell {
        let text = fs::read_to_string(path).unwrap();
        for (line, name) in names_engine_state(&text) {
            offences.push(format!("{}:{line} names `{name}`", path.display()));
        }
    }
    for path in &app {
        let text = fs::read_to_string(path).unwrap();
        for line in hands_out_mut_state(&text) {
            offences.push(format!(
                "{}:{line} hands out engine state as `&mut`",
                path.display()
            ));
        }
    }
    assert!(
        offences.is_empty(),
        "the shell must change engine state through app-layer methods (ARCHITECTURE.md):\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_layer_checks_catch_planted_violations() {
    // A web crate in the app layer is caught by the same scanner as in the core.
    assert_eq!(web_imports("use leptos::prelude::*;").len(), 1);
    for code in [
        "use crate::engine::memory::MemoryState;",
        "    let player = DemoPlayer::new(script);",
        "fn f(m: &mut MemoryState) {}",
        "use crate::engine::{demo::DemoPlayer, memory::MemoryState};",
    ] {
        assert!(!names_engine_state(code).is_empty(), "missed: {code}");
    }
    for code in [
        "// a DemoPlayer is never named here",
        r#"let s = "MemoryState";"#,
        "let demo_player = 1; struct MemoryStateView;",
    ] {
        assert!(names_engine_state(code).is_empty(), "false alarm: {code}");
    }
    for code in [
        "    pub fn memory_mut(&mut self) -> &mut MemoryState {",
        "    pub fn demo_mut(&mut self) -> Option<&mut DemoPlayer> {",
    ] {
        assert_eq!(hands_out_mut_state(code), [1], "missed: {code}");
    }
    for code in [
        "    pub fn memory(&self) -> &MemoryState {",
        "    fn on_screen_mut(&mut self) -> &mut dyn OnScreen {",
        "    pub fn set(&mut self, memory: MemoryState) {",
    ] {
        assert!(hands_out_mut_state(code).is_empty(), "false alarm: {code}");
    }
}

/// Returns (line number, type) for every line of code that names an engine state machine.
fn names_engine_state(source: &str) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    for (index, line) in source.lines().enumerate() {
        let code = strip_comment_and_strings(line);
        for name in ENGINE_STATE {
            if names_word(&code, name) {
                found.push((index + 1, *name));
            }
        }
    }
    found
}

/// The line numbers of public functions that return an engine state machine as `&mut`.
fn hands_out_mut_state(source: &str) -> Vec<usize> {
    source
        .lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = strip_comment_and_strings(line);
            let Some((head, returns)) = code.split_once("->") else {
                return false;
            };
            head.trim_start().starts_with("pub")
                && ENGINE_STATE
                    .iter()
                    .any(|name| returns.contains(&format!("&mut {name}")))
        })
        .map(|(index, _)| index + 1)
        .collect()
}

/// Whether `code` holds `word` as a whole identifier.
fn names_word(code: &str, word: &str) -> bool {
    let bytes = code.as_bytes();
    code.match_indices(word).any(|(at, _)| {
        let end = at + word.len();
        (at == 0 || !is_ident(bytes[at - 1])) && (end == bytes.len() || !is_ident(bytes[end]))
    })
}
