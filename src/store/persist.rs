//! Asking the browser to keep the site's data (`navigator.storage.persist()`), and how much
//! space it uses (`navigator.storage.estimate()`). What to ask, when, and what the answer means
//! are decided in `app::storage` ([`StorageStatus`]); this only performs the calls.

use js_sys::{Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::app::storage::{Persistence, StorageStatus};

fn manager() -> Option<web_sys::StorageManager> {
    let navigator = web_sys::window()?.navigator();
    // Old browsers have no `navigator.storage`; web-sys would hand back `undefined` as one.
    let storage = Reflect::get(&navigator, &JsValue::from_str("storage")).ok()?;
    (!storage.is_undefined()).then(|| storage.unchecked_into())
}

async fn answer(promise: Result<Promise, JsValue>) -> Option<bool> {
    JsFuture::from(promise.ok()?).await.ok()?.as_bool()
}

/// Asks for persistence, unless it is already granted (which asks nothing of the user).
pub async fn persist() -> Persistence {
    let Some(manager) = manager() else {
        return Persistence::Unsupported;
    };
    if answer(manager.persisted()).await == Some(true) {
        return Persistence::Granted;
    }
    match answer(manager.persist()).await {
        Some(true) => Persistence::Granted,
        Some(false) => Persistence::Refused,
        None => Persistence::Unsupported,
    }
}

/// Whether the data is kept already, without asking.
pub async fn persisted() -> Persistence {
    match manager() {
        None => Persistence::Unsupported,
        Some(manager) => match answer(manager.persisted()).await {
            Some(true) => Persistence::Granted,
            Some(false) => Persistence::NotAsked,
            None => Persistence::Unsupported,
        },
    }
}

/// `status` with the space used and the quota filled in from the browser's estimate.
pub async fn estimate(status: StorageStatus) -> StorageStatus {
    let Some(promise) = manager().and_then(|m| m.estimate().ok()) else {
        return status;
    };
    let Ok(estimate) = JsFuture::from(promise).await else {
        return status;
    };
    let number = |field: &str| {
        Reflect::get(&estimate, &JsValue::from_str(field))
            .ok()
            .and_then(|v| v.as_f64())
    };
    StorageStatus {
        usage: number("usage"),
        quota: number("quota"),
        ..status
    }
}
