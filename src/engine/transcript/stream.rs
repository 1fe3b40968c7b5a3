//! The streaming reader, in the shape of ripgrep's searcher feeding a `Sink`: a file that is an
//! array of conversations (a ChatGPT, Claude.ai, ShareGPT, Open WebUI, LibreChat or Chatbot UI
//! version 1 export) or JSON Lines of whole conversations is read one entry at a time, and each
//! conversation is handed to a [`Sink`] with its [`Place`] and dropped before the next entry is
//! parsed, so memory is bounded by the largest conversation, not by the file.
//!
//! The array is walked with serde's `SeqAccess` (`deserialize_seq` and a visitor), each entry
//! parsed as a `serde_json::Value`, which is what each format's conversion takes (a `RawValue`
//! would be parsed twice). Each entry is read by [`read_entry`], the conversion the whole-file
//! readers use too. The format is detected from the first entry that is a conversation
//! ([`detect_entry`]); entries before it are kept until then, and read with it. A broken entry is
//! skipped and named by its place, as the whole-file reader skips it; JSON that is not valid
//! stops the stream there, after the conversations before it were handed on.
//!
//! Not streamed, handed back for the whole-file reader: an array whose entries are no
//! conversation (a request's messages, which are one conversation anyway) as its parsed
//! [`Value`]; and as its text, anything whose top level is an object (one conversation, a
//! Claude.ai export wrapped in `conversations`, a Chatbot UI export of version 2 to 5 with its
//! conversations under `history`, and the app's own session file and `summary-memory-sessions`
//! envelope, whose sessions sit under a key of an object), and JSON Lines whose lines make one
//! conversation (a coding agent's log, a SillyTavern chat) or that hold one line.
//!
//! Backpressure: a [`Sink`] may ask the walk of an array to pause after an entry
//! ([`Sink::pause`]); [`stream`] then returns [`Streamed::Paused`] with how far into its reader
//! that entry ended, and [`resume`] goes on from there (a reader opened at that offset), so a
//! reader that cannot block (a browser's worker waiting for the page to write) reads on only
//! when asked. JSON Lines are not paused.
//!
//! Pure: it reads the `BufRead` handed to it (a file's, or a byte slice's), and opens nothing.

use std::cell::Cell;
use std::fmt;
use std::io::{BufRead, Read};
use std::rc::Rc;

use serde::Deserializer as _;
use serde::de::{SeqAccess, Visitor};
use serde_json::Value;

use super::parts::join;
use super::{
    Batch, Conversation, Format, Skipped, TranscriptError, detect, detect_entry, lines_stream,
    read_body, read_entry, wrapper,
};

/// Where a conversation stands in its file: an entry of the top-level array (from 0), or a
/// line of JSON Lines (from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    Entry(usize),
    Line(usize),
}

impl fmt::Display for Place {
    /// As the whole-file reader names it: `[3]`, `line 4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Entry(i) => write!(f, "[{i}]"),
            Place::Line(no) => write!(f, "line {no}"),
        }
    }
}

/// Takes each conversation as it is read, in the file's order: the conversation, or why the
/// entry at `place` was skipped.
pub trait Sink {
    fn conversation(&mut self, place: Place, read: Result<Conversation, Skipped>);

    /// Asked after each entry of an array once its format is known: `true` pauses the walk
    /// there ([`Streamed::Paused`]). Never, unless a sink says otherwise.
    fn pause(&mut self) -> bool {
        false
    }
}

impl<F: FnMut(Place, Result<Conversation, Skipped>)> Sink for F {
    fn conversation(&mut self, place: Place, read: Result<Conversation, Skipped>) {
        self(place, read);
    }
}

/// What [`stream`] did with its input.
#[derive(Debug, PartialEq)]
pub enum Streamed {
    /// Read entry by entry into the sink: the format (`None` when every entry was skipped
    /// before one was read), whether it came as JSON Lines, and how many conversations were
    /// read and skipped.
    Read {
        format: Option<Format>,
        json_lines: bool,
        read: usize,
        skipped: usize,
    },
    /// The walk of an array paused after entry `next - 1` because the sink asked
    /// ([`Sink::pause`]): that entry ends `offset` bytes into the reader; [`resume`] goes on
    /// from a reader opened there.
    Paused {
        format: Format,
        next: usize,
        offset: u64,
    },
    /// An array whose entries are not conversations, parsed whole, for the whole-file reader.
    Value(Value),
    /// Not an array of conversations nor JSON Lines of them: the text, for the whole-file
    /// reader (leading white space and a byte-order mark left out).
    Text(Vec<u8>),
}

/// Reads `reader` into `sink` conversation by conversation when it is an array of them or JSON
/// Lines of them, else hands it back (see [`Streamed`]). An error is what stopped the stream:
/// JSON that is not valid, or the reader's own error; what was read before it is in the sink.
pub fn stream(reader: impl BufRead, sink: &mut impl Sink) -> Result<Streamed, TranscriptError> {
    let mut reader = Counted::new(reader);
    match first_byte(&mut reader).map_err(unreadable)? {
        Some(b'[') => {
            let consumed = Rc::clone(&reader.consumed);
            array(reader, Entries::new(sink, consumed))
        }
        Some(b'{') => lines(reader, sink),
        _ => {
            let mut text = Vec::new();
            reader.read_to_end(&mut text).map_err(unreadable)?;
            Ok(Streamed::Text(text))
        }
    }
}

/// Goes on with an array whose walk paused ([`Streamed::Paused`]): `reader` is the input from
/// the paused stream's offset on (right after the entry it paused at), `format` and `next` as
/// the pause said. The result's counts and offset are of this reader alone.
pub fn resume(
    reader: impl BufRead,
    format: Format,
    next: usize,
    sink: &mut impl Sink,
) -> Result<Streamed, TranscriptError> {
    let mut reader = Counted::new(reader);
    let done = Streamed::Read {
        format: Some(format),
        json_lines: false,
        read: 0,
        skipped: 0,
    };
    let invalid = |what: &str| {
        TranscriptError::new(
            Place::Entry(next).to_string(),
            format!("not valid JSON: {what}"),
        )
    };
    match first_byte(&mut reader).map_err(unreadable)? {
        Some(b',') => reader.consume(1),
        Some(b']') => {
            reader.consume(1);
            return match first_byte(&mut reader).map_err(unreadable)? {
                None => Ok(done),
                Some(_) => Err(invalid("trailing characters after the array")),
            };
        }
        Some(_) => return Err(invalid("expected `,` or `]` after an entry")),
        None => return Err(invalid("the array is cut off")),
    }
    let consumed = Rc::clone(&reader.consumed);
    let mut entries = Entries::new(sink, consumed);
    entries.format = Some(format);
    entries.seen = next;
    // The walk takes an array: the entries from here on, behind the `[` they had.
    array((&b"["[..]).chain(reader), entries)
}

/// A reader that counts the bytes consumed of it, so a pause can say where it stopped.
pub struct Counted<R> {
    inner: R,
    consumed: Rc<Cell<u64>>,
}

impl<R> Counted<R> {
    pub fn new(inner: R) -> Self {
        Counted {
            inner,
            consumed: Rc::new(Cell::new(0)),
        }
    }

    /// The count, shared: it goes on counting as the reader is read.
    pub fn consumed(&self) -> Rc<Cell<u64>> {
        Rc::clone(&self.consumed)
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed.set(self.consumed.get() + n as u64);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.consumed.set(self.consumed.get() + amt as u64);
        self.inner.consume(amt);
    }
}

fn unreadable(e: std::io::Error) -> TranscriptError {
    TranscriptError::new("", format!("cannot be read: {e}"))
}

/// The first byte that is not white space (nor a UTF-8 byte-order mark), left unread.
fn first_byte(reader: &mut impl BufRead) -> std::io::Result<Option<u8>> {
    let mut start = true;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(None);
        }
        if start && buf.starts_with(b"\xEF\xBB\xBF") {
            reader.consume(3);
            start = false;
            continue;
        }
        start = false;
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => {
                let b = buf[i];
                reader.consume(i);
                return Ok(Some(b));
            }
            None => {
                let n = buf.len();
                reader.consume(n);
            }
        }
    }
}

/// The entries of a top-level array, one at a time.
struct Entries<'s, S> {
    sink: &'s mut S,
    format: Option<Format>,
    /// Entries before the first one the format was detected from.
    pending: Vec<Value>,
    seen: usize,
    read: usize,
    skipped: usize,
    /// The bytes of the input consumed so far, and where the entry the walk paused at ended.
    consumed: Rc<Cell<u64>>,
    paused: Option<u64>,
}

impl<'s, S: Sink> Entries<'s, S> {
    /// Nothing read yet, into `sink`, with the count of the input consumed.
    fn new(sink: &'s mut S, consumed: Rc<Cell<u64>>) -> Self {
        Entries {
            sink,
            format: None,
            pending: Vec::new(),
            seen: 0,
            read: 0,
            skipped: 0,
            consumed,
            paused: None,
        }
    }

    fn entry(&mut self, item: Value) {
        let index = self.seen;
        self.seen += 1;
        if let Some(format) = self.format {
            return self.read(format, index, &item);
        }
        let format = detect_entry(&item);
        self.pending.push(item);
        if let Some(format) = format {
            self.format = Some(format);
            let first = self.seen - self.pending.len();
            for (i, item) in std::mem::take(&mut self.pending).iter().enumerate() {
                self.read(format, first + i, item);
            }
        }
    }

    fn read(&mut self, format: Format, index: usize, item: &Value) {
        let place = Place::Entry(index).to_string();
        let mut batch = Batch::default();
        batch.read(item, || match read_entry(format, item, &place) {
            Some(read) => Ok(vec![read?]),
            None => Err(TranscriptError::new(&place, "not an entry of an export")),
        });
        self.give(Place::Entry(index), batch);
    }

    fn give(&mut self, place: Place, batch: Batch) {
        self.read += batch.conversations.len();
        self.skipped += batch.skipped.len();
        for conversation in batch.conversations {
            self.sink.conversation(place, Ok(conversation));
        }
        for skipped in batch.skipped {
            self.sink.conversation(place, Err(skipped));
        }
    }
}

impl<'de, S: Sink> Visitor<'de> for &mut Entries<'_, S> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // One entry alive at a time: parsed, read, handed on, dropped.
        while let Some(item) = seq.next_element::<Value>()? {
            self.entry(item);
            // An entry is an object or an array: its parse ends at its closing byte, with
            // nothing read past it, so the count is where it ends.
            if self.format.is_some() && self.sink.pause() {
                self.paused = Some(self.consumed.get());
                return Ok(());
            }
        }
        Ok(())
    }
}

fn array<S: Sink>(
    reader: impl Read,
    mut entries: Entries<'_, S>,
) -> Result<Streamed, TranscriptError> {
    let mut de = serde_json::Deserializer::from_reader(reader);
    let walked = (&mut de)
        .deserialize_seq(&mut entries)
        .and_then(|()| de.end());
    // Paused, the walk did not reach the array's end, which the parse then misses: no error.
    if let (Some(offset), Some(format)) = (entries.paused, entries.format) {
        return Ok(Streamed::Paused {
            format,
            next: entries.seen,
            offset,
        });
    }
    if let Err(e) = walked {
        return Err(TranscriptError::new(
            Place::Entry(entries.seen).to_string(),
            format!(
                "not valid JSON (line {}, column {}): {e}",
                e.line(),
                e.column()
            ),
        ));
    }
    Ok(match entries.format {
        None => Streamed::Value(Value::Array(entries.pending)),
        format => Streamed::Read {
            format,
            json_lines: false,
            read: entries.read,
            skipped: entries.skipped,
        },
    })
}

/// The next line that holds anything, with its number (counted in `line`), or `None` at the
/// end.
fn next_line(reader: &mut impl BufRead, line: &mut usize) -> std::io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(None);
        }
        *line += 1;
        if !buf.iter().all(u8::is_ascii_whitespace) {
            return Ok(Some(buf));
        }
    }
}

/// JSON Lines whose lines are whole conversations ([`lines_stream`]), each read on its own as
/// [`super::read_lines`] reads it; anything else starting with `{` is handed back whole.
fn lines(mut reader: impl BufRead, sink: &mut impl Sink) -> Result<Streamed, TranscriptError> {
    let mut no = 0;
    let first = next_line(&mut reader, &mut no)
        .map_err(unreadable)?
        .unwrap_or_default();
    let streams = serde_json::from_slice::<Value>(&first)
        .ok()
        .filter(Value::is_object)
        .is_some_and(|v| lines_stream(&v));
    let first_no = no;
    let second = if streams {
        next_line(&mut reader, &mut no).map_err(unreadable)?
    } else {
        None
    };
    let Some(second) = second else {
        let mut text = first;
        reader.read_to_end(&mut text).map_err(unreadable)?;
        return Ok(Streamed::Text(text));
    };
    let mut lines = Entries::new(sink, Rc::new(Cell::new(0)));
    let mut format = None;
    read_line(&mut lines, &mut format, first_no, &first);
    read_line(&mut lines, &mut format, no, &second);
    while let Some(text) = next_line(&mut reader, &mut no).map_err(unreadable)? {
        read_line(&mut lines, &mut format, no, &text);
    }
    Ok(Streamed::Read {
        format,
        json_lines: true,
        read: lines.read,
        skipped: lines.skipped,
    })
}

/// One line of a stream of whole conversations: read as what it is (the first line read names
/// the file's format), a proxy's record from the body it wraps, a record of a request without
/// a body passed over, and a line that fails skipped and named.
fn read_line<S: Sink>(
    lines: &mut Entries<'_, S>,
    format: &mut Option<Format>,
    no: usize,
    text: &[u8],
) {
    let place = Place::Line(no).to_string();
    let value: Value = match serde_json::from_slice(text) {
        Ok(value) => value,
        Err(e) => {
            let skipped = Skipped {
                place,
                title: None,
                reason: format!("not valid JSON (column {}): {e}", e.column()),
            };
            lines.skipped += 1;
            lines.sink.conversation(Place::Line(no), Err(skipped));
            return;
        }
    };
    if wrapper::is_bodiless_record(&value) {
        return;
    }
    let mut batch = Batch::default();
    batch.read(&value, || {
        let this = detect(&value)
            .ok_or_else(|| TranscriptError::new(&place, "not a conversation of a known format"))?;
        format.get_or_insert(this);
        match wrapper::unwrap(&value) {
            Some((at, body)) => read_body(this, &body, &join(&place, &at)),
            None => read_body(this, &value, &place),
        }
    });
    lines.give(Place::Line(no), batch);
}
