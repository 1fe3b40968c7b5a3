//! The corpus worker: a Web Worker's wasm holding the engine and the counter and nothing of the
//! page (no Leptos: Trunk builds it with the `corpus-worker` feature, which leaves the shell out
//! of the library). The page's pool (`ui::run::corpus_pool`) starts one per core.
//!
//! Once its handler is set it says `started` (what the page posted before would be lost).
//! It only moves bytes; what it does with them is `app::corpus::work`, tested natively:
//! - a string is the [`WorkerInit`]: the worker fetches the vocabulary by the URL the page's
//!   build named (the browser's cache or the service worker serves it), loads it, reads the
//!   columns and answers `ready`, or `failed` with the reason;
//! - an `ArrayBuffer` is a batch (`app::corpus::wire`), transferred by the page: the worker
//!   measures it and answers with one result per conversation, as JSON text;
//! - a `File` is a large import (`ui::run::importer` starts a worker of its own for it): the
//!   worker reads it a slice at a time (`FileReaderSync`, synchronous, which only a worker may
//!   use) through `app::import::Importing` and posts its batches of sessions as they come,
//!   pausing while the page has not written them; the page's `written` (a string) after each
//!   batch makes it read on. The page ends the worker to stop it.

#[cfg(target_arch = "wasm32")]
fn main() {
    worker::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("The corpus worker runs in a browser's Web Worker; Trunk builds it with the page.");
}

#[cfg(target_arch = "wasm32")]
mod worker {
    use std::cell::RefCell;

    use js_sys::{ArrayBuffer, Uint8Array};
    use summary_memory::app::corpus::wire::{FromWorker, WorkerInit};
    use summary_memory::app::corpus::work::Prepared;
    use summary_memory::app::import::{Importing, SLICE_BYTES, Then, WRITTEN};
    use summary_memory::engine::corpus::Row;
    use summary_memory::tokens::{Encoding, TokenCounter};
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    /// The app version written into every imported session.
    const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

    /// What the init set up: the counter with its vocabulary, the columns and settings.
    struct State {
        counter: TokenCounter,
        prepared: Prepared,
    }

    /// A large file's import, paused or reading.
    struct Import {
        file: web_sys::File,
        reader: web_sys::FileReaderSync,
        importing: Importing,
    }

    thread_local! {
        static STATE: RefCell<Option<State>> = const { RefCell::new(None) };
        static IMPORT: RefCell<Option<Import>> = const { RefCell::new(None) };
    }

    pub fn start() {
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let data = event.data();
            if let Some(file) = data.dyn_ref::<web_sys::File>() {
                import(file);
            } else if let Some(text) = data.as_string() {
                if text == WRITTEN {
                    written();
                } else {
                    wasm_bindgen_futures::spawn_local(init(text));
                }
            } else if let Some(buffer) = data.dyn_ref::<ArrayBuffer>() {
                let bytes = Uint8Array::new(buffer).to_vec();
                post(&batch(&bytes));
            } else {
                post(&failed(
                    "the page sent a message that is neither text nor bytes",
                ));
            }
        });
        scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // The handler lives as long as the worker.
        on_message.forget();
        post(&serde_json::to_string(&FromWorker::<Row>::Started).unwrap_or_default());
    }

    async fn init(text: String) {
        let answer = match load(&text).await {
            Ok(state) => {
                STATE.with(|s| *s.borrow_mut() = Some(state));
                FromWorker::<Row>::Ready
            }
            Err(reason) => FromWorker::Failed { reason },
        };
        post(&serde_json::to_string(&answer).unwrap_or_default());
    }

    async fn load(text: &str) -> Result<State, String> {
        let init: WorkerInit =
            serde_json::from_str(text).map_err(|e| format!("the init does not read: {e}"))?;
        let encoding: Encoding = init
            .encoding
            .parse()
            .map_err(|_| format!("no encoding is called {}", init.encoding))?;
        let bytes = fetch_bytes(&init.vocab_url).await?;
        let counter = TokenCounter::new(encoding);
        counter
            .load_from(encoding, &bytes)
            .map_err(|e| format!("the vocabulary {} does not load: {e}", init.vocab_url))?;
        // The vocabularies the columns' counters read beyond the run's own.
        for more in &init.more_vocabs {
            let other: Encoding = more
                .encoding
                .parse()
                .map_err(|_| format!("no encoding is called {}", more.encoding))?;
            let bytes = fetch_bytes(&more.url).await?;
            counter
                .load_from(other, &bytes)
                .map_err(|e| format!("the vocabulary {} does not load: {e}", more.url))?;
        }
        let prepared = Prepared::from_init(&init, &counter)?;
        Ok(State { counter, prepared })
    }

    async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let fetched = wasm_bindgen_futures::JsFuture::from(scope.fetch_with_str(url))
            .await
            .map_err(|_| format!("the vocabulary {url} could not be fetched"))?;
        let response: web_sys::Response = fetched.unchecked_into();
        if !response.ok() {
            return Err(format!(
                "the server answered {} for {url}",
                response.status()
            ));
        }
        let promise = response
            .array_buffer()
            .map_err(|_| format!("the vocabulary {url} could not be read"))?;
        let buffer = wasm_bindgen_futures::JsFuture::from(promise)
            .await
            .map_err(|_| format!("the download of {url} broke off"))?;
        Ok(Uint8Array::new(&buffer).to_vec())
    }

    fn batch(bytes: &[u8]) -> String {
        let answer = STATE.with(|s| match s.borrow().as_ref() {
            None => FromWorker::Failed {
                reason: "a batch came before the init".into(),
            },
            Some(state) => match state.prepared.measure_batch(bytes, &state.counter) {
                Ok(answers) => FromWorker::Answers { answers },
                Err(e) => FromWorker::Failed {
                    reason: e.to_string(),
                },
            },
        });
        serde_json::to_string(&answer).unwrap_or_default()
    }

    /// A file, a slice at a time: what `app::import::import_stream` reads.
    struct Slices {
        file: web_sys::File,
        reader: web_sys::FileReaderSync,
        size: f64,
        offset: f64,
        buf: Vec<u8>,
        pos: usize,
    }

    impl std::io::Read for Slices {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = {
                let buf = std::io::BufRead::fill_buf(self)?;
                let n = buf.len().min(out.len());
                out[..n].copy_from_slice(&buf[..n]);
                n
            };
            std::io::BufRead::consume(self, n);
            Ok(n)
        }
    }

    impl std::io::BufRead for Slices {
        fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
            if self.pos == self.buf.len() && self.offset < self.size {
                let end = (self.offset + SLICE_BYTES as f64).min(self.size);
                let unreadable = |_| std::io::Error::other("the browser could not read the file");
                let slice = self
                    .file
                    .slice_with_f64_and_f64(self.offset, end)
                    .map_err(unreadable)?;
                let bytes = self
                    .reader
                    .read_as_array_buffer(&slice)
                    .map_err(unreadable)?;
                self.buf = Uint8Array::new(&bytes).to_vec();
                self.pos = 0;
                self.offset = end;
            }
            Ok(&self.buf[self.pos..])
        }

        fn consume(&mut self, amt: usize) {
            self.pos = (self.pos + amt).min(self.buf.len());
        }
    }

    impl Slices {
        /// The file from byte `offset` on.
        fn from(file: &web_sys::File, reader: &web_sys::FileReaderSync, offset: u64) -> Slices {
            Slices {
                file: file.clone(),
                reader: reader.clone(),
                size: file.size(),
                offset: offset as f64,
                buf: Vec::new(),
                pos: 0,
            }
        }
    }

    fn import(file: &web_sys::File) {
        let reader = match web_sys::FileReaderSync::new() {
            Ok(reader) => reader,
            Err(_) => return post(&failed("this browser cannot read a file in a worker")),
        };
        let mut importing = Importing::new(js_sys::Date::now() as u64, APP_VERSION);
        importing.start(Slices::from(file, &reader, 0), |answer| {
            post(&answer.encode())
        });
        IMPORT.with(|i| {
            *i.borrow_mut() = Some(Import {
                file: file.clone(),
                reader,
                importing,
            })
        });
    }

    /// The page wrote a batch: read on when the import paused for it.
    fn written() {
        IMPORT.with(|i| {
            let mut i = i.borrow_mut();
            let Some(import) = i.as_mut() else {
                return;
            };
            if let Then::ReadOn { offset } = import.importing.written() {
                let slices = Slices::from(&import.file, &import.reader, offset);
                import
                    .importing
                    .resume(slices, |answer| post(&answer.encode()));
            }
        });
    }

    fn failed(reason: &str) -> String {
        serde_json::to_string(&FromWorker::<Row>::Failed {
            reason: reason.into(),
        })
        .unwrap_or_default()
    }

    fn post(text: &str) {
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let _ = scope.post_message(&JsValue::from_str(text));
    }
}
