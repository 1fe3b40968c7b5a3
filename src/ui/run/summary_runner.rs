//! The runner of a run of summaries written one at a time on the endpoint (Inspect's live
//! replay and its A/B comparison): it performs the request the app layer describes for each
//! step, hands the reply back, and goes on until it is told the run is over. Stop (or leaving
//! the page) cancels the request in flight through `stop`.

use leptos::prelude::*;

use crate::api::{Client, StopHandle};
use crate::app::live_replay::{RunStep, SummaryCall, replay_settings};
use crate::engine::openai::{ApiError, ChatResponse};
use crate::engine::settings::{Settings, ValidSettings};

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

/// Stop: the run in `run` is told (`halt`), and the request in flight in `stop` cancelled.
pub fn stop_run<T: Send + Sync + 'static>(
    run: RwSignal<Option<T>>,
    stop: StoredValue<Option<StopHandle>, LocalStorage>,
    halt: fn(&mut T),
) {
    run.update(|r| {
        if let Some(r) = r {
            halt(r);
        }
    });
    stop.with_value(|s| s.as_ref().map(StopHandle::stop));
}

/// Drives the run in `run` from `step`: `call` is the request for a job, `answered` commits
/// its reply and returns the next step, and `over` receives what the run ends with (its
/// result, or why it broke off); a run that only waits (stopped, failed) gives it nothing.
pub async fn drive<T, J, R>(
    run: RwSignal<Option<T>>,
    stop: StoredValue<Option<StopHandle>, LocalStorage>,
    mut step: RunStep<J, R>,
    call: impl Fn(&J) -> SummaryCall,
    answered: impl Fn(&mut T, &J, Result<Option<ChatResponse>, ApiError>) -> RunStep<J, R>,
    over: impl Fn(Result<Box<R>, String>),
) where
    T: Send + Sync + 'static,
{
    loop {
        let job = match step {
            RunStep::Ask(job) => job,
            RunStep::Over(result) => {
                if let Some(result) = result {
                    over(result);
                }
                return;
            }
        };
        let SummaryCall { endpoint, request } = call(&job);
        let handle = StopHandle::new();
        if stop.try_set_value(Some(handle.clone())).is_some() {
            return;
        }
        let reply = Client::new(endpoint).complete(&request, &handle).await;
        stop.try_set_value(None);
        step = match run.try_update(|r| r.as_mut().map(|r| answered(r, &job, reply))) {
            Some(Some(next)) => next,
            // The view is gone, or holds no run.
            _ => return,
        };
    }
}
