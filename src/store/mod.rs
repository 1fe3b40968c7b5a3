//! Browser persistence: the settings in localStorage (an unreadable record is kept aside and
//! never costs the key: [`load_settings_kept`]), the chat box's draft, the API key where the
//! user chose.
//!
//! Architecture invariant: the key is stored apart from the other settings, in sessionStorage
//! (gone when the tab closes) unless the user ticked "remember on this device"; only then does
//! it go to localStorage, and unticking removes it from there. The settings record itself never
//! contains the key (see [`SettingsRecord`]).
//!
//! Beside this file: `sessions.rs`, the session library in IndexedDB; `durable.rs`, IndexedDB's
//! copy of the small values a crash must not lose (the view, the draft, the settings record, the
//! live chat's session id), which wins over localStorage's (ARCHITECTURE.md, invariant 9);
//! `persist.rs`, asking the browser to keep the site's data; `theme.rs`, the theme, applied to
//! `<html>` before the app mounts; `view.rs`, the last view; `broadcast.rs`, the channel
//! between open tabs.

pub mod broadcast;
pub mod durable;
pub mod persist;
pub mod sessions;
pub mod theme;
pub mod view;

use web_sys::Storage;

use crate::engine::settings::{Settings, SettingsRecord};

/// Where the settings record lives in localStorage.
pub const SETTINGS_KEY: &str = "summary-memory.settings";
/// The id of the library session that holds the live chat, so a reload resumes it.
pub const LIVE_SESSION_KEY: &str = "summary-memory.live-session";
/// Where the API key lives, in sessionStorage or (opted in) localStorage.
pub const API_KEY_KEY: &str = "summary-memory.api-key";
/// A settings record that could not be read, kept as it was before the form replaced it.
pub const UNREADABLE_SETTINGS_KEY: &str = "summary-memory.settings.unreadable";
/// The chat box's draft, so it survives a tab switch, a reload and a closed tab.
pub const DRAFT_KEY: &str = "summary-memory.draft";
/// A large file's import while it runs (`app::import::ImportMark`), so the next visit can say
/// how far one cut off by a crash or a reload got.
pub const IMPORT_MARK_KEY: &str = "summary-memory.import";

pub use crate::app::storage::StoreError;
use crate::app::storage::durable_or_hint;

/// The value the app starts from for `key`: IndexedDB's copy, or else localStorage's
/// (`store::durable` says why).
fn kept(local: &Storage, key: &str) -> Option<String> {
    durable_or_hint(durable::get(key), read(local, key).ok().flatten())
}

/// Writes `value` under `key` to localStorage and to IndexedDB (`store::durable`).
fn keep(local: &Storage, key: &str, value: &str) -> Result<(), StoreError> {
    durable::set(key, value);
    write(local, key, value)
}

/// Reads the settings and the key. No stored settings gives the defaults.
pub fn load_settings() -> Result<Settings, StoreError> {
    let local = local()?;
    let key = read(&local, API_KEY_KEY)?
        .or(session()
            .ok()
            .and_then(|s| read(&s, API_KEY_KEY).ok().flatten()))
        .unwrap_or_default();
    let Some(text) = read(&local, SETTINGS_KEY)? else {
        return Ok(Settings {
            api_key: key,
            ..Settings::default()
        });
    };
    let record: SettingsRecord =
        serde_json::from_str(&text).map_err(|error| StoreError::Corrupt(error.to_string()))?;
    Ok(record.into_settings(key))
}

/// Reads the settings and the key for the app: like [`load_settings`], but an unreadable record
/// never costs the key or the fields still readable ([`SettingsRecord::read`]); it is kept under
/// [`UNREADABLE_SETTINGS_KEY`] before the form's next save replaces it, and the error says so.
/// Storage that cannot be used at all gives the defaults and that error.
pub fn load_settings_kept() -> (Settings, Option<StoreError>) {
    let Ok(local) = local() else {
        let key = session()
            .ok()
            .and_then(|s| read(&s, API_KEY_KEY).ok().flatten())
            .unwrap_or_default();
        return (
            Settings {
                api_key: key,
                ..Settings::default()
            },
            Some(StoreError::Unavailable("localStorage is blocked")),
        );
    };
    let remembered = read(&local, API_KEY_KEY).ok().flatten();
    let key_remembered = remembered.is_some();
    let key = remembered
        .or(session()
            .ok()
            .and_then(|s| read(&s, API_KEY_KEY).ok().flatten()))
        .unwrap_or_default();
    let Some(text) = kept(&local, SETTINGS_KEY) else {
        return (
            Settings {
                api_key: key,
                ..Settings::default()
            },
            None,
        );
    };
    let read_back = SettingsRecord::read(&text, key, key_remembered);
    let error = read_back.unreadable.map(|reason| {
        let _ = write(&local, UNREADABLE_SETTINGS_KEY, &text);
        StoreError::Corrupt(reason)
    });
    (read_back.settings, error)
}

/// The chat box's draft, empty when there is none or storage is blocked.
pub fn load_draft() -> String {
    local()
        .ok()
        .and_then(|l| kept(&l, DRAFT_KEY))
        .unwrap_or_default()
}

/// Keeps the chat box's draft; an empty draft is removed from localStorage and kept as "" in
/// IndexedDB (so a crash cannot bring an older draft back). A refused write is ignored: the
/// draft is still in the box.
pub fn save_draft(text: &str) {
    durable::set(DRAFT_KEY, text);
    if let Ok(local) = local() {
        let _ = if text.is_empty() {
            remove(&local, DRAFT_KEY)
        } else {
            write(&local, DRAFT_KEY, text)
        };
    }
}

/// The library session the live chat was last kept in, if any: a hint, which
/// `Library::resume` checks against the library itself.
pub fn live_session_id() -> Option<String> {
    kept(&local().ok()?, LIVE_SESSION_KEY)
}

/// The mark a large file's import left, if any (see [`IMPORT_MARK_KEY`]); kept in IndexedDB as
/// well (`store::durable`), since a browser killed mid-import loses localStorage's last writes.
pub fn import_mark() -> Option<String> {
    kept(&local().ok()?, IMPORT_MARK_KEY).filter(|m| !m.is_empty())
}

/// Keeps the running import's mark; `None` clears it (stored as "", as `durable` never
/// deletes). A refused write is ignored: the import goes on, only a crash's note would be lost.
pub fn set_import_mark(mark: Option<&str>) {
    durable::set(IMPORT_MARK_KEY, mark.unwrap_or(""));
    if let Ok(local) = local() {
        let _ = match mark {
            Some(mark) => write(&local, IMPORT_MARK_KEY, mark),
            None => remove(&local, IMPORT_MARK_KEY),
        };
    }
}

/// Remembers which library session holds the live chat.
pub fn set_live_session_id(id: &str) -> Result<(), StoreError> {
    keep(&local()?, LIVE_SESSION_KEY, id)
}

/// Saves the settings without the key to localStorage, and the key where
/// [`Settings::remember_key`] says, removing it from the other place.
pub fn save_settings(settings: &Settings) -> Result<(), StoreError> {
    let local = local()?;
    let record = serde_json::to_string(&settings.to_record())
        .map_err(|error| StoreError::Corrupt(error.to_string()))?;
    keep(&local, SETTINGS_KEY, &record)?;
    save_key(&settings.api_key, settings.remember_key)
}

/// Puts the key in sessionStorage, or in localStorage when `remember` is set, and removes it
/// from the other. An empty key is removed from both.
pub fn save_key(key: &str, remember: bool) -> Result<(), StoreError> {
    let local = local()?;
    let session = session()?;
    let (keep, clear) = if remember {
        (&local, &session)
    } else {
        (&session, &local)
    };
    remove(clear, API_KEY_KEY)?;
    if key.is_empty() {
        remove(keep, API_KEY_KEY)
    } else {
        write(keep, API_KEY_KEY, key)
    }
}

fn local() -> Result<Storage, StoreError> {
    web_sys::window()
        .ok_or(StoreError::Unavailable("no window"))?
        .local_storage()
        .ok()
        .flatten()
        .ok_or(StoreError::Unavailable("localStorage is blocked"))
}

fn session() -> Result<Storage, StoreError> {
    web_sys::window()
        .ok_or(StoreError::Unavailable("no window"))?
        .session_storage()
        .ok()
        .flatten()
        .ok_or(StoreError::Unavailable("sessionStorage is blocked"))
}

fn read(storage: &Storage, key: &str) -> Result<Option<String>, StoreError> {
    storage
        .get_item(key)
        .map_err(|_| StoreError::Unavailable("reading storage was refused"))
}

fn write(storage: &Storage, key: &str, value: &str) -> Result<(), StoreError> {
    storage
        .set_item(key, value)
        .map_err(|_| StoreError::WriteFailed)
}

fn remove(storage: &Storage, key: &str) -> Result<(), StoreError> {
    storage
        .remove_item(key)
        .map_err(|_| StoreError::WriteFailed)
}
