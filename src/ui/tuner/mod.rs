//! The Tuner tab: trigger parameters in, the dry-run schedule and the token chart out, over the
//! simulated conversation, the chat on screen (a demo or the live chat) or a library session
//! chosen under "Conversation", with the real per-turn sizes Inspect measures.

use leptos::prelude::*;

use crate::app::export::show_in_route;
use crate::app::tuner::{COUNTED_EXACT, COUNTED_OWN, TunerEdit, TunerForm};
use crate::app::workbench::Workbench;
use crate::engine::models::{MODEL_WINDOWS, model_of};
use crate::engine::peers::PEER_PRESETS;
use crate::engine::policy::SAMPLES;
use crate::engine::schedule::ScheduleInput;
use crate::route::{Route, TriggerKind};
use crate::ui::run::library_sync::Sessions;
use crate::ui::run::token_service::TokenService;
use crate::ui::widgets::download::DownloadLink;
use crate::ui::widgets::export_policy::ExportPolicy;
use crate::ui::widgets::tokens_chart::{ChartLines, TokensChart, chart_width};
use crate::view::chart::{LineChart, Series, format_tokens};
use crate::view::export::tuner_policy;
use crate::view::tuner::{
    Compared, DEFAULT_TURNS, FieldProblem, LastValid, Tuner, TunerRun, compare_policies_counted,
    comparison_csv, comparison_window, conversation_options, counting_note, field_problem,
    on_screen_input, simulated_input,
};
use crate::view::tuner_conversation::{
    CountedSizes, TunerConversation, chart_caption, counted_sizes, on_screen_turns,
    session_counted, session_input,
};
use crate::view::tuner_fidelity::fidelity_of_rows;
use crate::view::tuner_form::{
    PRICE_FIELDS, PriceField, after_reply, cost_text, field_error_id, model_window_label,
    row_colours,
};

/// The sizes of the conversation chosen: `None` for the simulated one, else the real sizes of
/// the chat on screen or a library session (recounted when a vocabulary arrives or the session changes).
type Conversation = Memo<Option<ScheduleInput>>;
/// The conversation chosen sized with every counter but the default (empty for the simulated
/// one), for the presets compared on it.
type Counted = Memo<CountedSizes>;
/// The last valid trigger, kept through invalid edits.
type LastMemo = Memo<Option<LastValid>>;

#[component]
pub fn TunerTab() -> impl IntoView {
    let route = expect_context::<RwSignal<Route>>();
    let sessions = use_context::<Sessions>();
    let workbench = use_context::<RwSignal<Workbench>>();
    let tokens = use_context::<TokenService>();
    let chosen = RwSignal::new(TunerConversation::Simulated);
    let conversation: Conversation = Memo::new(move |_| {
        let choice = chosen.get();
        let tokens = tokens?;
        // Reading the generation recounts the conversation when a vocabulary arrives.
        tokens.generation();
        let counter = tokens.counter();
        choice.input(
            || workbench?.with(|w| Some(on_screen_input(w.on_screen().memory(), &counter))),
            |id| sessions?.library.with(|l| session_input(l, id, &counter)),
        )
    });
    // The same conversation sized with every counter a preset can be measured with.
    let counted: Counted = Memo::new(move |_| {
        let choice = chosen.get();
        let Some(tokens) = tokens else {
            return CountedSizes::new();
        };
        tokens.generation();
        let counter = tokens.counter();
        conversation
            .with(|base| {
                let base = base.as_ref()?;
                choice.input(
                    || {
                        workbench?
                            .with(|w| Some(counted_sizes(w.on_screen().memory(), base, &counter)))
                    },
                    |id| {
                        sessions?
                            .library
                            .with(|l| session_counted(l, id, base, &counter))
                    },
                )
            })
            .unwrap_or_default()
    });
    let on_screen_turns = Memo::new(move |_| workbench.and_then(|w| w.with(on_screen_turns)));
    let options = Memo::new(move |_| {
        let on_screen = on_screen_turns.get();
        match sessions {
            Some(s) => s.library.with(|l| conversation_options(l, on_screen)),
            None => conversation_options(&Default::default(), on_screen),
        }
    });
    // The last trigger whose fields worked together: drawn, marked, while they do not.
    let last_valid: LastMemo = Memo::new(move |previous: Option<&Option<LastValid>>| {
        route.with(|r| LastValid::after(r, previous.and_then(Option::as_ref)))
    });
    let tuner = Memo::new(move |_| {
        last_valid.with(|last| {
            conversation.with(|c| route.with(|r| Tuner::on_after(r, c.as_ref(), last.as_ref())))
        })
    });
    // Which field the parameters' problem is about, said beside it.
    let problem =
        Memo::new(move |_| tuner.with(|t| t.outcome.as_ref().err().and_then(field_problem)));
    provide_context(problem);
    // Memos, so the parameter inputs are rebuilt only when the trigger kind (or the kind of
    // conversation) changes, not on every keystroke (which would steal the focus from the field
    // being typed in).
    let kind = Memo::new(move |_| tuner.with(|t| t.kind));
    let session_turns = Memo::new(move |_| conversation.with(|c| c.as_ref().map(|c| c.turns)));

    view! {
        <section class="panel tuner" data-testid="panel-tuner">
            <h2>"Tuner"</h2>
            <p class="hint">
                "Change the trigger and watch, turn by turn, what each request would hold. "
                "Nothing is sent anywhere: this is a dry run with an instant summariser."
            </p>
            <form class="controls" on:submit=|ev| ev.prevent_default()>
                <label>
                    "Conversation"
                    <select
                        data-testid="tuner-conversation"
                        on:change=move |ev| {
                            chosen.set(TunerConversation::from_value(&event_target_value(&ev)));
                        }
                    >
                        {move || {
                            options
                                .get()
                                .into_iter()
                                .map(|o| {
                                    let value = o.value.clone();
                                    let selected = move || chosen.with(|c| c.value() == value);
                                    view! { <option value=o.value selected=selected>{o.label}</option> }
                                })
                                .collect_view()
                        }}
                    </select>
                </label>
                <label>
                    "Trigger"
                    <select
                        data-testid="trigger"
                        on:change=move |ev| {
                            let edit = TunerEdit::Trigger(event_target_value(&ev));
                            route.update(|r| edit.apply(r));
                        }
                    >
                        {TriggerKind::LINKED
                            .into_iter()
                            .map(|k| {
                                view! {
                                    <option value=k.slug() selected=move || kind.get() == k>
                                        {k.label()}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </label>
                {move || (kind.get() == TriggerKind::Window).then(|| view! { <ModelWindowPicker /> })}
                {move || {
                    kind.get()
                        .fields()
                        .into_iter()
                        .map(|f| view! { <NumberField param=f.param label=f.label default=f.default max=f.slider_max /> })
                        .collect_view()
                }}
                {move || match session_turns.get() {
                    None => view! {
                        <NumberField param="turns" label="Turns to simulate" default=DEFAULT_TURNS max=200 />
                    }
                    .into_any(),
                    Some(turns) => view! {
                        <p class="hint" data-testid="tuner-session-turns">
                            "Runs on the conversation's " {turns} " turns with their exact token counts "
                            "(\"Turns to simulate\" applies to the simulated conversation only)."
                        </p>
                    }
                    .into_any(),
                }}
            </form>
            // The Tuner's trigger with the rest of the policy panel's policy, on the
            // conversation chosen above.
            <ExportPolicy
                policy=Signal::derive(move || match workbench {
                    Some(w) => w.with(|w| route.with(|r| tuner_policy(r, w.current_policy()))),
                    None => Err("there is no policy on screen".to_owned()),
                })
                facts=Signal::derive(move || workbench.map(|w| w.with(|w| w.policy.facts.clone())).unwrap_or_default())
                conversation=Signal::derive(move || conversation.get().unwrap_or_else(|| route.with(simulated_input)))
                on_import=Callback::new(move |policy: crate::engine::policy::Policy| {
                    let shown = route.try_update(|r| show_in_route(r, &policy)).unwrap_or(Ok(()));
                    if let Some(w) = workbench {
                        w.update(|w| w.import_policy(policy));
                    }
                    shown
                })
            />
            {move || {
                tuner.with(|t| match (&t.outcome, &t.last_valid) {
                    (Ok(run), _) => {
                        view! { <RunView run=run.clone() simulated=t.simulated /> }.into_any()
                    }
                    (Err(_), Some((last, run))) => view! {
                        <p class="warning" data-testid="tuner-last-valid">
                            "The fields above do not work together, so the schedule and chart below "
                            "still show the last valid policy (" {last.words.clone()} "), not what is typed."
                        </p>
                        <div class="last-valid"><RunView run=run.clone() simulated=t.simulated /></div>
                    }
                    .into_any(),
                    (Err(_), None) => view! {
                        <p class="warning" data-testid="tuner-nothing-drawn">{t.nothing_drawn()}</p>
                    }
                    .into_any(),
                })
            }}
            <ComparePolicies conversation counted last_valid />
        </section>
    }
}

/// Other systems' policies beside the Tuner's own, on the same conversation: a table
/// (with an estimated cost from editable prices, and a CSV download) and one line each.
#[component]
fn ComparePolicies(
    conversation: Conversation,
    counted: Counted,
    last_valid: LastMemo,
) -> impl IntoView {
    let route = expect_context::<RwSignal<Route>>();
    // The presets ticked live in the link (`?compare=`), so a reload keeps them.
    let chosen = Memo::new(move |_| route.with(|r| r.compare.clone()));
    // The prices as typed; the cost stays at the last valid ones while one is wrong.
    let form = RwSignal::new(TunerForm::default());
    let prices = Memo::new(move |_| form.with(TunerForm::prices));
    // How the presets are counted: each library's own counter, or exact counts.
    let counting = Memo::new(move |_| form.with(TunerForm::counting));
    let simulated = Memo::new(move |_| conversation.with(Option::is_none));
    let outcomes = Memo::new(move |_| {
        let prices = prices.get();
        let counting = counting.get();
        conversation.with(|conv| {
            counted.with(|sized| {
                last_valid.with(|last| {
                    chosen.with(|c| {
                        route.with(|r| {
                            compare_policies_counted(
                                r,
                                conv.as_ref(),
                                sized,
                                c,
                                prices,
                                last.as_ref(),
                                &counting,
                            )
                        })
                    })
                })
            })
        })
    });
    let note = Memo::new(move |_| counting.with(|c| counting_note(simulated.get(), c)));
    let price = move |PriceField {
                          name,
                          testid,
                          label,
                      }: PriceField| {
        let error = Memo::new(move |_| form.with(|f| f.field_error(name)));
        let error_id = field_error_id(name);
        view! {
            <label class="number">
                <span>{label}</span>
                <input type="number" min="0" step="0.01" data-testid=testid
                    // Only typing changes a price, so the text is set once and never written
                    // back over what is being typed.
                    prop:value=form.with_untracked(|f| f.text(name))
                    aria-invalid=move || error.with(Option::is_some).then_some("true")
                    aria-describedby={
                        let id = error_id.clone();
                        move || error.with(Option::is_some).then(|| id.clone())
                    }
                    on:input=move |ev| {
                        let edit = TunerEdit::Price(name, event_target_value(&ev));
                        form.update(|f| f.edit(edit));
                    } />
            </label>
            {move || error.get().map(|message| view! {
                <p class="field-error" id=error_id.clone() data-testid="tuner-field-error" data-param=name role="alert">
                    {message}
                </p>
            })}
        }
    };
    view! {
        <section class="compare" aria-labelledby="compare-heading">
            <h3 id="compare-heading">"Compare with other systems"</h3>
            <p class="hint">
                "Each preset reproduces a system's documented policy (when it fires, what it keeps, "
                "where the summary goes), not its prompt or model, on the conversation above at a "
                {move || route.with(comparison_window).to_string()}
                "-token window (pick a model under the window trigger, or set ?context=)."
            </p>
            <fieldset class="presets">
                <legend>"Policies"</legend>
                {PEER_PRESETS.iter().map(|p| {
                    let slug = p.slug;
                    view! {
                        <label class="preset" title=p.source>
                            <input type="checkbox" data-testid="compare-preset" data-preset=slug
                                prop:checked=move || chosen.with(|c| c.contains(&slug))
                                on:change=move |ev| {
                                    let edit = TunerEdit::Compared(slug, event_target_checked(&ev));
                                    route.update(|r| edit.apply(r));
                                } />
                            {p.system}
                        </label>
                    }
                }).collect_view()}
            </fieldset>
            <div class="controls">
                <label>
                    "Presets counted with"
                    <select
                        data-testid="compare-counters"
                        on:change=move |ev| {
                            form.update(|f| f.edit(TunerEdit::Counters(event_target_value(&ev))));
                        }
                    >
                        <option value=COUNTED_OWN selected=move || !counting.get().exact>
                            "Each library's own default counter"
                        </option>
                        <option value=COUNTED_EXACT selected=move || counting.get().exact>
                            "Exact o200k_base counts (as if you passed a tiktoken counter)"
                        </option>
                    </select>
                </label>
                {move || simulated.get().then(|| view! {
                    <label>
                        "Language of the simulated conversation"
                        <select
                            data-testid="tuner-language"
                            on:change=move |ev| {
                                form.update(|f| f.edit(TunerEdit::Language(event_target_value(&ev))));
                            }
                        >
                            {SAMPLES.into_iter().map(|s| view! {
                                <option value=s.slug selected=move || counting.get().sample.slug == s.slug>
                                    {s.label}
                                </option>
                            }).collect_view()}
                        </select>
                    </label>
                })}
                {PRICE_FIELDS.into_iter().map(price).collect_view()}
            </div>
            <p class="hint" data-testid="compare-counting">{move || note.get()}</p>
            {move || outcomes.with(|rows| view! { <CompareTable rows=rows.clone() /> })}
        </section>
    }
}

#[component]
fn CompareTable(rows: Vec<Compared>) -> impl IntoView {
    let csv = StoredValue::new(comparison_csv(&rows));
    let colours = row_colours(&rows);
    let chart = (!rows.is_empty()).then(|| {
        LineChart::new(
            rows.iter()
                .zip(&colours)
                .map(|(row, colour)| Series {
                    label: "",
                    class: colour.line,
                    values: row
                        .outcome
                        .schedule
                        .rows
                        .iter()
                        .map(|r| r.tokens as f64)
                        .collect(),
                })
                .collect(),
            chart_width(),
            260.0,
        )
    });
    let same_as_this = rows.iter().any(|r| r.same_as_this_policy);
    let notes: Vec<(String, &'static str)> = rows
        .iter()
        .filter_map(|r| {
            PEER_PRESETS
                .iter()
                .find(|p| p.system == r.outcome.label)
                .and_then(|p| p.approximation.map(|a| (r.outcome.label.clone(), a)))
        })
        .collect();
    let fidelity = fidelity_of_rows(rows.iter().map(|r| r.outcome.label.as_str()));
    view! {
        <div class="table-wrap" tabindex="0" role="region" aria-label="The policies compared (scrolls sideways)">
            <table class="compare-table">
                <thead>
                    <tr>
                        <th scope="col">"Policy"</th>
                        <th scope="col">"Summariser calls"</th>
                        <th scope="col">"Tokens sent (chat + summariser)"</th>
                        <th scope="col">"Largest request"</th>
                        <th scope="col">"First folds after turn"</th>
                        <th scope="col">"Turns over the window"</th>
                        <th scope="col">"Estimated cost"</th>
                        <th scope="col">"Counted with"</th>
                    </tr>
                </thead>
                <tbody>
                    {rows.iter().zip(&colours).map(|(row, colour)| {
                        let r = &row.outcome;
                        view! {
                        <tr data-testid="compare-row" data-policy=r.label.clone()>
                            <th scope="row"><span class=colour.key aria-hidden="true"></span>{r.label.clone()}
                                {row.same_as_this_policy.then(|| view! {
                                    <span class="hint" data-testid="same-schedule">" (same schedule as this policy: dashed over its line)"</span>
                                })}
                                {row.last_valid.then(|| view! {
                                    <span class="hint" data-testid="compare-last-valid">" (the last valid parameters)"</span>
                                })}
                            </th>
                            <td>{r.calls}</td>
                            <td>{r.tokens_in}</td>
                            <td>{r.largest}</td>
                            <td>{r.first_fold.map_or("never".to_owned(), |t| t.to_string())}</td>
                            <td>{r.over_window}</td>
                            <td>{cost_text(r.cost)}</td>
                            <td data-testid="compare-counter">{row.counted_with.clone()}</td>
                        </tr>
                    }}).collect_view()}
                </tbody>
            </table>
        </div>
        {(!notes.is_empty()).then(|| view! {
            <ul class="hint">
                {notes.into_iter().map(|(system, note)| view! { <li>{system} ": " {note}</li> }).collect_view()}
            </ul>
        })}
        {(!fidelity.is_empty()).then(|| view! {
            <section class="fidelity" aria-label="How exact each preset is">
                <h4>"How exact each preset is"</h4>
                <p class="hint">
                    "Checked request by request against the real library on the fidelity conversations "
                    "(tests/fidelity/), with a word counter and a fake summariser."
                </p>
                <ul>
                    {fidelity.into_iter().map(|f| view! {
                        <li data-testid="peer-preset" data-preset=f.slug data-exactness=f.exactness>
                            <strong>{f.system}</strong>" ("{f.exactness}"): "
                            <span data-testid="preset-source">{f.source}</span>". "
                            {f.verdict}"."
                        </li>
                    }).collect_view()}
                </ul>
            </section>
        })}
        {match chart {
            Some(chart) => view! {
                <figure class="chart" data-testid="compare-chart">
                    <ChartLines chart=chart label="Tokens sent per request under each policy compared" />
                    <figcaption>
                        "Tokens per request, one line per policy (colours as in the table)."
                        {same_as_this.then_some(" A dashed line has the same schedule as this policy and is drawn over its line.")}
                    </figcaption>
                </figure>
            }
            .into_any(),
            None => view! {
                <p class="hint" data-testid="compare-nothing">
                    "Nothing to compare yet: tick a policy above, or make the trigger's fields work together."
                </p>
            }
            .into_any(),
        }}
        <p>
            <DownloadLink testid="compare-csv" file_name="summary-memory-policies.csv"
                mime="text/csv;charset=utf-8" text=UnsyncCallback::new(move |()| csv.get_value())>
                "Download the table as CSV"
            </DownloadLink>
        </p>
    }
}

/// The context window's presets: picking a model sets the window (which stays editable).
#[component]
fn ModelWindowPicker() -> impl IntoView {
    let route = expect_context::<RwSignal<Route>>();
    let context = move || {
        route
            .with(|r| r.number("context"))
            .unwrap_or_else(|| TriggerKind::default_of("context"))
    };
    view! {
        <label>
            "Model"
            <select
                data-testid="model-window"
                on:change=move |ev| {
                    let edit = TunerEdit::ModelWindow(event_target_value(&ev));
                    route.update(|r| edit.apply(r));
                }
            >
                <option value="" selected=move || model_of(context()).is_none()>"Other (type the window)"</option>
                {MODEL_WINDOWS
                    .iter()
                    .map(|m| {
                        let value = m.context.to_string();
                        let model = m.model;
                        view! {
                            <option
                                value=value
                                selected=move || model_of(context()).is_some_and(|p| p.model == model)
                            >
                                {model_window_label(m)}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </label>
    }
}

/// A number input with a slider beside it, both bound to one query parameter; when the
/// parameters' problem is about this field, it is said right under it and the input is marked.
#[component]
fn NumberField(param: &'static str, label: &'static str, default: u32, max: u32) -> impl IntoView {
    let route = expect_context::<RwSignal<Route>>();
    let problem = use_context::<Memo<Option<FieldProblem>>>();
    let here = Memo::new(move |_| {
        problem
            .and_then(|p| p.get())
            .filter(|p| p.param == param)
            .map(|p| p.message)
    });
    let error_id = field_error_id(param);
    let value = move || route.with(|r| r.number(param).unwrap_or(default).to_string());
    let set = move |ev: leptos::ev::Event| {
        let edit = TunerEdit::Number(param, event_target_value(&ev));
        route.update(|r| edit.apply(r));
    };
    view! {
        <div class="number-field">
            <label class="number">
                <span>{label}</span>
                <input type="number" min="0" data-testid=param prop:value=value on:input=set
                    aria-invalid=move || here.with(Option::is_some).then_some("true")
                    aria-describedby={
                        let id = error_id.clone();
                        move || here.with(Option::is_some).then(|| id.clone())
                    } />
                <input type="range" min="0" max=max.to_string() aria-label=label prop:value=value on:input=set />
            </label>
            {move || here.get().map(|message| view! {
                <p class="field-error" id=error_id.clone() data-testid="tuner-field-error" data-param=param role="alert">
                    {message}
                </p>
            })}
        </div>
    }
}

#[component]
fn RunView(run: TunerRun, simulated: bool) -> impl IntoView {
    let calls = run.schedule.calls;
    let last = run.comparison.rows.last().cloned();
    let window_turns = run.comparison.window_turns;
    let loop_risk = run.loop_risk;
    view! {
        {loop_risk.map(|risk| view! {
            <p class="warning" role="alert" data-testid="loop-warning">{risk.to_string()}</p>
        })}
        <p class="calls">
            "Summariser calls: " <strong data-testid="summariser-calls">{calls}</strong>
            {last.map(|l| view! {
                <span class="totals">
                    " · tokens sent in all: summary memory " {format_tokens(l.summary_total as f64)}
                    ", sliding window of " {window_turns} " turns " {format_tokens(l.window_total as f64)}
                    ", full history " {format_tokens(l.full_total as f64)}
                </span>
            })}
        </p>
        <TokensChart
            comparison=run.comparison.clone()
            caption=chart_caption(simulated)
        />
        // Wider than a phone: it scrolls sideways on purpose, and the keyboard can scroll it.
        <div class="table-wrap" tabindex="0" role="region" aria-label="The schedule, one row per turn (scrolls sideways)">
            <table class="schedule">
                <thead>
                    <tr>
                        <th scope="col">"Turn"</th>
                        <th scope="col">"The request holds"</th>
                        <th scope="col">"Messages"</th>
                        <th scope="col">"Tokens"</th>
                        <th scope="col">"After the reply"</th>
                    </tr>
                </thead>
                <tbody>
                    {run.schedule.rows.iter().map(|row| {
                        let fires = row.folds.is_some();
                        view! {
                            <tr
                                data-testid="schedule-row"
                                data-turn=row.turn
                                data-summarised-to=row.summarised_to
                                data-verbatim=row.verbatim_list()
                                class:fires=fires
                            >
                                <td>{row.turn}</td>
                                <td>{row.describe()}</td>
                                <td>{row.messages}</td>
                                <td>{row.tokens}</td>
                                <td>{after_reply(row)}</td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}
