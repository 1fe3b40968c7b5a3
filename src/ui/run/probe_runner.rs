//! `ProbeRunner`: performs Inspect's probe run ([`ProbeRun`]) and the model's probe writing,
//! one call at a time, and feeds each reply back. A grade the run records goes into the
//! session's probe set in the library at once ([`Library::set_probes`]), so a crash loses at
//! most the cell being asked. It draws nothing; the probes section reads [`ProbeRunner::run`].
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
use crate::api::{Client, StopHandle};
use crate::app::probes::{ProbeCall, ProbeRun, next_format, writer_answered, writer_call};
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
    stop: StoredValue<Option<StopHandle>, LocalStorage>,
    /// Counts the drives started: a drive whose number is no longer the latest (Stop, then
    /// Retry before its reply came back) drops its late reply.
    generation: StoredValue<u64>,
}

impl ProbeRunner {
    /// A runner owned by the calling component: leaving it stops what is in flight.
    pub fn owned() -> ProbeRunner {
        let runner = ProbeRunner {
            run: RwSignal::new(None),
            writing: RwSignal::new(None),
            written: RwSignal::new(None),
            judge: RwSignal::new(String::new()),
            stop: StoredValue::new_local(None),
            generation: StoredValue::new(0),
        };
        on_cleanup(move || runner.halt_call());
        runner
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
        self.run.set(Some((id.clone(), run)));
        self.drive(sessions, id, call);
    }

    /// Stop: nothing more is sent until Retry.
    pub fn stop(self) {
        self.run.update(|r| {
            if let Some((_, run)) = r {
                run.stop();
            }
        });
        self.halt_call();
    }

    /// After a Stop or a failure: the same call again.
    pub fn retry(self, sessions: Sessions) {
        let counter = sessions.tokens.counter();
        let Some((id, call)) = self
            .run
            .try_update(|r| {
                r.as_mut()
                    .map(|(id, run)| (id.clone(), run.retry(&counter)))
            })
            .flatten()
        else {
            return;
        };
        self.drive(sessions, id, call);
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
        self.stop.set_value(Some(handle.clone()));
        spawn_local(async move {
            let client = Client::new(endpoint);
            let mut request = request;
            let mut reply = client.complete(&request, &handle).await;
            // A server that refuses the JSON format is asked in the next form.
            while let Some(next) = reply.as_ref().err().and_then(|e| next_format(&request, e)) {
                request = next;
                reply = client.complete(&request, &handle).await;
            }
            self.stop.try_set_value(None);
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

    /// Stops the call in flight, if any.
    fn halt_call(&self) {
        self.stop
            .try_with_value(|s| s.as_ref().map(StopHandle::stop));
    }

    fn drive(self, sessions: Sessions, id: String, first: Option<ProbeCall>) {
        let generation = self.generation.get_value() + 1;
        self.generation.set_value(generation);
        spawn_local(async move {
            let mut call = first;
            while let Some(next) = call {
                let handle = StopHandle::new();
                if self.stop.try_set_value(Some(handle.clone())).is_some() {
                    return;
                }
                let reply = Client::new(next.endpoint.clone())
                    .complete(&next.request, &handle)
                    .await;
                if self.generation.try_get_value() != Some(generation) {
                    return;
                }
                self.stop.try_set_value(None);
                let counter = sessions.tokens.counter();
                let Some(mut set) = sessions
                    .library
                    .with_untracked(|l| l.get(&id).map(|e| e.session.probes.clone()))
                else {
                    // The session was deleted meanwhile.
                    self.stop();
                    return;
                };
                let before = set.clone();
                call = self
                    .run
                    .try_update(|r| {
                        r.as_mut()
                            .filter(|(rid, _)| *rid == id)
                            .and_then(|(_, run)| {
                                run.answered(next.cell, next.kind, reply, &mut set, &counter)
                            })
                    })
                    .flatten();
                if set != before {
                    sessions.library.update(|l| {
                        let _ = l.set_probes(&id, set, now_ms());
                    });
                }
            }
        });
    }
}
