//! The session list of the Inspect tab: one [`SessionItem`] per session (open, rename,
//! duplicate, delete) and the undo notice after a deletion (it reappears after a reload). The
//! notice when another tab changed a session is a widget (`ui/widgets/remote_notice.rs`).

use leptos::prelude::*;

use crate::app::library::{Library, LibraryError};
use crate::ui::run::clock::now_ms;
use crate::ui::run::library_sync::{Sessions, new_id};
use crate::view::workspace::{deleted_line, session_counts};

/// The sessions, newest change first, or a line saying there are none.
#[component]
pub fn SessionList() -> impl IntoView {
    let Sessions { library, .. } = expect_context::<Sessions>();
    let ids = Memo::new(move |_| {
        library.with(|l| l.list().iter().map(|e| e.id.clone()).collect::<Vec<_>>())
    });
    view! {
        <ul class="session-list">
            <For each=move || ids.get() key=|id| id.clone() let:id>
                <SessionItem id />
            </For>
        </ul>
        {move || ids.with(Vec::is_empty).then(|| view! {
            <p class="empty">"No sessions yet. Import a file, or chat in the Chat tab."</p>
        })}
    }
}

/// "Deleted “…”. Undo / Dismiss", while the last deletion can be undone.
#[component]
pub fn UndoNotice() -> impl IntoView {
    let Sessions { library, tab, .. } = expect_context::<Sessions>();
    let undoable = Memo::new(move |_| library.with(|l| l.undoable().map(str::to_owned)));
    move || {
        undoable.get().map(|name| view! {
            <p class="undo">
                {deleted_line(&name)}
                <button data-testid="undo-delete" on:click=move |_| {
                    if let Some(Ok(id)) = library.try_update(Library::undo_delete) {
                        tab.update(|t| t.open(id));
                    }
                }>"Undo"</button>
                " "
                <button data-testid="undo-dismiss" on:click=move |_| library.update(Library::dismiss_undo)>"Dismiss"</button>
            </p>
        })
    }
}

/// One row of the session list: open, rename, duplicate, delete.
#[component]
fn SessionItem(id: String) -> impl IntoView {
    let Sessions { library, tab, .. } = expect_context::<Sessions>();
    let id = StoredValue::new(id);
    let summary = Memo::new(move |_| {
        library.with(|l| {
            l.get(&id.get_value()).map(|e| {
                (
                    e.session.name.clone(),
                    e.session.memory.turn_count(),
                    e.session.memory.editions().len(),
                )
            })
        })
    });
    let open = move || tab.with(|t| t.selected() == Some(id.get_value().as_str()));
    let report = move |result: Option<Result<(), LibraryError>>| {
        if let Some(result) = result {
            tab.update(|t| t.report_result(result));
        }
    };
    view! {
        <li data-testid="session-item" data-id=id.get_value() class:open=open>
            {move || summary.get().map(|(name, turns, editions)| view! {
                <button class="open" on:click=move |_| tab.update(|t| t.open(id.get_value()))>
                    <strong data-testid="session-name">{name.clone()}</strong>
                    {session_counts(turns, editions)}
                </button>
                <input
                    aria-label="Session name"
                    data-testid="session-rename"
                    prop:value=name
                    on:change=move |ev| {
                        let name = event_target_value(&ev);
                        report(library.try_update(|l| l.rename(&id.get_value(), &name, now_ms())));
                    }
                />
            })}
            <button data-testid="session-duplicate" on:click=move |_| {
                report(library.try_update(|l| l.duplicate(&id.get_value(), new_id(), now_ms())));
            }>"Duplicate"</button>
            <button data-testid="session-delete" on:click=move |_| {
                tab.update(|t| t.deleting(&id.get_value()));
                report(library.try_update(|l| l.delete(&id.get_value(), now_ms())));
            }>"Delete"</button>
        </li>
    }
}
