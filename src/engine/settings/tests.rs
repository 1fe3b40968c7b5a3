use super::form::check_base_url;
use super::*;
use crate::engine::message::Role;
use crate::engine::openai::{ChatMessage, PROVIDERS, Purpose};

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
        serde_json::from_str(r#"{"version":1,"base_url":"https://api.openai.com/v1"}"#).unwrap();
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
