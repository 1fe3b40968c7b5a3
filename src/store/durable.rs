//! The small values a crash must not lose, in IndexedDB beside the sessions, each under its
//! localStorage key: the view, the chat box's draft, the settings record, which session holds
//! the live chat, and the mark of a large file's import while it runs.
//!
//! localStorage keeps them too, and is read synchronously, but Chromium writes localStorage to
//! disk lazily: a browser killed (a crash, an OOM kill, a power cut) a second after a change
//! reopens on the value before it. IndexedDB commits each transaction when it completes. So every
//! write goes to both, the values here are read once before the app mounts, and at start a
//! value found here wins over localStorage's, which is only a hint
//! ([`crate::app::storage::durable_or_hint`]). A value is never deleted here, only overwritten
//! (an empty draft is stored as ""), so "not found" always means "never written by this build":
//! a browser upgrading from a build without this store starts from its localStorage.
//!
//! IndexedDB that is missing, refused or slow only costs the durability: after
//! [`LOAD_PATIENCE_MS`] the app mounts with localStorage's values, and failed writes are
//! ignored (the session library reports its own storage failures).

use std::cell::RefCell;
use std::collections::HashMap;

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::JsValue;
use web_sys::IdbTransactionMode;

use super::StoreError;
use super::sessions::{STATE_STORE, describe, open, request_done, transaction_done};

/// How long the app waits for IndexedDB before it mounts with localStorage's values alone.
pub const LOAD_PATIENCE_MS: u32 = 1_500;

thread_local! {
    /// What IndexedDB held at start, overwritten by each write since; `None` until
    /// [`load`] answered (or when it could not).
    static SNAPSHOT: RefCell<Option<HashMap<String, String>>> = const { RefCell::new(None) };
}

/// Reads every kept value into the snapshot. Called once, before the app mounts.
pub async fn load() -> Result<(), StoreError> {
    let db = open().await?;
    let tx = db
        .transaction_with_str(STATE_STORE)
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
    let request = tx
        .object_store(STATE_STORE)
        .and_then(|s| s.get_all())
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
    let all = request_done(&request)
        .await
        .map_err(|e| StoreError::Corrupt(describe(&e)))?;
    let mut values = HashMap::new();
    for item in Array::from(&all).iter() {
        let get = |field: &str| Reflect::get(&item, &JsValue::from_str(field)).ok();
        if let (Some(key), Some(value)) = (
            get("key").and_then(|k| k.as_string()),
            get("value").and_then(|v| v.as_string()),
        ) {
            values.insert(key, value);
        }
    }
    SNAPSHOT.with(|s| *s.borrow_mut() = Some(values));
    Ok(())
}

/// The value kept under `key`, if IndexedDB answered at start and holds one.
pub fn get(key: &str) -> Option<String> {
    SNAPSHOT.with(|s| s.borrow().as_ref().and_then(|m| m.get(key).cloned()))
}

/// Keeps `value` under `key`: in the snapshot at once, and in IndexedDB in a transaction of its
/// own. Transactions on one store commit in the order they were made, so the last write wins.
pub fn set(key: &str, value: &str) {
    SNAPSHOT.with(|s| {
        if let Some(map) = s.borrow_mut().as_mut() {
            map.insert(key.to_owned(), value.to_owned());
        }
    });
    let (key, value) = (key.to_owned(), value.to_owned());
    wasm_bindgen_futures::spawn_local(async move {
        let _ = put(&key, &value).await;
    });
}

async fn put(key: &str, value: &str) -> Result<(), StoreError> {
    let db = open().await?;
    let tx = db
        .transaction_with_str_and_mode(STATE_STORE, IdbTransactionMode::Readwrite)
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
    let record = Object::new();
    let _ = Reflect::set(&record, &"key".into(), &JsValue::from_str(key));
    let _ = Reflect::set(&record, &"value".into(), &JsValue::from_str(value));
    tx.object_store(STATE_STORE)
        .and_then(|s| s.put(&record))
        .map_err(|e| StoreError::TransactionFailed(describe(&e)))?;
    transaction_done(&tx)
        .await
        .map_err(|e| StoreError::TransactionFailed(describe(&e)))
}
