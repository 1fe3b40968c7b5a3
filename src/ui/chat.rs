//! The Chat tab: a demo picker with Step / Play all / Reset, the conversation with the summary
//! pinned as its front page, the policy, and the context window of the last request.
//!
//! Live mode (sending to an endpoint) is not built yet. Its seam is the core: a live session
//! sends `DemoPlayer::last_request` to the chat model where a demo reads its scripted reply, and
//! `DemoPlayer::pending_job` to the summariser where a demo runs the extractive summariser.

use leptos::prelude::*;

use crate::engine::message::WordCounter;
use crate::route::{DemoKind, Route};
use crate::view::chat::{
    ContextWindow, FrontPage, MessageRow, PolicyPanel, context_window, front_page, message_rows,
    policy_panel, progress, script_for, turns_label,
};

/// Token counts use one token per word until the tiktoken counter is wired into the shell; the
/// engine caches whatever this counter says in each message.
pub(super) const COUNTER: WordCounter = WordCounter;

/// The demos the picker offers, in order.
const DEMOS: [DemoKind; 2] = [DemoKind::FinCoach, DemoKind::Drift];

#[component]
pub fn ChatTab() -> impl IntoView {
    let route = expect_context::<RwSignal<Route>>();
    let workbench = expect_context::<RwSignal<crate::view::chat::Workbench>>();

    let kind = Memo::new(move |_| workbench.with(|w| w.demo_kind()));
    let rows = Memo::new(move |_| {
        workbench.with(|w| w.demo.as_ref().map(message_rows).unwrap_or_default())
    });
    let page = Memo::new(move |_| workbench.with(|w| w.demo.as_ref().and_then(front_page)));
    let window = Memo::new(move |_| workbench.with(|w| w.demo.as_ref().and_then(context_window)));
    let status = Memo::new(move |_| workbench.with(|w| w.demo.as_ref().map(progress)));
    let panel =
        Memo::new(move |_| workbench.with(|w| w.demo.as_ref().map(|p| policy_panel(p.script()))));
    let error = Memo::new(move |_| workbench.with(|w| w.error.clone()));
    let done = Memo::new(move |_| status.with(|s| s.as_ref().is_none_or(|s| s.done)));

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
                                "The summaries come from the built-in extractive summariser, so nothing is sent anywhere."
                            </p>
                        }
                    })
            }}
            <div class="chat-layout">
                <div class="conversation">
                    <Messages rows page />
                    <Composer />
                </div>
                <aside class="side">
                    {move || panel.get().map(|p| view! { <PolicyView panel=p /> })}
                    {move || window.get().map(|w| view! { <WindowView window=w /> })}
                </aside>
            </div>
        </section>
    }
}

/// The folded archive, the front page, then the verbatim turns.
#[component]
fn Messages(rows: Memo<Vec<MessageRow>>, page: Memo<Option<FrontPage>>) -> impl IntoView {
    let folded = move || {
        rows.with(|rows| {
            rows.iter()
                .filter(|r| r.state_slug() == "folded")
                .cloned()
                .collect::<Vec<_>>()
        })
    };
    let verbatim = move || {
        rows.with(|rows| {
            rows.iter()
                .filter(|r| r.state_slug() == "verbatim")
                .cloned()
                .collect::<Vec<_>>()
        })
    };
    view! {
        {move || {
            let folded = folded();
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
                                {folded.into_iter().map(|row| view! { <MessageView row /> }).collect_view()}
                            </ol>
                        </details>
                    }
                })
        }}
        {move || {
            page.get()
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
        <ol class="messages verbatim" aria-label="Verbatim turns">
            {move || verbatim().into_iter().map(|row| view! { <MessageView row /> }).collect_view()}
        </ol>
    }
}

#[component]
fn MessageView(row: MessageRow) -> impl IntoView {
    let role = row.role.as_str();
    view! {
        <li
            class=format!("message {} {}", role, row.state_slug())
            data-testid="message"
            data-role=role
            data-state=row.state_slug()
            data-turn=row.turn
        >
            <div class="message-meta">
                <span class="role">{row.role_label()}</span>
                <span class="turn">{format!("turn {}", row.turn)}</span>
                <span class="tokens">{format!("{} tokens", row.tokens)}</span>
                <span class=format!("marker {}", row.state_slug())>{row.marker()}</span>
            </div>
            <p class="content">{row.content.clone()}</p>
        </li>
    }
}

/// The message box. Live chat needs an endpoint, which the Settings tab will provide; until then
/// the controls are shown but disabled, and no reply is ever faked.
#[component]
fn Composer() -> impl IntoView {
    view! {
        <form class="composer" on:submit=|ev| ev.prevent_default()>
            <textarea
                data-testid="chat-input"
                aria-label="Message"
                rows="2"
                disabled=true
                placeholder="Connect an endpoint in Settings to chat live."
            ></textarea>
            <button type="submit" data-testid="send" disabled=true>
                "Send"
            </button>
            <p class="hint">"Connect an endpoint in Settings to chat live; the demos run offline."</p>
        </form>
    }
}

#[component]
fn PolicyView(panel: PolicyPanel) -> impl IntoView {
    view! {
        <section class="card policy" aria-label="Policy" data-testid="policy">
            <h3>"Policy"</h3>
            <dl>
                {panel
                    .rows
                    .into_iter()
                    .map(|(label, value)| view! { <dt>{label}</dt> <dd>{value}</dd> })
                    .collect_view()}
                <dt>"Pinned facts"</dt>
                <dd>
                    <ul class="pinned">
                        {panel
                            .pinned
                            .into_iter()
                            .map(|(label, source)| view! { <li>{label} ": " <code>{source}</code></li> })
                            .collect_view()}
                    </ul>
                </dd>
                <dt>"The prompt keeps"</dt>
                <dd>{panel.must_keep.join("; ")}</dd>
            </dl>
        </section>
    }
}

/// The last request as a stacked bar, and what a sliding window would have sent instead.
#[component]
fn WindowView(window: ContextWindow) -> impl IntoView {
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
