//! [`Runner`]: the one runner of every long job that calls the endpoint one request at a time
//! (Inspect's live replay, its A/B comparison, its probes). The job's state machine, in the
//! app layer, describes the next call as data; the runner performs it, hands the reply back to
//! the machine, performs what that answer leads to outside the machine (`after`: a library
//! write, the run's result) and goes on until the machine asks for no call. It owns the run's
//! signal, the Stop handle of the call in flight and the spawning, so a tab holds none: it
//! draws the run and calls [`Runner::start`], [`Runner::stop`] and [`Runner::go_on`].
//!
//! Each drive has a number; a reply that comes back to a drive that is no longer the latest
//! (Stop, then Go on before the reply came back) is dropped, and leaves the newer drive's
//! Stop handle alone. Leaving the component that made the runner stops the call in flight.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{Client, StopHandle};
use crate::app::live_replay::{SummaryCall, replay_settings};
use crate::engine::openai::{ApiError, ChatResponse};
use crate::engine::settings::{Settings, ValidSettings};

/// A reply as the runner hands it back: `Ok(None)` when the user stopped the call.
pub type Reply = Result<Option<ChatResponse>, ApiError>;

/// A job's run, and what is in flight for it.
pub struct Runner<T: 'static> {
    /// The job's state machine, while one has been started.
    pub run: RwSignal<Option<T>>,
    stop: StoredValue<Option<StopHandle>, LocalStorage>,
    /// The latest drive's number.
    generation: StoredValue<u64>,
}

impl<T> Clone for Runner<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Runner<T> {}

impl<T: Send + Sync + 'static> Runner<T> {
    /// A runner over `run`, owned by the calling component: leaving it stops the call in
    /// flight.
    pub fn owned(run: RwSignal<Option<T>>) -> Runner<T> {
        let runner = Runner {
            run,
            stop: StoredValue::new_local(None),
            generation: StoredValue::new(0),
        };
        on_cleanup(move || runner.cancel());
        runner
    }

    /// Whether a run is there and `test` holds of it (read tracked).
    pub fn is(&self, test: impl Fn(&T) -> bool) -> bool {
        self.run.with(|r| r.as_ref().is_some_and(test))
    }

    /// Starts `run` and performs its `first` call, then every call it asks for next (see
    /// [`Runner::drive`]).
    pub fn start<J: 'static, A: 'static>(
        self,
        run: T,
        first: Option<J>,
        call: impl Fn(&J) -> SummaryCall + 'static,
        answered: impl Fn(&mut T, &J, Reply) -> (Option<J>, A) + 'static,
        after: impl Fn(A) + 'static,
    ) {
        self.run.set(Some(run));
        self.drive(first, call, answered, after);
    }

    /// Stop: the run is told (`halt`), and the call in flight cancelled.
    pub fn stop(self, halt: impl FnOnce(&mut T)) {
        self.run.update(|r| {
            if let Some(r) = r {
                halt(r);
            }
        });
        self.cancel();
    }

    /// Go on after a Stop or a failure: `resume` asks the run for the call to make again
    /// (none when it does not wait), which is performed as [`Runner::drive`] does.
    pub fn go_on<J: 'static, A: 'static>(
        self,
        resume: impl FnOnce(&mut T) -> Option<J>,
        call: impl Fn(&J) -> SummaryCall + 'static,
        answered: impl Fn(&mut T, &J, Reply) -> (Option<J>, A) + 'static,
        after: impl Fn(A) + 'static,
    ) {
        let first = self
            .run
            .try_update(|r| r.as_mut().and_then(resume))
            .flatten();
        if first.is_some() {
            self.drive(first, call, answered, after);
        }
    }

    /// Performs `first`, then each call the run asks for next: `call` is the request for a
    /// job, `answered` hands the run its reply and returns the next job (none: the run is over,
    /// stopped or failed) and what to perform outside the run, which `after` performs.
    pub fn drive<J: 'static, A: 'static>(
        self,
        first: Option<J>,
        call: impl Fn(&J) -> SummaryCall + 'static,
        answered: impl Fn(&mut T, &J, Reply) -> (Option<J>, A) + 'static,
        after: impl Fn(A) + 'static,
    ) {
        let generation = self.generation.get_value() + 1;
        self.generation.set_value(generation);
        let Some(first) = first else {
            return;
        };
        let first_call = call(&first);
        let run = self.run;
        // The job whose call is out; the loop itself knows only calls and replies, so it is
        // compiled once for every job.
        let pending = std::cell::RefCell::new(Some(first));
        let feed = move |reply: Reply| -> Option<SummaryCall> {
            let job = pending.borrow_mut().take()?;
            let (next, effect) = run
                .try_update(|r| r.as_mut().map(|r| answered(r, &job, reply)))
                .flatten()?;
            after(effect);
            let then = next.as_ref().map(&call);
            *pending.borrow_mut() = next;
            then
        };
        spawn_local(perform(
            self.stop,
            self.generation,
            generation,
            first_call,
            Box::new(feed),
        ));
    }

    /// Cancels the call in flight, if any.
    fn cancel(&self) {
        self.stop
            .try_with_value(|s| s.as_ref().map(StopHandle::stop));
    }
}

/// Performs `first`, and each call `feed` returns for the reply to the one before, until it
/// returns none, the drive is no longer the latest (`generation`), or the runner is gone.
async fn perform(
    stop: StoredValue<Option<StopHandle>, LocalStorage>,
    generations: StoredValue<u64>,
    generation: u64,
    first: SummaryCall,
    feed: Box<dyn Fn(Reply) -> Option<SummaryCall>>,
) {
    let mut next = Some(first);
    while let Some(SummaryCall { endpoint, request }) = next {
        let handle = StopHandle::new();
        if stop.try_set_value(Some(handle.clone())).is_some() {
            // The component that owned the runner is gone.
            return;
        }
        let reply = Client::new(endpoint).complete(&request, &handle).await;
        if generations.try_get_value() != Some(generation) {
            return;
        }
        stop.try_set_value(None);
        next = feed(reply);
    }
}

/// The summariser's settings as the page shows them (read tracked), or what is missing.
pub fn summariser_settings(settings: Option<RwSignal<Settings>>) -> Result<ValidSettings, String> {
    let settings = settings.ok_or_else(|| "no settings".to_owned())?;
    settings.with(replay_settings)
}

/// The same, for a run about to send: a key typed before any base URL is first bound to the
/// origin it is about to reach, as the live chat does.
pub fn settings_to_send(settings: Option<RwSignal<Settings>>) -> Result<ValidSettings, String> {
    if let Some(settings) = settings {
        settings.update(Settings::bind_key);
    }
    summariser_settings(settings)
}
