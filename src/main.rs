//! Mounts the app. Everything else lives in the library.

#[cfg(target_arch = "wasm32")]
fn main() {
    summary_memory::ui::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("Summary Memory runs in the browser: serve it with `bash scripts/serve.sh`.");
}
