//! The judge: the request that grades one answer (with the session's judge prompt, which the
//! user may edit and the page shows, from `library_session::JUDGE_PROMPT`), the
//! `response_format` that asks for the grade as JSON where the server supports it (OpenAI's
//! structured outputs; llama.cpp's server turns the schema into a grammar), and the strict
//! parsing of its reply. A reply that is not exactly a grade is an error that names what
//! is wrong, and nothing is recorded from it.

use serde_json::{Value, json};

use super::quoted_in;
use crate::engine::library_session::{Grade, Probe};
use crate::engine::message::{ChatMessage, Role};

/// What the judge's reply was not.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GradeError {
    #[error(
        "the judge's reply is not JSON ({0}); it must be a JSON object with \"grade\" and \"evidence\""
    )]
    NotJson(String),
    #[error("the judge's reply is not a JSON object with \"grade\" and \"evidence\"")]
    NotObject,
    #[error("the judge's reply has no \"{0}\" string")]
    Missing(&'static str),
    #[error("the judge's reply has a field \"{0}\" besides \"grade\" and \"evidence\"")]
    Extra(String),
    #[error("the judge's grade \"{0}\" is not one of correct, partly, wrong or unanswerable")]
    UnknownGrade(String),
    #[error("the judge's evidence \"{0}\" is not quoted from the archive")]
    NotQuoted(String),
}

/// A grade the judge gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judgement {
    pub grade: Grade,
    pub evidence: String,
}

/// The judge's request for `answer` to `probe`, under the system prompt `prompt`.
pub fn judge_messages(prompt: &str, probe: &Probe, answer: &str) -> Vec<ChatMessage> {
    vec![
        ChatMessage::new(Role::System, prompt.trim()),
        ChatMessage::new(
            Role::User,
            format!(
                "Question: {}\nEvidence from the archive (message {}): \"{}\"\nAnswer to grade: {}",
                probe.question.trim(),
                probe.evidence.message + 1,
                probe.evidence.quote,
                answer.trim()
            ),
        ),
    ]
}

/// The `response_format` that asks for the grade as JSON of exactly this shape.
pub fn judge_response_format() -> Value {
    json!({
        "type": "json_schema",
        "json_schema": {
            "name": "probe_grade",
            "strict": true,
            "schema": {
                "type": "object",
                "properties": {
                    "grade": {
                        "type": "string",
                        "enum": Grade::ALL.map(Grade::slug),
                    },
                    "evidence": { "type": "string" }
                },
                "required": ["grade", "evidence"],
                "additionalProperties": false
            }
        }
    })
}

/// The same schema in the older `json_object` form (`{"type": "json_object", "schema": …}`),
/// which llama-cpp-python's server takes (it refuses `json_schema`) and turns into a grammar.
pub fn judge_response_format_object() -> Value {
    let schema = judge_response_format()["json_schema"]["schema"].clone();
    json!({ "type": "json_object", "schema": schema })
}

/// The text inside a fenced code block (```json … ```) when the whole reply is one; the reply
/// otherwise.
pub(crate) fn unfenced(reply: &str) -> &str {
    let text = reply.trim();
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let Some(body) = rest.strip_suffix("```") else {
        return text;
    };
    // The info string (`json`) runs to the end of the first line.
    match body.split_once('\n') {
        Some((info, inner)) if !info.contains('{') => inner.trim(),
        _ => body.trim(),
    }
}

/// Reads the judge's reply: a JSON object `{grade, evidence}` (a fenced code block around it is
/// tolerated), the grade one of the four, the evidence quoted from `archive` (any message) or
/// from the probe's own quote.
pub fn parse_grade(reply: &str, probe: &Probe, archive: &[&str]) -> Result<Judgement, GradeError> {
    let value: Value =
        serde_json::from_str(unfenced(reply)).map_err(|e| GradeError::NotJson(e.to_string()))?;
    let Value::Object(map) = value else {
        return Err(GradeError::NotObject);
    };
    if let Some(extra) = map
        .keys()
        .find(|k| !matches!(k.as_str(), "grade" | "evidence"))
    {
        return Err(GradeError::Extra(extra.clone()));
    }
    let grade = map
        .get("grade")
        .and_then(Value::as_str)
        .ok_or(GradeError::Missing("grade"))?;
    let evidence = map
        .get("evidence")
        .and_then(Value::as_str)
        .ok_or(GradeError::Missing("evidence"))?
        .trim();
    let grade =
        Grade::from_slug(grade.trim()).ok_or_else(|| GradeError::UnknownGrade(grade.to_owned()))?;
    let quoted = quoted_in(&probe.evidence.quote, evidence)
        || archive.iter().any(|text| quoted_in(text, evidence));
    if !quoted {
        return Err(GradeError::NotQuoted(evidence.to_owned()));
    }
    Ok(Judgement {
        grade,
        evidence: evidence.to_owned(),
    })
}
