//! The Settings tab's form: [`SettingsField`], each field the tab draws as typed text (its
//! element id, its help's and its error's ids, the text it holds), and [`SettingsEdit`], one
//! change the user made, applied by [`SettingsForm::edit`]. The form is the app-wide
//! [`Settings`] itself, which keeps every value as typed; what is wrong with one is
//! `Settings::validate`'s, worded beside its field by `view::settings_form`. A base URL or a
//! provider that points elsewhere withdraws a key typed for another server
//! ([`Settings::set_base_url`]).

use crate::engine::openai::PROVIDERS;
use crate::engine::settings::Settings;

/// A field of the Settings form that holds text (or, for the reasoning effort, a choice kept
/// as its text).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SettingsField {
    BaseUrl,
    ApiKey,
    Timeout,
    ChatModel,
    SummaryModel,
    Temperature,
    MaxTokens,
    ReasoningEffort,
}

impl SettingsField {
    /// Every field, in the order of the form.
    pub const ALL: [SettingsField; 8] = [
        SettingsField::BaseUrl,
        SettingsField::ApiKey,
        SettingsField::Timeout,
        SettingsField::ChatModel,
        SettingsField::SummaryModel,
        SettingsField::Temperature,
        SettingsField::MaxTokens,
        SettingsField::ReasoningEffort,
    ];

    /// The element's id, which is its `data-testid` too, and what a problem names
    /// (`view::settings_form::field_of`).
    pub fn id(self) -> &'static str {
        match self {
            SettingsField::BaseUrl => "base-url",
            SettingsField::ApiKey => "api-key",
            SettingsField::Timeout => "timeout",
            SettingsField::ChatModel => "chat-model",
            SettingsField::SummaryModel => "summary-model",
            SettingsField::Temperature => "temperature",
            SettingsField::MaxTokens => "max-tokens",
            SettingsField::ReasoningEffort => "reasoning-effort",
        }
    }

    /// The id of its help text.
    pub fn help_id(self) -> &'static str {
        match self {
            SettingsField::BaseUrl => "base-url-help",
            SettingsField::ApiKey => "api-key-help",
            SettingsField::Timeout => "timeout-help",
            SettingsField::ChatModel => "chat-model-help",
            SettingsField::SummaryModel => "summary-model-help",
            SettingsField::Temperature => "temperature-help",
            SettingsField::MaxTokens => "max-tokens-help",
            SettingsField::ReasoningEffort => "reasoning-effort-help",
        }
    }

    /// The id (and `data-testid`) of what is wrong with it, beside it.
    pub fn error_id(self) -> &'static str {
        match self {
            SettingsField::BaseUrl => "base-url-error",
            SettingsField::ApiKey => "api-key-error",
            SettingsField::Timeout => "timeout-error",
            SettingsField::ChatModel => "chat-model-error",
            SettingsField::SummaryModel => "summary-model-error",
            SettingsField::Temperature => "temperature-error",
            SettingsField::MaxTokens => "max-tokens-error",
            SettingsField::ReasoningEffort => "reasoning-effort-error",
        }
    }

    /// What the field holds, as typed.
    pub fn text(self, settings: &Settings) -> String {
        match self {
            SettingsField::BaseUrl => settings.base_url.clone(),
            SettingsField::ApiKey => settings.api_key.clone(),
            SettingsField::Timeout => settings.timeout_secs.clone(),
            SettingsField::ChatModel => settings.chat_model.clone(),
            SettingsField::SummaryModel => settings.summary_model.clone(),
            SettingsField::Temperature => settings.temperature.clone(),
            SettingsField::MaxTokens => settings.max_tokens.clone(),
            SettingsField::ReasoningEffort => settings.reasoning_effort.clone(),
        }
    }
}

/// One change to the Settings form, as the user made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettingsEdit {
    /// A field typed into (or the reasoning effort chosen), kept as typed.
    Text(SettingsField, String),
    /// A provider preset chosen by its id; "Custom" (an id no preset has) changes nothing.
    Provider(String),
    /// "Remember the key on this device" ticked or unticked.
    RememberKey(bool),
    /// "Stream replies as they are written" ticked or unticked.
    Stream(bool),
}

/// The Settings form: the app-wide [`Settings`], edited one [`SettingsEdit`] at a time.
pub trait SettingsForm {
    /// Applies `edit`.
    fn edit(&mut self, edit: SettingsEdit);
}

impl SettingsForm for Settings {
    fn edit(&mut self, edit: SettingsEdit) {
        match edit {
            SettingsEdit::Text(field, text) => match field {
                SettingsField::BaseUrl => self.set_base_url(text),
                SettingsField::ApiKey => self.set_api_key(text),
                SettingsField::Timeout => self.timeout_secs = text,
                SettingsField::ChatModel => self.chat_model = text,
                SettingsField::SummaryModel => self.summary_model = text,
                SettingsField::Temperature => self.temperature = text,
                SettingsField::MaxTokens => self.max_tokens = text,
                SettingsField::ReasoningEffort => self.reasoning_effort = text,
            },
            SettingsEdit::Provider(id) => {
                if let Some(provider) = PROVIDERS.iter().find(|p| p.id == id) {
                    self.apply_provider(provider);
                }
            }
            SettingsEdit::RememberKey(on) => self.remember_key = on,
            SettingsEdit::Stream(on) => self.stream = on,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_keeps_what_was_typed_even_when_it_is_wrong() {
        let mut settings = Settings::default();
        for field in SettingsField::ALL {
            let typed = format!("not a value for {}", field.id());
            settings.edit(SettingsEdit::Text(field, typed.clone()));
            assert_eq!(field.text(&settings), typed, "{field:?}");
        }
        // Kept as typed, and what is wrong is said by the validation, not lost.
        assert!(settings.validate().is_err());
    }

    #[test]
    fn each_field_has_its_own_ids() {
        let mut ids: Vec<&str> = SettingsField::ALL
            .iter()
            .flat_map(|f| [f.id(), f.help_id(), f.error_id()])
            .collect();
        for field in SettingsField::ALL {
            assert_eq!(field.help_id(), [field.id(), "-help"].concat());
            assert_eq!(field.error_id(), [field.id(), "-error"].concat());
        }
        let all = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), all);
    }

    #[test]
    fn a_provider_fills_the_base_url_and_custom_changes_nothing() {
        let mut settings = Settings::default();
        let provider = &PROVIDERS[0];
        settings.edit(SettingsEdit::Provider(provider.id.to_owned()));
        assert_eq!(settings.base_url, provider.base_url);
        settings.edit(SettingsEdit::Provider(String::new()));
        assert_eq!(settings.base_url, provider.base_url);
    }

    #[test]
    fn a_key_is_withdrawn_when_the_base_url_points_elsewhere() {
        let mut settings = Settings::default();
        settings.edit(SettingsEdit::Text(
            SettingsField::BaseUrl,
            "http://localhost:11434/v1".to_owned(),
        ));
        settings.edit(SettingsEdit::Text(SettingsField::ApiKey, "sk-1".to_owned()));
        assert_eq!(settings.api_key, "sk-1");
        settings.edit(SettingsEdit::Text(
            SettingsField::BaseUrl,
            "https://elsewhere.example/v1".to_owned(),
        ));
        assert_eq!(settings.api_key, "");
        assert!(settings.key_withdrawn.is_some());
    }

    #[test]
    fn the_boxes_tick_and_untick() {
        let mut settings = Settings::default();
        settings.edit(SettingsEdit::RememberKey(true));
        settings.edit(SettingsEdit::Stream(false));
        assert!(settings.remember_key && !settings.stream);
        settings.edit(SettingsEdit::RememberKey(false));
        settings.edit(SettingsEdit::Stream(true));
        assert!(!settings.remember_key && settings.stream);
    }
}
