//! Where a policy read back from the export panel's JSON goes: the Tuner's link takes its
//! trigger ([`show_in_route`]), the policy panel all of it (`Workbench::import_policy`).

use crate::engine::policy::Policy;
use crate::route::{Route, TriggerKind};

/// Shows `policy`'s trigger in the Tuner's link: its kind and every number. A trigger kind the
/// Tuner does not offer changes nothing, and the error says so.
pub fn show_in_route(route: &mut Route, policy: &Policy) -> Result<(), String> {
    let kind = policy.trigger.kind();
    if !TriggerKind::LINKED.contains(&kind) {
        return Err(format!(
            "the Tuner has no \"{}\" trigger; the policy panel in the Chat tab holds it",
            kind.label()
        ));
    }
    route.trigger = Some(kind);
    for (param, value) in policy.trigger.params() {
        route.set_number(param, &value.to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::policy::Trigger;

    #[test]
    fn a_policy_shown_in_the_link_is_the_tuners_trigger_again() {
        let mut route = Route::parse("?tab=tuner&trigger=turns&max_turns=6&keep=2");
        let policy = Policy::new(Trigger::Tokens {
            budget: 900,
            keep_tokens: 300,
        })
        .unwrap();
        show_in_route(&mut route, &policy).unwrap();
        assert_eq!(route.trigger, Some(TriggerKind::Tokens));
        assert_eq!(route.number("budget"), Some(900));
        assert_eq!(route.number("keep_tokens"), Some(300));
        assert!(
            route.to_query().contains("budget=900"),
            "{}",
            route.to_query()
        );
    }

    #[test]
    fn a_trigger_the_tuner_lacks_leaves_the_link_and_says_where_it_lives() {
        let mut route = Route::parse("?tab=tuner&trigger=turns&max_turns=6&keep=2");
        let before = route.clone();
        let policy = Policy::new(Trigger::MessageCount { max_messages: 8 }).unwrap();
        let error = show_in_route(&mut route, &policy).unwrap_err();
        assert!(error.contains("policy panel"), "{error}");
        assert_eq!(route, before);
    }

    #[test]
    fn an_imported_policy_is_the_panels_and_the_conversations_keeping_the_pinned_facts() {
        use crate::app::policy_form::PolicyEdit;
        use crate::app::workbench::Workbench;
        use crate::engine::policy::Placement;

        let mut workbench = Workbench::default();
        workbench.edit_policy(PolicyEdit::NewFact("1,20,000".to_owned()));
        workbench.edit_policy(PolicyEdit::AddFact);
        let facts = workbench.policy.facts.clone();
        assert_eq!(facts.len(), 1);
        let mut policy = Policy::new(Trigger::Tokens {
            budget: 700,
            keep_tokens: 200,
        })
        .unwrap();
        policy.placement = Placement::UserAck;
        policy.prompt.text = "Keep every figure.".to_owned();
        policy.prompt.must_keep = vec!["salary".to_owned()];
        workbench.import_policy(policy.clone());
        assert_eq!(*workbench.current_policy(), policy);
        assert_eq!(workbench.policy.build().unwrap(), (policy, facts));
        assert_eq!(workbench.policy.number("budget"), "700");
    }
}
