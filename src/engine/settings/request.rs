//! The checked values requests are built from: the [`Endpoint`] the client reaches, and the
//! chat and summary requests of [`ValidSettings`].

use crate::engine::openai::{ChatMessage, ChatRequest, Purpose};

/// The checked connection: what the fetch client needs to reach the server.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Without a trailing slash; paths such as `/models` are appended.
    pub base_url: String,
    /// Sent as `Authorization: Bearer ...` when present.
    pub api_key: Option<String>,
    /// How long to wait for a response, and between two chunks of a streamed one.
    pub timeout_ms: u64,
}

/// Settings that passed validation, ready to build requests from.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidSettings {
    pub endpoint: Endpoint,
    pub chat_model: String,
    pub summary_model: String,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub reasoning_effort: Option<String>,
    pub stream: bool,
    /// What summary requests are generated with: the summariser's own values over the chat's.
    pub summary: Generation,
}

/// The generation settings of one kind of request; `None` leaves a field out of the request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Generation {
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub reasoning_effort: Option<String>,
}

impl Endpoint {
    /// The full URL of an API path such as `models` or `chat/completions`.
    pub fn url(&self, path: &str) -> String {
        format!("{}/{}", self.base_url, path.trim_start_matches('/'))
    }
}

/// Written by hand so that the API key never reaches a log through `{:?}`.
impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("base_url", &self.base_url)
            .field(
                "api_key",
                &self.api_key.as_deref().map(redacted).unwrap_or("none"),
            )
            .field("timeout_ms", &self.timeout_ms)
            .finish()
    }
}

impl ValidSettings {
    /// A chat request with the chat model and the generation settings.
    pub fn chat_request(&self, messages: Vec<ChatMessage>) -> ChatRequest {
        self.request(&self.chat_model, messages)
            .streaming(self.stream)
    }

    /// A summariser request: the summary model with the summariser's own generation settings,
    /// never streamed, since the summary is only used once it is complete.
    pub fn summary_request(&self, messages: Vec<ChatMessage>) -> ChatRequest {
        let mut request = ChatRequest::new(&self.summary_model, messages).purpose(Purpose::Summary);
        request.temperature = self.summary.temperature;
        request.max_tokens = self.summary.max_tokens;
        request.reasoning_effort = self.summary.reasoning_effort.clone();
        request
    }

    fn request(&self, model: &str, messages: Vec<ChatMessage>) -> ChatRequest {
        let mut request = ChatRequest::new(model, messages);
        request.temperature = self.temperature;
        request.max_tokens = self.max_tokens;
        request.reasoning_effort = self.reasoning_effort.clone();
        request
    }
}

/// How a key is shown in `{:?}` output: never itself.
pub(super) fn redacted(key: &str) -> &'static str {
    if key.is_empty() { "none" } else { "<redacted>" }
}
