//! A large file imported a batch at a time, parsed in a worker, never on the main thread.
//!
//! The worker's side ([`import_stream`]): the file is read in slices through the core's
//! streaming reader (`engine::transcript::stream`), each conversation becomes a session file
//! (counted with words only: the page recounts it with its own counter) under a
//! [`stable_id`], and the sessions go to the page in batches of about [`BATCH_BYTES`], each
//! with how far into the file it got ([`FromImporter`]). [`Importing`] holds the reading back:
//! it pauses after an entry while [`IN_FLIGHT`] batches wait to be written, and reads on when
//! the page says it wrote one ([`WRITTEN`]). A file that is not an array of
//! conversations nor JSON Lines of them is read whole in the worker, as the page reads a small
//! file, within the size cap.
//!
//! The page's side: [`Library::add_pieces`] adds a batch (an id the library holds already is
//! passed over, so importing the same file again adds nothing twice; the batch's sessions are
//! written to IndexedDB in one transaction, and then the page says [`WRITTEN`]), and
//! [`ImportRun`] is the
//! import's state machine (running, stopped, failed, done, and cut off by a crash or a reload,
//! which the [`ImportMark`] kept in storage tells the next visit). A batch is whole
//! conversations, each stored as its own record, so a stop or a crash leaves whole
//! conversations only.

use std::cell::Cell;
use std::io::BufRead;
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::app::library::Library;
use crate::engine::message::{CountTokens, WordCounter};
use crate::engine::run::RunStatus;
use crate::engine::session::{self, MAX_IMPORT_BYTES};
use crate::engine::transcript::stream::{Counted, Place, Sink, Streamed, resume, stream};
use crate::engine::transcript::{Conversation, Format, Skipped, TranscriptError};

#[cfg(test)]
mod tests;

/// A file at least this large is imported in the worker, a batch at a time; a smaller one is
/// read at once, as before (it parses in a few milliseconds).
pub const STREAM_FROM_BYTES: u64 = 2 * 1024 * 1024;

/// About how much session text one batch carries: the page reads and counts a batch in one
/// task, which stays well under 50 ms at this size.
pub const BATCH_BYTES: usize = 96 * 1024;

/// What the page posts the import worker once a batch it was sent is written.
pub const WRITTEN: &str = "written";

/// How much of the file the worker reads at a time.
pub const SLICE_BYTES: u64 = 1024 * 1024;

/// One conversation as the worker hands it to the page: its stable id, its place among the
/// conversations read from the file (from 0), and the session as the app's compact file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Piece {
    pub id: String,
    pub position: u32,
    pub file: String,
}

/// What the import worker says to the page, as JSON text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FromImporter {
    /// The worker's wasm is listening: the file may be posted (the corpus worker's own
    /// `FromWorker::Started`, the same text).
    Started,
    /// Sessions read, with the bytes of the file read so far and the entries skipped since the
    /// last batch (each described as the page names it).
    Batch {
        bytes: u64,
        pieces: Vec<Piece>,
        skipped: Vec<String>,
    },
    /// The whole file was read: what it was ("a ChatGPT data export"), with its size.
    Done { bytes: u64, source: String },
    /// The file could not be read on, for this reason; the batches before it stand. (A
    /// worker that cannot start says `Failed` with no bytes.)
    Failed {
        #[serde(default)]
        bytes: u64,
        reason: String,
    },
}

impl FromImporter {
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn decode(text: &str) -> Result<FromImporter, String> {
        serde_json::from_str(text).map_err(|e| format!("the import worker's answer: {e}"))
    }
}

/// The id a conversation read from a file is stored under: a digest of what it says (title,
/// system prompt, each message's role, time and text) and its place in the file, so the same
/// file read again gives the same ids, and two equal conversations in one file stay two.
pub fn stable_id(conversation: &Conversation, position: u32) -> String {
    let mut h = Xxh3::new();
    let field = |h: &mut Xxh3, bytes: &[u8]| {
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field(
        &mut h,
        conversation.title.as_deref().unwrap_or("").as_bytes(),
    );
    field(&mut h, conversation.system.as_bytes());
    for m in &conversation.messages {
        field(&mut h, m.role.as_str().as_bytes());
        field(&mut h, &m.at_ms.to_le_bytes());
        field(&mut h, m.content.as_bytes());
    }
    field(&mut h, &position.to_le_bytes());
    format!("imp-{:032x}", h.digest128())
}

/// What the worker's import does once the page has written a batch: read on from the file's
/// byte `offset` ([`Importing::resume`]), or nothing yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Then {
    ReadOn { offset: u64 },
    Wait,
}

/// The worker's import of one file, with backpressure: it reads the file (a slice at a time)
/// through the streaming reader and posts its sessions in batches, and after each entry of an
/// array it pauses while [`IN_FLIGHT`] batches are posted that the page has not yet written
/// ([`Importing::written`]); then the page's word makes it read on from where it paused. A
/// reader that cannot block (a browser's worker) so reads only as fast as the page writes, and
/// holds at most that many batches unwritten. JSON Lines and a file read whole are not paused.
pub struct Importing {
    now_ms: u64,
    app_version: String,
    pieces: Vec<Piece>,
    skipped: Vec<String>,
    size: usize,
    /// Conversations read so far (the next one's position).
    read: u32,
    /// Batches posted and not yet written by the page.
    unwritten: usize,
    /// Where the walk paused, waiting for the page: the format, the next entry, the offset.
    paused: Option<(Format, usize, u64)>,
    /// The bound on [`Importing::unwritten`] ([`IN_FLIGHT`]).
    in_flight: usize,
}

/// Batches posted and not yet written, at most: the worker pauses while this many wait.
pub const IN_FLIGHT: usize = 4;

/// The sink of one stretch of reading: the import's state, what to post, and the bytes of the
/// file read so far (`base` and what the stretch's reader consumed).
struct Stretch<'i, P> {
    importing: &'i mut Importing,
    post: &'i mut P,
    base: u64,
    consumed: Rc<Cell<u64>>,
}

impl<P: FnMut(FromImporter)> Stretch<'_, P> {
    fn bytes(&self) -> u64 {
        self.base + self.consumed.get()
    }

    fn flush(&mut self) {
        let bytes = self.bytes();
        self.importing.flush(bytes, self.post);
    }
}

impl<P: FnMut(FromImporter)> Sink for Stretch<'_, P> {
    fn conversation(&mut self, _: Place, read: Result<Conversation, Skipped>) {
        let i = &mut *self.importing;
        match read {
            Ok(c) => {
                let position = i.read;
                i.read += 1;
                let id = stable_id(&c, position);
                let number = position as usize + 1;
                let s = session::from_conversation(c, Some(number), &WordCounter);
                i.add(id, position, &s);
            }
            Err(skipped) => i.skipped.push(skipped.describe()),
        }
        if self.importing.size >= BATCH_BYTES {
            self.flush();
        }
    }

    fn pause(&mut self) -> bool {
        self.importing.unwritten >= self.importing.in_flight
    }
}

impl Importing {
    /// An import whose sessions are dated `now_ms` and written by `app_version`.
    pub fn new(now_ms: u64, app_version: &str) -> Importing {
        Importing {
            now_ms,
            app_version: app_version.to_owned(),
            pieces: Vec::new(),
            skipped: Vec::new(),
            size: 0,
            read: 0,
            unwritten: 0,
            paused: None,
            in_flight: IN_FLIGHT,
        }
    }

    fn add(&mut self, id: String, position: u32, s: &crate::engine::library_session::Session) {
        let file = session::export_compact(s, self.now_ms, &self.app_version);
        self.size += file.len();
        self.pieces.push(Piece { id, position, file });
    }

    fn flush(&mut self, bytes: u64, post: &mut impl FnMut(FromImporter)) {
        if self.pieces.is_empty() && self.skipped.is_empty() {
            return;
        }
        self.size = 0;
        self.unwritten += 1;
        post(FromImporter::Batch {
            bytes,
            pieces: std::mem::take(&mut self.pieces),
            skipped: std::mem::take(&mut self.skipped),
        });
    }

    /// Batches posted that the page has not said it wrote.
    pub fn unwritten(&self) -> usize {
        self.unwritten
    }

    /// The page wrote a batch: read on from the offset returned when the walk paused for it.
    pub fn written(&mut self) -> Then {
        self.unwritten = self.unwritten.saturating_sub(1);
        match self.paused {
            Some((_, _, offset)) if self.unwritten < self.in_flight => Then::ReadOn { offset },
            _ => Then::Wait,
        }
    }

    /// Reads the file from its start (`reader`, a slice at a time), posting batches, until it
    /// ends ([`FromImporter::Done`] or [`FromImporter::Failed`] posted) or pauses.
    pub fn start(&mut self, reader: impl BufRead, mut post: impl FnMut(FromImporter)) {
        let counted = Counted::new(reader);
        let mut stretch = Stretch {
            consumed: counted.consumed(),
            importing: self,
            post: &mut post,
            base: 0,
        };
        let streamed = stream(counted, &mut stretch);
        let bytes = stretch.bytes();
        self.ended(streamed, 0, bytes, &mut post);
    }

    /// Reads on after a pause, `reader` the file from the offset [`Importing::written`] named.
    pub fn resume(&mut self, reader: impl BufRead, mut post: impl FnMut(FromImporter)) {
        let Some((format, next, offset)) = self.paused.take() else {
            return;
        };
        let counted = Counted::new(reader);
        let mut stretch = Stretch {
            consumed: counted.consumed(),
            importing: self,
            post: &mut post,
            base: offset,
        };
        let streamed = resume(counted, format, next, &mut stretch);
        let bytes = stretch.bytes();
        self.ended(streamed, offset, bytes, &mut post);
    }

    /// What a stretch of reading from the file's byte `base` came to, `bytes` of the file read.
    fn ended(
        &mut self,
        streamed: Result<Streamed, TranscriptError>,
        base: u64,
        bytes: u64,
        post: &mut impl FnMut(FromImporter),
    ) {
        let whole = match streamed {
            Ok(Streamed::Paused {
                format,
                next,
                offset,
            }) => {
                // The offset is of this stretch's reader, which began at `base` in the file.
                self.paused = Some((format, next, base + offset));
                return;
            }
            Ok(Streamed::Read {
                format, json_lines, ..
            }) => {
                self.flush(bytes, post);
                let source = match format {
                    Some(format) => session::Source::Transcript { format, json_lines }.label(),
                    None => "a file with no conversation that reads".to_owned(),
                };
                return post(FromImporter::Done { bytes, source });
            }
            Ok(Streamed::Value(value)) => session::read_json(value, &WordCounter),
            Ok(Streamed::Text(text)) if text.len() > MAX_IMPORT_BYTES => {
                self.flush(bytes, post);
                return post(FromImporter::Failed {
                    bytes,
                    reason: format!(
                        "the file is {} bytes and neither an array of conversations nor JSON Lines of them; such a file can be at most {MAX_IMPORT_BYTES} bytes",
                        text.len()
                    ),
                });
            }
            Ok(Streamed::Text(text)) => session::read(&text, &WordCounter),
            Err(e) => {
                self.flush(bytes, post);
                return post(FromImporter::Failed {
                    bytes,
                    reason: e.to_string(),
                });
            }
        };
        match whole {
            Ok(read) => {
                let source = read.source.label();
                for skipped in &read.skipped {
                    self.skipped.push(skipped.describe());
                }
                for (position, s) in read.sessions.iter().enumerate() {
                    let file = session::export_compact(s, self.now_ms, &self.app_version);
                    // Undated, so the same file imported again gives the same ids.
                    let id = whole_id(&session::export_compact(s, 0, ""), position);
                    self.size += file.len();
                    self.pieces.push(Piece {
                        id,
                        position: position as u32,
                        file,
                    });
                    if self.size >= BATCH_BYTES {
                        self.flush(bytes, post);
                    }
                }
                self.flush(bytes, post);
                post(FromImporter::Done { bytes, source });
            }
            Err(e) => post(FromImporter::Failed {
                bytes,
                reason: e.to_string(),
            }),
        }
    }
}

/// The worker's import of one file read through at once, never paused (for a reader that
/// can wait, and the tests): [`Importing`] with no bound on the batches in flight.
pub fn import_stream(
    reader: impl BufRead,
    now_ms: u64,
    app_version: &str,
    post: impl FnMut(FromImporter),
) {
    let mut importing = Importing::new(now_ms, app_version);
    importing.in_flight = usize::MAX;
    importing.start(reader, post);
}

/// The id of a session read from a file read whole: the digest of its undated text and its
/// place.
fn whole_id(file: &str, position: usize) -> String {
    let mut h = Xxh3::new();
    h.update(file.as_bytes());
    h.update(&(position as u64).to_le_bytes());
    format!("imp-{:032x}", h.digest128())
}

/// What [`Library::add_pieces`] did with a batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Added {
    /// Sessions added.
    pub added: usize,
    /// Sessions the library held already (the same file imported before).
    pub already: usize,
    /// Sessions whose text did not read back, each named.
    pub unreadable: Vec<String>,
    /// The first session added, to open once the import is done (as a small file's import
    /// opens its first).
    pub first: Option<String>,
}

impl Library {
    /// Adds a batch of a large file's import (`file` its name, `imported_ms` when the import
    /// began), counting each session with `counter`. A session the library holds already is
    /// passed over, so the same file imported again adds nothing twice.
    pub fn add_pieces(
        &mut self,
        pieces: Vec<Piece>,
        file: &str,
        imported_ms: u64,
        counter: &dyn CountTokens,
    ) -> Added {
        let mut added = Added::default();
        let mut fresh = Vec::new();
        // Asked before counting: a vocabulary loaded then is loaded throughout.
        let counted_in = counter.exact_in();
        for piece in pieces {
            if self.get(&piece.id).is_some() {
                added.already += 1;
                continue;
            }
            match session::import_stored(piece.file.as_bytes(), counter) {
                Ok(s) => fresh.push((piece.id, s, piece.position)),
                Err(e) => added
                    .unreadable
                    .push(format!("conversation {}: {e}", piece.position + 1)),
            }
        }
        let ids = self.add_placed(fresh, Some(file), imported_ms);
        for id in &ids {
            self.set_counted_in(id, counted_in);
        }
        added.added = ids.len();
        added.first = ids.into_iter().next();
        added
    }
}

/// What is kept in storage while a large file is imported, so that the next visit can say how
/// far an import cut off by a crash or a reload got. Removed when the import ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportMark {
    pub file: String,
    /// When the import began: its sessions' `Origin::imported_ms`.
    pub imported_ms: u64,
    pub total_bytes: u64,
    pub bytes: u64,
    /// Conversations read, and of them added to the library (the rest it held already).
    pub read: usize,
    pub added: usize,
}

impl ImportMark {
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// `None` for text that is no mark (nothing to say, rather than a wrong sentence).
    pub fn decode(text: &str) -> Option<ImportMark> {
        serde_json::from_str(text).ok()
    }
}

/// Where an import stands. [`RunStatus::Stopped`] is also an import cut off by a crash or a
/// reload ([`ImportRun::cut_off`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ImportRun {
    pub file: String,
    pub total_bytes: u64,
    /// Bytes of the file read so far.
    pub bytes: u64,
    /// Conversations read so far, added to the library, and passed over as already there.
    pub read: usize,
    pub added: usize,
    pub already: usize,
    /// Entries skipped, each named.
    pub skipped: Vec<String>,
    pub status: RunStatus,
    /// What the file was, once it was read to its end.
    pub source: Option<String>,
    /// The import was cut off by a crash or a reload, found at the next visit.
    pub cut_off: bool,
    /// The first session it added (see [`Added::first`]).
    pub first: Option<String>,
    /// When it began, and when it last heard from the worker.
    pub started_ms: u64,
    pub last_ms: u64,
}

impl ImportRun {
    /// The import of `file` (`total_bytes` long) begins at `now_ms`.
    pub fn start(file: &str, total_bytes: u64, now_ms: u64) -> ImportRun {
        ImportRun {
            file: file.to_owned(),
            total_bytes,
            bytes: 0,
            read: 0,
            added: 0,
            already: 0,
            skipped: Vec::new(),
            status: RunStatus::Running,
            source: None,
            cut_off: false,
            first: None,
            started_ms: now_ms,
            last_ms: now_ms,
        }
    }

    /// The import a stored mark speaks of: one cut off by a crash or a reload, with the
    /// sessions of it that `library` holds (what landed before the crash) as those added.
    pub fn cut_off(mark: ImportMark, library: &Library) -> ImportRun {
        let added = library
            .list()
            .iter()
            .filter_map(|e| e.origin.as_ref())
            .filter(|o| o.file == mark.file && o.imported_ms == mark.imported_ms)
            .count();
        ImportRun {
            bytes: mark.bytes,
            read: mark.read,
            added,
            already: mark.read.saturating_sub(mark.added),
            status: RunStatus::Stopped,
            cut_off: true,
            ..ImportRun::start(&mark.file, mark.total_bytes, mark.imported_ms)
        }
    }

    /// A batch added: `read` sessions of it (`added` as `Added` says), the file read up to
    /// `bytes`. A batch that arrives after a stop is not counted (the page drops it).
    pub fn batch(
        &mut self,
        bytes: u64,
        read: usize,
        added: &Added,
        skipped: Vec<String>,
        now_ms: u64,
    ) {
        if !self.status.is_running() {
            return;
        }
        self.bytes = bytes.max(self.bytes);
        self.read += read;
        self.added += added.added;
        self.already += added.already;
        self.skipped.extend(skipped);
        self.skipped.extend(added.unreadable.iter().cloned());
        if self.first.is_none() {
            self.first.clone_from(&added.first);
        }
        self.last_ms = now_ms;
    }

    /// The worker's last word: the file is read (`Done`) or could not be (`Failed`).
    pub fn ended(&mut self, answer: &FromImporter, now_ms: u64) {
        if !self.status.is_running() {
            return;
        }
        self.last_ms = now_ms;
        match answer {
            FromImporter::Done { bytes, source } => {
                self.bytes = *bytes;
                self.source = Some(source.clone());
                self.status.finish();
            }
            FromImporter::Failed { bytes, reason } => {
                self.bytes = *bytes;
                self.status.fail(reason.clone());
            }
            FromImporter::Batch { .. } | FromImporter::Started => {}
        }
    }

    /// Stop: the worker is ended; what was added stays.
    pub fn stop(&mut self, now_ms: u64) {
        if self.status.is_running() {
            self.last_ms = now_ms;
            self.status.stop();
        }
    }

    /// The worker failed outside the reading (it did not start, or it crashed).
    pub fn fail(&mut self, reason: impl Into<String>, now_ms: u64) {
        if self.status.is_running() {
            self.last_ms = now_ms;
            self.status.fail(reason);
        }
    }

    /// The mark to keep in storage while it runs; `None` once it has ended (remove it).
    pub fn mark(&self) -> Option<ImportMark> {
        self.status.is_running().then(|| ImportMark {
            file: self.file.clone(),
            imported_ms: self.started_ms,
            total_bytes: self.total_bytes,
            bytes: self.bytes,
            read: self.read,
            added: self.added,
        })
    }

    /// The time left at the rate so far, in milliseconds (`None` before any byte was read, or
    /// once it is not running).
    pub fn left_ms(&self, now_ms: u64) -> Option<u64> {
        if !self.status.is_running() || self.bytes == 0 {
            return None;
        }
        let spent = now_ms.saturating_sub(self.started_ms) as f64;
        let left = self.total_bytes.saturating_sub(self.bytes) as f64;
        Some((spent * left / self.bytes as f64).round() as u64)
    }

    /// Conversations read per second so far, for the benchmark's line.
    pub fn rate(&self) -> f64 {
        let spent = self.last_ms.saturating_sub(self.started_ms) as f64 / 1000.0;
        if spent > 0.0 {
            self.read as f64 / spent
        } else {
            0.0
        }
    }
}
