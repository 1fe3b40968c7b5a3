//! What the readers share: JSON paths, typed field access with the place named, and the text of
//! a message built from text parts and `[label]` placeholders.

use serde_json::Value;

use super::TranscriptError;
use crate::engine::message::{MessageParts, Role};

/// `prefix.field`, or `field` alone at the top; an index (`[2]`) is appended without a dot.
pub(crate) fn join(prefix: &str, field: &str) -> String {
    if prefix.is_empty() {
        field.to_owned()
    } else if field.starts_with('[') {
        format!("{prefix}{field}")
    } else {
        format!("{prefix}.{field}")
    }
}

/// The string at `key`, required.
pub(crate) fn string<'a>(
    value: &'a Value,
    key: &str,
    place: &str,
) -> Result<&'a str, TranscriptError> {
    value.get(key).and_then(Value::as_str).ok_or_else(|| {
        let reason = match value.get(key) {
            None => format!("{key} is missing"),
            Some(_) => format!("{key} must be a string"),
        };
        TranscriptError::new(join(place, key), reason)
    })
}

/// The string at `key` when there is one; any other value than a string or null is refused.
pub(crate) fn optional_string<'a>(
    value: &'a Value,
    key: &str,
    place: &str,
) -> Result<Option<&'a str>, TranscriptError> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(TranscriptError::new(
            join(place, key),
            format!("{key} must be a string"),
        )),
    }
}

/// Arguments as the transcript holds them: a string as written, any other JSON as its text.
pub(crate) fn arguments(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// A time in seconds since the epoch (a float, as ChatGPT writes it) in milliseconds; 0 when
/// absent or not a sensible number.
pub(crate) fn seconds_to_ms(value: Option<&Value>) -> u64 {
    match value.and_then(Value::as_f64) {
        Some(s) if s.is_finite() && s > 0.0 && s < 1.0e12 => (s * 1000.0) as u64,
        _ => 0,
    }
}

/// A message's text as it is assembled: text parts joined by newlines, non-text parts as
/// `[label]` placeholders, whose labels are listed.
#[derive(Default)]
pub(crate) struct Text {
    pub(crate) content: String,
    pub(crate) placeholders: Vec<String>,
}

impl Text {
    pub(crate) fn text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if !self.content.is_empty() {
            self.content.push('\n');
        }
        self.content.push_str(text);
    }

    /// A non-text part: `label` is what it is (`image`, `audio`, `file`); `detail`, when
    /// given, names it in the text (a file name).
    pub(crate) fn placeholder(&mut self, label: &str, detail: Option<&str>) {
        let shown = match detail.map(str::trim).filter(|d| !d.is_empty()) {
            Some(detail) => format!("[{label}: {detail}]"),
            None => format!("[{label}]"),
        };
        self.text(&shown);
        self.placeholders.push(label.to_owned());
    }

    /// The finished text as a message of `role`, its placeholders listed.
    pub(crate) fn into_message(self, role: Role) -> MessageParts {
        let mut message = MessageParts::text(role, self.content);
        message.placeholders = self.placeholders;
        message
    }
}
