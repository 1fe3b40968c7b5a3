//! "Compare policies over the corpus": library sessions (all, or all of one import, narrowed
//! to those whose name holds the text typed) under the policies ticked (yours, the Chat tab's,
//! and the peer presets), measured on the pool of workers (`ui::run::corpus_pool`), with a
//! progress bar, the time left and Stop, then a table per policy, the distribution over the
//! conversations (the worst one opens in Inspect), a chart and the rows as CSV. The form is
//! [`CorpusForm`], edited by [`CorpusEdit`]s; what is shown is [`CorpusScreen`]'s.

use leptos::prelude::*;

use crate::app::corpus::form::{CorpusEdit, CorpusForm};
use crate::app::corpus::pick::{Member, members};
use crate::app::library::LibraryTab;
use crate::app::workbench::Workbench;
use crate::engine::corpus::rows_csv;
use crate::ui::run::clock::{east_minutes, now_ms};
use crate::ui::run::corpus_pool::CorpusRunner;
use crate::ui::run::library_sync::Sessions;
use crate::ui::widgets::download::DownloadLink;
use crate::ui::widgets::run_controls::RunControls;
use crate::view::corpus::{CorpusScreen, NumberShown, RunShown, could_not_start, grouped};
use crate::view::run::{Job, Pace, Run, RunView};

/// The corpus comparison, folded away until opened.
#[component]
pub fn CorpusCompare() -> impl IntoView {
    let sessions = expect_context::<Sessions>();
    let workbench = expect_context::<RwSignal<Workbench>>();
    let form = RwSignal::new(CorpusForm::default());
    let runner = CorpusRunner::owned();
    let status = runner.status;
    let error = RwSignal::new(None::<String>);
    // The run's conversations, as it started.
    let run_members = StoredValue::new(Vec::<Member>::new());

    let screen = Memo::new(move |_| {
        let (now, east) = (now_ms(), east_minutes());
        form.with(|f| {
            sessions.library.with(|l| {
                status.with(|s| {
                    let run = s.as_ref().map(|s| RunShown {
                        phase: &s.status,
                        progress: s.progress,
                        summaries: s.summaries.as_deref().map(Vec::as_slice),
                        kept: s.kept,
                    });
                    CorpusScreen::of(f, l, run, now, east)
                })
            })
        })
    });
    let imports = Memo::new(move |_| screen.with(|s| s.imports.clone()));
    let result = Memo::new(move |_| screen.with(|s| s.table.clone()));
    let edit = move |edit: CorpusEdit| form.update(|f| f.edit(edit));

    let start = move |_| {
        error.set(None);
        let yours = workbench.with_untracked(|w| w.on_screen().memory().policy().clone());
        let (columns, wires) = match form.with_untracked(|f| f.columns(&yours)) {
            Ok(picked) => picked,
            Err(e) => return error.set(Some(e)),
        };
        // Each session's rows carry its import's file and its place there, as the command-line
        // tool numbers the same file, in the tool's order.
        let corpus = sessions.library.with_untracked(|l| {
            let ids = form.with_untracked(|f| f.picked(l));
            members(ids.iter().filter_map(|id| l.get(id)))
        });
        run_members.set_value(corpus.clone());
        let encoding = sessions.tokens.encoding.get_untracked();
        let settings = form.with_untracked(CorpusForm::settings);
        if let Err(e) = runner.start(corpus, columns, wires, settings, encoding, sessions.library) {
            error.set(Some(could_not_start(&e)));
        }
    };
    let stop = move |()| runner.stop();
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
    // A number field, its text as typed and why it is wrong beside it.
    let number = move |field: NumberShown| {
        let name = field.name;
        view! {
            <label>{field.label}
                <input type="number" min=field.min step=field.step data-testid=field.testid
                    prop:value=move || form.with(|f| f.text(name))
                    on:input=move |ev| edit(CorpusEdit::Number(name, event_target_value(&ev))) />
                {move || form.with(|f| f.field_error(name)).map(|e| view! {
                    <span class="param-error" role="alert" data-testid=field.error_testid.clone()>{e}</span>
                })}
            </label>
        }
    };
    let (window, prices) = screen.with_untracked(|s| (s.window.clone(), s.prices.clone()));
    let policies = screen.with_untracked(|s| s.policies.clone());

    view! {
        <details class="corpus" data-testid="corpus" data-kept=move || screen.with(|s| s.kept)>
            <summary>"Compare policies over the corpus"</summary>
            <p class="hint">
                "Every library session under each policy ticked, on every core of this machine (one worker per core): the dry run, then the extractive replay and its offline checks. Nothing leaves the browser."
            </p>
            <div class="controls">
                <label>
                    "Sessions "
                    <select data-testid="corpus-import" prop:value=move || screen.with(|s| s.from.clone())
                        on:change=move |ev| edit(CorpusEdit::From(event_target_value(&ev)))>
                        <option value="">"All sessions of the library"</option>
                        {move || imports.get().into_iter().map(|g| view! {
                            <option value=g.key>{g.label}</option>
                        }).collect_view()}
                    </select>
                </label>
                " "
                <label>
                    "whose name holds "
                    <input type="text" placeholder="(all)" data-testid="corpus-filter"
                        prop:value=move || screen.with(|s| s.filter.clone())
                        on:input=move |ev| edit(CorpusEdit::Filter(event_target_value(&ev))) />
                </label>
                " "
                <span data-testid="corpus-count" data-count=move || screen.with(|s| s.picked)>
                    {move || screen.with(|s| s.count.clone())}
                </span>
            </div>
            <fieldset class="corpus-policies">
                <legend>"Policies"</legend>
                {policies.into_iter().map(|p| {
                    let id = p.id;
                    view! {
                        <label>
                            <input type="checkbox" data-testid="corpus-policy" data-policy=id
                                prop:checked=move || screen.with(|s| s.policies.iter().any(|q| q.id == id && q.ticked))
                                on:change=move |ev| edit(CorpusEdit::Policy(id.to_owned(), event_target_checked(&ev))) />
                            {p.label}
                        </label>
                    }
                }).collect_view()}
            </fieldset>
            <div class="controls">
                {number(window)}
                <label>
                    <input type="checkbox" prop:checked=move || screen.with(|s| s.replay)
                        on:change=move |ev| edit(CorpusEdit::Replay(event_target_checked(&ev))) />
                    "Extractive replay and checks"
                </label>
            </div>
            <div class="controls">
                {prices.into_iter().map(number).collect_view()}
            </div>
            <div class="controls">
                <button data-testid="corpus-compare" on:click=start
                    disabled=move || !screen.with(|s| s.can_compare)>
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
            {move || screen.with(|s| s.summarising)
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
                                    <td>{l.sent.clone()}</td>
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
                                <span class="bar" style=b.style.clone()></span>
                                <span>{grouped(b.tokens)}</span>
                            </div>
                        }).collect_view()}
                    </div>
                    {t.lines.iter().map(|l| view! {
                        <details class="corpus-spread">
                            <summary>{l.spread_title.clone()}</summary>
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
