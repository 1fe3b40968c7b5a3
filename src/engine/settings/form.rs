//! The Settings form: what it holds as typed, the key bound to the origin it was typed for, and
//! the validation that turns it into [`ValidSettings`] with every problem named at once.

use super::request::{Endpoint, Generation, ValidSettings, redacted};
use crate::engine::openai::{Origin, Provider};

/// What the Settings form holds. Text fields are stored as typed; [`Settings::validate`] turns
/// them into a [`ValidSettings`].
#[derive(Clone, PartialEq)]
pub struct Settings {
    /// The OpenAI-compatible base URL, e.g. `http://localhost:11434/v1`.
    pub base_url: String,
    /// Empty when the server needs no key. Set it with [`Settings::set_api_key`], which binds it
    /// to the base URL's origin.
    pub api_key: String,
    /// The origin (`scheme://host:port`) the key was typed for; empty while it is bound to none
    /// (typed before any valid base URL), and then it goes wherever the base URL points.
    pub key_origin: String,
    /// Why the key field was last emptied, for the form's notice; not stored.
    pub key_withdrawn: Option<KeyWithdrawn>,
    /// Keep the key in localStorage (across browser restarts) instead of sessionStorage.
    pub remember_key: bool,
    pub chat_model: String,
    pub summary_model: String,
    /// Empty for the server's default.
    pub temperature: String,
    /// Empty for the server's default.
    pub max_tokens: String,
    /// Empty leaves `reasoning_effort` out of the request.
    pub reasoning_effort: String,
    pub timeout_secs: String,
    pub stream: bool,
    /// The model ids the last "Test connection" returned, offered in the model fields.
    pub models: Vec<String>,
    /// The summariser's own generation settings (edited in the Chat tab's policy panel): every
    /// summary request uses them, as the source sets them per call. Each is empty for the
    /// chat's value.
    pub summary_temperature: String,
    pub summary_max_tokens: String,
    /// Empty for the chat's value; [`SUMMARY_EFFORT_OFF`] leaves the field out.
    pub summary_reasoning_effort: String,
}

/// The key field was emptied because the base URL moved to another origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyWithdrawn {
    /// The origin the key was typed for.
    pub from: String,
    /// The origin the base URL points at now, if it parses.
    pub to: Option<String>,
}

impl std::fmt::Display for KeyWithdrawn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let to = self
            .to
            .as_deref()
            .map_or_else(|| "another address".to_owned(), str::to_owned);
        write!(
            f,
            "The API key was cleared: it was typed for {}, and the base URL now points at {to}. A key is only ever sent to the server it was typed for; type the key for this server (or change the base URL back and type it again).",
            self.from
        )
    }
}

/// The summariser's `reasoning_effort` value that sends no `reasoning_effort` at all, even
/// when the chat sends one.
pub const SUMMARY_EFFORT_OFF: &str = "off";

/// Which model setting an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelUse {
    Chat,
    Summary,
}

/// Why the settings cannot be used yet, with what to change.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// The base URL field is empty.
    #[error(
        "Enter the base URL of an OpenAI-compatible server, e.g. http://localhost:11434/v1, or pick a provider."
    )]
    BaseUrlMissing,
    /// The base URL does not start with `http://` or `https://`.
    #[error("The base URL must start with http:// or https:// (got {url:?}).")]
    BaseUrlScheme { url: String },
    /// The base URL has no host, or contains spaces.
    #[error("The base URL {url:?} is not a valid address: {reason}.")]
    BaseUrlInvalid { url: String, reason: &'static str },
    /// The base URL carries credentials (`user:key@host`) or a query string.
    #[error(
        "Remove the credentials or query from the base URL and put the API key in the API key field; a key in a URL ends up in logs and history."
    )]
    BaseUrlSecret,
    /// A model field is empty.
    #[error("Choose a {} model; \"Test connection\" lists the ones the server offers.", model_use_name(*.0))]
    ModelMissing(ModelUse),
    /// The temperature is not a number in [0, 2].
    #[error(
        "Temperature must be a number from 0 to 2 (got {0:?}); leave it empty for the server's default."
    )]
    Temperature(String),
    /// max_tokens is not a whole number in range.
    #[error(
        "max_tokens must be a whole number from 1 to {MAX_TOKENS_LIMIT} (got {0:?}); leave it empty for the server's default."
    )]
    MaxTokens(String),
    /// reasoning_effort is not one of the known levels.
    #[error(
        "reasoning_effort must be one of {levels} (got {0:?}); leave it empty for models that do not reason.",
        levels = REASONING_EFFORTS.join(", ")
    )]
    ReasoningEffort(String),
    /// One of the summariser's own generation settings is invalid (the inner error says which).
    #[error("The summariser's own setting: {0}")]
    Summary(Box<SettingsError>),
    /// The timeout is not a whole number of seconds in range.
    #[error(
        "The request timeout must be a whole number of seconds from 1 to {MAX_TIMEOUT_SECS} (got {0:?})."
    )]
    Timeout(String),
}

/// The levels `reasoning_effort` accepts across OpenAI, Groq and OpenRouter.
pub const REASONING_EFFORTS: &[&str] = &["minimal", "low", "medium", "high"];
pub const MAX_TOKENS_LIMIT: u32 = 1_000_000;
pub const MAX_TIMEOUT_SECS: u64 = 600;
pub const DEFAULT_TIMEOUT_SECS: u64 = 60;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            base_url: String::new(),
            api_key: String::new(),
            key_origin: String::new(),
            key_withdrawn: None,
            remember_key: false,
            chat_model: String::new(),
            summary_model: String::new(),
            temperature: String::new(),
            max_tokens: String::new(),
            reasoning_effort: String::new(),
            timeout_secs: default_timeout_text(),
            stream: true,
            models: Vec::new(),
            summary_temperature: String::new(),
            summary_max_tokens: String::new(),
            summary_reasoning_effort: String::new(),
        }
    }
}

/// Written by hand so that the API key never reaches a log through `{:?}`.
impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("base_url", &self.base_url)
            .field("api_key", &redacted(&self.api_key))
            .field("key_origin", &self.key_origin)
            .field("remember_key", &self.remember_key)
            .field("chat_model", &self.chat_model)
            .field("summary_model", &self.summary_model)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("reasoning_effort", &self.reasoning_effort)
            .field("timeout_secs", &self.timeout_secs)
            .field("stream", &self.stream)
            .field("models", &self.models)
            .field("summary_temperature", &self.summary_temperature)
            .field("summary_max_tokens", &self.summary_max_tokens)
            .field("summary_reasoning_effort", &self.summary_reasoning_effort)
            .finish()
    }
}

impl Settings {
    /// Checks every field and returns all problems at once, so the form can show them together.
    pub fn validate(&self) -> Result<ValidSettings, Vec<SettingsError>> {
        let mut errors = Vec::new();
        let endpoint = self.endpoint().map_err(|mut e| errors.append(&mut e)).ok();
        let chat_model = self.chat_model.trim();
        if chat_model.is_empty() {
            errors.push(SettingsError::ModelMissing(ModelUse::Chat));
        }
        // No summariser model of its own means the chat model writes the summaries too, so a
        // chat works live as soon as one model is named.
        let summary_model = match self.summary_model.trim() {
            "" => chat_model,
            named => named,
        };
        let temperature = optional(&self.temperature, parse_temperature);
        let max_tokens = optional(&self.max_tokens, parse_max_tokens);
        let reasoning_effort = optional(&self.reasoning_effort, parse_effort);
        let summary = self.summary_overrides();
        match (endpoint, temperature, max_tokens, reasoning_effort) {
            (Some(endpoint), Ok(temperature), Ok(max_tokens), Ok(reasoning_effort))
                if errors.is_empty() && summary.is_ok() =>
            {
                let (summary_temperature, summary_max_tokens, summary_effort) =
                    summary.expect("checked above");
                let summary = Generation {
                    temperature: summary_temperature.unwrap_or(temperature),
                    max_tokens: summary_max_tokens.unwrap_or(max_tokens),
                    reasoning_effort: summary_effort.unwrap_or_else(|| reasoning_effort.clone()),
                };
                Ok(ValidSettings {
                    endpoint,
                    chat_model: chat_model.to_owned(),
                    summary_model: summary_model.to_owned(),
                    temperature,
                    max_tokens,
                    reasoning_effort,
                    stream: self.stream,
                    summary,
                })
            }
            (_, temperature, max_tokens, reasoning_effort) => {
                errors.extend(temperature.err());
                errors.extend(max_tokens.err());
                errors.extend(reasoning_effort.err());
                errors.extend(summary.err().into_iter().flatten());
                Err(errors)
            }
        }
    }

    /// The summariser's own values: for each field, `None` when it is empty (the chat's value
    /// applies) and `Some` of what summary requests send otherwise; every invalid field is an
    /// error, wrapped in [`SettingsError::Summary`].
    #[allow(clippy::type_complexity)]
    pub fn summary_overrides(
        &self,
    ) -> Result<
        (
            Option<Option<f64>>,
            Option<Option<u32>>,
            Option<Option<String>>,
        ),
        Vec<SettingsError>,
    > {
        let wrap = |e: SettingsError| SettingsError::Summary(Box::new(e));
        let temperature = optional(&self.summary_temperature, parse_temperature).map_err(wrap);
        let max_tokens = optional(&self.summary_max_tokens, parse_max_tokens).map_err(wrap);
        let effort = optional(&self.summary_reasoning_effort, |text| {
            if text.eq_ignore_ascii_case(SUMMARY_EFFORT_OFF) {
                Ok(None)
            } else {
                parse_effort(text).map(Some)
            }
        })
        .map_err(wrap);
        match (temperature, max_tokens, effort) {
            (Ok(t), Ok(m), Ok(e)) => Ok((t.map(Some), m.map(Some), e)),
            (t, m, e) => Err(t.err().into_iter().chain(m.err()).chain(e.err()).collect()),
        }
    }

    /// Only what is needed to reach the server (base URL, key, timeout): "Test connection"
    /// works before any model is chosen.
    pub fn endpoint(&self) -> Result<Endpoint, Vec<SettingsError>> {
        let base_url = check_base_url(&self.base_url);
        let timeout_ms = parse_timeout(&self.timeout_secs);
        match (base_url, timeout_ms) {
            (Ok(base_url), Ok(timeout_ms)) => {
                let key = self.api_key.trim();
                let own_origin = self.key_origin.is_empty()
                    || Origin::parse(&base_url).is_some_and(|o| o.to_string() == self.key_origin);
                Ok(Endpoint {
                    base_url,
                    api_key: (!key.is_empty() && own_origin).then(|| key.to_owned()),
                    timeout_ms,
                })
            }
            (base_url, timeout_ms) => {
                Err(base_url.err().into_iter().chain(timeout_ms.err()).collect())
            }
        }
    }

    /// Fills the base URL from a preset; like [`Settings::set_base_url`], a key typed for
    /// another origin is emptied.
    pub fn apply_provider(&mut self, provider: &Provider) {
        self.set_base_url(provider.base_url.to_owned());
    }

    /// Sets the base URL as typed. When it no longer points at the origin the key was typed for,
    /// the key field is emptied (and [`Settings::key_withdrawn`] says why) before any request
    /// can carry it there.
    pub fn set_base_url(&mut self, url: String) {
        self.base_url = url;
        let now = Origin::parse(&self.base_url).map(|o| o.to_string());
        if self.api_key.trim().is_empty() {
            // No key to protect: a key typed next binds to the origin it is typed for.
            self.key_origin.clear();
        } else if !self.key_origin.is_empty() && now.as_deref() != Some(self.key_origin.as_str()) {
            self.key_withdrawn = Some(KeyWithdrawn {
                from: std::mem::take(&mut self.key_origin),
                to: now,
            });
            self.api_key.clear();
        }
    }

    /// Sets the key as typed, bound to the base URL's current origin (to none while the base
    /// URL is not valid yet).
    pub fn set_api_key(&mut self, key: String) {
        self.api_key = key;
        self.key_withdrawn = None;
        self.key_origin = if self.api_key.trim().is_empty() {
            String::new()
        } else {
            Origin::parse(&self.base_url)
                .map(|o| o.to_string())
                .unwrap_or_default()
        };
    }

    /// Binds a key typed before any valid base URL to the origin it is about to be sent to.
    /// Called when a request goes out, so that a later change of the base URL withdraws it.
    pub fn bind_key(&mut self) {
        if self.key_origin.is_empty() && !self.api_key.trim().is_empty() {
            self.key_origin = Origin::parse(&self.base_url)
                .map(|o| o.to_string())
                .unwrap_or_default();
        }
    }

    /// Stores the model list from "Test connection", sorted and without duplicates.
    pub fn set_models(&mut self, mut models: Vec<String>) {
        models.sort_unstable();
        models.dedup();
        self.models = models;
    }
}

fn model_use_name(model_use: ModelUse) -> &'static str {
    match model_use {
        ModelUse::Chat => "chat",
        ModelUse::Summary => "summariser",
    }
}

/// Checks and normalises a base URL by hand. The `url` crate would do it, but its IDNA tables
/// add about 200 KB to the wasm bundle for a check this small.
pub(super) fn check_base_url(raw: &str) -> Result<String, SettingsError> {
    let url = raw.trim().trim_end_matches('/');
    if url.is_empty() {
        return Err(SettingsError::BaseUrlMissing);
    }
    let lower = url.to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &url[8..]
    } else if lower.starts_with("http://") {
        &url[7..]
    } else {
        return Err(SettingsError::BaseUrlScheme {
            url: url.to_owned(),
        });
    };
    let invalid = |reason| SettingsError::BaseUrlInvalid {
        url: url.to_owned(),
        reason,
    };
    if url.chars().any(char::is_whitespace) {
        return Err(invalid("it contains a space"));
    }
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.contains('@') || url.contains('?') || url.contains('#') {
        return Err(SettingsError::BaseUrlSecret);
    }
    let host = authority
        .rsplit_once(':')
        .filter(|(_, port)| !port.contains(']'))
        .map_or(authority, |(host, _)| host);
    if host.is_empty() {
        return Err(invalid("it has no host name"));
    }
    if let Some((_, port)) = authority.rsplit_once(':').filter(|(_, p)| !p.contains(']'))
        && port.parse::<u16>().is_err()
    {
        return Err(invalid("the port is not a number from 0 to 65535"));
    }
    Ok(url.to_owned())
}

fn parse_timeout(raw: &str) -> Result<u64, SettingsError> {
    let text = raw.trim();
    if text.is_empty() {
        return Ok(DEFAULT_TIMEOUT_SECS * 1000);
    }
    text.parse::<u64>()
        .ok()
        .filter(|s| (1..=MAX_TIMEOUT_SECS).contains(s))
        .map(|s| s * 1000)
        .ok_or_else(|| SettingsError::Timeout(text.to_owned()))
}

fn parse_temperature(text: &str) -> Result<f64, SettingsError> {
    text.parse::<f64>()
        .ok()
        .filter(|t| (0.0..=2.0).contains(t))
        .ok_or_else(|| SettingsError::Temperature(text.to_owned()))
}

fn parse_max_tokens(text: &str) -> Result<u32, SettingsError> {
    text.parse::<u32>()
        .ok()
        .filter(|n| (1..=MAX_TOKENS_LIMIT).contains(n))
        .ok_or_else(|| SettingsError::MaxTokens(text.to_owned()))
}

fn parse_effort(text: &str) -> Result<String, SettingsError> {
    let level = text.to_ascii_lowercase();
    if REASONING_EFFORTS.contains(&level.as_str()) {
        Ok(level)
    } else {
        Err(SettingsError::ReasoningEffort(text.to_owned()))
    }
}

/// Parses an optional field: empty means "not set".
fn optional<T>(
    raw: &str,
    parse: impl FnOnce(&str) -> Result<T, SettingsError>,
) -> Result<Option<T>, SettingsError> {
    let text = raw.trim();
    if text.is_empty() {
        Ok(None)
    } else {
        parse(text).map(Some)
    }
}

pub(super) fn default_timeout_text() -> String {
    DEFAULT_TIMEOUT_SECS.to_string()
}
