//! A large file's import (`app::import`), performed: a Web Worker of its own, running the
//! corpus worker's wasm (`src/bin/corpus_worker.rs`, in its import mode), is handed the `File`
//! and reads it a slice at a time, never on the main thread; each batch it posts is added to
//! the library ([`Library::add_pieces`]), whose runner (`library_sync.rs`) writes its sessions
//! to IndexedDB, one record each, all in one transaction, and [`ImportRun`] follows it. Once
//! the library's round of writing that took a batch has ended, the worker is told so
//! ([`WRITTEN`], once per batch), and only then reads on past [`IN_FLIGHT`](crate::app::import::IN_FLIGHT) batches
//! unwritten. Stop ends the worker; what was
//! added stays. While it runs, its [`ImportMark`] is kept in storage (IndexedDB too), so the next visit
//! says how far an import cut off by a crash got. A small file is read at once, as before
//! (`library_sync::import_file_into`).
//!
//! The runner is one per page, made on first use and never dropped, so an import goes on while
//! another tab of the app is looked at.

use std::cell::OnceCell;
use std::collections::VecDeque;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker};

use crate::app::import::{FromImporter, ImportMark, ImportRun, STREAM_FROM_BYTES, WRITTEN};
use crate::app::library::{Imported, Library};
use crate::store;

use super::clock::now_ms;
use super::corpus_pool::{Span, worker_url};
use super::library_sync::{self as sync, Sessions};

/// The import's state as the Inspect tab draws it, and the worker behind it.
#[derive(Clone, Copy)]
pub struct Importer {
    sessions: Sessions,
    pub run: RwSignal<Option<ImportRun>>,
    /// The mark an import the last visit left running left behind: it was cut off. Kept (and
    /// said) until another import begins.
    pub cut_off: RwSignal<Option<ImportMark>>,
    worker: StoredValue<Option<Running>, LocalStorage>,
    /// For each batch the worker posted that it has not been told is written, in order, the
    /// library's round of writing that writes it ([`Sessions::written_after`]).
    unwritten: StoredValue<VecDeque<u64>, LocalStorage>,
}

/// The worker of the import in flight, with its message handler kept alive.
struct Running {
    worker: Worker,
    _handler: Closure<dyn FnMut(MessageEvent)>,
}

thread_local! {
    static IMPORTER: OnceCell<Importer> = const { OnceCell::new() };
}

impl Importer {
    /// The page's importer, made on first use under an owner of its own that lives as long as
    /// the page, with the mark of an import the last visit left cut off.
    pub fn get(sessions: Sessions) -> Importer {
        IMPORTER.with(|cell| {
            *cell.get_or_init(|| {
                // `new_root` makes itself the current owner: the caller's is put back after.
                let caller = Owner::current();
                let owner = Owner::new_root(None);
                let importer = owner.with(|| Importer {
                    sessions,
                    run: RwSignal::new(None),
                    cut_off: RwSignal::new(
                        store::import_mark().as_deref().and_then(ImportMark::decode),
                    ),
                    worker: StoredValue::new_local(None),
                    unwritten: StoredValue::new_local(VecDeque::new()),
                });
                // After each round of the library's writing, the batches it wrote are written.
                owner.with(|| {
                    Effect::new(move |_| {
                        importer.tell_written(sessions.rounds_done());
                    })
                });
                match caller {
                    Some(caller) => caller.set(),
                    None => owner.clone().unset(),
                }
                // The importer is the page's: its owner is never disposed.
                std::mem::forget(owner);
                importer
            })
        })
    }

    /// Imports `file`: a large one in the worker, a small one at once (its note in `note`).
    pub fn import(self, sessions: Sessions, file: web_sys::File, note: RwSignal<Option<Imported>>) {
        if (file.size() as u64) < STREAM_FROM_BYTES {
            sync::import_file_into(sessions, file, note);
            return;
        }
        note.set(None);
        self.start(sessions, file);
    }

    /// Stop: the worker ends at once; what was added stays, and is written.
    pub fn stop(self) {
        self.end_worker();
        self.run.update(|r| {
            if let Some(r) = r {
                r.stop(now_ms());
            }
        });
        self.forget_mark_once_written();
    }

    fn start(self, sessions: Sessions, file: web_sys::File) {
        self.end_worker();
        self.cut_off.set(None);
        let name = file.name();
        let run = ImportRun::start(&name, file.size() as u64, now_ms());
        store::set_import_mark(run.mark().map(|m| m.encode()).as_deref());
        self.run.set(Some(run));
        let worker = match worker_url().and_then(|url| {
            Worker::new(&url).map_err(|_| format!("the import worker {url} could not be started"))
        }) {
            Ok(worker) => worker,
            Err(reason) => return self.failed(reason),
        };
        let posted = worker.clone();
        let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let Some(text) = event.data().as_string() else {
                // A worker whose script or wasm fails to load fires `error`, with no text.
                return self.failed("the import worker did not start".into());
            };
            match FromImporter::decode(&text) {
                Ok(FromImporter::Started) => {
                    if posted.post_message(&file).is_err() {
                        self.failed("the file could not be handed to the import worker".into());
                    }
                }
                Ok(FromImporter::Batch {
                    bytes,
                    pieces,
                    skipped,
                }) => self.batch(sessions, bytes, pieces, skipped),
                Ok(end) => self.ended(&end),
                Err(reason) => self.failed(reason),
            }
        });
        worker.set_onmessage(Some(handler.as_ref().unchecked_ref()));
        worker.set_onerror(Some(handler.as_ref().unchecked_ref()));
        self.worker.set_value(Some(Running {
            worker,
            _handler: handler,
        }));
    }

    fn batch(
        self,
        sessions: Sessions,
        bytes: u64,
        pieces: Vec<crate::app::import::Piece>,
        skipped: Vec<String>,
    ) {
        let Some((file, imported_ms)) = self.run.with_untracked(|r| {
            r.as_ref()
                .filter(|r| r.status.is_running())
                .map(|r| (r.file.clone(), r.started_ms))
        }) else {
            return;
        };
        let _span = Span::new("sm-import-batch");
        let read = pieces.len();
        let counter = sessions.tokens.counter();
        let added = sessions
            .library
            .try_update(|l| l.add_pieces(pieces, &file, imported_ms, &counter))
            .unwrap_or_default();
        let now = now_ms();
        self.run.update(|r| {
            if let Some(r) = r {
                r.batch(bytes, read, &added, skipped, now);
                store::set_import_mark(r.mark().map(|m| m.encode()).as_deref());
            }
        });
        // A batch the library held already queues no write: it is written with what is queued.
        let round = self.sessions.written_after().unwrap_or(0);
        self.unwritten.update_value(|u| u.push_back(round));
        self.tell_written(self.sessions.rounds_done_untracked());
    }

    /// Tells the worker of each batch the library's rounds of writing, `done` of them, have
    /// written (then it reads on).
    fn tell_written(self, done: u64) {
        let mut n = 0;
        self.unwritten.update_value(|u| {
            while u.front().is_some_and(|round| *round <= done) {
                u.pop_front();
                n += 1;
            }
        });
        if n == 0 {
            return;
        }
        self.worker.with_value(|running| {
            if let Some(running) = running {
                for _ in 0..n {
                    let _ = running.worker.post_message(&JsValue::from_str(WRITTEN));
                }
            }
        });
    }

    fn ended(self, end: &FromImporter) {
        self.end_worker();
        let now = now_ms();
        self.run.update(|r| {
            if let Some(r) = r {
                r.ended(end, now);
                bench_line(r);
            }
        });
        // Done, a file of one session opens it, as a small file's import does; a file of many
        // leaves the library on screen (opening one is a long task after a long import).
        let first = self.run.with_untracked(|r| {
            r.as_ref()
                .filter(|r| r.status.is_done() && r.read == 1)
                .and_then(|r| r.first.clone())
        });
        if first.is_some() {
            self.sessions.tab.update(|t| t.imported(first));
        }
        self.forget_mark_once_written();
    }

    fn failed(self, reason: String) {
        self.end_worker();
        let now = now_ms();
        self.run.update(|r| {
            if let Some(r) = r {
                r.fail(reason, now);
            }
        });
        self.forget_mark_once_written();
    }

    /// The import has ended, but its sessions may still be on their way to IndexedDB (the
    /// reading outruns the writing): its mark is kept until they are all written, so a crash
    /// meanwhile still says how far it got; then it goes (unless another import began).
    fn forget_mark_once_written(self) {
        leptos::task::spawn_local(async move {
            while !self.sessions.settled() {
                gloo_timers::future::TimeoutFuture::new(200).await;
            }
            if !self
                .run
                .with_untracked(|r| r.as_ref().is_some_and(|r| r.status.is_running()))
            {
                store::set_import_mark(None);
            }
        });
    }

    fn end_worker(self) {
        self.unwritten.update_value(VecDeque::clear);
        if let Some(running) = self.worker.try_update_value(Option::take).flatten() {
            running.worker.set_onmessage(None);
            running.worker.set_onerror(None);
            running.worker.terminate();
        }
    }

    /// The import drawn: the one of this visit, or else the one the last visit left cut off,
    /// once the library has loaded (what of it landed is counted from the library).
    pub fn shown(self, sessions: Sessions) -> Option<ImportRun> {
        if let Some(run) = self.run.get() {
            return Some(run);
        }
        let mark = self.cut_off.get()?;
        if !sessions.loaded.get() {
            return None;
        }
        Some(
            sessions
                .library
                .with(|l: &Library| ImportRun::cut_off(mark, l)),
        )
    }
}

/// The benchmark's line, in the console: the page's import rate.
fn bench_line(run: &ImportRun) {
    web_sys::console::log_1(&JsValue::from_str(&format!(
        "sm-import-rate: {} conversations in {} ms, {:.1} conversations/s, {} bytes",
        run.read,
        run.last_ms.saturating_sub(run.started_ms),
        run.rate(),
        run.bytes
    )));
}
