//! The replay of one session under a policy the user edits: a dry run over its recorded turn
//! sizes, with the tokens-per-request chart, the context window of any turn and one row per
//! turn, and an offline replay of its messages with the extractive summariser whose editions
//! can be kept as a new session. The form is the app's [`ReplayPolicy`], read from the policy
//! the session was recorded under.

use leptos::prelude::*;

use crate::app::replay::{
    NumberField, ReplayEdit, ReplayKind, ReplayPolicy, Replayer, TurnPick, replay_offline,
    replayed_name,
};
use crate::engine::library_session::Session;
use crate::engine::policy::{Choice, FoldMode, Placement};
use crate::engine::prompts::PresetId;
use crate::ui::run::clock::now_ms;
use crate::ui::run::library_sync::{Sessions, new_id};
use crate::ui::widgets::tokens_chart::TokensChart;
use crate::ui::widgets::virtual_list::VirtualList;
use crate::ui::widgets::window_view::WindowView;
use crate::view::inspect::{InspectView, replay_result};
use crate::view::policy_summary::summary_line;

use super::edition_list::EditionList;
use super::live_replay::LiveReplay;
use crate::ui::widgets::exact_policy::ExactPolicy;
use crate::ui::widgets::export_policy::ExportPolicy;

/// A dry run of this conversation, with its real turn sizes, under a policy the user edits,
/// and an offline replay of its messages under that policy into a new session.
#[component]
pub fn Replay(view: InspectView, session: Session) -> impl IntoView {
    let recorded = session.memory.policy().clone();
    let start = ReplayPolicy::of(&recorded);
    let form = RwSignal::new(start.clone());
    let kind = Memo::new(move |_| form.with(|f| f.trigger.kind));
    // The turn whose request the stacked bar shows: the last one to start with.
    let at = RwSignal::new(TurnPick::last(view.turns));
    let view = StoredValue::new(view);
    let session = StoredValue::new(session);
    let recorded = StoredValue::new(recorded);
    let policy = Memo::new(move |_| form.with(|f| recorded.with_value(|r| f.policy(r))));
    let sessions = use_context::<Sessions>();
    // The offline replay's new session, once run, and whether it was saved.
    let replayed = RwSignal::new(None::<Result<Session, String>>);
    // Once a replay has written editions, the dry run counts their size, not an assumed one.
    let sized = Memo::new(move |_| {
        replayed.with(|r| match r {
            Some(Ok(new)) => view.with_value(|v| v.sized_by(new)),
            _ => view.get_value(),
        })
    });
    let outcome = Memo::new(move |_| policy.get().map(|p| sized.with(|v| v.replay_policy(&p))));
    let saved = RwSignal::new(false);
    // The live replay, once started; the form is locked while it runs.
    let live = RwSignal::new(None::<Replayer>);
    let running = move || live.with(|r| r.as_ref().is_some_and(Replayer::is_running));
    let edit = move |edit: ReplayEdit| {
        if form.try_update(|f| f.edit(edit)).unwrap_or(false) {
            replayed.set(None);
        }
    };
    // A number field, its text as typed and why it is wrong beside it.
    let number = move |field: NumberField| {
        let name = field.name;
        let text = move || form.with(|f| f.field_text(name));
        let error = move || form.with(|f| f.field_error(name));
        view! {
            <label>{field.label}" "
                <input type="number" min=field.min data-testid=field.testid prop:value=text
                    on:input=move |ev| edit(ReplayEdit::Number(name, event_target_value(&ev))) />
                {move || error().map(|e| view! { <span class="param-error" role="alert" data-testid=field.error_testid.clone()>{e}</span> })}
            </label>
        }
    };
    let run = move |_| {
        let Some(sessions) = sessions else { return };
        let counter = sessions.tokens.counter();
        let outcome = policy.get().map_err(|e| e.to_string()).and_then(|p| {
            session.with_value(|s| {
                let name = replayed_name(&s.name);
                replay_offline(s, p, &counter, name).map_err(|e| e.to_string())
            })
        });
        saved.set(false);
        live.set(None);
        replayed.set(Some(outcome));
    };
    let save = move |_| {
        let (Some(sessions), Some(Ok(new))) = (sessions, replayed.get_untracked()) else {
            return;
        };
        let added = sessions
            .library
            .try_update(|l| l.add(new_id(), new, now_ms()).is_ok())
            .unwrap_or(false);
        saved.set(added);
    };
    let recorded_preset = start.preset;
    view! {
        <section class="replay">
            <h4>"Replay under another policy"</h4>
            <p class="hint">"A dry run over this session's real per-turn token counts; nothing is sent. "
                "Replay it offline to see the editions the built-in extractive summariser would write under this policy, or live to have the endpoint's summariser model write them, and keep them as a new session (this one is never changed)."</p>
            <form class="controls" on:submit=|ev| ev.prevent_default()>
                <fieldset class="contents" disabled=running>
                <label>"Trigger "
                    <select data-testid="replay-trigger" on:change=move |ev| {
                        if let Some(k) = ReplayKind::from_slug(&event_target_value(&ev)) {
                            edit(ReplayEdit::Kind(k));
                        }
                    }>
                        {ReplayKind::ALL.into_iter().map(|k| view! {
                            <option value=k.slug() selected=move || kind.get() == k>{k.slug()}</option>
                        }).collect_view()}
                    </select>
                </label>
                {move || {
                    kind.track();
                    form.with_untracked(ReplayPolicy::trigger_fields).into_iter().map(number).collect_view()
                }}
                <label>"Summary placement "
                    <select data-testid="replay-placement" on:change=move |ev| {
                        if let Some(p) = Placement::from_slug(&event_target_value(&ev)) {
                            edit(ReplayEdit::Placement(p));
                        }
                    }>
                        {Placement::CHOICES.iter().map(|&(p, slug, label)| view! {
                            <option value=slug selected=move || form.with(|f| f.placement == p)>{label}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>"Fold mode "
                    <select data-testid="replay-fold" on:change=move |ev| {
                        if let Some(m) = FoldMode::from_slug(&event_target_value(&ev)) {
                            edit(ReplayEdit::Fold(m));
                        }
                    }>
                        {FoldMode::CHOICES.iter().map(|&(m, slug, label)| view! {
                            <option value=slug selected=move || form.with(|f| f.fold == m)>{label}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>"Prompt preset "
                    <select data-testid="replay-preset" on:change=move |ev| {
                        if let Some(p) = PresetId::from_slug(&event_target_value(&ev)) {
                            edit(ReplayEdit::Preset(p));
                        }
                    }>
                        {PresetId::BUILT_IN.into_iter().chain((!PresetId::BUILT_IN.contains(&recorded_preset)).then_some(recorded_preset)).map(|p| view! {
                            <option value=p.slug() selected=move || form.with(|f| f.preset == p)>{p.label()}</option>
                        }).collect_view()}
                    </select>
                </label>
                {form.with_untracked(ReplayPolicy::prompt_fields).into_iter().map(number).collect_view()}
                <ExactPolicy
                    form=Signal::derive(move || form.with(|f| f.exact.clone()))
                    set=Callback::new(move |(name, value): (&'static str, String)| edit(ReplayEdit::Exact(name, value)))
                    regroup=Callback::new(move |()| edit(ReplayEdit::ExactRegroup))
                    summary=Signal::derive(move || policy.with(|p| p.as_ref().ok().map(summary_line)))
                    prefix="replay"
                    error=Signal::derive(move || form.with(|f| f.exact.exact().err()))
                />
                </fieldset>
            </form>
            <ExportPolicy
                policy=Signal::derive(move || policy.get().map_err(|e| e.to_string()))
                facts=Signal::derive(move || session.with_value(|s| s.pinned.clone()))
                conversation=Signal::derive(move || sized.with(|v| v.sizes.clone()))
                on_import=Callback::new(move |policy| {
                    edit(ReplayEdit::Import(policy));
                    Ok(())
                })
            />
            <p>
                <button type="button" data-testid="replay-run" on:click=run disabled=move || policy.with(|p| p.is_err()) || running()>
                    "Replay offline (extractive summariser)"
                </button>
            </p>
            <LiveReplay policy session live replayed saved />
            {move || replayed.get().map(|result| match result {
                Err(reason) => view! { <p class="param-error" role="alert" data-testid="replay-error">{reason}</p> }.into_any(),
                Ok(new) => {
                    let editions = new.memory.editions().to_vec();
                    let result = replay_result(&new, &new.memory.policy().trigger);
                    view! {
                        <div class="replayed" data-testid="replay-result">
                            <p data-testid="replay-note">{result.note}" "
                                {result.can_save.then(|| view! {
                                    <button type="button" data-testid="replay-save" on:click=save disabled=move || saved.get()>
                                        "Save as a new session"
                                    </button>
                                })}
                                {move || saved.get().then(|| view! { <span role="status" data-testid="replay-saved">" Saved as a new session in the list."</span> })}
                            </p>
                            <EditionList editions />
                        </div>
                    }.into_any()
                }
            })}
            {move || match outcome.get() {
                Err(reason) => view! { <p class="param-error" role="alert" data-testid="replay-error">{reason.to_string()}</p> }.into_any(),
                Ok(run) => view! {
                    <p>"Summariser calls: " <strong data-testid="replay-calls">{run.schedule.calls}</strong>
                        " · tokens sent in all: "{run.schedule.total_tokens}</p>
                    <TokensChart
                        comparison=run.comparison.clone()
                        caption=" — tokens per request in this session, at its recorded sizes, under the trigger above."
                    />
                    <p class="hint" data-testid="replay-summary-size">{move || sized.with(|v| v.summary_caption())}</p>
                    <label class="number">"Context window at turn "
                        <input type="number" min="1" max=at.with_untracked(TurnPick::max) data-testid="replay-turn"
                            prop:value=move || at.with(|a| a.text.clone()) on:input=move |ev| at.update(|a| a.edit(event_target_value(&ev))) />
                        {move || at.with(TurnPick::error).map(|e| view! { <span class="param-error" role="alert" data-testid="replay-turn-error">{e}</span> })}
                    </label>
                    {
                        let run = run.clone();
                        move || sized.with(|v| v.context_at(&run, at.with(|a| a.turn)))
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
