//! The command line's inputs: the files named, every JSON or JSON Lines file under a directory
//! named, and each file cut into units of work. A JSON Lines file whose lines are whole
//! conversations ([`transcript::lines_stream`]) is read one line at a time, so a file of any
//! size never sits in memory; every other file (a JSON export, a coding agent's log, a
//! SillyTavern chat) is one unit, read whole by the worker that takes it.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde_json::Value;
use summary_memory::engine::transcript;
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

/// One piece of work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Line `line` (from 1) of a streamed source: one conversation.
    Line {
        source: usize,
        line: usize,
        text: String,
    },
    /// A whole source, read by the worker.
    Whole { source: usize },
    /// What of a source could not be read (the file, or one line of it); the units before it
    /// stand, and a stream goes on after a bad line.
    Failed { source: usize, problem: Problem },
}

impl Unit {
    pub fn source(&self) -> usize {
        match self {
            Unit::Line { source, .. } | Unit::Whole { source } | Unit::Failed { source, .. } => {
                *source
            }
        }
    }
}

/// The units of every source, in order, read lazily.
pub struct Units<'a> {
    sources: &'a [Source],
    next: usize,
    stream: Option<Stream>,
}

struct Stream {
    source: usize,
    reader: BufReader<File>,
    line: usize,
    /// The first two lines, read to decide how the file is read, not handed out yet.
    pending: std::collections::VecDeque<(usize, String)>,
}

impl<'a> Units<'a> {
    pub fn new(sources: &'a [Source]) -> Units<'a> {
        Units {
            sources,
            next: 0,
            stream: None,
        }
    }

    /// Opens source `i`: a stream of its lines when they are whole conversations, else one
    /// unit for the whole file.
    fn open(&mut self, i: usize) -> Unit {
        let path = &self.sources[i].path;
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) => {
                return Unit::Failed {
                    source: i,
                    problem: Problem {
                        place: path.display().to_string(),
                        reason: format!("cannot be opened: {e}"),
                    },
                };
            }
        };
        let mut reader = BufReader::new(file);
        let mut line = 0;
        let Some(first) = next_text(&mut reader, &mut line) else {
            return Unit::Whole { source: i };
        };
        let streams = serde_json::from_str::<Value>(&first.1)
            .ok()
            .filter(Value::is_object)
            .is_some_and(|v| transcript::lines_stream(&v));
        // A file of one line is one JSON value: read whole, as the page reads it (and names its
        // conversation without a number).
        let second = if streams {
            next_text(&mut reader, &mut line)
        } else {
            None
        };
        let Some(second) = second else {
            return Unit::Whole { source: i };
        };
        self.stream = Some(Stream {
            source: i,
            reader,
            line,
            pending: [first, second].into(),
        });
        self.next_line().unwrap_or(Unit::Whole { source: i })
    }

    /// The next line of the open stream, or `None` (and the stream closed) at its end.
    fn next_line(&mut self) -> Option<Unit> {
        let stream = self.stream.as_mut()?;
        if let Some((line, text)) = stream.pending.pop_front() {
            return Some(Unit::Line {
                source: stream.source,
                line,
                text,
            });
        }
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match stream.reader.read_until(b'\n', &mut buf) {
                Ok(0) => {
                    self.stream = None;
                    return None;
                }
                Ok(_) => stream.line += 1,
                Err(e) => {
                    let failed = Unit::Failed {
                        source: stream.source,
                        problem: Problem {
                            place: format!(
                                "{} line {}",
                                self.sources[stream.source].path.display(),
                                stream.line + 1
                            ),
                            reason: format!("cannot be read: {e}"),
                        },
                    };
                    self.stream = None;
                    return Some(failed);
                }
            }
            if buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return Some(match String::from_utf8(std::mem::take(&mut buf)) {
                Ok(text) => Unit::Line {
                    source: stream.source,
                    line: stream.line,
                    text,
                },
                // One bad line is named, and the lines after it are still read.
                Err(_) => Unit::Failed {
                    source: stream.source,
                    problem: Problem {
                        place: format!(
                            "{} line {}",
                            self.sources[stream.source].path.display(),
                            stream.line
                        ),
                        reason: "not UTF-8 text".into(),
                    },
                },
            });
        }
    }
}

impl Iterator for Units<'_> {
    type Item = Unit;

    fn next(&mut self) -> Option<Unit> {
        if let Some(unit) = self.next_line() {
            return Some(unit);
        }
        let i = self.next;
        if i >= self.sources.len() {
            return None;
        }
        self.next += 1;
        Some(self.open(i))
    }
}

/// The next line that holds anything, trimmed, with its number (lines counted in `line`);
/// `None` at the end or on a read error (the worker that reads the file whole then names it).
fn next_text(reader: &mut impl BufRead, line: &mut usize) -> Option<(usize, String)> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return None,
            Ok(_) => *line += 1,
        }
        if !buf.iter().all(u8::is_ascii_whitespace) {
            return Some((*line, String::from_utf8_lossy(&buf).trim().to_owned()));
        }
    }
}
