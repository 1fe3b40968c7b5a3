//! The streaming reader against the whole-file reader: every fixture read both ways, a
//! generated export cut at random byte offsets, and a broken entry in the middle.

use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{Value, json};

use super::stream::{Place, Sink, Streamed, resume, stream};
use super::*;

/// What the sink got: each conversation or skipped entry with its place, in order.
type Got = Vec<(Place, Result<Conversation, Skipped>)>;

fn streamed(reader: impl std::io::BufRead) -> (Result<Streamed, TranscriptError>, Got) {
    let mut got = Got::new();
    let result = stream(reader, &mut |place, read| got.push((place, read)));
    (result, got)
}

/// The whole-file reader as the page reads a file: JSON, else JSON Lines.
fn whole(text: &[u8]) -> Option<Result<Transcript, TranscriptError>> {
    let text = std::str::from_utf8(text).expect("UTF-8");
    match serde_json::from_str::<Value>(text) {
        Ok(value) => read_value(&value),
        Err(_) => read_lines(text),
    }
}

/// Checks that `text` streamed gives what the whole-file reader gives; true when it was
/// streamed (not handed back whole).
fn same_both_ways(name: &str, text: &[u8], reader: impl std::io::BufRead) -> bool {
    let expected = whole(text);
    let (result, got) = streamed(reader);
    let result = result.unwrap_or_else(|e| panic!("{name}: streaming failed: {e}"));
    let (format, json_lines) = match result {
        Streamed::Read {
            format, json_lines, ..
        } => (format, json_lines),
        Streamed::Value(value) => {
            assert_eq!(
                read_value(&value),
                expected,
                "{name}: the value handed back"
            );
            return false;
        }
        Streamed::Text(rest) => {
            assert_eq!(whole(&rest), expected, "{name}: the text handed back");
            return false;
        }
        Streamed::Paused { .. } => panic!("{name}: paused, with a sink that never asked"),
    };
    let expected = expected
        .unwrap_or_else(|| panic!("{name}: not a transcript"))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(format, Some(expected.format), "{name}: format");
    assert_eq!(json_lines, expected.json_lines, "{name}: JSON Lines");
    let conversations: Vec<Conversation> = got
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok().cloned())
        .collect();
    let skipped: Vec<Skipped> = got
        .iter()
        .filter_map(|(_, r)| r.as_ref().err().cloned())
        .collect();
    assert_eq!(
        conversations, expected.conversations,
        "{name}: conversations"
    );
    assert_eq!(skipped, expected.skipped, "{name}: skipped");
    // Each skipped entry is named at its own place.
    for (place, read) in &got {
        if let Err(s) = read {
            assert!(s.place.starts_with(&place.to_string()), "{name}: {s:?}");
        }
    }
    true
}

fn fixtures(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the fixtures' folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            fixtures(&path, found);
        } else if path
            .extension()
            .is_some_and(|e| ["json", "jsonl", "ndjson"].contains(&e.to_str().unwrap_or("")))
        {
            found.push(path);
        }
    }
}

#[test]
fn every_fixture_streams_to_what_the_whole_file_reader_reads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut found = Vec::new();
    fixtures(&root.join("wild"), &mut found);
    fixtures(&root.join("transcripts"), &mut found);
    found.sort();
    let mut streamed = Vec::new();
    for path in &found {
        let text = std::fs::read(path).unwrap();
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        // Through a small buffer too, so that entries and lines straddle reads.
        let small = BufReader::with_capacity(7, text.as_slice());
        same_both_ways(&name, &text, small);
        if same_both_ways(&name, &text, text.as_slice()) {
            streamed.push(name);
        }
    }
    // Every array-shaped export among the fixtures is read entry by entry.
    for name in [
        "transcripts/chatgpt_conversations.json",
        "wild/chatgpt/polylogue-branching-trimmed.json",
        "wild/claude-export/polylogue-golden-claude-tool.json",
        "wild/sharegpt/llamafactory-glaive-toolcall-en-demo.json",
        "wild/sharegpt/llamafactory-mllm-demo.json",
        "wild/openwebui/openwebui-export.json",
    ] {
        assert!(
            streamed.iter().any(|s| s == name),
            "{name} not streamed: {streamed:?}"
        );
    }
}

/// A ShareGPT record of `turns` human and gpt turns.
fn record(title: &str, turns: &[String]) -> Value {
    let turns: Vec<Value> = turns
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"from": if i % 2 == 0 { "human" } else { "gpt" }, "value": t}))
        .collect();
    json!({"title": title, "conversations": turns})
}

#[test]
fn a_broken_entry_in_the_middle_is_skipped_and_named_and_the_rest_read() {
    let chatgpt: Value = serde_json::from_str(include_str!(
        "../../../tests/fixtures/transcripts/chatgpt_conversations.json"
    ))
    .unwrap();
    let mut entries = chatgpt.as_array().unwrap().clone();
    entries.insert(1, json!({"title": "Lost trip", "mapping": {"a": 5}}));
    let text = Value::Array(entries).to_string();
    assert!(same_both_ways("chatgpt", text.as_bytes(), text.as_bytes()));
    let (result, got) = streamed(text.as_bytes());
    assert!(matches!(
        result,
        Ok(Streamed::Read {
            format: Some(Format::ChatGptExport),
            read: 2,
            skipped: 1,
            ..
        })
    ));
    let places: Vec<Place> = got.iter().map(|(p, _)| *p).collect();
    assert_eq!(places, [Place::Entry(0), Place::Entry(1), Place::Entry(2)]);
    let skipped = got[1].1.as_ref().unwrap_err();
    assert_eq!(skipped.title.as_deref(), Some("Lost trip"));
    assert!(skipped.place.starts_with("[1]"), "{skipped:?}");

    // A broken entry first: kept until the format is known, then read with the rest.
    let text = json!([{"title": "Broken", "conversations": 5}, record("B", &["hi".into()])]);
    let text = text.to_string();
    assert!(same_both_ways("sharegpt", text.as_bytes(), text.as_bytes()));
    let (_, got) = streamed(text.as_bytes());
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].0, Place::Entry(0));
    assert!(got[0].1.is_err() && got[1].1.is_ok());

    // A line of JSON Lines that is not JSON is skipped and named by its line.
    let lines = format!(
        "{}\n{{not json\n\n{}\n",
        record("A", &["a".into()]),
        record("C", &["c".into()])
    );
    assert!(same_both_ways("lines", lines.as_bytes(), lines.as_bytes()));
    let (_, got) = streamed(lines.as_bytes());
    let places: Vec<Place> = got.iter().map(|(p, _)| *p).collect();
    assert_eq!(places, [Place::Line(1), Place::Line(2), Place::Line(4)]);
    assert_eq!(got[1].1.as_ref().unwrap_err().place, "line 2");
}

#[test]
fn invalid_json_stops_the_stream_after_what_came_before() {
    let text = format!("[{}, {{\"title\": ]", record("A", &["a".into()]));
    let (result, got) = streamed(text.as_bytes());
    assert_eq!(got.len(), 1);
    let e = result.unwrap_err();
    assert_eq!(e.place, "[1]");
    assert!(e.reason.starts_with("not valid JSON"), "{e}");
}

#[test]
fn what_is_not_an_array_of_conversations_is_handed_back() {
    let messages = json!([{"role": "user", "content": "hi"}]);
    let (result, got) = streamed(messages.to_string().as_bytes());
    assert_eq!(result, Ok(Streamed::Value(messages)));
    assert!(got.is_empty());
    let one = "\u{feff} {\"messages\": []}";
    let (result, _) = streamed(one.as_bytes());
    assert_eq!(result, Ok(Streamed::Text(b"{\"messages\": []}".to_vec())));
}

/// A sink that asks the walk to pause after every `every` entries handed to it.
struct Pausing {
    got: Got,
    every: usize,
    since: usize,
}

impl Sink for Pausing {
    fn conversation(&mut self, place: Place, read: Result<Conversation, Skipped>) {
        self.since += 1;
        self.got.push((place, read));
    }

    fn pause(&mut self) -> bool {
        if self.since >= self.every {
            self.since = 0;
            return true;
        }
        false
    }
}

/// `text` streamed pausing after every `every` entries and resumed each time from the offset
/// the pause named (a reader opened there, `cap` bytes buffered): what the sink got, how many
/// pauses, and the end.
fn streamed_pausing(
    text: &[u8],
    every: usize,
    cap: usize,
) -> (Result<Streamed, TranscriptError>, Got, usize) {
    let mut sink = Pausing {
        got: Got::new(),
        every,
        since: 0,
    };
    let mut result = stream(BufReader::with_capacity(cap, text), &mut sink);
    let mut base = 0u64;
    let mut pauses = 0;
    while let Ok(Streamed::Paused {
        format,
        next,
        offset,
    }) = result
    {
        pauses += 1;
        base += offset;
        let rest = &text[base as usize..];
        result = resume(BufReader::with_capacity(cap, rest), format, next, &mut sink);
    }
    (result, sink.got, pauses)
}

#[test]
fn an_array_paused_after_any_entry_and_resumed_from_its_offset_reads_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut found = Vec::new();
    fixtures(&root.join("wild"), &mut found);
    fixtures(&root.join("transcripts"), &mut found);
    found.sort();
    let mut paused = 0;
    for path in &found {
        let text = std::fs::read(path).unwrap();
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let (whole, expected) = streamed(text.as_slice());
        let Ok(Streamed::Read {
            format,
            json_lines: false,
            ..
        }) = whole
        else {
            continue;
        };
        for (every, cap) in [(1, 7), (1, 8192), (2, 64)] {
            let (result, got, pauses) = streamed_pausing(&text, every, cap);
            assert_eq!(got, expected, "{name}: paused every {every}");
            assert!(
                matches!(result, Ok(Streamed::Read { format: f, .. }) if f == format),
                "{name}: {result:?}"
            );
            paused += pauses;
        }
    }
    assert!(paused > 10, "the fixtures' arrays paused {paused} times");

    // A broken entry, and an array that ends in white space after its last entry.
    let chatgpt: Value = serde_json::from_str(include_str!(
        "../../../tests/fixtures/transcripts/chatgpt_conversations.json"
    ))
    .unwrap();
    let mut entries = chatgpt.as_array().unwrap().clone();
    entries.insert(1, json!({"title": "Lost trip", "mapping": {"a": 5}}));
    let text = format!(
        "\u{feff} {} \n",
        serde_json::to_string_pretty(&entries).unwrap()
    );
    let (_, expected) = streamed(text.as_bytes());
    let (result, got, pauses) = streamed_pausing(text.as_bytes(), 1, 16);
    assert_eq!(got, expected);
    assert_eq!(pauses, entries.len());
    assert!(matches!(result, Ok(Streamed::Read { .. })), "{result:?}");

    // Cut after a pause, the rest says where it broke off; anything after the array is wrong.
    let mut sink = Pausing {
        got: Got::new(),
        every: 1,
        since: 0,
    };
    let Ok(Streamed::Paused {
        format,
        next,
        offset,
    }) = stream(text.as_bytes(), &mut sink)
    else {
        panic!("no pause");
    };
    assert_eq!(next, 1);
    let e = resume(&b" "[..], format, next, &mut sink).unwrap_err();
    assert_eq!(e.place, "[1]");
    let rest = &text.as_bytes()[offset as usize..];
    assert!(rest.starts_with(b",") || rest.starts_with(b"\n"));
    let e = resume(&b"] x"[..], format, next, &mut sink).unwrap_err();
    assert!(e.reason.contains("trailing"), "{e}");
}

/// A reader that hands out its bytes in the sizes given, cycling through them.
struct Chunked<'a> {
    bytes: &'a [u8],
    sizes: Vec<usize>,
    next: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = self.sizes[self.next % self.sizes.len()];
        self.next += 1;
        let n = size.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,12}",
        "\\PC{0,8}",
        Just("\"quoted\" \\ back\nslash".to_owned())
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_generated_export_cut_anywhere_streams_to_the_same_conversations(
        records in prop::collection::vec(
            (text(), prop::collection::vec(text(), 1..5)),
            1..8,
        ),
        broken in prop::option::of(0usize..8),
        chatgpt in any::<bool>(),
        lines in any::<bool>(),
        sizes in prop::collection::vec(1usize..64, 1..8),
    ) {
        let fixture: Value = serde_json::from_str(include_str!(
            "../../../tests/fixtures/transcripts/chatgpt_conversations.json"
        ))
        .unwrap();
        let fixture = fixture.as_array().unwrap();
        let mut entries: Vec<Value> = records
            .iter()
            .enumerate()
            .map(|(i, (title, turns))| {
                if chatgpt {
                    let mut c = fixture[i % fixture.len()].clone();
                    c["title"] = json!(title);
                    c
                } else {
                    record(title, turns)
                }
            })
            .collect();
        if let Some(at) = broken {
            let bad = if chatgpt {
                json!({"title": "Broken", "mapping": 7})
            } else {
                json!({"title": "Broken", "conversations": 7})
            };
            entries.insert(at.min(entries.len()), bad);
        }
        let text = if lines && entries.len() > 1 {
            entries.iter().map(Value::to_string).collect::<Vec<_>>().join("\n")
        } else {
            Value::Array(entries).to_string()
        };
        let cap = sizes[0];
        let reader = BufReader::with_capacity(
            cap,
            Chunked { bytes: text.as_bytes(), sizes, next: 0 },
        );
        prop_assert!(same_both_ways("generated", text.as_bytes(), reader));
        // Paused after each entry and resumed from its offset, the same again.
        let (_, expected) = streamed(text.as_bytes());
        let (_, got, _) = streamed_pausing(text.as_bytes(), 1, cap);
        prop_assert_eq!(got, expected);
    }
}
