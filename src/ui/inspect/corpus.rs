//! "Compare policies over the corpus": library sessions (all, or all of one import, narrowed
//! to those whose name holds the text typed) under the policies ticked (yours, the Chat tab's, and the peer presets), measured
//! on the pool of workers (`ui::run::corpus_pool`), with a progress bar, the time left and Stop,
//! then a table per policy, the distribution over the conversations (the worst one opens in
//! Inspect), a chart and the rows as CSV. What is shown is computed in `view::corpus`.

use std::collections::BTreeSet;

use leptos::prelude::*;

use crate::app::corpus::pick::{Member, imports, members};
use crate::app::corpus::wire::ColumnWire;
use crate::app::corpus::work::column_wire;
use crate::app::library::LibraryTab;
use crate::app::workbench::Workbench;
use crate::engine::corpus::{Column, CorpusSettings, Prices, YOURS, rows_csv};
use crate::engine::peers::PEER_PRESETS;
use crate::ui::run::corpus_pool::CorpusRunner;
use crate::ui::run::library_sync::Sessions;
use crate::ui::widgets::download::DownloadLink;
use crate::ui::widgets::run_controls::RunControls;
use crate::view::corpus::{grouped, import_label, table};
use crate::view::run::{Job, Pace, Run, RunView};

/// The corpus comparison, folded away until opened.
#[component]
pub fn CorpusCompare() -> impl IntoView {
    let sessions = expect_context::<Sessions>();
    let workbench = expect_context::<RwSignal<Workbench>>();
    let filter = RwSignal::new(String::new());
    // The import picked (its key), or "" for every session.
    let from = RwSignal::new(String::new());
    let chosen = RwSignal::new(BTreeSet::from([
        YOURS.to_owned(),
        PEER_PRESETS[0].slug.to_owned(),
        PEER_PRESETS[1].slug.to_owned(),
    ]));
    let window = RwSignal::new(CorpusSettings::default().window);
    let replay = RwSignal::new(true);
    let prices = RwSignal::new(Prices::default());
    let runner = CorpusRunner::owned();
    let status = runner.status;
    let error = RwSignal::new(None::<String>);
    // The run's conversations, as it started.
    let run_members = StoredValue::new(Vec::<Member>::new());

    let groups = Memo::new(move |_| sessions.library.with(imports));
    let corpus = Memo::new(move |_| {
        let needle = filter.with(|f| f.trim().to_lowercase());
        let group = from.with(|key| groups.with(|g| g.iter().find(|g| &g.key() == key).cloned()));
        sessions.library.with(|l| {
            l.list()
                .iter()
                .filter(|e| group.as_ref().is_none_or(|g| g.holds(e)))
                .filter(|e| needle.is_empty() || e.session.name.to_lowercase().contains(&needle))
                .map(|e| e.id.clone())
                .collect::<Vec<_>>()
        })
    });
    let running = move || runner.running();

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
        // Each session's rows carry its import's file and its place there, as the command-line
        // tool numbers the same file, in the tool's order.
        let corpus = sessions
            .library
            .with_untracked(|l| members(ids.iter().filter_map(|id| l.get(id))));
        run_members.set_value(corpus.clone());
        let encoding = sessions.tokens.encoding.get_untracked();
        if let Err(e) = runner.start(corpus, columns, wires, settings, encoding, sessions.library) {
            error.set(Some(format!("The comparison could not start: {e}")));
        }
    };
    let stop = move |()| runner.stop();
    // The table once the run's rows are summarised (the pool does it one policy per task).
    let result = Memo::new(move |_| {
        let prices = prices.get();
        status.with(|s| {
            let s = s.as_ref()?;
            let summaries = s.summaries.as_ref()?;
            Some(table(summaries, &prices, s.progress))
        })
    });
    let csv = UnsyncCallback::new(move |()| {
        status.with_untracked(|s| s.as_ref().map(|s| rows_csv(&s.rows)).unwrap_or_default())
    });
    let open = move |source: String, index: u32| {
        let id = run_members.with_value(|m| {
            m.iter()
                .find(|m| m.source == source && m.index == index)
                .map(|m| m.id.clone())
        });
        if let Some(id) = id {
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
                    "Sessions "
                    <select data-testid="corpus-import" prop:value=move || from.get()
                        on:change=move |ev| from.set(event_target_value(&ev))>
                        <option value="">"All sessions of the library"</option>
                        {move || {
                            let now = js_sys::Date::now() as u64;
                            // getTimezoneOffset counts minutes west of UTC.
                            let east = -(js_sys::Date::new_0().get_timezone_offset() as i32);
                            groups.with(|g| g.iter().map(|g| view! {
                                <option value=g.key()>{import_label(g, now, east)}</option>
                            }).collect_view())
                        }}
                    </select>
                </label>
                " "
                <label>
                    "whose name holds "
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
            </div>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            {move || status.with(|s| s.as_ref().map(|s| {
                let pace = Pace { workers: s.workers, elapsed_ms: s.elapsed_ms };
                let now = Run { status: &s.status, progress: s.progress, pace: Some(pace) };
                RunView::new(Job::Corpus, Some(now), None, None)
            })).map(|view| view! {
                <RunControls prefix="corpus" view bar=true on_stop=UnsyncCallback::new(stop) />
            })}
            {move || status.with(|s| s.as_ref().is_some_and(|s| !s.status.is_running() && s.summaries.is_none()))
                .then(|| view! { <p class="note" role="status">"Summarising the rows…"</p> })}
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
                                        let worst = d.worst_at.clone().map(|(source, index, name)| view! {
                                            <button class="link" data-testid="corpus-worst"
                                                on:click=move |_| open(source.clone(), index)>{name}</button>
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
                    <DownloadLink testid="corpus-csv" file_name="corpus.csv"
                        mime="text/csv;charset=utf-8" text=csv>
                        "Download the rows (CSV)"
                    </DownloadLink>
                }
            })}
        </details>
    }
}
