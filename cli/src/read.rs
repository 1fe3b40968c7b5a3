//! The conversations of the inputs one at a time, for a caller that pulls them (the Python
//! package's iterator): the same reader thread as [`crate::run::run`] (each file streamed entry
//! by entry where it is an array or JSON Lines of conversations), the same naming and the same
//! index in its source, so that a conversation measured from here gives the CLI's row.

use std::collections::VecDeque;
use std::io::Cursor;
use std::sync::mpsc::{Receiver, sync_channel};

use summary_memory::engine::library_session::Session;

use crate::input::{Problem, Source};
use crate::run::{Counting, Fed, Job, Numbering, read_from, read_sources};

/// How many conversations the reader thread may read ahead of the caller.
const AHEAD: usize = 64;

/// One conversation read, named as the CLI names its row.
pub struct Named {
    /// The row's `source`: the file's name (see [`Source::name`]).
    pub source: String,
    /// Its place among the conversations read from its source, from 0.
    pub index: u32,
    pub session: Session,
}

/// The conversations of some sources, in input order, and the problems met, each when it is
/// met (a file that cannot be opened, an entry skipped, JSON that is not valid).
pub struct Conversations {
    names: Vec<String>,
    rx: Receiver<Fed>,
    counting: Counting,
    numbering: Numbering,
    ready: VecDeque<Job>,
    next_index: Vec<u32>,
}

impl Conversations {
    /// The conversations of `sources`, read on a thread of their own as the caller pulls.
    pub fn of_sources(sources: Vec<Source>, counting: Counting) -> Conversations {
        let names = sources.iter().map(|s| s.name.clone()).collect();
        let (tx, rx) = sync_channel(AHEAD);
        let reading = counting.clone();
        std::thread::spawn(move || read_sources(&sources, &reading, &tx));
        Conversations::new(names, rx, counting)
    }

    /// The conversations of one file's bytes, named `name` (as a row's source and in problems).
    pub fn of_bytes(name: String, bytes: Vec<u8>, counting: Counting) -> Conversations {
        let (tx, rx) = sync_channel(AHEAD);
        let reading = counting.clone();
        let place = name.clone();
        std::thread::spawn(move || {
            read_from(0, &place, Cursor::new(bytes), &reading, &tx);
            let _ = tx.send(Fed::Ended { source: 0 });
        });
        Conversations::new(vec![name], rx, counting)
    }

    fn new(names: Vec<String>, rx: Receiver<Fed>, counting: Counting) -> Conversations {
        Conversations {
            numbering: Numbering::new(names.len()),
            next_index: vec![0; names.len()],
            names,
            rx,
            counting,
            ready: VecDeque::new(),
        }
    }

    /// How texts are counted in the sessions read.
    pub fn counting(&self) -> &Counting {
        &self.counting
    }
}

impl Iterator for Conversations {
    type Item = Result<Named, Problem>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(job) = self.ready.pop_front() {
                let (source, session) = self.counting.with(|counter| job.session(counter));
                let index = self.next_index[source];
                self.next_index[source] += 1;
                return Some(Ok(Named {
                    source: self.names[source].clone(),
                    index,
                    session,
                }));
            }
            let mut jobs = Vec::new();
            match self.rx.recv().ok()? {
                Fed::Problem(p) => return Some(Err(p)),
                fed => self.numbering.fed(fed, &mut jobs),
            }
            self.ready.extend(jobs);
        }
    }
}
