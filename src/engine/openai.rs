//! The OpenAI-compatible wire format as pure data: request bodies, response and stream
//! decoding, error classification, retry timing and provider presets.
//!
//! Architecture invariant: nothing here sends a request or reads a clock. The shell's fetch
//! client builds the body with [`ChatRequest::to_json`], feeds the response (or the SSE events
//! from [`crate::engine::sse`]) back in, and asks [`classify_http`] what a failure means. The
//! summariser jobs use the same types, so the chat and the summaries share one error story.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::message::ChatMessage;
use super::message::{Message, Role};
use super::sse::SseEvent;

/// A chat completion request. Build it with [`ChatRequest::new`] and the setters, then send
/// [`ChatRequest::to_json`] as the body of `POST {base_url}/chat/completions`.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<ChatMessage>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    /// `low`, `medium` or `high` for reasoning models; `None` leaves the field out, because
    /// servers for non-reasoning models reject it.
    pub reasoning_effort: Option<String>,
    pub stream: bool,
    /// Asks for a final usage chunk when streaming. Some servers reject `stream_options`; see
    /// [`rejects_include_usage`].
    pub include_usage: bool,
}

/// Token usage as reported by the server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    /// Hidden reasoning tokens inside `completion_tokens`, when the server reports them.
    pub reasoning_tokens: Option<u32>,
}

/// A decoded non-streaming reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatResponse {
    pub content: String,
    pub finish_reason: Option<String>,
    pub usage: Option<Usage>,
}

/// What one SSE event of a streamed reply means.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamEvent {
    /// A piece of the reply's text, to append.
    Delta(String),
    /// Token usage, usually in the last chunk before `[DONE]`.
    Usage(Usage),
    /// Why generation stopped: `stop`, `length`, ...
    Finish(String),
    /// The stream is complete; nothing more will follow.
    Done,
    /// The server reported an error inside the stream, or a chunk could not be read.
    Error(ApiError),
}

/// Turns the SSE events of one streamed reply into [`StreamEvent`]s. It remembers whether any
/// text arrived, so that an empty reply cut off by `max_tokens` becomes
/// [`ApiError::EmptyLength`] instead of a blank summary.
#[derive(Clone, Debug, Default)]
pub struct StreamDecoder {
    max_tokens: Option<u32>,
    saw_content: bool,
    finish_reason: Option<String>,
    done: bool,
}

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
}

/// A known OpenAI-compatible server, for the settings presets and for tailored network hints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Provider {
    pub id: &'static str,
    pub name: &'static str,
    pub base_url: &'static str,
    pub needs_api_key: bool,
    /// What the browser needs before it may call this server from this page.
    pub browser_note: &'static str,
}

/// The presets offered in Settings.
pub const PROVIDERS: &[Provider] = &[
    Provider {
        id: "openai",
        name: "OpenAI",
        base_url: "https://api.openai.com/v1",
        needs_api_key: true,
        browser_note: "Accepts browser requests. The key stays in this browser, but anyone using it can read it.",
    },
    Provider {
        id: "groq",
        name: "Groq",
        base_url: "https://api.groq.com/openai/v1",
        needs_api_key: true,
        browser_note: "Accepts browser requests. The free tier limits tokens per minute, so expect 429s on long runs.",
    },
    Provider {
        id: "openrouter",
        name: "OpenRouter",
        base_url: "https://openrouter.ai/api/v1",
        needs_api_key: true,
        browser_note: "Accepts browser requests. Model ids include the vendor, e.g. openai/gpt-oss-120b.",
    },
    Provider {
        id: "ollama",
        name: "Ollama",
        base_url: "http://localhost:11434/v1",
        needs_api_key: false,
        browser_note: "Ollama only accepts its own default origins. Start it with OLLAMA_ORIGINS set to this page's origin (for example OLLAMA_ORIGINS=\"https://your.site\" ollama serve), or OLLAMA_ORIGINS=\"*\" on a trusted machine.",
    },
    Provider {
        id: "lmstudio",
        name: "LM Studio",
        base_url: "http://localhost:1234/v1",
        needs_api_key: false,
        browser_note: "Turn on \"Enable CORS\" in LM Studio's local server settings (Developer tab), then start the server.",
    },
    Provider {
        id: "llamacpp",
        name: "llama.cpp server",
        base_url: "http://localhost:8080/v1",
        needs_api_key: false,
        browser_note: "llama-server answers cross-origin requests by default; start it with the model loaded (llama-server -m model.gguf) and check the port.",
    },
    Provider {
        id: "vllm",
        name: "vLLM",
        base_url: "http://localhost:8000/v1",
        needs_api_key: false,
        browser_note: "vLLM allows all origins unless --allowed-origins was narrowed; if it was, add this page's origin.",
    },
];

impl ChatMessage {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        ChatMessage {
            role,
            content: content.into(),
        }
    }
}

impl From<&Message> for ChatMessage {
    fn from(message: &Message) -> Self {
        ChatMessage::new(message.role, message.content.clone())
    }
}

impl ChatRequest {
    /// A non-streaming request with server defaults for everything optional.
    pub fn new(model: impl Into<String>, messages: Vec<ChatMessage>) -> Self {
        ChatRequest {
            model: model.into(),
            messages,
            temperature: None,
            max_tokens: None,
            reasoning_effort: None,
            stream: false,
            include_usage: true,
        }
    }

    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// Sets `reasoning_effort`; an empty or blank string clears it, so a settings field left
    /// empty sends nothing.
    pub fn reasoning_effort(mut self, effort: impl Into<String>) -> Self {
        let effort = effort.into().trim().to_owned();
        self.reasoning_effort = (!effort.is_empty()).then_some(effort);
        self
    }

    pub fn streaming(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// Leaves out `stream_options.include_usage`, for servers that reject it.
    pub fn without_include_usage(mut self) -> Self {
        self.include_usage = false;
        self
    }

    /// The JSON body as a value.
    pub fn to_value(&self) -> Value {
        let mut object = serde_json::Map::new();
        object.insert("model".into(), self.model.as_str().into());
        object.insert("messages".into(), serde_json::json!(self.messages));
        object.insert("stream".into(), self.stream.into());
        if let Some(temperature) = self.temperature {
            object.insert("temperature".into(), temperature.into());
        }
        if let Some(max_tokens) = self.max_tokens {
            object.insert("max_tokens".into(), max_tokens.into());
        }
        if let Some(effort) = &self.reasoning_effort {
            object.insert("reasoning_effort".into(), effort.as_str().into());
        }
        if self.stream && self.include_usage {
            object.insert(
                "stream_options".into(),
                serde_json::json!({ "include_usage": true }),
            );
        }
        Value::Object(object)
    }

    /// The JSON body as text.
    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }
}

impl StreamDecoder {
    /// `max_tokens` is the request's limit, quoted in [`ApiError::EmptyLength`].
    pub fn new(max_tokens: Option<u32>) -> Self {
        StreamDecoder {
            max_tokens,
            ..Default::default()
        }
    }

    /// Decodes one SSE event. Events after `[DONE]` are ignored.
    pub fn decode(&mut self, event: &SseEvent) -> Vec<StreamEvent> {
        if self.done {
            return Vec::new();
        }
        let data = event.data.trim();
        if data == "[DONE]" {
            return self.complete();
        }
        let value: Value = match serde_json::from_str(data) {
            Ok(value) => value,
            Err(err) => {
                return vec![StreamEvent::Error(ApiError::MalformedJson {
                    detail: format!("stream chunk {}: {err}", snippet(data)),
                })];
            }
        };
        if value.get("error").is_some() || event.event.as_deref() == Some("error") {
            let info = ErrorInfo::from_value(&value, data);
            return vec![StreamEvent::Error(info.classify(None, None))];
        }
        let chunk: StreamChunk = match serde_json::from_value(value) {
            Ok(chunk) => chunk,
            Err(err) => {
                return vec![StreamEvent::Error(ApiError::MalformedJson {
                    detail: format!("stream chunk {}: {err}", snippet(data)),
                })];
            }
        };
        let mut out = Vec::new();
        for choice in chunk.choices.iter().take(1) {
            if let Some(content) = choice.delta.content.as_deref().filter(|c| !c.is_empty()) {
                self.saw_content = true;
                out.push(StreamEvent::Delta(content.to_owned()));
            }
            if let Some(reason) = &choice.finish_reason {
                self.finish_reason = Some(reason.clone());
                out.push(StreamEvent::Finish(reason.clone()));
            }
        }
        // Groq reports usage in `x_groq.usage` on the last chunk rather than in `usage`.
        let usage = chunk.usage.or(chunk.x_groq.and_then(|x| x.usage));
        if let Some(usage) = usage {
            out.push(StreamEvent::Usage(usage.into()));
        }
        out
    }

    /// The body ended. Emits what `[DONE]` would have if the server closed without it.
    pub fn end(&mut self) -> Vec<StreamEvent> {
        if self.done {
            return Vec::new();
        }
        self.complete()
    }

    /// The text arrived so far was non-empty.
    pub fn saw_content(&self) -> bool {
        self.saw_content
    }

    fn complete(&mut self) -> Vec<StreamEvent> {
        self.done = true;
        let mut out = Vec::new();
        if !self.saw_content && self.finish_reason.as_deref() == Some("length") {
            out.push(StreamEvent::Error(ApiError::EmptyLength {
                max_tokens: self.max_tokens,
            }));
        }
        out.push(StreamEvent::Done);
        out
    }
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

    /// The wait the server asked for, if any.
    pub fn retry_after_ms(&self) -> Option<u64> {
        match self {
            ApiError::RateLimited { retry_after_ms, .. } => *retry_after_ms,
            _ => None,
        }
    }
}

/// Classifies a failed HTTP response. `retry_after` is the raw `Retry-After` header (seconds or
/// an HTTP-date); `now_ms` is the current time, needed only to turn a date into a wait.
pub fn classify_http(status: u16, body: &str, retry_after: Option<&str>, now_ms: u64) -> ApiError {
    let info = ErrorInfo::from_body(body);
    let header_wait = retry_after.and_then(|value| parse_retry_after(value, now_ms));
    info.classify(Some(status), header_wait)
}

/// Decodes a non-streaming reply body (HTTP 200).
pub fn parse_chat_response(body: &str, max_tokens: Option<u32>) -> Result<ChatResponse, ApiError> {
    let value: Value = serde_json::from_str(body).map_err(|err| ApiError::MalformedJson {
        detail: format!("{err} in {}", snippet(body)),
    })?;
    if value.get("error").is_some() {
        return Err(ErrorInfo::from_value(&value, body).classify(None, None));
    }
    let reply: CompletionBody =
        serde_json::from_value(value).map_err(|err| ApiError::MalformedJson {
            detail: err.to_string(),
        })?;
    let Some(choice) = reply.choices.into_iter().next() else {
        return Err(ApiError::MalformedJson {
            detail: "the reply has no choices".into(),
        });
    };
    let content = choice.message.content.unwrap_or_default();
    if content.trim().is_empty() && choice.finish_reason.as_deref() == Some("length") {
        return Err(ApiError::EmptyLength { max_tokens });
    }
    Ok(ChatResponse {
        content,
        finish_reason: choice.finish_reason,
        usage: reply.usage.map(Usage::from),
    })
}

/// Reads the model ids from a `GET {base_url}/models` reply. Also accepts Ollama's native
/// `/api/tags` shape (`{"models": [{"name": ...}]}`), in case the base URL lacks `/v1`.
pub fn parse_models(body: &str) -> Result<Vec<String>, ApiError> {
    let value: Value = serde_json::from_str(body).map_err(|err| ApiError::MalformedJson {
        detail: format!("{err} in {}", snippet(body)),
    })?;
    let list = value
        .get("data")
        .or_else(|| value.get("models"))
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::MalformedJson {
            detail: "the models reply has no \"data\" array".into(),
        })?;
    Ok(list
        .iter()
        .filter_map(|entry| {
            entry
                .get("id")
                .or_else(|| entry.get("name"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect())
}

/// True when a 400 or 422 reply complains about `stream_options` / `include_usage`: the client
/// then retries once without it and remembers that for the base URL.
pub fn rejects_include_usage(status: u16, body: &str) -> bool {
    matches!(status, 400 | 422)
        && (body.contains("stream_options") || body.contains("include_usage"))
}

/// How long to wait before retry number `attempt` (0 for the first retry). A server-supplied
/// wait wins (capped at two minutes); otherwise the delay doubles from one second up to 30 s,
/// with "equal jitter": half fixed, half scaled by `jitter_unit` in [0, 1], which the caller
/// draws so that this stays pure.
pub fn backoff_delay_ms(attempt: u32, retry_after_ms: Option<u64>, jitter_unit: f64) -> u64 {
    const BASE_MS: u64 = 1_000;
    const CAP_MS: u64 = 30_000;
    const MAX_SERVER_WAIT_MS: u64 = 120_000;
    if let Some(wait) = retry_after_ms {
        return wait.min(MAX_SERVER_WAIT_MS);
    }
    let exponential = BASE_MS.saturating_mul(1u64 << attempt.min(20)).min(CAP_MS);
    let jitter = if jitter_unit.is_finite() {
        jitter_unit.clamp(0.0, 1.0)
    } else {
        0.5
    };
    let half = exponential / 2;
    half + (half as f64 * jitter).round() as u64
}

/// Parses a `Retry-After` value: delta-seconds (fractions tolerated) or an HTTP-date.
pub fn parse_retry_after(value: &str, now_ms: u64) -> Option<u64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64);
    }
    let date = httpdate::parse_http_date(value).ok()?;
    let at_ms = date.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis() as u64;
    Some(at_ms.saturating_sub(now_ms))
}

/// The preset whose server the base URL points at, recognised by host or default port.
pub fn detect_provider(base_url: &str) -> Option<&'static Provider> {
    let url = base_url.to_ascii_lowercase();
    let id = if url.contains("api.openai.com") {
        "openai"
    } else if url.contains("api.groq.com") {
        "groq"
    } else if url.contains("openrouter.ai") {
        "openrouter"
    } else if url.contains(":11434") {
        "ollama"
    } else if url.contains(":1234") {
        "lmstudio"
    } else if url.contains(":8080") {
        "llamacpp"
    } else if url.contains(":8000") {
        "vllm"
    } else {
        return None;
    };
    PROVIDERS.iter().find(|p| p.id == id)
}

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

fn max_tokens_suffix(max_tokens: Option<u32>) -> String {
    max_tokens.map(|n| format!(" {n}")).unwrap_or_default()
}

/// The first 200 characters of a body, quoted, for error details.
fn snippet(text: &str) -> String {
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
struct ErrorInfo {
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
    fn from_value(value: &Value, raw: &str) -> Self {
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
    fn classify(self, status: Option<u16>, header_wait: Option<u64>) -> ApiError {
        let message = self.message.clone();
        if self.mentions("insufficient_quota") {
            return ApiError::InsufficientQuota { message };
        }
        let status = status.unwrap_or_else(|| self.implied_status());
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
            0
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

/// Groq and OpenAI put the wait in the message ("Please try again in 7.66s", "in 1m2.5s",
/// "in 120ms") and not always in a header the browser can read.
fn wait_from_message(message: &str) -> Option<u64> {
    static PATTERN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"try again in (?:(\d+)m)?(\d+(?:\.\d+)?)(ms|s)\b")
            .expect("the pattern is a valid regex")
    });
    let caps = PATTERN.captures(message)?;
    let minutes: f64 = caps.get(1).map_or(Ok(0.0), |m| m.as_str().parse()).ok()?;
    let amount: f64 = caps[2].parse().ok()?;
    let unit_ms = if &caps[3] == "ms" { 1.0 } else { 1000.0 };
    Some((minutes * 60_000.0 + amount * unit_ms).round() as u64)
}

#[derive(Deserialize)]
struct CompletionBody {
    #[serde(default)]
    choices: Vec<CompletionChoice>,
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct CompletionChoice {
    message: CompletionMessage,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct CompletionMessage {
    content: Option<String>,
}

#[derive(Deserialize)]
struct StreamChunk {
    #[serde(default)]
    choices: Vec<StreamChoice>,
    usage: Option<WireUsage>,
    x_groq: Option<GroqExtra>,
}

#[derive(Deserialize)]
struct StreamChoice {
    #[serde(default)]
    delta: StreamDelta,
    finish_reason: Option<String>,
}

#[derive(Default, Deserialize)]
struct StreamDelta {
    content: Option<String>,
}

#[derive(Deserialize)]
struct GroqExtra {
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u32,
    #[serde(default)]
    completion_tokens: u32,
    completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Deserialize)]
struct CompletionDetails {
    reasoning_tokens: Option<u32>,
}

impl From<WireUsage> for Usage {
    fn from(wire: WireUsage) -> Self {
        Usage {
            prompt_tokens: wire.prompt_tokens,
            completion_tokens: wire.completion_tokens,
            reasoning_tokens: wire
                .completion_tokens_details
                .and_then(|d| d.reasoning_tokens),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sse::parse_all;
    use serde_json::json;

    const NOW_MS: u64 = 1_700_000_000_000;

    fn check_classify(status: u16, body: &str, retry_after: Option<&str>, expect: ApiError) {
        let got = classify_http(status, body, retry_after, NOW_MS);
        assert_eq!(got, expect, "status {status}, body {body:?}");
    }

    #[test]
    fn request_body_omits_what_is_unset() {
        let messages = vec![
            ChatMessage::new(Role::System, "You are FinCoach."),
            ChatMessage::new(Role::User, "Hi! I'm Chiru."),
        ];
        let check = |request: ChatRequest, expect: Value| {
            assert_eq!(request.to_value(), expect);
            let reparsed: Value = serde_json::from_str(&request.to_json()).unwrap();
            assert_eq!(reparsed, expect);
        };
        let msgs = json!([
            {"role": "system", "content": "You are FinCoach."},
            {"role": "user", "content": "Hi! I'm Chiru."}
        ]);
        check(
            ChatRequest::new("m", messages.clone()),
            json!({"model": "m", "messages": msgs, "stream": false}),
        );
        check(
            ChatRequest::new("openai/gpt-oss-120b", messages.clone())
                .temperature(0.0)
                .max_tokens(1000)
                .reasoning_effort("low"),
            json!({"model": "openai/gpt-oss-120b", "messages": msgs, "stream": false,
                   "temperature": 0.0, "max_tokens": 1000, "reasoning_effort": "low"}),
        );
        // An empty effort from a settings field must not be sent: non-reasoning models reject it.
        check(
            ChatRequest::new("m", messages.clone()).reasoning_effort("  "),
            json!({"model": "m", "messages": msgs, "stream": false}),
        );
        check(
            ChatRequest::new("m", messages.clone()).streaming(true),
            json!({"model": "m", "messages": msgs, "stream": true,
                   "stream_options": {"include_usage": true}}),
        );
        check(
            ChatRequest::new("m", messages)
                .streaming(true)
                .without_include_usage(),
            json!({"model": "m", "messages": msgs, "stream": true}),
        );
    }

    #[test]
    fn chat_message_from_engine_message() {
        let message = Message::new(Role::Assistant, "Noted.", &crate::engine::WordCounter, 5);
        assert_eq!(
            ChatMessage::from(&message),
            ChatMessage::new(Role::Assistant, "Noted.")
        );
    }

    #[test]
    fn non_streaming_replies() {
        let check = |body: &str, expect: Result<ChatResponse, ApiError>| {
            assert_eq!(parse_chat_response(body, Some(300)), expect, "body {body}");
        };
        check(
            r#"{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"Your salary is ₹1,20,000."},"finish_reason":"stop"}],
                "usage":{"prompt_tokens":857,"completion_tokens":12,"total_tokens":869}}"#,
            Ok(ChatResponse {
                content: "Your salary is ₹1,20,000.".into(),
                finish_reason: Some("stop".into()),
                usage: Some(Usage {
                    prompt_tokens: 857,
                    completion_tokens: 12,
                    reasoning_tokens: None,
                }),
            }),
        );
        check(
            r#"{"choices":[{"message":{"content":"ok"},"finish_reason":"stop"}],
                "usage":{"prompt_tokens":1,"completion_tokens":300,"completion_tokens_details":{"reasoning_tokens":299}}}"#,
            Ok(ChatResponse {
                content: "ok".into(),
                finish_reason: Some("stop".into()),
                usage: Some(Usage {
                    prompt_tokens: 1,
                    completion_tokens: 300,
                    reasoning_tokens: Some(299),
                }),
            }),
        );
        check(
            r#"{"choices":[{"message":{"role":"assistant","content":""},"finish_reason":"length"}]}"#,
            Err(ApiError::EmptyLength {
                max_tokens: Some(300),
            }),
        );
        check(
            r#"{"choices":[{"message":{"role":"assistant","content":null},"finish_reason":"length"}]}"#,
            Err(ApiError::EmptyLength {
                max_tokens: Some(300),
            }),
        );
        check(
            r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
            Err(ApiError::InsufficientQuota {
                message: "You exceeded your current quota".into(),
            }),
        );
        assert!(matches!(
            parse_chat_response(r#"{"choices":[]}"#, None),
            Err(ApiError::MalformedJson { .. })
        ));
        assert!(matches!(
            parse_chat_response("<html>502 Bad Gateway</html>", None),
            Err(ApiError::MalformedJson { .. })
        ));
        assert!(matches!(
            parse_chat_response(r#"{"choices":[{"message":{"content":5}}]}"#, None),
            Err(ApiError::MalformedJson { .. })
        ));
    }

    fn decode_stream(body: &str, max_tokens: Option<u32>) -> Vec<StreamEvent> {
        let mut decoder = StreamDecoder::new(max_tokens);
        let mut out: Vec<StreamEvent> = parse_all(body.as_bytes())
            .iter()
            .flat_map(|event| decoder.decode(event))
            .collect();
        out.extend(decoder.end());
        out
    }

    #[test]
    fn streaming_replies() {
        let check = |body: &str, expect: Vec<StreamEvent>| {
            assert_eq!(decode_stream(body, Some(1000)), expect, "body {body}");
        };
        let usage = Usage {
            prompt_tokens: 229,
            completion_tokens: 3,
            reasoning_tokens: None,
        };
        // OpenAI with include_usage: a role-only chunk, deltas, a finish chunk, a usage-only
        // chunk with empty choices, then [DONE].
        check(
            concat!(
                "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{\"content\":\"₹1,20\"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{\"content\":\",000\"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
                "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":229,\"completion_tokens\":3}}\n\n",
                "data: [DONE]\n\n",
                "data: {\"choices\":[{\"delta\":{\"content\":\"ignored\"}}]}\n\n",
            ),
            vec![
                StreamEvent::Delta("₹1,20".into()),
                StreamEvent::Delta(",000".into()),
                StreamEvent::Finish("stop".into()),
                StreamEvent::Usage(usage),
                StreamEvent::Done,
            ],
        );
        // Groq reports usage in x_groq on the finishing chunk.
        check(
            concat!(
                "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}],",
                "\"x_groq\":{\"usage\":{\"prompt_tokens\":229,\"completion_tokens\":3}}}\n\n",
                "data: [DONE]\n\n",
            ),
            vec![
                StreamEvent::Delta("Hi".into()),
                StreamEvent::Finish("stop".into()),
                StreamEvent::Usage(usage),
                StreamEvent::Done,
            ],
        );
        // A reasoning model that spends max_tokens before any text: the error comes before
        // Done, after usage has been reported.
        check(
            concat!(
                "data: {\"choices\":[{\"delta\":{\"reasoning\":\"thinking\"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"length\"}]}\n\n",
                "data: [DONE]\n\n",
            ),
            vec![
                StreamEvent::Finish("length".into()),
                StreamEvent::Error(ApiError::EmptyLength {
                    max_tokens: Some(1000),
                }),
                StreamEvent::Done,
            ],
        );
        // Cut off by length after some text is a normal (truncated) reply, not an error.
        check(
            "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"length\"}]}\n\n",
            vec![
                StreamEvent::Delta("a".into()),
                StreamEvent::Finish("length".into()),
                StreamEvent::Done,
            ],
        );
        // An error object in the middle of a stream.
        check(
            concat!(
                "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n",
                "data: {\"error\":{\"message\":\"Rate limit reached. Please try again in 7.5s.\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}\n\n",
            ),
            vec![
                StreamEvent::Delta("a".into()),
                StreamEvent::Error(ApiError::RateLimited {
                    retry_after_ms: Some(7500),
                    message: "Rate limit reached. Please try again in 7.5s.".into(),
                }),
                StreamEvent::Done,
            ],
        );
        check(
            "event: error\ndata: {\"message\":\"model crashed\"}\n\n",
            vec![
                StreamEvent::Error(ApiError::Server {
                    status: None,
                    message: "model crashed".into(),
                }),
                StreamEvent::Done,
            ],
        );
        let events = decode_stream(
            "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}\n\n",
            None,
        );
        assert!(
            matches!(
                &events[0],
                StreamEvent::Error(ApiError::MalformedJson { .. })
            ),
            "{events:?}"
        );
    }

    #[test]
    fn http_status_classes() {
        let openai_error = |message: &str, kind: &str, code: &str| {
            json!({"error": {"message": message, "type": kind, "code": code}}).to_string()
        };
        check_classify(
            401,
            &openai_error(
                "Incorrect API key provided",
                "invalid_request_error",
                "invalid_api_key",
            ),
            None,
            ApiError::Unauthorized {
                status: 401,
                message: "Incorrect API key provided".into(),
            },
        );
        check_classify(
            403,
            "Forbidden",
            None,
            ApiError::Unauthorized {
                status: 403,
                message: "Forbidden".into(),
            },
        );
        check_classify(
            404,
            r#"{"error":"model 'llama3' not found, try pulling it first"}"#,
            None,
            ApiError::NotFound {
                message: "model 'llama3' not found, try pulling it first".into(),
            },
        );
        check_classify(
            400,
            &openai_error(
                "This model's maximum context length is 8192 tokens",
                "invalid_request_error",
                "context_length_exceeded",
            ),
            None,
            ApiError::BadRequest {
                status: 400,
                message: "This model's maximum context length is 8192 tokens".into(),
            },
        );
        check_classify(
            422,
            r#"{"detail":[{"loc":["body","messages"],"msg":"field required"}]}"#,
            None,
            ApiError::BadRequest {
                status: 422,
                message: "field required".into(),
            },
        );
        check_classify(
            400,
            r#"{"object":"error","message":"reasoning_effort is not supported","type":"BadRequestError"}"#,
            None,
            ApiError::BadRequest {
                status: 400,
                message: "reasoning_effort is not supported".into(),
            },
        );
        check_classify(
            429,
            &openai_error("Rate limit reached", "requests", "rate_limit_exceeded"),
            Some("12"),
            ApiError::RateLimited {
                retry_after_ms: Some(12_000),
                message: "Rate limit reached".into(),
            },
        );
        check_classify(
            429,
            &openai_error(
                "Please try again in 1m2.5s.",
                "tokens",
                "rate_limit_exceeded",
            ),
            None,
            ApiError::RateLimited {
                retry_after_ms: Some(62_500),
                message: "Please try again in 1m2.5s.".into(),
            },
        );
        check_classify(
            429,
            &openai_error(
                "You exceeded your current quota",
                "insufficient_quota",
                "insufficient_quota",
            ),
            Some("1"),
            ApiError::InsufficientQuota {
                message: "You exceeded your current quota".into(),
            },
        );
        check_classify(
            503,
            "",
            None,
            ApiError::Server {
                status: Some(503),
                message: "the response body was empty".into(),
            },
        );
        check_classify(408, "", None, ApiError::Timeout { after_ms: None });
    }

    #[test]
    fn retry_after_header_forms() {
        let check = |value: &str, expect: Option<u64>| {
            assert_eq!(parse_retry_after(value, NOW_MS), expect, "{value:?}");
        };
        check("30", Some(30_000));
        check(" 1.5 ", Some(1_500));
        check("-3", None);
        check("soon", None);
        // NOW_MS is 2023-11-14T22:13:20Z; this date is 40 s later.
        check("Tue, 14 Nov 2023 22:14:00 GMT", Some(40_000));
        check("Tue, 14 Nov 2023 22:00:00 GMT", Some(0));
    }

    #[test]
    fn retryability() {
        let check = |error: ApiError, expect: bool| {
            assert_eq!(error.is_retryable(), expect, "{error:?}");
        };
        check(classify_http(429, "{}", None, NOW_MS), true);
        check(classify_http(500, "{}", None, NOW_MS), true);
        check(classify_http(502, "{}", None, NOW_MS), true);
        check(classify_http(501, "{}", None, NOW_MS), false);
        check(
            ApiError::Timeout {
                after_ms: Some(60_000),
            },
            true,
        );
        check(classify_http(400, "{}", None, NOW_MS), false);
        check(classify_http(401, "{}", None, NOW_MS), false);
        check(classify_http(404, "{}", None, NOW_MS), false);
        check(
            classify_http(
                429,
                r#"{"error":{"code":"insufficient_quota"}}"#,
                None,
                NOW_MS,
            ),
            false,
        );
        check(
            ApiError::network("http://localhost:11434/v1", "Failed to fetch"),
            false,
        );
        check(ApiError::EmptyLength { max_tokens: None }, false);
    }

    #[test]
    fn backoff_grows_with_jitter_and_caps() {
        assert_eq!(backoff_delay_ms(0, None, 0.0), 500);
        assert_eq!(backoff_delay_ms(0, None, 1.0), 1_000);
        assert_eq!(backoff_delay_ms(1, None, 0.5), 1_500);
        assert_eq!(backoff_delay_ms(3, None, 1.0), 8_000);
        assert_eq!(backoff_delay_ms(10, None, 1.0), 30_000);
        assert_eq!(backoff_delay_ms(u32::MAX, None, 0.0), 15_000);
        // Out-of-range or NaN jitter must not produce absurd waits.
        assert_eq!(backoff_delay_ms(0, None, 7.0), 1_000);
        assert_eq!(backoff_delay_ms(0, None, f64::NAN), 750);
        // The server's wait wins, within reason.
        assert_eq!(backoff_delay_ms(0, Some(7_500), 0.9), 7_500);
        assert_eq!(backoff_delay_ms(0, Some(3_600_000), 0.9), 120_000);
    }

    #[test]
    fn include_usage_rejection() {
        let check = |status: u16, body: &str, expect: bool| {
            assert_eq!(
                rejects_include_usage(status, body),
                expect,
                "{status} {body}"
            );
        };
        check(
            400,
            r#"{"error":{"message":"Unrecognized request argument supplied: stream_options"}}"#,
            true,
        );
        check(
            422,
            r#"{"detail":"extra field include_usage not permitted"}"#,
            true,
        );
        check(
            400,
            r#"{"error":{"message":"max_tokens too large"}}"#,
            false,
        );
        check(500, "stream_options", false);
    }

    #[test]
    fn network_errors_name_the_fix_for_the_provider() {
        let fix_of = |base_url: &str| match ApiError::network(base_url, "Failed to fetch") {
            ApiError::Network { fix, .. } => fix,
            other => panic!("expected Network, got {other:?}"),
        };
        assert!(fix_of("http://localhost:11434/v1").contains("OLLAMA_ORIGINS"));
        assert!(fix_of("http://127.0.0.1:1234/v1").contains("Enable CORS"));
        assert!(fix_of("https://example.test/v1").contains("CORS headers"));
        let message = ApiError::network("http://localhost:11434/v1", "Failed to fetch").to_string();
        assert!(
            message.starts_with("Could not reach http://localhost:11434/v1 (Failed to fetch).")
        );
    }

    #[test]
    fn provider_presets_are_detected_from_their_own_urls() {
        for provider in PROVIDERS {
            assert_eq!(
                detect_provider(provider.base_url),
                Some(provider),
                "{}",
                provider.name
            );
            assert!(provider.base_url.ends_with("/v1"), "{}", provider.name);
        }
        assert_eq!(detect_provider("https://my-proxy.example/v1"), None);
    }

    #[test]
    fn model_lists() {
        let check = |body: &str, expect: Result<Vec<&str>, ()>| {
            let got = parse_models(body).map_err(|_| ());
            let expect = expect.map(|ids| ids.into_iter().map(str::to_owned).collect());
            assert_eq!(got, expect, "{body}");
        };
        check(
            r#"{"object":"list","data":[{"id":"openai/gpt-oss-120b","object":"model"},{"id":"llama-3.1-8b-instant"}]}"#,
            Ok(vec!["openai/gpt-oss-120b", "llama-3.1-8b-instant"]),
        );
        check(r#"{"models":[{"name":"qwen3:4b"}]}"#, Ok(vec!["qwen3:4b"]));
        check(r#"{"data":[]}"#, Ok(vec![]));
        check(r#"{"object":"list"}"#, Err(()));
        check("not json", Err(()));
    }

    #[test]
    fn messages_say_what_to_do_next() {
        let check = |error: ApiError, needle: &str| {
            let text = error.to_string();
            assert!(text.contains(needle), "{text:?} lacks {needle:?}");
        };
        check(
            ApiError::EmptyLength {
                max_tokens: Some(300),
            },
            "all 300 of max_tokens",
        );
        check(
            ApiError::EmptyLength { max_tokens: None },
            "lower reasoning_effort",
        );
        check(
            ApiError::RateLimited {
                retry_after_ms: Some(7_500),
                message: "slow down".into(),
            },
            "wait 7.5 s",
        );
        check(
            ApiError::Server {
                status: Some(502),
                message: "bad gateway".into(),
            },
            "(HTTP 502)",
        );
        check(
            ApiError::Timeout {
                after_ms: Some(60_000),
            },
            "within 60 s",
        );
        check(classify_http(401, "", None, NOW_MS), "Check the key");
        check(classify_http(404, "", None, NOW_MS), "List models");
    }
}
