//! The ids and hooks of the summariser's generation fields ([`SummarySettingsScreen::of`]): the
//! Chat tab's policy panel shows them bare, the Settings tab under a `settings-` prefix, so the
//! same fields have ids of their own on each page. The fields' labels, values and errors are the
//! app form's ([`SummarySetting`]).

use crate::app::policy_form::SummarySetting;

/// The block's hook and, per field, its id (also its hook) and its error's hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummarySettingsScreen {
    /// The fieldset's `data-testid`, e.g. `summary-settings` or `settings-summary-settings`.
    pub testid: String,
    /// One per field of [`SummarySetting::ALL`], in order.
    pub fields: Vec<SummaryFieldIds>,
}

/// One field's id and its error's hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummaryFieldIds {
    pub field: SummarySetting,
    /// The input's `id`, its label's `for` and its `data-testid`, e.g. `summary-temperature`.
    pub id: String,
    /// The field's error's `data-testid`, e.g. `summary-temperature-error`.
    pub error: String,
}

impl SummarySettingsScreen {
    /// The ids under `prefix` (empty for the Chat tab's).
    pub fn of(prefix: &str) -> SummarySettingsScreen {
        SummarySettingsScreen {
            testid: format!("{prefix}summary-settings"),
            fields: SummarySetting::ALL
                .into_iter()
                .map(|field| {
                    let id = format!("{prefix}{}", field.testid());
                    SummaryFieldIds {
                        field,
                        error: format!("{id}-error"),
                        id,
                    }
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chat_tabs_fields_keep_their_bare_hooks() {
        let screen = SummarySettingsScreen::of("");
        assert_eq!(screen.testid, "summary-settings");
        let ids: Vec<(&str, &str)> = screen
            .fields
            .iter()
            .map(|f| (f.id.as_str(), f.error.as_str()))
            .collect();
        assert_eq!(
            ids,
            [
                ("summary-max_tokens", "summary-max_tokens-error"),
                ("summary-temperature", "summary-temperature-error"),
                ("summary-reasoning_effort", "summary-reasoning_effort-error"),
            ]
        );
        assert_eq!(
            screen.fields.iter().map(|f| f.field).collect::<Vec<_>>(),
            SummarySetting::ALL
        );
    }

    #[test]
    fn the_settings_tabs_fields_take_its_prefix() {
        let screen = SummarySettingsScreen::of("settings-");
        assert_eq!(screen.testid, "settings-summary-settings");
        assert_eq!(screen.fields[1].id, "settings-summary-temperature");
        assert_eq!(screen.fields[1].error, "settings-summary-temperature-error");
        assert_eq!(screen.fields[2].id, "settings-summary-reasoning_effort");
    }
}
