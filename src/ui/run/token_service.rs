//! The app-wide token counter, its vocabulary loaded when first needed: the service every tab
//! counts with.
//!
//! The counter is created at the App root and shared through context as a [`TokenService`]. Its
//! vocabulary is a separate, content-hashed file (`<encoding>-<hash>.smv`, named in index.html by
//! the build), fetched only when first needed ([`TokenService::need`]: the user types in the
//! chat box, opens Tokens or Inspect, or a text is counted that the build-time table of the
//! lesson's and the demos' counts, `tokens::prebuilt_count`, does not hold), never on the
//! lesson's or the demos' path, and then only after the page has painted (an animation frame,
//! then a zero timeout) and only for the encoding in use, then built on the main thread in
//! slices of about 12 ms with a zero timeout between them, so no long task blocks input or
//! painting: the tabs are visible and clickable before any vocabulary exists, and counts the
//! table does not hold say "…" (pending) meanwhile, never 0. If the file cannot be had, the Tokens tab (`ui/tokens/`) says so and counts become
//! estimates marked "≈", with "Try again".
//!
//! Each load bumps a generation signal ([`TokenService::generation`]); a view that recounts
//! reads it itself. [`TokenService::counter`] hands the engine a [`SharedCounter`], which reads
//! the counter without subscribing anyone.
//!
//! Why slices on the main thread and not a Web Worker: counting is synchronous everywhere the
//! engine counts (a message's cached count, the token trigger), so the counter has to live in
//! the page's own wasm; a worker could only parse, and handing its result over would copy the
//! same megabytes the slices index. Counting itself stays on the main thread: a 40 KB text
//! counts in a few milliseconds warm (benches/browser/run.mjs), less than a worker round trip
//! would add to every keystroke.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos::wasm_split::SplitLoaderError;

use crate::engine::{CountTokens, GrowingCount};
pub use crate::tokens::LoadState;
use crate::tokens::{Encoding, StartLoading, TokenCounter, TokensError, rough_estimate};

/// The counter's module could not be fetched (offline before it was ever loaded, or the server
/// gone): the vocabulary's load fails as when its own file cannot be fetched, and Try again
/// fetches both again (the loader keeps no failure).
pub struct CounterUnavailable;

impl From<SplitLoaderError> for CounterUnavailable {
    fn from(_: SplitLoaderError) -> Self {
        CounterUnavailable
    }
}

/// Fetches the counter's module (once; a failure is not kept) and hands over what starts a
/// vocabulary: the vocabulary's parse, tiktoken's splitter (regex-automata's lazy DFA) and the
/// BPE merge are in that module, not in the page's first load, since the lesson and the demos
/// count from the build-time table (docs/size.md). The App root gives it to
/// [`TokenService::provide`] (`ui::on_demand::counter_module`), so that no split point is called
/// from the tabs that use the service.
pub type CounterLoader =
    fn() -> Pin<Box<dyn Future<Output = Result<StartLoading, CounterUnavailable>>>>;

thread_local! {
    /// The counter module's loader the App root provided, for the browser benchmark's exports.
    static PROVIDED_MODULE: std::cell::Cell<Option<CounterLoader>> = const { std::cell::Cell::new(None) };
}

/// The counter module's loader the App root gave [`TokenService::provide`], once it has: the
/// browser benchmark's exports (`ui/bench.rs`) fetch the module with it, and so reach no split
/// point themselves (a build that is not split, such as the browser tests', links them too).
pub(crate) fn provided_counter_module() -> Option<CounterLoader> {
    PROVIDED_MODULE.with(std::cell::Cell::get)
}

/// The shared counter, the encoding in use, and a generation number that changes whenever a
/// vocabulary finishes loading (or fails to), so every view that counts recounts.
#[derive(Clone, Copy)]
pub struct TokenService {
    counter: StoredValue<TokenCounter>,
    /// The encoding the app counts with; the Tokens tab's select changes it.
    pub encoding: RwSignal<Encoding>,
    generation: RwSignal<u32>,
    states: RwSignal<[LoadState; 2]>,
    /// Whether the engine was given an estimate: a text the build-time table does not hold,
    /// counted before the vocabulary loaded (set a frame later, see [`SharedCounter`]).
    estimated: RwSignal<bool>,
    /// Fetches the counter's module, with the vocabulary.
    module: CounterLoader,
}

impl TokenService {
    /// A service with nothing loaded, whose vocabularies are built by what `module` fetches.
    /// Call [`TokenService::load_after_paint`] for the encoding in use once the app is mounted.
    pub fn new(encoding: Encoding, module: CounterLoader) -> TokenService {
        TokenService {
            counter: StoredValue::new(TokenCounter::new(encoding)),
            encoding: RwSignal::new(encoding),
            generation: RwSignal::new(0),
            states: RwSignal::new([LoadState::Idle, LoadState::Idle]),
            estimated: RwSignal::new(false),
            module,
        }
    }

    /// Creates the app's service and shares it through context. Called once, at the App root.
    pub fn provide(encoding: Encoding, module: CounterLoader) -> TokenService {
        PROVIDED_MODULE.with(|m| m.set(Some(module)));
        let service = TokenService::new(encoding, module);
        provide_context(service);
        service
    }

    /// The service [`TokenService::provide`] shared at the root.
    pub fn from_context() -> TokenService {
        expect_context::<TokenService>()
    }

    /// The engine's counter over this service, with the encoding in use. Counting with it
    /// subscribes nobody: a memo or effect that must recount when a vocabulary arrives reads
    /// [`TokenService::generation`] itself.
    pub fn counter(&self) -> SharedCounter {
        SharedCounter { service: *self }
    }

    /// A number that changes whenever a vocabulary finishes loading (or fails to). Reading it
    /// subscribes the caller, which is how a view says it recounts.
    pub fn generation(&self) -> u32 {
        self.generation.get()
    }

    /// Whether the engine's counts in the encoding in use are exact (reactive): true once its
    /// vocabulary has loaded, and before that as long as every text counted was one of the
    /// lesson's or the demos' (whose counts the build-time table gives); false once a text
    /// was estimated while the vocabulary loads, or after it failed to.
    pub fn is_exact(&self) -> bool {
        match self.state(self.encoding.get()) {
            LoadState::Loaded { .. } => true,
            LoadState::Failed(_) => false,
            _ => !self.estimated.get(),
        }
    }

    /// Runs `f` with the counter and subscribes the caller to vocabulary loads, so a memo or
    /// view that counts is recomputed when a vocabulary arrives.
    pub fn with<R>(&self, f: impl FnOnce(&TokenCounter) -> R) -> R {
        self.generation.track();
        self.counter.with_value(f)
    }

    /// The loading state of `encoding` (reactive).
    pub fn state(&self, encoding: Encoding) -> LoadState {
        self.states.with(|s| s[slot(encoding)].clone())
    }

    /// Switches the encoding in use and loads its vocabulary if that has not happened yet.
    pub fn set_encoding(&self, encoding: Encoding) {
        self.encoding.set(encoding);
        self.load_after_paint(encoding);
    }

    /// Tries again after a failed load.
    pub fn retry(&self, encoding: Encoding) {
        let failed = self
            .states
            .with_untracked(|s| matches!(s[slot(encoding)], LoadState::Failed(_)));
        if failed {
            self.states.update(|s| s[slot(encoding)] = LoadState::Idle);
            self.load_after_paint(encoding);
        }
    }

    /// Fetches the vocabulary in use when it is first needed: the user types in the chat box,
    /// opens Tokens or Inspect, or something counts a text the table of the lesson's and the
    /// demos' counts does not hold. Never on the lesson's or the demos' path, whose counts that
    /// table answers. Does nothing once it is loaded or scheduled.
    pub fn need(&self) {
        self.load_after_paint(self.encoding.get_untracked());
    }

    /// Fetches and parses the vocabulary of `encoding` once the browser has painted the current
    /// frame: `requestAnimationFrame` runs just before the paint, and the zero timeout queued
    /// there runs after it. Does nothing when the vocabulary is loaded or already scheduled.
    pub fn load_after_paint(&self, encoding: Encoding) {
        let idle = self
            .states
            .with_untracked(|s| matches!(s[slot(encoding)], LoadState::Idle));
        if !idle {
            return;
        }
        self.states
            .update(|s| s[slot(encoding)] = LoadState::Scheduled);
        let service = *self;
        request_animation_frame(move || {
            set_timeout(
                move || spawn_local(service.fetch_and_load(encoding)),
                Duration::ZERO,
            );
        });
    }

    async fn fetch_and_load(self, encoding: Encoding) {
        mark(&format!("sm-vocab-start-{encoding}"));
        let start = now();
        // The counter's module and the vocabulary, fetched side by side.
        let (module, fetched) =
            futures::future::join((self.module)(), fetch_vocabulary(encoding)).await;
        let fetch_ms = now() - start;
        mark(&format!("sm-vocab-fetched-{encoding}"));
        let fetched = match module {
            Ok(start_loading) => fetched.map(|data| (start_loading, data)),
            Err(CounterUnavailable) => {
                Err("the token counter's module could not be fetched".into())
            }
        };
        let state = match fetched {
            Ok((start_loading, data)) => {
                let started = now();
                self.build_in_slices(encoding, &data, start_loading)
                    .await
                    .map(|busy_ms| LoadState::Loaded {
                        bytes: data.len(),
                        fetch_ms,
                        parse_ms: busy_ms,
                        ready_ms: now() - started,
                    })
            }
            Err(reason) => Err(TokensError::Load { encoding, reason }),
        };
        let state = state.unwrap_or_else(|error| {
            self.counter.with_value(|c| c.fail(encoding));
            LoadState::Failed(error.to_string())
        });
        let outcome = if matches!(state, LoadState::Loaded { .. }) {
            "loaded"
        } else {
            "failed"
        };
        mark(&format!("sm-vocab-{outcome}-{encoding}"));
        self.states.update(|s| s[slot(encoding)] = state);
        self.generation.update(|g| *g = g.wrapping_add(1));
    }
}

impl TokenService {
    /// Parses and indexes `data` in slices of at most about [`SLICE_MS`] of main-thread time,
    /// yielding to the browser between them (a zero timeout), so that no long task blocks input
    /// or painting while the vocabulary is built; counts stay pending until the last slice.
    /// Returns the main-thread milliseconds spent, all slices together.
    async fn build_in_slices(
        &self,
        encoding: Encoding,
        data: &[u8],
        start_loading: StartLoading,
    ) -> Result<f64, TokensError> {
        let mut busy = 0.0;
        let t = now();
        let mut loading = start_loading(encoding, data)?;
        busy += now() - t;
        let mut done = false;
        while !done {
            gloo_timers::future::TimeoutFuture::new(0).await;
            let t = now();
            // The step that compiles the splitter comes alone, in a slice of its own.
            while !done && now() - t < SLICE_MS {
                done = loading.step(SLICE_TOKENS)?;
            }
            busy += now() - t;
        }
        gloo_timers::future::TimeoutFuture::new(0).await;
        let t = now();
        self.counter.with_value(|c| c.finish_loading(loading))?;
        Ok(busy + now() - t)
    }
}

/// How long one slice of building a vocabulary may keep the main thread, at most about: well
/// under the 50 ms that makes a long task, so a click or a keystroke waits a frame at worst.
const SLICE_MS: f64 = 12.0;
/// Tokens indexed between two looks at the clock inside a slice.
const SLICE_TOKENS: usize = 4096;

/// The engine's token counter in the app, over the [`TokenService`] it was taken from
/// ([`TokenService::counter`]): exact once the vocabulary in use is loaded; until then (or if it
/// failed to load) [`rough_estimate`] (one token per 4 bytes, never 0 for a non-empty text),
/// because the engine needs a number to cache in each message and to run the token trigger
/// with. It reads the counter without subscribing anyone.
#[derive(Clone, Copy)]
pub struct SharedCounter {
    service: TokenService,
}

impl SharedCounter {
    /// The number for the engine: the count, or while it is pending (a text the build-time
    /// table does not hold, before the vocabulary has loaded) [`rough_estimate`], after asking
    /// for the vocabulary, which is then needed.
    fn or_estimate(&self, count: Option<u32>, text: &str) -> u32 {
        count.unwrap_or_else(|| {
            // Asked for after this frame, so a memo or an update that counts writes no signal.
            let service = self.service;
            if !service.estimated.get_untracked() {
                request_animation_frame(move || {
                    service.estimated.set(true);
                    service.need();
                });
            }
            rough_estimate(text)
        })
    }
}

impl CountTokens for SharedCounter {
    /// The encoding in use, once its vocabulary is loaded: from then on every count is exact
    /// (before, a count the build-time table does not hold is an estimate).
    fn exact_in(&self) -> Option<crate::engine::message::Vocabulary> {
        let encoding = self.service.encoding.get_untracked();
        self.service
            .counter
            .with_value(|c| c.is_loaded(encoding))
            .then(|| encoding.vocabulary())
    }

    fn count(&self, text: &str) -> u32 {
        let service = self.service;
        let encoding = service.encoding.get_untracked();
        let count = service
            .counter
            .with_value(|c| c.count_with(encoding, text).value());
        self.or_estimate(count, text)
    }

    fn count_growing(&self, text: &str, growing: &mut GrowingCount) -> u32 {
        let service = self.service;
        let encoding = service.encoding.get_untracked();
        let count = service
            .counter
            .with_value(|c| c.count_growing_with(encoding, text, growing).value());
        self.or_estimate(count, text)
    }
}

/// The URL of `encoding`'s vocabulary file, as the build named it in index.html.
pub(crate) fn vocabulary_url(encoding: Encoding) -> Result<String, String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    document
        .query_selector(&format!("meta[name='sm-vocab-{encoding}']"))
        .ok()
        .flatten()
        .and_then(|meta| meta.get_attribute("content"))
        .ok_or_else(|| "the page names no vocabulary file: a build without scripts/vocab.py".into())
}

/// Fetches the compact vocabulary of `encoding`.
pub(crate) async fn fetch_vocabulary(encoding: Encoding) -> Result<Vec<u8>, String> {
    let url = vocabulary_url(encoding)?;
    let response = gloo_net::http::Request::get(&url)
        .send()
        .await
        .map_err(|_| "the network request failed".to_owned())?;
    if !response.ok() {
        return Err(format!("the server answered {}", response.status()));
    }
    response
        .binary()
        .await
        .map_err(|_| "the download broke off".to_owned())
}

fn slot(encoding: Encoding) -> usize {
    match encoding {
        Encoding::O200kBase => 0,
        Encoding::Cl100kBase => 1,
    }
}

/// A User Timing mark, so the browser benchmark (and the DevTools timeline) can see when the
/// page became interactive and when each vocabulary was ready.
pub(crate) fn mark(name: &str) {
    if let Some(performance) = web_sys::window().and_then(|w| w.performance()) {
        let _ = performance.mark(name);
    }
}

fn now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}
