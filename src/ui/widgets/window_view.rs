//! The context window of a request as a stacked bar, beside what a sliding window would send.
//! Chat draws a demo's last request with it, Inspect any turn of a replay.

use leptos::prelude::*;

use crate::view::context_window::ContextWindow;
use crate::view::labels::{turn_count, turns_label};

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
            "A sliding window of {} would send the same turns ({} tokens) and nothing is dropped yet.",
            turn_count(alt.size),
            alt.tokens
        )
    } else {
        format!(
            "A sliding window of {} would send the system prompt and {} ({} tokens), and drop {} with nothing in their place.",
            turn_count(alt.size),
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
