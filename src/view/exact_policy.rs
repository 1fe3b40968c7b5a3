//! What the "exact policy" section prints besides the form's own values
//! ([`ExactPolicyScreen::of`]): its hook names under the host's prefix (`policy` in the Chat
//! policy panel, `replay` in Inspect's replay form), each field's hooks and its Reset's
//! accessible name, and the line shown while the policy cannot be put in words.

use crate::app::exact_form::{EXACT_FIELDS, ExactField};

/// The line above the section while a value does not work.
pub const SUMMARY_PENDING: &str = "The policy in words shows here once every value works.";

/// The section's hooks, and one [`ExactFieldRow`] per field of [`EXACT_FIELDS`], in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactPolicyScreen {
    /// `{prefix}-exact-summary`: the policy in one line.
    pub summary: String,
    /// `{prefix}-exact`: the `<details>` section.
    pub section: String,
    /// `{prefix}-exact-defaults`: the nested fold of the unchanged fields.
    pub defaults: String,
    /// `{prefix}-exact-error`: why the values cannot be used.
    pub error: String,
    pub fields: Vec<ExactFieldRow>,
}

/// One field's hooks and its Reset's accessible name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactFieldRow {
    /// `{prefix}-{name}`: the input or select.
    pub input: String,
    /// `{prefix}-{name}-field`: the row.
    pub row: String,
    /// `{prefix}-{name}-reset`: the Reset button.
    pub reset: String,
    /// E.g. "Reset Keep the newest to its default".
    pub reset_label: String,
}

impl ExactPolicyScreen {
    pub fn of(prefix: &str) -> ExactPolicyScreen {
        ExactPolicyScreen {
            summary: format!("{prefix}-exact-summary"),
            section: format!("{prefix}-exact"),
            defaults: format!("{prefix}-exact-defaults"),
            error: format!("{prefix}-exact-error"),
            fields: EXACT_FIELDS
                .iter()
                .map(|field| ExactFieldRow::of(prefix, field))
                .collect(),
        }
    }
}

impl ExactFieldRow {
    pub fn of(prefix: &str, field: &ExactField) -> ExactFieldRow {
        let name = field.name;
        ExactFieldRow {
            input: format!("{prefix}-{name}"),
            row: format!("{prefix}-{name}-field"),
            reset: format!("{prefix}-{name}-reset"),
            reset_label: format!("Reset {} to its default", field.label),
        }
    }
}

/// The line above the section: the policy in words, or [`SUMMARY_PENDING`] while it has none.
pub fn summary_line(summary: Option<String>) -> String {
    summary.unwrap_or_else(|| SUMMARY_PENDING.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hooks_carry_the_hosts_prefix() {
        for prefix in ["policy", "replay"] {
            let screen = ExactPolicyScreen::of(prefix);
            assert_eq!(screen.summary, format!("{prefix}-exact-summary"));
            assert_eq!(screen.section, format!("{prefix}-exact"));
            assert_eq!(screen.defaults, format!("{prefix}-exact-defaults"));
            assert_eq!(screen.error, format!("{prefix}-exact-error"));
        }
    }

    #[test]
    fn every_field_has_its_row_input_and_reset_in_order() {
        let screen = ExactPolicyScreen::of("replay");
        assert_eq!(screen.fields.len(), EXACT_FIELDS.len());
        for (row, field) in screen.fields.iter().zip(EXACT_FIELDS.iter()) {
            assert_eq!(row.input, format!("replay-{}", field.name));
            assert_eq!(row.row, format!("replay-{}-field", field.name));
            assert_eq!(row.reset, format!("replay-{}-reset", field.name));
            assert!(
                row.reset_label.starts_with("Reset ") && row.reset_label.contains(field.label),
                "{row:?}"
            );
        }
        let first = &EXACT_FIELDS[0];
        assert_eq!(
            ExactFieldRow::of("policy", first).reset_label,
            format!("Reset {} to its default", first.label)
        );
    }

    #[test]
    fn the_summary_line_waits_for_a_policy_in_words() {
        assert_eq!(summary_line(None), SUMMARY_PENDING);
        assert_eq!(
            summary_line(Some("Folds at 8 turns, keeps 2.".to_owned())),
            "Folds at 8 turns, keeps 2."
        );
    }
}
