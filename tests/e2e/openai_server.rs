//! A local stand-in for the user's OpenAI-compatible endpoint: scripted replies, streaming with
//! the usage chunk, the CORS preflight, and faults injected on demand. It listens on loopback only.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio_stream::wrappers::ReceiverStream;

/// What the server does with the next chat completion request.
#[derive(Clone, Debug)]
#[allow(dead_code)] // Each test uses the faults it needs.
pub enum Reply {
    /// A normal reply with this text.
    Text(String),
    /// An HTTP error with a JSON body, and a Retry-After header when given.
    Status {
        status: u16,
        body: Value,
        retry_after: Option<String>,
    },
    /// A 200 whose body is not JSON.
    MalformedJson,
    /// Empty content with finish_reason "length", as a reasoning model that spent max_tokens.
    EmptyLength,
    /// Streams this text, but the connection ends after `chunks` content chunks with no [DONE].
    CutAfter { text: String, chunks: usize },
    /// Streams `chunks` content chunks of `text`, then an error object inside the stream.
    ErrorMidStream {
        text: String,
        chunks: usize,
        message: String,
    },
    /// Never answers (until the client gives up).
    Hang,
    /// A 400 whose error text echoes the request's Authorization header, as some proxies do.
    EchoAuthorization,
    /// A reasoning model's stream: only `reasoning_content` deltas (and `reasoning`, as
    /// OpenRouter names it), no content, then this finish reason.
    ReasoningOnly { reasoning: String, finish: String },
    /// Ignores `stream: true` and answers with an ordinary JSON completion.
    JsonToStream(String),
    /// A 200 with a proxy's HTML page.
    Html,
    /// Streams `chunks` content chunks of `text`, then a chunk with finish_reason "error" and an
    /// error object, as OpenRouter does when the upstream provider fails mid-reply.
    FinishError {
        text: String,
        chunks: usize,
        message: String,
    },
    /// 429 with `retry-after-ms` (exposed to the page through CORS), no `retry-after`.
    RateLimitedMs(u64),
    /// A reasoning model's streamed reply: `reasoning_content` deltas, then this answer text
    /// (or, not streamed, both in one message).
    ReasonedText { reasoning: String, text: String },
    /// Answers with this text only after `delay`, as a slow local model writing a summary
    /// (nothing is sent before then, streamed or not).
    DelayedText { text: String, delay: Duration },
}

/// One request as the server saw it.
#[derive(Clone, Debug)]
#[allow(dead_code)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Recorded {
    /// The headers the page chose, beyond those the browser adds to every request by itself
    /// (host, connection, content-length, user-agent, accept*, origin, referer, sec-*).
    pub fn page_headers(&self) -> Vec<&str> {
        self.headers
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| {
                !matches!(
                    *name,
                    "host"
                        | "connection"
                        | "content-length"
                        | "user-agent"
                        | "accept"
                        | "accept-encoding"
                        | "accept-language"
                        | "origin"
                        | "referer"
                ) && !name.starts_with("sec-")
            })
            .collect()
    }
}

/// Decides a reply from the request itself, for runs whose calls come in an order a test should
/// not have to know (a probe matrix, two summarisers side by side). `None` falls through to the
/// echo.
pub type Responder = Arc<dyn Fn(&Value) -> Option<Reply> + Send + Sync>;

#[derive(Default)]
struct Inner {
    script: VecDeque<Reply>,
    responder: Option<Responder>,
    requests: Vec<Recorded>,
    reject_include_usage: bool,
    chunk_delay: Duration,
}

#[derive(Clone, Default)]
pub struct TestServer {
    inner: Arc<Mutex<Inner>>,
    pub base_url: String,
}

#[allow(dead_code)]
impl TestServer {
    /// Starts the server on a free loopback port, on the calling test's runtime.
    pub async fn start() -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = TestServer {
            inner: Arc::default(),
            base_url: format!("http://{addr}/v1"),
        };
        let app = Router::new().fallback(handle).with_state(server.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        server
    }

    /// Queues replies for the next chat completion requests, in order. Once the queue is empty
    /// the server echoes the last user message.
    pub fn script(&self, replies: impl IntoIterator<Item = Reply>) {
        self.inner.lock().unwrap().script.extend(replies);
    }

    /// Answers every request the script does not cover with what `responder` decides from its
    /// body (the model, the messages, the response format); when it returns `None`, the echo.
    pub fn respond_with(
        &self,
        responder: impl Fn(&Value) -> Option<Reply> + Send + Sync + 'static,
    ) {
        self.inner.lock().unwrap().responder = Some(Arc::new(responder));
    }

    /// Makes the server answer 400 to any request carrying `stream_options`, as some do.
    pub fn reject_include_usage(&self) {
        self.inner.lock().unwrap().reject_include_usage = true;
    }

    /// Slows streaming down so a test can press Stop mid-reply.
    pub fn chunk_delay(&self, delay: Duration) {
        self.inner.lock().unwrap().chunk_delay = delay;
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.inner.lock().unwrap().requests.clone()
    }
}

async fn handle(State(server): State<TestServer>, request: Request) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let headers = request.headers().clone();
    let bytes = axum::body::to_bytes(request.into_body(), 16 << 20)
        .await
        .unwrap_or_default();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    server.inner.lock().unwrap().requests.push(Recorded {
        method: method.to_string(),
        path: path.clone(),
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_owned()))
            .collect(),
        body: body.clone(),
    });

    let mut response = match (method, path.as_str()) {
        (Method::OPTIONS, _) => preflight(&headers),
        (Method::GET, "/v1/models") => Json(json!({
            "object": "list",
            "data": [
                {"id": "test-chat", "object": "model"},
                {"id": "test-summary", "object": "model"}
            ]
        })),
        (Method::POST, "/v1/chat/completions") => completion(&server, &body, &headers).await,
        _ => error(404, "not_found", &format!("no route for {path}")),
    };
    response.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

/// Allows exactly the two headers the app may send. A preflight asking for any other header
/// fails, as it does on providers with a strict CORS policy.
fn preflight(headers: &HeaderMap) -> Response {
    let asked = headers
        .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let allowed = asked
        .split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .all(|h| h == "authorization" || h == "content-type");
    if !allowed {
        return StatusCode::FORBIDDEN.into_response();
    }
    let mut response = StatusCode::NO_CONTENT.into_response();
    let h = response.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, OPTIONS"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("authorization, content-type"),
    );
    response
}

async fn completion(server: &TestServer, body: &Value, headers: &HeaderMap) -> Response {
    let (reply, responder, reject_usage, delay) = {
        let mut inner = server.inner.lock().unwrap();
        (
            inner.script.pop_front(),
            inner.responder.clone(),
            inner.reject_include_usage,
            inner.chunk_delay,
        )
    };
    if reject_usage && body.get("stream_options").is_some() {
        return error(
            400,
            "invalid_request_error",
            "Unrecognized request argument supplied: stream_options",
        );
    }
    let stream = body["stream"].as_bool().unwrap_or(false);
    let include_usage = body["stream_options"]["include_usage"]
        .as_bool()
        .unwrap_or(false);
    let model = body["model"].as_str().unwrap_or("test-chat").to_owned();
    let prompt_tokens = prompt_tokens(body);
    let reply = reply
        .or_else(|| responder.and_then(|decide| decide(body)))
        .unwrap_or_else(|| Reply::Text(echo(body)));
    match reply {
        Reply::Text(text) if stream => {
            sse(chunks(&model, &text, include_usage, prompt_tokens), delay)
        }
        Reply::Text(text) => Json(json!({
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": usage(prompt_tokens, &text),
        })),
        Reply::Status {
            status,
            body,
            retry_after,
        } => {
            let mut response = Json(body);
            *response.status_mut() = StatusCode::from_u16(status).unwrap();
            if let Some(value) = retry_after {
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_str(&value).unwrap());
            }
            response
        }
        Reply::MalformedJson => (
            [(header::CONTENT_TYPE, "application/json")],
            "{\"choices\": [ this is not json",
        )
            .into_response(),
        Reply::EmptyLength if stream => sse(
            vec![
                chunk(&model, json!({"role": "assistant", "content": ""}), None),
                chunk(&model, json!({}), Some("length")),
                "data: [DONE]\n\n".to_owned(),
            ],
            delay,
        ),
        Reply::EmptyLength => Json(json!({
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "length"}],
            "usage": usage(prompt_tokens, ""),
        })),
        Reply::CutAfter { text, chunks: n } => {
            let mut events = chunks(&model, &text, false, prompt_tokens);
            events.truncate(n);
            sse(events, delay)
        }
        Reply::ErrorMidStream {
            text,
            chunks: n,
            message,
        } => {
            let mut events = chunks(&model, &text, false, prompt_tokens);
            events.truncate(n);
            events.push(format!(
                "data: {}\n\n",
                json!({"error": {"message": message, "type": "server_error"}})
            ));
            sse(events, delay)
        }
        Reply::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            StatusCode::GATEWAY_TIMEOUT.into_response()
        }
        Reply::EchoAuthorization => {
            let sent = headers
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("none");
            error(
                400,
                "invalid_request_error",
                &format!("proxy rejected the request headers: Authorization: {sent}"),
            )
        }
        Reply::ReasoningOnly { reasoning, finish } => {
            let half = reasoning.len() / 2;
            let half = (0..=half).rev().find(|&i| reasoning.is_char_boundary(i)).unwrap_or(0);
            sse(
                vec![
                    chunk(&model, json!({"role": "assistant", "content": "", "reasoning_content": &reasoning[..half]}), None),
                    chunk(&model, json!({"reasoning": &reasoning[half..]}), None),
                    chunk(&model, json!({}), Some(&finish)),
                    "data: [DONE]\n\n".to_owned(),
                ],
                delay,
            )
        }
        Reply::JsonToStream(text) => Json(json!({
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": usage(prompt_tokens, &text),
        })),
        Reply::Html => (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            "<!DOCTYPE html><html><head><title>Sign in to the proxy</title></head><body>Access denied</body></html>",
        )
            .into_response(),
        Reply::FinishError {
            text,
            chunks: n,
            message,
        } => {
            let mut events = chunks(&model, &text, false, prompt_tokens);
            events.truncate(n);
            events.push(format!(
                "data: {}\n\n",
                json!({"id": "chatcmpl-test", "object": "chat.completion.chunk", "model": model,
                       "error": {"code": 502, "message": message},
                       "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}]})
            ));
            events.push("data: [DONE]\n\n".to_owned());
            sse(events, delay)
        }
        Reply::ReasonedText { reasoning, text } if stream => {
            let mut events = vec![
                chunk(&model, json!({"role": "assistant", "content": "", "reasoning_content": &reasoning}), None),
            ];
            events.extend(chunks(&model, &text, include_usage, prompt_tokens));
            sse(events, delay)
        }
        Reply::ReasonedText { reasoning, text } => Json(json!({
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "reasoning_content": reasoning}, "finish_reason": "stop"}],
            "usage": usage(prompt_tokens, &text),
        })),
        Reply::DelayedText { text, delay: wait } => {
            tokio::time::sleep(wait).await;
            if stream {
                sse(chunks(&model, &text, include_usage, prompt_tokens), delay)
            } else {
                Json(json!({
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "model": model,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                    "usage": usage(prompt_tokens, &text),
                }))
            }
        }
        Reply::RateLimitedMs(ms) => {
            let mut response = error(429, "rate_limit_exceeded", "Rate limit reached");
            let h = response.headers_mut();
            h.insert("retry-after-ms", HeaderValue::from_str(&ms.to_string()).unwrap());
            h.insert(
                header::ACCESS_CONTROL_EXPOSE_HEADERS,
                HeaderValue::from_static("retry-after-ms"),
            );
            response
        }
    }
}

/// The SSE events of a streamed reply: the content split into pieces of three characters (so
/// multi-byte characters and words land in different chunks), the finish chunk, the usage chunk
/// when asked for, and [DONE].
fn chunks(model: &str, text: &str, include_usage: bool, prompt_tokens: u64) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut events: Vec<String> = chars
        .chunks(3)
        .enumerate()
        .map(|(i, piece)| {
            let piece: String = piece.iter().collect();
            let delta = if i == 0 {
                json!({"role": "assistant", "content": piece})
            } else {
                json!({"content": piece})
            };
            chunk(model, delta, None)
        })
        .collect();
    events.push(chunk(model, json!({}), Some("stop")));
    if include_usage {
        events.push(format!(
            "data: {}\n\n",
            json!({"id": "chatcmpl-test", "object": "chat.completion.chunk", "model": model,
                   "choices": [], "usage": usage(prompt_tokens, text)})
        ));
    }
    events.push("data: [DONE]\n\n".to_owned());
    events
}

fn chunk(model: &str, delta: Value, finish: Option<&str>) -> String {
    format!(
        "data: {}\n\n",
        json!({"id": "chatcmpl-test", "object": "chat.completion.chunk", "model": model,
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    )
}

/// Sends the events as an SSE body. Each event is written in two halves, split mid-way through
/// its bytes, so the client's parser sees lines and UTF-8 characters cut across reads.
fn sse(events: Vec<String>, delay: Duration) -> Response {
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, Infallible>>(4);
    tokio::spawn(async move {
        let _ = tx.send(Ok(Bytes::from_static(b": keep-alive\n\n"))).await;
        for event in events {
            let bytes = event.into_bytes();
            let mid = bytes.len() / 2;
            for part in [bytes[..mid].to_vec(), bytes[mid..].to_vec()] {
                if tx.send(Ok(Bytes::from(part))).await.is_err() {
                    return;
                }
            }
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
        }
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(ReceiverStream::new(rx)))
        .unwrap()
}

fn echo(body: &Value) -> String {
    let last_user = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or("");
    format!("You said: {last_user}")
}

/// A stand-in for the server's own count: words, which is enough to tell requests apart.
fn prompt_tokens(body: &Value) -> u64 {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["content"].as_str())
        .map(|c| c.split_whitespace().count() as u64)
        .sum()
}

fn usage(prompt_tokens: u64, text: &str) -> Value {
    let completion = text.split_whitespace().count() as u64;
    json!({"prompt_tokens": prompt_tokens, "completion_tokens": completion,
           "total_tokens": prompt_tokens + completion})
}

fn error(status: u16, kind: &str, message: &str) -> Response {
    let mut response = Json(json!({"error": {"message": message, "type": kind}}));
    *response.status_mut() = StatusCode::from_u16(status).unwrap();
    response
}

#[allow(non_snake_case)]
fn Json(value: Value) -> Response {
    axum::Json(value).into_response()
}
