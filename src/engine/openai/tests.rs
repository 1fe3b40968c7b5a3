//! Tests of the wire format: request bodies, replies and streams, error classes and their
//! messages, retry timing and the provider presets.

use serde_json::{Value, json};

use super::*;
use crate::engine::message::{Message, Role};
use crate::engine::sse::parse_all;

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
            reasoning: String::new(),
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
            reasoning: String::new(),
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
    decode_until(body, max_tokens, StreamDecoder::end)
}

/// The events of a whole streamed body, then what `close` emits at its end.
fn decode_until(
    body: &str,
    max_tokens: Option<u32>,
    close: fn(&mut StreamDecoder) -> Vec<StreamEvent>,
) -> Vec<StreamEvent> {
    let mut decoder = StreamDecoder::new(max_tokens);
    let mut out: Vec<StreamEvent> = parse_all(body.as_bytes())
        .iter()
        .flat_map(|event| decoder.decode(event))
        .collect();
    out.extend(close(&mut decoder));
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
        // Issue 13: a context overflow is its own error, with the way out, not a generic 400.
        ApiError::ContextTooLong {
            purpose: None,
            requested: None,
            limit: Some(8192),
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
    assert!(message.starts_with("Could not reach http://localhost:11434/v1 (Failed to fetch)."));
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
    assert_eq!(
        detect_provider("http://192.168.1.5:11434/v1").map(|p| p.id),
        Some("ollama")
    );
    assert_eq!(
        detect_provider("HTTPS://API.OPENAI.COM/v1").map(|p| p.id),
        Some("openai")
    );
}

/// Detection once matched substrings, so a look-alike host was taken for OpenAI and shown
/// OpenAI's note; it now compares the host exactly.
#[test]
fn provider_detection_is_not_fooled_by_look_alike_hosts() {
    for url in [
        "https://api.openai.com.evil.example/v1",
        "https://evil.example/api.openai.com/v1",
        "https://api.openai.com@evil.example/v1",
        "https://api.openai.com:443@evil.example/v1",
        "https://evil.example/?u=api.openai.com",
        "https://notapi.openai.com/v1",
        "https://xapi.groq.com/openai/v1",
        "https://openrouter.ai.evil.example/api/v1",
        "https://evil.example/openrouter.ai",
        "https://evil.example/x:11434/v1",
    ] {
        assert_eq!(detect_provider(url).map(|p| p.id), None, "{url}");
    }
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

/// A proxy that echoes the Authorization header in its error text put the key into the
/// message that is shown and saved with a summariser failure; every text is now redacted.
#[test]
fn redaction_removes_the_key_and_its_bearer_form() {
    let key = "sk-proj-Abc/123+xyz";
    let body = format!(
        r#"{{"error": {{"message": "bad header Authorization: Bearer {key}; echo {key}", "type": "invalid_request_error"}}}}"#
    );
    let redacted = redact(&body, key);
    assert!(!redacted.contains("Abc"), "{redacted}");
    assert!(redacted.contains("Bearer [redacted]"), "{redacted}");
    let error = classify_http(400, &redact(&body, key), None, 0).to_string();
    assert!(
        !error.contains("Abc") && error.contains(REDACTED),
        "{error}"
    );
    // Errors built from the raw text are redacted field by field.
    let raw = classify_http(400, &body, None, 0);
    assert!(raw.to_string().contains("Abc"));
    let clean = raw.redacted(key).to_string();
    assert!(!clean.contains("Abc"), "{clean}");
    // No key, or a blank one, changes nothing.
    assert_eq!(redact("Bearer x", ""), "Bearer x");
    assert_eq!(redact("Bearer x", "  "), "Bearer x");
    for error in [
        ApiError::network("http://h/v1", format!("x {key}")),
        ApiError::Unauthorized {
            status: 401,
            message: key.into(),
        },
        ApiError::NotFound {
            message: key.into(),
        },
        ApiError::RateLimited {
            retry_after_ms: None,
            message: key.into(),
        },
        ApiError::InsufficientQuota {
            message: key.into(),
        },
        ApiError::Server {
            status: None,
            message: key.into(),
        },
        ApiError::MalformedJson { detail: key.into() },
    ] {
        let text = error.redacted(key).to_string();
        assert!(!text.contains("Abc") && text.contains(REDACTED), "{text}");
    }
}

/// A reasoning model's stream with reasoning deltas and no content was archived as an empty
/// assistant message; it is now an error that says what to change, and the reasoning is kept.
#[test]
fn a_stream_with_only_reasoning_is_no_answer_and_keeps_the_reasoning() {
    for finish in ["stop", "length"] {
        let body = format!(
            concat!(
                "data: {{\"choices\":[{{\"delta\":{{\"role\":\"assistant\",\"content\":\"\",\"reasoning_content\":\"Let me \"}}}}]}}\n\n",
                "data: {{\"choices\":[{{\"delta\":{{\"reasoning\":\"think.\"}}}}]}}\n\n",
                "data: {{\"choices\":[{{\"delta\":{{}},\"finish_reason\":\"{}\"}}]}}\n\n",
                "data: [DONE]\n\n",
            ),
            finish
        );
        let mut decoder = StreamDecoder::new(Some(64));
        let mut events: Vec<StreamEvent> = parse_all(body.as_bytes())
            .iter()
            .flat_map(|e| decoder.decode(e))
            .collect();
        events.extend(decoder.end());
        assert_eq!(decoder.reasoning(), "Let me think.");
        let error = events
            .iter()
            .find_map(|e| match e {
                StreamEvent::Error(error) => Some(error.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{finish}: no error in {events:?}"));
        let text = error.to_string();
        assert!(
            text.contains("max_tokens") && text.contains("reasoning_effort"),
            "{text}"
        );
        if finish == "stop" {
            assert_eq!(
                error,
                ApiError::NoAnswer {
                    finish_reason: Some("stop".into()),
                    reasoned: true
                }
            );
            assert!(text.starts_with("No answer text arrived"), "{text}");
        }
        assert_eq!(events.last(), Some(&StreamEvent::Done));
    }
    // An empty stream the server said it finished is no answer too; one that was cut before
    // anything arrived is left to the caller (the connection closed early).
    assert_eq!(
        decode_stream("data: [DONE]\n\n", None),
        vec![
            StreamEvent::Error(ApiError::NoAnswer {
                finish_reason: None,
                reasoned: false
            }),
            StreamEvent::Done
        ]
    );
    assert_eq!(
        decode_stream(": keep-alive\n\n", None),
        vec![StreamEvent::Done]
    );
    // A non-streamed reply with only reasoning is no answer as well.
    assert_eq!(
        parse_chat_response(
            r#"{"choices":[{"message":{"content":"","reasoning_content":"hmm"},"finish_reason":"stop"}]}"#,
            None
        ),
        Err(ApiError::NoAnswer {
            finish_reason: Some("stop".into()),
            reasoned: true
        })
    );
    let with_both = parse_chat_response(
        r#"{"choices":[{"message":{"content":"Hi","reasoning":"greet"},"finish_reason":"stop"}]}"#,
        None,
    )
    .unwrap();
    assert_eq!(
        (with_both.content.as_str(), with_both.reasoning.as_str()),
        ("Hi", "greet")
    );
}

/// A server that ignored `stream: true`, or a proxy's HTML page, was reported as "the
/// connection closed before the reply was finished".
#[test]
fn a_whole_body_to_a_streamed_request_is_used_or_named() {
    assert_eq!(
        body_kind(Some("text/event-stream; charset=utf-8")),
        BodyKind::EventStream
    );
    assert_eq!(body_kind(None), BodyKind::EventStream);
    assert_eq!(body_kind(Some("application/json")), BodyKind::Whole);
    assert_eq!(body_kind(Some("text/html")), BodyKind::Whole);

    let json = r#"{"choices":[{"message":{"role":"assistant","content":"Plain JSON."},"finish_reason":"stop"}]}"#;
    let reply = decode_whole_reply(json, None).unwrap();
    assert_eq!(
        (reply.content.as_str(), reply.finish_reason.as_deref()),
        ("Plain JSON.", Some("stop"))
    );

    let sse = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    assert_eq!(decode_whole_reply(sse, None).unwrap().content, "Hi");

    let html = "<!DOCTYPE html><html><title>Sign in</title></html>";
    let error = decode_whole_reply(html, None).unwrap_err();
    assert!(matches!(error, ApiError::NotChatReply { .. }), "{error:?}");
    let text = error.to_string();
    assert!(
        text.contains("not a chat reply") && text.contains("<!DOCTYPE html>"),
        "{text}"
    );
}

/// OpenRouter's error inside a stream carries the upstream status as a number and ends the
/// choice with finish_reason "error"; the provider's message is what the user sees.
#[test]
fn an_error_or_finish_error_inside_a_stream_is_the_providers_message() {
    let events = decode_stream(
        concat!(
            "data: {\"choices\":[{\"delta\":{\"content\":\"Part\"}}]}\n\n",
            "data: {\"error\":{\"code\":502,\"message\":\"Provider disconnected\"},\"choices\":[{\"delta\":{\"content\":\"\"},\"finish_reason\":\"error\"}]}\n\n",
        ),
        None,
    );
    assert_eq!(events[0], StreamEvent::Delta("Part".into()));
    assert_eq!(
        events[1],
        StreamEvent::Error(ApiError::Server {
            status: Some(502),
            message: "Provider disconnected".into()
        })
    );
    let events = decode_stream(
        "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"error\"}]}\n\n",
        None,
    );
    assert!(
        matches!(&events[2], StreamEvent::Error(ApiError::Server { message, .. }) if message.contains("finish_reason")),
        "{events:?}"
    );
}

/// A context overflow was a generic 400; it now names the request and how far over it is.
#[test]
fn a_context_overflow_names_the_request_and_the_excess() {
    let body = json!({"error": {
        "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error", "code": "context_length_exceeded"}})
    .to_string();
    let chat = classify_http(400, &body, None, NOW_MS).for_purpose(Purpose::Chat);
    assert!(
        matches!(
            chat,
            ApiError::ContextTooLong {
                requested: Some(9000),
                limit: Some(8192),
                ..
            }
        ),
        "{chat:?}"
    );
    let text = chat.to_string();
    assert!(text.starts_with("The chat request is too long"), "{text}");
    assert!(
        text.contains("by 808 tokens") && text.contains("Fold now"),
        "{text}"
    );
    assert!(!chat.is_retryable());
    let summary = classify_http(400, &body, None, NOW_MS)
        .for_purpose(Purpose::Summary)
        .to_string();
    assert!(
        summary.starts_with("The summariser's request is too long"),
        "{summary}"
    );
    // vLLM's wording, with no code.
    let vllm = json!({"message": "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion)."}).to_string();
    assert!(matches!(
        classify_http(400, &vllm, None, NOW_MS),
        ApiError::ContextTooLong {
            requested: Some(5000),
            limit: Some(4096),
            ..
        }
    ));
    // Another error keeps its class when a purpose is given.
    let other = ApiError::NotFound {
        message: "x".into(),
    };
    assert_eq!(other.clone().for_purpose(Purpose::Summary), other);
}

/// Only `retry-after` was read, so a server's `retry-after-ms` was ignored and the client
/// waited its own backoff instead.
#[test]
fn retry_after_ms_wins_over_retry_after() {
    assert_eq!(server_wait_ms(Some("1500"), Some("30"), NOW_MS), Some(1500));
    assert_eq!(server_wait_ms(Some(" 250.4 "), None, NOW_MS), Some(250));
    assert_eq!(server_wait_ms(Some("soon"), Some("2"), NOW_MS), Some(2000));
    assert_eq!(server_wait_ms(Some("-5"), None, NOW_MS), None);
    assert_eq!(server_wait_ms(None, None, NOW_MS), None);
    let body = json!({"error": {"message": "Rate limit reached", "type": "rate_limit_exceeded"}})
        .to_string();
    let error = classify_http_waiting(429, &body, server_wait_ms(Some("1500"), None, NOW_MS));
    assert_eq!(error.retry_after_ms(), Some(1500));
    assert_eq!(backoff_delay_ms(0, error.retry_after_ms(), 0.9), 1500);
}

/// A timeout of the fetch itself is retryable like a 5xx (the client now retries it).
#[test]
fn a_fetch_timeout_is_retryable() {
    assert!(
        ApiError::Timeout {
            after_ms: Some(2000)
        }
        .is_retryable()
    );
    assert!(!ApiError::network("http://h/v1", "Failed to fetch").is_retryable());
}

/// The events of a whole streamed body, with `finish` at its end, and how the stream ended, as
/// the client reads them: at the first error, else at `Done`.
fn finished_stream(body: &str) -> (Vec<StreamEvent>, Option<StreamEnd>) {
    let events = decode_until(body, None, StreamDecoder::finish);
    let end = events.iter().find_map(|event| match event {
        StreamEvent::Error(error) => Some(StreamEnd::Failed(error.clone())),
        StreamEvent::Done => Some(StreamEnd::Complete),
        _ => None,
    });
    (events, end)
}

/// Whether a stream closed before its reply was finished was decided in the HTTP client, from
/// the events it had seen; the decoder's `finish` decides it now.
#[test]
fn the_decoder_decides_whether_a_stream_ended_or_was_cut_short() {
    let piece = |text: &str| {
        format!("data: {{\"choices\":[{{\"delta\":{{\"content\":\"{text}\"}}}}]}}\n\n")
    };
    let finish = "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";
    let closed = StreamEnd::Failed(ApiError::Server {
        status: None,
        message: "the connection closed before the reply was finished".into(),
    });
    // The done marker ends it, with or without a finish_reason; `finish` adds nothing after it.
    let (events, end) = finished_stream(&format!("{}data: [DONE]\n\n", piece("Hi")));
    assert_eq!(events, [StreamEvent::Delta("Hi".into()), StreamEvent::Done]);
    assert_eq!(end, Some(StreamEnd::Complete));
    // A finish_reason and then the body closing, with no done marker, is a finished reply.
    let (events, end) = finished_stream(&format!("{}{finish}", piece("Hi")));
    assert_eq!(
        events,
        [
            StreamEvent::Delta("Hi".into()),
            StreamEvent::Finish("stop".into()),
            StreamEvent::Done
        ]
    );
    assert_eq!(end, Some(StreamEnd::Complete));
    // Closed mid-reply: the text that came stays ahead of the error.
    let (events, end) = finished_stream(&format!("{}{}", piece("half a "), piece("rep")));
    assert_eq!(
        events[..2],
        [
            StreamEvent::Delta("half a ".into()),
            StreamEvent::Delta("rep".into())
        ]
    );
    assert_eq!(events.last(), Some(&StreamEvent::Done));
    assert_eq!(end, Some(closed.clone()));
    // Closed before any piece arrived.
    let (events, end) = finished_stream(": keep-alive\n\n");
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(end, Some(closed));
    // An error inside the stream is what ended it, not the close that followed.
    let (_, end) = finished_stream(&format!(
        "{}event: error\ndata: {{\"message\":\"model crashed\"}}\n\n",
        piece("a")
    ));
    assert_eq!(
        end,
        Some(StreamEnd::Failed(ApiError::Server {
            status: None,
            message: "model crashed".into()
        }))
    );
}

// The Settings hint for an unreachable Ollama showed a placeholder origin instead of the page's
// own, and did not notice a base URL without /v1.
#[test]
fn a_network_fix_names_the_page_s_origin_and_a_missing_v1() {
    let error = ApiError::network("http://localhost:11434", "Failed to fetch")
        .for_origin("http://127.0.0.1:8080");
    let text = error.to_string();
    assert!(
        text.contains("OLLAMA_ORIGINS=\"http://127.0.0.1:8080\""),
        "{text}"
    );
    assert!(!text.contains("your.site"), "{text}");
    assert!(text.contains("try http://localhost:11434/v1"), "{text}");
    let fine = ApiError::network("http://localhost:11434/v1/", "Failed to fetch")
        .for_origin("http://127.0.0.1:8080")
        .to_string();
    assert!(!fine.contains("does not end in /v1"), "{fine}");
}
