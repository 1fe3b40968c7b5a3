//! Writes every snippet the export tier runs (`tests/fidelity/export/cases.rs`) into a folder,
//! by default the committed `tests/fidelity/export/snippets/`; `tests/fidelity_export.rs`
//! fails when the committed ones are stale.
//!
//! Usage: `cargo run --example export_snippets [-- <dir>]`

#[path = "../tests/fidelity/export/cases.rs"]
mod cases;

use std::path::PathBuf;

use summary_memory::engine::export::export;

fn main() {
    let dir = std::env::args_os().nth(1).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fidelity/export/snippets"),
        PathBuf::from,
    );
    let ctx = cases::context();
    let mut written = 0;
    for run in &cases::RUN {
        for case in run.cases {
            let out = export(run.target, &(case.policy)(), &ctx);
            let path = dir.join(cases::snippet_path(run.target, case));
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .unwrap_or_else(|e| panic!("{}: cannot create: {e}", parent.display()));
            }
            std::fs::write(&path, out.code)
                .unwrap_or_else(|e| panic!("{}: cannot write: {e}", path.display()));
            written += 1;
        }
    }
    println!("export_snippets: {written} snippets in {}", dir.display());
}
