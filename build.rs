//! Packs the export templates (`src/engine/export/templates/`) into one deflate stream that
//! `engine::export` inflates the first time a snippet is written: 45 KB of Python and JavaScript
//! is about a quarter of that in the page's wasm, which has to stay under the release build's
//! first-load guard. The files stay plain in the repository, where the fidelity drivers and reviewers
//! read them.

use std::path::Path;

fn main() {
    // The page's wasm keeps the linker's relocations, which `wasm-split-cli` reads to cut the
    // modules loaded on first use out of it (scripts/split.py). Only that binary: the worker has
    // no split point, and the flag on the whole build (RUSTFLAGS) would rebuild every crate.
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        println!("cargo:rustc-link-arg-bin=summary-memory=--emit-relocs");
    }
    let dir = Path::new("src/engine/export/templates");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files = Vec::new();
    collect(dir, dir, &mut files);
    files.sort();
    // name NUL text NUL, for every file: names and texts never hold a NUL.
    let mut blob = Vec::new();
    for (name, text) in &files {
        blob.extend_from_slice(name.as_bytes());
        blob.push(0);
        blob.extend_from_slice(text);
        blob.push(0);
    }
    let packed = miniz_oxide::deflate::compress_to_vec(&blob, 10);
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(Path::new(&out).join("templates.deflate"), packed).expect("OUT_DIR is writable");
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).expect("the templates folder is there") {
        let path = entry.expect("a readable entry").path();
        if path.is_dir() {
            collect(root, &path, files);
        } else {
            let name = path.strip_prefix(root).expect("under the root");
            let name = name.to_string_lossy().replace('\\', "/");
            files.push((name, std::fs::read(&path).expect("a readable template")));
        }
    }
}
