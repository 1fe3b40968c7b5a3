//! The engine's fidelity table (`FIDELITY` in src/engine/peers.rs) against the traces the
//! fidelity tier committed (tests/fidelity/traces/<slug>/<shape>.json): every preset whose row
//! names a version was run at that version, on every conversation shape, from the file the row
//! names, and the pins the tier installs are the versions the rows name. Whether a row's
//! exactness holds (an identical preset matches the dry run on every trace) is checked by
//! tests/fidelity.rs, which compares the requests.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use summary_memory::engine::peers::{FIDELITY, PEER_PRESETS};

fn fidelity_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fidelity")
}

/// The conversation shapes, from tests/fidelity/conversations/.
fn shapes() -> Vec<String> {
    let mut shapes: Vec<String> = fs::read_dir(fidelity_dir().join("conversations"))
        .expect("tests/fidelity/conversations is missing")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    shapes.sort();
    shapes
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_row_with_a_version_has_a_trace_of_every_shape_from_that_library_and_file() {
    let shapes = shapes();
    assert!(
        shapes.len() >= 6,
        "the contract asks for at least six shapes: {shapes:?}"
    );
    let mut run = 0;
    for row in FIDELITY {
        let dir = fidelity_dir().join("traces").join(row.slug);
        let Some(version) = row.version else {
            assert!(
                !dir.exists(),
                "{}: traces exist, so the table should name their version",
                row.slug
            );
            continue;
        };
        run += 1;
        for shape in &shapes {
            let trace = read_json(&dir.join(format!("{shape}.json")));
            let field = |name: &str| trace[name].as_str().unwrap_or_default().to_owned();
            let place = format!("traces/{}/{shape}.json", row.slug);
            assert_eq!(field("library"), row.library, "{place}: library");
            assert_eq!(field("version"), version, "{place}: version");
            assert_eq!(field("source"), row.source_file, "{place}: source file");
            assert_eq!(field("shape"), *shape, "{place}: shape");
            let requests = trace["requests"].as_array().expect("requests");
            assert!(!requests.is_empty(), "{place}: no requests");
            // The tier is only a test of the library's compaction if the compaction ran.
            assert!(
                trace["summariser_calls"].as_u64().unwrap_or(0) > 0,
                "{place}: never summarised"
            );
        }
    }
    assert_eq!(run, 5, "the five libraries the tier runs");
    for slug in fs::read_dir(fidelity_dir().join("traces")).unwrap() {
        let slug = slug.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            PEER_PRESETS.iter().any(|p| p.slug == slug),
            "traces/{slug} is not a preset's slug"
        );
    }
}

#[test]
fn the_pins_the_tier_installs_are_the_versions_the_table_names() {
    let requirements = fs::read_to_string(fidelity_dir().join("requirements.txt")).unwrap();
    let lock = read_json(&fidelity_dir().join("node/package-lock.json"));
    for row in FIDELITY {
        let Some(version) = row.version else { continue };
        let pinned = if row.library.starts_with('@') {
            lock["packages"][format!("node_modules/{}", row.library)]["version"]
                .as_str()
                .map(str::to_owned)
        } else {
            requirements
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{}==", row.library)))
                .map(str::to_owned)
        };
        assert_eq!(
            pinned.as_deref(),
            Some(version),
            "{}: the pin of {}",
            row.slug,
            row.library
        );
    }
}
