//! The session library in IndexedDB: one record per session, each write one transaction, or
//! a batch of them one transaction together ([`write_all`]: a large import's batch).
//!
//! A record holds the session as the engine's versioned export text (so the stored form is the
//! file format, never an internal type) beside its id, name, time and revision. A write reads the
//! stored revision and writes only if it is the one the caller expects, inside the same
//! transaction; otherwise it aborts, and the caller learns that another tab got there first. A
//! transaction that fails for any reason (quota, a value that cannot be stored) is aborted as a
//! whole, so the previous record is what remains.
//!
//! The database is at version 2, which added the `state` store of `store::durable` beside the
//! sessions; an upgrade from version 1 keeps the sessions as they are.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Array, Object, Promise, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    IdbDatabase, IdbObjectStoreParameters, IdbRequest, IdbTransaction, IdbTransactionMode,
};

use super::StoreError;

/// The database and its object stores: the sessions, and the small values a crash must not lose
/// (`store::durable`).
pub const DB_NAME: &str = "summary-memory";
pub const STORE: &str = "sessions";
pub const STATE_STORE: &str = "state";
/// Version 2 added [`STATE_STORE`]; an upgrade from version 1 keeps the sessions as they are.
const DB_VERSION: u32 = 2;

use crate::app::library::Origin;
pub use crate::app::library::Record;

/// Opens the database (once per page), creating the object store on first use.
pub async fn open() -> Result<IdbDatabase, StoreError> {
    if let Some(db) = DB.with(|db| db.borrow().clone()) {
        return Ok(db);
    }
    let factory = web_sys::window()
        .ok_or_else(|| StoreError::NoIndexedDb("no window".into()))?
        .indexed_db()
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?
        .ok_or_else(|| StoreError::NoIndexedDb("this browser has no IndexedDB".into()))?;
    let request = factory
        .open_with_u32(DB_NAME, DB_VERSION)
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
    let upgrade = Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
        let Some(db) = event
            .target()
            .and_then(|t| t.dyn_into::<IdbRequest>().ok())
            .and_then(|r| r.result().ok())
            .and_then(|r| r.dyn_into::<IdbDatabase>().ok())
        else {
            return;
        };
        // An upgrade starts from an empty database or from version 1, which had the sessions
        // only: each store is created when it is missing, and what is there is kept.
        let names = db.object_store_names();
        for (store, key_path) in [(STORE, "id"), (STATE_STORE, "key")] {
            if !names.contains(store) {
                let params = IdbObjectStoreParameters::new();
                params.set_key_path(&JsValue::from_str(key_path));
                let _ = db.create_object_store_with_optional_parameters(store, &params);
            }
        }
    });
    request.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
    let result = request_done(&request)
        .await
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
    drop(upgrade);
    let db: IdbDatabase = result
        .dyn_into()
        .map_err(|_| StoreError::NoIndexedDb("the database did not open".into()))?;
    // A newer build opened in another tab asks for an upgrade: this tab lets go of the database,
    // so the other is not blocked, and opens it again at its next write.
    let close = Closure::<dyn FnMut()>::new(|| {
        if let Some(db) = DB.with(|cell| cell.borrow_mut().take()) {
            db.close();
        }
    });
    db.set_onversionchange(Some(close.as_ref().unchecked_ref()));
    close.forget();
    DB.with(|cell| *cell.borrow_mut() = Some(db.clone()));
    Ok(db)
}

/// Every stored session, in no particular order.
pub async fn load_all() -> Result<Vec<Record>, StoreError> {
    let db = open().await?;
    let tx = db
        .transaction_with_str(STORE)
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
    let request = tx
        .object_store(STORE)
        .and_then(|s| s.get_all())
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
    let all = request_done(&request)
        .await
        .map_err(|e| StoreError::Corrupt(describe(&e)))?;
    Ok(Array::from(&all)
        .iter()
        .filter_map(|value| from_js(&value))
        .collect())
}

/// Stores `record` if the stored revision is `expected` (`None`: no record yet), in one
/// transaction. On any failure the stored record is left as it was.
pub async fn put(record: &Record, expected: Option<u64>) -> Result<(), StoreError> {
    put_value(&record.id, &record.name, to_js(record), expected).await
}

/// Removes the record `id` if its stored revision is `expected`.
pub async fn delete(id: &str, name: &str, expected: Option<u64>) -> Result<(), StoreError> {
    write(id, name, None, expected).await
}

/// [`put`] with the value given as it will be stored. Public so that the browser tests can hand
/// it a value IndexedDB refuses, and see that the old record survives.
pub async fn put_value(
    id: &str,
    name: &str,
    value: JsValue,
    expected: Option<u64>,
) -> Result<(), StoreError> {
    write(id, name, Some(value), expected).await
}

/// One write of [`write_all`]: the record `id` (named `name`) to store as `value`, or to remove
/// with `None`, if its stored revision is `expected`.
pub struct Write {
    pub id: String,
    pub name: String,
    pub value: Option<JsValue>,
    pub expected: Option<u64>,
}

impl Write {
    /// Stores `record` over the revision `expected`.
    pub fn put(record: &Record, expected: Option<u64>) -> Write {
        Write {
            id: record.id.clone(),
            name: record.name.clone(),
            value: Some(to_js(record)),
            expected,
        }
    }

    /// Removes the record `id` of the revision `expected`.
    pub fn delete(id: &str, expected: Option<u64>) -> Write {
        Write {
            id: id.to_owned(),
            name: id.to_owned(),
            value: None,
            expected,
        }
    }
}

/// Performs `writes` in one transaction, each as [`put`] and [`delete`] would: all of them land,
/// or (a conflict, a full disk) none does and the stored records are left as they were.
pub async fn write_all(writes: Vec<Write>) -> Result<(), StoreError> {
    let db = open().await?;
    let tx = db
        .transaction_with_str_and_mode(STORE, IdbTransactionMode::Readwrite)
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
    let store = tx
        .object_store(STORE)
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
    let outcome = Rc::new(Outcome::default());
    let conflicted = Rc::new(RefCell::new(None::<String>));
    let mut handlers = Vec::with_capacity(writes.len());
    for write in writes {
        let read = store
            .get(&JsValue::from_str(&write.id))
            .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
        let on_read = {
            let outcome = outcome.clone();
            let conflicted = conflicted.clone();
            let tx = tx.clone();
            let store = store.clone();
            let read = read.clone();
            Closure::<dyn FnMut()>::new(move || {
                let stored = stored_revision(&read);
                if stored != write.expected {
                    outcome.conflict.set(Some(stored));
                    conflicted
                        .borrow_mut()
                        .get_or_insert_with(|| write.name.clone());
                    let _ = tx.abort();
                    return;
                }
                let written = match &write.value {
                    Some(value) => store.put(value).map(|_| ()),
                    None => store.delete(&JsValue::from_str(&write.id)).map(|_| ()),
                };
                if let Err(error) = written {
                    *outcome.failure.borrow_mut() = Some(describe(&error));
                    let _ = tx.abort();
                }
            })
        };
        read.set_onsuccess(Some(on_read.as_ref().unchecked_ref()));
        handlers.push(on_read);
    }
    let done = transaction_done(&tx).await;
    drop(handlers);
    if let Some(name) = conflicted.borrow_mut().take() {
        return Err(StoreError::Conflict { name });
    }
    if let Some(reason) = outcome.failure.borrow_mut().take() {
        return Err(classify(reason));
    }
    done.map_err(|e| classify(describe(&e)))
}

/// Reads one record, for tests and for a reload after a conflict.
pub async fn get(id: &str) -> Result<Option<Record>, StoreError> {
    let db = open().await?;
    let tx = db
        .transaction_with_str(STORE)
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
    let request = tx
        .object_store(STORE)
        .and_then(|s| s.get(&JsValue::from_str(id)))
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
    let value = request_done(&request)
        .await
        .map_err(|e| StoreError::Corrupt(describe(&e)))?;
    Ok(from_js(&value))
}

thread_local! {
    static DB: RefCell<Option<IdbDatabase>> = const { RefCell::new(None) };
}

/// What went wrong inside a write transaction, noted by its callbacks.
#[derive(Default)]
struct Outcome {
    conflict: Cell<Option<Option<u64>>>,
    failure: RefCell<Option<String>>,
}

async fn write(
    id: &str,
    name: &str,
    value: Option<JsValue>,
    expected: Option<u64>,
) -> Result<(), StoreError> {
    let db = open().await?;
    let tx = db
        .transaction_with_str_and_mode(STORE, IdbTransactionMode::Readwrite)
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
    let store = tx
        .object_store(STORE)
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
    let read = store
        .get(&JsValue::from_str(id))
        .map_err(|e| StoreError::NoIndexedDb(describe(&e)))?;
    let outcome = Rc::new(Outcome::default());
    let on_read = {
        let outcome = outcome.clone();
        let tx = tx.clone();
        let read = read.clone();
        let id = id.to_owned();
        Closure::<dyn FnMut()>::new(move || {
            let stored = stored_revision(&read);
            if stored != expected {
                outcome.conflict.set(Some(stored));
                let _ = tx.abort();
                return;
            }
            let written = match &value {
                Some(value) => store.put(value).map(|_| ()),
                None => store.delete(&JsValue::from_str(&id)).map(|_| ()),
            };
            if let Err(error) = written {
                *outcome.failure.borrow_mut() = Some(describe(&error));
                let _ = tx.abort();
            }
        })
    };
    read.set_onsuccess(Some(on_read.as_ref().unchecked_ref()));
    let done = transaction_done(&tx).await;
    drop(on_read);
    if outcome.conflict.get().is_some() {
        return Err(StoreError::Conflict {
            name: name.to_owned(),
        });
    }
    if let Some(reason) = outcome.failure.borrow_mut().take() {
        return Err(classify(reason));
    }
    done.map_err(|e| classify(describe(&e)))
}

/// Quota errors get their own advice; anything else is a failed transaction.
fn classify(reason: String) -> StoreError {
    if reason.contains("QuotaExceeded") {
        StoreError::QuotaExceeded
    } else {
        StoreError::TransactionFailed(reason)
    }
}

/// Resolves with the request's result once it succeeds.
pub(super) async fn request_done(request: &IdbRequest) -> Result<JsValue, JsValue> {
    let request = request.clone();
    let promise = Promise::new(&mut |resolve, reject| {
        let ok = {
            let request = request.clone();
            Closure::once_into_js(move || {
                let _ = resolve.call1(&JsValue::NULL, &request.result().unwrap_or(JsValue::NULL));
            })
        };
        let fail = {
            let request = request.clone();
            Closure::once_into_js(move || {
                let error = request
                    .error()
                    .ok()
                    .flatten()
                    .map(JsValue::from)
                    .unwrap_or_else(|| JsValue::from_str("the request failed"));
                let _ = reject.call1(&JsValue::NULL, &error);
            })
        };
        request.set_onsuccess(Some(ok.unchecked_ref()));
        request.set_onerror(Some(fail.unchecked_ref()));
    });
    JsFuture::from(promise).await
}

/// Resolves when the transaction commits; rejects when it aborts or fails.
pub(super) async fn transaction_done(tx: &IdbTransaction) -> Result<(), JsValue> {
    let tx = tx.clone();
    let promise = Promise::new(&mut |resolve, reject| {
        let complete = Closure::once_into_js(move || {
            let _ = resolve.call0(&JsValue::NULL);
        });
        let fail = {
            let tx = tx.clone();
            let reject = reject.clone();
            Closure::once_into_js(move || {
                let error = tx
                    .error()
                    .map(JsValue::from)
                    .unwrap_or_else(|| JsValue::from_str("the transaction was aborted"));
                let _ = reject.call1(&JsValue::NULL, &error);
            })
        };
        tx.set_oncomplete(Some(complete.unchecked_ref()));
        // `error` bubbles to `abort`, so listening to abort alone reports each failure once.
        tx.set_onabort(Some(fail.unchecked_ref()));
    });
    JsFuture::from(promise).await.map(|_| ())
}

pub(super) fn describe(error: &JsValue) -> String {
    if let Some(e) = error.dyn_ref::<web_sys::DomException>() {
        return format!("{}: {}", e.name(), e.message());
    }
    if let Some(e) = error.dyn_ref::<js_sys::Error>() {
        return String::from(e.message());
    }
    error.as_string().unwrap_or_else(|| format!("{error:?}"))
}

fn to_js(record: &Record) -> JsValue {
    let object = Object::new();
    let set = |key: &str, value: JsValue| {
        let _ = Reflect::set(&object, &JsValue::from_str(key), &value);
    };
    set("id", JsValue::from_str(&record.id));
    set("name", JsValue::from_str(&record.name));
    set("updated_ms", JsValue::from_f64(record.updated_ms as f64));
    set("revision", JsValue::from_f64(record.revision as f64));
    set("file", JsValue::from_str(&record.file));
    if let Some(deleted) = record.deleted_ms {
        set("deleted_ms", JsValue::from_f64(deleted as f64));
    }
    // The import the session came from, beside the file (the export format does not hold it).
    if let Some(origin) = &record.origin {
        set("import_file", JsValue::from_str(&origin.file));
        set("imported_ms", JsValue::from_f64(origin.imported_ms as f64));
        set(
            "import_position",
            JsValue::from_f64(f64::from(origin.position)),
        );
    }
    object.into()
}

/// The revision of the record a finished read found, or `None` when there was none.
fn stored_revision(read: &IdbRequest) -> Option<u64> {
    read.result()
        .ok()
        .as_ref()
        .and_then(from_js)
        .map(|r| r.revision)
}

fn from_js(value: &JsValue) -> Option<Record> {
    if !value.is_object() {
        return None;
    }
    let get = |key: &str| Reflect::get(value, &JsValue::from_str(key)).ok();
    Some(Record {
        id: get("id")?.as_string()?,
        name: get("name")?.as_string().unwrap_or_default(),
        updated_ms: get("updated_ms")?.as_f64().unwrap_or(0.0) as u64,
        revision: get("revision")?.as_f64()? as u64,
        file: get("file")?.as_string().unwrap_or_default(),
        deleted_ms: get("deleted_ms").and_then(|v| v.as_f64()).map(|v| v as u64),
        // A record stored before imports were recorded has none of these: it belongs to no
        // import, and reads as before.
        origin: get("import_file")
            .and_then(|v| v.as_string())
            .map(|file| Origin {
                file,
                imported_ms: get("imported_ms").and_then(|v| v.as_f64()).unwrap_or(0.0) as u64,
                position: get("import_position")
                    .and_then(|v| v.as_f64())
                    .unwrap_or(0.0) as u32,
            }),
    })
}
