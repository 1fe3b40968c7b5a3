//! The corpus comparison's pool of Web Workers: one per core (`navigator.hardwareConcurrency`),
//! each running the core-only wasm of `src/bin/corpus_worker.rs`. The pool performs what
//! [`CorpusRun`] decides: it posts each batch to its worker, feeds each answer back, and mirrors
//! the run into a signal the Inspect tab draws. It draws nothing and decides nothing.
//!
//! The main thread's share per batch is small (write a few dozen sessions' lean form, post
//! the bytes as a transfer, read the JSON answer), so no task of it comes near 50 ms; the
//! sessions are read from the library one batch at a time, never copied as a whole. When the
//! run ends, its rows are handed over once (shared, not copied per render) and summarised one
//! policy per task, so the end of a run of thousands of conversations holds the main thread
//! no longer than a batch does; the CSV is written only when its link is clicked.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use js_sys::{Array, Uint8Array};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{MessageEvent, Worker};

use crate::app::corpus::pick::Member;
use crate::app::corpus::wire::{
    ColumnWire, FromWorker, VocabWire, WorkerInit, vocabularies_needed,
};
use crate::app::corpus::work::batch_of;
use crate::app::corpus::{CorpusRun, Dispatch};
use crate::app::library::Library;
use crate::engine::corpus::{Column, CorpusSettings, Row, Summary, summarise};
use crate::engine::policy::Vocabulary;
use crate::engine::run::{Progress, RunStatus};
use crate::tokens::Encoding;

use super::token_service::vocabulary_url;

/// What the tab shows of a run: how far it is, where it stands, the time spent, the rows done
/// in conversation order (filled when the run ends), and their summary per policy (filled a
/// few tasks later, one policy per task).
#[derive(Clone, Debug, PartialEq)]
pub struct CorpusStatus {
    pub progress: Progress,
    pub status: RunStatus,
    pub workers: usize,
    pub elapsed_ms: f64,
    pub rows: Arc<Vec<Row>>,
    pub summaries: Option<Arc<Vec<Summary>>>,
    /// Conversations handed to a worker with the library's counts, which it keeps (counted
    /// exactly in the run's encoding, [`crate::app::library::Entry::counted_in`]); the rest it
    /// counts itself.
    pub kept: usize,
}

/// The corpus comparison's runner, held by the tab: the run's status as the tab draws it, and
/// the pool it runs on, which the tab never holds.
#[derive(Clone, Copy)]
pub struct CorpusRunner {
    pub status: RwSignal<Option<CorpusStatus>>,
    pool: StoredValue<Option<CorpusPool>, LocalStorage>,
}

impl CorpusRunner {
    pub fn owned() -> CorpusRunner {
        CorpusRunner {
            status: RwSignal::new(None),
            pool: StoredValue::new_local(None),
        }
    }

    /// Starts a run on a new pool (see [`CorpusPool::start`], with [`pool_size`] workers).
    pub fn start(
        self,
        corpus: Vec<Member>,
        summarised: Vec<Column>,
        columns: Vec<ColumnWire>,
        settings: CorpusSettings,
        encoding: Encoding,
        library: RwSignal<Library>,
    ) -> Result<(), String> {
        let pool = CorpusPool::start(
            corpus,
            summarised,
            columns,
            settings,
            encoding,
            None,
            library,
            self.status,
        )?;
        self.pool.set_value(Some(pool));
        Ok(())
    }

    /// Stop: see [`CorpusPool::stop`].
    pub fn stop(self) {
        self.pool.with_value(|p| {
            if let Some(p) = p {
                p.stop();
            }
        });
    }
}

/// One corpus run on the pool. Dropping it does not stop the workers: call [`CorpusPool::stop`].
#[derive(Clone)]
pub struct CorpusPool {
    inner: Rc<RefCell<Inner>>,
}

struct Inner {
    run: CorpusRun<Row>,
    workers: Vec<Worker>,
    /// The pool's size (the workers are dropped once the run ends).
    size: usize,
    ready: usize,
    /// The init, sent to each worker once it says it has started.
    init: String,
    /// The corpus's sessions, in corpus order, with the source and index each one's rows carry.
    corpus: Vec<Member>,
    library: RwSignal<Library>,
    /// The columns, to summarise the rows by once the run ends.
    columns: Vec<Column>,
    /// The run's encoding: a session whose counts the library made exactly in it is sent
    /// with them, and the worker keeps them.
    encoding: Encoding,
    /// Conversations sent so far with counts the worker keeps.
    kept: usize,
    status: RwSignal<Option<CorpusStatus>>,
    /// Whether the rows were handed over (the run's end is published once).
    ended: bool,
    started: f64,
    /// The workers' message handlers, kept alive as long as the run.
    handlers: Vec<Closure<dyn FnMut(MessageEvent)>>,
}

/// The workers the pool starts: one per logical core the browser reports, at least one, and
/// never more than there are batches to hand out.
pub fn pool_size(batches: usize) -> usize {
    let cores = web_sys::window()
        .map(|w| w.navigator().hardware_concurrency() as usize)
        .unwrap_or(1);
    cores.clamp(1, 64).min(batches.max(1))
}

impl CorpusPool {
    /// Starts a run over `corpus` (library ids with their source and index, in corpus order) under
    /// `columns` (`summarised`, as the workers get them: `columns`), on `workers` workers
    /// (`None`: [`pool_size`]). `status` follows the run.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        corpus: Vec<Member>,
        summarised: Vec<Column>,
        columns: Vec<ColumnWire>,
        settings: CorpusSettings,
        encoding: Encoding,
        workers: Option<usize>,
        library: RwSignal<Library>,
        status: RwSignal<Option<CorpusStatus>>,
    ) -> Result<CorpusPool, String> {
        let _span = Span::new("sm-corpus-start");
        let vocab_url = vocabulary_url(encoding)?;
        let loader = worker_url()?;
        let total = corpus.len();
        let cores = workers.unwrap_or_else(|| pool_size(total));
        let batch = CorpusRun::<Row>::batch_for(total, cores);
        let count = workers.unwrap_or_else(|| pool_size(total.div_ceil(batch)));
        // The vocabularies the columns' counters read beyond the run's own (a LlamaIndex
        // column counts in cl100k_base).
        let run_vocabulary = match encoding {
            Encoding::O200kBase => Vocabulary::O200k,
            Encoding::Cl100kBase => Vocabulary::Cl100k,
        };
        let more_vocabs = vocabularies_needed(summarised.iter().map(|c| &c.policy), run_vocabulary)
            .into_iter()
            .map(|v| {
                let encoding = Encoding::of(v);
                vocabulary_url(encoding).map(|url| VocabWire {
                    encoding: encoding.name().to_owned(),
                    url,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let init = WorkerInit {
            vocab_url,
            encoding: encoding.name().to_owned(),
            columns,
            settings: serde_json::to_value(settings).map_err(|e| e.to_string())?,
            more_vocabs,
        };
        let init = serde_json::to_string(&init).map_err(|e| e.to_string())?;
        let pool = CorpusPool {
            inner: Rc::new(RefCell::new(Inner {
                run: CorpusRun::new(total, count, batch),
                workers: Vec::new(),
                size: count,
                ready: 0,
                init,
                corpus,
                library,
                columns: summarised,
                encoding,
                kept: 0,
                status,
                ended: false,
                started: now(),
                handlers: Vec::new(),
            })),
        };
        for index in 0..count {
            let worker = Worker::new(&loader)
                .map_err(|_| format!("the corpus worker {loader} could not be started"))?;
            let weak = Rc::downgrade(&pool.inner);
            let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                if let Some(inner) = weak.upgrade() {
                    CorpusPool { inner }.answered(index, event);
                }
            });
            worker.set_onmessage(Some(handler.as_ref().unchecked_ref()));
            // A worker whose script or wasm fails to load fires `error` and never speaks.
            worker.set_onerror(Some(handler.as_ref().unchecked_ref()));
            let mut inner = pool.inner.borrow_mut();
            inner.workers.push(worker);
            inner.handlers.push(handler);
        }
        // A new run's status starts afresh (the last run's rows and table go).
        pool.inner.borrow().status.set(None);
        pool.publish();
        Ok(pool)
    }

    /// Stop: no batch goes out any more, the workers end at once (a batch half done is
    /// dropped), and the table shows the conversations done.
    pub fn stop(&self) {
        let mut inner = self.inner.borrow_mut();
        inner.run.stop();
        inner.end_workers();
        drop(inner);
        self.publish();
    }

    fn answered(&self, worker: usize, event: MessageEvent) {
        let _span = Span::new("sm-corpus-answer");
        let message = if event.type_() == "error" {
            Err("its script or wasm could not be loaded".to_owned())
        } else {
            let text = event.data().as_string().unwrap_or_default();
            serde_json::from_str::<FromWorker<Row>>(&text)
                .map_err(|e| format!("its answer does not read: {e}"))
        };
        let mut inner = self.inner.borrow_mut();
        let dispatches = match message {
            Ok(FromWorker::Started) => {
                // After Stop the workers are gone, and a late word from one is ignored.
                let init = JsValue::from_str(&inner.init);
                if let Some(w) = inner.workers.get(worker)
                    && w.post_message(&init).is_err()
                {
                    inner
                        .run
                        .failed(worker, "it could not be sent its settings");
                }
                Vec::new()
            }
            Ok(FromWorker::Ready) => {
                inner.ready += 1;
                if inner.ready == inner.size {
                    inner.run.start()
                } else {
                    Vec::new()
                }
            }
            Ok(FromWorker::Answers { answers }) => {
                match answers.into_iter().collect::<Result<Vec<_>, String>>() {
                    Ok(rows) => match inner.run.finished(worker, rows) {
                        Ok(next) => next.into_iter().collect(),
                        Err(e) => {
                            inner.run.failed(worker, &e.to_string());
                            Vec::new()
                        }
                    },
                    Err(reason) => {
                        inner.run.failed(worker, &reason);
                        Vec::new()
                    }
                }
            }
            Ok(FromWorker::Failed { reason }) | Err(reason) => {
                inner.run.failed(worker, &reason);
                Vec::new()
            }
        };
        for dispatch in dispatches {
            inner.post(&dispatch);
        }
        if !inner.run.status().is_running() {
            inner.end_workers();
        }
        drop(inner);
        self.publish();
    }

    /// Mirrors the run into the status signal: the progress always; once it ended, its rows
    /// (once), then their summaries one policy per task.
    fn publish(&self) {
        let mut inner = self.inner.borrow_mut();
        let run_status = inner.run.status().clone();
        let ending = !run_status.is_running() && !inner.ended;
        let elapsed_ms = now() - inner.started;
        let (progress, workers, kept) = (inner.run.progress(), inner.size, inner.kept);
        if ending {
            inner.ended = true;
        }
        let status = inner.status;
        let rows = ending.then(|| Arc::new(inner.run.rows()));
        let columns = ending.then(|| inner.columns.clone());
        drop(inner);
        status.update(|s| match s {
            Some(s) if !ending => {
                s.progress = progress;
                s.status = run_status;
                s.elapsed_ms = elapsed_ms;
                s.kept = kept;
            }
            _ => {
                *s = Some(CorpusStatus {
                    progress,
                    status: run_status.clone(),
                    workers,
                    elapsed_ms,
                    rows: rows.clone().unwrap_or_default(),
                    summaries: None,
                    kept,
                })
            }
        });
        if let (Some(rows), Some(columns)) = (rows, columns) {
            leptos::task::spawn_local(summarise_in_steps(rows, columns, status));
        }
    }
}

/// A User Timing measure from its creation to its drop, so the DevTools timeline (and the
/// e2e test of the 50 ms limit) can tell which of the pool's tasks takes the main thread.
pub(crate) struct Span(&'static str);

impl Span {
    pub(crate) fn new(name: &'static str) -> Span {
        if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
            let _ = p.mark(name);
        }
        Span(name)
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
            let _ = p.measure_with_start_mark(self.0, self.0);
            p.clear_marks_with_mark_name(self.0);
        }
    }
}

/// Summarises `rows` one policy per task, yielding to the page between them, and sets the
/// summaries on `status` when all are done (unless another run has replaced it meanwhile).
async fn summarise_in_steps(
    rows: Arc<Vec<Row>>,
    columns: Vec<Column>,
    status: RwSignal<Option<CorpusStatus>>,
) {
    let mut summaries = Vec::with_capacity(columns.len());
    for column in &columns {
        gloo_timers::future::TimeoutFuture::new(0).await;
        let _span = Span::new("sm-corpus-summarise");
        summaries.extend(summarise(&rows, std::slice::from_ref(column)));
    }
    gloo_timers::future::TimeoutFuture::new(0).await;
    let _span = Span::new("sm-corpus-table");
    status.update(|s| {
        if let Some(s) = s
            && Arc::ptr_eq(&s.rows, &rows)
        {
            s.summaries = Some(Arc::new(summaries));
        }
    });
}

impl Inner {
    /// Posts one batch to its worker, its bytes transferred rather than copied.
    fn post(&mut self, dispatch: &Dispatch) {
        let run = self.encoding.vocabulary();
        let mut kept = 0;
        let bytes = self.library.with_untracked(|library| {
            // Each session's counts go vouched for in the vocabulary the library counted them
            // in exactly, if any (an estimate made before the vocabulary arrived, or a count
            // handed in from the chat, is vouched for in none); the worker keeps them when that
            // is the run's encoding, and counts the messages itself otherwise.
            let sessions = self.corpus[dispatch.range.clone()].iter().filter_map(|m| {
                library.get(&m.id).map(|e| {
                    kept += usize::from(e.counted_in == Some(run));
                    let counted_in = e.counted_in.map(|v| Encoding::of(v).name());
                    (m.source.as_str(), m.index, &e.session, counted_in)
                })
            });
            batch_of(sessions)
        });
        self.kept += kept;
        let array = Uint8Array::from(bytes.as_slice());
        let buffer = array.buffer();
        let transfer = Array::of1(&buffer);
        let posted = self
            .workers
            .get(dispatch.worker)
            .map(|w| w.post_message_with_transfer(&buffer, &transfer).is_ok());
        if posted == Some(false) {
            self.run
                .failed(dispatch.worker, "the batch could not be posted to it");
        }
    }

    fn end_workers(&mut self) {
        for worker in self.workers.drain(..) {
            worker.terminate();
        }
    }
}

/// The corpus worker's loader, as the build named it in index.html (`scripts/worker.py`).
pub(crate) fn worker_url() -> Result<String, String> {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| {
            d.query_selector("meta[name='sm-corpus-worker']")
                .ok()
                .flatten()
        })
        .and_then(|meta| meta.get_attribute("content"))
        .ok_or_else(|| "the page names no corpus worker: a build without scripts/worker.py".into())
}

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or_default()
}
