//! The session list of the Inspect tab, virtualised ([`VirtualList`]): only the rows in view are
//! in the page, so a library of tens of thousands of sessions draws as fast as one of ten. Each
//! row ([`SessionItem`]) stands for a place in the list and shows the session there (open,
//! rename, duplicate, delete); it redraws only when what it shows changes. Then the undo notice
//! after a deletion (it reappears after a reload). The notice when another tab changed a session
//! is a widget (`ui/widgets/remote_notice.rs`).

use leptos::prelude::*;

use crate::app::library::{Library, LibraryError};
use crate::ui::run::clock::now_ms;
use crate::ui::run::library_sync::{Sessions, new_id};
use crate::ui::widgets::virtual_list::VirtualList;
use crate::view::workspace::{SessionRow, deleted_line};

/// The sessions, newest change first, or a line saying there are none.
#[component]
pub fn SessionList() -> impl IntoView {
    let Sessions { library, .. } = expect_context::<Sessions>();
    let count = Memo::new(move |_| library.with(Library::len));
    let any = move || count.get() > 0;
    view! {
        <div data-testid="session-list" data-count=move || count.get()>
            <Show
                when=any
                fallback=|| view! {
                    <p class="empty">"No sessions yet. Import a file, or chat in the Chat tab."</p>
                }
            >
                <VirtualList count=count estimate=44 class="session-list" label="Sessions" row=move |i| {
                    view! { <SessionItem index=i /> }
                } />
            </Show>
        </div>
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

/// The row at place `index` of the list: open, rename, duplicate, delete. Its buttons act on
/// the session there when pressed.
#[component]
fn SessionItem(index: usize) -> impl IntoView {
    let Sessions { library, tab, .. } = expect_context::<Sessions>();
    // Reread on every change of the library, but equal unless this place's session changed, so
    // nothing below redraws for a change elsewhere.
    let row = Memo::new(move |_| library.with(|l| SessionRow::at(l, index)));
    let id = move || row.with_untracked(|r| r.as_ref().map(|r| r.id.clone()).unwrap_or_default());
    let open = move || {
        row.with(|r| {
            r.as_ref()
                .is_some_and(|r| tab.with(|t| t.selected() == Some(r.id.as_str())))
        })
    };
    let report = move |result: Option<Result<(), LibraryError>>| {
        if let Some(result) = result {
            tab.update(|t| t.report_result(result));
        }
    };
    view! {
        <div
            role="listitem"
            class="session-item"
            data-testid="session-item"
            data-id=move || row.with(|r| r.as_ref().map(|r| r.id.clone()))
            class:open=open
        >
            {move || row.get().map(|SessionRow { name, counts, .. }| view! {
                <button class="open" on:click=move |_| tab.update(|t| t.open(id()))>
                    <strong data-testid="session-name">{name.clone()}</strong>
                    {counts}
                </button>
                <input
                    aria-label="Session name"
                    data-testid="session-rename"
                    prop:value=name
                    on:change=move |ev| {
                        let name = event_target_value(&ev);
                        report(library.try_update(|l| l.rename(&id(), &name, now_ms())));
                    }
                />
            })}
            <button data-testid="session-duplicate" on:click=move |_| {
                report(library.try_update(|l| l.duplicate(&id(), new_id(), now_ms())));
            }>"Duplicate"</button>
            <button data-testid="session-delete" on:click=move |_| {
                tab.update(|t| t.deleting(&id()));
                report(library.try_update(|l| l.delete(&id(), now_ms())));
            }>"Delete"</button>
        </div>
    }
}
