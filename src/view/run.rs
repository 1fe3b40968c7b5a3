//! What every long job shows of its run (Inspect's live replay, its A/B comparison, its probes,
//! the corpus comparison, the live chat's summaries), from the one run machine (`engine::run`):
//! the estimate's sentence before it starts, then the status slug (`data-status`), the progress
//! sentence, what a stop or a failure means, and which buttons show (Stop, Go on, Try again).
//! The `RunControls` widget draws a [`RunView`] under the hooks [`RunHooks`] names (each job's
//! prefix, or the names a job had before); the words a job has of its own are [`Job`]'s.

use crate::engine::run::{Estimate, Prices, Progress, RunStatus, Unit};

/// Which job a run is: the words it has of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    LiveReplay,
    Ab,
    Probes,
    Corpus,
    /// The live chat's summaries, written when its trigger fires.
    LiveSummary,
}

impl Job {
    /// Whether a stopped or failed run goes on from where it was (the corpus comparison does
    /// not: the conversations measured so far are all there is).
    pub fn goes_on(self) -> bool {
        self != Job::Corpus
    }

    fn stopped(self) -> &'static str {
        match self {
            Job::LiveReplay | Job::Probes => "Stopped. Nothing more is sent until you go on.",
            Job::Ab => "Stopped. Nothing is kept until both sides are done.",
            Job::Corpus => "Stopped. The conversations measured so far are all there is.",
            Job::LiveSummary => {
                "The summary could not be written: the summary request was stopped. The conversation and its memory are unchanged; press Retry to try the summary again."
            }
        }
    }

    fn failed(self, reason: &str) -> String {
        match self {
            Job::LiveReplay => format!("The summary failed: {reason}."),
            Job::Ab => format!("The summary failed: {reason}. Nothing of it was kept."),
            Job::Probes => format!("A call failed: {reason}. Nothing of it was recorded."),
            Job::Corpus => format!("The comparison broke off: {reason}."),
            Job::LiveSummary => format!(
                "The summary could not be written: {}. The conversation and its memory are unchanged; press Retry to try the summary again.",
                reason.trim_end_matches('.')
            ),
        }
    }

    /// Whether a stop is an alert, as a failure is: the live chat's memory is behind its
    /// policy until the summary is written.
    fn stop_alerts(self) -> bool {
        self == Job::LiveSummary
    }

    /// The label of the button that goes on after a stop, and after a failure.
    fn resume_labels(self) -> (&'static str, &'static str) {
        match self {
            // The chat's Retry, as its sentences name it.
            Job::LiveSummary => ("Retry", "Retry"),
            _ => ("Go on", "Try again"),
        }
    }

    /// A call in the estimate's words, and what each is for.
    fn calls(self, n: u32) -> String {
        let s = if n == 1 { "" } else { "s" };
        match self {
            Job::Probes => format!("{n} call{s} (an answer and a judge per cell)"),
            _ => format!("{n} summariser call{s}"),
        }
    }
}

/// How a run of several workers goes: the workers, and the time spent so far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pace {
    pub workers: usize,
    pub elapsed_ms: f64,
}

/// A run as its job shows it: where it stands, how far it has come, and (several workers)
/// how fast.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run<'a> {
    pub status: &'a RunStatus,
    pub progress: Progress,
    pub pace: Option<Pace>,
}

/// What a job shows of its run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunView {
    /// `data-status`: `running`, `stopped`, `failed` or `done`; `None` before a run starts.
    pub slug: Option<&'static str>,
    /// The progress sentence, once a run has started.
    pub progress: Option<String>,
    /// Units done and in all (`data-done`, `data-total`), and the turn reached (`data-turn`).
    pub done: u32,
    pub total: Option<u32>,
    pub turn: Option<u32>,
    /// Whether the run counts summaries (its progress also says `data-summaries` and
    /// `data-calls`, as the live replay's and the A/B comparison's always have).
    pub summaries: bool,
    /// What a stop or a failure means, beside Go on or Try again.
    pub status: Option<String>,
    /// Whether the run failed (its status is an alert; for the live chat's summaries a stop
    /// is one too).
    pub failed: bool,
    /// The estimate's sentence, when one is given and no run is going.
    pub estimate: Option<String>,
    pub stop: bool,
    pub go_on: bool,
    pub try_again: bool,
    /// The label of the button that goes on, when one shows.
    pub resume: Option<&'static str>,
}

/// The hooks a run is drawn under: `{prefix}-progress`, `{prefix}-stop`, `{prefix}-status`
/// and `{prefix}-{resume}` for most jobs, or the names a job had before it was drawn so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunHooks {
    pub progress: String,
    pub stop: String,
    pub status: String,
    pub resume: String,
}

impl RunHooks {
    /// The hooks of a job under `prefix` (`replay-live`, `ab`, `probes`, `corpus`), its
    /// button that goes on named `resume` (`resume` or `retry`, as the job has always called
    /// it).
    pub fn prefixed(prefix: &str, resume: &str) -> RunHooks {
        RunHooks {
            progress: format!("{prefix}-progress"),
            stop: format!("{prefix}-stop"),
            status: format!("{prefix}-status"),
            resume: format!("{prefix}-{resume}"),
        }
    }

    /// The live chat's summaries: `summary-progress`, and the names its Stop, its failure and
    /// its Retry had before they were drawn so (`stop-summary`, `retry`, and `error`, the
    /// chat's error line, unless `error_taken`: another error holds it, and the summary's is
    /// `summary-status`).
    pub fn live_summary(error_taken: bool) -> RunHooks {
        RunHooks {
            progress: "summary-progress".to_owned(),
            stop: "stop-summary".to_owned(),
            status: if error_taken {
                "summary-status"
            } else {
                "error"
            }
            .to_owned(),
            resume: "retry".to_owned(),
        }
    }
}

impl RunView {
    /// The view of `job`'s `run` (`None` before one starts), with its `estimate` at `prices`
    /// when given.
    pub fn new(
        job: Job,
        run: Option<Run>,
        estimate: Option<&Estimate>,
        prices: Option<&Prices>,
    ) -> RunView {
        let running = run.is_some_and(|r| r.status.is_running());
        let estimate = estimate
            .filter(|_| !running)
            .map(|e| estimate_line(job, e, prices));
        let Some(Run {
            status,
            progress,
            pace,
        }) = run
        else {
            return RunView {
                estimate,
                ..RunView::default()
            };
        };
        let waits = status.waits() && job.goes_on();
        let go_on = waits && *status == RunStatus::Stopped;
        let try_again = waits && matches!(status, RunStatus::Failed(_));
        let (go_on_label, try_again_label) = job.resume_labels();
        RunView {
            slug: Some(status.slug()),
            progress: Some(progress_line(&progress, status, pace)),
            done: saturating(progress.done),
            total: progress.total.map(saturating),
            turn: progress.turn.map(|(turn, _)| turn),
            summaries: progress.unit == Unit::Summary,
            status: match status {
                RunStatus::Stopped => Some(job.stopped().to_owned()),
                RunStatus::Failed(reason) => Some(job.failed(reason)),
                RunStatus::Running | RunStatus::Done => None,
            },
            failed: matches!(status, RunStatus::Failed(_))
                || (job.stop_alerts() && *status == RunStatus::Stopped),
            estimate,
            stop: running,
            go_on,
            try_again,
            resume: if go_on {
                Some(go_on_label)
            } else if try_again {
                Some(try_again_label)
            } else {
                None
            },
        }
    }

    /// The label of the button that goes on, when one shows.
    pub fn resume_label(&self) -> Option<&'static str> {
        self.resume
    }
}

/// What the `RunControls` widget draws of a [`RunView`] under its job's hook prefix
/// (`replay-live`, `ab`, `probes`, `corpus`) besides the view's own values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunControlsScreen {
    /// The hooks it is drawn under (`RunHooks::prefixed`, or a job's own older names).
    pub hooks: RunHooks,
    /// Go on or Try again, when one shows.
    pub resume_label: Option<&'static str>,
    /// `data-summaries` and `data-calls`: a run of summaries' done and total; `None` otherwise.
    pub summaries: Option<u32>,
    pub calls: Option<u32>,
    /// The status line's role (`alert` after a failure, else `status`) and class.
    pub status_role: &'static str,
    pub status_class: Option<&'static str>,
}

impl RunControlsScreen {
    pub fn of(hooks: RunHooks, view: &RunView) -> RunControlsScreen {
        RunControlsScreen {
            hooks,
            resume_label: view.resume_label(),
            summaries: view.summaries.then_some(view.done),
            calls: view.summaries.then_some(view.total).flatten(),
            status_role: if view.failed { "alert" } else { "status" },
            status_class: view.failed.then_some("param-error"),
        }
    }
}

/// The estimate in a sentence: the calls, the tokens sent, those received when known (else the
/// most the summariser may write), and the price at `prices`.
pub fn estimate_line(job: Job, estimate: &Estimate, prices: Option<&Prices>) -> String {
    if estimate.calls == 0 && job == Job::Probes {
        return "Every probe is graded at every edition it is asked at: nothing to run.".to_owned();
    }
    let received = estimate
        .tokens_received
        .map(|r| format!(" and {r} received"))
        .unwrap_or_default();
    let at_most = estimate
        .received_at_most
        .map(|m| format!(" (at most {m} by the summariser's max tokens)"))
        .unwrap_or_default();
    let price = prices
        .map(|p| format!(" About ${:.2} at the prices given.", estimate.price(p)))
        .unwrap_or_default();
    format!(
        "About {}: about {} tokens sent{received}{at_most}.{price}",
        job.calls(estimate.calls),
        estimate.tokens_sent,
    )
}

/// The progress sentence: units done (of the total, or of about the total an estimate
/// planned), on how many workers and the time left, the turn reached, the tokens both ways; a
/// finished run says so.
pub fn progress_line(progress: &Progress, status: &RunStatus, pace: Option<Pace>) -> String {
    let mut line = match progress.total {
        Some(total) => format!(
            "{} of {}{} {}",
            grouped(progress.done),
            if progress.about { "about " } else { "" },
            grouped(total),
            units(progress.unit, total)
        ),
        None => format!(
            "{} {}",
            grouped(progress.done),
            units(progress.unit, progress.done)
        ),
    };
    if let Some(Pace {
        workers,
        elapsed_ms,
    }) = pace
    {
        let on = if workers == 1 {
            "1 worker".to_owned()
        } else {
            format!("{workers} workers")
        };
        line += &match (status, progress.left_ms(elapsed_ms)) {
            (RunStatus::Done, _) => format!(" in {} on {on}", seconds(elapsed_ms)),
            (RunStatus::Running, Some(left)) => format!(" on {on}, about {} left", seconds(left)),
            _ => format!(" on {on}"),
        };
    }
    if let Some((turn, turns)) = progress.turn {
        line += &format!(" · turn {turn} of {turns}");
    }
    if let Some(tokens) = progress.tokens {
        // Tokens stay ungrouped, as the estimate's and the server's counts are read.
        line += &format!(
            " · {} tokens sent, {} received",
            tokens.sent, tokens.received
        );
    }
    if status.is_done() {
        format!("Done: {line}.")
    } else {
        line
    }
}

/// A count as a page attribute holds it (no run counts four billion of anything).
fn saturating(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A unit's name, for `n` of them.
fn units(unit: Unit, n: u64) -> &'static str {
    match (unit, n == 1) {
        (Unit::Summary, true) => "summary",
        (Unit::Summary, false) => "summaries",
        (Unit::Cell, true) => "cell graded",
        (Unit::Cell, false) => "cells graded",
        (Unit::Conversation, true) => "conversation",
        (Unit::Conversation, false) => "conversations",
    }
}

/// `1234567` as `1,234,567`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn seconds(ms: f64) -> String {
    let s = (ms / 1000.0).max(0.0);
    if s < 10.0 {
        format!("{s:.1} s")
    } else if s < 120.0 {
        format!("{s:.0} s")
    } else {
        format!("{:.0} min", s / 60.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run::Tokens;

    fn replayed() -> Progress {
        Progress {
            unit: Unit::Summary,
            done: 2,
            total: None,
            about: false,
            turn: Some((7, 12)),
            tokens: Some(Tokens {
                sent: 900,
                received: 80,
            }),
        }
    }

    fn cost() -> Estimate {
        Estimate {
            calls: 4,
            tokens_sent: 1200,
            chat_sent: 0,
            tokens_received: Some(300),
            received_at_most: None,
        }
    }

    fn view(job: Job, status: &RunStatus) -> RunView {
        let run = Run {
            status,
            progress: replayed().planned(Some(4)),
            pace: None,
        };
        RunView::new(job, Some(run), Some(&cost()), None)
    }

    /// The run machine's five states, as every job shows them: the slug, the sentences and the
    /// buttons.
    #[test]
    fn every_state_shows_its_slug_sentences_and_buttons_for_every_job() {
        let line = "2 of about 4 summaries · turn 7 of 12 · 900 tokens sent, 80 received";
        let estimate = "About 4 summariser calls: about 1200 tokens sent and 300 received.";
        let not_started = RunView::new(Job::LiveReplay, None, Some(&cost()), None);
        assert_eq!(
            not_started,
            RunView {
                estimate: Some(estimate.to_owned()),
                ..RunView::default()
            }
        );
        assert_eq!(not_started.resume_label(), None);

        let running = view(Job::LiveReplay, &RunStatus::Running);
        assert_eq!(
            running,
            RunView {
                slug: Some("running"),
                progress: Some(line.to_owned()),
                done: 2,
                total: Some(4),
                turn: Some(7),
                summaries: true,
                stop: true,
                ..RunView::default()
            },
            "no estimate while it runs"
        );

        let stopped = view(Job::LiveReplay, &RunStatus::Stopped);
        assert_eq!(stopped.slug, Some("stopped"));
        assert_eq!(stopped.progress.as_deref(), Some(line));
        assert_eq!(
            stopped.status.as_deref(),
            Some("Stopped. Nothing more is sent until you go on.")
        );
        assert_eq!(
            (
                stopped.stop,
                stopped.go_on,
                stopped.try_again,
                stopped.failed
            ),
            (false, true, false, false)
        );
        assert_eq!(stopped.resume_label(), Some("Go on"));
        assert_eq!(stopped.estimate.as_deref(), Some(estimate));

        let failed = view(Job::Ab, &RunStatus::Failed("model overloaded".into()));
        assert_eq!(failed.slug, Some("failed"));
        assert_eq!(
            failed.status.as_deref(),
            Some("The summary failed: model overloaded. Nothing of it was kept.")
        );
        assert_eq!(
            (failed.stop, failed.go_on, failed.try_again, failed.failed),
            (false, false, true, true)
        );
        assert_eq!(failed.resume_label(), Some("Try again"));

        let done = view(Job::Probes, &RunStatus::Done);
        assert_eq!(done.slug, Some("done"));
        assert_eq!(done.progress, Some(format!("Done: {line}.")));
        assert_eq!(done.status, None);
        assert_eq!(
            (done.stop, done.go_on, done.try_again),
            (false, false, false)
        );

        // The corpus comparison does not go on: a stop or a failure only says so.
        for status in [
            RunStatus::Stopped,
            RunStatus::Failed("worker 1: gone".into()),
        ] {
            let corpus = view(Job::Corpus, &status);
            assert_eq!((corpus.go_on, corpus.try_again), (false, false));
            assert!(corpus.status.is_some());
        }
        assert_eq!(
            view(Job::Corpus, &RunStatus::Failed("worker 1: gone".into())).status,
            Some("The comparison broke off: worker 1: gone.".to_owned())
        );
        assert_eq!(
            view(Job::Probes, &RunStatus::Failed("not JSON".into())).status,
            Some("A call failed: not JSON. Nothing of it was recorded.".to_owned())
        );
    }

    #[test]
    fn the_progress_sentence_counts_units_against_the_total_or_the_plan() {
        let p = replayed();
        assert_eq!(
            progress_line(&p, &RunStatus::Stopped, None),
            "2 summaries · turn 7 of 12 · 900 tokens sent, 80 received"
        );
        let cells = Progress::of(Unit::Cell, 1, 10);
        assert_eq!(
            progress_line(&cells, &RunStatus::Running, None),
            "1 of 10 cells graded"
        );
        assert_eq!(
            progress_line(&Progress::of(Unit::Cell, 1, 1), &RunStatus::Done, None),
            "Done: 1 of 1 cell graded."
        );
        let ab = Progress {
            tokens: Some(Tokens {
                sent: 1500,
                received: 20,
            }),
            ..Progress::of(Unit::Summary, 3, 4)
        };
        assert_eq!(
            progress_line(&ab, &RunStatus::Running, None),
            "3 of 4 summaries · 1500 tokens sent, 20 received"
        );
    }

    #[test]
    fn the_progress_sentence_of_several_workers_says_the_time_left_and_how_long_it_took() {
        let p = Progress::of(Unit::Conversation, 250, 1000);
        let pace = |workers, elapsed_ms| {
            Some(Pace {
                workers,
                elapsed_ms,
            })
        };
        assert_eq!(
            progress_line(&p, &RunStatus::Running, pace(2, 4000.0)),
            "250 of 1,000 conversations on 2 workers, about 12 s left"
        );
        assert_eq!(
            progress_line(&p, &RunStatus::Stopped, pace(2, 4000.0)),
            "250 of 1,000 conversations on 2 workers"
        );
        assert_eq!(
            progress_line(
                &Progress::of(Unit::Conversation, 1000, 1000),
                &RunStatus::Done,
                pace(1, 2500.0)
            ),
            "Done: 1,000 of 1,000 conversations in 2.5 s on 1 worker."
        );
    }

    #[test]
    fn the_estimate_sentence_says_calls_tokens_the_bound_and_the_price() {
        let one = Estimate { calls: 1, ..cost() };
        assert_eq!(
            estimate_line(Job::LiveReplay, &one, None),
            "About 1 summariser call: about 1200 tokens sent and 300 received."
        );
        let bounded = Estimate {
            calls: 2,
            tokens_received: None,
            received_at_most: Some(512),
            ..cost()
        };
        assert_eq!(
            estimate_line(Job::Ab, &bounded, None),
            "About 2 summariser calls: about 1200 tokens sent (at most 512 by the summariser's max tokens)."
        );
        let probes = Estimate {
            calls: 4,
            tokens_sent: 900,
            chat_sent: 600,
            tokens_received: None,
            received_at_most: None,
        };
        assert_eq!(
            estimate_line(Job::Probes, &probes, None),
            "About 4 calls (an answer and a judge per cell): about 900 tokens sent."
        );
        assert_eq!(
            estimate_line(Job::Probes, &Estimate::default(), None),
            "Every probe is graded at every edition it is asked at: nothing to run."
        );
        let prices = Prices::flat(1_000.0, 2_000.0);
        assert_eq!(
            estimate_line(Job::LiveReplay, &one, Some(&prices)),
            "About 1 summariser call: about 1200 tokens sent and 300 received. About $1.80 at the prices given."
        );
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }

    #[test]
    fn the_controls_name_their_hooks_after_the_job() {
        let screen = RunControlsScreen::of(
            RunHooks::prefixed("replay-live", "resume"),
            &RunView::default(),
        );
        assert_eq!(screen.hooks.progress, "replay-live-progress");
        assert_eq!(screen.hooks.stop, "replay-live-stop");
        assert_eq!(screen.hooks.status, "replay-live-status");
        assert_eq!(screen.hooks.resume, "replay-live-resume");
        assert_eq!(
            RunControlsScreen::of(RunHooks::prefixed("ab", "retry"), &RunView::default())
                .hooks
                .resume,
            "ab-retry"
        );
    }

    #[test]
    fn a_run_of_summaries_counts_summaries_and_calls_and_a_failure_is_an_alert() {
        let failed = RunStatus::Failed("timeout".to_owned());
        let screen =
            RunControlsScreen::of(RunHooks::prefixed("ab", "retry"), &view(Job::Ab, &failed));
        assert_eq!(screen.summaries, Some(2));
        assert_eq!(screen.calls, Some(4));
        assert_eq!(screen.status_role, "alert");
        assert_eq!(screen.status_class, Some("param-error"));
        assert_eq!(screen.resume_label, Some("Try again"));

        let stopped = RunControlsScreen::of(
            RunHooks::prefixed("ab", "retry"),
            &view(Job::Ab, &RunStatus::Stopped),
        );
        assert_eq!(stopped.status_role, "status");
        assert_eq!(stopped.status_class, None);
        assert_eq!(stopped.resume_label, Some("Go on"));

        let probes = RunView {
            summaries: false,
            ..view(Job::Probes, &RunStatus::Running)
        };
        let screen = RunControlsScreen::of(RunHooks::prefixed("probes", "retry"), &probes);
        assert_eq!((screen.summaries, screen.calls), (None, None));
        assert_eq!(screen.resume_label, None);
    }
}
