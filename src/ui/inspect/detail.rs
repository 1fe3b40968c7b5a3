//! One session in the Inspect tab, a view at a time: the heading and the view bar from the
//! screen (`view::workspace`), then the view: the archive, the editions with their checks and
//! the pinned and must-keep facts, the probes (`probes.rs`), the replay (`replay.rs`), two
//! summarisers (`ab.rs`) and the export. A view is drawn when first opened and kept while the
//! session stays open, so a run started in one goes on while another is read; each long list
//! is a [`VirtualList`].

use leptos::prelude::*;

use crate::app::library::Entry;
use crate::route::{Route, SessionView};
use crate::ui::run::library_sync::{self as sync, Sessions};
use crate::ui::widgets::edition_card::{ContinueEdition, EditionCardView};
use crate::ui::widgets::virtual_list::VirtualList;
use crate::view::editions::{EditionCard, EditionLayout, edition_checks};
use crate::view::inspect::InspectView;
use crate::view::workspace::{InspectScreen, SessionLink, SessionScreen, view_panel_testid};

/// The open session: its heading, its view bar and its views.
#[component]
pub fn SessionDetail(screen: Memo<InspectScreen>, export_text: RwSignal<String>) -> impl IntoView {
    let Sessions {
        library,
        tab,
        tokens,
        ..
    } = expect_context::<Sessions>();
    let route = expect_context::<RwSignal<Route>>();
    let shown = Memo::new(move |_| match screen.get() {
        InspectScreen::Session(s) => Some(s),
        _ => None,
    });
    let view = Memo::new(move |_| route.with(Route::session_view));
    // The views opened so far: each is drawn when first opened, then kept (hidden when another
    // is shown), so its state and any run it started outlive a look at another view.
    let visited = Memo::new(move |before: Option<&Vec<SessionView>>| {
        let mut visited = before.cloned().unwrap_or_default();
        let now = view.get();
        if !visited.contains(&now) {
            visited.push(now);
        }
        visited
    });
    let selected = Memo::new(move |_| tab.with(|t| t.selected().map(str::to_owned)));
    provide_context(crate::ui::run::probe_runner::ProbeRunner::owned());
    let entry = Memo::new(move |_| {
        selected
            .get()
            .and_then(|id| library.with(|l| l.get(&id).cloned()))
    });
    view! {
        <article class="session" data-testid="session-detail">
            <super::AllSessions />
            {move || shown.get().map(|s| view! { <Heading screen=s /> })}
            {move || {
                // Reading the generation recounts the session when a vocabulary arrives.
                tokens.generation();
                entry.get().map(|entry| {
                    let inspect = InspectView::new(&entry.session, &tokens.counter());
                    view! { <Views entry inspect view visited shown export_text /> }
                })
            }}
        </article>
    }
}

/// The session's name, what it holds, and the view bar.
#[component]
fn Heading(screen: SessionScreen) -> impl IntoView {
    let route = expect_context::<RwSignal<Route>>();
    view! {
        <h3 data-testid="session-title">{screen.name.clone()}</h3>
        <p class="hint session-facts">{screen.facts.clone()}</p>
        {screen.continued_from.clone().map(|link| {
            let edition = link.edition;
            view! {
            <p class="hint continued" data-testid="continued-from" data-edition=edition>
                <SessionLinkView link />
            </p>
        }})}
        {(!screen.continued_in.is_empty()).then(|| view! {
            <ul class="hint continued" aria-label="Continued in">
                {screen.continued_in.clone().into_iter().map(|link| {
                    let edition = link.edition;
                    view! { <li data-testid="continued-in" data-edition=edition><SessionLinkView link /></li> }
                }).collect_view()}
            </ul>
        })}
        <div class="session-views" role="tablist" aria-label="Views of this session" data-testid="session-views">
            {screen.views.into_iter().map(|tab| {
                let v = tab.view;
                view! {
                    <button
                        role="tab"
                        data-testid=tab.testid
                        aria-selected=tab.selected.to_string()
                        class:active=tab.selected
                        on:click=move |_| route.update(|r| r.show_view(v))
                    >
                        {tab.label}
                    </button>
                }
            }).collect_view()}
        </div>
    }
}

/// A link between a continued session and its source: a button that opens the other session,
/// or the words alone when this library does not hold it.
#[component]
fn SessionLinkView(link: SessionLink) -> impl IntoView {
    let tab = expect_context::<Sessions>().tab;
    match link.open {
        Some(id) => view! {
            <button type="button" class="link" data-id=id.clone() on:click=move |_| tab.update(|t| t.open(id.clone()))>
                {link.text}
            </button>
        }
        .into_any(),
        None => view! { <span>{link.text}</span> }.into_any(),
    }
}

/// Every view opened so far, the selected one shown.
#[component]
fn Views(
    entry: Entry,
    inspect: InspectView,
    view: Memo<SessionView>,
    visited: Memo<Vec<SessionView>>,
    shown: Memo<Option<SessionScreen>>,
    export_text: RwSignal<String>,
) -> impl IntoView {
    let entry = StoredValue::new(entry);
    let inspect = StoredValue::new(inspect);
    SessionView::ALL
        .into_iter()
        .map(|v| {
            let mounted = Memo::new(move |_| visited.with(|seen| seen.contains(&v)));
            move || {
                mounted.get().then(|| {
                    let content = match v {
                        SessionView::Archive => view! { <Archive inspect=inspect.get_value() shown /> }.into_any(),
                        SessionView::Editions => view! { <Editions entry=entry.get_value() inspect=inspect.get_value() shown /> }.into_any(),
                        SessionView::Probes => {
                            let Entry { id, session, .. } = entry.get_value();
                            view! { <super::probes::Probes id session /> }.into_any()
                        }
                        SessionView::Replay => view! {
                            <super::replay::Replay view=inspect.get_value() session=entry.get_value().session />
                        }.into_any(),
                        SessionView::Ab => view! { <super::ab::AbSection session=entry.get_value().session /> }.into_any(),
                        SessionView::Export => view! { <Export export_text /> }.into_any(),
                    };
                    view! {
                        <div
                            class="session-view"
                            role="tabpanel"
                            data-testid=view_panel_testid(v)
                            hidden=move || view.get() != v
                        >
                            {content}
                        </div>
                    }
                })
            }
        })
        .collect_view()
}

/// The archive: the system prompt, when there is one, and every message.
#[component]
fn Archive(inspect: InspectView, shown: Memo<Option<SessionScreen>>) -> impl IntoView {
    let messages = inspect.messages.len();
    let shown_rows = StoredValue::new(inspect);
    let prompt = move || shown.with(|s| s.as_ref().and_then(|s| s.system_prompt.clone()));
    view! {
        {move || prompt().map(|prompt| view! {
            <p class="system"><strong>"System prompt: "</strong>{prompt}</p>
        })}
        <VirtualList count=messages estimate=64 class="archive" label="Archive" row=move |i| {
            let m = shown_rows.with_value(|v| v.messages[i].clone());
            let meta = m.meta();
            let calls = m.calls.clone();
            view! {
                <div class=m.class() class:tool-traffic=m.tool_marker().is_some() role="listitem" data-testid="message" data-role=m.role.as_str() data-state=m.state.slug() data-turn=m.turn data-tool-call=m.tool_marker() data-estimate=m.estimate.then_some("true")>
                    <span class="meta">{meta}</span>
                    {(!m.content.is_empty()).then(|| view! { <p>{m.content.clone()}</p> })}
                    {calls.into_iter().map(|c| view! { <p class="tool-call" data-testid="tool-call"><span class="label">"calls "</span><code>{c}</code></p> }).collect_view()}
                </div>
            }
        } />
    }
}

/// The editions with their checks, and the pinned and must-keep facts of the latest one; what
/// the view needs when the session has none.
#[component]
fn Editions(
    entry: Entry,
    inspect: InspectView,
    shown: Memo<Option<SessionScreen>>,
) -> impl IntoView {
    let facts = inspect.facts.clone();
    let session = entry.session;
    let editions = inspect.editions.len();
    // The checks of every edition, computed once: each row marks its unsourced figures and
    // shows what its folded turns said that it still holds.
    let checks = StoredValue::new(edition_checks(&session.memory, &session.pinned));
    // Rows are drawn from here as they scroll into view, never all at once.
    let rows = StoredValue::new(inspect);
    let needs = move || shown.with(|s| s.as_ref().and_then(|s| s.needs));
    // Each edition's "Continue in a new session" starts a live chat from it.
    let sessions = expect_context::<Sessions>();
    let route = expect_context::<RwSignal<Route>>();
    let id = entry.id;
    provide_context(ContinueEdition(Callback::new(move |cycle| {
        sync::continue_edition(sessions, route, Some(id.clone()), cycle)
    })));
    view! {
        {move || needs().map(|needs| view! { <p class="empty" data-testid="view-needs">{needs}</p> })}
        {(!facts.is_empty()).then(|| view! {
            <section class="facts">
                <h4>"Must-keep and pinned facts in the latest edition"</h4>
                {facts.into_iter().map(|f| view! {
                    <span class="fact" class:lost=!f.kept data-testid="fact" data-fact=f.phrase.clone() data-kept=f.kept.to_string() data-verdict=f.verdict.slug()>
                        {f.mark()}{f.phrase.clone()}{f.lost_note()}
                    </span>
                }).collect_view()}
            </section>
        })}
        {(editions > 0).then(|| view! {
            <VirtualList count=editions estimate=220 class="editions" label="Editions" row=move |i| {
                let card = rows.with_value(|v| EditionCard::of_archive(&v.editions[i]));
                let card = checks.with_value(|c| card.with_checks(&c[i])).with_diff();
                view! { <EditionCardView card layout=EditionLayout::Archive /> }
            } />
        })}
    }
}

/// The session as a file, and where its policy is exported as code.
#[component]
fn Export(export_text: RwSignal<String>) -> impl IntoView {
    let sessions = expect_context::<Sessions>();
    let route = expect_context::<RwSignal<Route>>();
    view! {
        <p class="hint">
            "The session as a file: every message, every edition and its checks, the policy, the pinned facts and the probes, never your API key. Inspect opens it in any browser."
        </p>
        <p>
            <button data-testid="export" on:click=move |_| export_text.set(sync::export(sessions))>
                "Export this session"
            </button>
        </p>
        <p class="hint">
            "Its policy as code for another library: "
            <button class="link" on:click=move |_| route.update(|r| r.show_view(SessionView::Replay))>
                "open Replay"
            </button>
            ", whose form starts from this session's policy, and press Export policy."
        </p>
    }
}
