//! The connection and generation settings, as the form holds them, and their validation.
//!
//! Architecture invariant: [`Settings`] is plain data (no signals, no storage). The shell keeps
//! one in a signal, mirrors it to storage through [`SettingsRecord`] (which never holds the API
//! key), and asks [`Settings::validate`] or [`Settings::endpoint`] for the checked values before
//! a request. Numbers are kept as the text the user typed, so a half-typed value is never lost
//! and the error can quote it.
//!
//! The key belongs to the origin it was typed for ([`Settings::key_origin`]): changing the base
//! URL to another origin, by typing or by a preset, empties the key field
//! ([`Settings::set_base_url`]), and [`Settings::endpoint`] never hands a key to an origin other
//! than its own, so no request can carry it elsewhere.

use serde::{Deserialize, Serialize};

use super::openai::{ChatMessage, ChatRequest, Origin, Provider, Purpose};

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

/// The checked connection: what the fetch client needs to reach the server.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Without a trailing slash; paths such as `/models` are appended.
    pub base_url: String,
    /// Sent as `Authorization: Bearer ...` when present.
    pub api_key: Option<String>,
    /// How long to wait for a response, and between two chunks of a streamed one.
    pub timeout_ms: u64,
}

/// Settings that passed validation, ready to build requests from.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidSettings {
    pub endpoint: Endpoint,
    pub chat_model: String,
    pub summary_model: String,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub reasoning_effort: Option<String>,
    pub stream: bool,
    /// What summary requests are generated with: the summariser's own values over the chat's.
    pub summary: Generation,
}

/// The generation settings of one kind of request; `None` leaves a field out of the request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Generation {
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub reasoning_effort: Option<String>,
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

/// The stored form of [`Settings`]: its own versioned type, so that renaming a field of the form
/// does not break what browsers already saved. It deliberately has no API key field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SettingsRecord {
    pub version: u32,
    #[serde(default)]
    pub base_url: String,
    #[serde(default)]
    pub remember_key: bool,
    /// The origin the stored key belongs to (the key itself is stored elsewhere). Version 1
    /// records have none; their key is bound to their base URL's origin on load.
    #[serde(default)]
    pub key_origin: String,
    #[serde(default)]
    pub chat_model: String,
    #[serde(default)]
    pub summary_model: String,
    #[serde(default)]
    pub temperature: String,
    #[serde(default)]
    pub max_tokens: String,
    #[serde(default)]
    pub reasoning_effort: String,
    #[serde(default = "default_timeout_text")]
    pub timeout_secs: String,
    #[serde(default = "default_true")]
    pub stream: bool,
    #[serde(default)]
    pub models: Vec<String>,
    /// The summariser's own generation settings; absent in older records (the chat's values).
    #[serde(default)]
    pub summary_temperature: String,
    #[serde(default)]
    pub summary_max_tokens: String,
    #[serde(default)]
    pub summary_reasoning_effort: String,
}

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
        models.sort();
        models.dedup();
        self.models = models;
    }

    /// The form's values without the key, for storage.
    pub fn to_record(&self) -> SettingsRecord {
        SettingsRecord {
            version: SettingsRecord::VERSION,
            base_url: self.base_url.clone(),
            remember_key: self.remember_key,
            key_origin: self.key_origin.clone(),
            chat_model: self.chat_model.clone(),
            summary_model: self.summary_model.clone(),
            temperature: self.temperature.clone(),
            max_tokens: self.max_tokens.clone(),
            reasoning_effort: self.reasoning_effort.clone(),
            timeout_secs: self.timeout_secs.clone(),
            stream: self.stream,
            models: self.models.clone(),
            summary_temperature: self.summary_temperature.clone(),
            summary_max_tokens: self.summary_max_tokens.clone(),
            summary_reasoning_effort: self.summary_reasoning_effort.clone(),
        }
    }
}

impl SettingsRecord {
    /// Version 2 added `key_origin`.
    pub const VERSION: u32 = 2;

    /// Rebuilds the form, with the key that was stored separately. A version 1 record's key was
    /// typed for its base URL, so it is bound to that origin.
    pub fn into_settings(self, api_key: String) -> Settings {
        let key_origin = if self.version < 2 && !api_key.trim().is_empty() {
            Origin::parse(&self.base_url)
                .map(|o| o.to_string())
                .unwrap_or_default()
        } else {
            self.key_origin
        };
        Settings {
            base_url: self.base_url,
            api_key,
            key_origin,
            key_withdrawn: None,
            remember_key: self.remember_key,
            chat_model: self.chat_model,
            summary_model: self.summary_model,
            temperature: self.temperature,
            max_tokens: self.max_tokens,
            reasoning_effort: self.reasoning_effort,
            timeout_secs: self.timeout_secs,
            stream: self.stream,
            models: self.models,
            summary_temperature: self.summary_temperature,
            summary_max_tokens: self.summary_max_tokens,
            summary_reasoning_effort: self.summary_reasoning_effort,
        }
    }
}

/// The settings read back from storage, with what went wrong if the record was unreadable.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadSettings {
    pub settings: Settings,
    /// Why the stored record could not be read whole; the settings then hold every field that
    /// could be read, the defaults for the rest, and the key all the same.
    pub unreadable: Option<String>,
}

impl SettingsRecord {
    /// Reads the stored record `text` with the key stored beside it (`key_remembered`: it was
    /// found in localStorage, where only "remember on this device" puts it). A record that does
    /// not parse never costs the user their key or the fields that are still readable: each
    /// field is read on its own, the rest are the defaults, and a remembered key stays
    /// remembered (saving the form would otherwise move it out of localStorage). The error says
    /// what was unreadable.
    pub fn read(text: &str, api_key: String, key_remembered: bool) -> ReadSettings {
        match serde_json::from_str::<SettingsRecord>(text) {
            Ok(record) => ReadSettings {
                settings: record.into_settings(api_key),
                unreadable: None,
            },
            Err(error) => {
                let mut settings = salvage(text).into_settings(api_key);
                settings.remember_key |= key_remembered;
                ReadSettings {
                    settings,
                    unreadable: Some(error.to_string()),
                }
            }
        }
    }
}

/// The fields of an unreadable record that read on their own, as a version 1 record unless its
/// version is readable (so a key with no readable origin is bound to the base URL's).
fn salvage(text: &str) -> SettingsRecord {
    let mut kept = serde_json::Map::new();
    if let Ok(serde_json::Value::Object(fields)) = serde_json::from_str(text) {
        for (name, value) in fields {
            let mut one = serde_json::Map::new();
            one.insert("version".into(), serde_json::Value::from(1));
            one.insert(name.clone(), value.clone());
            if serde_json::from_value::<SettingsRecord>(serde_json::Value::Object(one)).is_ok() {
                kept.insert(name, value);
            }
        }
    }
    kept.entry("version").or_insert(serde_json::Value::from(1));
    serde_json::from_value(serde_json::Value::Object(kept)).unwrap_or(SettingsRecord {
        version: 1,
        ..Settings::default().to_record()
    })
}

impl Endpoint {
    /// The full URL of an API path such as `models` or `chat/completions`.
    pub fn url(&self, path: &str) -> String {
        format!("{}/{}", self.base_url, path.trim_start_matches('/'))
    }
}

/// Written by hand so that the API key never reaches a log through `{:?}`.
impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("base_url", &self.base_url)
            .field(
                "api_key",
                &self.api_key.as_deref().map(redacted).unwrap_or("none"),
            )
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

impl ValidSettings {
    /// A chat request with the chat model and the generation settings.
    pub fn chat_request(&self, messages: Vec<ChatMessage>) -> ChatRequest {
        self.request(&self.chat_model, messages)
            .streaming(self.stream)
    }

    /// A summariser request: the summary model with the summariser's own generation settings,
    /// never streamed, since the summary is only used once it is complete.
    pub fn summary_request(&self, messages: Vec<ChatMessage>) -> ChatRequest {
        let mut request = ChatRequest::new(&self.summary_model, messages).purpose(Purpose::Summary);
        request.temperature = self.summary.temperature;
        request.max_tokens = self.summary.max_tokens;
        request.reasoning_effort = self.summary.reasoning_effort.clone();
        request
    }

    fn request(&self, model: &str, messages: Vec<ChatMessage>) -> ChatRequest {
        let mut request = ChatRequest::new(model, messages);
        request.temperature = self.temperature;
        request.max_tokens = self.max_tokens;
        request.reasoning_effort = self.reasoning_effort.clone();
        request
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
fn check_base_url(raw: &str) -> Result<String, SettingsError> {
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

fn redacted(key: &str) -> &'static str {
    if key.is_empty() { "none" } else { "<redacted>" }
}

fn default_timeout_text() -> String {
    DEFAULT_TIMEOUT_SECS.to_string()
}

fn default_true() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::message::Role;
    use crate::engine::openai::PROVIDERS;

    fn filled() -> Settings {
        Settings {
            base_url: "http://localhost:11434/v1/".into(),
            api_key: " sk-test ".into(),
            chat_model: "qwen3:4b".into(),
            summary_model: " qwen3:1.7b".into(),
            temperature: "0.3".into(),
            max_tokens: "512".into(),
            reasoning_effort: "Low".into(),
            timeout_secs: "30".into(),
            ..Settings::default()
        }
    }

    #[test]
    fn base_urls() {
        let check = |raw: &str, expect: Result<&str, SettingsError>| {
            assert_eq!(check_base_url(raw), expect.map(str::to_owned), "{raw:?}");
        };
        let invalid = |url: &str, reason| SettingsError::BaseUrlInvalid {
            url: url.into(),
            reason,
        };
        check("http://localhost:11434/v1", Ok("http://localhost:11434/v1"));
        check(
            " https://api.openai.com/v1/ ",
            Ok("https://api.openai.com/v1"),
        );
        check("HTTP://127.0.0.1:8080/v1", Ok("HTTP://127.0.0.1:8080/v1"));
        check("http://[::1]:8000/v1", Ok("http://[::1]:8000/v1"));
        check("http://[::1]/v1", Ok("http://[::1]/v1"));
        check("", Err(SettingsError::BaseUrlMissing));
        check("  / ", Err(SettingsError::BaseUrlMissing));
        check(
            "localhost:11434/v1",
            Err(SettingsError::BaseUrlScheme {
                url: "localhost:11434/v1".into(),
            }),
        );
        check(
            "ftp://example.com/v1",
            Err(SettingsError::BaseUrlScheme {
                url: "ftp://example.com/v1".into(),
            }),
        );
        check(
            "http:///v1",
            Err(invalid("http:///v1", "it has no host name")),
        );
        check(
            "http://local host/v1",
            Err(invalid("http://local host/v1", "it contains a space")),
        );
        check(
            "http://localhost:99999/v1",
            Err(invalid(
                "http://localhost:99999/v1",
                "the port is not a number from 0 to 65535",
            )),
        );
        check(
            "https://user:sk-secret@api.example.com/v1",
            Err(SettingsError::BaseUrlSecret),
        );
        check(
            "https://api.example.com/v1?key=sk-secret",
            Err(SettingsError::BaseUrlSecret),
        );
    }

    #[test]
    fn a_filled_form_validates_into_request_values() {
        let valid = filled().validate().unwrap();
        assert_eq!(
            valid.endpoint,
            Endpoint {
                base_url: "http://localhost:11434/v1".into(),
                api_key: Some("sk-test".into()),
                timeout_ms: 30_000,
            }
        );
        assert_eq!(
            valid.endpoint.url("/models"),
            "http://localhost:11434/v1/models"
        );
        assert_eq!(valid.summary_model, "qwen3:1.7b");
        assert_eq!(valid.reasoning_effort.as_deref(), Some("low"));
        let messages = vec![ChatMessage::new(Role::User, "hi")];
        let chat = valid.chat_request(messages.clone());
        assert_eq!(chat.model, "qwen3:4b");
        assert!(chat.stream);
        assert_eq!(chat.temperature, Some(0.3));
        assert_eq!(chat.max_tokens, Some(512));
        let summary = valid.summary_request(messages);
        assert_eq!(summary.model, "qwen3:1.7b");
        assert!(!summary.stream);
    }

    #[test]
    fn empty_optional_fields_are_left_to_the_server() {
        let settings = Settings {
            api_key: "  ".into(),
            temperature: " ".into(),
            max_tokens: String::new(),
            reasoning_effort: String::new(),
            timeout_secs: String::new(),
            ..filled()
        };
        let valid = settings.validate().unwrap();
        assert_eq!(valid.endpoint.api_key, None);
        assert_eq!(valid.endpoint.timeout_ms, DEFAULT_TIMEOUT_SECS * 1000);
        let body = valid.chat_request(vec![]).to_value();
        for field in ["temperature", "max_tokens", "reasoning_effort"] {
            assert!(body.get(field).is_none(), "{field} in {body}");
        }
    }

    #[test]
    fn an_empty_summary_model_falls_back_to_the_chat_model() {
        // Chat could not be used live until a summariser model was named as well, though the
        // chat model can write summaries just as well.
        let settings = Settings {
            summary_model: "   ".into(),
            ..filled()
        };
        let valid = settings.validate().unwrap();
        assert_eq!(valid.summary_model, valid.chat_model);
        let body = valid.summary_request(vec![]).to_value();
        assert_eq!(body["model"], valid.chat_model.as_str());
        // A named one is used as it is.
        let valid = filled().validate().unwrap();
        assert_ne!(valid.summary_model, valid.chat_model);
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let check = |settings: Settings, expect: Vec<SettingsError>| {
            assert_eq!(settings.validate().unwrap_err(), expect, "{settings:?}");
        };
        check(
            Settings::default(),
            vec![
                SettingsError::BaseUrlMissing,
                SettingsError::ModelMissing(ModelUse::Chat),
            ],
        );
        check(
            Settings {
                temperature: "2.5".into(),
                max_tokens: "0".into(),
                reasoning_effort: "max".into(),
                timeout_secs: "601".into(),
                ..filled()
            },
            vec![
                SettingsError::Timeout("601".into()),
                SettingsError::Temperature("2.5".into()),
                SettingsError::MaxTokens("0".into()),
                SettingsError::ReasoningEffort("max".into()),
            ],
        );
        check(
            Settings {
                temperature: "warm".into(),
                max_tokens: "1.5".into(),
                timeout_secs: "-1".into(),
                ..filled()
            },
            vec![
                SettingsError::Timeout("-1".into()),
                SettingsError::Temperature("warm".into()),
                SettingsError::MaxTokens("1.5".into()),
            ],
        );
        check(
            Settings {
                temperature: "NaN".into(),
                ..filled()
            },
            vec![SettingsError::Temperature("NaN".into())],
        );
    }

    /// An unreadable settings record used to reset the form to the defaults, and the save that
    /// followed moved a remembered key out of localStorage, so the key was lost at the next
    /// visit. Now every readable field and the key are kept, and the key stays remembered.
    #[test]
    fn an_unreadable_settings_record_keeps_the_key_and_every_readable_field() {
        let mut good = Settings {
            base_url: "https://api.groq.com/openai/v1".into(),
            chat_model: "llama".into(),
            remember_key: true,
            ..Settings::default()
        };
        good.set_api_key("sk-1".into());
        let text = serde_json::to_string(&good.to_record()).unwrap();
        let read = SettingsRecord::read(&text, "sk-1".into(), true);
        assert_eq!(read.unreadable, None);
        assert_eq!(read.settings.chat_model, "llama");

        // A field of the wrong type: that field is lost, nothing else.
        let broken = text.replace("\"llama\"", "42");
        let read = SettingsRecord::read(&broken, "sk-1".into(), true);
        assert!(read.unreadable.is_some());
        let s = &read.settings;
        assert_eq!(
            (
                s.base_url.as_str(),
                s.chat_model.as_str(),
                s.api_key.as_str()
            ),
            ("https://api.groq.com/openai/v1", "", "sk-1")
        );
        assert!(s.remember_key);
        assert_eq!(s.key_origin, "https://api.groq.com:443");
        assert!(
            s.endpoint().unwrap().api_key.is_some(),
            "the key still works"
        );

        // Not JSON at all: the defaults, but the key kept where it was found.
        let read = SettingsRecord::read("{not json", "sk-1".into(), true);
        assert!(read.unreadable.unwrap().contains("line 1"));
        assert_eq!(read.settings.api_key, "sk-1");
        assert!(
            read.settings.remember_key,
            "a remembered key stays remembered"
        );
        let read = SettingsRecord::read("{not json", "sk-2".into(), false);
        assert!(!read.settings.remember_key);
        assert_eq!(read.settings.api_key, "sk-2");
    }

    #[test]
    fn the_endpoint_needs_no_model() {
        let settings = Settings {
            base_url: "http://127.0.0.1:9/v1".into(),
            ..Settings::default()
        };
        let endpoint = settings.endpoint().unwrap();
        assert_eq!(endpoint.base_url, "http://127.0.0.1:9/v1");
        assert_eq!(
            Settings::default().endpoint().unwrap_err(),
            vec![SettingsError::BaseUrlMissing]
        );
    }

    #[test]
    fn error_messages_say_what_to_do() {
        let check = |error: SettingsError, needle: &str| {
            let text = error.to_string();
            assert!(text.contains(needle), "{text:?} lacks {needle:?}");
        };
        check(SettingsError::BaseUrlMissing, "pick a provider");
        check(
            SettingsError::BaseUrlScheme { url: "x".into() },
            "http:// or https://",
        );
        check(SettingsError::BaseUrlSecret, "API key field");
        check(
            SettingsError::ModelMissing(ModelUse::Summary),
            "Choose a summariser model",
        );
        check(SettingsError::MaxTokens("0".into()), "from 1 to 1000000");
        check(
            SettingsError::ReasoningEffort("max".into()),
            "minimal, low, medium, high",
        );
        check(SettingsError::Timeout("0".into()), "from 1 to 600");
    }

    #[test]
    fn the_stored_record_never_holds_the_key() {
        let settings = Settings {
            remember_key: true,
            models: vec!["b".into(), "a".into()],
            ..filled()
        };
        let json = serde_json::to_string(&settings.to_record()).unwrap();
        assert!(!json.contains("sk-test"), "{json}");
        let record: SettingsRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(record.into_settings(settings.api_key.clone()), settings);
        // Debug output is what reaches logs.
        assert!(!format!("{settings:?}").contains("sk-test"));
        assert!(!format!("{:?}", settings.endpoint().unwrap()).contains("sk-test"));
    }

    #[test]
    fn an_older_record_with_missing_fields_loads_with_defaults() {
        let record: SettingsRecord =
            serde_json::from_str(r#"{"version":1,"base_url":"http://localhost:1234/v1"}"#).unwrap();
        let settings = record.into_settings(String::new());
        assert_eq!(settings.base_url, "http://localhost:1234/v1");
        assert!(settings.stream);
        assert_eq!(settings.timeout_secs, "60");
    }

    fn typed(base_url: &str, key: &str) -> Settings {
        let mut settings = Settings::default();
        settings.set_base_url(base_url.into());
        settings.set_api_key(key.into());
        settings
    }

    fn sent_key(settings: &Settings) -> Option<String> {
        settings.endpoint().unwrap().api_key
    }

    /// Switching the preset or editing the base URL kept the key, so the next request gave it
    /// to the new origin; a key now belongs to the origin it was typed for.
    #[test]
    fn a_key_is_never_sent_to_another_origin() {
        let a = "http://127.0.0.1:5001/v1";
        let mut settings = typed(a, "sk-a");
        assert_eq!(settings.key_origin, "http://127.0.0.1:5001");
        assert_eq!(sent_key(&settings).as_deref(), Some("sk-a"));

        // Another path on the same origin keeps it; so does another spelling of that origin.
        settings.set_base_url("HTTP://127.0.0.1:5001/openai/v1/".into());
        assert_eq!(sent_key(&settings).as_deref(), Some("sk-a"));
        assert_eq!(settings.key_withdrawn, None);

        // Another port is another origin: the field is emptied, and the notice says why.
        settings.set_base_url("http://127.0.0.1:5002/v1".into());
        assert_eq!(settings.api_key, "");
        assert_eq!(sent_key(&settings), None);
        let withdrawn = settings.key_withdrawn.clone().unwrap();
        assert_eq!(withdrawn.from, "http://127.0.0.1:5001");
        assert_eq!(withdrawn.to.as_deref(), Some("http://127.0.0.1:5002"));
        assert!(
            withdrawn
                .to_string()
                .contains("type the key for this server")
        );

        // Going back does not bring it back: it was cleared, not hidden.
        settings.set_base_url(a.into());
        assert_eq!(sent_key(&settings), None);

        // A key typed for the new origin belongs to it, and clears the notice.
        settings.set_api_key("sk-b".into());
        assert_eq!(settings.key_withdrawn, None);
        assert_eq!(sent_key(&settings).as_deref(), Some("sk-b"));
    }

    #[test]
    fn a_preset_of_another_origin_empties_the_key() {
        let mut settings = Settings::default();
        let openai = PROVIDERS.iter().find(|p| p.id == "openai").unwrap();
        let groq = PROVIDERS.iter().find(|p| p.id == "groq").unwrap();
        settings.apply_provider(openai);
        settings.set_api_key("sk-openai".into());
        settings.apply_provider(openai);
        assert_eq!(settings.api_key, "sk-openai");
        settings.apply_provider(groq);
        assert_eq!(settings.api_key, "");
        assert_eq!(sent_key(&settings), None);
        // A look-alike host is another origin too.
        settings.apply_provider(openai);
        settings.set_api_key("sk-openai".into());
        settings.set_base_url("https://api.openai.com.evil.example/v1".into());
        assert_eq!(sent_key(&settings), None);
    }

    #[test]
    fn editing_the_base_url_by_hand_never_lets_the_key_reach_a_half_typed_origin() {
        let mut settings = typed("http://127.0.0.1:5001/v1", "sk-a");
        // Retyping the URL character by character passes through other origins.
        let b = "http://127.0.0.1:5002/v1";
        for end in 1..=b.len() {
            settings.set_base_url(b[..end].into());
            if let Ok(endpoint) = settings.endpoint() {
                assert_eq!(endpoint.api_key, None, "{}", &b[..end]);
            }
        }
    }

    #[test]
    fn a_key_typed_before_the_base_url_binds_on_first_use() {
        let mut settings = Settings::default();
        settings.set_api_key("sk-early".into());
        assert_eq!(settings.key_origin, "");
        settings.set_base_url("http://127.0.0.1:5001/v1".into());
        assert_eq!(sent_key(&settings).as_deref(), Some("sk-early"));
        settings.bind_key();
        assert_eq!(settings.key_origin, "http://127.0.0.1:5001");
        settings.set_base_url("http://127.0.0.1:5002/v1".into());
        assert_eq!(sent_key(&settings), None);
    }

    #[test]
    fn a_field_set_directly_to_another_origin_still_withholds_the_key() {
        let mut settings = typed("http://127.0.0.1:5001/v1", "sk-a");
        settings.base_url = "http://127.0.0.1:5002/v1".into();
        assert_eq!(settings.api_key, "sk-a");
        assert_eq!(sent_key(&settings), None);
    }

    #[test]
    fn the_keys_origin_is_stored_and_an_older_records_key_binds_to_its_base_url() {
        let settings = typed("http://127.0.0.1:5001/v1", "sk-a");
        let json = serde_json::to_string(&settings.to_record()).unwrap();
        assert!(!json.contains("sk-a"), "{json}");
        let record: SettingsRecord = serde_json::from_str(&json).unwrap();
        assert_eq!(record.into_settings("sk-a".into()), settings);

        let old: SettingsRecord =
            serde_json::from_str(r#"{"version":1,"base_url":"https://api.openai.com/v1"}"#)
                .unwrap();
        let mut loaded = old.into_settings("sk-old".into());
        assert_eq!(loaded.key_origin, "https://api.openai.com:443");
        loaded.set_base_url("https://api.groq.com/openai/v1".into());
        assert_eq!(loaded.api_key, "");
    }

    #[test]
    fn requests_say_what_they_are_for() {
        let valid = filled().validate().unwrap();
        assert_eq!(valid.chat_request(vec![]).purpose, Purpose::Chat);
        assert_eq!(valid.summary_request(vec![]).purpose, Purpose::Summary);
    }

    #[test]
    fn summary_requests_use_the_summarisers_own_settings_over_the_chats() {
        // Empty fields: the chat's values, as before the summariser had settings of its own.
        let valid = filled().validate().unwrap();
        let request = valid.summary_request(vec![]);
        assert_eq!(
            (
                request.temperature,
                request.max_tokens,
                request.reasoning_effort
            ),
            (Some(0.3), Some(512), Some("low".into()))
        );
        let settings = Settings {
            summary_temperature: " 0 ".into(),
            summary_max_tokens: "1000".into(),
            summary_reasoning_effort: "HIGH".into(),
            ..filled()
        };
        let valid = settings.validate().unwrap();
        let summary = valid.summary_request(vec![]);
        assert_eq!(
            (
                summary.temperature,
                summary.max_tokens,
                summary.reasoning_effort.clone()
            ),
            (Some(0.0), Some(1000), Some("high".into()))
        );
        let body = summary.to_value();
        assert_eq!(body["max_tokens"], 1000);
        assert_eq!(body["reasoning_effort"], "high");
        // The chat keeps its own.
        let chat = valid.chat_request(vec![]);
        assert_eq!(
            (chat.temperature, chat.max_tokens, chat.reasoning_effort),
            (Some(0.3), Some(512), Some("low".into()))
        );
        // "off" leaves reasoning_effort out of summary requests only.
        let settings = Settings {
            summary_reasoning_effort: "off".into(),
            ..filled()
        };
        let valid = settings.validate().unwrap();
        assert_eq!(valid.summary_request(vec![]).reasoning_effort, None);
        assert!(
            valid
                .summary_request(vec![])
                .to_value()
                .get("reasoning_effort")
                .is_none()
        );
        assert_eq!(
            valid.chat_request(vec![]).reasoning_effort,
            Some("low".into())
        );
    }

    #[test]
    fn invalid_summariser_settings_are_named_and_keep_what_was_typed() {
        let settings = Settings {
            summary_temperature: "hot".into(),
            summary_max_tokens: "0".into(),
            summary_reasoning_effort: "extreme".into(),
            ..filled()
        };
        let errors = settings.validate().unwrap_err();
        assert_eq!(errors.len(), 3, "{errors:?}");
        let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert!(
            text[0].starts_with("The summariser's own setting: Temperature"),
            "{text:?}"
        );
        assert!(text[0].contains("\"hot\""), "{text:?}");
        assert!(
            text[1].contains("max_tokens must be a whole number"),
            "{text:?}"
        );
        assert!(text[2].contains("\"extreme\""), "{text:?}");
        assert_eq!(settings.summary_temperature, "hot");
    }

    #[test]
    fn the_summarisers_settings_are_stored_and_an_older_record_has_none() {
        let settings = Settings {
            summary_max_tokens: "1000".into(),
            summary_reasoning_effort: "off".into(),
            ..filled()
        };
        let json = serde_json::to_string(&settings.to_record()).unwrap();
        let record: SettingsRecord = serde_json::from_str(&json).unwrap();
        let back = record.into_settings(settings.api_key.clone());
        assert_eq!(back.summary_max_tokens, "1000");
        assert_eq!(back.summary_reasoning_effort, "off");
        let old: SettingsRecord = serde_json::from_str(
            r#"{"version":2,"base_url":"http://127.0.0.1:1/v1","max_tokens":"64"}"#,
        )
        .unwrap();
        let loaded = old.into_settings(String::new());
        assert_eq!(
            (
                loaded.summary_temperature.as_str(),
                loaded.summary_max_tokens.as_str()
            ),
            ("", "")
        );
    }

    #[test]
    fn presets_and_model_lists() {
        let mut settings = Settings::default();
        for provider in PROVIDERS {
            settings.apply_provider(provider);
            assert!(settings.endpoint().is_ok(), "{}", provider.name);
        }
        settings.set_models(vec![
            "test-summary".into(),
            "test-chat".into(),
            "test-chat".into(),
        ]);
        assert_eq!(settings.models, ["test-chat", "test-summary"]);
    }
}
