//! How a request of the live chat ended: a chat request as the shell saw it ([`ReplyEnd`]) or
//! performed it ([`ChatEnd`]), a summariser request's text ([`summary_text`]), and how long a
//! summariser request may take ([`summary_timeout_ms`]).

use crate::engine::openai::{ApiError, StreamEnd};

/// How a chat request ended, as the shell saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplyEnd {
    /// The whole reply arrived.
    Complete(String),
    /// The user pressed Stop; the text received so far.
    Stopped(String),
    /// The request failed (the error's message), with any text received before it did.
    Failed { partial: String, error: String },
    /// The request was longer than the model's context window (the error's message); nothing
    /// of a reply arrived.
    TooLong(String),
}

/// How a chat request ended, as the shell performed it.
#[derive(Clone, Debug, PartialEq)]
pub enum ChatEnd {
    /// Not streamed: the shell holds the whole reply, or what ended it.
    Whole(ReplyEnd),
    /// Streamed: the reply is the text its pieces brought, which the session kept
    /// ([`super::LiveSession::arrived`]); the stream ended so.
    Streamed(StreamEnd),
}

impl From<ReplyEnd> for ChatEnd {
    fn from(end: ReplyEnd) -> ChatEnd {
        ChatEnd::Whole(end)
    }
}

impl ReplyEnd {
    /// How a non-streamed chat request ended: `Ok(None)` is the user's Stop, before any text.
    pub fn of_completion(reply: Result<Option<String>, ApiError>) -> ReplyEnd {
        match reply {
            Ok(Some(text)) => ReplyEnd::Complete(text),
            Ok(None) => ReplyEnd::Stopped(String::new()),
            Err(error) => ReplyEnd::of_error(String::new(), &error),
        }
    }

    /// How a streamed chat request ended, with `arrived`, the text its pieces brought.
    pub fn of_stream(arrived: String, end: StreamEnd) -> ReplyEnd {
        match end {
            StreamEnd::Complete => ReplyEnd::Complete(arrived),
            StreamEnd::Stopped => ReplyEnd::Stopped(arrived),
            StreamEnd::Failed(error) => ReplyEnd::of_error(arrived, &error),
        }
    }

    /// How a request that failed with `error` ended, with the text that arrived before it.
    pub fn of_error(partial: String, error: &ApiError) -> ReplyEnd {
        match error {
            ApiError::ContextTooLong { .. } if partial.is_empty() => {
                ReplyEnd::TooLong(error.to_string())
            }
            _ => ReplyEnd::Failed {
                partial,
                error: error.to_string(),
            },
        }
    }
}

/// The summary text a summariser request produced, or why there is none (a stopped request
/// counts as a failure, which the memory records and Retry redoes).
pub fn summary_text(reply: Result<Option<String>, ApiError>) -> Result<String, String> {
    match reply {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Err("the summary request was stopped".to_owned()),
        Err(error) => Err(error.to_string()),
    }
}

/// How long a summariser request may take, given the chat's timeout. A summary is not
/// streamed, so nothing arrives until the whole text is written, which takes a slow local
/// model far longer than the first words of a chat reply: it gets four times the chat's
/// timeout, and never less than five minutes. Stop ends it sooner.
pub fn summary_timeout_ms(chat_timeout_ms: u64) -> u64 {
    const FLOOR_MS: u64 = 5 * 60 * 1000;
    chat_timeout_ms.saturating_mul(4).max(FLOOR_MS)
}
