//! The replay of one session under a trigger the user edits: a dry run over its recorded turn
//! sizes, with the tokens-per-request chart, the context window of any turn and one row per
//! turn. The form is the app's [`ReplayForm`], read from the trigger the session was recorded
//! under.

use leptos::prelude::*;

use crate::app::replay::{ReplayForm, ReplayKind, labels};
use crate::engine::session::Session;
use crate::ui::chat::WindowView;
use crate::ui::tuner::TokensChart;
use crate::ui::virtual_list::VirtualList;
use crate::view::inspect::InspectView;

/// A dry run of this conversation, with its real turn sizes, under a trigger the user edits.
#[component]
pub fn Replay(view: InspectView, session: Session) -> impl IntoView {
    let start = ReplayForm::of(&view.trigger);
    let kind = RwSignal::new(start.kind);
    let turns = view.turns;
    // The turn whose request the stacked bar shows: the last one to start with.
    let at = RwSignal::new(turns.max(1));
    let a = RwSignal::new(start.a);
    let b = RwSignal::new(start.b);
    let view = StoredValue::new(view);
    let session = StoredValue::new(session);
    let outcome = Memo::new(move |_| {
        let form = ReplayForm {
            kind: kind.get(),
            a: a.get(),
            b: b.get(),
        };
        view.with_value(|v| session.with_value(|s| v.replay(s, form.trigger())))
    });
    let labels = Memo::new(move |_| labels(kind.get()));
    let number = |signal: RwSignal<u32>| {
        move |ev: leptos::ev::Event| {
            if let Ok(n) = event_target_value(&ev).trim().parse() {
                signal.set(n);
            }
        }
    };
    view! {
        <section class="replay">
            <h4>"Replay under another policy"</h4>
            <p class="hint">"A dry run over this session's real per-turn token counts; nothing is sent."</p>
            <form class="controls" on:submit=|ev| ev.prevent_default()>
                <label>"Trigger "
                    <select data-testid="replay-trigger" on:change=move |ev| {
                        if let Some(k) = ReplayKind::from_slug(&event_target_value(&ev)) {
                            kind.set(k);
                        }
                    }>
                        {ReplayKind::ALL.into_iter().map(|k| view! {
                            <option value=k.slug() selected=k == start.kind>{k.slug()}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>{move || labels.get().0}" "
                    <input type="number" min="0" data-testid="replay-a" prop:value=move || a.get().to_string() on:input=number(a) />
                </label>
                <label>{move || labels.get().1}" "
                    <input type="number" min="0" data-testid="replay-b" prop:value=move || b.get().to_string() on:input=number(b) />
                </label>
            </form>
            {move || match outcome.get() {
                Err(reason) => view! { <p class="param-error" role="alert" data-testid="replay-error">{reason.to_string()}</p> }.into_any(),
                Ok(run) => view! {
                    <p>"Summariser calls: " <strong data-testid="replay-calls">{run.schedule.calls}</strong>
                        {format!(" · tokens sent in all: {}", run.schedule.total_tokens)}</p>
                    <TokensChart
                        comparison=run.comparison.clone()
                        caption=" — tokens per request in this session, at its recorded sizes, under the trigger above."
                    />
                    <label class="number">"Context window at turn "
                        <input type="number" min="1" max=turns.to_string() data-testid="replay-turn"
                            prop:value=move || at.get().to_string() on:input=number(at) />
                    </label>
                    {
                        let run = run.clone();
                        move || view.with_value(|v| v.context_at(&run, at.get()))
                            .map(|w| view! { <WindowView window=w /> })
                    }
                    <div class="schedule-head" aria-hidden="true"><span>"Turn"</span><span>"The request holds"</span><span>"Tokens"</span></div>
                    <VirtualList count=run.schedule.rows.len() estimate=32 class="schedule" label="Replay, one row per turn" row={
                        let rows = StoredValue::new(run.schedule.rows);
                        move |i| {
                            let row = rows.with_value(|r| r[i]);
                            view! {
                                <div class="schedule-row" role="listitem" class:fires=row.folds.is_some() data-testid="replay-row" data-turn=row.turn data-summarised-to=row.summarised_to data-verbatim=row.verbatim_list()>
                                    <span>{row.turn}</span><span>{row.describe()}</span><span>{row.tokens}</span>
                                </div>
                            }
                        }
                    } />
                }.into_any(),
            }}
        </section>
    }
}
