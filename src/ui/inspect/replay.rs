//! The replay of one session under a policy the user edits: a dry run over its recorded turn
//! sizes, with the tokens-per-request chart, the context window of any turn and one row per
//! turn, and an offline replay of its messages with the extractive summariser whose editions
//! can be kept as a new session. The form is the app's [`ReplayPolicy`], read from the policy
//! the session was recorded under.

use leptos::prelude::*;

use crate::app::replay::{ReplayForm, ReplayKind, ReplayPolicy, Replayer, labels, replay_offline};
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
    let turns = view.turns;
    // The turn whose request the stacked bar shows: the last one to start with.
    let at = RwSignal::new(turns.max(1));
    let view = StoredValue::new(view);
    let session = StoredValue::new(session);
    let recorded = StoredValue::new(recorded);
    let policy = Memo::new(move |_| form.with(|f| recorded.with_value(|r| f.policy(r))));
    let labels = Memo::new(move |_| labels(kind.get()));
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
    let number = |set: fn(&mut ReplayPolicy, u32)| {
        move |ev: leptos::ev::Event| {
            if let Ok(n) = event_target_value(&ev).trim().parse() {
                form.update(|f| set(f, n));
                replayed.set(None);
            }
        }
    };
    let at_input = move |ev: leptos::ev::Event| {
        if let Ok(n) = event_target_value(&ev).trim().parse() {
            at.set(n);
        }
    };
    let run = move |_| {
        let Some(sessions) = sessions else { return };
        let counter = sessions.tokens.counter();
        let outcome = policy.get().map_err(|e| e.to_string()).and_then(|p| {
            session.with_value(|s| {
                let name = format!("{} (replayed)", s.name);
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
                            form.update(|f| f.trigger = ReplayForm::of(&k.with_defaults()));
                            replayed.set(None);
                        }
                    }>
                        {ReplayKind::ALL.into_iter().map(|k| view! {
                            <option value=k.slug() selected=move || kind.get() == k>{k.slug()}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>{move || labels.get().0}" "
                    <input type="number" min="0" data-testid="replay-a" prop:value=move || form.with(|f| f.trigger.a.to_string()) on:input=number(|f, n| f.trigger.a = n) />
                </label>
                <label>{move || labels.get().1}" "
                    <input type="number" min="0" data-testid="replay-b" prop:value=move || form.with(|f| f.trigger.b.to_string()) on:input=number(|f, n| f.trigger.b = n) />
                </label>
                {move || form.with(|f| f.extra_fields()).into_iter().map(|field| {
                    let param = field.param;
                    view! {
                        <label>{field.label}" "
                            <input type="number" min="0" data-testid=format!("replay-{param}")
                                prop:value=move || form.with(|f| f.extra(param).to_string())
                                on:input=move |ev| {
                                    if let Ok(n) = event_target_value(&ev).trim().parse() {
                                        form.update(|f| f.set_extra(param, n));
                                        replayed.set(None);
                                    }
                                } />
                        </label>
                    }
                }).collect_view()}
                <label>"Summary placement "
                    <select data-testid="replay-placement" on:change=move |ev| {
                        if let Some(p) = Placement::from_slug(&event_target_value(&ev)) {
                            form.update(|f| f.placement = p);
                            replayed.set(None);
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
                            form.update(|f| f.fold = m);
                            replayed.set(None);
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
                            form.update(|f| f.preset = p);
                            replayed.set(None);
                        }
                    }>
                        {PresetId::BUILT_IN.into_iter().chain((!PresetId::BUILT_IN.contains(&recorded_preset)).then_some(recorded_preset)).map(|p| view! {
                            <option value=p.slug() selected=move || form.with(|f| f.preset == p)>{p.label()}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>"Word limit "
                    <input type="number" min="1" data-testid="replay-word_limit" prop:value=move || form.with(|f| f.word_limit.to_string()) on:input=number(|f, n| f.word_limit = n) />
                </label>
                <label>"Summary budget (tokens; empty for none) "
                    <input type="number" min="1" data-testid="replay-summary_budget"
                        prop:value=move || form.with(|f| f.summary_budget.map(|b| b.to_string()).unwrap_or_default())
                        on:input=move |ev| {
                            let raw = event_target_value(&ev);
                            let raw = raw.trim();
                            let budget = if raw.is_empty() { Some(None) } else { raw.parse().ok().map(Some) };
                            if let Some(budget) = budget {
                                form.update(|f| f.summary_budget = budget);
                                replayed.set(None);
                            }
                        } />
                </label>
                <ExactPolicy
                    form=Signal::derive(move || form.with(|f| f.exact.clone()))
                    set=Callback::new(move |(name, value): (&'static str, String)| {
                        form.update(|f| f.exact.set(name, value));
                        replayed.set(None);
                    })
                    regroup=Callback::new(move |()| form.update(|f| f.exact.regroup()))
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
                    form.set(ReplayPolicy::of(&policy));
                    replayed.set(None);
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
                        {format!(" · tokens sent in all: {}", run.schedule.total_tokens)}</p>
                    <TokensChart
                        comparison=run.comparison.clone()
                        caption=" — tokens per request in this session, at its recorded sizes, under the trigger above."
                    />
                    <p class="hint" data-testid="replay-summary-size">{move || sized.with(|v| v.summary_caption())}</p>
                    <label class="number">"Context window at turn "
                        <input type="number" min="1" max=turns.to_string() data-testid="replay-turn"
                            prop:value=move || at.get().to_string() on:input=at_input />
                    </label>
                    {
                        let run = run.clone();
                        move || sized.with(|v| v.context_at(&run, at.get()))
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
