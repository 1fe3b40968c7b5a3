//! The live chat's summaries as the Chat tab shows them: a [`RunView`] of
//! [`Job::LiveSummary`] over the session's run ([`crate::app::live::Summaries`]), drawn by
//! `RunControls` under the hooks the chat's summary controls always had ([`RunHooks::live_summary`]):
//! `summary-progress`, Stop as `stop-summary`, the failure or stop in the chat's `error` line
//! (`summary-status` while another error holds that line) with Retry as `retry`.

use crate::app::workbench::Workbench;
use crate::view::run::{Job, Run, RunHooks, RunView};

/// What the chat draws of its summaries' run.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRun {
    pub view: RunView,
    pub hooks: RunHooks,
}

/// The live chat's summaries, once one has been asked for; `None` before, and while a demo is
/// on screen.
pub fn summary_run(workbench: &Workbench) -> Option<SummaryRun> {
    if !workbench.is_live() {
        return None;
    }
    let summaries = workbench.live.summaries();
    let run = Run {
        status: summaries.status()?,
        progress: summaries.progress(),
        pace: None,
    };
    let estimate = summaries.estimate();
    Some(SummaryRun {
        view: RunView::new(Job::LiveSummary, Some(run), estimate.as_ref(), None),
        hooks: RunHooks::live_summary(workbench.error_shown().is_some()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::live::{LiveAction, LiveSession, ReplyEnd};
    use crate::app::workbench::Workbench;
    use crate::engine::memory::SummaryJob;
    use crate::engine::message::{CountTokens, WordCounter};
    use crate::engine::openai::ApiError;
    use crate::route::DemoKind;

    const C: WordCounter = WordCounter;

    /// Four turns of the live chat under the default 4/2 policy: the summary they make due.
    fn due(live: &mut LiveSession) -> SummaryJob {
        let mut job = None;
        for n in 1..=4 {
            live.send(&format!("question {n}"), n, &C).unwrap();
            job = live.finish(ReplyEnd::Complete(format!("answer {n}")), n, &C);
        }
        job.expect("the 4/2 policy folds after turn 4")
    }

    fn shown(workbench: &Workbench) -> SummaryRun {
        summary_run(workbench).expect("a summary was asked for")
    }

    const UNCHANGED: &str =
        "The conversation and its memory are unchanged; press Retry to try the summary again.";

    /// Each state of the live chat's summaries, as the chat shows it: the slug, the progress
    /// sentence, the line in `error` and which of Stop and Retry show.
    #[test]
    fn the_chats_summaries_show_each_state_of_the_run_machine() {
        let mut workbench = Workbench::default();
        assert_eq!(summary_run(&workbench), None, "no summary asked for yet");
        let job = due(&mut workbench.live);
        let sent = job.tokens_in;

        let running = shown(&workbench);
        assert_eq!(running.hooks, RunHooks::live_summary(false));
        assert_eq!(
            (running.hooks.stop.as_str(), running.hooks.status.as_str()),
            ("stop-summary", "error")
        );
        assert_eq!(
            running.view,
            RunView {
                slug: Some("running"),
                progress: Some(format!("0 of 1 summary · {sent} tokens sent, 0 received")),
                done: 0,
                total: Some(1),
                summaries: true,
                stop: true,
                ..RunView::default()
            }
        );

        // Failed: the reason in the chat's error line, an alert, with Retry.
        let reply = Err(ApiError::NoAnswer {
            finish_reason: None,
            reasoned: false,
        });
        workbench.live.summary_ended(&job, reply, None, "m", 5, &C);
        let failed = shown(&workbench);
        assert_eq!(failed.view.slug, Some("failed"));
        let status = failed.view.status.clone().unwrap();
        assert!(
            status.starts_with("The summary could not be written: No answer text arrived"),
            "{status}"
        );
        assert!(status.ends_with(UNCHANGED), "{status}");
        assert!(failed.view.failed, "an alert");
        assert_eq!(
            (failed.view.stop, failed.view.try_again, failed.view.resume),
            (false, true, Some("Retry"))
        );
        assert_eq!(
            failed.view.estimate,
            Some(format!(
                "About 1 summariser call: about {sent} tokens sent."
            ))
        );
        // Another error holds the chat's error line: the summary's has a hook of its own.
        workbench.error = Some(crate::app::live::LiveError::NothingToRetry.into());
        assert_eq!(shown(&workbench).hooks.status, "summary-status");
        workbench.error = None;

        // Try again, then stop: the stop is an alert too, and Retry goes on.
        let Some(Ok(LiveAction::Summary(again))) = Some(workbench.live.retry(&C)) else {
            panic!("Retry asks for the summary again");
        };
        assert_eq!(shown(&workbench).view.slug, Some("running"));
        workbench
            .live
            .summary_ended(&again, Ok(None), None, "m", 6, &C);
        let stopped = shown(&workbench);
        assert_eq!(stopped.view.slug, Some("stopped"));
        assert_eq!(
            stopped.view.status.as_deref(),
            Some(
                format!(
                    "The summary could not be written: the summary request was stopped. {UNCHANGED}"
                )
                .as_str()
            )
        );
        assert!(stopped.view.failed);
        assert_eq!(
            (stopped.view.go_on, stopped.view.resume),
            (true, Some("Retry"))
        );

        // Go on, and done: what the run wrote and what it cost.
        let Ok(LiveAction::Summary(last)) = workbench.live.retry(&C) else {
            panic!("Retry goes on");
        };
        workbench
            .live
            .summary_ended(&last, Ok(Some("Turns 1 and 2.".into())), None, "m", 7, &C);
        let done = shown(&workbench);
        assert_eq!(done.view.slug, Some("done"));
        assert_eq!(
            done.view.progress,
            Some(format!(
                "Done: 1 of 1 summary · {} tokens sent, {} received.",
                3 * sent,
                C.count("Turns 1 and 2.")
            ))
        );
        assert_eq!(
            (
                done.view.stop,
                done.view.resume,
                done.view.status.clone(),
                done.view.estimate.clone()
            ),
            (false, None, None, None)
        );

        // A demo on screen shows none of the live chat's.
        workbench.load(DemoKind::FinCoach);
        assert_eq!(summary_run(&workbench), None);
    }
}
