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
fn RowView(row: MessageRow) -> impl IntoView {
    let role = row.role.as_str();
    let state = row.state.slug();
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
                <span class=format!("marker {state}")>{row.marker()}</span>
            </div>
            <MessageContent role=row.role text=row.content />
        </li>
    }
}
