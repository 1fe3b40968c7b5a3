//! The session's probes: the probe set (added from pinned facts and rules, by the model, or
//! typed; each question editable, each probe removable), the judge's prompt and model, the
//! estimate before a run, the run's progress with Stop and Retry, and the matrix (a cell per
//! probe and edition, its answer and the judge's quote on demand) with a score per edition.
//! Every change goes into the session through the library ([`Library::set_probes`]), so it is
//! saved and exported with it; the matrix needs no network. What the run does is
//! [`crate::app::probes`], performed by [`ProbeRunner`]; the words come from
//! [`crate::view::probes`].
//!
//! [`Library::set_probes`]: crate::app::library::Library::set_probes

use leptos::prelude::*;

use crate::app::live_replay::replay_settings;
use crate::app::probe_draft::{ProbeDraft, ProbeDraftEdit};
use crate::app::probes::{add_generated, edit_question, estimate, judge_settings};
use crate::engine::library_session::{ProbeSet, Session};
use crate::engine::probes::points;
use crate::engine::settings::{Settings, ValidSettings};
use crate::ui::run::clock::now_ms;
use crate::ui::run::library_sync::Sessions;
use crate::ui::run::probe_runner::ProbeRunner;
use crate::ui::widgets::run_controls::RunControls;
use crate::view::probes::{generated_note, matrix, models_note, written_note};
use crate::view::run::{Job, Run, RunView, estimate_line};

/// The probes of session `id`, whose content is `session`.
#[component]
pub fn Probes(id: String, session: Session) -> impl IntoView {
    let sessions = expect_context::<Sessions>();
    let runner = expect_context::<ProbeRunner>();
    let settings = use_context::<RwSignal<Settings>>();
    let counter = sessions.tokens.counter();
    let at = StoredValue::new(points(&session, &counter));
    let shown = StoredValue::new(session);
    let id = StoredValue::new(id);
    let editions = at.with_value(Vec::len);
    if editions == 0 {
        return view! {
            <section class="probes" data-testid="probes">
                <h4>"Probes"</h4>
                <p class="hint" data-testid="probes-none">"A probe is asked at each edition, and this session has none yet."</p>
            </section>
        }
        .into_any();
    }
    // Every edit goes through here: the new set, written to the library when it changed.
    let save = move |edit: &dyn Fn(&mut ProbeSet) -> Result<(), String>| -> Result<(), String> {
        let mut set = shown.with_value(|s| s.probes.clone());
        edit(&mut set)?;
        match sessions
            .library
            .try_update(|l| l.set_probes(&id.get_value(), set, now_ms()))
        {
            Some(Err(e)) => Err(e.to_string()),
            _ => Ok(()),
        }
    };
    let note = RwSignal::new(None::<Result<String, String>>);
    let generate = move |_| {
        let counter = sessions.tokens.counter();
        let mut session = shown.get_value();
        let added = add_generated(&mut session, &counter);
        let result = save(&|set| {
            *set = session.probes.clone();
            Ok(())
        });
        note.set(Some(result.map(|()| generated_note(added))));
    };
    let draft = RwSignal::new(ProbeDraft::default());
    let add = move |_| {
        let typed = shown.with_value(|s| draft.with_untracked(|d| d.probe(s)));
        let result = typed.and_then(|probe| {
            save(&|set| {
                if set.add([probe.clone()]) == 0 {
                    return Err("The set already asks that question.".to_owned());
                }
                Ok(())
            })
        });
        note.set(Some(result.map(|()| "Added your probe.".to_owned())));
    };
    // What the page shows reads the settings; a run binds a key typed before any base URL to
    // the origin it is about to reach first, as the live chat does.
    let check = move || -> Result<ValidSettings, String> {
        let settings = settings.ok_or_else(|| "no settings".to_owned())?;
        settings.with(replay_settings)
    };
    let endpoint = move || {
        if let Some(settings) = settings {
            settings.update(Settings::bind_key);
        }
        check().map(|valid| judge_settings(&valid, &runner.judge.get_untracked()))
    };
    let running = move || runner.running(&id.get_value());
    let writing = move || {
        runner
            .writing
            .with(|w| w.as_deref() == Some(id.get_value().as_str()))
    };
    let begin = move |_| {
        if let Ok(valid) = endpoint() {
            runner.start(sessions, id.get_value(), valid);
        }
    };
    let write = move |_| {
        if let Ok(valid) = endpoint() {
            runner.write_probes(sessions, id.get_value(), valid);
        }
    };
    let cost = shown.with_value(|s| estimate(s, &counter));
    let (calls, tokens, cost_line) = (
        cost.calls,
        cost.tokens_sent,
        estimate_line(Job::Probes, &cost, None),
    );
    let (judge_prompt, writer_prompt) = shown.with_value(|s| {
        (
            s.probes.judge_prompt.clone(),
            s.probes.writer_prompt.clone(),
        )
    });
    let prompt_error = RwSignal::new(None::<String>);
    let set_prompt = move |judge: bool, text: String| {
        let result = save(&|set| {
            if text.trim().is_empty() {
                return Err("A prompt cannot be empty; the last one is kept.".to_owned());
            }
            if judge {
                set.judge_prompt = text.trim().to_owned();
            } else {
                set.writer_prompt = text.trim().to_owned();
            }
            Ok(())
        });
        prompt_error.set(result.err());
    };
    let the_run = move || {
        runner.run.with(|r| {
            r.as_ref()
                .filter(|(rid, _)| *rid == id.get_value())
                .map(|(_, run)| {
                    let now = Run {
                        status: run.status(),
                        progress: run.progress(),
                        pace: None,
                    };
                    RunView::new(Job::Probes, Some(now), None, None)
                })
        })
    };

    view! {
        <section class="probes" data-testid="probes">
            <h4>"Probes"</h4>
            <p class="hint">"Questions whose answers the archive holds but the newest turns no longer do. Each is asked at every edition from only what that edition's request held, and a judge model grades the answer against the archive."</p>
            <p>
                <button type="button" data-testid="probes-generate" on:click=generate disabled=running>
                    "Add probes from the pinned facts and rules"
                </button>
            </p>
            <div class="probe-add">
                <label>"Question " <input data-testid="probe-question" prop:value=move || draft.with(|d| d.question.clone())
                    on:input=move |ev| draft.update(|d| d.edit(ProbeDraftEdit::Question(event_target_value(&ev)))) /></label>
                <label>"Answered by message " <input data-testid="probe-message" inputmode="numeric" size="4" prop:value=move || draft.with(|d| d.message.clone())
                    on:input=move |ev| draft.update(|d| d.edit(ProbeDraftEdit::Message(event_target_value(&ev)))) />
                    {move || draft.with(ProbeDraft::message_error).map(|e| view! { <span class="param-error" role="alert" data-testid="probe-message-error">{e}</span> })}
                </label>
                <label>"in the words " <input data-testid="probe-quote" placeholder="the whole message" prop:value=move || draft.with(|d| d.quote.clone())
                    on:input=move |ev| draft.update(|d| d.edit(ProbeDraftEdit::Quote(event_target_value(&ev)))) /></label>
                <button type="button" data-testid="probe-add" on:click=add disabled=running>"Add the probe"</button>
            </div>
            {move || note.get().map(|n| match n {
                Ok(text) => view! { <p role="status" data-testid="probes-note">{text}</p> }.into_any(),
                Err(text) => view! { <p class="param-error" role="alert" data-testid="probes-error">{text}</p> }.into_any(),
            })}
            {move || {
                let m = shown.with_value(|s| {
                    runner.run.with(|r| {
                        let run = r.as_ref().filter(|(rid, _)| *rid == id.get_value()).map(|(_, run)| run);
                        at.with_value(|p| matrix(s, p, run, &sessions.tokens.counter()))
                    })
                });
                (!m.rows.is_empty()).then(|| view! {
                    <table class="probe-matrix" data-testid="probe-matrix">
                        <thead><tr>
                            <th scope="col">"Probe"</th>
                            {m.cycles.iter().map(|c| view! { <th scope="col">"Edition "{*c}</th> }).collect_view()}
                        </tr></thead>
                        <tbody>
                            {m.rows.into_iter().map(|row| {
                                let probe = row.id;
                                let error = RwSignal::new(None::<String>);
                                view! {
                                    <tr data-testid="probe-row" data-probe=probe data-source=row.source>
                                        <th scope="row">
                                            <input data-testid="probe-edit" aria-label="Question" value=row.question.clone() disabled=running
                                                on:change=move |ev| error.set(save(&|set| edit_question(set, probe, &event_target_value(&ev))).err()) />
                                            " "
                                            <button type="button" data-testid="probe-remove" disabled=running
                                                on:click=move |_| error.set(save(&|set| { set.remove(probe); Ok(()) }).err())>"Remove"</button>
                                            <span class="hint">{row.evidence}</span>
                                            {move || error.get().map(|e| view! { <span class="param-error" role="alert">{e}</span> })}
                                        </th>
                                        {row.cells.into_iter().map(|cell| {
                                            let class = cell.class();
                                            let details = cell.answer.map(|answer| view! {
                                                <details>
                                                    <summary>{cell.mark}</summary>
                                                    <p data-testid="probe-answer"><strong>"Answer: "</strong>{answer}</p>
                                                    <p data-testid="probe-evidence"><strong>"The judge quoted: "</strong>{cell.evidence.unwrap_or_default()}</p>
                                                </details>
                                            });
                                            let plain = details.is_none().then_some(cell.mark);
                                            view! {
                                                <td data-testid="probe-cell" data-grade=cell.grade data-probe=probe data-cycle=cell.cycle title=cell.reason class=class>
                                                    {details}{plain}
                                                </td>
                                            }
                                        }).collect_view()}
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                        <tfoot><tr>
                            <th scope="row">"Score"</th>
                            {m.scores.into_iter().map(|s| view! {
                                <td data-testid="probe-score" data-cycle=s.cycle data-score=s.score>{s.text}</td>
                            }).collect_view()}
                        </tr></tfoot>
                    </table>
                })
            }}
            {move || match check() {
                Err(reason) => view! {
                    <p class="hint" data-testid="probes-unavailable">
                        "To ask and grade the probes with a model, connect an endpoint in Settings (" {reason} "). The grades already recorded stay readable offline."
                    </p>
                }.into_any(),
                Ok(valid) => {
                    let summariser = valid.summary_model.clone();
                    let judged = judge_settings(&valid, &runner.judge.get());
                    view! {
                        <div class="probe-judge">
                            <label>"Judge model " <input data-testid="probes-judge-model" placeholder=summariser.clone()
                                prop:value=move || runner.judge.get() on:change=move |ev| runner.judge.set(event_target_value(&ev)) /></label>
                            <label class="prompt">"The judge's prompt"
                                <textarea data-testid="probes-judge-prompt" rows="5" on:change=move |ev| set_prompt(true, event_target_value(&ev))>{judge_prompt.clone()}</textarea>
                            </label>
                            <label class="prompt">"The prompt that asks the model for probes"
                                <textarea data-testid="probes-writer-prompt" rows="4" on:change=move |ev| set_prompt(false, event_target_value(&ev))>{writer_prompt.clone()}</textarea>
                            </label>
                            {move || prompt_error.get().map(|e| view! { <p class="param-error" role="alert">{e}</p> })}
                            <p>
                                <button type="button" data-testid="probes-write" on:click=write disabled=move || running() || writing()>
                                    "Ask the model to write probes from the folded turns"
                                </button>
                                {move || writing().then_some(" Writing…")}
                                {move || runner.written.with(|w| w.as_ref().filter(|(wid, _)| *wid == id.get_value()).map(|(_, r)| match r {
                                    Ok(n) => view! { <span role="status" data-testid="probes-written" data-added=*n>{written_note(*n)}</span> }.into_any(),
                                    Err(e) => view! { <span class="param-error" role="alert" data-testid="probes-written-error">" "{e.clone()}</span> }.into_any(),
                                }))}
                            </p>
                        </div>
                        <div class="estimate" role="status" data-testid="probes-estimate" data-calls=calls data-tokens=tokens>
                            <p>{cost_line.clone()}</p>
                            <p class="hint">{models_note(&judged, &summariser)}</p>
                            <p>
                                <button type="button" data-testid="probes-run" on:click=begin
                                    disabled=move || calls == 0 || running() || writing()>"Run the probes"</button>
                            </p>
                        </div>
                    }.into_any()
                }
            }}
            {move || the_run().map(|view| view! {
                <RunControls prefix="probes" view on_stop=UnsyncCallback::new(move |()| runner.stop())
                    on_resume=UnsyncCallback::new(move |()| runner.retry(sessions)) />
            })}
        </section>
    }
    .into_any()
}
