//! What Inspect's live replay shows: the estimate (while it still stands for the policy in the
//! form), its sentence, and the progress line of a run, as plain strings and booleans.

use crate::app::replay::{LiveEstimate, Progress, ReplayStatus};
use crate::engine::policy::{Policy, PolicyError};
use crate::engine::settings::ValidSettings;

/// A replay's price, for the policy it was worked out under.
#[derive(Clone, Debug, PartialEq)]
pub struct Priced {
    pub policy: Policy,
    pub cost: Result<LiveEstimate, String>,
}

impl Priced {
    /// The estimate to show: none while a replay runs, and none once the form's policy is no
    /// longer the one it was worked out under (an estimate stands only for its own policy).
    pub fn shown(
        &self,
        now: &Result<Policy, PolicyError>,
        running: bool,
    ) -> Option<&Result<LiveEstimate, String>> {
        (!running && now.as_ref() == Ok(&self.policy)).then_some(&self.cost)
    }

    /// The summaries the estimate expects, when it could be worked out.
    pub fn planned_calls(&self) -> Option<u32> {
        self.cost.as_ref().ok().map(|c| c.calls)
    }
}

/// Who writes the live replay's summaries, beside its button.
pub fn summariser_note(valid: &ValidSettings) -> String {
    format!(
        " Each summary is written by {} at {}; the chat's replies are the session's own.",
        valid.summary_model, valid.endpoint.base_url
    )
}

/// The estimate in a sentence.
pub fn describe_estimate(cost: &LiveEstimate) -> String {
    let at_most = cost
        .received_at_most
        .map(|m| format!(" (at most {m} by the summariser's max tokens)"))
        .unwrap_or_default();
    format!(
        "About {} summariser call{}: about {} tokens sent and {} received{at_most}.",
        cost.calls,
        if cost.calls == 1 { "" } else { "s" },
        cost.tokens_sent,
        cost.tokens_received,
    )
}

/// The progress line of a run, against the `planned` summaries when an estimate gave them;
/// a finished run says so.
pub fn progress_line(progress: &Progress, planned: Option<u32>, status: &ReplayStatus) -> String {
    let line = format!(
        "{} · turn {} of {} · {}",
        match planned {
            Some(n) => format!("{} of about {n} summaries", progress.summaries),
            None => format!("{} summaries", progress.summaries),
        },
        progress.turn,
        progress.turns,
        tokens_so_far(progress.tokens_sent, progress.tokens_received),
    );
    done_or_running(line, status)
}

/// The tokens a run of summaries has sent and received so far.
pub fn tokens_so_far(sent: u64, received: u64) -> String {
    format!("{sent} tokens sent, {received} received")
}

/// A run's progress `line`, said to be done once it is.
pub fn done_or_running(line: String, status: &ReplayStatus) -> String {
    if *status == ReplayStatus::Done {
        format!("Done: {line}.")
    } else {
        line
    }
}

/// The `data-status` of the progress line.
pub fn status_slug(status: &ReplayStatus) -> &'static str {
    match status {
        ReplayStatus::Running => "running",
        ReplayStatus::Stopped => "stopped",
        ReplayStatus::Failed(_) => "failed",
        ReplayStatus::Done => "done",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::policy::Trigger;

    fn turns(max_turns: u32) -> Policy {
        Policy::new(Trigger::Turns { max_turns, keep: 2 }).unwrap()
    }

    fn cost(calls: u32, received_at_most: Option<u64>) -> LiveEstimate {
        LiveEstimate {
            calls,
            tokens_sent: 1200,
            tokens_received: 300,
            received_at_most,
        }
    }

    #[test]
    fn an_estimate_stands_only_for_its_own_policy_and_hides_while_a_replay_runs() {
        let priced = Priced {
            policy: turns(4),
            cost: Ok(cost(3, None)),
        };
        assert_eq!(priced.shown(&Ok(turns(4)), false), Some(&Ok(cost(3, None))));
        assert_eq!(priced.shown(&Ok(turns(5)), false), None, "the form changed");
        assert_eq!(priced.shown(&Ok(turns(4)), true), None, "a replay runs");
        let invalid = Policy::new(Trigger::Turns {
            max_turns: 0,
            keep: 2,
        });
        assert!(invalid.is_err());
        assert_eq!(priced.shown(&invalid, false), None);
        assert_eq!(priced.planned_calls(), Some(3));
        let failed = Priced {
            policy: turns(4),
            cost: Err("this session has no messages to replay".to_owned()),
        };
        assert_eq!(failed.planned_calls(), None);
        assert!(
            failed
                .shown(&Ok(turns(4)), false)
                .is_some_and(Result::is_err)
        );
    }

    #[test]
    fn the_estimate_says_call_for_one_and_calls_for_more_with_the_max_tokens_bound() {
        assert_eq!(
            describe_estimate(&cost(1, None)),
            "About 1 summariser call: about 1200 tokens sent and 300 received."
        );
        assert_eq!(
            describe_estimate(&cost(2, Some(512))),
            "About 2 summariser calls: about 1200 tokens sent and 300 received (at most 512 by the summariser's max tokens)."
        );
        assert!(describe_estimate(&cost(0, None)).starts_with("About 0 summariser calls:"));
    }

    #[test]
    fn the_progress_line_counts_against_the_plan_and_says_done_at_the_end() {
        let progress = Progress {
            summaries: 2,
            turn: 7,
            turns: 12,
            tokens_sent: 900,
            tokens_received: 80,
        };
        assert_eq!(
            progress_line(&progress, Some(4), &ReplayStatus::Running),
            "2 of about 4 summaries · turn 7 of 12 · 900 tokens sent, 80 received"
        );
        assert_eq!(
            progress_line(&progress, None, &ReplayStatus::Stopped),
            "2 summaries · turn 7 of 12 · 900 tokens sent, 80 received"
        );
        assert_eq!(
            progress_line(&progress, None, &ReplayStatus::Done),
            "Done: 2 summaries · turn 7 of 12 · 900 tokens sent, 80 received."
        );
        let slugs: Vec<_> = [
            ReplayStatus::Running,
            ReplayStatus::Stopped,
            ReplayStatus::Failed("x".to_owned()),
            ReplayStatus::Done,
        ]
        .iter()
        .map(status_slug)
        .collect();
        assert_eq!(slugs, ["running", "stopped", "failed", "done"]);
    }

    #[test]
    fn the_note_names_the_summariser_model_and_where_it_runs() {
        let mut settings = crate::engine::settings::Settings::default();
        settings.set_base_url("http://127.0.0.1:8080/v1".to_owned());
        settings.chat_model = "chat".to_owned();
        let valid = settings.validate().expect("valid settings");
        // No summariser model set: the chat model writes the summaries.
        assert_eq!(
            summariser_note(&valid),
            " Each summary is written by chat at http://127.0.0.1:8080/v1; the chat's replies are the session's own."
        );
    }
}
