//! [`ApiError`]: why a request failed, classified from the HTTP status and the error body
//! (OpenAI's, Ollama's, vLLM's and FastAPI's shapes), each variant with a message that says what
//! to do next.

use std::sync::LazyLock;

use crate::engine::pattern::{Pattern, classes};
use serde_json::Value;

use super::providers::detect_provider;
use super::request::Purpose;
use super::retry::parse_retry_after;

/// Why a request failed, with what to do about it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ApiError {
    /// No HTTP response arrived: the server is not running, the URL is wrong, or the browser
    /// blocked the request (CORS, mixed content). Browsers do not say which.
    #[error("Could not reach {base_url} ({detail}). {fix}")]
    Network {
        base_url: String,
        detail: String,
        fix: String,
    },
    /// The server refused the credentials (401 or 403).
    #[error(
        "The server refused the API key (HTTP {status}): {message}. Check the key in Settings and that it belongs to this provider."
    )]
    Unauthorized { status: u16, message: String },
    /// The path or the model does not exist (404).
    #[error(
        "Not found (HTTP 404): {message}. Check the model name with \"List models\" and that the base URL ends in /v1."
    )]
    NotFound { message: String },
    /// The server rejected the request itself (400, 422 or another 4xx); its message says why.
    #[error(
        "The server rejected the request (HTTP {status}): {message}. Change the setting it names and send again."
    )]
    BadRequest { status: u16, message: String },
    /// Too many requests (429); wait and retry.
    #[error("Rate limited: {message}. {}", retry_hint(*.retry_after_ms))]
    RateLimited {
        retry_after_ms: Option<u64>,
        message: String,
    },
    /// The account has no credit left (`insufficient_quota`); retrying will not help.
    #[error(
        "The account's quota is used up: {message}. Add credit or switch to another provider or key; retrying will not help."
    )]
    InsufficientQuota { message: String },
    /// The server failed (5xx), or reported an unclassified error inside a stream.
    #[error("The server failed{}: {message}. Try again in a moment; if it persists, try another model.", status_suffix(*.status))]
    Server {
        status: Option<u16>,
        message: String,
    },
    /// No answer arrived in time.
    #[error("No response{}. A local model may still be loading, or the server is overloaded; try again or raise the timeout.", after_suffix(*.after_ms))]
    Timeout { after_ms: Option<u64> },
    /// The reply was not the JSON an OpenAI-compatible server sends.
    #[error(
        "The reply was not OpenAI-compatible JSON ({detail}). Check that the base URL points at an OpenAI-compatible /v1 endpoint."
    )]
    MalformedJson { detail: String },
    /// The reply was empty because generation hit `max_tokens` (finish_reason `length`): a
    /// reasoning model spent the whole budget on hidden reasoning.
    #[error("The model returned no text: it used all{} of max_tokens before answering (finish_reason \"length\"). Raise max_tokens or lower reasoning_effort.", max_tokens_suffix(*.max_tokens))]
    EmptyLength { max_tokens: Option<u32> },
    /// The reply finished without any answer text, perhaps after reasoning only.
    #[error("No answer text arrived{}{}. Raise max_tokens or lower reasoning_effort in Settings, then press Retry.", if *.reasoned { ": the model only reasoned and never answered" } else { ": the reply was empty" }, finish_suffix(.finish_reason.as_deref()))]
    NoAnswer {
        finish_reason: Option<String>,
        /// Reasoning text arrived (it is kept for the UI).
        reasoned: bool,
    },
    /// A 200 whose body is neither an event stream nor a JSON completion, such as a proxy's
    /// HTML page.
    #[error(
        "The server answered with something that is not a chat reply; it starts with {start}. Check the base URL: it should point at an OpenAI-compatible /v1 endpoint, not a web page or a proxy's sign-in."
    )]
    NotChatReply { start: String },
    /// The request was longer than the model's context window (`context_length_exceeded`).
    #[error("{}", context_text(*.purpose, .requested.zip(*.limit), .message))]
    ContextTooLong {
        /// Which request was too long, when the caller said.
        purpose: Option<Purpose>,
        /// The tokens the request needed and the model's limit, when the message says.
        requested: Option<u64>,
        limit: Option<u64>,
        message: String,
    },
}

impl ApiError {
    /// A fetch that produced no response. The fix text is tailored to the provider the base
    /// URL belongs to, since each local server has its own CORS switch.
    pub fn network(base_url: &str, detail: impl Into<String>) -> Self {
        let fix = detect_provider(base_url)
            .filter(|p| !p.needs_api_key)
            .map(|p| format!("If {} is running, {}", p.name, p.browser_note))
            .unwrap_or_else(|| GENERIC_NETWORK_FIX.to_owned());
        ApiError::Network {
            base_url: base_url.to_owned(),
            detail: detail.into(),
            fix,
        }
    }

    /// The same error as a page at `origin` (e.g. `http://127.0.0.1:8080`) sees it: a network
    /// fix's example origin becomes the page's own, and a base URL whose path does not end in
    /// `/v1` (where OpenAI-compatible servers answer) is pointed out. Other errors are unchanged.
    pub fn for_origin(self, origin: &str) -> ApiError {
        let ApiError::Network {
            base_url,
            detail,
            fix,
        } = self
        else {
            return self;
        };
        let mut fix = fix.replace(EXAMPLE_ORIGIN, origin);
        if !base_url.trim_end_matches('/').ends_with("/v1") {
            fix.push_str(&format!(
                " The base URL does not end in /v1, where OpenAI-compatible servers answer: try {}/v1.",
                base_url.trim_end_matches('/')
            ));
        }
        ApiError::Network {
            base_url,
            detail,
            fix,
        }
    }

    /// Whether sending the same request again later may succeed. Network failures are not
    /// retried: in a browser they are almost always CORS or a stopped server, and retrying only
    /// delays the fix text.
    pub fn is_retryable(&self) -> bool {
        match self {
            ApiError::RateLimited { .. } | ApiError::Timeout { .. } => true,
            // 501 Not Implemented will not change on a retry.
            ApiError::Server { status, .. } => *status != Some(501),
            _ => false,
        }
    }

    /// The same error, saying which request it was about (a context overflow names it).
    pub fn for_purpose(self, which: Purpose) -> ApiError {
        match self {
            ApiError::ContextTooLong {
                requested,
                limit,
                message,
                ..
            } => ApiError::ContextTooLong {
                purpose: Some(which),
                requested,
                limit,
                message,
            },
            other => other,
        }
    }

    /// The wait the server asked for, if any.
    pub fn retry_after_ms(&self) -> Option<u64> {
        match self {
            ApiError::RateLimited { retry_after_ms, .. } => *retry_after_ms,
            _ => None,
        }
    }
}

/// What stands in for a key removed from a text.
pub const REDACTED: &str = "[redacted]";

/// Removes every occurrence of `key` (so also `Bearer <key>`, as a proxy echoing the
/// `Authorization` header writes it) from a text the server sent, before it becomes a message
/// that is shown, stored or exported. Apply it to the
/// whole text before anything truncates it, or a cut could leave the start of the key.
pub fn redact(text: &str, key: &str) -> String {
    let key = key.trim();
    if key.is_empty() {
        return text.to_owned();
    }
    text.replace(key, REDACTED)
}

impl ApiError {
    /// The same error with `key` removed from every text it carries (see [`redact`]).
    pub fn redacted(self, key: &str) -> ApiError {
        let r = |text: String| redact(&text, key);
        match self {
            ApiError::Network {
                base_url,
                detail,
                fix,
            } => ApiError::Network {
                base_url: r(base_url),
                detail: r(detail),
                fix: r(fix),
            },
            ApiError::Unauthorized { status, message } => ApiError::Unauthorized {
                status,
                message: r(message),
            },
            ApiError::NotFound { message } => ApiError::NotFound {
                message: r(message),
            },
            ApiError::BadRequest { status, message } => ApiError::BadRequest {
                status,
                message: r(message),
            },
            ApiError::RateLimited {
                retry_after_ms,
                message,
            } => ApiError::RateLimited {
                retry_after_ms,
                message: r(message),
            },
            ApiError::InsufficientQuota { message } => ApiError::InsufficientQuota {
                message: r(message),
            },
            ApiError::Server { status, message } => ApiError::Server {
                status,
                message: r(message),
            },
            ApiError::MalformedJson { detail } => ApiError::MalformedJson { detail: r(detail) },
            ApiError::NotChatReply { start } => ApiError::NotChatReply { start: r(start) },
            ApiError::ContextTooLong {
                purpose,
                requested,
                limit,
                message,
            } => ApiError::ContextTooLong {
                purpose,
                requested,
                limit,
                message: r(message),
            },
            other @ (ApiError::Timeout { .. }
            | ApiError::EmptyLength { .. }
            | ApiError::NoAnswer { .. }) => other,
        }
    }
}

/// Classifies a failed HTTP response. `retry_after` is the raw `Retry-After` header (seconds or
/// an HTTP-date); `now_ms` is the current time, needed only to turn a date into a wait.
pub fn classify_http(status: u16, body: &str, retry_after: Option<&str>, now_ms: u64) -> ApiError {
    let header_wait = retry_after.and_then(|value| parse_retry_after(value, now_ms));
    classify_http_waiting(status, body, header_wait)
}

/// [`classify_http`] with the wait the headers asked for already read (see
/// [`super::retry::server_wait_ms`], which also honours `retry-after-ms`).
pub fn classify_http_waiting(status: u16, body: &str, header_wait_ms: Option<u64>) -> ApiError {
    ErrorInfo::from_body(body).classify(Some(status), header_wait_ms)
}

/// The example origin of the providers' notes, which [`ApiError::for_origin`] replaces with the
/// page's own.
pub const EXAMPLE_ORIGIN: &str = "https://your.site";

const GENERIC_NETWORK_FIX: &str = "Check that the server is running and the base URL is right. A server on another origin must allow this page with CORS headers, and an https page cannot call a plain-http server other than localhost.";

fn retry_hint(retry_after_ms: Option<u64>) -> String {
    match retry_after_ms {
        Some(ms) => format!(
            "The server asks to wait {:.1} s before retrying.",
            ms as f64 / 1000.0
        ),
        None => "Wait a minute and retry, or lower the request size.".to_owned(),
    }
}

fn status_suffix(status: Option<u16>) -> String {
    status.map(|s| format!(" (HTTP {s})")).unwrap_or_default()
}

fn after_suffix(after_ms: Option<u64>) -> String {
    after_ms
        .map(|ms| format!(" within {} s", ms / 1000))
        .unwrap_or_default()
}

fn finish_suffix(reason: Option<&str>) -> String {
    reason
        .map(|r| format!(" (finish_reason \"{r}\")"))
        .unwrap_or_default()
}

fn context_text(purpose: Option<Purpose>, sizes: Option<(u64, u64)>, message: &str) -> String {
    let which = match purpose {
        Some(Purpose::Chat) => "The chat request",
        Some(Purpose::Summary) => "The summariser's request",
        None => "The request",
    };
    let by = match sizes {
        Some((requested, limit)) if requested > limit => format!(
            " by {} tokens ({requested} against the model's limit of {limit})",
            requested - limit
        ),
        Some((requested, limit)) => format!(" ({requested} tokens, limit {limit})"),
        None => String::new(),
    };
    let fix = match purpose {
        Some(Purpose::Summary) => {
            "Fold fewer turns at a time, lower the summary budget, or choose a summariser model with a larger context window."
        }
        _ => {
            "Fold now (Summarise now), or exclude a long message from the request (the archive keeps it), or lower max_tokens."
        }
    };
    format!("{which} is too long for the model's context window{by}: {message}. {fix}")
}

/// LIMIT's source: regex's pattern with `\d` spelled as Unicode Nd ([`classes::DIGIT`]) and
/// `(?i)`'s `s` as `[s\x{17F}]`: no `\b`, the same matches as regex's. A number in another
/// script's digits ("४०९६") is matched as it was and, as before, does not parse (`u64` reads
/// ASCII digits), so the message gives no limit, as it gave none; `[0-9]` would have read a
/// later ASCII number instead.
pub(crate) fn limit_source() -> String {
    classes::spell(r"(?i)maximum context length i[s\x{17F}] (DIGIT+)")
}

/// ASKED's source: as [`limit_source`], with `(?i)`'s `k` as `[k\x{212A}]` too; the same
/// matches as regex's. The spaces stay literal spaces, as they were.
pub(crate) fn asked_source() -> String {
    classes::spell(
        r"(?i)(?:re[s\x{17F}]ulted in|reque[s\x{17F}]ted|you [s\x{17F}]ent|prompt ha[s\x{17F}]|contain[s\x{17F}]) (?:about )?(DIGIT+) to[k\x{212A}]en[s\x{17F}]",
    )
}

/// Reads "maximum context length is 8192 tokens ... resulted in 9000 tokens" (OpenAI) and
/// "... you requested 5000 tokens" (vLLM): the tokens asked for and the limit.
fn context_sizes(message: &str) -> (Option<u64>, Option<u64>) {
    static LIMIT: LazyLock<Pattern> =
        LazyLock::new(|| Pattern::new(&limit_source()).expect("the pattern is a valid regex"));
    static ASKED: LazyLock<Pattern> =
        LazyLock::new(|| Pattern::new(&asked_source()).expect("the pattern is a valid regex"));
    let number = |re: &Pattern| re.captures(message).and_then(|c| c[1].parse().ok());
    (number(&ASKED), number(&LIMIT))
}

fn max_tokens_suffix(max_tokens: Option<u32>) -> String {
    max_tokens.map(|n| format!(" {n}")).unwrap_or_default()
}

/// The first 200 characters of a body, quoted, for error details.
pub(super) fn snippet(text: &str) -> String {
    format!("{:?}", truncate_chars(text.trim(), 200))
}

fn truncate_chars(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The parts of an error body that classification looks at.
#[derive(Debug, Default)]
pub(super) struct ErrorInfo {
    message: String,
    code: Option<String>,
    kind: Option<String>,
}

impl ErrorInfo {
    fn from_body(body: &str) -> Self {
        match serde_json::from_str::<Value>(body) {
            Ok(value) => ErrorInfo::from_value(&value, body),
            Err(_) => ErrorInfo {
                message: plain_message(body),
                ..Default::default()
            },
        }
    }

    /// Reads the shapes servers use: OpenAI's `{"error": {"message", "type", "code"}}`,
    /// Ollama's `{"error": "..."}`, vLLM's `{"message": ...}` and FastAPI's `{"detail": ...}`.
    pub(super) fn from_value(value: &Value, raw: &str) -> Self {
        let as_text = |v: &Value| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        let error = value.get("error");
        let source = error.filter(|e| e.is_object()).unwrap_or(value);
        let message = error
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| source.get("message").and_then(as_text))
            .or_else(|| detail_text(source.get("detail")?))
            .unwrap_or_else(|| plain_message(raw));
        ErrorInfo {
            message,
            code: source.get("code").and_then(as_text),
            kind: source.get("type").and_then(as_text),
        }
    }

    fn mentions(&self, needle: &str) -> bool {
        self.code.as_deref() == Some(needle) || self.kind.as_deref() == Some(needle)
    }

    /// Maps to a variant. With no status (an error inside a 200 stream) the code and type
    /// decide; otherwise the status does, refined by the code.
    pub(super) fn classify(self, status: Option<u16>, header_wait: Option<u64>) -> ApiError {
        let message = self.message.clone();
        if self.mentions("insufficient_quota") {
            return ApiError::InsufficientQuota { message };
        }
        let status = status.unwrap_or_else(|| self.implied_status());
        if (400..500).contains(&status)
            && (self.mentions("context_length_exceeded")
                || self
                    .message
                    .to_ascii_lowercase()
                    .contains("maximum context length"))
        {
            let (requested, limit) = context_sizes(&message);
            return ApiError::ContextTooLong {
                purpose: None,
                requested,
                limit,
                message,
            };
        }
        match status {
            401 | 403 => ApiError::Unauthorized { status, message },
            404 => ApiError::NotFound { message },
            408 => ApiError::Timeout { after_ms: None },
            429 => ApiError::RateLimited {
                retry_after_ms: header_wait.or_else(|| wait_from_message(&message)),
                message,
            },
            400..=499 => ApiError::BadRequest { status, message },
            500..=599 => ApiError::Server {
                status: Some(status),
                message,
            },
            // A status of 0 or 2xx never reaches here from a careful caller; an error object
            // inside a stream without a recognised code lands here too.
            _ => ApiError::Server {
                status: None,
                message,
            },
        }
    }

    fn implied_status(&self) -> u16 {
        if self.mentions("rate_limit_exceeded") || self.mentions("rate_limit_error") {
            429
        } else if self.mentions("invalid_api_key") || self.mentions("authentication_error") {
            401
        } else if self.mentions("model_not_found") {
            404
        } else if self.mentions("invalid_request_error") || self.mentions("context_length_exceeded")
        {
            400
        } else {
            // OpenRouter puts the upstream's HTTP status in `code` (502, 429, ...).
            self.code
                .as_deref()
                .and_then(|code| code.parse::<u16>().ok())
                .filter(|code| (400..600).contains(code))
                .unwrap_or(0)
        }
    }
}

fn detail_text(detail: &Value) -> Option<String> {
    match detail {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => {
            let parts: Vec<&str> = items
                .iter()
                .filter_map(|item| item.get("msg").and_then(Value::as_str))
                .collect();
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        _ => None,
    }
}

fn plain_message(body: &str) -> String {
    let trimmed = body.trim();
    if trimmed.is_empty() {
        "the response body was empty".to_owned()
    } else {
        truncate_chars(trimmed, 300)
    }
}

/// The wait pattern's source: regex's pattern with `\d` spelled as Unicode Nd
/// ([`classes::DIGIT`]; as in [`limit_source`], a number in another script's digits is matched
/// and, as before, does not parse: no wait is read). No `(?i)`. The one deviation from regex:
/// the final `\b` is ASCII, so a unit glued to a non-ASCII word char ("7sé") matches now where
/// regex's did not. `fixed_tests` shows it.
pub(crate) fn wait_source() -> String {
    classes::spell(r"try again in (?:(DIGIT+)m)?(DIGIT+(?:\.DIGIT+)?)(ms|s)\b")
}

/// Groq and OpenAI put the wait in the message ("Please try again in 7.66s", "in 1m2.5s",
/// "in 120ms") and not always in a header the browser can read.
fn wait_from_message(message: &str) -> Option<u64> {
    static PATTERN: LazyLock<Pattern> =
        LazyLock::new(|| Pattern::new(&wait_source()).expect("the pattern is a valid regex"));
    let caps = PATTERN.captures(message)?;
    let minutes: f64 = caps.get(1).map_or(Ok(0.0), |m| m.as_str().parse()).ok()?;
    let amount: f64 = caps[2].parse().ok()?;
    let unit_ms = if &caps[3] == "ms" { 1.0 } else { 1000.0 };
    Some((minutes * 60_000.0 + amount * unit_ms).round() as u64)
}
