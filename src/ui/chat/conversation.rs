//! The conversation on screen: the folded archive, the front page, then the verbatim turns.

use leptos::prelude::*;

use crate::app::rows::MessageRow;
use crate::app::workbench::Workbench;
use crate::ui::markdown::MessageContent;
use crate::view::chat::Conversation;
use crate::view::labels::turns_label;

/// The folded archive, the front page, then the verbatim turns: the same layout for a demo and
/// for the live chat.
#[component]
pub(super) fn ConversationView() -> impl IntoView {
    let workbench = expect_context::<RwSignal<Workbench>>();
    let conversation = Memo::new(move |_| workbench.with(Conversation::of));
    let live = Memo::new(move |_| workbench.with(Workbench::is_live));
    let unanswered = Memo::new(move |_| {
        workbench.with(|w| {
            w.is_live()
                .then(|| w.live.unanswered_reasoning().map(str::to_owned))
                .flatten()
        })
    });
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
                                {folded.into_iter().map(|row| view! { <RowView row live=false /> }).collect_view()}
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
                let live = live.get();
                conversation
                    .with(|c| c.verbatim.clone())
                    .into_iter()
                    .map(|row| view! { <RowView row live /> })
                    .collect_view()
            }}
        </ol>
        {move || {
            unanswered
                .get()
                .map(|text| {
                    view! {
                        <details class="reasoning unanswered" data-testid="reasoning">
                            <summary>"The model's reasoning, which ended with no answer (not kept after a reload)"</summary>
                            <p class="reasoning-text">{text}</p>
                        </details>
                    }
                })
        }}
    }
}

/// One message. In the live chat a verbatim message can be left out of the requests (and sent
/// again), and a reply shows the model's reasoning, collapsed, apart from its answer.
#[component]
fn RowView(row: MessageRow, live: bool) -> impl IntoView {
    let workbench = expect_context::<RwSignal<Workbench>>();
    let role = row.role.as_str();
    let state = row.state.slug();
    let (index, excluded) = (row.index, row.excluded);
    let toggle = (live && !row.is_folded() && row.tokens.is_some()).then(|| {
        view! {
            <button
                type="button"
                class="exclude"
                data-testid="exclude-message"
                aria-pressed=if excluded { "true" } else { "false" }
                title="Leave this message out of the requests to the model; the archive and exports keep it"
                on:click=move |_| workbench.update(|w| w.set_excluded(index, !excluded))
            >
                {if excluded { "Send again" } else { "Leave out" }}
            </button>
        }
    });
    view! {
        <li
            class=format!("message {role} {state}{}", if excluded { " excluded" } else { "" })
            data-testid="message"
            data-role=role
            data-state=state
            data-turn=row.turn
            data-excluded=if excluded { "true" } else { "false" }
        >
            <div class="message-meta">
                <span class="role">{row.role_label()}</span>
                <span class="turn">{format!("turn {}", row.turn)}</span>
                {row.tokens.map(|t| view! { <span class="tokens">{format!("{t} tokens")}</span> })}
                <span class=format!("marker {state}")>{row.marker()}</span>
                {excluded.then(|| view! {
                    <span class="marker excluded">"left out of the requests (kept in the archive)"</span>
                })}
                {toggle}
            </div>
            {row.reasoning.map(|text| view! {
                <details class="reasoning" data-testid="reasoning">
                    <summary>"Reasoning (not kept after a reload)"</summary>
                    <p class="reasoning-text">{text}</p>
                </details>
            })}
            <MessageContent role=row.role text=row.content />
        </li>
    }
}
