//! The storage boundary's error, as the app sees it: [`StoreError`], one variant per way the
//! browser's storage (localStorage, IndexedDB) or a download can fail, each saying what to do
//! next. It lives in the pure layer so that what the app does about a failure (which notice
//! it becomes, which problem wins) is decided, and tested, natively; `crate::store` performs
//! the I/O and re-exports it.

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
