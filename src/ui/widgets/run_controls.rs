//! `RunControls`: a long job's run as every job draws it (Inspect's live replay, its A/B
//! comparison, its probes, the corpus comparison, the live chat's summaries): the progress
//! sentence, Stop while it runs, and after a stop or a failure what that means, with Go on or
//! Try again. It draws a [`RunView`] under the job's hooks ([`RunHooks`]) and calls back; it
//! decides nothing.

use leptos::prelude::*;

use crate::view::run::{RunHooks, RunView};

/// The run of a job whose hooks start with `prefix` (`replay-live`, `ab`, `probes`,
/// `corpus`): `{prefix}-progress` (`data-status`, its older name `data-phase`, `data-done`,
/// `data-total`, `data-turn`; for a run of summaries also `data-summaries` and `data-calls`),
/// `{prefix}-stop`, `{prefix}-status`, and `{prefix}-{resume}` (`resume` or `retry`, as the
/// job has always called it); or, given `hooks`, the names it holds (the live chat's summaries
/// keep the names their controls had). `bar` draws a progress bar before the sentence.
#[component]
pub fn RunControls(
    #[prop(optional)] prefix: &'static str,
    view: RunView,
    on_stop: UnsyncCallback<()>,
    /// Goes on after a stop or a failure; a job that cannot has none.
    #[prop(optional)]
    on_resume: Option<UnsyncCallback<()>>,
    #[prop(default = "retry")] resume: &'static str,
    #[prop(optional)] hooks: Option<RunHooks>,
    #[prop(optional)] bar: bool,
) -> impl IntoView {
    let hooks = hooks.unwrap_or_else(|| RunHooks::prefixed(prefix, resume));
    let label = view.resume_label();
    let RunView {
        slug,
        progress,
        done,
        total,
        turn,
        status,
        failed,
        stop,
        summaries,
        ..
    } = view;
    let calls = summaries.then_some(total).flatten();
    let summaries = summaries.then_some(done);
    let resume_button = label.zip(on_resume).map(|(label, go)| {
        view! {
            <button type="button" data-testid=hooks.resume on:click=move |_| go.run(())>
                {label}
            </button>
        }
    });
    view! {
        <div class="live-progress run-controls">
            <p role="status" data-testid=hooks.progress data-status=slug data-phase=slug
                data-done=done data-total=total data-turn=turn data-summaries=summaries data-calls=calls>
                {bar.then(|| view! { <progress max=total.unwrap_or(0) value=done></progress> " " })}
                {progress}
            </p>
            {stop.then(|| view! {
                <p><button type="button" data-testid=hooks.stop on:click=move |_| on_stop.run(())>"Stop"</button></p>
            })}
            {status.map(|line| view! {
                <p class=failed.then_some("param-error") role=if failed { "alert" } else { "status" }
                    data-testid=hooks.status>
                    {line} " " {resume_button}
                </p>
            })}
        </div>
    }
}
