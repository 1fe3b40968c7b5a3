//! The Chat tab: a demo picker with Step / Play all / Reset, the conversation with the summary
//! pinned as its front page, the policy panel, and the context window of the last request.
//!
//! Without a demo loaded the tab is a live chat with the endpoint set in Settings: the
//! [`crate::app::live::LiveSession`] decides what to send and keeps the memory, and
//! [`crate::ui::run::live_driver::LiveDriver`] performs the requests. The files here only render,
//! one component each beside this file's tab and demo bar: `conversation.rs` (the folded archive
//! and the verbatim turns, each a `VirtualList`), `composer.rs`, `policy_panel.rs` and
//! `calls.rs`.

mod calls;
mod composer;
mod conversation;
mod policy_panel;

use leptos::prelude::*;

use crate::app::chat_actions::{ChatAction, Followup, after, start_demo};
use crate::app::workbench::{Workbench, script_for};
use crate::engine::demo::DemoSummariser;
use crate::engine::settings::Settings;
use crate::route::{DemoKind, Route};
use crate::view::chat::bar::{self, ChatBar, ChatState, progress_text};
use crate::view::chat::summaries::{SummaryRun, summary_run};
use crate::view::chat::{
    WELCOME, WELCOME_DEMOS, chat_window, continued_note, policy_panel, progress, shows_welcome,
    welcome_hook,
};

use crate::ui::run::live_driver::LiveDriver;
use crate::ui::run::token_service::{SharedCounter, TokenService};
use crate::ui::widgets::lesson_bar::Lesson;
use crate::ui::widgets::markdown::{RawReplies, RawToggle};
use crate::ui::widgets::run_controls::RunControls;
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
    let window = Memo::new(move |_| workbench.with(|w| chat_window(w, &counter)));
    let status = Memo::new(move |_| workbench.with(|w| w.demo().map(progress)));
    let panel = Memo::new(move |_| workbench.with(policy_panel));
    let live = Memo::new(move |_| workbench.with(Workbench::is_live));
    let error = Memo::new(move |_| workbench.with(Workbench::error_shown));
    let done = Memo::new(move |_| status.with(|s| s.as_ref().is_none_or(|s| s.done)));

    let settings = expect_context::<RwSignal<Settings>>();
    let valid = Memo::new(move |_| settings.with(|s| s.validate().is_ok()));
    let summariser = Memo::new(move |_| workbench.with(|w| w.demo_summariser().slug()));
    // What follows an action the app (or the live driver) has answered: the link's `?demo=`,
    // or the picker that asked shown again. `app::chat_actions` decides; this performs it.
    let follow = move |action: ChatAction, taken: bool, ev: Option<&leptos::ev::Event>| {
        let followup =
            route.with_untracked(|r| workbench.with_untracked(|w| after(action, taken, r, w)));
        perform(followup, route, ev);
    };
    // Leaves the offline demo and sends its user messages to the endpoint, one turn at a time.
    let run_live = move |_| follow(ChatAction::RunLive, driver.run_live(), None);
    let pick_summariser = move |ev: leptos::ev::Event| {
        let chosen = DemoSummariser::from_slug(&event_target_value(&ev));
        let taken = match chosen {
            Some(chosen) => {
                workbench.update(|w| w.set_demo_summariser(chosen, &counter));
                true
            }
            // The live endpoint writes the summaries of a demo run live.
            None => driver.run_live(),
        };
        follow(ChatAction::PickSummariser(chosen), taken, Some(&ev));
    };
    let pick = move |ev: leptos::ev::Event| {
        let chosen = DemoKind::from_slug(&event_target_value(&ev));
        let taken = workbench.try_update(|w| w.pick(chosen)).unwrap_or(false);
        follow(ChatAction::PickDemo(chosen), taken, Some(&ev));
    };
    // The way out of a chat request too long for the model's context window.
    let way_out = Memo::new(move |_| workbench.with(bar::way_out));
    let clock = driver.clock();
    let retry_pending = Memo::new(move |_| workbench.with(bar::retry_pending));
    // The live chat's summaries on the one run machine: the progress, Stop, and a stop or a
    // failure with Retry, drawn as every long job's run.
    let summaries = Memo::new(move |_| workbench.with(summary_run));

    // The first visit's welcome, and the buttons that start a demo from it.
    let welcome = Memo::new(move |_| workbench.with(shows_welcome));
    let begin_demo = move |kind: DemoKind| {
        let now = route.get_untracked();
        if let Some(followup) = workbench.try_update(|w| start_demo(w, &now, kind, &counter)) {
            perform(followup, route, None);
            // The welcome goes with its button; the keyboard goes on from the demo it opened.
            crate::ui::widgets::focus_soon("[data-testid='step']");
        }
    };
    // The demo bar's rules, each a memo of its own so that a part is rebuilt only when what it
    // shows changes.
    let chat_bar = Memo::new(move |_| {
        ChatBar::of(ChatState {
            demo: kind.get(),
            live: live.get(),
            endpoint_valid: valid.get(),
            welcome: welcome.get(),
            done: done.get(),
        })
    });
    let shown = move |rule: fn(&ChatBar) -> bool| Memo::new(move |_| chat_bar.with(rule));
    let show_controls = shown(|b| b.show_demo_controls);
    let steps_disabled = shown(|b| b.steps_disabled);
    let model_disabled = shown(|b| b.model_option_disabled);
    let show_run_live = shown(|b| b.show_run_live);
    let show_summarise_now = shown(|b| b.show_summarise_now);
    let show_lesson_open = shown(|b| b.show_lesson_open);
    let show_no_endpoint = shown(|b| b.show_no_endpoint);
    // A chat continued from an edition: where it came from, and what it needs to send.
    let continued = Memo::new(move |_| workbench.with(|w| continued_note(w, valid.get())));
    let show_pick_hint = shown(|b| b.show_pick_hint);
    let show_raw_toggle = shown(|b| b.show_raw_toggle);
    let scripted_label = Memo::new(move |_| chat_bar.with(|b| b.scripted_label));
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
                                    data-testid=welcome_hook(kind)
                                    on:click=move |_| begin_demo(kind)
                                >
                                    {label}
                                </button>
                            })
                            .collect_view()}
                        <button type="button" class="secondary" data-testid="lesson-start" on:click=move |_| lesson.go(1)>
                            "Walk me through it"
                        </button>
                    </div>
                    <p class="hint">
                        "To talk to your own model instead, set an endpoint in Settings and type below. A transcript you already have (a ChatGPT or Claude export, a coding agent's log) opens in "
                        <button type="button" class="link" data-testid="welcome-inspect" on:click=move |_| route.update(|r| r.tab = crate::route::Tab::Inspect)>"Inspect"</button>
                        "."
                    </p>
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
                {move || show_controls.get().then(|| view! {
                    <button
                        type="button"
                        data-testid="step"
                        disabled=move || steps_disabled.get()
                        on:click=move |_| workbench.update(|w| w.step(&counter))
                    >
                        "Step"
                    </button>
                    <button
                        type="button"
                        data-testid="play-all"
                        disabled=move || steps_disabled.get()
                        on:click=move |_| play_watched(workbench, counter, None)
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
                                {move || scripted_label.get()}
                            </option>
                            <option value="extractive" selected=move || summariser.get() == "extractive">
                                "Extractive (the baseline, copies sentences)"
                            </option>
                            <option value="model" disabled=move || model_disabled.get()>
                                "Your endpoint (runs the demo live)"
                            </option>
                        </select>
                    </label>
                })}
                {move || show_run_live.get().then(|| view! {
                    <button
                        type="button"
                        data-testid="run-live"
                        title="Send this demo's user messages to your endpoint, with its policy, and let the summary model write the summaries"
                        on:click=run_live
                    >
                        "Run live"
                    </button>
                })}
                {move || show_summarise_now.get().then(|| view! {
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
                {move || show_lesson_open.get().then(|| view! {
                    <button type="button" class="secondary push-end" data-testid="lesson-open" on:click=move |_| lesson.go(1)>
                        "Walk me through it"
                    </button>
                })}
            </div>
            {move || {
                status
                    .get()
                    .map(|s| {
                        let text = progress_text(&s);
                        view! {
                            <p class="progress" data-testid="progress" aria-live="polite">
                                <strong>{text}</strong>
                                {s.last_step.map(|step| view! { " — " {step} })}
                            </p>
                        }
                    })
            }}
            {move || {
                continued.get().map(|note| view! {
                    <div class="card continued-note" data-testid="continued-note">
                        <p>{note.text}</p>
                        {note.needs.map(|needs| view! {
                            <p class="hint" data-testid="continued-needs" data-needs="endpoint">{needs}</p>
                        })}
                    </div>
                })
            }}
            {move || {
                show_no_endpoint.get().then(|| view! {
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
                summaries.get().map(|SummaryRun { view, hooks }| view! {
                    <RunControls view hooks
                        on_stop=UnsyncCallback::new(move |()| driver.stop())
                        on_resume=UnsyncCallback::new(move |()| driver.retry()) />
                })
            }}
            {move || {
                way_out
                    .get()
                    .map(|way| {
                        view! {
                            <div class="way-out" role="group" aria-label="Make the request fit">
                                {way.fold_now.then(|| view! {
                                    <button
                                        type="button"
                                        data-testid="fold-now"
                                        title="Fold the oldest turns into the summary now, then press Retry"
                                        on:click=move |_| driver.summarise_now()
                                    >
                                        "Fold now"
                                    </button>
                                })}
                                {way.exclude_longest.map(|label| view! {
                                    <button
                                        type="button"
                                        data-testid="exclude-longest"
                                        title="Leave the longest message out of the requests; the archive keeps it, and its row can send it again"
                                        on:click=move |_| workbench.update(Workbench::exclude_longest)
                                    >
                                        {label}
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
                show_pick_hint
                    .get()
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
                    {move || show_raw_toggle.get().then(|| view! {
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

/// Performs what followed an action of the Chat tab: the new link, or the picker of `ev` shown
/// again at the value in use.
fn perform(followup: Followup, route: RwSignal<Route>, ev: Option<&leptos::ev::Event>) {
    match followup {
        Followup::Route(next) => route.set(next),
        Followup::ShowAgain(value) => {
            if let Some(ev) = ev {
                event_target::<leptos::web_sys::HtmlSelectElement>(ev).set_value(value);
            }
        }
        Followup::Nothing => {}
    }
}

/// How long each step of Play all stays on screen before the next.
const PLAY_STEP: std::time::Duration = std::time::Duration::from_millis(220);

/// Plays the demo to its end one step at a time, [`PLAY_STEP`] apart, so the turns arriving and
/// the folds can be watched (it jumped to the end before); at once for a reader who asked for
/// reduced motion. Each step knows where the last one left the demo (`left`): when anything else
/// has moved it since (Reset, another demo, a lesson step, Step), it stops, as it does at the
/// end, at a step that changes nothing (an error), or when the tab is gone.
fn play_watched(
    workbench: RwSignal<Workbench>,
    counter: SharedCounter,
    left: Option<(usize, usize)>,
) {
    if left.is_none() && crate::ui::widgets::prefers_reduced_motion() {
        workbench.update(|w| w.play_all(&counter));
        return;
    }
    let at = |w: &Workbench| {
        w.demo().map_or((0, 0), |p| {
            (p.memory().archive().len(), p.memory().editions().len())
        })
    };
    let next = workbench.try_update(|w| {
        let before = at(w);
        if left.is_some_and(|l| l != before) {
            return None;
        }
        w.step(&counter);
        let now = at(w);
        (w.demo().is_some_and(|p| !p.is_done()) && now != before).then_some(now)
    });
    if let Some(Some(now)) = next {
        set_timeout(
            move || play_watched(workbench, counter, Some(now)),
            PLAY_STEP,
        );
    }
}
