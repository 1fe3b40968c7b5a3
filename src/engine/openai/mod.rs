//! The OpenAI-compatible wire format as pure data: request bodies, response and stream
//! decoding, error classification, retry timing and provider presets.
//!
//! Architecture invariant: nothing here sends a request or reads a clock. The shell's fetch
//! client builds the body with [`ChatRequest::to_json`], feeds the response (or the SSE events
//! from [`crate::engine::sse`]) back in, and asks [`classify_http`] what a failure means. The
//! summariser jobs use the same types, so the chat and the summaries share one error story.//!
//! One concept per file: [`request`] builds the bodies, [`reply`] decodes replies and streams,
//! [`error`] classifies failures into [`ApiError`] with its next-step messages, [`retry`] is
//! the backoff arithmetic, [`origin`] a URL's `scheme://host:port` (what a key is bound to and
//! what provider detection compares), and [`providers`] the Settings presets.

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
