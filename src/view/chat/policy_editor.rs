//! The words and hooks of the Chat tab's policy editor that depend on a value: a number
//! field's hook and its error's ([`field_hook`], [`error_hook`]), and each pinned fact as its
//! row shows it ([`PinnedFactLine::of`]). The form itself is [`crate::app::policy_form`]'s.

use crate::app::policy_form::fact_source;
use crate::engine::drift::PinnedFact;

/// The hook of the policy's field `param`: `policy-max_turns`.
pub fn field_hook(param: &str) -> String {
    format!("policy-{param}")
}

/// The hook of what is wrong with field `field`, beside it: `policy-word_limit-error`.
pub fn error_hook(field: &str) -> String {
    format!("policy-{field}-error")
}

/// One pinned fact in the panel's list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinnedFactLine {
    /// Its label, which the list shows.
    pub label: String,
    /// The phrase or pattern it is checked by (`data-fact`).
    pub source: String,
    /// The row's title: what every edition is checked for.
    pub title: String,
    /// The Unpin button's accessible name.
    pub unpin: String,
}

impl PinnedFactLine {
    /// How `fact` is listed.
    pub fn of(fact: &PinnedFact) -> PinnedFactLine {
        let source = fact_source(fact).to_owned();
        PinnedFactLine {
            label: fact.label.clone(),
            title: format!("Checked for \"{source}\" in every edition"),
            unpin: format!("Unpin {}", fact.label),
            source,
        }
    }

    /// Every pinned fact, in order.
    pub fn all(facts: &[PinnedFact]) -> Vec<PinnedFactLine> {
        facts.iter().map(PinnedFactLine::of).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fields_hooks_name_it() {
        assert_eq!(field_hook("max_turns"), "policy-max_turns");
        assert_eq!(error_hook("word_limit"), "policy-word_limit-error");
    }

    #[test]
    fn a_pinned_phrase_is_listed_by_label_and_checked_for_its_phrase() {
        let lines = PinnedFactLine::all(&[PinnedFact::phrase("salary", "1,20,000")]);
        assert_eq!(
            lines,
            [PinnedFactLine {
                label: "salary".to_owned(),
                source: "1,20,000".to_owned(),
                title: "Checked for \"1,20,000\" in every edition".to_owned(),
                unpin: "Unpin salary".to_owned(),
            }]
        );
    }

    #[test]
    fn no_pinned_fact_lists_nothing() {
        assert!(PinnedFactLine::all(&[]).is_empty());
    }
}
