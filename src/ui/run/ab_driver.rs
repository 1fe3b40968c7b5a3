//! The A/B comparison's runner: performs the summaries [`crate::app::ab`] asks for, one at a
//! time, each to its side's own model, and hands every reply back until the run is over.

use leptos::prelude::*;

use crate::api::{Client, StopHandle};
use crate::app::ab::{AbStep, ab_answered, ab_call};
use crate::engine::ab::AbRun;
use crate::engine::session::Session;
use crate::engine::settings::ValidSettings;
use crate::ui::run::token_service::SharedCounter;

/// What a finished run ends with: both sides, or why it broke off.
pub type AbOutcome = Option<Result<Box<[Session; 2]>, String>>;

/// Drives `run` from `step` until it asks for nothing more; `stop` holds the request in flight
/// so that Stop (or leaving the page) cancels it.
pub async fn drive_ab(
    run: RwSignal<Option<AbRun>>,
    outcome: RwSignal<AbOutcome>,
    stop: StoredValue<Option<StopHandle>, LocalStorage>,
    valid: ValidSettings,
    counter: SharedCounter,
    mut step: AbStep,
) {
    loop {
        let job = match step {
            AbStep::Ask(job) => job,
            AbStep::Over(over) => {
                if over.is_some() {
                    outcome.try_set(over);
                }
                return;
            }
        };
        let call = ab_call(&valid, &job);
        let handle = StopHandle::new();
        if stop.try_set_value(Some(handle.clone())).is_some() {
            return;
        }
        let reply = Client::new(call.endpoint)
            .complete(&call.request, &handle)
            .await;
        stop.try_set_value(None);
        let answered = run.try_update(|r| {
            r.as_mut()
                .map(|r| ab_answered(r, job.job.id, reply, &counter))
        });
        step = match answered {
            Some(Some(next)) => next,
            // The section is gone, or holds no run.
            _ => return,
        };
    }
}
