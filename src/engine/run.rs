//! One run machine for every long job (Inspect's live replay, its A/B comparison, its probes,
//! the corpus comparison, the live chat's summaries): [`RunStatus`], where a run stands and the
//! one set of transitions between (Stop, go on, a failure kept for Try again, done);
//! [`Progress`], how far it has come in units of its own ([`Unit`]); [`Estimate`], what it will
//! cost before it starts; and [`Prices`], the one table of prices per million tokens that turns
//! tokens into money. What a run shows of these is `view::run`'s.

use serde::{Deserialize, Serialize};

/// Where a run stands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum RunStatus {
    /// A call is out, or about to be.
    #[default]
    Running,
    /// The user stopped it; nothing more is sent until it goes on.
    Stopped,
    /// A call failed, for this reason; what it was for waits to be tried again.
    Failed(String),
    /// Nothing is left to do.
    Done,
}

impl RunStatus {
    /// The `data-status` of a run's progress: `running`, `stopped`, `failed` or `done`.
    pub fn slug(&self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Stopped => "stopped",
            RunStatus::Failed(_) => "failed",
            RunStatus::Done => "done",
        }
    }

    pub fn is_running(&self) -> bool {
        *self == RunStatus::Running
    }

    pub fn is_done(&self) -> bool {
        *self == RunStatus::Done
    }

    /// Stopped or failed: it waits for the user to go on (or try again).
    pub fn waits(&self) -> bool {
        matches!(self, RunStatus::Stopped | RunStatus::Failed(_))
    }

    /// Stop: a running run stops; any other stays as it is.
    pub fn stop(&mut self) {
        if self.is_running() {
            *self = RunStatus::Stopped;
        }
    }

    /// A call failed with `reason`: a running run fails; a stopped or finished one keeps its
    /// status (the answer to a call the user stopped is not a failure).
    pub fn fail(&mut self, reason: impl Into<String>) {
        if self.is_running() {
            *self = RunStatus::Failed(reason.into());
        }
    }

    /// Nothing more is to be done.
    pub fn finish(&mut self) {
        *self = RunStatus::Done;
    }

    /// Go on after a Stop, or try again after a failure: whether the run runs again (a run
    /// that runs already, or is done, does not).
    pub fn go_on(&mut self) -> bool {
        if !self.waits() {
            return false;
        }
        *self = RunStatus::Running;
        true
    }
}

/// What a run counts its progress in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A summary written (the live replay, the A/B comparison, the live chat's summaries).
    Summary,
    /// A probe graded at one edition (an answer then a judge).
    Cell,
    /// A conversation measured (the corpus comparison).
    Conversation,
}

/// Tokens sent and received so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    pub sent: u64,
    pub received: u64,
}

/// How far a run has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub unit: Unit,
    /// Units done.
    pub done: u64,
    /// Units in all, when known.
    pub total: Option<u64>,
    /// Whether `total` is an estimate's (the live replay's plan) rather than a count.
    pub about: bool,
    /// The turn reached, of the turns in all, for a run that replays a conversation.
    pub turn: Option<(u32, u32)>,
    /// Tokens sent and received, for a run that calls a model.
    pub tokens: Option<Tokens>,
}

impl Progress {
    /// `done` of `total` units, nothing else counted.
    pub fn of(unit: Unit, done: u64, total: u64) -> Progress {
        Progress {
            unit,
            done,
            total: Some(total),
            about: false,
            turn: None,
            tokens: None,
        }
    }

    /// With the units an estimate planned, as the total when the run knows none of its own.
    pub fn planned(mut self, planned: Option<u64>) -> Progress {
        if self.total.is_none()
            && let Some(n) = planned
        {
            self.total = Some(n);
            self.about = true;
        }
        self
    }

    /// The time left, from the time spent so far at the rate so far; `None` before the first
    /// unit is done (no rate yet), once all are, and without a total.
    pub fn left_ms(&self, elapsed_ms: f64) -> Option<f64> {
        let total = self.total?;
        if self.done == 0 || self.done >= total || !elapsed_ms.is_finite() {
            return None;
        }
        let per = elapsed_ms.max(0.0) / self.done as f64;
        Some(per * (total - self.done) as f64)
    }
}

/// What a run will cost before it starts, worked out offline: its calls and the tokens they
/// send, and what they write back when that can be told.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Estimate {
    pub calls: u32,
    /// Tokens every request sends, in all.
    pub tokens_sent: u64,
    /// Of `tokens_sent`, the tokens sent to the chat model (the probes' answers); the rest go
    /// to the summariser model.
    pub chat_sent: u64,
    /// Tokens the summaries are expected to hold, when the estimate can tell.
    pub tokens_received: Option<u64>,
    /// The most the summariser may write, when its max tokens is set: `calls × max_tokens`.
    pub received_at_most: Option<u64>,
}

impl Estimate {
    /// What the run costs at `prices`: what it sends to each model, and what it is expected to
    /// receive (else the most it may).
    pub fn price(&self, prices: &Prices) -> f64 {
        let received = self.tokens_received.or(self.received_at_most).unwrap_or(0);
        prices.of(
            self.chat_sent,
            self.tokens_sent.saturating_sub(self.chat_sent),
            received,
        )
    }
}

/// Prices per million tokens, as the user types them: the chat model's input, and the
/// summariser's input and output. Cost is computed when shown, never stored.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prices {
    pub chat_in_per_mtok: f64,
    pub summary_in_per_mtok: f64,
    pub summary_out_per_mtok: f64,
}

impl Default for Prices {
    /// Prices to start editing from: a large chat model's input, a small summariser model's
    /// input and output.
    fn default() -> Self {
        Prices {
            chat_in_per_mtok: 2.5,
            summary_in_per_mtok: 0.15,
            summary_out_per_mtok: 0.6,
        }
    }
}

impl Prices {
    /// One model's prices for everything (the Tuner's): `input` for each token sent, whoever
    /// it goes to, and `output` for each token written.
    pub const fn flat(input: f64, output: f64) -> Prices {
        Prices {
            chat_in_per_mtok: input,
            summary_in_per_mtok: input,
            summary_out_per_mtok: output,
        }
    }

    /// What `chat_in` tokens sent to the chat model, `summary_in` sent to the summariser and
    /// `out` written cost.
    pub fn of(&self, chat_in: u64, summary_in: u64, out: u64) -> f64 {
        chat_in as f64 / 1e6 * self.chat_in_per_mtok
            + summary_in as f64 / 1e6 * self.summary_in_per_mtok
            + out as f64 / 1e6 * self.summary_out_per_mtok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every status under every transition, for every job: the one run machine.
    #[test]
    fn the_run_machine_stops_fails_goes_on_and_finishes_the_same_for_every_job() {
        let failed = || RunStatus::Failed("refused".into());
        let all = [
            RunStatus::Running,
            RunStatus::Stopped,
            failed(),
            RunStatus::Done,
        ];
        let after = |f: fn(&mut RunStatus)| -> Vec<RunStatus> {
            all.iter()
                .cloned()
                .map(|mut s| {
                    f(&mut s);
                    s
                })
                .collect()
        };
        assert_eq!(
            after(RunStatus::stop),
            [
                RunStatus::Stopped,
                RunStatus::Stopped,
                failed(),
                RunStatus::Done
            ]
        );
        assert_eq!(
            after(|s| s.fail("refused")),
            [failed(), RunStatus::Stopped, failed(), RunStatus::Done],
            "only a running run fails; an answer after Stop is not a failure"
        );
        assert_eq!(
            after(|s| {
                s.go_on();
            }),
            [
                RunStatus::Running,
                RunStatus::Running,
                RunStatus::Running,
                RunStatus::Done
            ]
        );
        let went_on: Vec<bool> = all.iter().cloned().map(|mut s| s.go_on()).collect();
        assert_eq!(went_on, [false, true, true, false]);
        assert_eq!(after(RunStatus::finish), vec![RunStatus::Done; 4]);
        let slugs: Vec<_> = all.iter().map(RunStatus::slug).collect();
        assert_eq!(slugs, ["running", "stopped", "failed", "done"]);
        let waits: Vec<_> = all.iter().map(RunStatus::waits).collect();
        assert_eq!(waits, [false, true, true, false]);
        assert_eq!(RunStatus::default(), RunStatus::Running);
    }

    #[test]
    fn progress_takes_an_estimates_plan_only_without_a_total_and_tells_the_time_left() {
        let counted = Progress::of(Unit::Conversation, 250, 1000);
        assert_eq!(counted.planned(Some(4)), counted);
        assert_eq!(counted.left_ms(4000.0), Some(12000.0));
        assert_eq!(Progress::of(Unit::Cell, 0, 4).left_ms(10.0), None);
        assert_eq!(Progress::of(Unit::Cell, 4, 4).left_ms(10.0), None);
        let open = Progress {
            total: None,
            ..Progress::of(Unit::Summary, 2, 0)
        };
        assert_eq!(open.left_ms(10.0), None);
        let planned = open.planned(Some(4));
        assert_eq!((planned.total, planned.about), (Some(4), true));
        assert_eq!(open.planned(None), open);
    }

    #[test]
    fn an_estimate_is_priced_by_the_model_each_token_goes_to() {
        let prices = Prices {
            chat_in_per_mtok: 2.0,
            summary_in_per_mtok: 1.0,
            summary_out_per_mtok: 4.0,
        };
        let estimate = Estimate {
            calls: 4,
            tokens_sent: 3_000_000,
            chat_sent: 1_000_000,
            tokens_received: Some(500_000),
            received_at_most: Some(2_000_000),
        };
        // 1M to the chat model, 2M to the summariser, 0.5M back.
        assert_eq!(estimate.price(&prices), 2.0 + 2.0 + 2.0);
        let bounded = Estimate {
            tokens_received: None,
            ..estimate
        };
        assert_eq!(
            bounded.price(&prices),
            2.0 + 2.0 + 8.0,
            "the most it may write"
        );
        assert_eq!(
            Prices::flat(1.0, 3.0).of(1_000_000, 1_000_000, 1_000_000),
            5.0
        );
    }
}
