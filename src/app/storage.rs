//! The storage boundary's error, as the app sees it: [`StoreError`], one variant per way the
//! browser's storage (localStorage, IndexedDB) or a download can fail, each saying what to do
//! next. It lives in the pure layer so that what the app does about a failure (which notice
//! it becomes, which problem wins) is decided, and tested, natively; `crate::store` performs
//! the I/O and re-exports it.
//!
//! Beside it, two decisions about what the browser keeps. [`durable_or_hint`] picks which of a
//! small value's two stored copies the app starts from: IndexedDB's wins over localStorage's
//! (ARCHITECTURE.md, invariant 9). [`StorageStatus`] holds what the browser answered when asked
//! to keep the site's data ([`Persistence`]) and the space used, and says when to ask, the
//! sentence Settings shows, and when a library of [`LARGE_LIBRARY`] sessions or more that the
//! browser may evict gets a reminder to export.

use thiserror::Error;

use crate::engine::session::ImportError;

/// Why the browser's storage could not be used.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum StoreError {
    /// The browser refuses storage (private mode, disabled site data, or a sandboxed frame).
    #[error(
        "This browser does not allow the page to store data ({0}); settings will last only until the tab closes. Allow site data for this page to keep them."
    )]
    Unavailable(&'static str),
    /// Writing failed, usually because the storage quota is full.
    #[error(
        "Could not save the settings: the browser's storage is full or read-only. Delete old sessions or allow more site data."
    )]
    WriteFailed,
    /// The stored settings could not be read back.
    #[error(
        "The saved settings could not be read ({0}). The fields that could be read are kept and the rest are back to their defaults; your API key is kept. Check the form, especially the base URL, which the key is sent to."
    )]
    Corrupt(String),
    /// IndexedDB cannot be used (private mode, blocked site data, or an old browser).
    #[error(
        "Sessions cannot be kept in this browser ({0}); they last until the tab closes. Export them to files, or allow site data for this page."
    )]
    NoIndexedDb(String),
    /// The browser's storage quota is used up.
    #[error(
        "The browser's storage is full, so the change was not saved; the last saved copy is kept. Export and delete old sessions, or allow more site data."
    )]
    QuotaExceeded,
    /// Another tab saved this session since this tab loaded it.
    #[error(
        "\"{name}\" was changed in another tab, so this tab's change was not saved. Reload to see the newer version."
    )]
    Conflict { name: String },
    /// The save transaction failed and was rolled back.
    #[error(
        "Saving failed ({0}); the last saved copy is kept. Try again, or export the session to a file."
    )]
    TransactionFailed(String),
    /// A stored session no longer imports (a newer app wrote it, or it was damaged); the
    /// record is left in storage untouched.
    #[error("\u{201c}{name}\u{201d} could not be read: {reason}")]
    Unreadable { name: String, reason: ImportError },
    /// The browser did not start the download of an export.
    #[error("The export could not be downloaded ({0}); copy it from the preview instead.")]
    DownloadFailed(String),
}

/// Which of two stored copies of a small value the app starts from: the one IndexedDB kept
/// (`durable`), which a crash cannot drop once its transaction completed, or else the one
/// localStorage held (`hint`), which Chromium writes to disk lazily, so that after a crash it
/// can be missing or older than the library. The durable copy is never deleted, only
/// overwritten, so a missing one means it was never written (a browser that last ran a build
/// without it), and only then does the hint count.
pub fn durable_or_hint(durable: Option<String>, hint: Option<String>) -> Option<String> {
    durable.or(hint)
}

/// What the browser said when asked to keep the site's data under storage pressure
/// (`navigator.storage.persist()`), which decides whether it may evict the library unasked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Persistence {
    /// Not asked yet: the library has held nothing so far.
    #[default]
    NotAsked,
    /// The data is kept until the user clears it.
    Granted,
    /// The browser may evict the data under storage pressure.
    Refused,
    /// This browser has no `navigator.storage`.
    Unsupported,
}

/// The storage facts Settings shows: persistence and the space used and free for this site.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StorageStatus {
    pub persistence: Persistence,
    /// Bytes this site uses, and the quota it may use, as `navigator.storage.estimate()` says.
    pub usage: Option<f64>,
    pub quota: Option<f64>,
}

/// A library of this many sessions is worth a reminder to export when persistence was refused.
pub const LARGE_LIBRARY: usize = 20;

impl Persistence {
    /// The slug of `data-state`.
    pub fn slug(self) -> &'static str {
        match self {
            Persistence::NotAsked => "not-asked",
            Persistence::Granted => "granted",
            Persistence::Refused => "refused",
            Persistence::Unsupported => "unsupported",
        }
    }
}

impl StorageStatus {
    /// Whether to ask the browser to keep the data now: once, when the library first holds
    /// something (a browser asked with nothing stored has nothing to keep, and Chromium answers
    /// from the site's engagement at the time it is asked).
    pub fn should_ask(&self, sessions: usize) -> bool {
        self.persistence == Persistence::NotAsked && sessions > 0
    }

    /// The sentence Settings shows.
    pub fn describe(&self) -> String {
        let kept = match self.persistence {
            Persistence::NotAsked => {
                "The browser has not been asked to keep this site's data yet (it is asked once the library holds a session)."
            }
            Persistence::Granted => "The browser keeps this site's data until you clear it.",
            Persistence::Refused => {
                "The browser may clear this site's data when the disk runs low: export the sessions you want to keep."
            }
            Persistence::Unsupported => {
                "This browser cannot be asked to keep the site's data: export the sessions you want to keep."
            }
        };
        match (self.usage, self.quota) {
            (Some(used), Some(quota)) => format!(
                "{kept} {} used, {} free.",
                bytes(used),
                bytes((quota - used).max(0.0))
            ),
            _ => kept.to_owned(),
        }
    }

    /// The reminder to export, shown when the browser may evict a large library.
    pub fn export_reminder(&self, sessions: usize) -> Option<String> {
        (matches!(self.persistence, Persistence::Refused | Persistence::Unsupported)
            && sessions >= LARGE_LIBRARY)
            .then(|| {
                format!(
                    "The browser did not promise to keep this site's data, and the library holds {sessions} sessions. Export them now and then, so that a browser clearing space never costs them."
                )
            })
    }
}

/// A byte count as people read it: "840 KB", "1.2 MB", "3.4 GB".
fn bytes(n: f64) -> String {
    let units = ["bytes", "KB", "MB", "GB", "TB"];
    let mut value = n;
    let mut unit = 0;
    while value >= 1000.0 && unit < units.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{} bytes", value.round())
    } else if value < 10.0 {
        format!("{value:.1} {}", units[unit])
    } else {
        format!("{} {}", value.round(), units[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A browser killed a second after the draft was cleared by Send reopened with the old
    /// draft: localStorage had not written the change to disk yet.
    #[test]
    fn the_durable_copy_wins_over_the_hint_even_when_empty() {
        let stale = Some("what I typed before Send".to_owned());
        assert_eq!(
            durable_or_hint(Some(String::new()), stale.clone()),
            Some(String::new())
        );
        assert_eq!(
            durable_or_hint(Some("tab=inspect".into()), Some("tab=chat".into())).as_deref(),
            Some("tab=inspect")
        );
        // Never written durably (an older build ran last): the hint is all there is.
        assert_eq!(durable_or_hint(None, stale.clone()), stale);
        assert_eq!(durable_or_hint(None, None), None);
    }

    #[test]
    fn persistence_is_asked_once_the_library_holds_something() {
        let status = StorageStatus::default();
        assert!(!status.should_ask(0));
        assert!(status.should_ask(1));
        for persistence in [
            Persistence::Granted,
            Persistence::Refused,
            Persistence::Unsupported,
        ] {
            let asked = StorageStatus {
                persistence,
                ..status
            };
            assert!(!asked.should_ask(5), "{persistence:?}: asked once only");
        }
    }

    #[test]
    fn settings_says_what_the_browser_answered_and_the_space() {
        let status = StorageStatus {
            persistence: Persistence::Granted,
            usage: Some(1_234_567.0),
            quota: Some(300e9),
        };
        assert_eq!(
            status.describe(),
            "The browser keeps this site's data until you clear it. 1.2 MB used, 300 GB free."
        );
        let refused = StorageStatus {
            persistence: Persistence::Refused,
            usage: Some(840.0),
            quota: Some(840.0),
        };
        assert!(refused.describe().contains("may clear"));
        assert!(
            refused
                .describe()
                .ends_with("840 bytes used, 0 bytes free.")
        );
        assert!(!StorageStatus::default().describe().contains("used"));
    }

    #[test]
    fn a_large_library_the_browser_may_evict_gets_a_reminder_to_export() {
        let refused = StorageStatus {
            persistence: Persistence::Refused,
            ..StorageStatus::default()
        };
        assert_eq!(refused.export_reminder(LARGE_LIBRARY - 1), None);
        let reminder = refused.export_reminder(LARGE_LIBRARY).unwrap();
        assert!(reminder.contains("20 sessions"), "{reminder}");
        let granted = StorageStatus {
            persistence: Persistence::Granted,
            ..refused
        };
        assert_eq!(granted.export_reminder(500), None);
    }
}
