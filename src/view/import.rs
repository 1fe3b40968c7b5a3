//! A large file's import as the Inspect tab shows it (`app::import::ImportRun`): where it
//! stands, the sentence of how far it got (conversations read, bytes, time left), whether Stop
//! shows, and the entries skipped.

use crate::app::import::ImportRun;
use crate::engine::run::RunStatus;

use super::run::{grouped, seconds};

/// What the import's note draws.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportScreen {
    /// `running`, `stopped`, `failed` or `done` (`data-status`).
    pub status: &'static str,
    /// The sentence.
    pub line: String,
    /// Whether Stop shows (while it runs).
    pub stop: bool,
    /// Conversations read and added, for the page's hooks.
    pub read: usize,
    pub added: usize,
    pub bytes: u64,
    /// The entries skipped, each named; its heading when there are any.
    pub skipped: Vec<String>,
    pub skipped_heading: Option<String>,
    /// The import was cut off by a crash or a reload (`data-cut-off`).
    pub cut_off: bool,
}

impl ImportScreen {
    /// The screen of `run` at `now_ms`.
    pub fn of(run: &ImportRun, now_ms: u64) -> ImportScreen {
        let far = format!("{} of {}", size(run.bytes), size(run.total_bytes));
        let kept = conversations(run.added);
        let again =
            "Import the file again to go on: what the library holds already is not added twice.";
        let line = match &run.status {
            RunStatus::Running => {
                let left = match run.left_ms(now_ms) {
                    Some(ms) => format!(", about {} left", seconds(ms as f64)),
                    None => String::new(),
                };
                format!(
                    "Importing {}: {} read, {far}{left}.",
                    run.file,
                    conversations(run.read)
                )
            }
            RunStatus::Stopped if run.cut_off => format!(
                "The import of {} was cut off (the page was closed or stopped) after {far}; {kept} of it are in the library. {again}",
                run.file
            ),
            RunStatus::Stopped => format!(
                "Stopped the import of {} after {far}; {kept} of it are in the library. {again}",
                run.file
            ),
            RunStatus::Failed(reason) => format!(
                "The import of {} stopped after {far}: {reason}. The {kept} read before are in the library.",
                run.file
            ),
            RunStatus::Done => {
                let already = if run.already > 0 {
                    format!(", {} already in the library", grouped(run.already as u64))
                } else {
                    String::new()
                };
                let from = run.source.as_deref().unwrap_or("the file");
                format!(
                    "Read {} from {from} ({}, {}): {} added{already}.",
                    conversations(run.read),
                    run.file,
                    size(run.total_bytes),
                    grouped(run.added as u64)
                )
            }
        };
        let skipped_heading = match run.skipped.len() {
            0 => None,
            1 => Some("Skipped 1 conversation:".to_owned()),
            n => Some(format!("Skipped {} conversations:", grouped(n as u64))),
        };
        ImportScreen {
            status: run.status.slug(),
            line,
            stop: run.status.is_running(),
            read: run.read,
            added: run.added,
            bytes: run.bytes,
            skipped: run.skipped.clone(),
            skipped_heading,
            cut_off: run.cut_off,
        }
    }
}

fn conversations(n: usize) -> String {
    match n {
        1 => "1 conversation".to_owned(),
        n => format!("{} conversations", grouped(n as u64)),
    }
}

/// Bytes as the page says a file's size: `812 bytes`, `3.4 MB`.
pub fn size(bytes: u64) -> String {
    if bytes < 1_000_000 {
        format!("{} bytes", grouped(bytes))
    } else {
        format!("{:.1} MB", bytes as f64 / 1_000_000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::import::{Added, FromImporter, ImportMark};
    use crate::app::library::Library;

    fn half_way() -> ImportRun {
        let mut run = ImportRun::start("big.json", 300_000_000, 0);
        let added = Added {
            added: 1_200,
            already: 34,
            unreadable: vec![],
            first: None,
        };
        run.batch(100_000_000, 1_234, &added, vec![], 30_000);
        run
    }

    #[test]
    fn a_running_import_says_what_it_read_how_far_and_the_time_left_with_stop() {
        let screen = ImportScreen::of(&half_way(), 30_000);
        assert_eq!(screen.status, "running");
        assert!(screen.stop);
        assert_eq!(
            screen.line,
            "Importing big.json: 1,234 conversations read, 100.0 MB of 300.0 MB, about 60 s left."
        );
        assert_eq!(
            (screen.read, screen.added, screen.bytes),
            (1_234, 1_200, 100_000_000)
        );
        let fresh = ImportScreen::of(&ImportRun::start("big.json", 812, 0), 5);
        assert_eq!(
            fresh.line,
            "Importing big.json: 0 conversations read, 0 bytes of 812 bytes."
        );
    }

    #[test]
    fn a_stopped_or_cut_off_import_says_how_far_it_got_and_how_to_go_on() {
        let mut run = half_way();
        run.stop(31_000);
        let screen = ImportScreen::of(&run, 40_000);
        assert_eq!(screen.status, "stopped");
        assert!(!screen.stop && !screen.cut_off);
        assert_eq!(
            screen.line,
            "Stopped the import of big.json after 100.0 MB of 300.0 MB; 1,200 conversations of it are in the library. Import the file again to go on: what the library holds already is not added twice."
        );
        let mark = ImportMark {
            file: "big.json".into(),
            imported_ms: 0,
            total_bytes: 300_000_000,
            bytes: 2_500_000,
            read: 1,
            added: 1,
        };
        let cut = ImportScreen::of(&ImportRun::cut_off(mark, &Library::default()), 0);
        assert!(cut.cut_off);
        assert_eq!(cut.status, "stopped");
        assert!(cut.line.starts_with(
            "The import of big.json was cut off (the page was closed or stopped) after 2.5 MB of 300.0 MB; 0 conversations of it are in the library."
        ), "{}", cut.line);
    }

    #[test]
    fn a_failed_import_names_the_reason_and_what_was_kept() {
        let mut run = half_way();
        run.ended(
            &FromImporter::Failed {
                bytes: 100_000_100,
                reason: "[1235]: not valid JSON (line 1, column 9)".into(),
            },
            32_000,
        );
        let screen = ImportScreen::of(&run, 32_000);
        assert_eq!(screen.status, "failed");
        assert_eq!(
            screen.line,
            "The import of big.json stopped after 100.0 MB of 300.0 MB: [1235]: not valid JSON (line 1, column 9). The 1,200 conversations read before are in the library."
        );
    }

    #[test]
    fn a_finished_import_says_what_the_file_was_what_was_added_and_what_was_skipped() {
        let mut run = half_way();
        run.batch(
            299_000_000,
            1,
            &Added {
                added: 1,
                already: 0,
                unreadable: vec![],
                first: None,
            },
            vec!["[9]: no messages".into()],
            59_000,
        );
        run.ended(
            &FromImporter::Done {
                bytes: 300_000_000,
                source: "a ChatGPT data export".into(),
            },
            60_000,
        );
        let screen = ImportScreen::of(&run, 60_000);
        assert_eq!(screen.status, "done");
        assert!(!screen.stop);
        assert_eq!(
            screen.line,
            "Read 1,235 conversations from a ChatGPT data export (big.json, 300.0 MB): 1,201 added, 34 already in the library."
        );
        assert_eq!(
            screen.skipped_heading.as_deref(),
            Some("Skipped 1 conversation:")
        );
        assert_eq!(screen.skipped, vec!["[9]: no messages".to_owned()]);
        assert_eq!(ImportScreen::of(&half_way(), 0).skipped_heading, None);
    }
}
