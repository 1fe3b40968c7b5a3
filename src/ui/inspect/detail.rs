//! One session in the Inspect tab, read-only: its system prompt, the pinned and must-keep facts
//! of the latest edition, every edition, the replay (`replay.rs`) and the archive, each long
//! list a [`VirtualList`].

use leptos::prelude::*;

use crate::app::library::Entry;
use crate::engine::drift::FactVerdict;
use crate::ui::run::library_sync::Sessions;
use crate::ui::widgets::edition_card::EditionCardView;
use crate::ui::widgets::virtual_list::VirtualList;
use crate::view::editions::{EditionCard, EditionLayout, edition_checks};
use crate::view::inspect::InspectView;

/// The open session, read-only.
#[component]
pub fn SessionDetail() -> impl IntoView {
    let Sessions {
        library,
        tab,
        tokens,
        ..
    } = expect_context::<Sessions>();
    let selected = Memo::new(move |_| tab.with(|t| t.selected().map(str::to_owned)));
    provide_context(crate::ui::run::probe_runner::ProbeRunner::owned());
    let entry = Memo::new(move |_| {
        selected
            .get()
            .and_then(|id| library.with(|l| l.get(&id).cloned()))
    });
    move || {
        // Reading the generation recounts the session when a vocabulary arrives.
        tokens.generation();
        entry.get().map(|entry| {
            let view = InspectView::new(&entry.session, &tokens.counter());
            view! { <Detail entry view /> }
        })
    }
}

#[component]
fn Detail(entry: Entry, view: InspectView) -> impl IntoView {
    let facts = view.facts.clone();
    let replay_view = view.clone();
    let session = entry.session.clone();
    let (editions, messages) = (view.editions.len(), view.messages.len());
    // The checks of every edition, computed once: each row marks its unsourced figures and
    // shows what its folded turns said that it still holds.
    let checks = StoredValue::new(edition_checks(&session.memory, &session.pinned));
    // Rows are drawn from here as they scroll into view, never all at once.
    let shown = StoredValue::new(view.clone());
    view! {
        <article class="session" data-testid="session-detail">
            <h3>{view.name.clone()}</h3>
            <p class="system">
                <strong>"System prompt: "</strong>{view.system_prompt.clone()}
            </p>
            {(!facts.is_empty()).then(|| view! {
                <section class="facts">
                    <h4>"Must-keep and pinned facts in the latest edition"</h4>
                    {facts.into_iter().map(|f| {
                        // A summary that states the opposite is said so, before where it was lost.
                        let lost = if f.verdict == FactVerdict::Contradicted {
                            " (the latest edition states the opposite)".to_owned()
                        } else {
                            f.first_lost.map(|c| format!(" (first lost in edition {c})")).unwrap_or_default()
                        };
                        view! {
                            <span class="fact" class:lost=!f.kept data-testid="fact" data-fact=f.phrase.clone() data-kept=f.kept.to_string() data-verdict=f.verdict.slug()>
                                {if f.kept { "✓ " } else { "✗ " }}{f.phrase.clone()}{lost}
                            </span>
                        }
                    }).collect_view()}
                </section>
            })}
            <h4>{format!("Editions ({})", editions)}</h4>
            <VirtualList count=editions estimate=220 class="editions" label="Editions" row=move |i| {
                let card = shown.with_value(|v| EditionCard::of_archive(&v.editions[i]));
                let card = checks.with_value(|c| card.with_checks(&c[i])).with_diff();
                view! { <EditionCardView card layout=EditionLayout::Archive /> }
            } />
            <super::probes::Probes id=entry.id.clone() session=session.clone() />
            <super::replay::Replay view=replay_view session=session.clone() />
            <super::ab::AbSection session />
            <h4>{format!("Archive ({} turns)", view.turns)}</h4>
            <VirtualList count=messages estimate=64 class="archive" label="Archive" row=move |i| {
                let m = shown.with_value(|v| v.messages[i].clone());
                let meta = m.meta();
                let calls = m.calls.clone();
                view! {
                    <div class=format!("message {}", m.role.as_str()) class:tool-traffic=m.tool_marker().is_some() role="listitem" data-testid="message" data-role=m.role.as_str() data-state=m.state.slug() data-turn=m.turn data-tool-call=m.tool_marker() data-estimate=m.estimate.then_some("true")>
                        <span class="meta">{meta}</span>
                        {(!m.content.is_empty()).then(|| view! { <p>{m.content.clone()}</p> })}
                        {calls.into_iter().map(|c| view! { <p class="tool-call" data-testid="tool-call"><span class="label">"calls "</span><code>{c}</code></p> }).collect_view()}
                    </div>
                }
            } />
        </article>
    }
}
