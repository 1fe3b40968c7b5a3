//! Architecture checks over the source tree (ARCHITECTURE.md):
//!
//! - the first invariant: the pure core imports nothing from the browser crates. It is what lets
//!   `cargo test` exercise the engine natively, and it keeps decisions (core) apart from I/O
//!   (shell). The application layer, `src/app`, is held to the same rule once it exists;
//! - the third invariant, as far as a text check can: the shell never names the engine's state
//!   machines, and the app layer never hands one out as `&mut`;
//! - no import circle: no two files under `src/` import each other, directly or through others;
//! - the layers: each room of `src/` and of the path crates imports only the rooms [`LAYERS`]
//!   lets it, so an arrow upward (the app layer reaching for a view, a runner for a tab, anything
//!   for the command line) or a tab importing another tab fails with the file and line of the
//!   import;
//! - no folder circle either: no two sibling modules of which one is a folder import each other
//!   through their files, directly or through others;
//! - no source file is over 900 lines before its tests;
//! - the tabs and widgets only draw (invariant 10): no more `format!`, `.parse`, `spawn_local`,
//!   `crate::api`, `crate::store` or `js_sys::Date` in their files than the ratchet
//!   [`DRAWING_ALLOWANCES`] still allows, and no fewer (a cleaned file lowers its entry). Every
//!   file is at zero and the table is empty, so none of them may hold any.
//!
//! Each check has a self-test that plants a violation and sees it caught.

use std::collections::{BTreeMap, BTreeSet};
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

/// Modules held to the same rule as soon as they exist. The application layer (`src/app`,
/// issue #11) is pure like the core; until it is added there is nothing to check.
const PURE_ONCE_PRESENT: &[&str] = &["src/app"];

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
    let files = pure_files(root, PURE, PURE_ONCE_PRESENT);
    assert!(
        files.len() > 3,
        "found only {files:?}: the pure modules moved; update PURE"
    );
    let offences = web_offences(&files);
    assert!(
        offences.is_empty(),
        "the pure core must not depend on browser crates (ARCHITECTURE.md):\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_app_layer_is_checked_once_it_exists() {
    let root = TempTree::new("app-rule");
    root.write(
        "src/engine/memory.rs",
        "use crate::engine::policy::Policy;\n",
    );
    // Without `src/app` the rule has nothing to check, and nothing fails.
    let files = pure_files(&root.0, &["src/engine"], PURE_ONCE_PRESENT);
    assert_eq!(files.len(), 1);
    assert!(web_offences(&files).is_empty());
    // Once a file is planted there, its web import is reported.
    root.write(
        "src/app/live.rs",
        "//! The live chat.\nuse crate::engine::memory::MemoryState;\nuse leptos::prelude::*;\n",
    );
    root.write("src/app/mod.rs", "pub mod live;\n");
    let files = pure_files(&root.0, &["src/engine"], PURE_ONCE_PRESENT);
    assert_eq!(files.len(), 3);
    let offences = web_offences(&files);
    assert_eq!(offences.len(), 1, "{offences:?}");
    assert!(
        offences[0].ends_with("src/app/live.rs:3 names `leptos`"),
        "{offences:?}"
    );
}

/// The core: it imports only itself, and `crates/bpe`.
const CORE: &[&str] = &["src/engine/", "src/tokens/", "src/route.rs", "crates/bpe/"];
/// The app layer and the core: what the views and the store may import.
const APP_AND_CORE: &[&str] = &[
    "src/app/",
    "src/engine/",
    "src/tokens/",
    "src/route.rs",
    "crates/bpe/",
];
/// Everything below the shell's components: what a runner may import.
const BELOW_WIDGETS: &[&str] = &[
    "src/api/",
    "src/store/",
    "src/view/",
    "src/app/",
    "src/engine/",
    "src/tokens/",
    "src/route.rs",
    "crates/bpe/",
];
/// What a widget may import: the runners and everything below them.
const BELOW_TABS: &[&str] = &[
    "src/ui/run/",
    "src/api/",
    "src/store/",
    "src/view/",
    "src/app/",
    "src/engine/",
    "src/tokens/",
    "src/route.rs",
    "crates/bpe/",
];
/// What a tab may import: widgets, runners and everything below them, but no other tab.
const TAB: &[&str] = &[
    "src/ui/widgets/",
    "src/ui/run/",
    "src/api/",
    "src/store/",
    "src/view/",
    "src/app/",
    "src/engine/",
    "src/tokens/",
    "src/route.rs",
    "crates/bpe/",
];

/// Which room of the workspace may import which (ARCHITECTURE.md, "Layers"), top to bottom. A
/// room is a folder (`dir/`, everything under it), the files directly in a folder (`dir/*.rs`) or
/// one file; a file belongs to the most specific room that holds it, and may import its own room
/// and the rooms of its row. Every file under `src/` but `main.rs` (a crate of its own, which
/// only mounts the app) and under the path crates' `src/` ([`CRATES`]) belongs to a room, so a
/// new folder needs a row before it can hold code. The command line (`cli/`) is a room of its
/// own at the top, like `main.rs`: nothing imports it.
const LAYERS: &[(&str, &[&str])] = &[
    // The Python package's binding: on top, over the command line's library (its reader, rows
    // and replay writing) and the core; nothing imports it.
    (
        "py/",
        &[
            "cli/",
            "src/engine/",
            "src/tokens/",
            "src/route.rs",
            "crates/bpe/",
        ],
    ),
    // The command line: beside `main.rs`, over the core (no app layer, no shell); only the
    // Python binding imports it.
    ("cli/", CORE),
    // The crate root declares the modules.
    ("src/lib.rs", &["src/"]),
    // Other binaries (the corpus worker): the shell of a worker, over the app layer and the core.
    ("src/bin/", APP_AND_CORE),
    // The shell's root: mounting, the App root, the tab bar, the address bar, the bench exports.
    (
        "src/ui/*.rs",
        &[
            "src/ui/",
            "src/api/",
            "src/store/",
            "src/view/",
            "src/app/",
            "src/engine/",
            "src/tokens/",
            "src/route.rs",
            "crates/bpe/",
        ],
    ),
    // One room per tab; none of them may import another.
    ("src/ui/chat/", TAB),
    ("src/ui/editions/", TAB),
    ("src/ui/tuner/", TAB),
    ("src/ui/tokens/", TAB),
    ("src/ui/inspect/", TAB),
    ("src/ui/settings/", TAB),
    // Shared components and chrome: below the tabs, above the runners.
    ("src/ui/widgets/", BELOW_TABS),
    // Runners and services: they perform, and draw nothing.
    ("src/ui/run/", BELOW_WIDGETS),
    ("src/api/", APP_AND_CORE),
    // Storage reads app values, never the views drawn from them.
    ("src/store/", APP_AND_CORE),
    ("src/view/", APP_AND_CORE),
    ("src/app/", CORE),
    ("src/engine/", CORE),
    ("src/tokens/", CORE),
    ("src/route.rs", CORE),
    // The hot counting code, at the bottom: it imports no other room.
    ("crates/bpe/", &[]),
];

/// The workspace's crates as their paths name them, and their sources: an import of another
/// crate's item (`summary_memory::engine::…` in the command line, `sm_bpe::…` in the counter) is
/// an arrow into that crate's file, held to [`LAYERS`] as an import inside a crate is.
const CRATES: &[(&str, &str)] = &[
    ("summary_memory", "src"),
    ("sm_bpe", "crates/bpe/src"),
    ("summary_memory_cli", "cli/src"),
    ("_core", "py/src"),
];

#[test]
fn every_import_follows_the_layer_table() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let offences = layer_offences(root, LAYERS);
    assert!(
        offences.is_empty(),
        "these imports break the layers (tests/purity.rs, LAYERS; ARCHITECTURE.md):\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_layer_check_fails_on_a_planted_upward_or_tab_to_tab_import() {
    let tree = TempTree::new("layers");
    tree.write(
        "src/lib.rs",
        "pub mod app;\npub mod engine;\npub mod ui;\npub mod view;\n",
    );
    tree.write("src/engine/mod.rs", "pub struct Policy;\n");
    tree.write(
        "src/app/mod.rs",
        "//! The app layer.\nuse crate::engine::Policy;\n",
    );
    tree.write("src/view/mod.rs", "pub mod chat;\n");
    tree.write(
        "src/view/chat.rs",
        "use crate::app::Thing;\npub struct Conversation;\n",
    );
    tree.write(
        "src/ui/mod.rs",
        "mod chat;\nmod run;\nmod tuner;\nmod widgets;\n",
    );
    tree.write(
        "src/ui/shell.rs",
        "use super::chat::ChatTab;\nuse super::tuner::TunerTab;\n",
    );
    tree.write(
        "src/ui/chat/mod.rs",
        "//! The Chat tab.\nuse crate::ui::widgets::chart::Chart;\nuse crate::ui::run::clock;\n",
    );
    tree.write(
        "src/ui/tuner/mod.rs",
        "use crate::view::chat::Conversation;\n",
    );
    tree.write("src/ui/widgets/mod.rs", "pub mod chart;\n");
    tree.write(
        "src/ui/widgets/chart.rs",
        "use crate::ui::run::clock::now_ms;\n",
    );
    tree.write("src/ui/run/mod.rs", "pub mod clock;\n");
    tree.write("src/ui/run/clock.rs", "pub fn now_ms() -> f64 { 0.0 }\n");
    // As planted, every arrow runs downward or stays in its room.
    assert_eq!(layer_offences(&tree.0, LAYERS), Vec::<String>::new());

    // An arrow upward: the app layer importing a view model.
    tree.write(
        "src/app/mod.rs",
        "//! The app layer.\nuse crate::engine::Policy;\nuse crate::view::chat::Conversation;\n",
    );
    let offences = layer_offences(&tree.0, LAYERS);
    assert_eq!(offences.len(), 1, "{offences:?}");
    assert!(
        offences[0].starts_with("src/app/mod.rs:3 imports src/view/chat.rs"),
        "{offences:?}"
    );
    tree.write(
        "src/app/mod.rs",
        "//! The app layer.\nuse crate::engine::Policy;\n",
    );

    // A tab importing another tab, in a `use` group and in a path in code.
    tree.write(
        "src/ui/chat/mod.rs",
        "//! The Chat tab.\nuse crate::ui::{run::clock, widgets::chart::Chart};\n\nfn f() {\n    crate::ui::tuner::TunerTab();\n}\n",
    );
    let offences = layer_offences(&tree.0, LAYERS);
    assert_eq!(offences.len(), 1, "{offences:?}");
    assert!(
        offences[0].starts_with("src/ui/chat/mod.rs:5 imports src/ui/tuner/mod.rs"),
        "{offences:?}"
    );
    tree.write("src/ui/chat/mod.rs", "//! The Chat tab.\n");

    // A widget or a runner importing a tab, and a runner importing a widget.
    tree.write(
        "src/ui/widgets/chart.rs",
        "use crate::ui::run::clock::now_ms;\nuse crate::ui::chat::ChatTab;\n",
    );
    tree.write(
        "src/ui/run/clock.rs",
        "use super::super::tuner::TunerTab;\nuse crate::ui::widgets::chart::Chart;\n",
    );
    let offences = layer_offences(&tree.0, LAYERS);
    assert_eq!(offences.len(), 3, "{offences:?}");
    assert!(offences[0].starts_with("src/ui/run/clock.rs:1 imports src/ui/tuner/mod.rs"));
    assert!(offences[1].starts_with("src/ui/run/clock.rs:2 imports src/ui/widgets/chart.rs"));
    assert!(offences[2].starts_with("src/ui/widgets/chart.rs:2 imports src/ui/chat/mod.rs"));

    // A file in a folder the table does not name is reported, not let through.
    tree.write("src/ui/run/clock.rs", "pub fn now_ms() -> f64 { 0.0 }\n");
    tree.write("src/ui/widgets/chart.rs", "pub struct Chart;\n");
    tree.write("src/ui/notes/mod.rs", "use crate::ui::chat::ChatTab;\n");
    let offences = layer_offences(&tree.0, LAYERS);
    assert_eq!(
        offences,
        vec!["src/ui/notes/mod.rs belongs to no room of LAYERS: give its folder a row".to_owned()]
    );
}

#[test]
fn the_layer_check_fails_when_the_command_line_is_imported_or_reaches_above_the_core() {
    let tree = TempTree::new("cli-room");
    tree.write("src/lib.rs", "pub mod engine;\npub mod ui;\n");
    tree.write("src/engine/mod.rs", "pub fn measure() {}\n");
    tree.write("src/ui/mod.rs", "pub fn start() {}\n");
    tree.write("src/tokens/mod.rs", "use sm_bpe::Ranks;\n");
    tree.write("crates/bpe/src/lib.rs", "pub struct Ranks;\n");
    tree.write("cli/src/lib.rs", "pub mod run;\n");
    tree.write(
        "cli/src/run.rs",
        "use summary_memory::engine::measure;\nuse sm_bpe::Ranks;\n",
    );
    tree.write(
        "cli/src/main.rs",
        "fn main() {\n    summary_memory_cli::run::go();\n}\n",
    );
    // As planted, the command line imports the core and the counter, and the core the counter.
    assert_eq!(layer_offences(&tree.0, LAYERS), Vec::<String>::new());

    // The command line reaching for the shell, in a `use` and in a path in code.
    tree.write(
        "cli/src/run.rs",
        "use summary_memory::engine::measure;\nfn f() {\n    summary_memory::ui::start();\n}\n",
    );
    let offences = layer_offences(&tree.0, LAYERS);
    assert_eq!(offences.len(), 1, "{offences:?}");
    assert!(
        offences[0].starts_with("cli/src/run.rs:3 imports src/ui/mod.rs: `cli/`"),
        "{offences:?}"
    );
    tree.write("cli/src/run.rs", "use summary_memory::engine::measure;\n");

    // Anything importing the command line: it is on top, like `main.rs`.
    tree.write(
        "src/engine/mod.rs",
        "use summary_memory_cli::run;\npub fn measure() {}\n",
    );
    let offences = layer_offences(&tree.0, LAYERS);
    assert_eq!(offences.len(), 1, "{offences:?}");
    assert!(
        offences[0].starts_with("src/engine/mod.rs:1 imports cli/src/run.rs"),
        "{offences:?}"
    );
    tree.write("src/engine/mod.rs", "pub fn measure() {}\n");

    // The counting code, at the bottom, importing the core.
    tree.write(
        "crates/bpe/src/lib.rs",
        "use summary_memory::engine::measure;\npub struct Ranks;\n",
    );
    let offences = layer_offences(&tree.0, LAYERS);
    assert_eq!(offences.len(), 1, "{offences:?}");
    assert!(
        offences[0].starts_with("crates/bpe/src/lib.rs:1 imports src/engine/mod.rs"),
        "{offences:?}"
    );
}

/// Every import of the workspace's crates ([`CRATES`], those present under `root`) that the
/// `layers` table does not allow, as "file:line imports target (…)", and every file that belongs
/// to no room of the table.
fn layer_offences(root: &Path, layers: &[(&str, &[&str])]) -> Vec<String> {
    let relative = |path: &Path| {
        path.strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let mut offences = Vec::new();
    let mut files = Vec::new();
    for (_, dir) in CRATES {
        let src = root.join(dir);
        if src.is_dir() {
            collect_rust_files(&src, &mut files);
        }
    }
    for file in &files {
        let name = relative(file);
        if name != "src/main.rs" && room_of(&name, layers).is_none() {
            offences.push(format!(
                "{name} belongs to no room of LAYERS: give its folder a row"
            ));
        }
    }
    for (from, line, to) in crate_imports(root) {
        let (from, to) = (relative(&from), relative(&to));
        let Some((room, allowed)) = room_of(&from, layers) else {
            continue;
        };
        if in_room(&to, room) || allowed.iter().any(|a| in_room(&to, a)) {
            continue;
        }
        offences.push(format!(
            "{from}:{line} imports {to}: `{room}` may import only {}",
            allowed.join(", ")
        ));
    }
    // Files in path order, then imports in file and line order (as `crate_imports` returns
    // them).
    offences
}

/// The imports of every crate of [`CRATES`] present under `root`: those inside a crate
/// ([`imports`]), and those of another crate's items, each resolved to the file of that crate
/// that holds it (a binary naming its own package's library, as `src/bin/` and the command
/// line's `main.rs` do, included). In file and line order.
fn crate_imports(root: &Path) -> Vec<(PathBuf, usize, PathBuf)> {
    let mut found = BTreeSet::new();
    for (_, dir) in CRATES {
        let src = root.join(dir);
        if !src.is_dir() {
            continue;
        }
        found.extend(imports(&src));
        let tests = test_files(&src);
        let mut files = Vec::new();
        collect_rust_files(&src, &mut files);
        for file in files.iter().filter(|f| !tests.contains(*f)) {
            let text = strip_comments(&fs::read_to_string(file).unwrap());
            let (code, _) = without_test_items(&text);
            for (at, path) in referenced_paths_at(&code) {
                let Some((_, other)) = CRATES
                    .iter()
                    .find(|(name, _)| path.first().is_some_and(|head| head == name))
                else {
                    continue;
                };
                if let Some(target) = resolve(&root.join(other), &path[1..])
                    && &target != file
                {
                    let line = code[..at].matches('\n').count() + 1;
                    found.insert((file.clone(), line, target));
                }
            }
        }
    }
    found.into_iter().collect()
}

/// The most specific room of `layers` that holds `file`, with the rooms it may import.
fn room_of<'a>(
    file: &str,
    layers: &[(&'a str, &'a [&'a str])],
) -> Option<(&'a str, &'a [&'a str])> {
    layers
        .iter()
        .filter(|(room, _)| in_room(file, room))
        .max_by_key(|(room, _)| room.len())
        .copied()
}

/// Whether `file` is in `room`: under a folder (`dir/`), directly in one (`dir/*.rs`), or the
/// file itself.
fn in_room(file: &str, room: &str) -> bool {
    if let Some(dir) = room.strip_suffix("*.rs") {
        file.strip_prefix(dir)
            .is_some_and(|rest| !rest.contains('/') && rest.ends_with(".rs"))
    } else if room.ends_with('/') {
        file.starts_with(room)
    } else {
        file == room
    }
}

/// Import edges the cycle check ignores, each with the reason and the issue that removes it.
/// None today: every file under `src/` must form no cycle.
const KNOWN_CYCLE_EDGES: &[(&str, &str)] = &[];

#[test]
fn no_two_files_import_each_other_in_a_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph = import_graph(&root.join("src"));
    assert!(
        graph.len() > 40,
        "found only {} files under src/: the graph builder is broken",
        graph.len()
    );
    // The ignored edges must be real, or the list hides nothing and should shrink.
    let allowed: BTreeSet<(PathBuf, PathBuf)> = KNOWN_CYCLE_EDGES
        .iter()
        .map(|(from, to)| (root.join(from), root.join(to)))
        .collect();
    let graph: BTreeMap<PathBuf, BTreeSet<PathBuf>> = graph
        .into_iter()
        .map(|(from, tos)| {
            let kept = tos
                .into_iter()
                .filter(|to| !allowed.contains(&(from.clone(), to.clone())))
                .collect();
            (from, kept)
        })
        .collect();
    let cycles = cycles(&graph);
    let report: Vec<String> = cycles
        .iter()
        .map(|files| {
            let names: Vec<String> = files
                .iter()
                .map(|f| f.strip_prefix(root).unwrap_or(f).display().to_string())
                .collect();
            names.join(" ↔ ")
        })
        .collect();
    assert!(
        cycles.is_empty(),
        "these files import each other in a cycle; move what both need into a file of its own:\n{}",
        report.join("\n")
    );
}

#[test]
fn the_cycle_check_finds_a_planted_cycle() {
    let tree = TempTree::new("cycle");
    tree.write(
        "src/lib.rs",
        "pub mod a;\npub mod b;\npub mod c;\npub mod d;\n",
    );
    tree.write("src/a.rs", "use crate::b::Thing;\n");
    tree.write("src/b.rs", "pub fn f() { super::c::g() }\n");
    tree.write(
        "src/c.rs",
        "use crate::{\n    a::Other,\n    d::Fine,\n};\n// use crate::d::x is a comment\n",
    );
    // `d` imports only within tests, which are not part of the graph.
    tree.write(
        "src/d.rs",
        "pub struct Fine;\n#[cfg(test)]\nmod tests {\n    use crate::a::Other;\n}\n",
    );
    let graph = import_graph(&tree.0.join("src"));
    let file = |name: &str| tree.0.join("src").join(name);
    assert_eq!(graph[&file("a.rs")], BTreeSet::from([file("b.rs")]));
    assert_eq!(graph[&file("b.rs")], BTreeSet::from([file("c.rs")]));
    assert_eq!(
        graph[&file("c.rs")],
        BTreeSet::from([file("a.rs"), file("d.rs")])
    );
    assert!(graph[&file("d.rs")].is_empty());
    assert_eq!(
        cycles(&graph),
        vec![vec![file("a.rs"), file("b.rs"), file("c.rs")]]
    );

    // Module directories: `mod.rs` is the module, `super` from a child is the parent, and a
    // `use` may start at a child module by name.
    let tree = TempTree::new("dirs");
    tree.write("src/lib.rs", "pub mod m;\n");
    tree.write("src/m/mod.rs", "mod x;\nmod y;\npub use x::X;\n");
    tree.write("src/m/x.rs", "use super::y::Y;\n");
    tree.write("src/m/y.rs", "pub struct Y;\n");
    let graph = import_graph(&tree.0.join("src"));
    let file = |name: &str| tree.0.join("src").join(name);
    // `mod.rs` re-exporting its child is the module's face, not an import.
    assert!(graph[&file("m/mod.rs")].is_empty());
    assert_eq!(graph[&file("m/x.rs")], BTreeSet::from([file("m/y.rs")]));
    assert!(cycles(&graph).is_empty());
    // A child may use what its parent defines...
    tree.write("src/m/y.rs", "pub struct Y(crate::m::X);\n");
    let graph = import_graph(&tree.0.join("src"));
    assert!(cycles(&graph).is_empty());
    // ...but two siblings that import each other close a cycle, through the parent's
    // re-export or directly.
    tree.write("src/m/y.rs", "pub struct Y(super::x::X);\n");
    let graph = import_graph(&tree.0.join("src"));
    assert_eq!(cycles(&graph), vec![vec![file("m/x.rs"), file("m/y.rs")]]);
}

#[test]
fn no_two_folders_import_each_other_in_a_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let cycles = folder_cycles(&src, &import_graph(&src));
    let report: Vec<String> = cycles
        .iter()
        .map(|modules| {
            let names: Vec<String> = modules.iter().map(|m| shown(root, m)).collect();
            names.join(" ↔ ")
        })
        .collect();
    assert!(
        cycles.is_empty(),
        "these modules import each other in a cycle through files that do not (a folder's \
         files import a sibling's, whose files import the first folder's); move what both need \
         into a module below both:\n{}",
        report.join("\n")
    );
}

#[test]
fn the_folder_cycle_check_finds_a_planted_folder_cycle() {
    // No two files import each other, but the folders do: `probes/context.rs` names the
    // session, and the session's wire code names a probe.
    let tree = TempTree::new("folders");
    tree.write("src/lib.rs", "pub mod engine;\n");
    tree.write(
        "src/engine/mod.rs",
        "pub mod edition;\npub mod probes;\npub mod session;\n",
    );
    tree.write("src/engine/edition.rs", "pub struct Edition;\n");
    tree.write(
        "src/engine/probes/mod.rs",
        "mod context;\npub struct Probe(crate::engine::edition::Edition);\n",
    );
    tree.write(
        "src/engine/probes/context.rs",
        "use crate::engine::session::domain::Session;\n",
    );
    tree.write("src/engine/session/mod.rs", "pub mod domain;\nmod wire;\n");
    tree.write("src/engine/session/domain.rs", "pub struct Session;\n");
    tree.write(
        "src/engine/session/wire.rs",
        "use crate::engine::probes::Probe;\n",
    );
    let src = tree.0.join("src");
    let graph = import_graph(&src);
    assert!(cycles(&graph).is_empty(), "no file cycle is planted");
    assert_eq!(
        folder_cycles(&src, &graph),
        vec![vec![src.join("engine/probes"), src.join("engine/session")]]
    );
    // With the domain type in a module of its own, both folders import it and not each other.
    tree.write(
        "src/engine/mod.rs",
        "pub mod edition;\npub mod probes;\npub mod saved;\npub mod session;\n",
    );
    tree.write("src/engine/saved.rs", "pub struct Session;\n");
    tree.write(
        "src/engine/probes/context.rs",
        "use crate::engine::saved::Session;\n",
    );
    fs::remove_file(src.join("engine/session/domain.rs")).unwrap();
    tree.write("src/engine/session/mod.rs", "mod wire;\n");
    let graph = import_graph(&src);
    assert_eq!(folder_cycles(&src, &graph), Vec::<Vec<PathBuf>>::new());
    // A folder and a file beside it close a cycle too.
    tree.write(
        "src/engine/saved.rs",
        "pub struct Session(crate::engine::probes::Probe);\n",
    );
    let graph = import_graph(&src);
    assert_eq!(
        folder_cycles(&src, &graph),
        vec![vec![src.join("engine/probes"), src.join("engine/saved.rs")]]
    );
}

/// The cycles among sibling modules that hold a folder: each import between two files is an
/// arrow between the two children of their nearest common folder that hold them (a folder, or a
/// file directly in it), and a cycle of such arrows is reported when one of its modules is a
/// folder. (Cycles of files alone are [`cycles`]'.) So `engine/probes/context.rs` importing
/// `engine/session/domain.rs` while `engine/session/wire.rs` imports `engine/probes/mod.rs` is a
/// cycle `engine/probes` ↔ `engine/session`, though no two files import each other.
fn folder_cycles(src: &Path, graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    let mut modules: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (from, tos) in graph {
        for to in tos {
            let (Ok(a), Ok(b)) = (from.strip_prefix(src), to.strip_prefix(src)) else {
                continue;
            };
            let (a, b): (Vec<_>, Vec<_>) = (a.iter().collect(), b.iter().collect());
            let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            // The two children of the common folder (neither is the folder's last part, since a
            // file is never a folder).
            let child = |parts: &[&std::ffi::OsStr]| {
                let mut path = src.to_path_buf();
                path.extend(&parts[..=common]);
                path
            };
            let (a, b) = (child(&a), child(&b));
            // Into the folder's own `mod.rs` (or the crate root) is an import of the folder itself.
            if b.file_name()
                .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
                || a == b
            {
                continue;
            }
            modules.entry(a).or_default().insert(b.clone());
            modules.entry(b).or_default();
        }
    }
    cycles(&modules)
        .into_iter()
        .filter(|modules| modules.iter().any(|m| m.is_dir()))
        .collect()
}

/// `path` relative to `root`, with `/` after a folder.
fn shown(root: &Path, path: &Path) -> String {
    let name = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    if path.is_dir() { name + "/" } else { name }
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

/// The Rust files of `required` (which must exist) and of `once_present` (those that exist).
fn pure_files(root: &Path, required: &[&str], once_present: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in required {
        collect_rust_files(&root.join(entry), &mut files);
    }
    for entry in once_present {
        let path = root.join(entry);
        if path.exists() {
            collect_rust_files(&path, &mut files);
        }
    }
    files
}

/// `path:line names `crate`` for every web import in `files`.
fn web_offences(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .flat_map(|path| {
            let text = fs::read_to_string(path).unwrap();
            web_imports(&text)
                .into_iter()
                .map(move |(line, krate)| format!("{}:{line} names `{krate}`", path.display()))
        })
        .collect()
}

/// Which files each file under `src` imports from, by `use` paths (`crate::`, `super::`,
/// `self::` and a child module's name) and by `crate::…`/`super::…` paths in code. A path
/// resolves to the file of its longest module prefix; an item of the crate root resolves to
/// `lib.rs`. Test code (an item under `#[cfg(test)]`, and a `tests.rs` module declared so) is
/// left out: tests may reach across the layers they test. `main.rs` is its own crate.
fn import_graph(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut files = Vec::new();
    collect_rust_files(src, &mut files);
    let mut graph: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for file in files {
        if file != src.join("main.rs") {
            graph.entry(file).or_default();
        }
    }
    for (from, _, to) in imports(src) {
        graph.entry(from).or_default().insert(to);
    }
    // Test files are no part of the graph: `imports` leaves them out as importers and targets.
    let tests = test_files(src);
    graph.retain(|file, _| !tests.contains(file));
    graph
}

/// The imports behind [`import_graph`], each with the line it is on: (file, line, target), in
/// file and line order, one per line and target.
fn imports(src: &Path) -> Vec<(PathBuf, usize, PathBuf)> {
    let mut files = Vec::new();
    collect_rust_files(src, &mut files);
    let tests = test_files(src);
    let mut found = BTreeSet::new();
    for file in &files {
        if file == &src.join("main.rs") || tests.contains(file) {
            continue;
        }
        let text = strip_comments(&fs::read_to_string(file).unwrap());
        let (code, _) = without_test_items(&text);
        let module = module_of(src, file);
        for (at, path) in referenced_paths_at(&code) {
            if let Some(absolute) = absolute_path(src, &module, &path)
                && let Some(target) = resolve(src, &absolute)
                && &target != file
                && !tests.contains(&target)
                && !is_facade_edge(file, &target)
            {
                let line = code[..at].matches('\n').count() + 1;
                found.insert((file.clone(), line, target));
            }
        }
    }
    found.into_iter().collect()
}

/// The files that are test modules: a `tests.rs` (or any child) declared under `#[cfg(test)]`.
fn test_files(src: &Path) -> BTreeSet<PathBuf> {
    let mut files = Vec::new();
    collect_rust_files(src, &mut files);
    let mut tests = BTreeSet::new();
    for file in &files {
        if file == &src.join("main.rs") {
            continue;
        }
        let text = strip_comments(&fs::read_to_string(file).unwrap());
        let (_, test_mods) = without_test_items(&text);
        let module = module_of(src, file);
        for name in test_mods {
            let mut child = module.clone();
            child.push(name);
            if let Some(path) = file_of(src, &child) {
                tests.insert(path);
            }
        }
    }
    tests
}

/// A directory module's `mod.rs` re-exporting (or declaring) its own children is the module's
/// face, not an import: its children may use what `mod.rs` defines without closing a cycle.
/// Siblings, and anything outside the directory, still may not import each other in a cycle.
fn is_facade_edge(from: &Path, to: &Path) -> bool {
    from.file_name().is_some_and(|name| name == "mod.rs")
        && from.parent().is_some_and(|dir| to.starts_with(dir))
}

/// The module path of a file: `lib.rs` is the root, `a/mod.rs` is `a`, `a/b.rs` is `a::b`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_owned());
    }
    parts
}

/// The file that holds module `module`, if any.
fn file_of(src: &Path, module: &[String]) -> Option<PathBuf> {
    if module.is_empty() {
        let lib = src.join("lib.rs");
        return lib.is_file().then_some(lib);
    }
    let mut dir = src.to_path_buf();
    for part in &module[..module.len() - 1] {
        dir.push(part);
    }
    let name = &module[module.len() - 1];
    let flat = dir.join(format!("{name}.rs"));
    let nested = dir.join(name).join("mod.rs");
    [flat, nested].into_iter().find(|p| p.is_file())
}

/// The file of the longest module prefix of an absolute path.
fn resolve(src: &Path, path: &[String]) -> Option<PathBuf> {
    (0..=path.len())
        .rev()
        .find_map(|len| file_of(src, &path[..len]))
}

/// Makes a path absolute (from the crate root), or `None` for another crate's path.
fn absolute_path(src: &Path, module: &[String], path: &[String]) -> Option<Vec<String>> {
    let first = path.first()?;
    match first.as_str() {
        "crate" => Some(path[1..].to_vec()),
        "self" => Some([module, &path[1..]].concat()),
        "super" => {
            let supers = path.iter().take_while(|p| *p == "super").count();
            let base = module.len().checked_sub(supers)?;
            Some([&module[..base], &path[supers..]].concat())
        }
        // A `use` may name a child module of the current one directly.
        name => {
            let child = [module, &[name.to_owned()]].concat();
            file_of(src, &child).map(|_| [module, path].concat())
        }
    }
}

/// Every path a file's code names, with the byte offset it starts at: each leaf of its `use`
/// trees (at the `use`), and each `crate::`, `super::` or `self::` path elsewhere.
fn referenced_paths_at(code: &str) -> Vec<(usize, Vec<String>)> {
    let mut paths = Vec::new();
    // Where the `use` statements are: their paths are the trees' leaves, read here, and not
    // again as paths in code (`use crate::ui::{a, b}` names `a` and `b`, not `crate::ui`).
    let mut uses = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while let Some(offset) = code[at..].find("use ") {
        let start = at + offset;
        at = start + 4;
        if start > 0 && is_ident(bytes[start - 1]) {
            continue;
        }
        let Some(end) = code[at..].find(';') else {
            break;
        };
        let mut leaves = Vec::new();
        use_tree(&code[at..at + end], &mut Vec::new(), &mut leaves);
        paths.extend(leaves.into_iter().map(|leaf| (start, leaf)));
        uses.push(start..at + end);
        at += end;
    }
    for (i, _) in code.match_indices("::") {
        if uses.iter().any(|range| range.contains(&i)) {
            continue;
        }
        // Walk back over the identifier before the first `::` of a path.
        let head_start = code[..i]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |p| p + 1);
        let head = &code[head_start..i];
        let preceded_by_path = code[..head_start].ends_with("::");
        let names_crate = CRATES.iter().any(|(name, _)| *name == head);
        if preceded_by_path || !(matches!(head, "crate" | "super" | "self") || names_crate) {
            continue;
        }
        let tail: String = code[head_start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let segments: Vec<String> = tail
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        if segments.len() > 1 {
            paths.push((head_start, segments));
        }
    }
    paths
}

/// Expands one `use` tree (`a::b::{c, d::e as f, *}`) into its leaf paths.
fn use_tree(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(inner) = tree.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        for part in split_top_level(inner) {
            use_tree(part, &mut prefix.clone(), out);
        }
        return;
    }
    let (head, rest) = match tree.find("::") {
        Some(i) => (&tree[..i], Some(&tree[i + 2..])),
        None => (tree, None),
    };
    let head = head.split_whitespace().next().unwrap_or("");
    if head.starts_with('{') {
        // `::{` opened a group right after the prefix.
        use_tree(tree, prefix, out);
        return;
    }
    if !head.is_empty() && head != "*" && head != "self" {
        prefix.push(head.trim_start_matches("::").to_owned());
    }
    match rest {
        Some(rest) => use_tree(rest, prefix, out),
        None => out.push(prefix.clone()),
    }
}

/// Splits at the commas that are not inside braces.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// Removes `//` and `/* */` comments and the contents of string and char literals, keeping the
/// line structure.
fn strip_comments(source: &str) -> String {
    source
        .lines()
        .map(strip_comment_and_strings)
        .collect::<Vec<_>>()
        .join("\n")
        .split("/*")
        .enumerate()
        .map(|(i, part)| {
            if i == 0 {
                part.to_owned()
            } else {
                // The comment's line breaks stay, so that line numbers still count.
                let (comment, after) = part.split_once("*/").unwrap_or((part, ""));
                "\n".repeat(comment.matches('\n').count()) + after
            }
        })
        .collect()
}

/// The code without the items under `#[cfg(test)]` (or `#[cfg(all(test, …))]`), each replaced by
/// its line breaks so that line numbers still count, and the names of the modules such an
/// attribute declares with `mod name;`.
fn without_test_items(code: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(code.len());
    let mut test_mods = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("#[cfg(") {
        let attr_end = rest[i..].find(']').map_or(rest.len(), |e| i + e + 1);
        let attr = &rest[i..attr_end];
        let is_test = attr
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|word| word == "test")
            && !attr.contains("not(test");
        out.push_str(&rest[..attr_end]);
        rest = &rest[attr_end..];
        if !is_test {
            continue;
        }
        // Skip the item: up to a `;` at depth 0, or to the brace closing its first block.
        let mut depth = 0;
        let mut end = rest.len();
        for (j, c) in rest.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = j + 1;
                    break;
                }
                _ => {}
            }
        }
        let item = &rest[..end];
        let words: Vec<&str> = item.split_whitespace().collect();
        if let Some(pos) = words.iter().position(|w| *w == "mod")
            && let Some(name) = words.get(pos + 1)
            && name.ends_with(';')
        {
            test_mods.push(name.trim_end_matches(';').to_owned());
        }
        out.push_str(&"\n".repeat(item.matches('\n').count()));
        rest = &rest[end..];
    }
    out.push_str(rest);
    (out, test_mods)
}

/// The strongly connected components of more than one file, each sorted, in order.
fn cycles(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    // Kosaraju: order by finish time, then collect components on the reversed graph.
    fn visit<'a>(
        node: &'a PathBuf,
        graph: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        seen: &mut BTreeSet<&'a PathBuf>,
        order: &mut Vec<&'a PathBuf>,
    ) {
        if !seen.insert(node) {
            return;
        }
        for next in graph.get(node).into_iter().flatten() {
            visit(next, graph, seen, order);
        }
        order.push(node);
    }
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    for node in graph.keys() {
        visit(node, graph, &mut seen, &mut order);
    }
    let mut reversed: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (from, tos) in graph {
        for to in tos {
            reversed.entry(to.clone()).or_default().insert(from.clone());
        }
    }
    let mut assigned = BTreeSet::new();
    let mut found = Vec::new();
    for node in order.into_iter().rev() {
        let mut component = Vec::new();
        visit(node, &reversed, &mut assigned, &mut component);
        if component.len() > 1 {
            component.sort();
            found.push(component.into_iter().cloned().collect());
        }
    }
    found.sort();
    found
}

/// The most lines a source file may have before its tests: past it, a file holds more than one
/// concept, and is split along a seam into submodules.
const MAX_LINES_BEFORE_TESTS: usize = 900;

#[test]
fn no_source_file_is_over_900_lines_before_its_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let offences = long_files(root);
    assert!(
        offences.is_empty(),
        "split these files along a seam into submodules (at most {MAX_LINES_BEFORE_TESTS} lines \
         before a file's tests):\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_length_check_fails_on_a_planted_long_file() {
    let tree = TempTree::new("long");
    let lines = |n: usize| "fn f() {}\n".repeat(n);
    tree.write("src/lib.rs", "pub mod short;\n");
    tree.write("src/short.rs", &lines(MAX_LINES_BEFORE_TESTS));
    // Long tests after a short file, and test files of any length, are fine.
    tree.write(
        "src/engine/tested.rs",
        &format!(
            "{}#[cfg(test)]\nmod tests {{\n{}}}\n",
            lines(800),
            lines(500)
        ),
    );
    tree.write("src/engine/tests.rs", &lines(2000));
    tree.write("src/engine/sync_tests.rs", &lines(2000));
    tree.write("crates/bpe/src/lib.rs", &lines(10));
    assert_eq!(long_files(&tree.0), Vec::<String>::new());

    // One line too many, in the app or in a path crate.
    tree.write("src/short.rs", &lines(MAX_LINES_BEFORE_TESTS + 1));
    tree.write("crates/bpe/src/ranks.rs", &lines(1000));
    // A `#[cfg(test)] mod tests;` declaration at the top is not where the tests start.
    tree.write(
        "src/engine/memory.rs",
        &format!("#[cfg(test)]\nmod tests;\n\n{}", lines(950)),
    );
    assert_eq!(
        long_files(&tree.0),
        vec![
            "crates/bpe/src/ranks.rs: 1000 lines before its tests".to_owned(),
            "src/engine/memory.rs: 953 lines before its tests".to_owned(),
            "src/short.rs: 901 lines before its tests".to_owned(),
        ]
    );
}

/// Every source file under `root/src` and `root/crates/*/src` (test files aside: `tests.rs`,
/// `*_tests.rs`, `tests_*.rs`) with more than [`MAX_LINES_BEFORE_TESTS`] lines before its
/// tests, as "path: N lines before its tests", in path order.
fn long_files(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    // Every crate of the workspace: the app's own `src/` and each path crate's ([`CRATES`]).
    for (_, dir) in CRATES {
        let src = root.join(dir);
        if src.is_dir() {
            collect_rust_files(&src, &mut files);
        }
    }
    let mut offences: Vec<String> = files
        .iter()
        .filter(|file| {
            let stem = file.file_stem().unwrap_or_default().to_string_lossy();
            !(stem == "tests" || stem.ends_with("_tests") || stem.starts_with("tests_"))
        })
        .filter_map(|file| {
            let lines = lines_before_tests(&fs::read_to_string(file).unwrap());
            let name = file
                .strip_prefix(root)
                .unwrap_or(file)
                .display()
                .to_string();
            (lines > MAX_LINES_BEFORE_TESTS)
                .then(|| format!("{name}: {lines} lines before its tests"))
        })
        .collect();
    offences.sort();
    offences
}

/// The lines of `source` before its first `#[cfg(test)]` item, or all of them when it has
/// none. A `#[cfg(test)] mod tests;` declaration is not where the tests start: they are in
/// their own file, and everything in this one counts.
fn lines_before_tests(source: &str) -> usize {
    let lines: Vec<&str> = source.lines().collect();
    for (index, line) in lines.iter().enumerate() {
        let line = line.trim_start();
        if !(line.starts_with("#[cfg(test)]") || line.starts_with("#[cfg(all(test")) {
            continue;
        }
        let item = lines[index + 1..]
            .iter()
            .map(|l| l.trim())
            .find(|l| !l.is_empty() && !l.starts_with("#["))
            .unwrap_or("");
        let declaration = item.split_whitespace().any(|w| w == "mod") && item.ends_with(';');
        if !declaration {
            return index;
        }
    }
    lines.len()
}

/// The folders of the shell that only draw: the tabs and the widgets. Their files render values
/// and write user input back; parsing, wording, the clock, storage, HTTP and spawned tasks
/// belong to the app layer, the views and the runners (ARCHITECTURE.md, invariant 10).
const DRAWING_ROOMS: &[&str] = &[
    "src/ui/chat/",
    "src/ui/editions/",
    "src/ui/tuner/",
    "src/ui/tokens/",
    "src/ui/inspect/",
    "src/ui/settings/",
    "src/ui/widgets/",
];

/// What a file of [`DRAWING_ROOMS`] does not write: sentences (`format!`), parsing (`.parse`),
/// spawned tasks, HTTP, storage and the clock.
const DRAWING_TOKENS: &[&str] = &[
    "format!",
    ".parse",
    "spawn_local",
    "crate::api",
    "crate::store",
    "js_sys::Date",
];

/// The ratchet, in the manner of rust-analyzer's `xtask/src/tidy.rs`: how many of each of
/// [`DRAWING_TOKENS`] each file may still hold. A file may hold no more than its entry (none
/// without one), and no fewer: once a file is cleaned, its entry is lowered (or removed at
/// zero), so the count only goes down. Every tab and widget file is now at zero (issue #35), so
/// the table is empty and every token is forbidden in all of them; it stays as the one place a
/// file's exception would have to be written, in sight of review. Sorted by file.
const DRAWING_ALLOWANCES: &[(&str, &str, usize)] = &[];

#[test]
fn drawing_files_hold_no_more_sentences_parsing_or_effects_than_the_ratchet_allows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let offences = token_offences(root, DRAWING_ALLOWANCES);
    assert!(
        offences.is_empty(),
        "the tabs and widgets only draw (ARCHITECTURE.md, invariant 10; tests/purity.rs, \
         DRAWING_ALLOWANCES):\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_token_ratchet_fails_on_a_planted_token_and_on_a_stale_entry() {
    let tree = TempTree::new("tokens");
    tree.write(
        "src/ui/chat/mod.rs",
        "// format!(\"a comment\") is prose\nfn f() -> String {\n    format!(\"{}\", 1)\n}\n",
    );
    tree.write(
        "src/ui/run/clock.rs",
        "pub fn now_ms() -> u64 { js_sys::Date::now() as u64 }\n",
    );
    tree.write(
        "src/view/chat.rs",
        "pub fn n(s: &str) -> u32 { s.parse().unwrap() }\n",
    );
    tree.write(
        "src/ui/widgets/chart.rs",
        "/// Never `.parse` here.\nfn g(x: &str) -> &str { let s = \"spawn_local\"; x }\n",
    );
    let allowed: &[(&str, &str, usize)] = &[("src/ui/chat/mod.rs", "format!", 1)];
    // As planted, the one `format!` is allowed; comments, strings, runners and views are not
    // scanned.
    assert_eq!(token_offences(&tree.0, allowed), Vec::<String>::new());

    // One more than the entry, and one where a file has none.
    tree.write(
        "src/ui/chat/mod.rs",
        "fn f() -> String {\n    format!(\"{}\", 1) + &format!(\"{}\", 2)\n}\n",
    );
    tree.write(
        "src/ui/widgets/chart.rs",
        "fn g(x: &str) -> u32 { leptos::task::spawn_local(async {}); x.trim().parse::<u32>().unwrap() }\n",
    );
    assert_eq!(
        token_offences(&tree.0, allowed),
        vec![
            "src/ui/chat/mod.rs: 2 `format!` where the ratchet allows 1: move the work to the app \
             layer, a view or a runner"
                .to_owned(),
            "src/ui/widgets/chart.rs: 1 `.parse` where the ratchet allows 0: move the work to the \
             app layer, a view or a runner"
                .to_owned(),
            "src/ui/widgets/chart.rs: 1 `spawn_local` where the ratchet allows 0: move the work to \
             the app layer, a view or a runner"
                .to_owned(),
        ]
    );

    // A stale entry: the file holds fewer than it is allowed (or is gone), so the entry must come
    // down.
    tree.write(
        "src/ui/chat/mod.rs",
        "fn f() -> &'static str {\n    \"1\"\n}\n",
    );
    tree.write("src/ui/widgets/chart.rs", "fn g() {}\n");
    let stale: &[(&str, &str, usize)] = &[
        ("src/ui/chat/mod.rs", "format!", 1),
        ("src/ui/tuner/gone.rs", "crate::store", 2),
    ];
    assert_eq!(
        token_offences(&tree.0, stale),
        vec![
            "src/ui/chat/mod.rs: 0 `format!` where the ratchet allows 1: lower its entry in \
             DRAWING_ALLOWANCES to 0 (remove it at 0)"
                .to_owned(),
            "src/ui/tuner/gone.rs: 0 `crate::store` where the ratchet allows 2: lower its entry in \
             DRAWING_ALLOWANCES to 0 (remove it at 0)"
                .to_owned(),
        ]
    );

    // The real table is empty: a token that one of its old entries allowed, or any other, in a
    // tab or a widget, fails.
    tree.write(
        "src/ui/widgets/theme_toggle.rs",
        "use crate::store::theme::save_theme;\nfn t() -> String { format!(\"{}\", 1) }\n",
    );
    tree.write(
        "src/ui/settings/mod.rs",
        "fn s() -> f64 { crate::api::ping(); js_sys::Date::now() }\n",
    );
    let offence = |file: &str, token: &str| {
        format!(
            "{file}: 1 `{token}` where the ratchet allows 0: move the work to the app layer, a \
             view or a runner"
        )
    };
    assert_eq!(
        token_offences(&tree.0, DRAWING_ALLOWANCES),
        vec![
            offence("src/ui/settings/mod.rs", "crate::api"),
            offence("src/ui/settings/mod.rs", "js_sys::Date"),
            offence("src/ui/widgets/theme_toggle.rs", "crate::store"),
            offence("src/ui/widgets/theme_toggle.rs", "format!"),
        ]
    );
}

/// Every (file, token) of [`DRAWING_ROOMS`] under `root` whose count of a token of
/// [`DRAWING_TOKENS`] is not its entry in `allowed` (0 without one): over it, the file did work
/// that belongs below; under it, the entry is stale and must be lowered. In file and token order.
fn token_offences(root: &Path, allowed: &[(&str, &str, usize)]) -> Vec<String> {
    let mut counts: BTreeMap<(String, &str), usize> = BTreeMap::new();
    for room in DRAWING_ROOMS {
        let dir = root.join(room);
        if !dir.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        collect_rust_files(&dir, &mut files);
        for file in files {
            let source = fs::read_to_string(&file).unwrap();
            for token in DRAWING_TOKENS {
                let n = token_count(&source, token);
                if n > 0 {
                    counts.insert((shown(root, &file), token), n);
                }
            }
        }
    }
    for (file, token, _) in allowed {
        counts.entry(((*file).to_owned(), token)).or_insert(0);
    }
    counts
        .into_iter()
        .filter_map(|((file, token), n)| {
            let entry = allowed
                .iter()
                .find(|(f, t, _)| *f == file && t == &token)
                .map_or(0, |(_, _, n)| *n);
            match n.cmp(&entry) {
                std::cmp::Ordering::Equal => None,
                std::cmp::Ordering::Greater => Some(format!(
                    "{file}: {n} `{token}` where the ratchet allows {entry}: move the work to the \
                     app layer, a view or a runner"
                )),
                std::cmp::Ordering::Less => Some(format!(
                    "{file}: {n} `{token}` where the ratchet allows {entry}: lower its entry in \
                     DRAWING_ALLOWANCES to {n} (remove it at 0)"
                )),
            }
        })
        .collect()
}

/// How many times `source` holds `token` in code (comments and string literals aside), as a
/// whole name: no identifier character before a token that starts with one, none after a token
/// that ends with one.
fn token_count(source: &str, token: &str) -> usize {
    let starts_ident = token.bytes().next().is_some_and(is_ident);
    let ends_ident = token.bytes().last().is_some_and(is_ident);
    source
        .lines()
        .map(|line| {
            let code = strip_comment_and_strings(line);
            let bytes = code.as_bytes();
            code.match_indices(token)
                .filter(|(at, _)| {
                    let end = at + token.len();
                    let joined_before = starts_ident && *at > 0 && is_ident(bytes[at - 1]);
                    let joined_after = ends_ident && end < bytes.len() && is_ident(bytes[end]);
                    !joined_before && !joined_after
                })
                .count()
        })
        .sum()
}

/// A directory under the system's temp dir, removed when dropped.
struct TempTree(PathBuf);

impl TempTree {
    fn new(tag: &str) -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir =
            std::env::temp_dir().join(format!("sm-purity-{tag}-{}-{nanos}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        TempTree(dir)
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.0.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
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
