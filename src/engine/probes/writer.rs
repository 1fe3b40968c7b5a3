//! Probes the model writes: the request over the folded turns (with the session's writer
//! prompt, editable and shown, from `library_session::WRITER_PROMPT`), and the strict parsing
//! of its reply. A reply that is not exactly a list of probes, each
//! naming a folded message and quoting it, is an error and adds nothing.

use serde_json::{Value, json};

use super::judge::unfenced;
use super::quoted_in;
use crate::engine::library_session::{Evidence, Probe, ProbeSource};
use crate::engine::message::{ChatMessage, Role};

/// What the model's probes were not.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriterError {
    #[error("the model's reply is not JSON ({0}); it must be an object with a \"probes\" list")]
    NotJson(String),
    #[error("the model's reply is not an object with a \"probes\" list")]
    NoList,
    #[error(
        "probe {0} of the model's reply is not an object with \"question\", \"message\" and \"quote\""
    )]
    BadProbe(usize),
    #[error(
        "probe {0} of the model's reply names message {1}, which is not among the folded messages"
    )]
    NoMessage(usize, u64),
    #[error("probe {0} of the model's reply quotes words that message {1} does not hold")]
    NotQuoted(usize, u64),
    #[error("the model wrote no probes")]
    Empty,
}

/// The request: `prompt`, then the folded messages `folded` (archive index and text), numbered
/// from 1.
pub fn writer_messages(prompt: &str, folded: &[(usize, Role, &str)]) -> Vec<ChatMessage> {
    let listed: Vec<String> = folded
        .iter()
        .map(|(i, role, text)| format!("[{}] {}: {}", i + 1, role.as_str(), text.trim()))
        .collect();
    vec![
        ChatMessage::new(Role::System, prompt.trim()),
        ChatMessage::new(Role::User, listed.join("\n\n")),
    ]
}

/// The `response_format` for the list.
pub fn writer_response_format() -> Value {
    json!({
        "type": "json_schema",
        "json_schema": {
            "name": "probes",
            "strict": true,
            "schema": {
                "type": "object",
                "properties": {
                    "probes": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "question": { "type": "string" },
                                "message": { "type": "integer" },
                                "quote": { "type": "string" }
                            },
                            "required": ["question", "message", "quote"],
                            "additionalProperties": false
                        }
                    }
                },
                "required": ["probes"],
                "additionalProperties": false
            }
        }
    })
}

/// Reads the model's probes; each names a message of `folded` by its number and quotes it.
pub fn parse_probes(
    reply: &str,
    folded: &[(usize, Role, &str)],
) -> Result<Vec<Probe>, WriterError> {
    let value: Value =
        serde_json::from_str(unfenced(reply)).map_err(|e| WriterError::NotJson(e.to_string()))?;
    let list = value
        .get("probes")
        .and_then(Value::as_array)
        .ok_or(WriterError::NoList)?;
    if list.is_empty() {
        return Err(WriterError::Empty);
    }
    list.iter()
        .enumerate()
        .map(|(n, item)| {
            let n = n + 1;
            let (Some(question), Some(number), Some(quote)) = (
                item.get("question").and_then(Value::as_str),
                item.get("message").and_then(Value::as_u64),
                item.get("quote").and_then(Value::as_str),
            ) else {
                return Err(WriterError::BadProbe(n));
            };
            if question.trim().is_empty() || item.as_object().is_some_and(|o| o.len() != 3) {
                return Err(WriterError::BadProbe(n));
            }
            let (index, _, text) = folded
                .iter()
                .find(|(i, _, _)| (*i as u64) + 1 == number)
                .ok_or(WriterError::NoMessage(n, number))?;
            if !quoted_in(text, quote) {
                return Err(WriterError::NotQuoted(n, number));
            }
            Ok(Probe {
                id: 0,
                question: question.trim().to_owned(),
                evidence: Evidence {
                    message: *index,
                    quote: quote.trim().to_owned(),
                },
                source: ProbeSource::Model,
            })
        })
        .collect()
}
