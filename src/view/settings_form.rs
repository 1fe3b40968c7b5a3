//! The Settings form's words beside its fields: which field each validation problem is about
//! (so it shows next to that field, not only in the list at the bottom), where the key is kept,
//! and what an export holds; and the tab as drawn, [`SettingsScreen::of`] the settings and
//! "Test connection"'s state. The checks themselves are `engine::settings`', the form's fields
//! and edits `app::settings_form`'s.

use crate::app::settings_check::ConnectionTest;
use crate::app::settings_form::SettingsField;
use crate::engine::openai::{Origin, detect_provider};
use crate::engine::settings::{ModelUse, Settings, SettingsError};

/// The id (and `data-testid`) of the input `error` is about.
pub fn field_of(error: &SettingsError) -> &'static str {
    match error {
        SettingsError::BaseUrlMissing
        | SettingsError::BaseUrlScheme { .. }
        | SettingsError::BaseUrlInvalid { .. }
        | SettingsError::BaseUrlSecret => "base-url",
        SettingsError::ModelMissing(ModelUse::Chat) => "chat-model",
        SettingsError::ModelMissing(ModelUse::Summary) => "summary-model",
        SettingsError::Temperature(_) => "temperature",
        SettingsError::MaxTokens(_) => "max-tokens",
        SettingsError::ReasoningEffort(_) => "reasoning-effort",
        SettingsError::Timeout(_) => "timeout",
        // The summariser's own settings are checked where they are edited (their fields show
        // their own problems).
        SettingsError::Summary(inner) => match **inner {
            SettingsError::Temperature(_) => "summary-temperature",
            SettingsError::MaxTokens(_) => "summary-max_tokens",
            SettingsError::ReasoningEffort(_) => "summary-reasoning_effort",
            _ => "summary-settings",
        },
    }
}

/// The message to show beside field `field`, if what it holds cannot be used. An empty field
/// that must be filled is not flagged here (a fresh form would open in red): the list under the
/// form names it.
pub fn inline_error(settings: &Settings, field: &str) -> Option<String> {
    let errors = settings.validate().err()?;
    errors
        .iter()
        .filter(|e| {
            !matches!(
                e,
                SettingsError::BaseUrlMissing | SettingsError::ModelMissing(_)
            )
        })
        .find(|e| field_of(e) == field)
        .map(ToString::to_string)
}

/// Where the key is kept and where it may go, in a sentence or two.
pub fn key_kept(settings: &Settings) -> String {
    let place = if settings.remember_key {
        "The key is kept in this browser's localStorage until you untick \"Remember the key\"."
    } else {
        "The key is kept in this tab's sessionStorage and forgotten when the tab closes."
    };
    let origin = Some(settings.key_origin.clone())
        .filter(|o| !o.is_empty())
        .or_else(|| Origin::parse(&settings.base_url).map(|o| o.to_string()));
    match origin {
        Some(origin) if !settings.api_key.trim().is_empty() => format!(
            "{place} It is only ever sent to {origin}, the server it was typed for; pointing the base URL at another server empties it."
        ),
        _ => format!(
            "{place} It is only ever sent to the server it was typed for; pointing the base URL at another server empties it."
        ),
    }
}

/// The note under the base URL when it is a known provider's: its name, whether it needs a
/// key, and what to know about calling it from a browser.
pub fn provider_note(base_url: &str) -> Option<String> {
    detect_provider(base_url).map(|p| {
        let key = if p.needs_api_key {
            "Needs an API key."
        } else {
            "Needs no API key."
        };
        format!("{}: {key} {}", p.name, p.browser_note)
    })
}

/// The line once "Test connection" found `count` models (the models follow it).
pub fn models_found(count: usize) -> String {
    format!("Connected: {count} models offered. ")
}

/// The line under the model fields once the server offered `models`; `None` before.
pub fn models_offered(models: &[String]) -> Option<String> {
    (!models.is_empty()).then(|| {
        format!(
            "The server offers {}: {}. Both fields suggest them as you type.",
            models.len(),
            models.join(", ")
        )
    })
}

/// The Settings tab as drawn: every sentence and flag it shows, from the settings as typed and
/// where "Test connection" stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsScreen {
    /// The provider preset the base URL is, by id; empty for "Custom".
    pub provider: &'static str,
    /// The note beside the preset when the base URL is a known provider's.
    pub note: Option<String>,
    /// Why the key field was emptied, while it is.
    pub key_withdrawn: Option<String>,
    /// Whether the warning under "Remember the key" shows.
    pub remember_warning: bool,
    /// The line under "Test connection".
    pub test: TestLine,
    /// The line under the model fields once the server offered models.
    pub models_offered: Option<String>,
    /// Where the key is kept.
    pub key_kept: String,
    /// Everything that stops a chat, in the list under the form; empty when it can start.
    pub problems: Vec<String>,
    /// What is wrong beside each field.
    errors: Vec<(SettingsField, String)>,
}

/// The line under "Test connection".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestLine {
    /// Not pressed: what it does.
    Idle,
    /// Waiting for the server.
    Testing,
    /// The server listed models: the line, then the models.
    Found { line: String, models: String },
    /// Why there is no answer.
    Failed(String),
}

impl SettingsScreen {
    /// The tab for `settings` with "Test connection" at `test`.
    pub fn of(settings: &Settings, test: &ConnectionTest) -> SettingsScreen {
        let errors = settings.validate().err().unwrap_or_default();
        SettingsScreen {
            provider: detect_provider(&settings.base_url).map_or("", |p| p.id),
            note: provider_note(&settings.base_url),
            key_withdrawn: settings.key_withdrawn.as_ref().map(ToString::to_string),
            remember_warning: settings.remember_key,
            test: match test {
                ConnectionTest::Idle => TestLine::Idle,
                ConnectionTest::Testing => TestLine::Testing,
                ConnectionTest::Found(count) => TestLine::Found {
                    line: models_found(*count),
                    models: settings.models.join(", "),
                },
                ConnectionTest::Failed(message) => TestLine::Failed(message.clone()),
            },
            models_offered: models_offered(&settings.models),
            key_kept: key_kept(settings),
            problems: errors.iter().map(ToString::to_string).collect(),
            errors: SettingsField::ALL
                .into_iter()
                .filter_map(|field| Some((field, inline_error(settings, field.id())?)))
                .collect(),
        }
    }

    /// What is wrong with `field`'s value, beside it; `None` while it is fine.
    pub fn error(&self, field: SettingsField) -> Option<String> {
        self.errors
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, e)| e.clone())
    }

    /// The field's `aria-describedby`: its help (when it has one) and its error (while there
    /// is one); `None` with neither.
    pub fn described_by(&self, field: SettingsField, has_help: bool) -> Option<String> {
        let ids: Vec<&str> = has_help
            .then(|| field.help_id())
            .into_iter()
            .chain(self.error(field).map(|_| field.error_id()))
            .collect();
        (!ids.is_empty()).then(|| ids.join(" "))
    }
}

/// What a session export holds, and what it never does.
pub const EXPORT_HOLDS: &str = "An export holds the session's endpoint and model settings without the key, its memory policy and pinned facts, every archived message and every summary edition. Nothing leaves this browser unless you download it; requests go straight from here to your server.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_provider_and_the_models_offered_are_said_in_words() {
        assert_eq!(provider_note("http://unknown.example/v1"), None);
        let note = provider_note("https://api.openai.com/v1").unwrap();
        assert!(note.contains("Needs an API key."), "{note}");
        assert_eq!(models_found(2), "Connected: 2 models offered. ");
        assert_eq!(models_offered(&[]), None);
        assert_eq!(
            models_offered(&["a".to_owned(), "b".to_owned()]).as_deref(),
            Some("The server offers 2: a, b. Both fields suggest them as you type.")
        );
    }

    fn settings(base_url: &str) -> Settings {
        let mut s = Settings::default();
        s.set_base_url(base_url.to_owned());
        s.chat_model = "m".into();
        s
    }

    #[test]
    fn every_problem_is_shown_beside_the_field_it_is_about() {
        let mut s = settings("ftp://example.com");
        s.temperature = "5".into();
        s.max_tokens = "lots".into();
        s.reasoning_effort = "extreme".into();
        s.timeout_secs = "0".into();
        for (field, words) in [
            ("base-url", "http://"),
            ("temperature", "0 to 2"),
            ("max-tokens", "whole number"),
            ("reasoning-effort", "one of"),
            ("timeout", "seconds"),
        ] {
            let shown = inline_error(&s, field).unwrap_or_else(|| panic!("{field}"));
            assert!(shown.contains(words), "{field}: {shown}");
        }
        assert_eq!(inline_error(&s, "chat-model"), None);
    }

    #[test]
    fn an_empty_form_is_not_flagged_field_by_field() {
        let s = Settings::default();
        assert!(s.validate().is_err());
        for field in ["base-url", "chat-model", "summary-model", "temperature"] {
            assert_eq!(inline_error(&s, field), None, "{field}");
        }
        // A valid form has nothing beside any field.
        let s = settings("http://localhost:11434/v1");
        assert_eq!(inline_error(&s, "base-url"), None);
    }

    #[test]
    fn an_empty_form_lists_what_is_missing_and_offers_the_test() {
        let screen = SettingsScreen::of(&Settings::default(), &ConnectionTest::Idle);
        assert_eq!(screen.test, TestLine::Idle);
        assert_eq!(screen.provider, "");
        assert_eq!(screen.note, None);
        assert!(!screen.problems.is_empty());
        assert!(
            SettingsField::ALL
                .iter()
                .all(|f| screen.error(*f).is_none())
        );
        assert_eq!(screen.models_offered, None);
        assert_eq!(
            screen.described_by(SettingsField::BaseUrl, true).as_deref(),
            Some("base-url-help")
        );
        assert_eq!(
            screen.described_by(SettingsField::ReasoningEffort, false),
            None
        );
    }

    #[test]
    fn a_test_in_flight_says_so() {
        let screen = SettingsScreen::of(
            &settings("http://localhost:11434/v1"),
            &ConnectionTest::Testing,
        );
        assert_eq!(screen.test, TestLine::Testing);
        assert_eq!(screen.provider, "ollama");
        assert!(screen.note.as_deref().unwrap().starts_with("Ollama"));
        assert!(screen.problems.is_empty(), "{:?}", screen.problems);
    }

    #[test]
    fn a_failed_test_and_wrong_values_are_shown_beside_their_fields() {
        let mut s = settings("ftp://example.com");
        s.timeout_secs = "0".into();
        s.remember_key = true;
        let screen = SettingsScreen::of(&s, &ConnectionTest::Failed("No server.".to_owned()));
        assert_eq!(screen.test, TestLine::Failed("No server.".to_owned()));
        assert!(
            screen
                .error(SettingsField::BaseUrl)
                .unwrap()
                .contains("http://")
        );
        assert!(screen.error(SettingsField::Timeout).is_some());
        assert_eq!(screen.error(SettingsField::ChatModel), None);
        assert_eq!(
            screen.described_by(SettingsField::Timeout, true).as_deref(),
            Some("timeout-help timeout-error")
        );
        assert_eq!(screen.problems.len(), 2, "{:?}", screen.problems);
        assert!(screen.remember_warning);
    }

    #[test]
    fn a_found_test_names_the_models_offered() {
        let mut s = settings("http://localhost:11434/v1");
        s.set_models(vec!["b".to_owned(), "a".to_owned()]);
        let screen = SettingsScreen::of(&s, &ConnectionTest::Found(2));
        assert_eq!(
            screen.test,
            TestLine::Found {
                line: "Connected: 2 models offered. ".to_owned(),
                models: "a, b".to_owned()
            }
        );
        assert_eq!(
            screen.models_offered.as_deref(),
            Some("The server offers 2: a, b. Both fields suggest them as you type.")
        );
        assert!(screen.key_kept.contains("sessionStorage"));
        assert_eq!(screen.key_withdrawn, None);
    }

    #[test]
    fn the_key_s_place_follows_remember_and_names_its_origin() {
        let mut s = settings("https://api.groq.com/openai/v1");
        s.set_api_key("sk-x".into());
        let kept = key_kept(&s);
        assert!(kept.contains("sessionStorage"), "{kept}");
        assert!(kept.contains("https://api.groq.com"), "{kept}");
        s.remember_key = true;
        assert!(key_kept(&s).contains("localStorage"));
        assert!(!key_kept(&s).contains("sk-x"));
    }
}
