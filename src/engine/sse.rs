//! A Server-Sent Events decoder fed raw byte chunks.
//!
//! The shell pumps the chunks of `Response.body()` into [`SseParser::push`] and hands the
//! returned events to the OpenAI stream decoder; the decoding itself lives here so that split
//! lines, split UTF-8 characters, comments and a leading byte-order mark are tested natively.
//!
//! Architecture invariant: this module knows nothing about HTTP, JSON or OpenAI. It follows the
//! WHATWG "event stream interpretation" rules, with one documented leniency in
//! [`SseParser::finish`].
//!
//! Why hand-written: the maintained crates (`eventsource-stream`, `sse-stream`) decode from a
//! `futures::Stream` (and `sse-stream` from an `http_body::Body`), so driving them from plain
//! byte slices would need a stream adapter and an executor inside a core that must stay
//! synchronous. The state machine below is about a hundred lines and is checked by property
//! tests against arbitrary chunk splits.

/// One dispatched event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; `None` means the default type, `message`.
    pub event: Option<String>,
    /// The `data:` lines of the event joined with `\n`.
    pub data: String,
    /// The last event id seen on the stream so far (ids persist across events, as in the spec);
    /// `None` when no id was set or it was reset with an empty `id:`.
    pub id: Option<String>,
}

/// Incremental SSE decoder. Feed it chunks with [`push`](Self::push) and call
/// [`finish`](Self::finish) when the body ends.
#[derive(Clone, Debug, Default)]
pub struct SseParser {
    /// Bytes of the current, unterminated line. Bytes (not chars) are buffered so that a UTF-8
    /// character split across two chunks is only decoded once the whole line has arrived; line
    /// terminators are ASCII and never occur inside a multi-byte UTF-8 sequence.
    line: Vec<u8>,
    /// The previous byte was a CR, so an LF that follows belongs to the same line ending.
    after_cr: bool,
    /// No line has been decoded yet, so a leading byte-order mark must still be stripped.
    at_stream_start: bool,
    event_type: String,
    data: String,
    last_id: String,
    retry_ms: Option<u64>,
}

impl SseParser {
    pub fn new() -> Self {
        SseParser {
            at_stream_start: true,
            ..Default::default()
        }
    }

    /// Decodes one chunk and returns the events it completes (possibly none).
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &byte in chunk {
            if self.after_cr {
                self.after_cr = false;
                if byte == b'\n' {
                    continue;
                }
            }
            match byte {
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut events);
                }
                b'\n' => self.end_line(&mut events),
                _ => self.line.push(byte),
            }
        }
        events
    }

    /// Ends the stream: decodes a last unterminated line and dispatches a pending event, then
    /// resets the parser so it can be reused for another stream.
    ///
    /// The spec discards an event that is not followed by a blank line. Some local servers
    /// close the body straight after the final `data:` line, and losing the last delta or the
    /// `[DONE]` marker would be worse: a truncated event still surfaces, and a cut JSON payload
    /// is then reported as malformed by the caller instead of vanishing silently.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut events);
        }
        self.dispatch(&mut events);
        *self = SseParser::new();
        events
    }

    /// The reconnection time the server asked for with `retry:`, in milliseconds.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
        let bytes = std::mem::take(&mut self.line);
        // Invalid UTF-8 becomes U+FFFD, which is what the spec's "UTF-8 decode" does.
        let decoded = String::from_utf8_lossy(&bytes);
        let mut line: &str = &decoded;
        if self.at_stream_start {
            self.at_stream_start = false;
            line = line.strip_prefix('\u{FEFF}').unwrap_or(line);
        }
        if line.is_empty() {
            self.dispatch(events);
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.event_type = value.to_owned(),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            "id" if !value.contains('\0') => self.last_id = value.to_owned(),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry_ms = value.parse().ok();
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        let event_type = std::mem::take(&mut self.event_type);
        let mut data = std::mem::take(&mut self.data);
        // An event without data lines is not dispatched (only its type is cleared), per spec.
        if data.is_empty() {
            return;
        }
        data.pop();
        events.push(SseEvent {
            event: (!event_type.is_empty()).then_some(event_type),
            data,
            id: (!self.last_id.is_empty()).then(|| self.last_id.clone()),
        });
    }
}

/// Decodes a whole body at once; handy for tests and canned responses.
pub fn parse_all(body: &[u8]) -> Vec<SseEvent> {
    let mut parser = SseParser::new();
    let mut events = parser.push(body);
    events.extend(parser.finish());
    events
}

// proptest is a native-only dev-dependency, so these tests are left out of the wasm32 test build.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ev(event: Option<&str>, data: &str, id: Option<&str>) -> SseEvent {
        SseEvent {
            event: event.map(str::to_owned),
            data: data.to_owned(),
            id: id.map(str::to_owned),
        }
    }

    fn check(input: &str, expect: &[SseEvent]) {
        assert_eq!(parse_all(input.as_bytes()), expect, "input: {input:?}");
    }

    #[test]
    fn decodes_fields_per_spec() {
        check("data: hello\n\n", &[ev(None, "hello", None)]);
        // Only one space after the colon is stripped.
        check("data:  two\n\n", &[ev(None, " two", None)]);
        check("data:nospace\n\n", &[ev(None, "nospace", None)]);
        check("data: a\ndata: b\n\n", &[ev(None, "a\nb", None)]);
        check(
            "event: delta\nid: 7\ndata: x\n\n",
            &[ev(Some("delta"), "x", Some("7"))],
        );
        // The id persists to later events until it is reset with an empty value.
        check(
            "id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",
            &[
                ev(None, "a", Some("1")),
                ev(None, "b", Some("1")),
                ev(None, "c", None),
            ],
        );
        check(": keep-alive\n\ndata: x\n\n", &[ev(None, "x", None)]);
        // A field without a colon has an empty value; a bare `data` line adds an empty line.
        check("data\n\n", &[ev(None, "", None)]);
        check("data\ndata\n\n", &[ev(None, "\n", None)]);
        // Unknown fields are ignored, and a block without data dispatches nothing.
        check("foo: bar\nevent: x\n\ndata: y\n\n", &[ev(None, "y", None)]);
        check("data: a:b: c\n\n", &[ev(None, "a:b: c", None)]);
    }

    #[test]
    fn accepts_every_line_ending() {
        for sep in ["\n", "\r\n", "\r"] {
            let input = format!("data: a{sep}data: b{sep}{sep}data: c{sep}{sep}");
            check(&input, &[ev(None, "a\nb", None), ev(None, "c", None)]);
        }
    }

    #[test]
    fn strips_a_leading_bom_only() {
        check("\u{FEFF}data: x\n\n", &[ev(None, "x", None)]);
        // A BOM that is not at the very start is part of the field name, so the line is unknown.
        check("data: x\n\n\u{FEFF}data: y\n\n", &[ev(None, "x", None)]);
    }

    #[test]
    fn finish_flushes_an_unterminated_event() {
        check("data: [DONE]", &[ev(None, "[DONE]", None)]);
        check("data: a\n", &[ev(None, "a", None)]);
        check(": only a comment", &[]);
    }

    #[test]
    fn retry_is_recorded_when_numeric() {
        let mut parser = SseParser::new();
        assert!(parser.push(b"retry: 1500\n\n").is_empty());
        assert_eq!(parser.retry_ms(), Some(1500));
        parser.push(b"retry: soon\n\n");
        assert_eq!(parser.retry_ms(), Some(1500));
    }

    // A CRLF split between two chunks used to risk counting as two line endings, which would
    // dispatch the event one line early.
    #[test]
    fn crlf_split_across_chunks_is_one_line_ending() {
        let mut parser = SseParser::new();
        assert!(parser.push(b"data: a\r").is_empty());
        assert!(parser.push(b"\ndata: b\r").is_empty());
        assert_eq!(parser.push(b"\n\r\n"), vec![ev(None, "a\nb", None)]);
    }

    #[test]
    fn rupee_split_inside_the_character() {
        let body = "data: salary ₹1,20,000 🎉\n\n".as_bytes();
        let rupee_start = body.iter().position(|&b| b == 0xE2).unwrap();
        let mut parser = SseParser::new();
        let mut events = parser.push(&body[..rupee_start + 1]);
        events.extend(parser.push(&body[rupee_start + 1..rupee_start + 2]));
        events.extend(parser.push(&body[rupee_start + 2..]));
        assert_eq!(events, vec![ev(None, "salary ₹1,20,000 🎉", None)]);
    }

    fn arb_text() -> impl Strategy<Value = String> {
        // Multi-byte characters (₹ is 3 bytes, emoji 4) so that splits land inside them.
        proptest::collection::vec(
            prop_oneof![
                Just("₹".to_owned()),
                Just("🎉".to_owned()),
                Just("é".to_owned()),
                Just(":".to_owned()),
                Just(" ".to_owned()),
                "[a-z0-9{}\",]{1,4}",
            ],
            0..8,
        )
        .prop_map(|parts| parts.concat())
    }

    #[derive(Clone, Debug)]
    struct Block {
        event: Option<String>,
        data_lines: Vec<String>,
        comment: bool,
    }

    fn arb_block() -> impl Strategy<Value = Block> {
        (
            proptest::option::of("[a-z]{1,6}"),
            proptest::collection::vec(arb_text(), 1..4),
            any::<bool>(),
        )
            .prop_map(|(event, data_lines, comment)| Block {
                event,
                data_lines,
                comment,
            })
    }

    fn render(blocks: &[Block], sep: &str, bom: bool) -> String {
        let mut out = String::new();
        if bom {
            out.push('\u{FEFF}');
        }
        for block in blocks {
            if block.comment {
                out.push_str(": keep-alive");
                out.push_str(sep);
            }
            if let Some(event) = &block.event {
                out.push_str(&format!("event: {event}{sep}"));
            }
            for line in &block.data_lines {
                out.push_str(&format!("data: {line}{sep}"));
            }
            out.push_str(sep);
        }
        out
    }

    proptest! {
        #[test]
        fn any_chunking_gives_the_events_that_were_written(
            blocks in proptest::collection::vec(arb_block(), 0..6),
            sep in prop_oneof![Just("\n"), Just("\r\n"), Just("\r")],
            bom in any::<bool>(),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
        ) {
            let body = render(&blocks, sep, bom);
            let bytes = body.as_bytes();
            let expected: Vec<SseEvent> = blocks
                .iter()
                .map(|b| SseEvent {
                    event: b.event.clone(),
                    data: b.data_lines.join("\n"),
                    id: None,
                })
                .collect();
            prop_assert_eq!(parse_all(bytes), expected.clone());

            let mut positions: Vec<usize> =
                cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
            positions.sort_unstable();
            let mut parser = SseParser::new();
            let mut events = Vec::new();
            let mut start = 0;
            for pos in positions {
                events.extend(parser.push(&bytes[start..pos]));
                start = pos;
            }
            events.extend(parser.push(&bytes[start..]));
            events.extend(parser.finish());
            prop_assert_eq!(events, expected);
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = parse_all(&bytes);
        }
    }
}
