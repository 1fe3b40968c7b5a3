//! The Editions tab: each summary cycle as a newspaper edition, with a timeline to jump between
//! them (and the timer that plays each rewrite, which only advances the step), the snowball bars
//! and a table of which pinned facts each edition still states. Each edition is the shared
//! card (`ui/widgets/edition_card.rs`) in its newspaper layout.

use leptos::prelude::*;

use crate::ui::widgets::prefers_reduced_motion;

use crate::app::workbench::Workbench;
use crate::ui::run::ticker;
use crate::ui::run::token_service::TokenService;
use crate::ui::widgets::edition_card::EditionCardView;
use crate::view::editions::{EditionCard, EditionLayout, cards_on_screen};
use crate::view::editions_tab::{BarLine, EditionsScreen, position};
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
    let screen = Memo::new(move |_| {
        let (title, budget) = (title.get(), budget.get());
        cards.with(|cards| EditionsScreen::of(title, cards, budget))
    });

    view! {
        <section class="panel editions" data-testid="panel-editions">
            <h2>"Editions"</h2>
            <p class="hint">
                "Every summary cycle rewrites yesterday's paragraph with the turns folded in. "
                "Read the diff to see what each edition added and dropped."
            </p>
            {move || {
                screen
                    .with(|s| s.empty.clone())
                    .map(|line| view! { <p class="empty">{line}</p> })
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
                let screen = screen.get();
                (!cards.is_empty()).then(|| view! { <Timeline cards screen /> })
            }}
        </section>
    }
}

/// The stepper, the fact table and the editions themselves.
#[component]
fn Timeline(cards: Vec<EditionCard>, screen: EditionsScreen) -> impl IntoView {
    let EditionsScreen {
        links,
        columns,
        facts,
        bars,
        warnings,
        ..
    } = screen;
    view! {
        <Rewriter cards=cards.clone() />
        <nav class="timeline" aria-label="Jump to an edition">
            <ol>
                {links
                    .into_iter()
                    .map(|link| {
                        view! {
                            <li class:overrun=link.overrun data-overrun=link.overrun_attr>
                                <a href=link.href>{link.headline}</a>
                                {link.overrun.then(|| view! { <span class="overrun-mark">" · over the word limit"</span> })}
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
                            {columns.into_iter().map(|column| view! { <th scope="col">{column}</th> }).collect_view()}
                        </tr>
                    </thead>
                    <tbody>
                        {facts.into_iter().map(|row| view! {
                            <tr>
                                <th scope="row">{row.label}</th>
                                {row.cells.into_iter().map(|cell| view! {
                                    <td class=cell.class data-verdict=cell.verdict>{cell.status}</td>
                                }).collect_view()}
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
        })}
        <SnowballChart bars warnings />
        {cards.into_iter().map(|card| view! { <EditionCardView card layout=EditionLayout::Newspaper /> }).collect_view()}
    }
}

/// The snowball guard: the summary's tokens per cycle as a row of bars, with its warnings.
#[component]
fn SnowballChart(bars: Vec<BarLine>, warnings: Vec<String>) -> impl IntoView {
    view! {
        <section class="snowball card" data-testid="snowball" aria-label="Summary tokens per cycle">
            <h3>"Summary tokens per cycle"</h3>
            <ol class="snowball-bars">
                {bars.into_iter().map(|b| view! {
                    <li data-testid="snowball-bar" data-cycle=b.cycle data-tokens=b.tokens class:warn=b.warn>
                        <span class="label">{b.label}</span>
                        <span class="bar" style=b.style></span>
                        <span class="value">{b.value}</span>
                    </li>
                }).collect_view()}
            </ol>
            {warnings.into_iter().map(|w| view! {
                <p class="warning" data-testid="snowball-warning">{w}</p>
            }).collect_view()}
        </section>
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
        // Each tick advances the step until the rewrite ends or the reader moves on.
        ticker::every(STEP_MS, move || {
            generation.try_get_value() == Some(run)
                && timeline.try_update(|t| t.tick(last)) == Some(true)
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
                .map(|(_, headline)| position(t.index, count, headline))
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
