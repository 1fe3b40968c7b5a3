//! The Inspect tab: import (file or drop) and export of session files, the session list
//! (`list.rs`), and a read-only look at one session (`detail.rs`: archive, editions, drift;
//! `replay.rs`: a dry run under another trigger). Nothing here needs an endpoint, a key or the
//! network. Components read and render; what they do goes through the app-wide
//! [`Sessions`], whose runner ([`crate::ui::library_sync`]) performs it.

mod detail;
mod list;
mod replay;

use leptos::prelude::*;
use leptos::task::spawn_local;

pub use super::library_sync::provide_sessions;
use super::library_sync::{self as sync, Sessions};
use crate::app::library::LibraryTab;
pub use list::RemoteNoticeView;

/// The Inspect tab panel.
#[component]
pub fn InspectTab() -> impl IntoView {
    let sessions = expect_context::<Sessions>();
    let tab = sessions.tab;
    let export_text = RwSignal::new(String::new());
    let dragging = RwSignal::new(false);

    let on_file = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            spawn_local(sync::import_file(sessions, file));
        }
        // Clearing the value lets the same file be chosen again after fixing it.
        input.set_value("");
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        let file = ev
            .data_transfer()
            .and_then(|d| d.files())
            .and_then(|f| f.get(0));
        if let Some(file) = file {
            spawn_local(sync::import_file(sessions, file));
        }
    };
    let export = move |_| export_text.set(sync::export(sessions));
    let open = Memo::new(move |_| tab.with(|t| t.selected().is_some()));
    let export_label = Memo::new(move |_| {
        if open.get() {
            "Export this session"
        } else {
            "Export all sessions"
        }
    });

    view! {
        <section
            class="panel inspect"
            class:dragging=move || dragging.get()
            data-testid="panel-inspect"
            on:dragover=move |ev: leptos::ev::DragEvent| {
                ev.prevent_default();
                dragging.set(true);
            }
            on:dragleave=move |_| dragging.set(false)
            on:drop=on_drop
        >
            <h2>"Inspect"</h2>
            <p class="hint">
                "Open an exported session (choose a file or drop it here) and look through it offline. "
                "Sessions are kept in this browser; an export never contains your API key."
            </p>
            <ProblemAlert />
            <list::RemoteNoticeView />
            <div class="controls">
                <label class="file">
                    "Import a session file "
                    <input type="file" accept=".json,application/json" data-testid="import-file" on:change=on_file />
                </label>
                <button data-testid="export" on:click=export>{move || export_label.get()}</button>
                {move || open.get().then(|| view! {
                    <button on:click=move |_| tab.update(LibraryTab::close)>"Close"</button>
                })}
            </div>
            <output data-testid="export-preview" hidden>{move || export_text.get()}</output>
            <list::UndoNotice />
            <list::SessionList />
            <detail::SessionDetail />
        </section>
    }
}

/// The last import or library problem (a storage failure is shown above every tab instead),
/// with "Reload sessions" when a reload settles it, and "Export them as stored" for records
/// that could not be read.
#[component]
fn ProblemAlert() -> impl IntoView {
    let sessions = expect_context::<Sessions>();
    let tab = sessions.tab;
    let text = Memo::new(move |_| tab.with(|t| t.problem_here().map(ToString::to_string)));
    let offers_reload = Memo::new(move |_| tab.with(LibraryTab::offers_reload));
    let skipped = Memo::new(move |_| tab.with(|t| t.skipped_raw().is_some()));
    let raw = RwSignal::new(String::new());
    move || {
        text.get().map(|text| {
            view! {
                <p class="error" data-testid="error" role="alert">
                    {text}
                    {move || skipped.get().then(|| view! {
                        " "
                        <button data-testid="export-unreadable" on:click=move |_| {
                            raw.set(sync::export_unreadable(sessions));
                        }>"Export them as stored"</button>
                        <output data-testid="unreadable-preview" hidden>{move || raw.get()}</output>
                    })}
                    {move || offers_reload.get().then(|| view! {
                        " "
                        <button data-testid="reload" on:click=move |_| {
                            tab.update(LibraryTab::reloading);
                            spawn_local(sync::load(sessions));
                        }>"Reload sessions"</button>
                    })}
                </p>
            }
        })
    }
}
