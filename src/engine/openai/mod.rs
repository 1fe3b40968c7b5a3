//! The OpenAI-compatible wire format as pure data: request bodies, response and stream
//! decoding, error classification, retry timing and provider presets.
//!
//! Architecture invariant: nothing here sends a request or reads a clock. The shell's fetch
//! client builds the body with [`ChatRequest::to_json`], feeds the response (or the SSE events
//! from [`crate::engine::sse`]) back in, and asks [`classify_http`] what a failure means. The
//! summariser jobs use the same types, so the chat and the summaries share one error story.
//!
//! A stream's end is decided here too: when the body closes, [`StreamDecoder::finish`] emits
//! the events that say how it ended (an error first when neither `[DONE]` nor a finish_reason
//! came), so the client only forwards the pieces and reports a [`StreamEnd`], and the text is
//! kept once, by `app::live::LiveSession`. A reply's reasoning is kept apart from its text; a reply with no
//! answer text is [`ApiError::NoAnswer`]; a whole body sent back to a streamed request is
//! decoded, or named [`ApiError::NotChatReply`]; a request too long is
//! [`ApiError::ContextTooLong`], naming the request and the excess; and [`redact`] takes the
//! key out of any text shown or logged.
//!
//! One concept per file: [`request`] builds the bodies, [`reply`] decodes replies and streams,
//! [`error`] classifies failures into [`ApiError`] with its next-step messages, [`retry`] is
//! the backoff arithmetic (with `retry-after-ms` and `retry-after`), [`origin`] a URL's `scheme://host:port` (what a key is bound to and
//! what provider detection compares), and [`providers`] the Settings presets, detected by exact host.

pub mod error;
pub mod origin;
pub mod providers;
pub mod reply;
pub mod request;
pub mod retry;

#[cfg(test)]
mod tests;

pub use super::message::ChatMessage;
pub use error::{ApiError, REDACTED, classify_http, classify_http_waiting, redact};
pub use origin::Origin;
pub use providers::{PROVIDERS, Provider, detect_provider};
pub use reply::{
    BodyKind, ChatResponse, StreamDecoder, StreamEnd, StreamEvent, Usage, body_kind,
    decode_whole_reply, parse_chat_response, parse_models,
};
pub use request::{ChatRequest, Purpose, rejects_include_usage};
pub use retry::{backoff_delay_ms, parse_retry_after, server_wait_ms};
