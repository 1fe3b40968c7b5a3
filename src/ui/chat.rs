//! The Chat tab: a demo picker with Step / Play all / Reset, the conversation with the summary
//! pinned as its front page, the policy, and the context window of the last request.
//!
//! Without a demo loaded the tab is a live chat with the endpoint set in Settings: the
//! [`LiveSession`] decides what to send and keeps the memory; this file only performs the
//! requests through [`crate::api::Client`] and feeds the results back.

use std::cell::RefCell;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{Client, StopHandle, StreamEnd};
use crate::engine::memory::SummaryJob;
use crate::engine::message::ChatMessage;
use crate::engine::openai::Usage;
use crate::engine::settings::{Settings, ValidSettings};
use crate::route::{DemoKind, Route};
use crate::view::chat::Workbench;
use crate::view::chat::{
    ContextWindow, Conversation, ConversationRow, PolicyPanel, context_window, policy_panel,
    progress, script_for, turns_label,
};
use crate::view::live::{CallKind, LiveAction, LiveSession, ReplyEnd};
use crate::view::policy::{
    FORMATS, FormKind, PLACEMENTS, PolicyEdit, fact_source, format_from_slug, placement_from_slug,
    preset_from_slug, preset_slug,
};

use super::tokens::{AppCounter, TokenEstimateNote};

/// The app's token counter (exact once the vocabulary is loaded, one token per 4 bytes before);
/// the engine caches whatever it says in each message, and the demo is recounted on load.
pub(super) const COUNTER: AppCounter = AppCounter;

/// The demos the picker offers, in order.
const DEMOS: [DemoKind; 2] = [DemoKind::FinCoach, DemoKind::Drift];

#[component]
pub fn ChatTab() -> impl IntoView {
    let route = expect_context::<RwSignal<Route>>();
    let workbench = expect_context::<RwSignal<crate::view::chat::Workbench>>();

    let kind = Memo::new(move |_| workbench.with(|w| w.demo_kind()));
    let window = Memo::new(move |_| workbench.with(|w| w.demo.as_ref().and_then(context_window)));
    let status = Memo::new(move |_| workbench.with(|w| w.demo.as_ref().map(progress)));
    let panel = Memo::new(move |_| workbench.with(policy_panel));
    let live = Memo::new(move |_| workbench.with(|w| w.demo.is_none()));
    let error = Memo::new(move |_| {
        workbench.with(|w| match &w.demo {
            Some(_) => w.error.clone(),
            None => w
                .error
                .clone()
                .or_else(|| w.live.error().map(str::to_owned)),
        })
    });
    let done = Memo::new(move |_| status.with(|s| s.as_ref().is_none_or(|s| s.done)));

    let settings = expect_context::<RwSignal<Settings>>();
    let valid = Memo::new(move |_| settings.with(|s| s.validate().is_ok()));
    // Leaves the offline demo and sends its user messages to the endpoint, one turn at a time.
    let run_live = move |_| {
        let (Some(kind), Ok(valid)) = (
            kind.get_untracked(),
            settings.with_untracked(Settings::validate),
        ) else {
            return;
        };
        let first = workbench
            .try_update(|w| match LiveSession::from_script(&script_for(kind)) {
                Ok(session) => {
                    w.unload();
                    w.set_live(session);
                    w.live.next_queued(now_ms(), &COUNTER)
                }
                Err(error) => {
                    w.error = Some(error.to_string());
                    None
                }
            })
            .flatten();
        route.update(|r| r.demo = None);
        if let Some(messages) = first {
            spawn_local(drive(workbench, valid, LiveAction::Reply(messages)));
        }
    };
    let pick = move |ev: leptos::ev::Event| {
        let chosen = DemoKind::from_slug(&event_target_value(&ev));
        workbench.update(|w| match chosen {
            Some(kind) => w.load(kind),
            None => w.unload(),
        });
        route.update(|r| r.demo = chosen);
    };

    view! {
        <section class="panel chat" data-testid="panel-chat">
            <h2>"Chat"</h2>
            <TokenEstimateNote />
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
                <button
                    type="button"
                    data-testid="step"
                    disabled=move || done.get()
                    on:click=move |_| workbench.update(|w| w.step(&COUNTER))
                >
                    "Step"
                </button>
                <button
                    type="button"
                    data-testid="play-all"
                    disabled=move || done.get()
                    on:click=move |_| workbench.update(|w| w.play_all(&COUNTER))
                >
                    "Play all"
                </button>
                <button
                    type="button"
                    data-testid="run-live"
                    title="Send this demo's user messages to your endpoint, with its policy, and let the summary model write the summaries"
                    disabled=move || kind.get().is_none() || !valid.get()
                    on:click=run_live
                >
                    "Run live"
                </button>
                <button
                    type="button"
                    data-testid="reset"
                    disabled=move || kind.get().is_none()
                    on:click=move |_| workbench.update(|w| w.reset())
                >
                    "Reset"
                </button>
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
                error
                    .get()
                    .map(|e| view! { <p class="error" data-testid="error" role="alert">{e}</p> })
            }}
            {move || {
                kind.get()
                    .is_none()
                    .then(|| {
                        view! {
                            <p class="hint">
                                "Pick a demo to play a scripted conversation through the memory engine. "
                                "The summaries come from the built-in extractive summariser, so nothing is sent anywhere. "
                                "Without a demo, the chat below talks to the endpoint set in Settings."
                            </p>
                        }
                    })
            }}
            <div class="chat-layout">
                <div class="conversation">
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

/// The folded archive, the front page, then the verbatim turns: the same layout for a demo and
/// for the live chat.
#[component]
fn ConversationView() -> impl IntoView {
    let workbench = expect_context::<RwSignal<Workbench>>();
    let conversation = Memo::new(move |_| workbench.with(Conversation::of));
    view! {
        {move || {
            let folded = conversation.with(|c| c.folded.clone());
            (!folded.is_empty())
                .then(|| {
                    view! {
                        // Open by default so the folded turns can be read against the summary;
                        // on a phone the reader can collapse them to reach the front page.
                        <details class="archive" open=true>
                            <summary class="section-label">
                                {format!("Archive · {} messages folded into the summary", folded.len())}
                            </summary>
                            <ol class="messages">
                                {folded.into_iter().map(|row| view! { <RowView row /> }).collect_view()}
                            </ol>
                        </details>
                    }
                })
        }}
        {move || {
            conversation
                .with(|c| c.front_page.clone())
                .map(|page| {
                    view! {
                        <section class="front-page" aria-label="Current summary">
                            <h3 class="front-head">
                                {format!(
                                    "Front page · edition {} · {} · {} tokens",
                                    page.cycle,
                                    turns_label(1, page.summarised_to),
                                    page.tokens,
                                )}
                            </h3>
                            <p data-testid="summary" class="summary-text">{page.text}</p>
                        </section>
                    }
                })
        }}
        <ol class="messages verbatim" aria-label="Verbatim turns" aria-live="polite">
            {move || {
                conversation
                    .with(|c| c.verbatim.clone())
                    .into_iter()
                    .map(|row| view! { <RowView row /> })
                    .collect_view()
            }}
        </ol>
    }
}

#[component]
fn RowView(row: ConversationRow) -> impl IntoView {
    let role = row.role.as_str();
    let state = row.state;
    view! {
        <li
            class=format!("message {role} {state}")
            data-testid="message"
            data-role=role
            data-state=state
            data-turn=row.turn
        >
            <div class="message-meta">
                <span class="role">{row.role_label()}</span>
                <span class="turn">{format!("turn {}", row.turn)}</span>
                {row.tokens.map(|t| view! { <span class="tokens">{format!("{t} tokens")}</span> })}
                <span class=format!("marker {state}")>{row.marker}</span>
            </div>
            <p class="content">{row.content}</p>
        </li>
    }
}

thread_local! {
    /// Stops the chat request in flight. It lives outside the component so that Stop still
    /// reaches a reply that started before the user switched tabs and back.
    static STOP: RefCell<Option<StopHandle>> = const { RefCell::new(None) };
}

/// The message box with Send, Stop and Retry. It is enabled when no demo is loaded and the
/// endpoint settings are complete; a demo plays offline and never sends anything.
#[component]
fn Composer() -> impl IntoView {
    let workbench = expect_context::<RwSignal<Workbench>>();
    let settings = expect_context::<RwSignal<Settings>>();
    let draft = RwSignal::new(String::new());
    let live = Memo::new(move |_| workbench.with(|w| w.demo.is_none()));
    let valid = Memo::new(move |_| settings.with(|s| s.validate().is_ok()));
    let streaming = Memo::new(move |_| workbench.with(|w| w.live.is_streaming()));
    let busy =
        Memo::new(move |_| workbench.with(|w| w.live.is_streaming() || w.live.is_summarising()));
    let can_retry = Memo::new(move |_| {
        workbench.with(|w| w.demo.is_none() && w.live.redo().is_some()) && !busy.get()
    });
    let enabled = move || live.get() && valid.get();

    let send = move || {
        let text = draft.get_untracked();
        let Ok(valid) = settings.with_untracked(Settings::validate) else {
            return;
        };
        let sent = workbench
            .try_update(|w| w.live.send(&text, now_ms(), &COUNTER))
            .and_then(Result::ok);
        if let Some(messages) = sent {
            draft.set(String::new());
            spawn_local(drive(workbench, valid, LiveAction::Reply(messages)));
        }
    };
    let retry = move || {
        let Ok(valid) = settings.with_untracked(Settings::validate) else {
            return;
        };
        let action = workbench.try_update(|w| w.live.retry(&COUNTER));
        // A refused retry leaves its reason in the session's error, which the tab shows.
        if let Some(Ok(action)) = action {
            spawn_local(drive(workbench, valid, action));
        }
    };
    let keydown = move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
        // Enter sends and Shift+Enter makes a new line, as in most chat apps.
        "Enter" if !ev.shift_key() => {
            ev.prevent_default();
            if !streaming.get_untracked() {
                send();
            }
        }
        "Escape" => stop(),
        _ => {}
    };

    view! {
        <form
            class="composer"
            on:submit=move |ev| {
                ev.prevent_default();
                send();
            }
        >
            <textarea
                data-testid="chat-input"
                aria-label="Message"
                rows="2"
                disabled=move || !enabled()
                placeholder=move || {
                    if !live.get() {
                        "Choose \"Choose a demo…\" to leave the demo and chat live."
                    } else if valid.get() {
                        "Message the model. Enter sends, Shift+Enter adds a line, Esc stops."
                    } else {
                        "Connect an endpoint in Settings to chat live."
                    }
                }
                prop:value=move || draft.get()
                on:input=move |ev| draft.set(event_target_value(&ev))
                on:keydown=keydown
            ></textarea>
            <button type="submit" data-testid="send" disabled=move || !enabled() || busy.get()>
                "Send"
            </button>
            {move || {
                streaming
                    .get()
                    .then(|| {
                        view! {
                            <button type="button" data-testid="stop" on:click=move |_| stop()>
                                "Stop"
                            </button>
                        }
                    })
            }}
            {move || {
                can_retry
                    .get()
                    .then(|| {
                        view! {
                            <button type="button" data-testid="retry" on:click=move |_| retry()>
                                "Retry"
                            </button>
                        }
                    })
            }}
            {move || {
                (!enabled())
                    .then(|| {
                        view! {
                            <p class="hint">
                                {if live.get() {
                                    "Connect an endpoint in Settings (base URL and models) to chat live; the demos run offline."
                                } else {
                                    "A demo is loaded and plays offline; unload it to chat live with your endpoint."
                                }}
                            </p>
                        }
                    })
            }}
        </form>
    }
}

fn stop() {
    STOP.with(|slot| {
        if let Some(handle) = slot.borrow().as_ref() {
            handle.stop();
        }
    });
}

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// Performs `action` and what follows from it: the summariser jobs a reply makes due, then the
/// next queued message of a demo run live, until nothing is left or an error waits for Retry.
async fn drive(workbench: RwSignal<Workbench>, valid: ValidSettings, action: LiveAction) {
    let mut action = Some(action);
    while let Some(current) = action.take() {
        match current {
            LiveAction::Reply(messages) => {
                let end = run_reply(workbench, &valid, messages).await;
                let job = workbench
                    .try_update(|w| w.live.finish(end, now_ms(), &COUNTER))
                    .flatten();
                if let Some(job) = job {
                    run_summaries(workbench, &valid, job).await;
                }
            }
            LiveAction::Summary(job) => run_summaries(workbench, &valid, job).await,
        }
        action = workbench
            .try_update(|w| w.live.next_queued(now_ms(), &COUNTER))
            .flatten()
            .map(LiveAction::Reply);
    }
}

/// Asks the chat model for a reply, streaming it into the session when streaming is on.
async fn run_reply(
    workbench: RwSignal<Workbench>,
    valid: &ValidSettings,
    messages: Vec<ChatMessage>,
) -> ReplyEnd {
    let stop = StopHandle::new();
    STOP.with(|slot| *slot.borrow_mut() = Some(stop.clone()));
    let client = Client::new(valid.endpoint.clone());
    let request = valid.chat_request(messages.clone());
    let record = |usage: Option<&Usage>| {
        workbench.update(|w| {
            w.live
                .record_call(CallKind::Chat, &messages, usage, &COUNTER)
        })
    };
    let end = if valid.stream {
        let reply = client
            .stream(&request, &stop, |piece| {
                workbench.update(|w| w.live.delta(piece))
            })
            .await;
        record(reply.usage.as_ref());
        match reply.end {
            StreamEnd::Complete => ReplyEnd::Complete(reply.content),
            StreamEnd::Stopped => ReplyEnd::Stopped(reply.content),
            StreamEnd::Failed(error) => ReplyEnd::Failed {
                partial: reply.content,
                error: error.to_string(),
            },
        }
    } else {
        let reply = client.complete(&request, &stop).await;
        record(reply.as_ref().ok().flatten().and_then(|r| r.usage.as_ref()));
        match reply {
            Ok(Some(reply)) => ReplyEnd::Complete(reply.content),
            Ok(None) => ReplyEnd::Stopped(String::new()),
            Err(error) => ReplyEnd::Failed {
                partial: String::new(),
                error: error.to_string(),
            },
        }
    };
    STOP.with(|slot| *slot.borrow_mut() = None);
    end
}

/// Runs a summariser job through the same endpoint with the summary model, and any job that
/// becomes due right after it (a compression, or a cycle the meantime made due).
async fn run_summaries(workbench: RwSignal<Workbench>, valid: &ValidSettings, job: SummaryJob) {
    let client = Client::new(valid.endpoint.clone());
    let mut next = Some(job);
    while let Some(job) = next.take() {
        let request = valid.summary_request(job.request.clone());
        let reply = client.complete(&request, &StopHandle::new()).await;
        let usage = reply.as_ref().ok().flatten().and_then(|r| r.usage);
        workbench.update(|w| {
            w.live
                .record_call(CallKind::Summary, &job.request, usage.as_ref(), &COUNTER)
        });
        let result = match reply {
            Ok(Some(reply)) => Ok(reply.content),
            Ok(None) => Err("the summary request was stopped".to_owned()),
            Err(error) => Err(error.to_string()),
        };
        next = workbench
            .try_update(|w| {
                w.live
                    .summary_done(job.id, result, &valid.summary_model, now_ms(), &COUNTER)
            })
            .flatten();
    }
}

/// Every live model call: the prompt tokens we counted beside what the API reported.
#[component]
fn CallsView() -> impl IntoView {
    let workbench = expect_context::<RwSignal<Workbench>>();
    let calls = Memo::new(move |_| workbench.with(|w| w.live.calls().to_vec()));
    let shown = |n: Option<u32>| n.map_or_else(|| "—".to_owned(), |n| n.to_string());
    move || {
        let calls = calls.get();
        (!calls.is_empty()).then(|| view! {
            <section class="card calls" aria-label="Model calls">
                <h3>"Model calls"</h3>
                <p class="hint">"Prompt tokens as this page counts them, beside what the API reported."</p>
                <table class="schedule">
                    <thead><tr><th scope="col">"Call"</th><th scope="col">"Ours"</th><th scope="col">"API prompt"</th><th scope="col">"API completion"</th></tr></thead>
                    <tbody>
                        {calls.into_iter().map(|c| view! {
                            <tr data-testid="call-usage" data-kind=c.kind.label()
                                data-client=c.client_prompt_tokens
                                data-api-prompt=shown(c.api_prompt_tokens)
                                data-api-completion=shown(c.api_completion_tokens)>
                                <td>{c.kind.label()}</td>
                                <td>{c.client_prompt_tokens}</td>
                                <td>{shown(c.api_prompt_tokens)}</td>
                                <td>{shown(c.api_completion_tokens)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </section>
        })
    }
}

/// The editable part of the policy: trigger and parameters, preset, placement, format and
/// pinned facts. Every valid change applies to the conversation on screen from its next reply.
#[component]
fn PolicyEditor() -> impl IntoView {
    let workbench = expect_context::<RwSignal<Workbench>>();
    let edit = move |e: PolicyEdit| workbench.update(|w| w.edit_policy(e));
    // A memo, so the number fields are rebuilt only when the kind changes, not on each keystroke.
    let kind = Memo::new(move |_| workbench.with(|w| w.policy.kind));
    let error = Memo::new(move |_| workbench.with(|w| w.policy.error()));
    let fact_error = Memo::new(move |_| workbench.with(|w| w.policy.fact_error.clone()));
    let facts = Memo::new(move |_| workbench.with(|w| w.policy.facts.clone()));
    let preset = Memo::new(move |_| workbench.with(|w| w.policy.preset));
    let presets = Memo::new(move |_| workbench.with(|w| w.policy.presets()));
    let placement = Memo::new(move |_| workbench.with(|w| w.policy.placement));
    let format = Memo::new(move |_| workbench.with(|w| w.policy.format));
    view! {
        <section class="card policy-editor" aria-label="Memory policy" data-testid="policy-editor">
            <h3>"Memory policy"</h3>
            <p class="hint">"Changes apply from the next reply; nothing already summarised changes."</p>
            <form class="policy-form" on:submit=|ev| ev.prevent_default()>
                <label>
                    "Trigger"
                    <select
                        data-testid="policy-trigger"
                        on:change=move |ev| {
                            if let Some(k) = FormKind::from_slug(&event_target_value(&ev)) {
                                edit(PolicyEdit::Kind(k));
                            }
                        }
                    >
                        {FormKind::ALL
                            .into_iter()
                            .map(|k| view! { <option value=k.slug() selected=move || kind.get() == k>{k.label()}</option> })
                            .collect_view()}
                    </select>
                </label>
                {move || {
                    kind.get()
                        .fields()
                        .into_iter()
                        .map(|(param, label)| {
                            view! {
                                <label class="number">
                                    <span>{label}</span>
                                    <input
                                        type="number"
                                        min="0"
                                        data-testid=format!("policy-{param}")
                                        prop:value=move || workbench.with(|w| w.policy.number(param))
                                        on:input=move |ev| edit(PolicyEdit::Number(param, event_target_value(&ev)))
                                    />
                                </label>
                            }
                        })
                        .collect_view()
                }}
                {move || {
                    error
                        .get()
                        .map(|e| view! { <p class="param-error" data-testid="param-error" role="alert">{e}</p> })
                }}
                <label>
                    "Prompt preset"
                    <select
                        data-testid="policy-preset"
                        on:change=move |ev| {
                            if let Some(p) = preset_from_slug(&event_target_value(&ev)) {
                                edit(PolicyEdit::Preset(p));
                            }
                        }
                    >
                        {move || {
                            presets
                                .get()
                                .into_iter()
                                .map(|p| view! { <option value=preset_slug(p) selected=move || preset.get() == p>{p.label()}</option> })
                                .collect_view()
                        }}
                    </select>
                </label>
                <label>
                    "Summary placement"
                    <select
                        data-testid="policy-placement"
                        on:change=move |ev| {
                            if let Some(p) = placement_from_slug(&event_target_value(&ev)) {
                                edit(PolicyEdit::Placement(p));
                            }
                        }
                    >
                        {PLACEMENTS
                            .into_iter()
                            .map(|(p, slug, label)| view! { <option value=slug selected=move || placement.get() == p>{label}</option> })
                            .collect_view()}
                    </select>
                </label>
                <label>
                    "Summary format"
                    <select
                        data-testid="policy-format"
                        on:change=move |ev| {
                            if let Some(f) = format_from_slug(&event_target_value(&ev)) {
                                edit(PolicyEdit::Format(f));
                            }
                        }
                    >
                        {FORMATS
                            .into_iter()
                            .map(|(f, slug, label)| view! { <option value=slug selected=move || format.get() == f>{label}</option> })
                            .collect_view()}
                    </select>
                </label>
            </form>
            <h4>"Pinned facts"</h4>
            <ul class="pinned" data-testid="pinned-facts">
                {move || {
                    facts
                        .get()
                        .into_iter()
                        .enumerate()
                        .map(|(i, fact)| {
                            let source = fact_source(&fact).to_owned();
                            let label = (fact.label != source).then(|| format!("{}: ", fact.label));
                            view! {
                                <li data-testid="pinned-fact" data-fact=source.clone()>
                                    {label}
                                    <code>{source.clone()}</code>
                                    " "
                                    <button
                                        type="button"
                                        class="link"
                                        data-testid="unpin-fact"
                                        aria-label=format!("Unpin {source}")
                                        on:click=move |_| edit(PolicyEdit::RemoveFact(i))
                                    >
                                        "Unpin"
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
            <form
                class="pin-fact"
                on:submit=move |ev| {
                    ev.prevent_default();
                    edit(PolicyEdit::AddFact);
                }
            >
                <input
                    type="text"
                    data-testid="fact-input"
                    aria-label="Word or phrase to pin"
                    placeholder="e.g. 1,20,000"
                    prop:value=move || workbench.with(|w| w.policy.new_fact.clone())
                    on:input=move |ev| edit(PolicyEdit::NewFact(event_target_value(&ev)))
                />
                <button type="submit" data-testid="fact-add">"Pin"</button>
            </form>
            {move || {
                fact_error
                    .get()
                    .map(|e| view! { <p class="error" data-testid="fact-error" role="alert">{e}</p> })
            }}
        </section>
    }
}

/// The rest of the policy, read-only: what the panel above does not edit.
#[component]
fn PolicyView(panel: PolicyPanel) -> impl IntoView {
    view! {
        <section class="card policy" aria-label="Policy" data-testid="policy">
            <h3>"Policy in use"</h3>
            <dl>
                {panel
                    .rows
                    .into_iter()
                    .map(|(label, value)| view! { <dt>{label}</dt> <dd>{value}</dd> })
                    .collect_view()}
                <dt>"The prompt keeps"</dt>
                <dd>{panel.must_keep.join("; ")}</dd>
            </dl>
        </section>
    }
}

/// The last request as a stacked bar, and what a sliding window would have sent instead.
#[component]
pub(crate) fn WindowView(window: ContextWindow) -> impl IntoView {
    let heading = format!(
        "Context window · turn {} · {} tokens{}",
        window.turn,
        window.total,
        if window.summary_sent {
            " · summary sent"
        } else {
            " · no summary"
        },
    );
    let alt = &window.window;
    let alternative = if alt.dropped_to == 0 {
        format!(
            "A sliding window of {} turns would send the same turns ({} tokens) and nothing is dropped yet.",
            alt.size, alt.tokens
        )
    } else {
        format!(
            "A sliding window of {} turns would send the system prompt and {} ({} tokens), and drop {} with nothing in their place.",
            alt.size,
            turns_label(alt.first, alt.last),
            alt.tokens,
            turns_label(1, alt.dropped_to),
        )
    };
    view! {
        <section
            class="card window"
            aria-label="Context window of the last request"
            data-testid="last-request"
            data-turn=window.turn
            data-summary-sent=window.summary_sent.to_string()
        >
            <h3>{heading}</h3>
            <ol class="stack" aria-hidden="true">
                {window
                    .segments
                    .iter()
                    .map(|s| {
                        view! {
                            <li
                                class=format!("seg {}", s.kind.slug())
                                style=format!("flex-grow: {}", s.tokens.max(1))
                                title=format!("{}: {} tokens", s.label, s.tokens)
                            ></li>
                        }
                    })
                    .collect_view()}
            </ol>
            <ul class="stack-key">
                {window
                    .segments
                    .into_iter()
                    .map(|s| {
                        view! {
                            <li class=format!("seg-key {}", s.kind.slug()) data-testid="context-segment" data-kind=s.kind.slug()>
                                {format!("{} · {} tokens ({:.0}%)", s.label, s.tokens, s.percent)}
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
            <p class="alternative">{alternative}</p>
            <table class="fact-compare">
                <thead>
                    <tr>
                        <th scope="col">"Pinned fact"</th>
                        <th scope="col">"In this request"</th>
                        <th scope="col">"In the sliding window"</th>
                    </tr>
                </thead>
                <tbody>
                    {window
                        .facts
                        .into_iter()
                        .map(|(label, here, there)| {
                            view! {
                                <tr>
                                    <th scope="row">{label}</th>
                                    <td>{yes_no(here)}</td>
                                    <td>{yes_no(there)}</td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </section>
    }
}

fn yes_no(present: bool) -> &'static str {
    if present { "yes" } else { "no" }
}
