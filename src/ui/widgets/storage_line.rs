//! Settings' line on storage, [`StorageLine`], and [`PersistReminder`], the reminder to export a
//! large library the browser may evict (Settings and Inspect). Every sentence comes from
//! `app::storage`; the runner is `ui::run::storage_status`.

use leptos::prelude::*;

use crate::app::storage::StorageStatus;
use crate::ui::run::library_sync::{self as sync, Sessions};
use crate::ui::run::storage_status::Storage;

/// Settings' line on storage (`storage-persist`, `data-state` the browser's answer): whether the
/// browser keeps the data, the space used and free, and the reminder when it applies.
#[component]
pub fn StorageLine() -> impl IntoView {
    let storage = expect_context::<Storage>();
    let status = storage.0;
    // The space changes as sessions come and go: read it anew each time Settings opens.
    storage.refresh_space();
    view! {
        <p
            class="hint storage-persist"
            data-testid="storage-persist"
            data-state=move || status.with(|s| s.persistence.slug())
        >
            {move || status.with(StorageStatus::describe)}
        </p>
        <PersistReminder />
    }
}

/// The reminder to export (`persist-reminder`, with `persist-export`), shown while the browser
/// may evict a library of [`crate::app::storage::LARGE_LIBRARY`] sessions or more.
#[component]
pub fn PersistReminder() -> impl IntoView {
    let status = expect_context::<Storage>().0;
    let sessions = expect_context::<Sessions>();
    let reminder = Memo::new(move |_| {
        let held = sessions.library.with(|l| l.len());
        status.with(|s| s.export_reminder(held))
    });
    move || {
        reminder.get().map(|text| {
            view! {
                <div class="notice persist-reminder" data-testid="persist-reminder">
                    <p>{text}</p>
                    <button data-testid="persist-export" on:click=move |_| {
                        sync::export_all(sessions);
                    }>"Export all sessions"</button>
                </div>
            }
        })
    }
}
