//! The stored form of the settings: [`SettingsRecord`], its own versioned type that never holds
//! the API key, written from the form and read back, field by field when it does not parse.

use serde::{Deserialize, Serialize};

use super::form::{Settings, default_timeout_text};
use crate::engine::openai::Origin;

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

impl Settings {
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

fn default_true() -> bool {
    true
}
