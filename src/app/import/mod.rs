//! A large file imported a batch at a time, parsed in a worker, never on the main thread.
//!
//! The worker's side ([`import_stream`]): the file is read in slices through the core's
//! streaming reader (`engine::transcript::stream`), each conversation becomes a session file
//! (counted with words only: the page recounts it with its own counter) under a
//! [`stable_id`], and the sessions go to the page in batches of about [`BATCH_BYTES`], each
//! with how far into the file it got ([`FromImporter`]). A file that is not an array of
//! conversations nor JSON Lines of them is read whole in the worker, as the page reads a small
//! file, within the size cap.
//!
//! The page's side: [`Library::add_pieces`] adds a batch (an id the library holds already is
//! passed over, so importing the same file again adds nothing twice), and [`ImportRun`] is the
//! import's state machine (running, stopped, failed, done, and cut off by a crash or a reload,
//! which the [`ImportMark`] kept in storage tells the next visit). A batch is whole
//! conversations, each stored as its own record, so a stop or a crash leaves whole
//! conversations only.

use std::cell::Cell;
use std::io::{BufRead, Read};
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::app::library::Library;
use crate::engine::message::{CountTokens, WordCounter};
use crate::engine::run::RunStatus;
use crate::engine::session::{self, MAX_IMPORT_BYTES};
use crate::engine::transcript::stream::{Place, Streamed, stream};
use crate::engine::transcript::{Conversation, Skipped};

#[cfg(test)]
mod tests;

/// A file at least this large is imported in the worker, a batch at a time; a smaller one is
/// read at once, as before (it parses in a few milliseconds).
pub const STREAM_FROM_BYTES: u64 = 2 * 1024 * 1024;

/// About how much session text one batch carries: the page reads and counts a batch in one
/// task, which stays well under 50 ms at this size.
pub const BATCH_BYTES: usize = 96 * 1024;

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

/// A reader that counts what was consumed of it, where the sink can see it.
struct Counted<R> {
    inner: R,
    consumed: Rc<Cell<u64>>,
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

/// The batch being filled.
struct Batcher<'p, P> {
    post: &'p mut P,
    now_ms: u64,
    app_version: &'p str,
    pieces: Vec<Piece>,
    skipped: Vec<String>,
    size: usize,
    /// Conversations read so far (the next one's position).
    read: u32,
}

impl<P: FnMut(FromImporter)> Batcher<'_, P> {
    fn take(&mut self, read: Result<Conversation, Skipped>, bytes: u64) {
        match read {
            Ok(c) => {
                let position = self.read;
                self.read += 1;
                let id = stable_id(&c, position);
                let number = position as usize + 1;
                let s = session::from_conversation(c, Some(number), &WordCounter);
                self.add(id, position, &s);
            }
            Err(skipped) => self.skipped.push(skipped.describe()),
        }
        if self.size >= BATCH_BYTES {
            self.flush(bytes);
        }
    }

    fn add(&mut self, id: String, position: u32, s: &crate::engine::library_session::Session) {
        let file = session::export_compact(s, self.now_ms, self.app_version);
        self.size += file.len();
        self.pieces.push(Piece { id, position, file });
    }

    fn flush(&mut self, bytes: u64) {
        if self.pieces.is_empty() && self.skipped.is_empty() {
            return;
        }
        self.size = 0;
        (self.post)(FromImporter::Batch {
            bytes,
            pieces: std::mem::take(&mut self.pieces),
            skipped: std::mem::take(&mut self.skipped),
        });
    }
}

/// The worker's import of one file: reads `reader` (the file, a slice at a time) through the
/// streaming reader and posts its sessions in batches, then [`FromImporter::Done`] or
/// [`FromImporter::Failed`]. Sessions are dated `now_ms` and written by `app_version`.
pub fn import_stream(
    reader: impl BufRead,
    now_ms: u64,
    app_version: &str,
    mut post: impl FnMut(FromImporter),
) {
    let consumed = Rc::new(Cell::new(0u64));
    let counted = Counted {
        inner: reader,
        consumed: Rc::clone(&consumed),
    };
    let mut batcher = Batcher {
        post: &mut post,
        now_ms,
        app_version,
        pieces: Vec::new(),
        skipped: Vec::new(),
        size: 0,
        read: 0,
    };
    let mut sink = |_: Place, read: Result<Conversation, Skipped>| {
        batcher.take(read, consumed.get());
    };
    let streamed = stream(counted, &mut sink);
    let bytes = consumed.get();
    let whole = match streamed {
        Ok(Streamed::Read {
            format, json_lines, ..
        }) => {
            batcher.flush(bytes);
            let source = match format {
                Some(format) => session::Source::Transcript { format, json_lines }.label(),
                None => "a file with no conversation that reads".to_owned(),
            };
            return post(FromImporter::Done { bytes, source });
        }
        Ok(Streamed::Value(value)) => session::read_json(value, &WordCounter),
        Ok(Streamed::Text(text)) if text.len() > MAX_IMPORT_BYTES => {
            batcher.flush(bytes);
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
            batcher.flush(bytes);
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
                batcher.skipped.push(skipped.describe());
            }
            for (position, s) in read.sessions.iter().enumerate() {
                let file = session::export_compact(s, now_ms, app_version);
                // Undated, so the same file imported again gives the same ids.
                let id = whole_id(&session::export_compact(s, 0, ""), position);
                batcher.size += file.len();
                batcher.pieces.push(Piece {
                    id,
                    position: position as u32,
                    file,
                });
                if batcher.size >= BATCH_BYTES {
                    batcher.flush(bytes);
                }
            }
            batcher.flush(bytes);
            post(FromImporter::Done { bytes, source });
        }
        Err(e) => post(FromImporter::Failed {
            bytes,
            reason: e.to_string(),
        }),
    }
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
