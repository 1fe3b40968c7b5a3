//! JSON Lines: one JSON value per line. A coding agent's session log (Claude Code, Codex CLI)
//! is recognised from its records first (`agents.rs`), and a SillyTavern chat by its header
//! line (`sillytavern.rs`). Otherwise either every line is a message (or an input item) of one
//! conversation, or every line is a whole conversation (a request body with `messages` or
//! `input`, as fine-tuning files and request logs hold, one ChatGPT or Claude.ai conversation,
//! one ShareGPT record, or a proxy's record wrapping a request, among which records of requests
//! without a body are passed over). Blank lines are skipped; a place is named by its line,
//! counted from 1.

use serde_json::Value;

use super::parts::join;
use super::{
    Batch, Format, Skipped, Transcript, TranscriptError, detect, detect_items, read_body,
    read_items, sillytavern, wrapper,
};

/// Reads `text` as JSON Lines, or `None` when it does not look like JSON Lines (fewer than two
/// values, or a first line that is not a JSON object), so the caller reports the JSON error.
pub fn read_lines(text: &str) -> Option<Result<Transcript, TranscriptError>> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty());
    let (first_no, first) = lines.next()?;
    let first: Value = serde_json::from_str(first).ok().filter(Value::is_object)?;
    // A file whose lines are whole conversations loses only a broken line's conversation: it
    // is skipped and named by its line, as the command-line tool, which streams such a file,
    // skips it. In a file whose lines make one conversation, a broken line breaks that one.
    let streams = super::lines_stream(&first);
    let mut values = vec![(first_no, first)];
    let mut broken = Vec::new();
    for (no, line) in lines {
        match serde_json::from_str::<Value>(line) {
            Ok(value) => values.push((no, value)),
            Err(e) => {
                let reason = format!("not valid JSON (column {}): {e}", e.column());
                if !streams {
                    return Some(Err(TranscriptError::new(format!("line {no}"), reason)));
                }
                broken.push((no, reason));
            }
        }
    }
    if values.len() + broken.len() < 2 {
        return None;
    }
    if broken.is_empty() {
        return Some(read_values(&values));
    }
    Some(read_values(&values).map(|mut read| {
        read.skipped
            .extend(broken.into_iter().map(|(no, reason)| Skipped {
                place: format!("line {no}"),
                title: None,
                reason,
            }));
        // In the file's order, as the command line reports them.
        read.skipped.sort_unstable_by_key(|s| line_of(&s.place));
        read
    }))
}

/// The line a place names (`line 12` or `line 12.messages[3]`), for ordering.
fn line_of(place: &str) -> usize {
    place
        .strip_prefix("line ")
        .map(|rest| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap_or("")
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX)
}

fn read_values(values: &[(usize, Value)]) -> Result<Transcript, TranscriptError> {
    // A coding agent's session log is known by its records, whatever else its lines hold.
    if let Some(read) = super::agents::read(values) {
        return read;
    }
    // A SillyTavern chat is one conversation whose first line is a header, not a message. It is
    // JSON Lines by definition, so `json_lines` (which marks a format that is also plain JSON
    // read as JSON Lines, and names it so) stays false: the page says `sillytavern`.
    if sillytavern::is_header(&values[0].1) {
        return Ok(Transcript {
            format: Format::SillyTavern,
            json_lines: false,
            conversations: vec![sillytavern::read(values)?],
            skipped: Vec::new(),
        });
    }
    let whole = is_whole;
    // A proxy's log holds requests that sent no body (health checks, model lists) between
    // the conversations: they are passed over, as they hold nothing to read.
    let bodiless = |v: &Value| wrapper::is_bodiless_record(v);
    if values.iter().any(|(_, v)| whole(v)) && values.iter().all(|(_, v)| whole(v) || bodiless(v)) {
        let mut format = None;
        let mut batch = Batch::default();
        for (no, value) in values.iter().filter(|(_, v)| !bodiless(v)) {
            let place = format!("line {no}");
            // Each line is read as what it is; the first line read names the file's format. A
            // line that fails is skipped and named, as one conversation of an export is.
            batch.read(value, || {
                let this = detect(value).ok_or_else(|| {
                    TranscriptError::new(&place, "not a conversation of a known format")
                })?;
                format.get_or_insert(this);
                // A proxy's record (a claude-trace log line) is read from the body it wraps.
                match wrapper::unwrap(value) {
                    Some((at, body)) => read_body(this, &body, &join(&place, &at)),
                    None => read_body(this, value, &place),
                }
            });
        }
        let batch = batch.finish()?;
        return Ok(Transcript {
            format: format.unwrap_or(Format::OpenAiChat),
            json_lines: true,
            conversations: batch.conversations,
            skipped: batch.skipped,
        });
    }
    let items: Vec<Value> = values.iter().map(|(_, v)| v.clone()).collect();
    let format = detect_items(&items, None).ok_or_else(|| {
        TranscriptError::new(
            format!("line {}", values[0].0),
            "each line must be a message (role and content) or a conversation",
        )
    })?;
    let place = |i: usize| format!("line {}", values[i].0);
    let batch = read_items(format, &items, &place)?;
    Ok(Transcript {
        format,
        json_lines: true,
        conversations: batch.conversations,
        skipped: batch.skipped,
    })
}

/// Whether a line is a whole conversation: a request body with `messages` or `input`, one
/// ChatGPT or Claude.ai conversation, one ShareGPT record, or a proxy's record wrapping one.
pub(super) fn is_whole(v: &Value) -> bool {
    [
        "messages",
        "input",
        "mapping",
        "chat_messages",
        "conversations",
        "conversation",
    ]
    .iter()
    .any(|k| v.get(k).is_some())
        || wrapper::unwrap(v).is_some()
}
