//! The run over every conversation: units of input read in chunks, each chunk's units read and
//! worked on in parallel in the pool (a whole file's conversations in parallel too), then
//! handed out in input order, each conversation with its index in its source and the name the
//! page gives it. Memory holds one chunk of input at a time.

use std::cell::OnceCell;
use std::io::IsTerminal;
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use summary_memory::engine::library_session::Session;
use summary_memory::engine::message::{CountTokens, WordCounter};
use summary_memory::engine::session;
use summary_memory::engine::transcript;
use summary_memory::tokens::{Encoding, TokenCounter};

use crate::input::{Problem, Source, Unit, Units};

/// How texts are counted: by a vocabulary (as the page counts once its vocabulary is loaded),
/// or a token a word (fast, for a rough look).
#[derive(Clone)]
pub enum Counting {
    Words,
    Vocabulary {
        encoding: Encoding,
        /// The compact vocabulary, built once and parsed by each thread's own counter.
        data: Arc<Vec<u8>>,
    },
}

impl Counting {
    /// `o200k_base`, `cl100k_base` or `words`.
    pub fn named(name: &str) -> Result<Counting, String> {
        if name == "words" {
            return Ok(Counting::Words);
        }
        let encoding = Encoding::ALL
            .into_iter()
            .find(|e| e.name() == name)
            .ok_or_else(|| {
                format!("--encoding {name}: expected o200k_base, cl100k_base or words")
            })?;
        Ok(Counting::Vocabulary {
            encoding,
            data: Arc::new(summary_memory::tokens::compact::from_tiktoken(encoding)),
        })
    }

    /// Runs `f` with this thread's counter. Each thread has its own, so that no two threads
    /// wait on one cache; counts do not depend on the cache, so neither do the rows.
    pub fn with<R>(&self, f: impl FnOnce(&dyn CountTokens) -> R) -> R {
        thread_local! {
            static COUNTERS: [OnceCell<TokenCounter>; 2] = const { [OnceCell::new(), OnceCell::new()] };
        }
        match self {
            Counting::Words => f(&WordCounter),
            Counting::Vocabulary { encoding, data } => COUNTERS.with(|counters| {
                let counter =
                    counters[usize::from(*encoding == Encoding::Cl100kBase)].get_or_init(|| {
                        let counter = TokenCounter::new(*encoding);
                        counter
                            .load_from(*encoding, data)
                            .expect("the vocabulary built from tiktoken-rs's data parses");
                        counter
                    });
                f(counter)
            }),
        }
    }
}

/// One conversation worked on, in input order.
pub struct Done<T> {
    pub source: usize,
    /// Its place among the conversations read from its source, from 0.
    pub index: u32,
    /// The name the page gives it.
    pub name: String,
    pub value: T,
}

/// What the pool reads and works on at a time: this many units, or this many bytes of lines.
const CHUNK_UNITS: usize = 512;
const CHUNK_BYTES: usize = 32 << 20;

/// The name a conversation read without a title gets when it is read alone (a line of a
/// stream); the page, reading the file whole, numbers it.
const UNTITLED: &str = "Imported conversation";

/// Reads every conversation of `sources` and works on each with `work` in `pool`; `sink`
/// receives each result in input order, and each problem as it is found. Returns how many
/// conversations were read.
pub fn run<T: Send>(
    sources: &[Source],
    pool: &rayon::ThreadPool,
    counting: &Counting,
    progress: &Progress,
    work: impl Fn(&Session, &dyn CountTokens) -> T + Sync,
    mut sink: impl FnMut(Done<T>),
    mut problem: impl FnMut(Problem),
) -> u64 {
    let mut units = Units::new(sources);
    let mut next_index = vec![0u32; sources.len()];
    let mut read = 0u64;
    loop {
        let mut chunk = Vec::new();
        let mut bytes = 0;
        for unit in units.by_ref() {
            bytes += match &unit {
                Unit::Line { text, .. } => text.len(),
                _ => 0,
            };
            chunk.push(unit);
            if chunk.len() >= CHUNK_UNITS || bytes >= CHUNK_BYTES {
                break;
            }
        }
        if chunk.is_empty() {
            return read;
        }
        let results: Vec<Worked<T>> = pool.install(|| {
            chunk
                .par_iter()
                .map(|unit| worked(unit, sources, counting, &work))
                .collect()
        });
        for (unit, result) in chunk.iter().zip(results) {
            for p in result.problems {
                problem(p);
            }
            let source = unit.source();
            for (name, value) in result.conversations {
                let index = next_index[source];
                next_index[source] += 1;
                let name = if result.streamed && name == UNTITLED {
                    format!("{UNTITLED} {}", index + 1)
                } else {
                    name
                };
                read += 1;
                sink(Done {
                    source,
                    index,
                    name,
                    value,
                });
            }
            progress.advance(unit, sources, read);
        }
    }
}

struct Worked<T> {
    streamed: bool,
    conversations: Vec<(String, T)>,
    problems: Vec<Problem>,
}

fn worked<T: Send>(
    unit: &Unit,
    sources: &[Source],
    counting: &Counting,
    work: &(impl Fn(&Session, &dyn CountTokens) -> T + Sync),
) -> Worked<T> {
    let (streamed, sessions, problems) = counting.with(|counter| read_unit(unit, sources, counter));
    let conversations = sessions
        .par_iter()
        .map(|s| (s.name.clone(), counting.with(|counter| work(s, counter))))
        .collect();
    Worked {
        streamed,
        conversations,
        problems,
    }
}

/// The sessions of one unit, whether it was a streamed line, and what could not be read.
fn read_unit(
    unit: &Unit,
    sources: &[Source],
    counter: &dyn CountTokens,
) -> (bool, Vec<Session>, Vec<Problem>) {
    match unit {
        Unit::Failed { problem, .. } => (false, Vec::new(), vec![problem.clone()]),
        Unit::Line { source, line, text } => {
            let place = format!("{} line {line}", sources[*source].path.display());
            let problem = |reason: String| {
                vec![Problem {
                    place: place.clone(),
                    reason,
                }]
            };
            // Parsed once, and the reason worded as the page words a bad line.
            let value: serde_json::Value = match serde_json::from_str(text) {
                Ok(value) => value,
                Err(e) => {
                    let reason = format!("not valid JSON (column {}): {e}", e.column());
                    return (true, Vec::new(), problem(reason));
                }
            };
            // A proxy's record of a request without a body holds no conversation, and the
            // page passes over it too.
            if transcript::is_bodiless_line(&value) {
                return (true, Vec::new(), Vec::new());
            }
            match session::read_json(value, counter) {
                Ok(read) => {
                    let problems = read
                        .skipped
                        .iter()
                        .map(|s| Problem {
                            place: place.clone(),
                            reason: format!("skipped {}", s.describe()),
                        })
                        .collect();
                    (true, read.sessions, problems)
                }
                Err(e) => (true, Vec::new(), problem(e.to_string())),
            }
        }
        Unit::Whole { source } => {
            let path = &sources[*source].path;
            let place = path.display().to_string();
            let bytes = match std::fs::read(path) {
                Ok(bytes) => bytes,
                Err(e) => {
                    return (
                        false,
                        Vec::new(),
                        vec![Problem {
                            place,
                            reason: format!("cannot be read: {e}"),
                        }],
                    );
                }
            };
            match session::read_unbounded(&bytes, counter) {
                Ok(read) => {
                    let problems = read
                        .skipped
                        .iter()
                        .map(|s| Problem {
                            place: place.clone(),
                            reason: format!("skipped {}", s.describe()),
                        })
                        .collect();
                    (false, read.sessions, problems)
                }
                Err(e) => (
                    false,
                    Vec::new(),
                    vec![Problem {
                        place,
                        reason: e.to_string(),
                    }],
                ),
            }
        }
    }
}

/// The progress bar: bytes of input done of all, and conversations read. Drawn on a terminal
/// only; silent when stderr is a file or a pipe.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    pub fn new(sources: &[Source]) -> Progress {
        let total: u64 = sources.iter().map(|s| s.bytes).sum();
        let bar = ProgressBar::with_draw_target(
            Some(total),
            if std::io::stderr().is_terminal() {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::hidden()
            },
        );
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:30} {bytes}/{total_bytes} {msg}, {elapsed} gone, about {eta} left",
            )
            .expect("the template is valid"),
        );
        Progress { bar }
    }

    /// Prints `line` on stderr above the bar.
    pub fn println(&self, line: impl AsRef<str>) {
        self.bar.suspend(|| eprintln!("{}", line.as_ref()));
    }

    fn advance(&self, unit: &Unit, sources: &[Source], read: u64) {
        match unit {
            Unit::Line { text, .. } => self.bar.inc(text.len() as u64 + 1),
            Unit::Whole { source } => self.bar.inc(sources[*source].bytes),
            Unit::Failed { .. } => {}
        }
        self.bar.set_message(format!("{read} conversations"));
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
