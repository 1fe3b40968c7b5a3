//! The Chat tab: a demo picker with Step / Play all / Reset, the conversation with the summary
//! pinned as its front page, the policy panel, and the context window of the last request.
//!
//! Without a demo loaded the tab is a live chat with the endpoint set in Settings: the
//! [`crate::app::live::LiveSession`] decides what to send and keeps the memory, and
//! [`crate::ui::run::live_driver::LiveDriver`] performs the requests. The files here only render.

mod calls;
mod composer;
mod conversation;
mod policy_panel;

use leptos::prelude::*;

use crate::app::workbench::{Workbench, script_for};
use crate::engine::demo::DemoSummariser;
use crate::engine::openai::Purpose;
use crate::engine::settings::Settings;
use crate::route::{DemoKind, Route};
use crate::view::chat::{WELCOME, WELCOME_DEMOS, policy_panel, progress, shows_welcome};
use crate::view::context_window::context_window;

use crate::ui::run::live_driver::LiveDriver;
use crate::ui::run::token_service::TokenService;
use crate::ui::widgets::lesson_bar::Lesson;
use crate::ui::widgets::markdown::{RawReplies, RawToggle};
use crate::ui::widgets::token_estimate_note::TokenEstimateNote;
use crate::ui::widgets::window_view::WindowView;
use calls::CallsView;
use composer::Composer;
use conversation::ConversationView;
use policy_panel::{PolicyEditor, PolicyView};

/// The demos the picker offers, in order.
const DEMOS: [DemoKind; 4] = DemoKind::ALL;

#[component]
pub fn ChatTab() -> impl IntoView {
    let route = expect_context::<RwSignal<Route>>();
    let workbench = expect_context::<RwSignal<Workbench>>();
    let driver = LiveDriver::from_context();
    let counter = TokenService::from_context().counter();

    let kind = Memo::new(move |_| workbench.with(Workbench::demo_kind));
    let window = Memo::new(move |_| workbench.with(|w| w.demo().and_then(context_window)));
    let status = Memo::new(move |_| workbench.with(|w| w.demo().map(progress)));
    let panel = Memo::new(move |_| workbench.with(policy_panel));
    let live = Memo::new(move |_| workbench.with(Workbench::is_live));
    let error = Memo::new(move |_| workbench.with(Workbench::error_shown));
    let done = Memo::new(move |_| status.with(|s| s.as_ref().is_none_or(|s| s.done)));

    let settings = expect_context::<RwSignal<Settings>>();
    let valid = Memo::new(move |_| settings.with(|s| s.validate().is_ok()));
    // Leaves the offline demo and sends its user messages to the endpoint, one turn at a time.
    let run_live = move |_| {
        if driver.run_live() {
            route.update(|r| r.demo = None);
        }
    };
    let summariser = Memo::new(move |_| workbench.with(|w| w.demo_summariser().slug()));
    let pick_summariser = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        match DemoSummariser::from_slug(&value) {
            Some(chosen) => workbench.update(|w| w.set_demo_summariser(chosen, &counter)),
            // The live endpoint writes the summaries of a demo run live.
            None => {
                if driver.run_live() {
                    route.update(|r| r.demo = None);
                } else {
                    // Refused: the picker shows the summariser in use again.
                    event_target::<leptos::web_sys::HtmlSelectElement>(&ev)
                        .set_value(summariser.get_untracked());
                }
            }
        }
    };
    let pick = move |ev: leptos::ev::Event| {
        let chosen = DemoKind::from_slug(&event_target_value(&ev));
        if workbench.try_update(|w| w.pick(chosen)).unwrap_or(false) {
            route.update(|r| r.demo = chosen);
        } else {
            // Refused (the live chat still waits for its endpoint): the picker shows what is
            // on screen again.
            let shown = kind.get_untracked().map_or("", DemoKind::slug);
            event_target::<leptos::web_sys::HtmlSelectElement>(&ev).set_value(shown);
        }
    };
    // The way out of a chat request too long for the model's context window.
    let too_long = Memo::new(move |_| {
        workbench.with(|w| w.is_live() && w.live.too_long() == Some(Purpose::Chat))
    });
    let can_fold = Memo::new(move |_| workbench.with(|w| w.live.memory().can_fold_now()));
    let longest = Memo::new(move |_| workbench.with(|w| w.live.longest_sent()));
    let clock = driver.clock();
    let retry_pending =
        Memo::new(move |_| workbench.with(|w| w.is_live() && w.live.retry_wait().is_some()));

    // The first visit's welcome, and the buttons that start a demo from it: each loads the demo
    // and plays its first step, so one click shows something happening.
    let welcome = Memo::new(move |_| workbench.with(shows_welcome));
    let start_demo = move |kind: DemoKind| {
        workbench.update(|w| {
            w.load(kind);
            w.step(&counter);
        });
        route.update(|r| r.demo = Some(kind));
    };
    let lesson = Lesson::from_context();
    let raw = RawReplies(RwSignal::new(false));
    provide_context(raw);

    view! {
        <section class="panel chat" data-testid="panel-chat">
            <h2>"Chat"</h2>
            <TokenEstimateNote />
            {move || welcome.get().then(|| view! {
                <section class="welcome card" data-testid="welcome" aria-labelledby="welcome-title">
                    <h3 id="welcome-title">"Start here"</h3>
                    {WELCOME.iter().map(|line| view! { <p>{*line}</p> }).collect_view()}
                    <div class="welcome-actions">
                        {WELCOME_DEMOS
                            .into_iter()
                            .map(|(kind, label)| view! {
                                <button
                                    type="button"
                                    class="primary"
                                    data-testid=format!("welcome-{}", kind.slug())
                                    on:click=move |_| start_demo(kind)
                                >
                                    {label}
                                </button>
                            })
                            .collect_view()}
                        <button type="button" class="secondary" data-testid="lesson-start" on:click=move |_| lesson.go(1)>
                            "Walk me through it"
                        </button>
                    </div>
                    <p class="hint">"To talk to your own model instead, set an endpoint in Settings and type below."</p>
                </section>
            })}
            <div class="demo-bar" role="group" aria-label="Demo controls">
                <label>
                    "Demo"
                    <select data-testid="demo-picker" on:change=pick>
                        <option value="" selected=move || kind.get().is_none()>"Choose a demo…"</option>
                        {DEMOS
                            .into_iter()
                            .map(|k| {
                                view! {
                                    <option value=k.slug() selected=move || kind.get() == Some(k)>
                                        {script_for(k).title}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </label>
                // A demo's controls appear with the demo: before one is picked they could not act.
                {move || kind.get().is_some().then(|| view! {
                    <button
                        type="button"
                        data-testid="step"
                        disabled=move || done.get()
                        on:click=move |_| workbench.update(|w| w.step(&counter))
                    >
                        "Step"
                    </button>
                    <button
                        type="button"
                        data-testid="play-all"
                        disabled=move || done.get()
                        on:click=move |_| workbench.update(|w| w.play_all(&counter))
                    >
                        "Play all"
                    </button>
                    <button
                        type="button"
                        data-testid="reset"
                        on:click=move |_| workbench.update(|w| w.reset())
                    >
                        "Reset"
                    </button>
                    <label>
                        "Summariser"
                        <select data-testid="demo-summariser" on:change=pick_summariser>
                            <option value="scripted" selected=move || summariser.get() == "scripted">
                                {move || {
                                    if kind.get().is_some_and(DemoKind::is_recorded) {
                                        "Recorded (the real model's own editions)"
                                    } else {
                                        "Scripted (abstractive, drifts like a model)"
                                    }
                                }}
                            </option>
                            <option value="extractive" selected=move || summariser.get() == "extractive">
                                "Extractive (the baseline, copies sentences)"
                            </option>
                            <option value="model" disabled=move || !valid.get()>
                                "Your endpoint (runs the demo live)"
                            </option>
                        </select>
                    </label>
                })}
                {move || (kind.get().is_some() && valid.get()).then(|| view! {
                    <button
                        type="button"
                        data-testid="run-live"
                        title="Send this demo's user messages to your endpoint, with its policy, and let the summary model write the summaries"
                        on:click=run_live
                    >
                        "Run live"
                    </button>
                })}
                {move || (!live.get() || valid.get()).then(|| view! {
                    <button
                        type="button"
                        data-testid="summarise-now"
                        title="Fold the turns the trigger would fold now, whatever it says"
                        on:click=move |_| driver.summarise_now()
                    >
                        "Summarise now"
                    </button>
                })}
                // The welcome offers the lesson itself; after it, the demo bar does.
                {move || (!welcome.get()).then(|| view! {
                    <button type="button" class="secondary push-end" data-testid="lesson-open" on:click=move |_| lesson.go(1)>
                        "Walk me through it"
                    </button>
                })}
            </div>
            {move || {
                status
                    .get()
                    .map(|s| {
                        let text = format!(
                            "Turn {} of {}{}",
                            s.asked,
                            s.total,
                            if s.done { " · finished" } else { "" },
                        );
                        view! {
                            <p class="progress" data-testid="progress" aria-live="polite">
                                <strong>{text}</strong>
                                {s.last_step.map(|step| view! { " — " {step} })}
                            </p>
                        }
                    })
            }}
            {move || {
                (kind.get().is_some() && !valid.get()).then(|| view! {
                    <p class="hint" data-testid="no-endpoint">
                        "No endpoint is configured, so a model cannot write this demo's summaries: set one in Settings to offer \"Your endpoint\" and Run live. "
                        "The scripted and extractive summarisers run offline."
                    </p>
                })
            }}
            {move || {
                error
                    .get()
                    .map(|e| view! { <p class="error" data-testid="error" role="alert">{e}</p> })
            }}
            {move || {
                too_long
                    .get()
                    .then(|| {
                        view! {
                            <div class="way-out" role="group" aria-label="Make the request fit">
                                {can_fold.get().then(|| view! {
                                    <button
                                        type="button"
                                        data-testid="fold-now"
                                        title="Fold the oldest turns into the summary now, then press Retry"
                                        on:click=move |_| driver.summarise_now()
                                    >
                                        "Fold now"
                                    </button>
                                })}
                                {longest.get().map(|(_, turn, tokens)| view! {
                                    <button
                                        type="button"
                                        data-testid="exclude-longest"
                                        title="Leave the longest message out of the requests; the archive keeps it, and its row can send it again"
                                        on:click=move |_| workbench.update(Workbench::exclude_longest)
                                    >
                                        {format!("Leave out the longest message (turn {turn}, {tokens} tokens)")}
                                    </button>
                                })}
                                <span class="hint">"then press Retry."</span>
                            </div>
                        }
                    })
            }}
            <Show when=move || retry_pending.get()>
                <p class="retry-status" role="status">
                    <span data-testid="retry-status">
                        {move || workbench.with(|w| w.live.retry_status(clock.get())).unwrap_or_default()}
                    </span>
                    " "
                    <button type="button" data-testid="cancel-retry" on:click=move |_| driver.stop()>
                        "Cancel retries"
                    </button>
                </p>
            </Show>
            {move || {
                (kind.get().is_none() && !welcome.get())
                    .then(|| {
                        view! {
                            <p class="hint">
                                "Pick a demo to play a scripted conversation through the memory engine. "
                                "Its summaries come from the scripted summariser (or the extractive baseline, your choice), so nothing is sent anywhere. "
                                "Without a demo, the chat below talks to the endpoint set in Settings."
                            </p>
                        }
                    })
            }}
            <div class="chat-layout">
                <div class="conversation">
                    {move || (!welcome.get()).then(|| view! {
                        <div class="conversation-tools"><RawToggle /></div>
                    })}
                    <ConversationView />
                    <Composer />
                </div>
                <aside class="side">
                    <PolicyEditor />
                    {move || view! { <PolicyView panel=panel.get() /> }}
                    {move || window.get().map(|w| view! { <WindowView window=w /> })}
                    {move || live.get().then(|| view! { <CallsView /> })}
                </aside>
            </div>
        </section>
    }
}
