//! The browser asked to keep the library once it holds something, and what it answered
//! ([`Storage`]), which `ui::widgets::storage_line` shows, and the space used and free read anew
//! when it asks ([`Storage::refresh_space`]). What to ask and when come from
//! `app::storage`.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::library_sync::Sessions;
use crate::app::storage::{Persistence, StorageStatus};
use crate::store::persist;

/// The storage facts as the page knows them.
#[derive(Clone, Copy)]
pub struct Storage(pub RwSignal<StorageStatus>);

impl Storage {
    /// Reads the space used and free anew (it changes as sessions come and go), in the
    /// background; the status takes it once the browser answers.
    pub fn refresh_space(self) {
        let status = self.0;
        spawn_local(async move {
            let refreshed = persist::estimate(status.get_untracked()).await;
            status.update(|s| {
                s.usage = refreshed.usage;
                s.quota = refreshed.quota;
            });
        });
    }
}

/// Creates the status, reads whether the data is kept already, and asks for persistence once
/// the loaded library first holds a session.
pub fn provide_storage_status(sessions: Sessions) -> Storage {
    let status = Storage(RwSignal::new(StorageStatus::default()));
    provide_context(status);
    let asking = StoredValue::new(false);
    spawn_local(async move {
        let kept = persist::persisted().await;
        if kept != Persistence::NotAsked {
            status.0.update(|s| s.persistence = kept);
        }
    });
    Effect::new(move |_| {
        let held = sessions.library.with(|l| l.len());
        if !sessions.loaded.get()
            || asking.get_value()
            || !status.0.with_untracked(|s| s.should_ask(held))
        {
            return;
        }
        asking.set_value(true);
        spawn_local(async move {
            let answer = persist::persist().await;
            let refreshed = persist::estimate(StorageStatus {
                persistence: answer,
                ..status.0.get_untracked()
            })
            .await;
            status.0.set(refreshed);
        });
    });
    status
}
