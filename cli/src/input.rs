//! The command line's inputs: the files named, and every JSON or JSON Lines file under a
//! directory named. How each is read is `run.rs`'s (through the core's streaming reader).

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

/// One input file, and the name its rows carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The row's `source`: a named file's own name, or a file's path below the directory named
    /// (with `/`), or the path as given when two inputs would share a name.
    pub name: String,
    pub path: PathBuf,
    pub bytes: u64,
}

/// Something that could not be read: where (a file, or a file and line) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub place: String,
    pub reason: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.place, self.reason)
    }
}

/// The extensions read under a directory; a file named on the command line is read whatever
/// its name.
const EXTENSIONS: [&str; 3] = ["json", "jsonl", "ndjson"];

/// Every input file of `paths`, in order (a directory's files sorted by path), and the paths
/// that could not be listed.
pub fn sources(paths: &[PathBuf]) -> (Vec<Source>, Vec<Problem>) {
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    let mut problems = Vec::new();
    for path in paths {
        if path.is_dir() {
            for entry in WalkDir::new(path).sort_by_file_name() {
                match entry {
                    Ok(e) if e.file_type().is_file() && wanted(e.path()) => {
                        let below = e.path().strip_prefix(path).unwrap_or(e.path());
                        let name = below
                            .components()
                            .map(|c| c.as_os_str().to_string_lossy())
                            .collect::<Vec<_>>()
                            .join("/");
                        found.push((name, e.path().to_owned()));
                    }
                    Ok(_) => {}
                    Err(e) => problems.push(Problem {
                        place: e.path().unwrap_or(path).display().to_string(),
                        reason: format!("cannot be listed: {e}"),
                    }),
                }
            }
        } else {
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into(),
            );
            found.push((name, path.clone()));
        }
    }
    let mut sources = Vec::with_capacity(found.len());
    for (i, (name, path)) in found.iter().enumerate() {
        let shared = found
            .iter()
            .enumerate()
            .any(|(j, (other, _))| j != i && other == name);
        let name = if shared {
            path.display().to_string()
        } else {
            name.clone()
        };
        match std::fs::metadata(path) {
            Ok(meta) => sources.push(Source {
                name,
                path: path.clone(),
                bytes: meta.len(),
            }),
            Err(e) => problems.push(Problem {
                place: path.display().to_string(),
                reason: format!("cannot be read: {e}"),
            }),
        }
    }
    (sources, problems)
}

fn wanted(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|w| e.eq_ignore_ascii_case(w)))
}
