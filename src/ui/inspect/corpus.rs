//! "Compare policies over the corpus": library sessions (all, or those whose name holds the
//! text typed) under the policies ticked (yours, the Chat tab's, and the peer presets), measured
//! on the pool of workers (`ui::run::corpus_pool`), with a progress bar, the time left and Stop,
//! then a table per policy, the distribution over the conversations (the worst one opens in
//! Inspect), a chart and the rows as CSV. What is shown is computed in `view::corpus`.

use std::collections::BTreeSet;

use leptos::prelude::*;

use crate::app::corpus::Phase;
use crate::app::corpus::wire::ColumnWire;
use crate::app::corpus::work::column_wire;
use crate::app::library::LibraryTab;
use crate::app::workbench::Workbench;
use crate::engine::corpus::{Column, CorpusSettings, Prices, YOURS};
use crate::engine::peers::PEER_PRESETS;
use crate::ui::run::corpus_pool::{CorpusPool, CorpusStatus};
use crate::ui::run::library_sync::Sessions;
use crate::view::corpus::{grouped, progress_line, table};

/// The source every library session's rows carry.
const LIBRARY: &str = "library";

/// The corpus comparison, folded away until opened.
#[component]
pub fn CorpusCompare() -> impl IntoView {
    let sessions = expect_context::<Sessions>();
    let workbench = expect_context::<RwSignal<Workbench>>();
    let filter = RwSignal::new(String::new());
    let chosen = RwSignal::new(BTreeSet::from([
        YOURS.to_owned(),
        PEER_PRESETS[0].slug.to_owned(),
        PEER_PRESETS[1].slug.to_owned(),
    ]));
    let window = RwSignal::new(CorpusSettings::default().window);
    let replay = RwSignal::new(true);
    let prices = RwSignal::new(Prices::default());
    let status = RwSignal::new(None::<CorpusStatus>);
    let error = RwSignal::new(None::<String>);
    let pool = StoredValue::new_local(None::<CorpusPool>);
    // The run's columns and the library id of each conversation, as it started.
    let run_columns = StoredValue::new(Vec::<Column>::new());
    let run_ids = StoredValue::new(Vec::<String>::new());

    let corpus = Memo::new(move |_| {
        let needle = filter.with(|f| f.trim().to_lowercase());
        sessions.library.with(|l| {
            l.list()
                .iter()
                .filter(|e| needle.is_empty() || e.session.name.to_lowercase().contains(&needle))
                .map(|e| e.id.clone())
                .collect::<Vec<_>>()
        })
    });
    let running = move || status.with(|s| s.as_ref().is_some_and(|s| s.phase == Phase::Running));

    let start = move |_| {
        error.set(None);
        let ids = corpus.get_untracked();
        let window = window.get_untracked();
        let yours = workbench.with_untracked(|w| w.on_screen().memory().policy().clone());
        let picked = chosen.get_untracked();
        let mut columns = Vec::new();
        let mut wires = Vec::new();
        if picked.contains(YOURS) {
            match Column::new(YOURS, "Yours", yours.clone())
                .map_err(|e| e.to_string())
                .and_then(|c| column_wire(YOURS, "Yours", &yours).map(|w| (c, w)))
            {
                Ok((column, wire)) => {
                    columns.push(column);
                    wires.push(wire);
                }
                Err(e) => return error.set(Some(format!("Your policy cannot run: {e}"))),
            }
        }
        for preset in PEER_PRESETS.iter().filter(|p| picked.contains(p.slug)) {
            if let Some(column) = Column::preset(preset.slug, window) {
                columns.push(column);
                wires.push(ColumnWire::Preset {
                    slug: preset.slug.to_owned(),
                });
            }
        }
        if columns.is_empty() {
            return error.set(Some("Tick at least one policy to compare.".into()));
        }
        let settings = CorpusSettings {
            window,
            replay: replay.get_untracked(),
            ..CorpusSettings::default()
        };
        let corpus = ids
            .iter()
            .map(|id| (id.clone(), LIBRARY.to_owned()))
            .collect();
        run_columns.set_value(columns);
        run_ids.set_value(ids);
        let encoding = sessions.tokens.encoding.get_untracked();
        match CorpusPool::start(
            corpus,
            wires,
            settings,
            encoding,
            None,
            sessions.library,
            status,
        ) {
            Ok(started) => pool.set_value(Some(started)),
            Err(e) => error.set(Some(format!("The comparison could not start: {e}"))),
        }
    };
    let stop = move |_| {
        pool.with_value(|p| {
            if let Some(p) = p {
                p.stop();
            }
        })
    };
    let result = Memo::new(move |_| {
        status.with(|s| {
            let s = s.as_ref()?;
            (s.phase != Phase::Running)
                .then(|| run_columns.with_value(|c| table(&s.rows, c, &prices.get(), s.progress)))
        })
    });
    let open = move |index: u32| {
        if let Some(id) = run_ids.with_value(|ids| ids.get(index as usize).cloned()) {
            sessions.tab.update(|t: &mut LibraryTab| t.open(id));
        }
    };
    let price = |set: fn(&mut Prices, f64)| {
        move |ev: leptos::ev::Event| {
            if let Ok(n) = event_target_value(&ev).trim().parse::<f64>()
                && n.is_finite()
                && n >= 0.0
            {
                prices.update(|p| set(p, n));
            }
        }
    };

    view! {
        <details class="corpus" data-testid="corpus">
            <summary>"Compare policies over the corpus"</summary>
            <p class="hint">
                "Every library session under each policy ticked, on every core of this machine (one worker per core): the dry run, then the extractive replay and its offline checks. Nothing leaves the browser."
            </p>
            <div class="controls">
                <label>
                    "Sessions whose name holds "
                    <input type="text" placeholder="(all)" prop:value=move || filter.get()
                        on:input=move |ev| filter.set(event_target_value(&ev)) />
                </label>
                " "
                <span>{move || format!("{} sessions", grouped(corpus.with(Vec::len) as u64))}</span>
            </div>
            <fieldset class="corpus-policies">
                <legend>"Policies"</legend>
                {std::iter::once((YOURS, "Yours (the Chat tab's policy)"))
                    .chain(PEER_PRESETS.iter().map(|p| (p.slug, p.system)))
                    .map(|(id, label)| view! {
                        <label>
                            <input type="checkbox" data-testid="corpus-policy" data-policy=id
                                prop:checked=move || chosen.with(|c| c.contains(id))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    chosen.update(|c| {
                                        if on { c.insert(id.to_owned()); } else { c.remove(id); }
                                    });
                                } />
                            {label}
                        </label>
                    })
                    .collect_view()}
            </fieldset>
            <div class="controls">
                <label>
                    "Context window "
                    <input type="number" min="1" prop:value=move || window.get().to_string()
                        on:change=move |ev| {
                            if let Ok(n) = event_target_value(&ev).trim().parse::<u32>() && n > 0 {
                                window.set(n);
                            }
                        } />
                </label>
                <label>
                    <input type="checkbox" prop:checked=move || replay.get()
                        on:change=move |ev| replay.set(event_target_checked(&ev)) />
                    "Extractive replay and checks"
                </label>
            </div>
            <div class="controls">
                <label>"$ / M tokens: chat in "
                    <input type="number" min="0" step="0.01" data-testid="corpus-price-chat"
                        prop:value=move || prices.get().chat_in_per_mtok.to_string()
                        on:change=price(|p, n| p.chat_in_per_mtok = n) />
                </label>
                <label>" summariser in "
                    <input type="number" min="0" step="0.01"
                        prop:value=move || prices.get().summary_in_per_mtok.to_string()
                        on:change=price(|p, n| p.summary_in_per_mtok = n) />
                </label>
                <label>" out "
                    <input type="number" min="0" step="0.01"
                        prop:value=move || prices.get().summary_out_per_mtok.to_string()
                        on:change=price(|p, n| p.summary_out_per_mtok = n) />
                </label>
            </div>
            <div class="controls">
                <button data-testid="corpus-compare" on:click=start
                    disabled=move || running() || corpus.with(Vec::is_empty)>
                    "Compare"
                </button>
                {move || running().then(|| view! {
                    <button data-testid="corpus-stop" on:click=stop>"Stop"</button>
                })}
            </div>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {move || status.get().map(|s| view! {
                <div data-testid="corpus-progress" role="status"
                    data-done=s.progress.done data-total=s.progress.total
                    data-phase=match &s.phase {
                        Phase::Running => "running",
                        Phase::Stopped => "stopped",
                        Phase::Done => "done",
                        Phase::Failed(_) => "failed",
                    }>
                    <progress max=s.progress.total value=s.progress.done></progress>
                    " "
                    {progress_line(s.progress, &s.phase, s.workers, s.elapsed_ms)}
                </div>
            })}
            {move || result.get().map(|t| {
                let partial = t.partial.clone().map(|p| view! {
                    <p class="note" data-testid="corpus-partial">{p}</p>
                });
                view! {
                    {partial}
                    <table class="corpus-table">
                        <thead><tr>
                            <th>"Policy"</th><th>"Summariser calls"</th><th>"Tokens sent (chat + summariser)"</th>
                            <th>"Largest request"</th><th>"Over the window"</th><th>"Estimated cost"</th>
                            <th>"Facts lost"</th><th>"Rules lost"</th><th>"Unsourced figures"</th>
                        </tr></thead>
                        <tbody>
                            {t.lines.iter().map(|l| view! {
                                <tr data-testid="corpus-row" data-policy=l.policy.clone()>
                                    <th>{l.label.clone()}</th>
                                    <td>{grouped(l.calls)}</td>
                                    <td>{format!("{} ({} + {})", grouped(l.tokens_sent), grouped(l.chat_tokens), grouped(l.summariser_tokens))}</td>
                                    <td>{grouped(l.largest_request)}</td>
                                    <td>{grouped(l.over_window)}</td>
                                    <td>{l.cost.clone()}</td>
                                    <td>{grouped(l.facts_lost)}</td>
                                    <td>{grouped(l.rules_lost)}</td>
                                    <td>{grouped(l.unsourced_figures)}</td>
                                </tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                    <div class="corpus-chart" aria-label="Tokens sent per policy">
                        {t.bars.iter().map(|b| view! {
                            <div class="corpus-bar">
                                <span>{b.label.clone()}</span>
                                <span class="bar" style=format!("width: {:.1}%", b.percent)></span>
                                <span>{grouped(b.tokens)}</span>
                            </div>
                        }).collect_view()}
                    </div>
                    {t.lines.iter().map(|l| view! {
                        <details class="corpus-spread">
                            <summary>{format!("{}: per conversation", l.label)}</summary>
                            <table>
                                <thead><tr><th>"Metric"</th><th>"Median"</th><th>"p90"</th><th>"Worst"</th><th>"Worst conversation"</th></tr></thead>
                                <tbody>
                                    {l.spread.iter().map(|d| {
                                        let worst = d.worst_at.clone().map(|(index, name)| view! {
                                            <button class="link" data-testid="corpus-worst"
                                                on:click=move |_| open(index)>{name}</button>
                                        });
                                        view! {
                                            <tr>
                                                <th>{d.metric}</th>
                                                <td>{grouped(d.median)}</td>
                                                <td>{grouped(d.p90)}</td>
                                                <td>{grouped(d.worst)}</td>
                                                <td>{worst}</td>
                                            </tr>
                                        }
                                    }).collect_view()}
                                </tbody>
                            </table>
                        </details>
                    }).collect_view()}
                    <a data-testid="corpus-csv" href=t.csv_link.clone() download="corpus.csv">"Download the rows (CSV)"</a>
                }
            })}
        </details>
    }
}
