//! Request bodies for `POST {base_url}/chat/completions`: the chat and the summariser jobs
//! build the same [`ChatRequest`], and [`rejects_include_usage`] says when a server refuses the
//! usage option so the client can send again without it.

use serde_json::Value;

use crate::engine::message::{ChatMessage, Message, Role};

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
    /// What the request is for, so an error can name it; not sent.
    pub purpose: Purpose,
    /// Sent as `response_format` when set: a JSON schema the reply must follow (the probes'
    /// judge asks for its grade so).
    pub response_format: Option<Value>,
}

/// What a request is for: the conversation, or a summary of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Purpose {
    #[default]
    Chat,
    Summary,
}

impl ChatMessage {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        ChatMessage {
            role,
            content: content.into(),
        }
    }
}

impl From<&Message> for ChatMessage {
    /// Tool traffic goes as readable text (an endpoint refuses a `tool` message without the
    /// call id and tool definitions it belongs to): calls in the assistant's text, a result as
    /// a user message.
    fn from(message: &Message) -> Self {
        let role = match message.role {
            Role::Tool => Role::User,
            role => role,
        };
        ChatMessage::new(role, message.readable().into_owned())
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
            purpose: Purpose::Chat,
            response_format: None,
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

    pub fn purpose(mut self, purpose: Purpose) -> Self {
        self.purpose = purpose;
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
        if let Some(format) = &self.response_format {
            object.insert("response_format".into(), format.clone());
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

/// True when a 400 or 422 reply complains about `stream_options` / `include_usage`: the client
/// then retries once without it and remembers that for the base URL.
pub fn rejects_include_usage(status: u16, body: &str) -> bool {
    matches!(status, 400 | 422)
        && (body.contains("stream_options") || body.contains("include_usage"))
}
