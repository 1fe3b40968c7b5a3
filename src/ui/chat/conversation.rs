//! The conversation on screen: the folded archive, the front page, then the verbatim turns.

use leptos::prelude::*;

use crate::app::rows::{MessageRow, RowState};
use crate::app::workbench::Workbench;
use crate::ui::run::streamed::Streamed;
use crate::ui::widgets::edition_card::EditionCardView;
use crate::ui::widgets::markdown::MessageContent;
use crate::ui::widgets::virtual_list::VirtualList;
use crate::view::chat::Conversation;
use crate::view::chat::message::{MessageLine, announcement, archive_heading, streamed_tokens};
use crate::view::editions::{EditionCard, EditionLayout};

/// The folded archive, the front page, then the verbatim turns: the same layout for a demo and
/// for the live chat. Both lists are virtualised ([`VirtualList`]): a chat of 2,000 turns keeps
/// only the rows in view (and a few dozen either side) in the page. The verbatim list follows
/// its bottom, so the newest message, and a reply as it arrives, stays in view.
#[component]
pub(super) fn ConversationView() -> impl IntoView {
    let workbench = expect_context::<RwSignal<Workbench>>();
    let streamed = Streamed::from_context();
    let conversation = Memo::new(move |_| workbench.with(Conversation::of));
    let live = Memo::new(move |_| workbench.with(Workbench::is_live));
    let unanswered = Memo::new(move |_| {
        workbench.with(|w| {
            w.is_live()
                .then(|| w.live.unanswered_reasoning().map(str::to_owned))
                .flatten()
        })
    });
    let folded = Memo::new(move |_| conversation.with(|c| c.folded.len()));
    let verbatim = Memo::new(move |_| conversation.with(|c| c.verbatim.len()));
    // The newest message once it is whole, said to a screen reader (the list itself is not a
    // live region: rows enter it as the reader scrolls).
    let newest = Memo::new(move |_| {
        conversation.with(|c| {
            c.verbatim
                .last()
                .filter(|r| r.state != RowState::Streaming)
                .map(announcement)
        })
    });
    // Each streamed piece, and each change of the rows (a reply archived in place of the one
    // arriving), for the list to measure again and follow.
    let follow = Signal::derive(move || {
        conversation.track();
        streamed.map_or(0, Streamed::pieces)
    });
    view! {
        {move || {
            (folded.get() > 0)
                .then(|| {
                    view! {
                        // Open by default so the folded turns can be read against the summary;
                        // on a phone the reader can collapse them to reach the front page.
                        <details class="archive" open=true>
                            <summary class="section-label">
                                {move || archive_heading(folded.get())}
                            </summary>
                            <VirtualList
                                count=folded
                                estimate=ROW_ESTIMATE
                                overscan=OVERSCAN
                                class="messages chat-archive"
                                label="Messages folded into the summary"
                                row=move |i| {
                                    let row = Memo::new(move |_| conversation.with(|c| c.folded.get(i).cloned()));
                                    move || row.get().map(|row| view! { <RowView row live=false /> })
                                }
                            />
                        </details>
                    }
                })
        }}
        {move || {
            conversation
                .with(|c| c.front_page.clone())
                .map(|page| {
                    let card = EditionCard::of_front_page(&page);
                    view! { <EditionCardView card layout=EditionLayout::FrontPage /> }
                })
        }}
        <VirtualList
            count=verbatim
            estimate=ROW_ESTIMATE
            overscan=OVERSCAN
            class="messages verbatim"
            label="Verbatim turns"
            follow
            row=move |i| {
                let row = Memo::new(move |_| conversation.with(|c| c.verbatim.get(i).cloned()));
                move || {
                    let live = live.get();
                    row.get().map(|row| view! { <RowView row live /> })
                }
            }
        />
        <p class="sr-only" aria-live="polite">{move || newest.get().unwrap_or_default()}</p>
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

/// Height assumed for a message until it has been shown and measured, in CSS pixels.
const ROW_ESTIMATE: u32 = 96;

/// Messages kept in the page beyond each edge of the scroll box: enough that a short chat (a
/// demo's dozen messages) is in the page whole, few enough that a long one is a window.
const OVERSCAN: usize = 20;

/// One message. In the live chat a verbatim message can be left out of the requests (and sent
/// again), and a reply shows the model's reasoning, collapsed, apart from its answer.
#[component]
fn RowView(row: MessageRow, live: bool) -> impl IntoView {
    let workbench = expect_context::<RwSignal<Workbench>>();
    let role = row.role.as_str();
    let state = row.state.slug();
    let line = MessageLine::of(&row);
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
    // The reply arriving is read from the live chat itself at each streamed piece (and its
    // count so far, counted as it grows); the row the conversation holds for it is as it was
    // when the reply started.
    let streamed = (row.state == RowState::Streaming)
        .then(Streamed::from_context)
        .flatten();
    let message_role = row.role;
    let (content, streamed_tokens) = match streamed {
        Some(streamed) => {
            let text = move || {
                streamed.track();
                let text = workbench
                    .with_untracked(|w| w.live.streaming_text().unwrap_or_default().to_owned());
                view! { <MessageContent role=message_role text /> }
            };
            let tokens = move || {
                streamed.track();
                workbench.with_untracked(|w| w.live.streamed_tokens()).map(|t| {
                    view! { <span class="tokens" data-testid="streamed-tokens">{streamed_tokens(t)}</span> }
                })
            };
            (text.into_any(), Some(tokens))
        }
        None => (
            view! { <MessageContent role=message_role text=row.content.clone() /> }.into_any(),
            None,
        ),
    };
    view! {
        <div
            role="listitem"
            class=line.class
            data-testid="message"
            data-role=role
            data-state=state
            data-turn=row.turn
            data-excluded=if excluded { "true" } else { "false" }
        >
            <div class="message-meta">
                <span class="role">{row.role_label()}</span>
                <span class="turn">{line.turn}</span>
                {line.tokens.map(|t| view! { <span class="tokens">{t}</span> })}
                {streamed_tokens}
                <span class=line.marker_class>{row.marker()}</span>
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
            {content}
        </div>
    }
}
