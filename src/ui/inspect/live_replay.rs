//! The live replay: the session's messages played again under the replay's policy, each
//! summary written by the endpoint's summariser model. Its cost in tokens is shown before
//! anything is sent; then progress, Stop and "Go on". What to do next is decided by
//! [`crate::app::live_replay`] over the [`Replayer`]; the one [`Runner`] performs the requests
//! it asks for, and the texts come from [`crate::view::live_replay`] and [`crate::view::run`].
//! The result is a new session, offered for saving by the replay view; the original is never
//! changed.

use leptos::prelude::*;

use crate::app::live_replay::{
    SummaryCall, replay_price, resume_replay, start_replay, summary_answered, summary_call,
};
use crate::app::replay::Replayer;
use crate::engine::library_session::Session;
use crate::engine::memory::SummaryJob;
use crate::engine::policy::{Policy, PolicyError};
use crate::engine::settings::{Settings, ValidSettings};
use crate::ui::run::clock::now_ms;
use crate::ui::run::library_sync::Sessions;
use crate::ui::run::runner::{Reply, Runner, settings_to_send, summariser_settings};
use crate::ui::run::token_service::SharedCounter;
use crate::ui::widgets::run_controls::RunControls;
use crate::view::live_replay::{Priced, summariser_note};
use crate::view::run::{Job, Run, RunView, estimate_line};

use super::edition_list::EditionList;

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
    // Leaving the session (or the tab) stops what is in flight.
    let runner = Runner::owned(live);
    // What the page shows reads the settings; a request binds a key typed before any base URL
    // to the origin it is about to reach first, as the live chat does.
    let check = move || summariser_settings(settings);
    let endpoint = move || settings_to_send(settings);
    let busy = move || runner.is(Replayer::is_running);
    let price = move |_| {
        let (Some(sessions), Ok(policy), Ok(valid)) = (sessions, policy.get(), endpoint()) else {
            return;
        };
        let counter = sessions.tokens.counter();
        let cost = session.with_value(|s| replay_price(s, policy.clone(), &valid, &counter));
        priced.set(Some(Priced { policy, cost }));
    };
    let begin = move |_| {
        let (
            Some(sessions),
            Some(Priced {
                policy,
                cost: Ok(_),
            }),
            Ok(valid),
        ) = (sessions, priced.get_untracked(), endpoint())
        else {
            return;
        };
        let counter = sessions.tokens.counter();
        let started = session.with_value(|s| start_replay(s, policy, &counter));
        replayed.set(None);
        saved.set(false);
        match started {
            Ok((replayer, step)) => {
                let (call, answered, after) = perform(valid, counter, replayed);
                let (first, over) = step.split();
                after(over);
                runner.start(replayer, first, call, answered, after);
            }
            Err(error) => replayed.set(Some(Err(error))),
        }
    };
    let halt = move |()| runner.stop(Replayer::stop);
    let resume = move |()| {
        let (Some(sessions), Ok(valid)) = (sessions, endpoint()) else {
            return;
        };
        let (call, answered, after) = perform(valid, sessions.tokens.counter(), replayed);
        let again = |r: &mut Replayer| resume_replay(r).and_then(|step| step.split().0);
        runner.go_on(again, call, answered, after);
    };
    let estimate_now = move || {
        priced.with(|p| {
            p.as_ref()
                .and_then(|p| policy.with(|now| p.shown(now, busy()).cloned()))
        })
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
                        <span class="hint">{summariser_note(&valid)}</span>
                    </p>
                }.into_any(),
            }}
            {move || estimate_now().map(|cost| match cost {
                Err(reason) => view! { <p class="param-error" role="alert" data-testid="replay-error">{reason}</p> }.into_any(),
                Ok(cost) => view! {
                    <div class="estimate" role="status" data-testid="replay-live-estimate"
                        data-calls=cost.calls data-sent=cost.tokens_sent data-received=cost.tokens_received>
                        <p>{estimate_line(Job::LiveReplay, &cost, None)}</p>
                        <p class="hint">"Worked out from the offline replay's requests: a live summary of another length changes what later requests hold, and a token trigger may fold on other turns."</p>
                        <p>
                            <button type="button" data-testid="replay-live-start" on:click=begin>"Start the live replay"</button>
                            " "
                            <button type="button" data-testid="replay-live-cancel" on:click=move |_| priced.set(None)>"Cancel"</button>
                        </p>
                    </div>
                }.into_any(),
            })}
            {move || live.with(|r| r.as_ref().map(|r| {
                let planned = priced.with(|p| p.as_ref().and_then(Priced::planned_calls));
                let run = Run { status: r.status(), progress: r.progress().planned(planned.map(u64::from)), pace: None };
                (RunView::new(Job::LiveReplay, Some(run), None, None), r.editions().to_vec(), r.status().is_done())
            })).map(|(run, editions, done)| {
                view! {
                    <RunControls prefix="replay-live" resume="resume" view=run
                        on_stop=UnsyncCallback::new(halt) on_resume=UnsyncCallback::new(resume) />
                    // Once done, the replay view shows the editions with Save.
                    {(!done).then(|| view! { <EditionList editions /> })}
                }
            })}
        </div>
    }
}

/// What the live replay's runner performs: the request for each summary, the answer fed back
/// (the next summary, and the new session once every message is replayed, or why it broke
/// off), and where that session goes.
#[allow(clippy::type_complexity)]
fn perform(
    valid: ValidSettings,
    counter: SharedCounter,
    replayed: RwSignal<Option<Result<Session, String>>>,
) -> (
    impl Fn(&SummaryJob) -> SummaryCall,
    impl Fn(
        &mut Replayer,
        &SummaryJob,
        Reply,
    ) -> (Option<SummaryJob>, Option<Result<Box<Session>, String>>),
    impl Fn(Option<Result<Box<Session>, String>>),
) {
    let model = valid.summary_model.clone();
    (
        move |job: &SummaryJob| summary_call(&valid, job),
        move |r: &mut Replayer, job: &SummaryJob, reply: Reply| {
            summary_answered(r, job.id, reply, &model, now_ms(), &counter).split()
        },
        move |over: Option<Result<Box<Session>, String>>| {
            if let Some(result) = over {
                replayed.try_set(Some(result.map(|session| *session)));
            }
        },
    )
}
