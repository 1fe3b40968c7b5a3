//! "Two summarisers side by side": the open session's folds replayed under side A and side B
//! (each a summariser model, prompt, word limit and format, or A as the editions another tool
//! recorded), priced before anything is sent, then run with progress, Stop and Try again, and
//! shown as one row per cycle: both sides' editions with their checks and the word diff from
//! A to B. Finished, the two sides save as a pair of library sessions; a saved side reopened
//! shows the same rows from the stored pair, with no network. What to do next is decided by
//! [`crate::app::ab`]; the requests are performed by the one [`Runner`]; every text comes from
//! [`crate::view::ab`] and [`crate::view::run`].

use leptos::prelude::*;

use crate::app::ab::{
    AbEdit, AbForm, SideForm, ab_answered, ab_call, ab_price, resume_ab, start_ab,
};
use crate::app::live_replay::SummaryCall;
use crate::engine::ab::{AbJob, AbRun};
use crate::engine::library_session::{PairSide, Session};
use crate::engine::policy::{Choice, SummaryFormat};
use crate::engine::prompts::PresetId;
use crate::engine::settings::{Settings, ValidSettings};
use crate::ui::run::clock::now_ms;
use crate::ui::run::library_sync::{Sessions, new_id};
use crate::ui::run::runner::{Reply, Runner, settings_to_send, summariser_settings};
use crate::ui::run::token_service::SharedCounter;
use crate::ui::widgets::edition_card::{DiffText, EditionChecksView, MarkedText};
use crate::ui::widgets::run_controls::RunControls;
use crate::view::ab::{
    AbScreen, PairRowView, ProbeScore, SideHooks, ab_view, describe_folds, side_hooks,
};
use crate::view::editions::EditionCard;
use crate::view::run::{Job, estimate_line};

/// The A/B section of one session's detail.
#[component]
pub fn AbSection(session: Session) -> impl IntoView {
    let settings = use_context::<RwSignal<Settings>>();
    let sessions = use_context::<Sessions>();
    let default_model = settings
        .map(|s| s.with_untracked(|s| s.summary_model.clone()))
        .unwrap_or_default();
    let form = RwSignal::new(AbForm::of(&session, &default_model));
    let session = StoredValue::new(session);
    let run = RwSignal::new(None::<AbRun>);
    let outcome = RwSignal::new(None::<Result<Box<[Session; 2]>, String>>);
    let saved = RwSignal::new(false);
    // Leaving the session stops what is in flight.
    let runner = Runner::owned(run);
    let check = move || summariser_settings(settings);
    let endpoint = move || settings_to_send(settings);
    let busy = move || runner.is(AbRun::is_running);
    let price = Memo::new(move |_| {
        let sessions = sessions?;
        let valid = check().ok()?;
        sessions.tokens.generation();
        let counter = sessions.tokens.counter();
        Some(form.with(|f| session.with_value(|s| ab_price(s, f, &valid, &counter))))
    });
    let begin = move |_| {
        let (Some(sessions), Ok(valid)) = (sessions, endpoint()) else {
            return;
        };
        let counter = sessions.tokens.counter();
        let started =
            form.with_untracked(|f| session.with_value(|s| start_ab(s, f, &new_id(), &counter)));
        outcome.set(None);
        saved.set(false);
        match started {
            Ok((started, step)) => {
                let (call, answered, after) = perform(valid, counter, outcome);
                let (first, over) = step.split();
                after(over);
                runner.start(started, first, call, answered, after);
            }
            Err(error) => outcome.set(Some(Err(error))),
        }
    };
    let halt = move |()| runner.stop(AbRun::stop);
    let resume = move |()| {
        let (Some(sessions), Ok(valid)) = (sessions, endpoint()) else {
            return;
        };
        let (call, answered, after) = perform(valid, sessions.tokens.counter(), outcome);
        let again = |r: &mut AbRun| resume_ab(r).and_then(|step| step.split().0);
        runner.go_on(again, call, answered, after);
    };
    let save = move |_| {
        let (Some(sessions), Some(Ok(sides))) = (sessions, outcome.get_untracked()) else {
            return;
        };
        let [a, b] = *sides;
        let added = sessions
            .library
            .try_update(|l| l.add_all([(new_id(), a), (new_id(), b)], now_ms()).len() == 2)
            .unwrap_or(false);
        saved.set(added);
    };
    // What the run shows: each part a memo of its own, so a part is drawn again only when it
    // changes (the finished rows not at each step of the run).
    let screen = Memo::new(move |_| {
        run.with(|r| outcome.with(|o| AbScreen::of(r.as_ref(), o.as_ref(), saved.get())))
    });
    let run_view = Memo::new(move |_| screen.with(|s| s.run.clone()));
    let so_far = Memo::new(move |_| screen.with(|s| s.so_far.clone()));
    let result = Memo::new(move |_| screen.with(|s| s.result.clone()));
    let saved_line = Memo::new(move |_| screen.with(|s| s.saved));
    // A saved side: its pair's rows from the two stored sessions.
    let stored = Memo::new(move |_| {
        let sessions = sessions?;
        session.with_value(|s| {
            let link = s.pair.as_ref()?;
            sessions.library.with(|l| {
                let other = crate::app::ab::partner(s, l.list().iter().map(|e| &e.session))?;
                Some(match link.side {
                    PairSide::A => ab_view(s, other),
                    PairSide::B => ab_view(other, s),
                })
            })
        })
    });

    view! {
        <section class="ab" data-testid="ab">
            <h4>"Two summarisers side by side"</h4>
            {move || stored.get().map(|v| view! {
                <div class="ab-stored" data-testid="ab-stored">
                    <p>{v.stored_line()}</p>
                    <AbRows view=v />
                </div>
            })}
            <p class="hint">"Replay this session's folds under two summarisers, on the same fold points, and compare their editions cycle by cycle. Each side's summaries go to its own model on the endpoint."</p>
            {move || match check() {
                Err(reason) => view! {
                    <p class="hint" data-testid="ab-unavailable">
                        "To compare two summarisers, connect an endpoint in Settings (" {reason} ")."
                    </p>
                }.into_any(),
                Ok(_) => view! {
                    <form class="controls ab-form" on:submit=|ev| ev.prevent_default()>
                        <fieldset class="contents" disabled=busy>
                            <SideFields form side=PairSide::A />
                            <SideFields form side=PairSide::B />
                        </fieldset>
                    </form>
                    {move || price.get().map(|p| match p {
                        Err(reason) => view! { <p class="param-error" role="alert" data-testid="ab-error">{reason}</p> }.into_any(),
                        Ok((cost, plan)) => view! {
                            <p class="estimate" role="status" data-testid="ab-estimate" data-calls=cost.calls data-sent=cost.tokens_sent>
                                {describe_folds(&plan)} " " {estimate_line(Job::Ab, &cost, None)}
                            </p>
                        }.into_any(),
                    })}
                    <p>
                        <button type="button" data-testid="ab-run" on:click=begin
                            disabled=move || busy() || !matches!(price.get(), Some(Ok(_)))>
                            "Compare A and B"
                        </button>
                    </p>
                }.into_any(),
            }}
            {move || run_view.get().map(|view| view! {
                <RunControls prefix="ab" view on_stop=UnsyncCallback::new(halt) on_resume=UnsyncCallback::new(resume) />
            })}
            // The rows so far, until the finished ones below take their place.
            {move || so_far.get().map(|v| view! { <div class="ab-so-far" data-testid="ab-so-far"><AbRows view=v /></div> })}
            {move || result.get().map(|o| match o {
                Err(reason) => view! { <p class="param-error" role="alert" data-testid="ab-error">{reason}</p> }.into_any(),
                Ok(v) => view! {
                    <div class="ab-result">
                        <AbRows view=v />
                        <p>
                            <button type="button" data-testid="ab-save" on:click=save disabled=move || saved_line.with(Option::is_some)>"Save as a pair"</button>
                            {move || saved_line.get().map(|line| view! { <span role="status" data-testid="ab-saved">{line}</span> })}
                        </p>
                    </div>
                }.into_any(),
            })}
        </section>
    }
}

/// What the comparison's runner performs: each summary's request to its side's model, the
/// answer fed back (the next summary, and both sides once every fold is written, or why it
/// broke off), and where the two sides go.
#[allow(clippy::type_complexity)]
fn perform(
    valid: ValidSettings,
    counter: SharedCounter,
    outcome: RwSignal<Option<Result<Box<[Session; 2]>, String>>>,
) -> (
    impl Fn(&AbJob) -> SummaryCall,
    impl Fn(&mut AbRun, &AbJob, Reply) -> (Option<AbJob>, Option<Result<Box<[Session; 2]>, String>>),
    impl Fn(Option<Result<Box<[Session; 2]>, String>>),
) {
    (
        move |job: &AbJob| ab_call(&valid, job),
        move |r: &mut AbRun, job: &AbJob, reply: Reply| {
            ab_answered(r, job.job.id, reply, &counter).split()
        },
        move |over: Option<Result<Box<[Session; 2]>, String>>| {
            if let Some(result) = over {
                outcome.try_set(Some(result));
            }
        },
    )
}

/// One side's fields: recorded or a model, its prompt preset, word limit and format, each
/// change an [`AbEdit`] to the form, which keeps what was typed and says what is wrong.
#[component]
fn SideFields(form: RwSignal<AbForm>, side: PairSide) -> impl IntoView {
    let hooks = side_hooks(side);
    let get = move |f: fn(&SideForm) -> String| move || form.with(|x| f(x.side(side)));
    let edit = move |to: fn(PairSide, String) -> AbEdit| {
        move |ev: leptos::ev::Event| {
            let value = event_target_value(&ev);
            form.update(|x| x.edit(to(side, value)));
        }
    };
    let recorded = move || form.with(|x| x.side(side).recorded);
    let can_record = form.with_untracked(|x| x.can_record);
    view! {
        <fieldset class="ab-side" data-testid=hooks.fieldset>
            <legend>{hooks.legend}</legend>
            {can_record.then(|| view! {
                <label>
                    <input type="checkbox" data-testid=hooks.recorded prop:checked=recorded
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            form.update(|x| x.edit(AbEdit::Recorded(side, on)));
                        } />
                    " The session's own editions, as recorded"
                </label>
            })}
            <fieldset class="contents" disabled=recorded>
                <label>"Model "
                    <input type="text" data-testid=hooks.model prop:value=get(|s| s.model.clone())
                        on:input=edit(AbEdit::Model) />
                </label>
                <label>"Prompt preset "
                    <select data-testid=hooks.preset on:change=edit(AbEdit::Preset)>
                        {PresetId::BUILT_IN.into_iter().map(|p| view! {
                            <option value=p.slug() selected=move || form.with(|x| x.side(side).preset == p)>{p.label()}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>"Word limit "
                    <input type="number" min="1" data-testid=hooks.word_limit prop:value=get(|s| s.word_limit.clone())
                        on:input=edit(AbEdit::WordLimit) />
                </label>
                <label>"Format "
                    <select data-testid=hooks.format on:change=edit(AbEdit::Format)>
                        {SummaryFormat::CHOICES.iter().map(|&(f, slug, label)| view! {
                            <option value=slug selected=move || form.with(|x| x.side(side).format == f)>{label}</option>
                        }).collect_view()}
                    </select>
                </label>
            </fieldset>
        </fieldset>
    }
}

/// The rows of a comparison: one `ab-pair` per cycle.
#[component]
fn AbRows(view: crate::view::ab::AbView) -> impl IntoView {
    let [ha, hb] = view.headings;
    view! {
        <div class="ab-rows" data-testid="ab-rows">
            <div class="ab-sides ab-headings">
                <strong data-testid="ab-heading-a">{ha.label}</strong>
                <strong data-testid="ab-heading-b">{hb.label}</strong>
            </div>
            {view.rows.into_iter().map(|row| view! { <PairRow row /> }).collect_view()}
        </div>
    }
}

#[component]
fn PairRow(row: PairRowView) -> impl IntoView {
    let PairRowView {
        cycle,
        heading,
        a,
        b,
        diff,
        note,
        score_a,
        score_b,
        ..
    } = row;
    view! {
        <section class="ab-pair" data-testid="ab-pair" data-cycle=cycle>
            <h5>{heading}</h5>
            <div class="ab-sides">
                <SideCard hooks=side_hooks(PairSide::A) card=a score=score_a />
                <SideCard hooks=side_hooks(PairSide::B) card=b score=score_b />
            </div>
            {diff.map(|d| view! {
                <div class="changes">
                    <span class="label">{d.label}</span>
                    <p class="diff" data-testid="ab-diff" data-only-a=d.only_a data-only-b=d.only_b><DiffText segments=d.segments /></p>
                </div>
            })}
            {note.map(|n| view! { <p class="hint" data-testid="ab-note">{n}</p> })}
        </section>
    }
}

#[component]
fn SideCard(
    hooks: SideHooks,
    card: Option<EditionCard>,
    score: Option<ProbeScore>,
) -> impl IntoView {
    view! {
        <div class="ab-card" data-testid=hooks.card>
            {card.map(|card| {
                // The text cut at its figures, or whole when the checks found none to cut at.
                let marked = if card.marked.is_empty() { vec![(card.text.clone(), false)] } else { card.marked.clone() };
                view! {
                <p class="meta">{card.written_by.clone()}</p>
                <p data-testid="ab-summary"><MarkedText marked /></p>
                {score.map(|s| view! { <p class="probe-score" data-testid="ab-probe-score" data-score=s.percent>{s.label}</p> })}
                <EditionChecksView card without_text=true />
                }
            })}
        </div>
    }
}
