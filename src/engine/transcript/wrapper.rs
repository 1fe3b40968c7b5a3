//! A request captured by a logging proxy: the body a client sent, wrapped with what the proxy
//! saw of it. The shapes read: `{headers, body}` (and `{url, method, headers, body}`), with the
//! body as JSON or as a string of JSON; `{request: {..., body}, response}`, as claude-trace
//! writes each line of its log (badlogic/lemmy, apps/claude-trace/src/interceptor.ts at
//! 0f1c5c7f088c0f97052c3fa573de8035ab982e3e: a `RawPair` of `request: {timestamp, method, url,
//! headers, body}` and `response`); `{timestamp, method, path, url, statusCode, durationMs,
//! headers, body}`, as the Odin proxy for Claude Code logs each request (ChasonTang/Monorepo,
//! odin/docs/odin_request_log_file.md at 70395c8ae36a403271e984bb867055a1995847de, with `body`
//! null for a request that sent none); and `{request: <body>}`. The wrapper is taken off before the
//! format is detected, so every request format reads wrapped (an OpenAI request as well as an
//! Anthropic one), and the places named stay those of the file (`request.body.messages[2]`).

use std::borrow::Cow;

use serde_json::Value;

use super::parts::join;

/// The body a proxy's record wraps and the path to it, or `None` when `value` is no wrapper
/// (it is a request itself, or holds no body that reads as one).
pub(crate) fn unwrap(value: &Value) -> Option<(String, Cow<'_, Value>)> {
    unwrap_at(value, "", 0)
}

/// Whether `value` is a proxy's record of a request that sent no body (a health check, a
/// `GET /v1/models`): it holds no conversation, so a log of requests passes over it.
pub(crate) fn is_bodiless_record(value: &Value) -> bool {
    let record = match value.get("request") {
        Some(request @ Value::Object(_)) => request,
        _ => value,
    };
    let http = ["method", "headers", "url", "path"]
        .iter()
        .any(|k| record.get(k).is_some());
    http && record.get("body").is_none_or(Value::is_null) && !is_request(value)
}

/// Wrappers seen nest at most twice (`request.body`); a third level is no proxy's.
const MAX_DEPTH: usize = 2;

fn unwrap_at<'a>(value: &'a Value, prefix: &str, depth: usize) -> Option<(String, Cow<'a, Value>)> {
    let map = value.as_object()?;
    if depth >= MAX_DEPTH || is_request(value) {
        return None;
    }
    for key in ["body", "request"] {
        let Some(inner) = map.get(key) else {
            continue;
        };
        let at = join(prefix, key);
        let inner: Cow<'a, Value> = match inner {
            Value::Object(_) => Cow::Borrowed(inner),
            // Proxies that keep the bytes as they came log the body as a string of JSON.
            Value::String(text) => match serde_json::from_str::<Value>(text) {
                Ok(parsed) if parsed.is_object() => Cow::Owned(parsed),
                _ => continue,
            },
            _ => continue,
        };
        if is_request(&inner) {
            return Some((at, inner));
        }
        if let Some((deeper, body)) = unwrap_at(&inner, &at, depth + 1) {
            // A body parsed from a string is owned here; the deeper borrow cannot outlive it.
            return Some((deeper, Cow::Owned(body.into_owned())));
        }
    }
    None
}

/// Whether a value is a request body of a format read here: messages, or Responses input.
fn is_request(value: &Value) -> bool {
    value.get("messages").is_some_and(Value::is_array)
        || value
            .get("input")
            .is_some_and(|i| i.is_array() || i.is_string())
}
