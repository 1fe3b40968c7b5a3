//! The OpenAI-compatible client over the browser's `fetch`.
//!
//! Architecture invariant: this module performs requests and nothing else. Request bodies,
//! response decoding, SSE parsing, error classification and retry timing all come from the pure
//! core ([`crate::engine::openai`], [`crate::engine::sse`]); this file only moves bytes, runs
//! timers and aborts. Every failure is a core [`ApiError`], so the chat and the summariser share
//! one error story.
//!
//! A streamed reply is read through the response's `ReadableStream` into the core's SSE parser
//! (or read whole when the server did not stream). Stop and timeouts abort through an
//! `AbortController`. A 429, a 5xx or a timeout is sent again after the core's backoff.
//!
//! Requests carry only `Authorization` (when a key is set) and `Content-Type` (when there is a
//! body): any other header would need the server's CORS preflight to allow it, and local servers
//! rarely do. The key goes into that header and nowhere else: every text a server sends back
//! is passed through the core's [`redact`] before it is parsed or becomes a message, and every
//! error leaves through [`ApiError::redacted`], so a proxy that echoes the header cannot put the
//! key on the page, in a stored failure or in an export.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;

use gloo_net::http::{Request, RequestBuilder, Response};
use gloo_timers::callback::Timeout;
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, ReadableStreamDefaultReader, ReadableStreamReadResult};

use crate::engine::openai::{
    ApiError, BodyKind, ChatRequest, ChatResponse, StreamDecoder, StreamEvent, Usage,
    backoff_delay_ms, body_kind, classify_http_waiting, decode_whole_reply, parse_chat_response,
    parse_models, redact, rejects_include_usage, server_wait_ms,
};
use crate::engine::settings::Endpoint;
use crate::engine::sse::SseParser;

type RetryHook = Rc<dyn Fn(&RetryNotice)>;

/// How many times a rate-limited (429) or failed (5xx) request is sent again.
pub const MAX_RETRIES: u32 = 2;

/// A client for one endpoint. Cheap to clone; build one per request from the current settings.
#[derive(Clone)]
pub struct Client {
    endpoint: Endpoint,
    on_retry: Option<RetryHook>,
}

/// Stops a request: aborts the fetch in flight, ends a stream, and cancels a wait between
/// retries. Create one per request and keep a clone for the Stop button.
#[derive(Clone, Default)]
pub struct StopHandle {
    inner: Rc<StopInner>,
}

/// Told to the [`Client::on_retry`] callback before each wait, so the UI can say why it pauses.
#[derive(Clone, Debug, PartialEq)]
pub struct RetryNotice {
    /// 1 for the first retry.
    pub retry: u32,
    pub delay_ms: u64,
    pub error: ApiError,
}

/// How a streamed request ended, and what came with the reply's text. The text itself is
/// only handed to the caller piece by piece (`on_delta` of [`Client::stream`]), which keeps
/// it, also when the stream was stopped or failed part-way.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamReply {
    /// The model's visible reasoning, apart from the answer; empty if none arrived.
    pub reasoning: String,
    pub finish_reason: Option<String>,
    pub usage: Option<Usage>,
    pub end: StreamEnd,
}

/// How a stream ended, decided in the core (its stream decoder names a body that closed early).
pub use crate::engine::openai::StreamEnd;

impl Client {
    pub fn new(endpoint: Endpoint) -> Self {
        Client {
            endpoint,
            on_retry: None,
        }
    }

    /// Calls `notify` before each wait between retries.
    pub fn on_retry(mut self, notify: impl Fn(&RetryNotice) + 'static) -> Self {
        self.on_retry = Some(Rc::new(notify));
        self
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// `GET {base}/models`: the ids of the models the server offers.
    pub async fn list_models(&self) -> Result<Vec<String>, ApiError> {
        let stop = StopHandle::new();
        let (response, attempt) = match self.open(None, &stop).await {
            Ok(opened) => opened,
            Err(halt) => return Err(halt.into_error()),
        };
        let text = read_text(&response, &attempt, &stop, &self.endpoint)
            .await
            .map_err(|halt| self.scrub(halt.into_error()))?;
        parse_models(&self.redact(&text)).map_err(|error| self.scrub(error))
    }

    /// A non-streaming chat completion. `Ok(None)` means the user stopped it.
    pub async fn complete(
        &self,
        request: &ChatRequest,
        stop: &StopHandle,
    ) -> Result<Option<ChatResponse>, ApiError> {
        let request = request.clone().streaming(false);
        let opened = self.open(Some(&request), stop).await;
        let result = match opened {
            Ok((response, attempt)) => read_text(&response, &attempt, stop, &self.endpoint).await,
            Err(halt) => Err(halt),
        };
        match result {
            Ok(text) => parse_chat_response(&self.redact(&text), request.max_tokens).map(Some),
            Err(Halt::Stopped) => Ok(None),
            Err(Halt::Error(error)) => Err(error),
        }
        .map_err(|error| self.scrub(error))
    }

    /// A streamed chat completion. Each piece of text is passed to `on_delta` as it arrives,
    /// and only there; the returned [`StreamReply`] says how the stream ended.
    pub async fn stream(
        &self,
        request: &ChatRequest,
        stop: &StopHandle,
        mut on_delta: impl FnMut(&str),
    ) -> StreamReply {
        let request = request.clone().streaming(true);
        let mut reply = StreamReply {
            reasoning: String::new(),
            finish_reason: None,
            usage: None,
            end: StreamEnd::Complete,
        };
        match self.open(Some(&request), stop).await {
            Ok((response, attempt))
                if body_kind(response.headers().get("content-type").as_deref())
                    == BodyKind::Whole =>
            {
                // The server ignored `stream: true` (plain JSON), or something that is not a
                // chat server answered; the core decodes the whole body or names it.
                reply.end = match read_text(&response, &attempt, stop, &self.endpoint).await {
                    Ok(text) => match decode_whole_reply(&self.redact(&text), request.max_tokens) {
                        Ok(whole) => {
                            on_delta(&whole.content);
                            reply.reasoning = whole.reasoning;
                            reply.finish_reason = whole.finish_reason;
                            reply.usage = whole.usage;
                            StreamEnd::Complete
                        }
                        Err(error) => StreamEnd::Failed(error),
                    },
                    Err(halt) => halt.into_end(),
                };
            }
            Ok((response, attempt)) => {
                let mut decoder = StreamDecoder::new(request.max_tokens);
                reply.end = pump(
                    &response,
                    &attempt,
                    stop,
                    &self.endpoint,
                    &mut decoder,
                    &mut reply,
                    &mut on_delta,
                )
                .await;
                reply.reasoning = decoder.reasoning().to_owned();
            }
            Err(halt) => reply.end = halt.into_end(),
        }
        if let StreamEnd::Failed(error) = reply.end {
            reply.end = StreamEnd::Failed(self.scrub(error));
        }
        reply
    }

    /// `text` without the key (see [`redact`]).
    fn redact(&self, text: &str) -> String {
        match &self.endpoint.api_key {
            Some(key) => redact(text, key),
            None => text.to_owned(),
        }
    }

    /// `error` without the key in any of its texts.
    fn scrub(&self, error: ApiError) -> ApiError {
        match &self.endpoint.api_key {
            Some(key) => error.redacted(key),
            None => error,
        }
    }

    /// Sends a request and returns a successful response, retrying 429 and 5xx answers and
    /// dropping `stream_options` once if the server rejects it. `request` is `None` for
    /// `GET /models`.
    async fn open(
        &self,
        request: Option<&ChatRequest>,
        stop: &StopHandle,
    ) -> Result<(Response, Attempt), Halt> {
        let mut retry = 0;
        loop {
            let attempt = Attempt::start(stop, &self.endpoint)?;
            let body = request.map(|request| {
                if skips_include_usage(&self.endpoint.base_url) {
                    request.clone().without_include_usage().to_json()
                } else {
                    request.to_json()
                }
            });
            let sent = self
                .build(body.as_deref(), &attempt)
                .map_err(|e| Halt::Error(network_error(&self.endpoint.base_url, e)))?
                .send()
                .await;
            let error = match sent {
                Ok(response) if response.ok() => return Ok((response, attempt)),
                Ok(response) => {
                    let status = response.status();
                    // Only readable when the server lists them in Access-Control-Expose-Headers;
                    // the core also finds the wait in the message ("try again in 7.5s").
                    let headers = response.headers();
                    let wait = server_wait_ms(
                        headers.get("retry-after-ms").as_deref(),
                        headers.get("retry-after").as_deref(),
                        now_ms(),
                    );
                    let text =
                        self.redact(&read_text(&response, &attempt, stop, &self.endpoint).await?);
                    drop(attempt);
                    if let Some(request) = request
                        && request.stream
                        && request.include_usage
                        && !skips_include_usage(&self.endpoint.base_url)
                        && rejects_include_usage(status, &text)
                    {
                        remember_skips_include_usage(&self.endpoint.base_url);
                        continue;
                    }
                    classify_http_waiting(status, &text, wait)
                }
                // A fetch that timed out is retried like a 5xx; Stop and network failures
                // (CORS, a stopped server) end here.
                Err(error) => match attempt.halt(stop, &self.endpoint, &detail_of(&error)) {
                    Halt::Error(error @ ApiError::Timeout { .. }) => error,
                    halt => return Err(halt),
                },
            };
            let error = match request {
                Some(request) => error.for_purpose(request.purpose),
                None => error,
            };
            if !error.is_retryable() || retry >= MAX_RETRIES {
                return Err(Halt::Error(error));
            }
            let delay_ms = backoff_delay_ms(retry, error.retry_after_ms(), js_sys::Math::random());
            retry += 1;
            if let Some(notify) = &self.on_retry {
                notify(&RetryNotice {
                    retry,
                    delay_ms,
                    error,
                });
            }
            sleep(delay_ms, stop).await?;
        }
    }

    fn build(&self, body: Option<&str>, attempt: &Attempt) -> Result<Request, String> {
        let signal = attempt.controller.signal();
        let mut builder = match body {
            Some(_) => RequestBuilder::new(&self.endpoint.url("chat/completions"))
                .method(gloo_net::http::Method::POST)
                .header("Content-Type", "application/json"),
            None => RequestBuilder::new(&self.endpoint.url("models")),
        };
        if let Some(key) = &self.endpoint.api_key {
            builder = builder.header("Authorization", &format!("Bearer {key}"));
        }
        let builder = builder.abort_signal(Some(&signal));
        match body {
            Some(body) => builder.body(body.to_owned()),
            None => builder.build(),
        }
        .map_err(|error| error.to_string())
    }
}

impl StopHandle {
    pub fn new() -> Self {
        StopHandle::default()
    }

    /// Aborts what is in flight; later attempts of the same request are not made.
    pub fn stop(&self) {
        self.inner.stopped.set(true);
        if let Some(controller) = self.inner.controller.borrow().as_ref() {
            controller.abort();
        }
    }

    pub fn is_stopped(&self) -> bool {
        self.inner.stopped.get()
    }
}

impl StreamReply {
    /// The reply is partial: stopped, or failed after some text arrived.
    pub fn is_incomplete(&self) -> bool {
        !matches!(self.end, StreamEnd::Complete)
    }
}

/// Whether requests to this base URL leave out `stream_options`, because the server rejected
/// it earlier in this session.
pub fn skips_include_usage(base_url: &str) -> bool {
    NO_INCLUDE_USAGE.with(|set| set.borrow().contains(base_url))
}

#[derive(Default)]
struct StopInner {
    stopped: Cell<bool>,
    /// The controller of the attempt in flight.
    controller: RefCell<Option<AbortController>>,
}

thread_local! {
    /// Base URLs whose server rejected `stream_options`, remembered for the session only: a
    /// server upgrade may fix it, and a reload is a cheap way to find out.
    static NO_INCLUDE_USAGE: RefCell<HashSet<String>> = RefCell::new(HashSet::new());
}

fn remember_skips_include_usage(base_url: &str) {
    NO_INCLUDE_USAGE.with(|set| set.borrow_mut().insert(base_url.to_owned()));
}

/// Why a request ended early, inside this module.
enum Halt {
    Stopped,
    Error(ApiError),
}

impl Halt {
    /// For callers that offer no Stop (the model list), where `Stopped` cannot occur; it is
    /// still mapped to a readable error rather than a panic.
    fn into_error(self) -> ApiError {
        match self {
            Halt::Error(error) => error,
            Halt::Stopped => ApiError::Server {
                status: None,
                message: "the request was stopped".into(),
            },
        }
    }

    fn into_end(self) -> StreamEnd {
        match self {
            Halt::Stopped => StreamEnd::Stopped,
            Halt::Error(error) => StreamEnd::Failed(error),
        }
    }
}

/// One try of a request: its abort controller and the timeout that fires it.
struct Attempt {
    controller: AbortController,
    timed_out: Rc<Cell<bool>>,
    timer: RefCell<Option<Timeout>>,
    timeout_ms: u64,
}

impl Attempt {
    fn start(stop: &StopHandle, endpoint: &Endpoint) -> Result<Attempt, Halt> {
        if stop.is_stopped() {
            return Err(Halt::Stopped);
        }
        let controller = AbortController::new().map_err(|_| {
            Halt::Error(network_error(
                &endpoint.base_url,
                "this browser cannot abort requests",
            ))
        })?;
        *stop.inner.controller.borrow_mut() = Some(controller.clone());
        let attempt = Attempt {
            controller,
            timed_out: Rc::new(Cell::new(false)),
            timer: RefCell::new(None),
            timeout_ms: endpoint.timeout_ms,
        };
        attempt.arm();
        Ok(attempt)
    }

    /// (Re)starts the timeout. Called before the request and before each read of a stream, so
    /// a long reply that keeps arriving is never cut, but a silent server is.
    fn arm(&self) {
        let controller = self.controller.clone();
        let timed_out = self.timed_out.clone();
        let millis = u32::try_from(self.timeout_ms).unwrap_or(u32::MAX);
        // Replacing the old timer drops it, which cancels it.
        *self.timer.borrow_mut() = Some(Timeout::new(millis, move || {
            timed_out.set(true);
            controller.abort();
        }));
    }

    /// What a rejected fetch or read means: the user's Stop, our timeout, or the network.
    fn halt(&self, stop: &StopHandle, endpoint: &Endpoint, detail: &str) -> Halt {
        if stop.is_stopped() {
            Halt::Stopped
        } else if self.timed_out.get() {
            Halt::Error(ApiError::Timeout {
                after_ms: Some(self.timeout_ms),
            })
        } else {
            Halt::Error(network_error(&endpoint.base_url, detail))
        }
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        // Cancels the timer; the controller stays registered so a late Stop is still harmless.
        self.timer.borrow_mut().take();
    }
}

async fn read_text(
    response: &Response,
    attempt: &Attempt,
    stop: &StopHandle,
    endpoint: &Endpoint,
) -> Result<String, Halt> {
    response
        .text()
        .await
        .map_err(|error| attempt.halt(stop, endpoint, &detail_of(&error)))
}

/// The browser's own words for a failure ("Failed to fetch"), without the error's type name.
fn detail_of(error: &gloo_net::Error) -> String {
    match error {
        gloo_net::Error::JsError(js) => js.message.clone(),
        other => other.to_string(),
    }
}

/// Reads the body chunk by chunk into the SSE parser and the stream decoder, handing each piece
/// to `on_delta` and the usage and finish reason to `reply`; the decoder decides how it ended.
async fn pump(
    response: &Response,
    attempt: &Attempt,
    stop: &StopHandle,
    endpoint: &Endpoint,
    decoder: &mut StreamDecoder,
    reply: &mut StreamReply,
    on_delta: &mut impl FnMut(&str),
) -> StreamEnd {
    let Some(body) = response.body() else {
        return StreamEnd::Failed(ApiError::MalformedJson {
            detail: "the streamed reply had no body".into(),
        });
    };
    let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let mut parser = SseParser::new();
    loop {
        attempt.arm();
        let read = match JsFuture::from(reader.read()).await {
            Ok(read) => read.unchecked_into::<ReadableStreamReadResult>(),
            Err(error) => {
                // A rejected read carries a TypeError or an AbortError DOMException; both
                // have a message, but a custom abort reason might not.
                let detail = js_sys::Reflect::get(&error, &"message".into())
                    .ok()
                    .and_then(|m| m.as_string())
                    .unwrap_or_else(|| "the connection broke".into());
                return attempt.halt(stop, endpoint, &detail).into_end();
            }
        };
        let finished = read.get_done().unwrap_or(false);
        let events = if finished {
            parser.finish()
        } else {
            parser.push(&js_sys::Uint8Array::new(&read.get_value()).to_vec())
        };
        let mut decoded: Vec<StreamEvent> = events
            .into_iter()
            .flat_map(|mut event| {
                // Whole events, so a key is never cut in two before it is removed.
                if let Some(key) = &endpoint.api_key {
                    event.data = redact(&event.data, key);
                }
                decoder.decode(&event)
            })
            .collect();
        if finished {
            decoded.extend(decoder.finish());
        }
        for event in decoded {
            match event {
                StreamEvent::Delta(text) => on_delta(&text),
                StreamEvent::Usage(usage) => reply.usage = Some(usage),
                StreamEvent::Finish(reason) => reply.finish_reason = Some(reason),
                StreamEvent::Error(error) => {
                    // Ignored if the body is still open: the server may keep it so.
                    let _ = reader.cancel();
                    return StreamEnd::Failed(error);
                }
                StreamEvent::Done => {
                    let _ = reader.cancel();
                    return StreamEnd::Complete;
                }
            }
        }
    }
}

/// Waits between retries in short steps, so Stop takes effect within a tenth of a second.
async fn sleep(delay_ms: u64, stop: &StopHandle) -> Result<(), Halt> {
    const STEP_MS: u64 = 100;
    let mut left = delay_ms;
    while left > 0 {
        if stop.is_stopped() {
            return Err(Halt::Stopped);
        }
        let step = left.min(STEP_MS);
        TimeoutFuture::new(step as u32).await;
        left -= step;
    }
    if stop.is_stopped() {
        return Err(Halt::Stopped);
    }
    Ok(())
}

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// A network error as this page sees it: its fix names the page's own origin
/// ([`ApiError::for_origin`]).
fn network_error(base_url: &str, detail: impl Into<String>) -> ApiError {
    let origin = web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default();
    ApiError::network(base_url, detail).for_origin(&origin)
}
