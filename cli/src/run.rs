//! The run over every conversation: a reader thread reads the files one conversation at a time
//! (`transcript::stream`: an export that is an array of conversations, or JSON Lines of them,
//! entry by entry; any other file whole) and feeds them over a bounded channel to the pool,
//! which works on a chunk of them in parallel while the reader reads on; the results are handed
//! out in input order, each conversation with its index in its source and the name the page
//! gives it. Memory holds a chunk and the channel's conversations, never a whole export.

use std::cell::OnceCell;
use std::fs::File;
use std::io::{BufRead, BufReader, IsTerminal};
use std::sync::Arc;
use std::sync::mpsc::SyncSender;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use summary_memory::engine::library_session::Session;
use summary_memory::engine::message::{CountTokens, WordCounter};
use summary_memory::engine::session;
use summary_memory::engine::transcript::stream::{Place, Streamed};
use summary_memory::engine::transcript::{self, Conversation, Skipped};
use summary_memory::tokens::{Encoding, TokenCounter};

use crate::input::{Problem, Source};

/// How texts are counted: by a vocabulary (as the page counts once its vocabulary is loaded),
/// or a token a word (fast, for a rough look).
#[derive(Clone)]
pub enum Counting {
    Words,
    Vocabulary {
        encoding: Encoding,
        /// Both compact vocabularies (in `Encoding::ALL`'s order), built once and parsed by
        /// each thread's own counter: `encoding` counts the texts, and a policy whose counter
        /// names the other vocabulary (LlamaIndex's cl100k_base) counts with that one.
        data: Arc<[Vec<u8>; 2]>,
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
            data: Arc::new(Encoding::ALL.map(summary_memory::tokens::compact::from_tiktoken)),
        })
    }

    /// The name [`Counting::named`] takes.
    pub fn name(&self) -> &'static str {
        match self {
            Counting::Words => "words",
            Counting::Vocabulary { encoding, .. } => encoding.name(),
        }
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
                        for (e, data) in Encoding::ALL.into_iter().zip(data.iter()) {
                            counter
                                .load_from(e, data)
                                .expect("the vocabulary built from tiktoken-rs's data parses");
                        }
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

/// How many conversations the pool works on at a time, and how many the reader thread may read
/// ahead of it: memory holds these, never a whole file of conversations.
const CHUNK: usize = 512;
const AHEAD: usize = 256;

/// What the reader thread hands the measuring, in input order.
pub(crate) enum Fed {
    /// A conversation of a source read entry by entry, named once the measuring knows whether
    /// it is its source's only one.
    Conversation {
        source: usize,
        conversation: Conversation,
    },
    /// The sessions of a source read whole, named already.
    Sessions {
        source: usize,
        sessions: Vec<Session>,
    },
    Problem(Problem),
    /// A source read to its end.
    Ended {
        source: usize,
    },
}

/// One conversation to work on.
pub(crate) enum Job {
    Conversation {
        source: usize,
        conversation: Conversation,
        /// Its number in its name when untitled, `None` when its source holds it alone.
        number: Option<usize>,
    },
    Session {
        source: usize,
        session: Box<Session>,
    },
}

/// Turns what the reader hands on into jobs, in input order: a source's first conversation
/// waits for a second, or for its source's end, to know whether it is numbered (the page
/// numbers an untitled one only among others).
pub(crate) struct Numbering {
    held: Option<(usize, Conversation)>,
    seen: Vec<usize>,
}

impl Numbering {
    pub(crate) fn new(sources: usize) -> Numbering {
        Numbering {
            held: None,
            seen: vec![0; sources],
        }
    }

    /// Pushes the jobs `fed` makes ready onto `jobs` (none for a problem: the caller's).
    pub(crate) fn fed(&mut self, fed: Fed, jobs: &mut Vec<Job>) {
        match fed {
            Fed::Conversation {
                source,
                conversation,
            } => {
                self.seen[source] += 1;
                match self.seen[source] {
                    1 => self.held = Some((source, conversation)),
                    n => {
                        if let Some((source, conversation)) = self.held.take() {
                            jobs.push(Job::Conversation {
                                source,
                                conversation,
                                number: Some(1),
                            });
                        }
                        jobs.push(Job::Conversation {
                            source,
                            conversation,
                            number: Some(n),
                        });
                    }
                }
            }
            Fed::Sessions { source, sessions } => {
                jobs.extend(sessions.into_iter().map(|session| Job::Session {
                    source,
                    session: Box::new(session),
                }))
            }
            Fed::Problem(_) => {}
            Fed::Ended { .. } => {
                if let Some((source, conversation)) = self.held.take() {
                    jobs.push(Job::Conversation {
                        source,
                        conversation,
                        number: None,
                    });
                }
            }
        }
    }
}

/// Reads every conversation of `sources` on a reader thread (each file streamed entry by entry
/// where it is an array or JSON Lines of conversations, [`transcript::stream`]) and works on
/// each with `work` in `pool`, a chunk at a time while the reader reads on; `sink` receives
/// each result in input order, and each problem as it is found. Returns how many
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
    let (tx, rx) = std::sync::mpsc::sync_channel(AHEAD);
    std::thread::scope(|scope| {
        scope.spawn(move || read_sources(sources, counting, &tx));
        let mut next_index = vec![0u32; sources.len()];
        let mut read = 0u64;
        let mut chunk = Vec::new();
        let mut numbering = Numbering::new(sources.len());
        let mut flush = |chunk: &mut Vec<Job>| {
            let results: Vec<(usize, String, T)> = pool.install(|| {
                chunk
                    .par_drain(..)
                    .map(|job| counting.with(|counter| worked(job, counter, &work)))
                    .collect()
            });
            for (source, name, value) in results {
                let index = next_index[source];
                next_index[source] += 1;
                read += 1;
                sink(Done {
                    source,
                    index,
                    name,
                    value,
                });
            }
            progress.conversations(read);
        };
        for fed in rx {
            match fed {
                Fed::Problem(p) => problem(p),
                Fed::Ended { source } => {
                    numbering.fed(Fed::Ended { source }, &mut chunk);
                    progress.source(&sources[source]);
                }
                fed => numbering.fed(fed, &mut chunk),
            }
            if chunk.len() >= CHUNK {
                flush(&mut chunk);
            }
        }
        flush(&mut chunk);
        read
    })
}

/// A job worked on: its source, its name and the work's result.
fn worked<T>(
    job: Job,
    counter: &dyn CountTokens,
    work: &impl Fn(&Session, &dyn CountTokens) -> T,
) -> (usize, String, T) {
    let (source, session) = job.session(counter);
    let value = work(&session, counter);
    (source, session.name, value)
}

impl Job {
    /// The job's source and its conversation as the page reads it (named, counted).
    pub(crate) fn session(self, counter: &dyn CountTokens) -> (usize, Session) {
        match self {
            Job::Conversation {
                source,
                conversation,
                number,
            } => (
                source,
                session::from_conversation(conversation, number, counter),
            ),
            Job::Session { source, session } => (source, *session),
        }
    }
}

/// The reader thread: every source in order, each conversation handed on as it is read. It
/// stops when the measuring has gone.
pub(crate) fn read_sources(sources: &[Source], counting: &Counting, tx: &SyncSender<Fed>) {
    for (i, source) in sources.iter().enumerate() {
        read_source(i, source, counting, tx);
        if tx.send(Fed::Ended { source: i }).is_err() {
            return;
        }
    }
}

fn read_source(i: usize, source: &Source, counting: &Counting, tx: &SyncSender<Fed>) {
    let place = source.path.display().to_string();
    match File::open(&source.path) {
        Ok(file) => read_from(i, &place, BufReader::new(file), counting, tx),
        Err(e) => {
            let _ = tx.send(Fed::Problem(Problem {
                place,
                reason: format!("cannot be opened: {e}"),
            }));
        }
    }
}

/// Reads source `i`, named `place` in problems, from `reader` into `tx`.
pub(crate) fn read_from(
    i: usize,
    place: &str,
    reader: impl BufRead,
    counting: &Counting,
    tx: &SyncSender<Fed>,
) {
    let place = place.to_owned();
    let problem = |reason: String| {
        let _ = tx.send(Fed::Problem(Problem {
            place: place.clone(),
            reason,
        }));
    };
    let mut sink = |at: Place, read: Result<Conversation, Skipped>| {
        let fed = match read {
            Ok(conversation) => Fed::Conversation {
                source: i,
                conversation,
            },
            // A line is named as the place of the problem; an entry of an export, as the page
            // names it, in the reason.
            Err(s) => Fed::Problem(match at {
                Place::Line(_) => Problem {
                    place: format!("{place} {}", s.place),
                    reason: match &s.title {
                        Some(title) => format!("\"{title}\": {}", s.reason),
                        None => s.reason,
                    },
                },
                Place::Entry(_) => Problem {
                    place: place.clone(),
                    reason: format!("skipped {}", s.describe()),
                },
            }),
        };
        let _ = tx.send(fed);
    };
    let read = match transcript::stream::stream(reader, &mut sink) {
        // Its sink never pauses.
        Ok(Streamed::Read { .. } | Streamed::Paused { .. }) => return,
        Ok(Streamed::Value(value)) => counting.with(|counter| session::read_json(value, counter)),
        Ok(Streamed::Text(bytes)) => {
            counting.with(|counter| session::read_unbounded(&bytes, counter))
        }
        Err(e) if e.place.is_empty() => return problem(e.reason),
        Err(e) => {
            let _ = tx.send(Fed::Problem(Problem {
                place: format!("{place} {}", e.place),
                reason: e.reason,
            }));
            return;
        }
    };
    match read {
        Ok(read) => {
            for s in &read.skipped {
                problem(format!("skipped {}", s.describe()));
            }
            let _ = tx.send(Fed::Sessions {
                source: i,
                sessions: read.sessions,
            });
        }
        Err(e) => problem(e.to_string()),
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

    fn source(&self, source: &Source) {
        self.bar.inc(source.bytes);
    }

    fn conversations(&self, read: u64) {
        self.bar.set_message(format!("{read} conversations"));
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
