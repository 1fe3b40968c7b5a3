//! The live chat's summaries on the one run machine (`engine::run`), as every long job runs:
//! [`Summaries`] holds their [`RunStatus`] (running while a summariser call is out, stopped by
//! the user, failed with its reason, done once the memory asks for no more), the job whose call
//! is out or waits to go out again, the summaries written and the tokens both ways since the run
//! began ([`Progress`]), and what that job costs ([`Estimate`]). The memory keeps the job itself
//! (`MemoryState::retry_job` reissues it against the summary as it then is); this is where the
//! chat's summaries stand. What the chat shows of them is `view::run`'s (`Job::LiveSummary`).

use crate::engine::memory::SummaryJob;
use crate::engine::run::{Estimate, Progress, RunStatus, Tokens, Unit};

/// Where the live chat's summaries stand: a run begins when a summary is asked for with none
/// running or waiting, and goes on through the jobs a commit makes due at once (a compression, a
/// cycle the meantime made due) until the memory asks for none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summaries {
    /// `None` before a summary is asked for, and once a reply is asked for instead of one that
    /// waited (Retry then redoes the reply).
    status: Option<RunStatus>,
    /// The job whose call is out (running), or that waits to go out again (stopped or failed).
    out: Option<Out>,
    /// Summaries committed in this run (a job of several calls commits once).
    written: u64,
    tokens: Tokens,
}

/// What the run knows of the job out: its id, and what its calls send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Out {
    id: u64,
    /// The calls of the job still to make, this one included.
    calls: u32,
    tokens_in: u32,
}

impl Summaries {
    /// The run's status; `None` when no summary has been asked for.
    pub fn status(&self) -> Option<&RunStatus> {
        self.status.as_ref()
    }

    /// Whether a summariser call is out.
    pub fn is_running(&self) -> bool {
        self.status.as_ref().is_some_and(RunStatus::is_running)
    }

    /// Stopped or failed: the summary waits for Retry.
    pub fn waits(&self) -> bool {
        self.status.as_ref().is_some_and(RunStatus::waits)
    }

    /// Whether job `id` is the one whose call is out.
    pub fn is_out(&self, id: u64) -> bool {
        self.is_running() && self.out.is_some_and(|out| out.id == id)
    }

    /// `job`'s call goes out: the run runs (a new one when none runs or waits; a waiting one
    /// goes on), and counts what the call sends.
    pub fn ask(&mut self, job: &SummaryJob) {
        match &mut self.status {
            Some(status) if status.is_running() => {}
            Some(status) if status.waits() => {
                status.go_on();
            }
            _ => {
                *self = Summaries {
                    status: Some(RunStatus::Running),
                    ..Summaries::default()
                }
            }
        }
        self.out = Some(Out {
            id: job.id,
            calls: job.passes.saturating_sub(job.pass) + 1,
            tokens_in: job.tokens_in,
        });
        self.tokens.sent += u64::from(job.tokens_in);
    }

    /// The call out came back with `received` tokens written.
    pub fn received(&mut self, received: u64) {
        self.tokens.received += received;
    }

    /// The job out was committed (`wrote`: an edition was made; a job's earlier call only
    /// hands its draft on): the run goes on with `next`, or is done.
    pub fn committed(&mut self, wrote: bool, next: Option<&SummaryJob>) {
        self.written += u64::from(wrote);
        self.out = None;
        match next {
            Some(job) => self.ask(job),
            None => self.finish(),
        }
    }

    /// The job out failed for `reason`: it waits for Retry.
    pub fn fail(&mut self, reason: impl Into<String>) {
        if let Some(status) = &mut self.status {
            status.fail(reason);
        }
    }

    /// The user stopped the call out: the job waits for Retry.
    pub fn stop(&mut self) {
        if let Some(status) = &mut self.status {
            status.stop();
        }
    }

    /// Retry after a stop or a failure found nothing to send, for `reason`: the run goes on and
    /// fails again with it.
    pub fn refused(&mut self, reason: impl Into<String>) {
        if let Some(status) = &mut self.status
            && status.go_on()
        {
            status.fail(reason);
        }
    }

    /// Nothing more is to be written.
    pub fn finish(&mut self) {
        self.out = None;
        if let Some(status) = &mut self.status {
            status.finish();
        }
    }

    /// A reply is asked for instead of the summary that waited: the run is put away (the
    /// trigger asks again at the next reply).
    pub fn put_away(&mut self) {
        if self.waits() {
            *self = Summaries::default();
        }
    }

    /// How far the run has come: summaries written of those asked for, and the tokens both
    /// ways (sent as the summariser counts what it reads, received as the API reported).
    pub fn progress(&self) -> Progress {
        let asked = self.written + u64::from(self.out.is_some());
        Progress {
            tokens: Some(self.tokens),
            ..Progress::of(Unit::Summary, self.written, asked)
        }
    }

    /// What the job out (or waiting) costs: its calls and the tokens they send.
    pub fn estimate(&self) -> Option<Estimate> {
        self.out.map(|out| Estimate {
            calls: out.calls,
            tokens_sent: u64::from(out.tokens_in) * u64::from(out.calls),
            ..Estimate::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::JobKind;

    fn job(id: u64, tokens_in: u32, pass: u32, passes: u32) -> SummaryJob {
        SummaryJob {
            id,
            kind: JobKind::Compress { level: 1 },
            request: Vec::new(),
            previous: None,
            tokens_in,
            word_limit: 100,
            structured: false,
            from_archive: false,
            pass,
            passes,
        }
    }

    #[test]
    fn a_run_counts_its_calls_refuses_with_a_reason_and_is_put_away_only_while_it_waits() {
        let mut run = Summaries::default();
        run.ask(&job(1, 100, 1, 2));
        assert_eq!(
            run.estimate(),
            Some(Estimate {
                calls: 2,
                tokens_sent: 200,
                ..Estimate::default()
            }),
            "a job of two calls"
        );
        run.received(10);
        // The first call only hands its draft on: no summary written yet.
        run.committed(false, Some(&job(2, 120, 2, 2)));
        assert!(run.is_out(2) && !run.is_out(1));
        assert_eq!(run.progress().done, 0);
        run.fail("refused");
        run.refused("nothing left to fold");
        assert_eq!(
            run.status(),
            Some(&RunStatus::Failed("nothing left to fold".into()))
        );
        run.put_away();
        assert_eq!(run, Summaries::default());

        // A run that is done is not put away, and the next summary begins a run of its own.
        run.ask(&job(3, 50, 1, 1));
        run.received(5);
        run.committed(true, None);
        run.put_away();
        assert_eq!(run.status(), Some(&RunStatus::Done));
        assert_eq!(
            run.progress().tokens,
            Some(Tokens {
                sent: 50,
                received: 5
            })
        );
        run.ask(&job(4, 70, 1, 1));
        assert_eq!(
            (run.progress().done, run.progress().tokens),
            (
                0,
                Some(Tokens {
                    sent: 70,
                    received: 0
                })
            )
        );
    }
}
