//! `EditionCardView`: one edition, drawn the same way wherever an edition is drawn, from one
//! [`EditionCard`] in one of its [`EditionLayout`]s: the Editions tab's newspaper (with its
//! checks, topic sections, Restore and Edit), Inspect's archive row, a replay's list item and
//! the Chat tab's front page.

use leptos::prelude::*;

use crate::app::workbench::Workbench;
use crate::engine::drift::{DiffKind, DiffSegment};
use crate::ui::run::clock::now_ms;
use crate::ui::run::token_service::TokenService;
use crate::view::editions::{EditionCard, EditionLayout, diff_class};

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
    view! {
        <div class="edition" role="listitem" data-testid="edition" data-cycle=card.cycle data-overrun=card.overrun.to_string() data-summariser=card.summariser>
            <h5>{format!("Edition {}", card.cycle)}</h5>
            {(!card.written_by.is_empty()).then(|| view! {
                <p class="written-by" data-testid="edition-writer">{card.written_by.clone()}</p>
            })}
            <div class="before"><span class="label">"Before"</span><p data-testid="edition-before">{card.before.clone().unwrap_or_default()}</p></div>
            <div class="folded"><span class="label">{card.folded_label.clone()}</span><pre data-testid="edition-folded">{card.folded_text.clone()}</pre></div>
            <div class="after"><span class="label">"After"</span><p data-testid="edition-after">{card.text.clone()}</p></div>
            {(!card.after.is_empty()).then(|| view! {
                <div class="changes">
                    <span class="label">{format!("Changes: +{} / −{} words", card.added_words, card.removed_words)}</span>
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
    let words = format!(
        "{} words of {}{}",
        card.words,
        card.word_limit,
        if card.overrun {
            " · over the limit"
        } else {
            ""
        },
    );
    let tokens = match &card.compression {
        Some(ratio) => format!("{} → {} tokens · {ratio}", card.tokens_in, card.tokens_out),
        None => format!("{} tokens", card.tokens_out),
    };
    let dateline = format!(
        "Level {} · {} · +{} / −{} words",
        card.level, card.provenance, card.added_words, card.removed_words
    );
    view! {
        <article
            class="edition"
            id=format!("edition-{}", card.cycle)
            data-testid="edition"
            data-cycle=card.cycle
            data-overrun=card.overrun.to_string()
            data-level=card.level
            data-summariser=card.summariser
        >
            <h3 class="headline">{card.headline.clone()}</h3>
            <p class="dateline">{dateline}</p>
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
                    {if card.folded.is_empty() {
                        view! { <p class="none">"No turns: this edition rewrote the summary only."</p> }.into_any()
                    } else {
                        view! {
                            <ol class="folded-turns">
                                {card.folded.iter().map(|(turn, role, text)| view! {
                                    <li>
                                        <span class="role">{format!("Turn {turn} · {role}")}</span>
                                        " "
                                        {text.clone()}
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
            <EditionActions cycle=card.cycle text=card.text.clone() />
            <p class="stats">
                <span data-testid="edition-words" data-words=card.words class:overrun=card.overrun>{words}</span>
                " · "
                <span class="tokens">{tokens}</span>
            </p>
            <ul class="facts" aria-label="Pinned facts in this edition">
                {card.facts.iter().map(|fact| {
                    let text = format!("{}: {}", fact.label, fact.status);
                    view! {
                        // The colour and the words are the verdict's, never the keyword's alone.
                        <li
                            class=format!("fact {}", fact.verdict.slug())
                            data-testid="fact"
                            data-fact=fact.phrase.clone()
                            data-kept=fact.kept.to_string()
                            data-weakened=fact.weakened.to_string()
                            data-verdict=fact.verdict.slug()
                            title=fact.sentence.clone().unwrap_or_default()
                        >
                            {text}
                        </li>
                    }
                }).collect_view()}
            </ul>
            <EditionChecksView card=card.clone() />
            <SectionsView card=card.clone() />
        </article>
    }
}

/// A sectioned edition's topic sections, each with the checks read in its own text, and what
/// the edition lost from a section of the one before. Nothing for a prose edition.
#[component]
fn SectionsView(card: EditionCard) -> impl IntoView {
    (!card.sections.is_empty()).then(|| {
        view! {
            <section class="sections" data-testid="edition-sections" aria-label="Topic sections">
                <h4>{format!("{} topic sections", card.sections.len())}</h4>
                {card.section_losses.iter().map(|n| view! {
                    <p class="note weakened" data-testid="section-loss">{format!("{n}.")}</p>
                }).collect_view()}
                <ol class="section-list">
                    {card.sections.iter().map(|section| {
                        let mut notes = Vec::new();
                        if !section.facts.is_empty() {
                            notes.push(format!("states {}", section.facts.join(", ")));
                        }
                        if !section.unsourced.is_empty() {
                            notes.push(format!("unsourced: {}", section.unsourced.join(", ")));
                        }
                        if !section.weakened.is_empty() {
                            notes.push(format!("{} rule(s) weakened", section.weakened.len()));
                        }
                        view! {
                            <li
                                data-testid="edition-section"
                                data-heading=section.heading.clone()
                                data-unsourced=section.unsourced.len()
                                data-facts=section.facts.join(",")
                            >
                                <strong class="section-heading">{section.heading.clone()}</strong>
                                {format!(" · {} words", section.words)}
                                {(!notes.is_empty()).then(|| format!(" · {}", notes.join(" · ")))}
                                <p class="section-text">{section.text.clone()}</p>
                            </li>
                        }
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
    let unsourced = card.marked.iter().filter(|(_, u)| *u).count();
    let summary = match unsourced {
        0 => "Every figure in this edition is in the archive.".to_owned(),
        1 => "1 figure in this edition is in no archived message (marked).".to_owned(),
        n => format!("{n} figures in this edition are in no archived message (marked)."),
    };
    view! {
        <section class="checks" data-testid="edition-checks" aria-label="Checks on this edition">
            <h4>"Checks"</h4>
            {(!without_text).then(|| view! { <p class="checked-text"><MarkedText marked=card.marked.clone() /></p> })}
            <p class="note">{summary}</p>
            {card.overrun_note.clone().map(|n| view! { <p class="note overrun" data-testid="overrun-note">{format!("Over the limit: {n}.")}</p> })}
            {card.weakened_notes.iter().map(|n| view! { <p class="note weakened" data-testid="weakened-note">{n.clone()}</p> }).collect_view()}
            <table class="survival" data-testid="survival">
                <caption>"What the folded turns said, still held"</caption>
                <thead><tr><th scope="col">"Kind"</th><th scope="col">"Held"</th><th scope="col">"Dropped"</th></tr></thead>
                <tbody>
                    {card.survival.iter().map(|row| view! {
                        <tr data-kind=row.kind>
                            <th scope="row">{row.kind}</th>
                            <td>{format!("{} of {}", row.held, row.total)}</td>
                            <td>{row.missing.join(", ")}</td>
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
fn EditionActions(cycle: u32, text: String) -> impl IntoView {
    let workbench = expect_context::<RwSignal<Workbench>>();
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
            None => error.set(Some("The summary was not saved.".to_owned())),
        }
    };
    view! {
        <div class="edition-actions">
            <button
                type="button"
                data-testid="edition-restore"
                aria-label=format!("Restore edition {cycle} as the current summary")
                on:click=move |_| workbench.update(|w| w.restore(cycle, now_ms(), &counter))
            >
                "Restore"
            </button>
            <button
                type="button"
                data-testid="edition-edit"
                aria-label=format!("Edit edition {cycle}'s summary")
                aria-expanded=move || editing.get().to_string()
                on:click=open
            >
                "Edit"
            </button>
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
                                aria-label=format!("Summary text, starting from edition {cycle}")
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
