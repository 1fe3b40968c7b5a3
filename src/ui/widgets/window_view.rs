//! The context window of a request as a stacked bar, beside what a sliding window would send.
//! Chat draws a demo's last request with it, Inspect any turn of a replay. Its words, classes
//! and styles are [`ContextWindowScreen`]'s.

use leptos::prelude::*;

use crate::view::context_window::{ContextWindow, ContextWindowScreen};

/// The last request as a stacked bar, and what a sliding window would have sent instead.
#[component]
pub(crate) fn WindowView(window: ContextWindow) -> impl IntoView {
    let screen = ContextWindowScreen::of(&window);
    view! {
        <section
            class="card window"
            aria-label="Context window of the last request"
            data-testid="last-request"
            data-turn=screen.turn
            data-summary-sent=screen.summary_sent
        >
            <h3>{screen.heading}</h3>
            <ol class="stack" aria-hidden="true">
                {screen
                    .bar
                    .into_iter()
                    .map(|piece| {
                        view! { <li class=piece.class style=piece.style title=piece.title></li> }
                    })
                    .collect_view()}
            </ol>
            <ul class="stack-key">
                {screen
                    .key
                    .into_iter()
                    .map(|line| {
                        view! {
                            <li class=line.class data-testid="context-segment" data-kind=line.kind>
                                {line.text}
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
            <p class="alternative">{screen.alternative}</p>
            <table class="fact-compare">
                <thead>
                    <tr>
                        <th scope="col">"Pinned fact"</th>
                        <th scope="col">"In this request"</th>
                        <th scope="col">"In the sliding window"</th>
                    </tr>
                </thead>
                <tbody>
                    {screen
                        .facts
                        .into_iter()
                        .map(|row| {
                            view! {
                                <tr>
                                    <th scope="row">{row.label}</th>
                                    <td>{row.here}</td>
                                    <td>{row.there}</td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </section>
    }
}
