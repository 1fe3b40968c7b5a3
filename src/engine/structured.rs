//! Structured memory: the summariser returns JSON with a summary plus the entities worth
//! keeping (the user's name, preferences, facts), as in the LangGraph lesson's entity
//! extraction. Named fields make a dropped fact visible: an empty `facts` list is easier to
//! notice than a sentence missing from a paragraph.
//!
//! This module owns the prompt and the validation of the reply. A reply that fails validation
//! is a failed summariser job; the caller records it and keeps the previous memory.

use serde_json::{Map, Value};

use super::message::{Message, Role};

/// The system prompt of a structured summariser call.
pub const STRUCTURED_MEMORY_PROMPT: &str = r#"You are the memory of a conversation. You will be given the previous memory (if any) and new conversation turns.
Reply with ONE JSON object and nothing else, with exactly these fields:
{
  "summary": "third-person paragraph of at most 80 words covering both the previous memory and the new turns",
  "user_name": "the user's name, or null if never stated",
  "preferences": ["each preference, constraint or hard rule the user stated, in their own strength of wording"],
  "facts": ["each concrete fact: amounts, dates, ages, holdings, goals, decisions, advice given"]
}
Keep every item from the previous memory unless the new turns contradict it.
Do not add facts that are not in the conversation. Do not wrap the JSON in prose."#;

/// The memory a structured summariser call returns.
///
/// It derives `Serialize` only because [`StructuredMemory::to_json`] writes it into the next
/// cycle's prompt (the model's own format, in field order); it is never stored, and replies are
/// read by [`parse_structured`]'s strict hand-written checks rather than by a derive.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct StructuredMemory {
    pub summary: String,
    pub user_name: Option<String>,
    pub preferences: Vec<String>,
    pub facts: Vec<String>,
}

/// Why a structured reply was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StructuredError {
    /// The model returned nothing.
    #[error(
        "The model returned an empty reply. Run the cycle again, or raise max_tokens if it is a reasoning model."
    )]
    Empty,
    /// A ``` fence was opened and never closed, usually because max_tokens cut the reply.
    #[error(
        "The reply opens a ``` code block that never closes; it was probably cut off. Raise max_tokens and run the cycle again."
    )]
    UnclosedFence,
    /// There is text before or after the JSON.
    #[error(
        "The reply has text outside the JSON object ({excerpt}). The prompt asks for JSON only; lower the temperature or pick a model that follows it."
    )]
    TextOutsideJson { excerpt: String },
    /// The text is not valid JSON.
    #[error(
        "The reply is not valid JSON: {detail}. Run the cycle again or switch to the plain-text summariser."
    )]
    NotJson { detail: String },
    /// The JSON is not an object.
    #[error(
        "The reply is JSON but not an object (found {found}). It must be {{\"summary\": ..., \"user_name\": ..., \"preferences\": [...], \"facts\": [...]}}."
    )]
    NotAnObject { found: &'static str },
    /// A required field is absent.
    #[error(
        "The reply has no \"{field}\" field. Run the cycle again; if it keeps happening, the model is not following the prompt."
    )]
    MissingField { field: &'static str },
    /// A required text field is blank.
    #[error(
        "The \"{field}\" field is empty. A memory without a summary would erase the conversation, so the previous memory is kept."
    )]
    EmptyField { field: &'static str },
    /// A field holds the wrong kind of value.
    #[error(
        "The \"{field}\" field should be {expected} but is {found}. Run the cycle again; if it repeats, try another model."
    )]
    WrongType {
        field: String,
        expected: &'static str,
        found: &'static str,
    },
    /// A field the schema does not have.
    #[error(
        "The reply has an unexpected field \"{field}\". Only summary, user_name, preferences and facts are allowed."
    )]
    UnknownField { field: String },
}

impl StructuredMemory {
    /// The text sent as the conversation-summary system message: the paragraph, then the
    /// named fields as labelled lines, so the chat model sees the entities explicitly.
    pub fn to_context_text(&self) -> String {
        let mut out = self.summary.clone();
        if let Some(name) = &self.user_name {
            out.push_str(&format!("\nUser name: {name}"));
        }
        for (label, items) in [("Preferences", &self.preferences), ("Facts", &self.facts)] {
            if !items.is_empty() {
                out.push_str(&format!("\n{label}:"));
                for item in items {
                    out.push_str(&format!("\n- {item}"));
                }
            }
        }
        out
    }

    /// The memory as JSON, to feed back into the next cycle.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// The user message of a structured summariser call: the previous memory (as JSON) when there
/// is one, then the turns to fold, in the seed's `ROLE: content` form.
pub fn structured_user_content(previous: Option<&StructuredMemory>, folded: &[Message]) -> String {
    let turns: Vec<String> = folded
        .iter()
        .filter(|m| m.role != Role::System)
        .map(|m| format!("{}: {}", m.role.as_str().to_uppercase(), m.readable()))
        .collect();
    let turns = turns.join("\n");
    match previous {
        Some(memory) => format!(
            "PREVIOUS MEMORY:\n{}\n\nNEW TURNS TO ADD:\n{turns}\n\nReply with the updated memory as one JSON object.",
            memory.to_json()
        ),
        None => {
            format!("CONVERSATION TURNS:\n{turns}\n\nReply with the memory as one JSON object.")
        }
    }
}

/// Validates a structured summariser reply. A ```json fenced block is accepted; anything
/// else around the object is rejected, as are missing or blank `summary`, wrong types and
/// unknown fields. Blank entries in the lists are dropped; an empty `user_name` means none.
pub fn parse_structured(reply: &str) -> Result<StructuredMemory, StructuredError> {
    let json = unfence(reply)?;
    let value: Value = serde_json::from_str(json).map_err(|err| {
        if err.classify() == serde_json::error::Category::Syntax
            && err.to_string().contains("trailing characters")
        {
            StructuredError::TextOutsideJson {
                excerpt: excerpt(trailing_text(json)),
            }
        } else {
            StructuredError::NotJson {
                detail: err.to_string(),
            }
        }
    })?;
    let Value::Object(object) = value else {
        return Err(StructuredError::NotAnObject {
            found: type_name(&value),
        });
    };
    if let Some(field) = object.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(StructuredError::UnknownField {
            field: field.clone(),
        });
    }
    let summary = match object.get("summary") {
        None => return Err(StructuredError::MissingField { field: "summary" }),
        Some(Value::String(text)) if text.trim().is_empty() => {
            return Err(StructuredError::EmptyField { field: "summary" });
        }
        Some(Value::String(text)) => text.trim().to_owned(),
        Some(other) => return Err(wrong_type("summary", "a string", other)),
    };
    let user_name = match object.get("user_name") {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) => Some(name.trim().to_owned()).filter(|n| !n.is_empty()),
        Some(other) => return Err(wrong_type("user_name", "a string or null", other)),
    };
    Ok(StructuredMemory {
        summary,
        user_name,
        preferences: string_list(&object, "preferences")?,
        facts: string_list(&object, "facts")?,
    })
}

const FIELDS: [&str; 4] = ["summary", "user_name", "preferences", "facts"];

/// Strips one ``` fence (with or without a language tag) around the reply.
fn unfence(reply: &str) -> Result<&str, StructuredError> {
    let trimmed = reply.trim();
    if trimmed.is_empty() {
        return Err(StructuredError::Empty);
    }
    if let Some(after_ticks) = trimmed.strip_prefix("```") {
        // The rest of the opening line is the language tag, e.g. "json".
        let body_start = after_ticks.find('\n').map_or(after_ticks.len(), |i| i + 1);
        let body = &after_ticks[body_start..];
        let Some(close) = body.rfind("```") else {
            return Err(StructuredError::UnclosedFence);
        };
        let after = body[close + 3..].trim();
        if !after.is_empty() {
            return Err(StructuredError::TextOutsideJson {
                excerpt: excerpt(after),
            });
        }
        return Ok(body[..close].trim());
    }
    // Prose before the object ("Here is the memory: {...}") is rejected with the prose quoted.
    if !trimmed.starts_with(['{', '['])
        && let Some(brace) = trimmed.find(['{', '`'])
    {
        return Err(StructuredError::TextOutsideJson {
            excerpt: excerpt(&trimmed[..brace]),
        });
    }
    Ok(trimmed)
}

fn string_list(
    object: &Map<String, Value>,
    field: &'static str,
) -> Result<Vec<String>, StructuredError> {
    match object.get(field) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => {
            let mut out = Vec::new();
            for (index, item) in items.iter().enumerate() {
                match item {
                    Value::String(text) if text.trim().is_empty() => {}
                    Value::String(text) => out.push(text.trim().to_owned()),
                    other => {
                        return Err(wrong_type(&format!("{field}[{index}]"), "a string", other));
                    }
                }
            }
            Ok(out)
        }
        Some(other) => Err(wrong_type(field, "a list of strings", other)),
    }
}

fn wrong_type(field: &str, expected: &'static str, found: &Value) -> StructuredError {
    StructuredError::WrongType {
        field: field.to_owned(),
        expected,
        found: type_name(found),
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The text after the first complete JSON value.
fn trailing_text(json: &str) -> &str {
    let mut stream = serde_json::Deserializer::from_str(json).into_iter::<Value>();
    match stream.next() {
        Some(Ok(_)) => json[stream.byte_offset()..].trim(),
        _ => json,
    }
}

fn excerpt(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("\"{}…\"", &text[..cut]),
        None => format!("\"{text}\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::message::WordCounter;

    const GOOD: &str = r#"{
        "summary": "Chiru earns ₹1,20,000 a month and spends ₹60,000.",
        "user_name": "Chiru",
        "preferences": ["Never suggest equity instruments (hard rule)", "  "],
        "facts": ["Salary ₹1,20,000 per month", "FD of ₹50,000 maturing in 3 months"]
    }"#;

    fn good() -> StructuredMemory {
        StructuredMemory {
            summary: "Chiru earns ₹1,20,000 a month and spends ₹60,000.".into(),
            user_name: Some("Chiru".into()),
            preferences: vec!["Never suggest equity instruments (hard rule)".into()],
            facts: vec![
                "Salary ₹1,20,000 per month".into(),
                "FD of ₹50,000 maturing in 3 months".into(),
            ],
        }
    }

    fn check(reply: &str, expect: Result<StructuredMemory, StructuredError>) {
        assert_eq!(parse_structured(reply), expect, "reply: {reply}");
    }

    #[test]
    fn accepts_plain_and_fenced_json() {
        check(GOOD, Ok(good()));
        check(&format!("```json\n{GOOD}\n```"), Ok(good()));
        check(&format!("\n```\n{GOOD}\n```\n"), Ok(good()));
        check(
            r#"{"summary": " Short. ", "user_name": null}"#,
            Ok(StructuredMemory {
                summary: "Short.".into(),
                ..Default::default()
            }),
        );
        check(
            r#"{"summary": "S", "user_name": "  ", "preferences": null, "facts": []}"#,
            Ok(StructuredMemory {
                summary: "S".into(),
                ..Default::default()
            }),
        );
    }

    #[test]
    fn rejects_what_the_schema_forbids() {
        check("   ", Err(StructuredError::Empty));
        check(
            &format!("```json\n{GOOD}"),
            Err(StructuredError::UnclosedFence),
        );
        check(
            &format!("Here is the memory:\n```json\n{GOOD}\n```"),
            Err(StructuredError::TextOutsideJson {
                excerpt: "\"Here is the memory:\"".into(),
            }),
        );
        check(
            &format!("```json\n{GOOD}\n```\nLet me know!"),
            Err(StructuredError::TextOutsideJson {
                excerpt: "\"Let me know!\"".into(),
            }),
        );
        check(
            &format!("{GOOD} Hope this helps."),
            Err(StructuredError::TextOutsideJson {
                excerpt: "\"Hope this helps.\"".into(),
            }),
        );
        check(
            "[1, 2]",
            Err(StructuredError::NotAnObject { found: "a list" }),
        );
        check(
            r#"{"user_name": "Chiru"}"#,
            Err(StructuredError::MissingField { field: "summary" }),
        );
        check(
            r#"{"summary": "  "}"#,
            Err(StructuredError::EmptyField { field: "summary" }),
        );
        check(
            r#"{"summary": ["a"]}"#,
            Err(StructuredError::WrongType {
                field: "summary".into(),
                expected: "a string",
                found: "a list",
            }),
        );
        check(
            r#"{"summary": "S", "user_name": 7}"#,
            Err(StructuredError::WrongType {
                field: "user_name".into(),
                expected: "a string or null",
                found: "a number",
            }),
        );
        check(
            r#"{"summary": "S", "facts": "salary 1,20,000"}"#,
            Err(StructuredError::WrongType {
                field: "facts".into(),
                expected: "a list of strings",
                found: "a string",
            }),
        );
        check(
            r#"{"summary": "S", "facts": ["ok", {"salary": 120000}]}"#,
            Err(StructuredError::WrongType {
                field: "facts[1]".into(),
                expected: "a string",
                found: "an object",
            }),
        );
        check(
            r#"{"summary": "S", "notes": "extra"}"#,
            Err(StructuredError::UnknownField {
                field: "notes".into(),
            }),
        );
        assert!(matches!(
            parse_structured(r#"{"summary": "S",}"#),
            Err(StructuredError::NotJson { .. })
        ));
    }

    #[test]
    fn error_messages_name_the_field_and_the_next_step() {
        let text = parse_structured(r#"{"summary": "S", "facts": [1]}"#)
            .unwrap_err()
            .to_string();
        assert!(text.contains("\"facts[0]\""), "{text}");
        assert!(text.contains("Run the cycle again"), "{text}");
    }

    #[test]
    fn context_text_and_round_trip() {
        let memory = good();
        assert_eq!(
            memory.to_context_text(),
            "Chiru earns ₹1,20,000 a month and spends ₹60,000.\nUser name: Chiru\nPreferences:\n- Never suggest equity instruments (hard rule)\nFacts:\n- Salary ₹1,20,000 per month\n- FD of ₹50,000 maturing in 3 months"
        );
        assert_eq!(parse_structured(&memory.to_json()), Ok(memory));
    }

    #[test]
    fn user_content_folds_previous_memory_and_turns() {
        let turns = [
            Message::new(Role::User, "I am 32.", &WordCounter, 0),
            Message::new(Role::Assistant, "Noted.", &WordCounter, 1),
        ];
        let first = structured_user_content(None, &turns);
        assert_eq!(
            first,
            "CONVERSATION TURNS:\nUSER: I am 32.\nASSISTANT: Noted.\n\nReply with the memory as one JSON object."
        );
        let next = structured_user_content(Some(&good()), &turns);
        assert!(next.starts_with("PREVIOUS MEMORY:\n{"), "{next}");
        assert!(next.contains("\"user_name\": \"Chiru\""), "{next}");
        assert!(next.contains("NEW TURNS TO ADD:\nUSER: I am 32.\nASSISTANT: Noted."));
        assert!(STRUCTURED_MEMORY_PROMPT.contains("\"preferences\""));
    }
}
