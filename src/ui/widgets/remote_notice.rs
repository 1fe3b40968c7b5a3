//! `RemoteNoticeView`: the notice that another tab of the app changed a session, shown in the
//! Inspect tab's list and, for the live chat, above the other tabs (`store_alerts.rs`).

use leptos::prelude::*;

use crate::app::library::LibraryTab;
use crate::ui::run::library_sync::{self as sync, Sessions};

/// The notice that another tab changed a session; with this tab's change unsaved, it offers
/// "Reload" or "Keep mine as a copy".
#[component]
pub fn RemoteNoticeView() -> impl IntoView {
    let sessions = expect_context::<Sessions>();
    let tab = sessions.tab;
    let notice = Memo::new(move |_| tab.with(|t| t.remote().cloned()));
    move || {
        notice.get().map(|notice| {
            let unsaved = notice.unsaved;
            let id = StoredValue::new(notice.id.clone());
            view! {
                <p class="notice" data-testid="remote-notice" role="status">
                    {notice.text()}
                    {unsaved.then(|| view! {
                        " "
                        <button data-testid="remote-reload" on:click=move |_| {
                            sync::resolve(sessions, id.get_value(), false);
                        }>"Reload"</button>
                        " "
                        <button data-testid="remote-keep-copy" on:click=move |_| {
                            sync::resolve(sessions, id.get_value(), true);
                        }>"Keep mine as a copy"</button>
                    })}
                    " "
                    <button data-testid="remote-dismiss" on:click=move |_| tab.update(LibraryTab::dismiss_remote)>"OK"</button>
                </p>
            }
        })
    }
}
