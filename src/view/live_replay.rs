//! What Inspect's live replay shows of its own: the estimate while it still stands for the
//! policy in the form, and who writes the summaries. Its sentences, progress and buttons are
//! every run's (`view::run`).

use crate::engine::policy::{Policy, PolicyError};
use crate::engine::run::Estimate;
use crate::engine::settings::ValidSettings;

/// A replay's price, for the policy it was worked out under.
#[derive(Clone, Debug, PartialEq)]
pub struct Priced {
    pub policy: Policy,
    pub cost: Result<Estimate, String>,
}

impl Priced {
    /// The estimate to show: none while a replay runs, and none once the form's policy is no
    /// longer the one it was worked out under (an estimate stands only for its own policy).
    pub fn shown(
        &self,
        now: &Result<Policy, PolicyError>,
        running: bool,
    ) -> Option<&Result<Estimate, String>> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::policy::Trigger;

    fn turns(max_turns: u32) -> Policy {
        Policy::new(Trigger::Turns { max_turns, keep: 2 }).unwrap()
    }

    fn cost(calls: u32, received_at_most: Option<u64>) -> Estimate {
        Estimate {
            calls,
            tokens_sent: 1200,
            tokens_received: Some(300),
            received_at_most,
            ..Estimate::default()
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
