//! `EditionCardView`: one edition, drawn the same way wherever an edition is drawn, from one
//! [`EditionCard`] in one of its [`EditionLayout`]s: the Editions tab's newspaper (with its
//! checks, topic sections, Restore, Edit and Continue in a new session), Inspect's archive row, a replay's list item and
//! the Chat tab's front page.

use leptos::prelude::*;

use crate::app::workbench::Workbench;
use crate::engine::drift::{DiffKind, DiffSegment};
use crate::route::Route;
use crate::ui::run::clock::now_ms;
use crate::ui::run::library_sync::{Sessions, continue_edition};
use crate::ui::run::token_service::TokenService;
use crate::view::edition_card::{
    ActionsScreen, CONTINUE, ChecksScreen, EditionCardScreen, NOT_SAVED, SectionsScreen,
};
use crate::view::editions::{EditionCard, EditionLayout, diff_class};

/// Provided by a view whose library session's editions can be continued from (Inspect's
/// Editions): the archive row's "Continue in a new session" calls it with the edition's cycle.
#[derive(Clone, Copy)]
pub struct ContinueEdition(pub Callback<u32>);

/// One edition in `layout`. The newspaper's Restore and Edit act on the app-wide `Workbench`.
#[component]
pub fn EditionCardView(card: EditionCard, layout: EditionLayout) -> impl IntoView {
    match layout {
        EditionLayout::Newspaper => view! { <Newspaper card /> }.into_any(),
        EditionLayout::Archive => view! { <ArchiveRow card /> }.into_any(),
        EditionLayout::Replay => view! { <ReplayItem card /> }.into_any(),
        EditionLayout::FrontPage => view! { <FrontPage card /> }.into_any(),
    }
}

/// The Chat tab's front page: the edition in use, pinned above the verbatim turns.
#[component]
fn FrontPage(card: EditionCard) -> impl IntoView {
    view! {
        <section class="front-page" aria-label="Current summary">
            <h3 class="front-head">{card.headline}</h3>
            <p data-testid="summary" class="summary-text">{card.text}</p>
        </section>
    }
}

/// Inspect's session detail: before, the folded turns and after, with the words against the
/// limit. A row of a virtual list.
#[component]
fn ArchiveRow(card: EditionCard) -> impl IntoView {
    let screen = EditionCardScreen::of(&card);
    view! {
        <div class="edition" role="listitem" data-testid="edition" data-cycle=card.cycle data-overrun=card.overrun.to_string() data-summariser=card.summariser>
            <h5>{screen.title}</h5>
            {card.span.clone().map(|span| view! { <p class="span" data-testid="edition-span">{span}</p> })}
            {use_context::<ContinueEdition>().map(|go| {
                let cycle = card.cycle;
                view! {
                    <button
                        type="button"
                        data-testid="edition-continue"
                        aria-label=screen.actions.continue_from.clone()
                        on:click=move |_| go.0.run(cycle)
                    >
                        {CONTINUE}
                    </button>
                }
            })}
            {(!card.written_by.is_empty()).then(|| view! {
                <p class="written-by" data-testid="edition-writer">{card.written_by.clone()}</p>
            })}
            <div class="before"><span class="label">"Before"</span><p data-testid="edition-before">{card.before.clone().unwrap_or_default()}</p></div>
            <div class="folded"><span class="label">{card.folded_label.clone()}</span><pre data-testid="edition-folded">{card.folded_text.clone()}</pre></div>
            <div class="after"><span class="label">"After"</span><p data-testid="edition-after">{card.text.clone()}</p></div>
            {(!card.after.is_empty()).then(|| view! {
                <div class="changes">
                    <span class="label">{screen.changes.clone()}</span>
                    <p class="diff" data-testid="edition-diff"><DiffText segments=card.after.clone() /></p>
                </div>
            })}
            <p class="words" class:overrun=card.overrun>
                <span data-testid="edition-words">{card.words}</span>{card.limit_label()}
                {card.overrun.then_some(" — over the limit")}
            </p>
            {(!card.marked.is_empty()).then(|| view! { <EditionChecksView card=card.clone() /> })}
        </div>
    }
}

/// An edition's text cut at its figures, the unsourced ones marked.
#[component]
pub fn MarkedText(marked: Vec<(String, bool)>) -> impl IntoView {
    marked
        .into_iter()
        .map(|(text, unsourced)| {
            if unsourced {
                view! {
                    <mark class="unsourced" data-testid="unsourced-figure" title="No archived message holds this figure">{text}</mark>
                }.into_any()
            } else {
                view! { <span>{text}</span> }.into_any()
            }
        })
        .collect_view()
}

/// A word diff's segments: added words in `<ins>`, dropped ones in `<del>`.
#[component]
pub fn DiffText(segments: Vec<DiffSegment>) -> impl IntoView {
    segments
        .into_iter()
        .map(|seg| {
            let class = diff_class(seg.kind);
            match seg.kind {
                DiffKind::Added => view! { <ins class=class>{seg.text}</ins> }.into_any(),
                DiffKind::Removed => view! { <del class=class>{seg.text}</del> }.into_any(),
                DiffKind::Equal => view! { <span class=class>{seg.text}</span> }.into_any(),
            }
        })
        .collect_view()
}

/// A replay's list item: one line (cycle, length, level, who wrote it) and the text.
#[component]
fn ReplayItem(card: EditionCard) -> impl IntoView {
    view! {
        <li data-testid="replay-edition" data-cycle=card.cycle data-level=card.level data-rebuilt=card.rebuilt.to_string()>
            <p class="meta">{card.meta}</p>
            <p>{card.text}</p>
        </li>
    }
}

/// The Editions tab's newspaper edition.
#[component]
fn Newspaper(card: EditionCard) -> impl IntoView {
    let EditionCardScreen {
        anchor,
        dateline,
        words,
        tokens,
        folded,
        facts,
        checks,
        sections,
        actions,
        ..
    } = EditionCardScreen::of(&card);
    view! {
        <article
            class="edition"
            id=anchor
            data-testid="edition"
            data-cycle=card.cycle
            data-overrun=card.overrun.to_string()
            data-level=card.level
            data-summariser=card.summariser
        >
            <h3 class="headline">{card.headline.clone()}</h3>
            <p class="dateline">{dateline}</p>
            {card.span.clone().map(|span| view! { <p class="span" data-testid="edition-span">{span}</p> })}
            <p class="written-by" data-testid="edition-writer">{card.written_by.clone()}</p>
            <div class="edition-columns">
                <section class="column" data-testid="edition-before">
                    <h4>"Yesterday"</h4>
                    {match card.before.clone() {
                        Some(text) => view! { <p>{text}</p> }.into_any(),
                        None => view! { <p class="none">"No summary yet: this is the first edition."</p> }.into_any(),
                    }}
                </section>
                <section class="column" data-testid="edition-folded">
                    <h4>"Folded in"</h4>
                    {if folded.is_empty() {
                        view! { <p class="none">"No turns: this edition rewrote the summary only."</p> }.into_any()
                    } else {
                        view! {
                            <ol class="folded-turns">
                                {folded.into_iter().map(|turn| view! {
                                    <li>
                                        <span class="role">{turn.label}</span>
                                        " "
                                        {turn.text}
                                    </li>
                                }).collect_view()}
                            </ol>
                        }.into_any()
                    }}
                </section>
                <section class="column today" data-testid="edition-after">
                    <h4>"Today"</h4>
                    <p class="diff"><DiffText segments=card.after.clone() /></p>
                </section>
            </div>
            <EditionActions cycle=card.cycle text=card.text.clone() labels=actions />
            <p class="stats">
                <span data-testid="edition-words" data-words=card.words class:overrun=card.overrun>{words}</span>
                " · "
                <span class="tokens">{tokens}</span>
            </p>
            <ul class="facts" aria-label="Pinned facts in this edition">
                {facts.into_iter().map(|fact| view! {
                    // The colour and the words are the verdict's, never the keyword's alone.
                    <li
                        class=fact.class
                        data-testid="fact"
                        data-fact=fact.phrase
                        data-kept=fact.kept.to_string()
                        data-weakened=fact.weakened.to_string()
                        data-verdict=fact.verdict
                        title=fact.title
                    >
                        {fact.text}
                    </li>
                }).collect_view()}
            </ul>
            <Checks checks without_text=false />
            <SectionsView sections />
        </article>
    }
}

/// A sectioned edition's topic sections, each with the checks read in its own text, and what
/// the edition lost from a section of the one before. Nothing for a prose edition.
#[component]
fn SectionsView(sections: Option<SectionsScreen>) -> impl IntoView {
    sections.map(|screen| {
        view! {
            <section class="sections" data-testid="edition-sections" aria-label="Topic sections">
                <h4>{screen.title}</h4>
                {screen.losses.into_iter().map(|loss| view! {
                    <p class="note weakened" data-testid="section-loss">{loss}</p>
                }).collect_view()}
                <ol class="section-list">
                    {screen.sections.into_iter().map(|section| view! {
                        <li
                            data-testid="edition-section"
                            data-heading=section.heading.clone()
                            data-unsourced=section.unsourced
                            data-facts=section.facts
                        >
                            <strong class="section-heading">{section.heading.clone()}</strong>
                            {section.words}
                            {section.notes}
                            <p class="section-text">{section.text}</p>
                        </li>
                    }).collect_view()}
                </ol>
            </section>
        }
    })
}

/// The checks on one edition: its text with unsourced figures marked, the weakened rules, the
/// overrun and survival by kind. `without_text` leaves the marked text to the caller (the A/B
/// card shows it as its summary).
#[component]
pub fn EditionChecksView(card: EditionCard, #[prop(optional)] without_text: bool) -> impl IntoView {
    view! { <Checks checks=ChecksScreen::of(&card) without_text /> }
}

/// The checks as [`ChecksScreen`] words them.
#[component]
fn Checks(checks: ChecksScreen, without_text: bool) -> impl IntoView {
    let ChecksScreen {
        marked,
        summary,
        overrun,
        weakened,
        survival,
    } = checks;
    view! {
        <section class="checks" data-testid="edition-checks" aria-label="Checks on this edition">
            <h4>"Checks"</h4>
            {(!without_text).then(|| view! { <p class="checked-text"><MarkedText marked /></p> })}
            <p class="note">{summary}</p>
            {overrun.map(|n| view! { <p class="note overrun" data-testid="overrun-note">{n}</p> })}
            {weakened.into_iter().map(|n| view! { <p class="note weakened" data-testid="weakened-note">{n}</p> }).collect_view()}
            <table class="survival" data-testid="survival">
                <caption>"What the folded turns said, still held"</caption>
                <thead><tr><th scope="col">"Kind"</th><th scope="col">"Held"</th><th scope="col">"Dropped"</th></tr></thead>
                <tbody>
                    {survival.into_iter().map(|row| view! {
                        <tr data-kind=row.kind>
                            <th scope="row">{row.kind}</th>
                            <td>{row.held}</td>
                            <td>{row.dropped}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}

/// Restore and Edit. Restore makes this edition's text the current summary; Edit opens an
/// editor in place, and Save prints a new edition marked as edited by hand.
#[component]
fn EditionActions(cycle: u32, text: String, labels: ActionsScreen) -> impl IntoView {
    let ActionsScreen {
        restore,
        edit,
        editor,
        continue_from,
    } = labels;
    let workbench = expect_context::<RwSignal<Workbench>>();
    let sessions = use_context::<Sessions>();
    let route = expect_context::<RwSignal<Route>>();
    let counter = TokenService::from_context().counter();
    let editing = RwSignal::new(false);
    let draft = RwSignal::new(text.clone());
    let error = RwSignal::new(None::<String>);
    let open = {
        let text = text.clone();
        move |_| {
            draft.set(text.clone());
            error.set(None);
            editing.set(true);
        }
    };
    let save = move || {
        let text = draft.get_untracked();
        let saved = workbench.try_update(|w| w.edit_summary(&text, now_ms(), &counter));
        match saved {
            Some(Ok(())) => editing.set(false),
            Some(Err(reason)) => error.set(Some(reason.to_string())),
            None => error.set(Some(NOT_SAVED.to_owned())),
        }
    };
    view! {
        <div class="edition-actions">
            <button
                type="button"
                data-testid="edition-restore"
                aria-label=restore
                on:click=move |_| workbench.update(|w| w.restore(cycle, now_ms(), &counter))
            >
                "Restore"
            </button>
            <button
                type="button"
                data-testid="edition-edit"
                aria-label=edit
                aria-expanded=move || editing.get().to_string()
                on:click=open
            >
                "Edit"
            </button>
            {sessions.map(|sessions| view! {
                <button
                    type="button"
                    data-testid="edition-continue"
                    aria-label=continue_from
                    on:click=move |_| continue_edition(sessions, route, None, cycle)
                >
                    {CONTINUE}
                </button>
            })}
        </div>
        {move || {
            editing
                .get()
                .then(|| {
                    view! {
                        <form
                            class="edit-summary"
                            on:submit=move |ev| {
                                ev.prevent_default();
                                save();
                            }
                        >
                            <textarea
                                data-testid="edition-editor"
                                aria-label=editor.clone()
                                rows="5"
                                prop:value=move || draft.get()
                                on:input=move |ev| draft.set(event_target_value(&ev))
                                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                                    if ev.key() == "Escape" {
                                        ev.prevent_default();
                                        editing.set(false);
                                    }
                                }
                            ></textarea>
                            <div class="edition-actions">
                                <button type="submit" data-testid="edition-save">"Save as a new edition"</button>
                                <button type="button" data-testid="edition-cancel" on:click=move |_| editing.set(false)>
                                    "Cancel"
                                </button>
                            </div>
                            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
                        </form>
                    }
                })
        }}
    }
}
