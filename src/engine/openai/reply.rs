//! Decoding what the server sends back: a non-streaming reply, the SSE events of a streamed
//! one (through [`StreamDecoder`]), and the model list. The serde types at the bottom mirror
//! the server's JSON and stay private; the engine sees [`ChatResponse`] and [`StreamEvent`].

use serde::Deserialize;
use serde_json::Value;

use super::error::{ApiError, ErrorInfo, snippet};
use crate::engine::sse::SseEvent;

/// Token usage as reported by the server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
    /// The model's visible reasoning (`reasoning_content` or `reasoning`), empty if none; for
    /// the UI to show apart from the answer, never sent back.
    pub reasoning: String,
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

/// How a streamed request ended. The reply's text is not here: the client hands each piece
/// to its caller as it arrives, and the caller keeps it (`app::live::LiveSession`), also when
/// the stream was stopped or failed part-way.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamEnd {
    /// The server finished the reply (`[DONE]`, or a finish_reason before the body closed).
    Complete,
    /// The user pressed Stop.
    Stopped,
    /// The request failed, before or during the reply.
    Failed(ApiError),
}

/// Turns the SSE events of one streamed reply into [`StreamEvent`]s. It remembers whether any
/// text arrived, so that an empty reply cut off by `max_tokens` becomes
/// [`ApiError::EmptyLength`] instead of a blank summary.
#[derive(Clone, Debug, Default)]
pub struct StreamDecoder {
    max_tokens: Option<u32>,
    saw_content: bool,
    reasoning: String,
    finish_reason: Option<String>,
    done: bool,
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
            return self.complete(true);
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
            for reasoning in [&choice.delta.reasoning_content, &choice.delta.reasoning] {
                self.reasoning
                    .push_str(reasoning.as_deref().unwrap_or_default());
            }
            if let Some(reason) = &choice.finish_reason {
                self.finish_reason = Some(reason.clone());
                out.push(StreamEvent::Finish(reason.clone()));
                if reason == "error" {
                    // OpenRouter ends a reply whose upstream failed this way, usually with an
                    // error object (handled above); without one, say what is known.
                    out.push(StreamEvent::Error(ApiError::Server {
                        status: None,
                        message: "the provider ended the reply with finish_reason \"error\"".into(),
                    }));
                }
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
        self.complete(false)
    }

    /// The body ended, and this decides how the stream did: what [`StreamDecoder::end`] emits,
    /// and, when neither `[DONE]` nor a finish_reason arrived, the error that the connection
    /// closed before the reply was finished, ahead of the `Done`. So the caller ends the
    /// stream at the first `Error` (failed, keeping the text that arrived) or at `Done`
    /// (complete) without judging the events itself.
    pub fn finish(&mut self) -> Vec<StreamEvent> {
        let cut_short = !self.done && self.finish_reason.is_none();
        let mut out = self.end();
        if cut_short {
            let done = out.len().saturating_sub(1);
            out.insert(
                done,
                StreamEvent::Error(ApiError::Server {
                    status: None,
                    message: "the connection closed before the reply was finished".into(),
                }),
            );
        }
        out
    }

    /// The text arrived so far was non-empty.
    pub fn saw_content(&self) -> bool {
        self.saw_content
    }

    /// The reasoning text that arrived so far (`reasoning_content` and `reasoning` deltas).
    pub fn reasoning(&self) -> &str {
        &self.reasoning
    }

    /// `finished` is true at `[DONE]`. A reply that ended without any text is an error, never
    /// an empty message: cut by `max_tokens` it is [`ApiError::EmptyLength`], otherwise, once
    /// the server said it finished, [`ApiError::NoAnswer`]. A body that simply stopped is
    /// named by [`StreamDecoder::finish`].
    fn complete(&mut self, finished: bool) -> Vec<StreamEvent> {
        self.done = true;
        let mut out = Vec::new();
        if !self.saw_content {
            if self.finish_reason.as_deref() == Some("length") {
                out.push(StreamEvent::Error(ApiError::EmptyLength {
                    max_tokens: self.max_tokens,
                }));
            } else if (finished || self.finish_reason.is_some())
                && self.finish_reason.as_deref() != Some("error")
            {
                out.push(StreamEvent::Error(ApiError::NoAnswer {
                    finish_reason: self.finish_reason.clone(),
                    reasoned: !self.reasoning.trim().is_empty(),
                }));
            }
        }
        out.push(StreamEvent::Done);
        out
    }
}

/// What a successful answer to a streamed request turned out to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// An event stream: decode it chunk by chunk.
    EventStream,
    /// Not a stream: read it whole and pass it to [`decode_whole_reply`].
    Whole,
}

/// Whether a 200 answer to a streamed request is an event stream, from its `Content-Type`. A
/// server that ignores `stream: true` answers with `application/json`, and a proxy with an
/// HTML page; both are read whole. A missing type is taken as a stream, as servers that stream
/// without naming it do exist.
pub fn body_kind(content_type: Option<&str>) -> BodyKind {
    match content_type.map(|t| t.to_ascii_lowercase()) {
        Some(t) if !t.contains("text/event-stream") && !t.trim().is_empty() => BodyKind::Whole,
        _ => BodyKind::EventStream,
    }
}

/// Decodes a whole 200 body sent in answer to a streamed request: an ordinary JSON
/// completion (the server ignored `stream: true`) is used as the reply, an event stream sent
/// under another type is decoded as one, and anything else (a proxy's sign-in page) is
/// [`ApiError::NotChatReply`] with the start of it.
pub fn decode_whole_reply(body: &str, max_tokens: Option<u32>) -> Result<ChatResponse, ApiError> {
    let trimmed = body.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('{') {
        return parse_chat_response(trimmed, max_tokens);
    }
    if trimmed.starts_with("data:") || trimmed.starts_with(':') || trimmed.starts_with("event:") {
        let mut decoder = StreamDecoder::new(max_tokens);
        let mut reply = ChatResponse {
            content: String::new(),
            reasoning: String::new(),
            finish_reason: None,
            usage: None,
        };
        let events = crate::engine::sse::parse_all(body.as_bytes());
        let decoded = events
            .iter()
            .flat_map(|e| decoder.decode(e))
            .collect::<Vec<_>>();
        for event in decoded.into_iter().chain(decoder.end()) {
            match event {
                StreamEvent::Delta(text) => reply.content.push_str(&text),
                StreamEvent::Usage(usage) => reply.usage = Some(usage),
                StreamEvent::Finish(reason) => reply.finish_reason = Some(reason),
                StreamEvent::Error(error) => return Err(error),
                StreamEvent::Done => break,
            }
        }
        reply.reasoning = decoder.reasoning().to_owned();
        return Ok(reply);
    }
    Err(ApiError::NotChatReply {
        start: snippet(body),
    })
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
    let reasoning = [choice.message.reasoning_content, choice.message.reasoning]
        .into_iter()
        .flatten()
        .collect::<String>();
    if content.trim().is_empty() && !reasoning.trim().is_empty() {
        return Err(ApiError::NoAnswer {
            finish_reason: choice.finish_reason,
            reasoned: true,
        });
    }
    Ok(ChatResponse {
        content,
        reasoning,
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
    reasoning_content: Option<String>,
    reasoning: Option<String>,
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
    reasoning_content: Option<String>,
    reasoning: Option<String>,
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
