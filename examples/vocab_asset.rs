//! Writes the compact vocabularies (src/tokens/compact.rs) that the browser fetches, generated
//! from tiktoken-rs's own data. `scripts/vocab.py`, a Trunk hook, runs it at every build:
//!
//! ```sh
//! cargo run --example vocab_asset -- OUT_DIR
//! ```
//!
//! It writes `OUT_DIR/o200k_base.smv` and `OUT_DIR/cl100k_base.smv`.

use std::path::PathBuf;

use summary_memory::tokens::{Encoding, compact};

fn main() {
    let out = PathBuf::from(
        std::env::args_os()
            .nth(1)
            .expect("usage: vocab_asset OUT_DIR"),
    );
    std::fs::create_dir_all(&out).expect("the output folder can be created");
    for encoding in Encoding::ALL {
        let path = out.join(format!("{}.smv", encoding.name()));
        let data = compact::from_tiktoken(encoding);
        std::fs::write(&path, &data).expect("the vocabulary can be written");
        println!("{}: {} bytes", path.display(), data.len());
    }
}
