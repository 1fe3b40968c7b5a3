//! The live replay: the session's messages played again under the replay's policy, each
//! summary written by the endpoint's summariser model. Its cost in tokens is shown before
//! anything is sent ([`estimate`]); then progress, Stop and "Go on". What to do next is the
//! [`Replayer`]'s decision; this runner only performs the requests it asks for. The result is a
//! new session, offered for saving by the replay view; the original is never changed.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{Client, StopHandle};
use crate::app::live::{summary_text, summary_timeout_ms};
use crate::app::replay::{LiveEstimate, ReplayStatus, Replayer, SummaryCost, estimate};
use crate::engine::edition::Provenance;
use crate::engine::memory::{CommitMeta, SummaryJob};
use crate::engine::policy::{Policy, PolicyError};
use crate::engine::session::Session;
use crate::engine::settings::{Settings, ValidSettings};
use crate::ui::run::clock::now_ms;
use crate::ui::run::library_sync::Sessions;
use crate::ui::run::token_service::SharedCounter;

use super::edition_list::EditionList;

/// The replay's price, for the policy it was worked out under.
type Priced = (Policy, Result<LiveEstimate, String>);

/// "Replay live on the endpoint": the estimate, then the run. `live` holds the run (shared with
/// the replay view, which locks its form while one runs); `replayed` receives the new session
/// once every message is replayed.
#[component]
pub fn LiveReplay(
    policy: Memo<Result<Policy, PolicyError>>,
    session: StoredValue<Session>,
    live: RwSignal<Option<Replayer>>,
    replayed: RwSignal<Option<Result<Session, String>>>,
    saved: RwSignal<bool>,
) -> impl IntoView {
    let settings = use_context::<RwSignal<Settings>>();
    let sessions = use_context::<Sessions>();
    let priced = RwSignal::new(None::<Priced>);
    let stop = StoredValue::new_local(None::<StopHandle>);
    // Leaving the session (or the tab) stops what is in flight.
    on_cleanup(move || {
        stop.try_with_value(|s| s.as_ref().map(StopHandle::stop));
    });
    // What the page shows reads the settings; a request binds a key typed before any base URL
    // to the origin it is about to reach first, as the live chat does.
    let check = move || -> Result<ValidSettings, String> {
        let settings = settings.ok_or_else(|| "no settings".to_owned())?;
        settings.with(Settings::validate).map_err(|errors| {
            errors.first().map_or_else(
                || "the settings are incomplete".to_owned(),
                ToString::to_string,
            )
        })
    };
    let endpoint = move || {
        if let Some(settings) = settings {
            settings.update(Settings::bind_key);
        }
        check()
    };
    let busy = move || live.with(|r| r.as_ref().is_some_and(Replayer::is_running));
    let price = move |_| {
        let (Some(sessions), Ok(policy), Ok(valid)) = (sessions, policy.get(), endpoint()) else {
            return;
        };
        let counter = sessions.tokens.counter();
        let cost = session.with_value(|s| {
            estimate(s, policy.clone(), &counter, valid.summary.max_tokens)
                .map_err(|e| e.to_string())
        });
        priced.set(Some((policy, cost)));
    };
    let begin = move |_| {
        let (Some(sessions), Some((policy, Ok(_))), Ok(valid)) =
            (sessions, priced.get_untracked(), endpoint())
        else {
            return;
        };
        let counter = sessions.tokens.counter();
        let started = session.with_value(|s| {
            let name = format!("{} (replayed live)", s.name);
            Replayer::start(s, policy, &counter, name)
        });
        replayed.set(None);
        saved.set(false);
        match started {
            Ok((replayer, job)) => {
                live.set(Some(replayer));
                spawn_local(drive(live, replayed, stop, valid, counter, job));
            }
            Err(error) => replayed.set(Some(Err(error.to_string()))),
        }
    };
    let halt = move |_| {
        live.update(|r| {
            if let Some(r) = r {
                r.stop();
            }
        });
        stop.with_value(|s| s.as_ref().map(StopHandle::stop));
    };
    let resume = move |_| {
        let (Some(sessions), Ok(valid)) = (sessions, endpoint()) else {
            return;
        };
        let job = live
            .try_update(|r| r.as_mut().and_then(Replayer::resume))
            .flatten();
        if job.is_some() {
            spawn_local(drive(
                live,
                replayed,
                stop,
                valid,
                sessions.tokens.counter(),
                job,
            ));
        }
    };
    // The estimate stands only for the policy it was worked out under.
    let estimate_now = move || {
        priced
            .get()
            .filter(|(p, _)| policy.with(|now| now.as_ref() == Ok(p)))
            .map(|(_, cost)| cost)
    };

    view! {
        <div class="live-replay">
            {move || match check() {
                Err(reason) => view! {
                    <p class="hint" data-testid="replay-live-unavailable">
                        "To replay with the summariser model instead, connect an endpoint in Settings (" {reason} ")."
                    </p>
                }.into_any(),
                Ok(valid) => view! {
                    <p>
                        <button type="button" data-testid="replay-live" on:click=price
                            disabled=move || policy.with(|p| p.is_err()) || busy()>
                            "Replay live on the endpoint…"
                        </button>
                        <span class="hint">{format!(" Each summary is written by {} at {}; the chat's replies are the session's own.", valid.summary_model, valid.endpoint.base_url)}</span>
                    </p>
                }.into_any(),
            }}
            {move || (!busy()).then(estimate_now).flatten().map(|cost| match cost {
                Err(reason) => view! { <p class="param-error" role="alert" data-testid="replay-error">{reason}</p> }.into_any(),
                Ok(cost) => view! {
                    <div class="estimate" role="status" data-testid="replay-live-estimate"
                        data-calls=cost.calls data-sent=cost.tokens_sent data-received=cost.tokens_received>
                        <p>{describe(&cost)}</p>
                        <p class="hint">"Worked out from the offline replay's requests: a live summary of another length changes what later requests hold, and a token trigger may fold on other turns."</p>
                        <p>
                            <button type="button" data-testid="replay-live-start" on:click=begin>"Start the live replay"</button>
                            " "
                            <button type="button" data-testid="replay-live-cancel" on:click=move |_| priced.set(None)>"Cancel"</button>
                        </p>
                    </div>
                }.into_any(),
            })}
            {move || live.with(|r| r.as_ref().map(|r| (r.status().clone(), r.progress(), r.editions().to_vec()))).map(|(status, progress, editions)| {
                let planned = priced.with(|p| p.as_ref().and_then(|(_, c)| c.as_ref().ok()).map(|c| c.calls));
                let line = format!(
                    "{} · turn {} of {} · {} tokens sent, {} received",
                    match planned {
                        Some(n) => format!("{} of about {n} summaries", progress.summaries),
                        None => format!("{} summaries", progress.summaries),
                    },
                    progress.turn,
                    progress.turns,
                    progress.tokens_sent,
                    progress.tokens_received,
                );
                let done = status == ReplayStatus::Done;
                view! {
                    <div class="live-progress">
                        <p role="status" data-testid="replay-live-progress" data-status=status_slug(&status)
                            data-summaries=progress.summaries data-turn=progress.turn>
                            {if done { format!("Done: {line}.") } else { line }}
                        </p>
                        {match status {
                            ReplayStatus::Running => view! {
                                <p><button type="button" data-testid="replay-live-stop" on:click=halt>"Stop"</button></p>
                            }.into_any(),
                            ReplayStatus::Stopped => view! {
                                <p data-testid="replay-live-status">"Stopped. Nothing more is sent until you go on. "
                                    <button type="button" data-testid="replay-live-resume" on:click=resume>"Go on"</button></p>
                            }.into_any(),
                            ReplayStatus::Failed(reason) => view! {
                                <p class="param-error" role="alert" data-testid="replay-live-status">{format!("The summary failed: {reason}. ")}
                                    <button type="button" data-testid="replay-live-resume" on:click=resume>"Try again"</button></p>
                            }.into_any(),
                            ReplayStatus::Done => ().into_any(),
                        }}
                        // Once done, the replay view shows the editions with Save.
                        {(!done).then(|| view! { <EditionList editions /> })}
                    </div>
                }
            })}
        </div>
    }
}

/// The estimate in a sentence.
fn describe(cost: &LiveEstimate) -> String {
    let at_most = cost
        .received_at_most
        .map(|m| format!(" (at most {m} by the summariser's max tokens)"))
        .unwrap_or_default();
    format!(
        "About {} summariser call{}: about {} tokens sent and {} received{at_most}.",
        cost.calls,
        if cost.calls == 1 { "" } else { "s" },
        cost.tokens_sent,
        cost.tokens_received,
    )
}

fn status_slug(status: &ReplayStatus) -> &'static str {
    match status {
        ReplayStatus::Running => "running",
        ReplayStatus::Stopped => "stopped",
        ReplayStatus::Failed(_) => "failed",
        ReplayStatus::Done => "done",
    }
}

/// Performs the summaries the replayer asks for, one at a time, until it asks for none.
async fn drive(
    live: RwSignal<Option<Replayer>>,
    replayed: RwSignal<Option<Result<Session, String>>>,
    stop: StoredValue<Option<StopHandle>, LocalStorage>,
    valid: ValidSettings,
    counter: SharedCounter,
    mut job: Option<SummaryJob>,
) {
    let mut endpoint = valid.endpoint.clone();
    // Not streamed: a slow local model gets a timeout it can meet, and Stop ends it sooner.
    endpoint.timeout_ms = summary_timeout_ms(endpoint.timeout_ms);
    let client = Client::new(endpoint);
    while let Some(j) = job.take() {
        let handle = StopHandle::new();
        if stop.try_set_value(Some(handle.clone())).is_some() {
            return;
        }
        let reply = client
            .complete(&valid.summary_request(j.request.clone()), &handle)
            .await;
        stop.try_set_value(None);
        let usage = reply.as_ref().ok().flatten().and_then(|r| r.usage);
        let cost = SummaryCost {
            prompt_tokens: usage.map(|u| u.prompt_tokens),
            completion_tokens: usage.map(|u| u.completion_tokens),
        };
        let result = summary_text(reply.map(|r| r.map(|r| r.content)));
        let meta = CommitMeta {
            model: Some(valid.summary_model.clone()),
            provenance: Provenance::Model,
            at_ms: now_ms(),
        };
        let Some(next) = live.try_update(|r| {
            r.as_mut()
                .map(|r| r.summary_ended(j.id, result, cost, meta, &counter))
        }) else {
            // The replay view is gone.
            return;
        };
        job = match next {
            Some(Ok(next)) => next,
            Some(Err(error)) => {
                replayed.try_set(Some(Err(error.to_string())));
                None
            }
            None => None,
        };
    }
    if let Some(Some(finished)) = live.try_with(|r| r.as_ref().and_then(Replayer::finished)) {
        replayed.try_set(Some(Ok(finished)));
    }
}
