//! [`RunState`]: what a run of summaries, one at a time, has in common whatever it replays
//! (the live replay's [`super::Replayer`], the A/B comparison's `AbRun`): where it stands, the
//! one summary handed out and not yet committed, and a failure that keeps that summary to be
//! asked again. Its status moves by the one run machine's transitions ([`RunStatus`]).

use crate::engine::run::RunStatus;

/// Where a run stands and the summary it waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunState<J> {
    status: RunStatus,
    /// The summary handed out and not yet committed.
    pending: Option<J>,
}

impl<J> Default for RunState<J> {
    fn default() -> Self {
        RunState {
            status: RunStatus::Running,
            pending: None,
        }
    }
}

impl<J: Clone> RunState<J> {
    /// Hands `job` out: it is the one the run waits for.
    pub fn ask(&mut self, job: J) -> J {
        self.pending = Some(job.clone());
        job
    }

    /// The pending job if an answer for it (`is_it`) may be committed now. An answer to another
    /// job (a late one), or one that arrives after Stop, is not: the pending job stays pending.
    pub fn answered(&mut self, is_it: impl Fn(&J) -> bool) -> Option<J> {
        if !self.is_running() {
            return None;
        }
        self.pending.take_if(|j| is_it(j))
    }

    /// [`RunState::answered`] with the answer's `result`: the job and its summary, to commit;
    /// a failure, or an empty summary, fails the run instead and keeps the job for Try again.
    pub fn answered_with(
        &mut self,
        is_it: impl Fn(&J) -> bool,
        result: Result<String, String>,
    ) -> Option<(J, String)> {
        let job = self.answered(is_it)?;
        match result {
            Ok(text) if !text.trim().is_empty() => Some((job, text)),
            Ok(_) => {
                self.fail(job, "the summariser answered with an empty summary");
                None
            }
            Err(reason) => {
                self.fail(job, reason);
                None
            }
        }
    }

    /// The summary `job` failed: it waits for "Try again".
    pub fn fail(&mut self, job: J, reason: impl Into<String>) {
        self.status.fail(reason);
        self.pending = Some(job);
    }

    /// Nothing more is to be written.
    pub fn done(&mut self) {
        self.status.finish();
        self.pending = None;
    }

    /// Stops where it is; the pending summary stays pending.
    pub fn stop(&mut self) {
        self.status.stop();
    }

    /// Goes on after a Stop or a failure: the pending summary is asked for again.
    pub fn resume(&mut self) -> Option<J> {
        self.status.go_on().then(|| self.pending.clone()).flatten()
    }

    pub fn status(&self) -> &RunStatus {
        &self.status
    }

    /// Whether a summary is being written (or about to be asked for).
    pub fn is_running(&self) -> bool {
        self.status.is_running()
    }

    pub fn is_done(&self) -> bool {
        self.status.is_done()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_late_or_stopped_answer_is_not_taken_and_a_failure_waits_with_its_job() {
        let mut run = RunState::default();
        assert_eq!(run.ask(1), 1);
        assert_eq!(run.answered(|j| *j == 2), None, "a late answer");
        run.stop();
        assert_eq!(run.answered(|j| *j == 1), None, "after Stop");
        assert_eq!(run.resume(), Some(1));
        assert_eq!(run.resume(), None, "already running");
        assert_eq!(run.answered(|j| *j == 1), Some(1));
        run.fail(1, "refused");
        assert_eq!(run.status(), &RunStatus::Failed("refused".into()));
        assert_eq!(run.answered(|j| *j == 1), None);
        assert_eq!(run.resume(), Some(1));
        assert_eq!(run.answered_with(|j| *j == 1, Ok(" ".into())), None);
        assert_eq!(
            run.status(),
            &RunStatus::Failed("the summariser answered with an empty summary".into())
        );
        assert_eq!(run.resume(), Some(1));
        assert_eq!(
            run.answered_with(|j| *j == 1, Ok("text".into())),
            Some((1, "text".into()))
        );
        run.done();
        assert!(run.is_done() && !run.is_running());
        assert_eq!(run.resume(), None);
    }
}
