//! The Editions tab: each summary cycle as a newspaper edition, with a timeline to jump between
//! them and a table of which pinned facts each edition still states.

use leptos::prelude::*;

use super::clock::now_ms;
use super::tokens::TokenService;
use crate::app::workbench::Workbench;
use crate::engine::drift::DiffKind;
use crate::view::editions::{
    EditionCard, SnowballBar, cards_on_screen, diff_class, fact_table, snowball_bars,
};
use crate::view::timeline::{Mark, Rewrite, Timeline};

/// Milliseconds between two steps of the rewrite animation.
const STEP_MS: u32 = 90;

#[component]
pub fn EditionsTab() -> impl IntoView {
    let workbench = expect_context::<RwSignal<Workbench>>();
    let counter = TokenService::from_context().counter();
    // What the cards depend on, cheap to compare on every streamed piece of a live reply: the
    // cards themselves (word diffs of every edition) are rebuilt only when it changes.
    let printed = Memo::new(move |_| workbench.with(Workbench::editions_shape));
    let cards = Memo::new(move |_| printed.with(|_| workbench.with_untracked(cards_on_screen)));
    let title = Memo::new(move |_| workbench.with(|w| w.demo().map(|p| p.script().title)));
    let unfinished = Memo::new(move |_| workbench.with(|w| w.demo().is_some_and(|p| !p.is_done())));
    let budget = Memo::new(move |_| workbench.with(|w| w.current_policy().summary_budget));

    view! {
        <section class="panel editions" data-testid="panel-editions">
            <h2>"Editions"</h2>
            <p class="hint">
                "Every summary cycle rewrites yesterday's paragraph with the turns folded in. "
                "Read the diff to see what each edition added and dropped."
            </p>
            {move || {
                let empty = cards.with(Vec::is_empty);
                match (title.get(), empty) {
                    (None, true) => Some(view! {
                        <p class="empty">"No editions yet. Chat live until a summary cycle runs, or pick a demo in the Chat tab and play it."</p>
                    }.into_any()),
                    (None, false) => None,
                    (Some(title), true) => Some(view! {
                        <p class="empty">{format!("{title}: no edition printed yet. Step or play the demo.")}</p>
                    }.into_any()),
                    (Some(_), false) => None,
                }
            }}
            {move || {
                unfinished
                    .get()
                    .then(|| {
                        view! {
                            <button
                                type="button"
                                data-testid="play-all-editions"
                                on:click=move |_| workbench.update(|w| w.play_all(&counter))
                            >
                                "Play the rest of the demo"
                            </button>
                        }
                    })
            }}
            {move || {
                let cards = cards.get();
                let bars = snowball_bars(&cards, budget.get());
                (!cards.is_empty()).then(|| view! { <Timeline cards bars /> })
            }}
        </section>
    }
}

/// The stepper, the fact table and the editions themselves.
#[component]
fn Timeline(cards: Vec<EditionCard>, bars: Vec<SnowballBar>) -> impl IntoView {
    let facts = fact_table(&cards);
    view! {
        <Rewriter cards=cards.clone() />
        <nav class="timeline" aria-label="Jump to an edition">
            <ol>
                {cards
                    .iter()
                    .map(|c| {
                        view! {
                            <li class:overrun=c.overrun data-overrun=c.overrun.to_string()>
                                <a href=format!("#edition-{}", c.cycle)>{c.headline.clone()}</a>
                                {c.overrun.then(|| view! { <span class="overrun-mark">" · over the word limit"</span> })}
                            </li>
                        }
                    })
                    .collect_view()}
            </ol>
        </nav>
        {(!facts.is_empty()).then(|| view! {
            <div class="table-wrap">
                <table class="fact-track">
                    <caption>"Pinned facts, edition by edition"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Fact"</th>
                            {cards.iter().map(|c| view! { <th scope="col">{format!("Ed. {}", c.cycle)}</th> }).collect_view()}
                        </tr>
                    </thead>
                    <tbody>
                        {facts.into_iter().map(|row| view! {
                            <tr>
                                <th scope="row">{row.label}</th>
                                {row.cells.into_iter().map(|(kept, status)| view! {
                                    <td class:kept=kept class:lost=!kept>{status}</td>
                                }).collect_view()}
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        })}
        <SnowballChart bars />
        {cards.into_iter().map(|card| view! { <EditionView card /> }).collect_view()}
    }
}

/// The snowball guard: the summary's tokens per cycle as a row of bars, with its warnings.
#[component]
fn SnowballChart(bars: Vec<SnowballBar>) -> impl IntoView {
    let warnings: Vec<String> = bars
        .iter()
        .flat_map(|b| {
            b.warnings
                .iter()
                .map(move |w| format!("Edition {}: {w}", b.cycle))
        })
        .collect();
    view! {
        <section class="snowball card" data-testid="snowball" aria-label="Summary tokens per cycle">
            <h3>"Summary tokens per cycle"</h3>
            <ol class="snowball-bars">
                {bars.into_iter().map(|b| view! {
                    <li data-testid="snowball-bar" data-cycle=b.cycle data-tokens=b.tokens class:warn=!b.warnings.is_empty()>
                        <span class="label">{format!("Ed. {}", b.cycle)}</span>
                        <span class="bar" style=format!("width: {}%", b.percent.max(2))></span>
                        <span class="value">{format!("{} tokens", b.tokens)}</span>
                    </li>
                }).collect_view()}
            </ol>
            {warnings.into_iter().map(|w| view! {
                <p class="warning" data-testid="snowball-warning">{format!("Snowball: {w}.")}</p>
            }).collect_view()}
        </section>
    }
}

#[component]
fn EditionView(card: EditionCard) -> impl IntoView {
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
                    <p class="diff">
                        {card.after.iter().map(|seg| {
                            let class = diff_class(seg.kind);
                            let text = seg.text.clone();
                            match seg.kind {
                                DiffKind::Added => view! { <ins class=class>{text}</ins> }.into_any(),
                                DiffKind::Removed => view! { <del class=class>{text}</del> }.into_any(),
                                DiffKind::Equal => view! { <span class=class>{text}</span> }.into_any(),
                            }
                        }).collect_view()}
                    </p>
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
                        <li
                            class="fact"
                            class:kept=fact.kept
                            class:lost=!fact.kept
                            data-testid="fact"
                            data-fact=fact.phrase.clone()
                            data-kept=fact.kept.to_string()
                            data-weakened=fact.weakened.to_string()
                            class:weakened=fact.weakened
                            title=fact.sentence.clone().unwrap_or_default()
                        >
                            {text}
                            {fact.weakened.then(|| view! { <span class="weakened-label">" · weakened"</span> })}
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
/// overrun and survival by kind.
#[component]
fn EditionChecksView(card: EditionCard) -> impl IntoView {
    let unsourced = card.marked.iter().filter(|(_, u)| *u).count();
    let summary = match unsourced {
        0 => "Every figure in this edition is in the archive.".to_owned(),
        1 => "1 figure in this edition is in no archived message (marked).".to_owned(),
        n => format!("{n} figures in this edition are in no archived message (marked)."),
    };
    view! {
        <section class="checks" data-testid="edition-checks" aria-label="Checks on this edition">
            <h4>"Checks"</h4>
            <p class="checked-text">
                {card.marked.iter().map(|(text, unsourced)| {
                    let text = text.clone();
                    if *unsourced {
                        view! {
                            <mark class="unsourced" data-testid="unsourced-figure" title="No archived message holds this figure">{text}</mark>
                        }.into_any()
                    } else {
                        view! { <span>{text}</span> }.into_any()
                    }
                }).collect_view()}
            </p>
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

/// The timeline: step through the editions, and play each rewrite word by word, from
/// yesterday's paragraph to today's.
#[component]
fn Rewriter(cards: Vec<EditionCard>) -> impl IntoView {
    let count = cards.len();
    let rewrites: Vec<Rewrite> = cards.iter().map(|c| Rewrite::new(&c.after)).collect();
    // The first edition, in its final state.
    let start = Timeline {
        index: 0,
        step: rewrites.first().map_or(1, Rewrite::steps),
    };
    let rewrites = StoredValue::new(rewrites);
    let heads = StoredValue::new(
        cards
            .iter()
            .map(|c| (c.cycle, c.headline.clone()))
            .collect::<Vec<_>>(),
    );
    let timeline = RwSignal::new(start);
    // Bumped by every step or play, so an animation still running stops when the reader moves on.
    let generation = StoredValue::new(0u64);
    let go = move |index: usize| {
        generation.update_value(|g| *g += 1);
        let last = rewrites.with_value(|r| r.get(index).map_or(1, Rewrite::steps));
        timeline.update(|t| t.go(index, count, last));
    };
    let previous = move || {
        if let Some(i) = timeline.get_untracked().previous() {
            go(i);
        }
    };
    let next = move || {
        if let Some(i) = timeline.get_untracked().next(count) {
            go(i);
        }
    };
    let play = move || {
        generation.update_value(|g| *g += 1);
        let run = generation.get_value();
        let index = timeline.get_untracked().index;
        let last = rewrites.with_value(|r| r.get(index).map_or(1, Rewrite::steps));
        timeline.update(|t| t.play(last, prefers_reduced_motion()));
        leptos::task::spawn_local(async move {
            loop {
                gloo_timers::future::TimeoutFuture::new(STEP_MS).await;
                if generation.try_get_value() != Some(run) {
                    break;
                }
                match timeline.try_update(|t| t.tick(last)) {
                    Some(true) => {}
                    _ => break,
                }
            }
        });
    };
    let keydown = move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
        "ArrowLeft" => {
            ev.prevent_default();
            previous();
        }
        "ArrowRight" => {
            ev.prevent_default();
            next();
        }
        _ => {}
    };
    let position = move || {
        let t = timeline.get();
        heads.with_value(|h| {
            h.get(t.index)
                .map(|(_, headline)| format!("{} of {count}: {headline}", t.index + 1))
                .unwrap_or_default()
        })
    };
    let cycle = move || heads.with_value(|h| h.get(timeline.get().index).map_or(0, |(c, _)| *c));
    let total =
        move || rewrites.with_value(|r| r.get(timeline.get().index).map_or(1, Rewrite::steps));
    view! {
        <section class="rewriter card" aria-label="Timeline" data-testid="timeline" data-cycle=cycle>
            <div class="timeline-controls" role="group" aria-label="Step through the editions" on:keydown=keydown>
                <button
                    type="button"
                    data-testid="timeline-prev"
                    aria-label="Previous edition"
                    disabled=move || timeline.get().previous().is_none()
                    on:click=move |_| previous()
                >
                    "←"
                </button>
                <button
                    type="button"
                    data-testid="timeline-play"
                    on:click=move |_| play()
                >
                    "Play the rewrite"
                </button>
                <button
                    type="button"
                    data-testid="timeline-next"
                    aria-label="Next edition"
                    disabled=move || timeline.get().next(count).is_none()
                    on:click=move |_| next()
                >
                    "→"
                </button>
                <span class="timeline-position" data-testid="timeline-position" aria-live="polite">
                    {position}
                </span>
            </div>
            <p
                class="rewrite diff"
                data-testid="rewrite"
                data-step=move || timeline.get().step
                data-steps=total
            >
                {move || {
                    let t = timeline.get();
                    rewrites.with_value(|r| {
                        r.get(t.index)
                            .map(|rewrite| {
                                rewrite
                                    .frame(t.step)
                                    .into_iter()
                                    .map(|(mark, text)| {
                                        let text = text.to_owned();
                                        match mark {
                                            Mark::Plain => view! { <span>{text}</span> }.into_any(),
                                            Mark::Leaving => view! { <del class="removed leaving">{text}</del> }.into_any(),
                                            Mark::Arrived => view! { <ins class="added arriving">{text}</ins> }.into_any(),
                                        }
                                    })
                                    .collect_view()
                            })
                    })
                }}
            </p>
        </section>
    }
}

/// Whether the reader asked the system for less motion.
fn prefers_reduced_motion() -> bool {
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window() else {
        return false;
    };
    let query = js_sys::Reflect::get(&window, &"matchMedia".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .and_then(|f| {
            f.call1(&window, &"(prefers-reduced-motion: reduce)".into())
                .ok()
        });
    query
        .and_then(|q| js_sys::Reflect::get(&q, &"matches".into()).ok())
        .and_then(|m| m.as_bool())
        .unwrap_or(false)
}
