//! `ProbeRunner`: performs Inspect's probe run ([`ProbeRun`]) on the one [`Runner`], one call
//! at a time, and the model's probe writing, and feeds each reply back. A grade the run
//! records goes into the session's probe set in the library at once
//! ([`Library::set_probes`]), so a crash loses at most the cell being asked. It draws nothing;
//! the probes section reads [`ProbeRunner::run`].
//!
//! The runner outlives the session detail's redraws (every recorded grade changes the session,
//! which redraws the detail), so the run, its Stop and its progress stay; it is created with
//! the detail's parent and stops what is in flight when that goes.
//!
//! [`Library::set_probes`]: crate::app::library::Library::set_probes

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::clock::now_ms;
use super::library_sync::Sessions;
use super::runner::{Reply, Runner};
use crate::api::{Client, StopHandle};
use crate::app::live_replay::SummaryCall;
use crate::app::probes::{ProbeCall, ProbeRun, next_format, writer_answered, writer_call};
use crate::engine::library_session::ProbeSet;
use crate::engine::settings::ValidSettings;

/// The probe run of one session, and what is in flight for it.
#[derive(Clone, Copy)]
pub struct ProbeRunner {
    /// The session's id and its run, while one has been started in this view.
    pub run: RwSignal<Option<(String, ProbeRun)>>,
    /// The model is writing probes for this session.
    pub writing: RwSignal<Option<String>>,
    /// What the last "ask the model" led to: the session, and how many probes were added or why none.
    pub written: RwSignal<Option<(String, Result<usize, String>)>>,
    /// The judge model the user typed; empty for the summariser model.
    pub judge: RwSignal<String>,
    /// The run's calls, Stop and Go on.
    runner: Runner<(String, ProbeRun)>,
    /// The model's probe writing in flight.
    writer_stop: StoredValue<Option<StopHandle>, LocalStorage>,
}

impl ProbeRunner {
    /// A runner owned by the calling component: leaving it stops what is in flight.
    pub fn owned() -> ProbeRunner {
        let runner = Runner::owned(RwSignal::new(None));
        let probes = ProbeRunner {
            run: runner.run,
            writing: RwSignal::new(None),
            written: RwSignal::new(None),
            judge: RwSignal::new(String::new()),
            runner,
            writer_stop: StoredValue::new_local(None),
        };
        on_cleanup(move || {
            probes
                .writer_stop
                .try_with_value(|s| s.as_ref().map(StopHandle::stop));
        });
        probes
    }

    /// Whether `id`'s run is running.
    pub fn running(&self, id: &str) -> bool {
        self.run.with(|r| {
            r.as_ref()
                .is_some_and(|(rid, run)| rid == id && run.is_running())
        })
    }

    /// Starts a run over every cell of session `id` not graded yet.
    pub fn start(self, sessions: Sessions, id: String, valid: ValidSettings) {
        let counter = sessions.tokens.counter();
        let Some(started) = sessions.library.with_untracked(|l| {
            l.get(&id)
                .map(|e| ProbeRun::start(&e.session, valid, &counter))
        }) else {
            return;
        };
        let (run, call) = started;
        let (answered, after) = perform(sessions);
        self.runner
            .start((id, run), call, probe_call, answered, after);
    }

    /// Stop: nothing more is sent until Go on.
    pub fn stop(self) {
        self.runner.stop(|(_, run)| run.stop());
    }

    /// After a Stop or a failure: the same call again.
    pub fn retry(self, sessions: Sessions) {
        let counter = sessions.tokens.counter();
        let (answered, after) = perform(sessions);
        self.runner
            .go_on(|(_, run)| run.retry(&counter), probe_call, answered, after);
    }

    /// Asks the summariser model (or the judge named) to write probes for session `id`.
    pub fn write_probes(self, sessions: Sessions, id: String, valid: ValidSettings) {
        let counter = sessions.tokens.counter();
        let Some(call) = sessions.library.with_untracked(|l| {
            l.get(&id)
                .map(|e| writer_call(&e.session, &valid, &counter))
        }) else {
            return;
        };
        let (endpoint, request) = match call {
            Ok(call) => call,
            Err(reason) => {
                self.written.set(Some((id, Err(reason))));
                return;
            }
        };
        self.writing.set(Some(id.clone()));
        self.written.set(None);
        let handle = StopHandle::new();
        self.writer_stop.set_value(Some(handle.clone()));
        spawn_local(async move {
            let client = Client::new(endpoint);
            let mut request = request;
            let mut reply = client.complete(&request, &handle).await;
            // A server that refuses the JSON format is asked in the next form.
            while let Some(next) = reply.as_ref().err().and_then(|e| next_format(&request, e)) {
                request = next;
                reply = client.complete(&request, &handle).await;
            }
            self.writer_stop.try_set_value(None);
            let counter = sessions.tokens.counter();
            let Some(mut session) = sessions
                .library
                .with_untracked(|l| l.get(&id).map(|e| e.session.clone()))
            else {
                return;
            };
            let added = writer_answered(&mut session, reply, &counter);
            if added.is_ok() {
                sessions.library.update(|l| {
                    let _ = l.set_probes(&id, session.probes, now_ms());
                });
            }
            self.writing.try_set(None);
            self.written.try_set(Some((id, added)));
        });
    }
}

/// A probe call as the runner performs it.
fn probe_call(call: &ProbeCall) -> SummaryCall {
    SummaryCall {
        endpoint: call.endpoint.clone(),
        request: call.request.clone(),
    }
}

/// What the probe run's runner feeds back: the reply to the run, with the session's probe set
/// as the library holds it now (a session deleted meanwhile stops the run), and the set the
/// run changed, which `after` writes to the library (so a crash loses at most the cell being
/// asked).
#[allow(clippy::type_complexity)]
fn perform(
    sessions: Sessions,
) -> (
    impl Fn(
        &mut (String, ProbeRun),
        &ProbeCall,
        Reply,
    ) -> (Option<ProbeCall>, Option<(String, ProbeSet)>),
    impl Fn(Option<(String, ProbeSet)>),
) {
    (
        move |(id, run): &mut (String, ProbeRun), call: &ProbeCall, reply: Reply| {
            let Some(mut set) = sessions
                .library
                .with_untracked(|l| l.get(id).map(|e| e.session.probes.clone()))
            else {
                // The session was deleted meanwhile.
                run.stop();
                return (None, None);
            };
            let before = set.clone();
            let counter = sessions.tokens.counter();
            let next = run.answered(call.cell, call.kind, reply, &mut set, &counter);
            (next, (set != before).then(|| (id.clone(), set)))
        },
        move |changed: Option<(String, ProbeSet)>| {
            if let Some((id, set)) = changed {
                sessions.library.update(|l| {
                    let _ = l.set_probes(&id, set, now_ms());
                });
            }
        },
    )
}
