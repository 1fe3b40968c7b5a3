//! The session library's runner: it creates the app-wide library ([`provide_sessions`]) and only
//! performs. It reads IndexedDB, performs the writes the pure [`Library`] queues (one transaction
//! each), posts and hears the cross-tab `BroadcastChannel`, reads imported files, offers exports
//! as Blob downloads, and keeps the live chat in the library; every result goes back into
//! [`Library`] or [`LibraryTab`], which decide what follows (see `app/library/sync.rs`).

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::clock::now_ms;
use super::tokens::{LoadState, SharedCounter, TokenService};

use crate::app::library::{
    Broadcast, Entry, FileError, Imported, Library, LibraryTab, LiveShape, Remote, check_file_size,
};
use crate::app::storage::StoreError;
use crate::store::sessions as db;
use crate::store::{self, broadcast};
use crate::view::chat::Workbench;

/// The app version written into every stored and exported file.
const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The app-wide session library and what the Inspect tab shows of it.
#[derive(Clone, Copy)]
pub struct Sessions {
    pub library: RwSignal<Library>,
    /// The open session, the problem on screen, the notice about another tab's change.
    pub tab: RwSignal<LibraryTab>,
    /// The stored sessions have been read (the live chat is kept only from then on).
    pub loaded: RwSignal<bool>,
    /// The app's token service: stored and imported sessions are counted with its counter.
    pub tokens: TokenService,
}

/// Creates the library, loads it from IndexedDB, saves every change, and shares it as context.
///
/// Reading a session counts its messages, so the library is read once `tokens` has its
/// vocabulary (or has failed to get it, and counts are marked estimates): a session read
/// before would keep rough counts after the vocabulary arrived.
pub fn provide_sessions(tokens: TokenService) -> Sessions {
    let sessions = Sessions {
        library: RwSignal::new(Library::default()),
        tab: RwSignal::new(LibraryTab::default()),
        loaded: RwSignal::new(false),
        tokens,
    };
    provide_context(sessions);
    let started = StoredValue::new(false);
    Effect::new(move |_| {
        let ready = !matches!(
            tokens.state(tokens.encoding.get()),
            LoadState::Idle | LoadState::Scheduled
        );
        if ready && !started.get_value() {
            started.set_value(true);
            spawn_local(load(sessions));
        }
    });
    if let Some(workbench) = use_context::<RwSignal<Workbench>>() {
        keep_live_chat(sessions, workbench);
    }
    broadcast::listen(move |text| {
        if let Some(message) = Broadcast::decode(&text) {
            on_broadcast(sessions, &message);
        }
    });
    let busy = StoredValue::new(false);
    Effect::new(move |_| {
        let pending = sessions.library.with(Library::has_pending);
        if pending && !busy.get_value() {
            busy.set_value(true);
            spawn_local(async move {
                drain(sessions).await;
                busy.set_value(false);
            });
        }
    });
    sessions
}

/// Reads the stored sessions into the library, in place of what it holds.
pub async fn load(sessions: Sessions) {
    let records = match db::load_all().await {
        Ok(records) => records,
        Err(e) => {
            sessions.tab.update(|t| t.report(e));
            return;
        }
    };
    let skipped = sessions
        .library
        .try_update(|l| l.load(records, &sessions.tokens.counter(), now_ms()))
        .flatten();
    sessions.loaded.set(true);
    if let Some(problem) = skipped {
        sessions.tab.update(|t| t.report(problem));
    }
}

/// The user's answer to a conflict: take the stored version, keeping this tab's as a copy
/// when `keep_copy`.
pub async fn resolve(sessions: Sessions, id: String, keep_copy: bool) {
    match read_entry(&id, &sessions.tokens.counter()).await {
        Ok(stored) => {
            let copy_id = keep_copy.then(new_id);
            let result = sessions
                .library
                .try_update(|l| l.resolve(&id, stored, copy_id, now_ms()))
                .unwrap_or(Ok(()));
            sessions.tab.update(|t| t.resolved(result));
        }
        Err(e) => sessions.tab.update(|t| t.report(e)),
    }
}

/// Reads a file the user chose or dropped, and imports every session in it; returns what was
/// read (`None` when nothing was imported, and the problem is on screen).
pub async fn import_file(sessions: Sessions, file: web_sys::File) -> Option<Imported> {
    let name = file.name();
    if let Err(e) = check_file_size(&name, file.size() as u64) {
        sessions.tab.update(|t| t.report(e));
        return None;
    }
    let text = match JsFuture::from(file.text()).await {
        Ok(text) => text.as_string().unwrap_or_default(),
        Err(_) => {
            sessions
                .tab
                .update(|t| t.report(FileError::Unreadable { file: name }));
            return None;
        }
    };
    import_text(sessions, &name, &text)
}

/// Imports every session in `text` (a file's, or what was pasted or dropped as text), named
/// `name` in any error.
pub fn import_text(sessions: Sessions, name: &str, text: &str) -> Option<Imported> {
    let imported = sessions.library.try_update(|l| {
        l.import_read(
            name,
            text.as_bytes(),
            &sessions.tokens.counter(),
            new_id,
            now_ms(),
        )
    });
    match imported {
        Some(Ok(imported)) => {
            let first = imported.first.clone();
            sessions.tab.update(|t| t.imported(first));
            Some(imported)
        }
        Some(Err(e)) => {
            sessions.tab.update(|t| t.report(e));
            None
        }
        None => None,
    }
}

/// Writes the export (the open session, or all of them), offers it as a download, and returns
/// its text for the preview, which is where to copy it from when the download fails.
pub fn export(sessions: Sessions) -> String {
    let text = sessions.tab.with_untracked(|t| {
        sessions
            .library
            .with_untracked(|l| l.export(t.selected(), now_ms(), APP_VERSION))
    });
    if let Err(e) = download("summary-memory-session.json", &text) {
        sessions.tab.update(|t| t.report(e));
    }
    text
}

/// Saves the Chat tab's live conversation into the library after every change (once the
/// library has loaded, and never mid-reply), and resumes it after a reload.
fn keep_live_chat(sessions: Sessions, workbench: RwSignal<Workbench>) {
    let live_id = StoredValue::new(store::live_session_id());
    let shape = Memo::new(move |_| workbench.with(|w| LiveShape::of(&w.live)));
    Effect::new(move |_| {
        let settled = shape.with(LiveShape::settled);
        if !settled || !sessions.loaded.get() {
            return;
        }
        let id = live_id.get_value();
        let kept = workbench
            .with_untracked(|w| {
                sessions
                    .library
                    .try_update(|l| l.keep_live(id.as_deref(), new_id, &w.live, now_ms()))
            })
            .flatten();
        if kept != id
            && let Some(kept) = kept
        {
            if let Err(e) = store::set_live_session_id(&kept) {
                sessions.tab.update(|t| t.report(e));
            }
            live_id.set_value(Some(kept));
        }
    });
    // Once loaded: an empty live chat resumes the one the library kept.
    Effect::new(move |_| {
        if !sessions.loaded.get() {
            return;
        }
        let id = live_id.get_value();
        let resumed = workbench.with_untracked(|w| {
            sessions
                .library
                .with_untracked(|l| l.resume(id.as_deref(), &w.live))
        });
        if let Some(live) = resumed {
            workbench.update(|w| w.set_live(live));
        }
    });
}

/// Performs the library's pending writes one at a time until none are left.
async fn drain(sessions: Sessions) {
    loop {
        let Some(ops) = sessions
            .library
            .try_update(Library::take_pending)
            .filter(|ops| !ops.is_empty())
        else {
            return;
        };
        for op in ops {
            let result = match op.record(APP_VERSION) {
                Some(record) => db::put(&record, op.expected()).await,
                None => db::delete(op.id(), op.id(), op.expected()).await,
            };
            match result {
                Ok(()) => {
                    if let Some(message) = sessions.library.try_update_untracked(|l| l.landed(&op))
                    {
                        broadcast::post(&message.encode());
                    }
                }
                Err(e) => sessions.tab.update(|t| t.write_failed(&op, e)),
            }
        }
    }
}

/// Another tab saved or deleted a session: pick up its version when this tab has no unsaved
/// change of it, or ask when it has.
fn on_broadcast(sessions: Sessions, message: &Broadcast) {
    match sessions.library.with_untracked(|l| l.remote(message)) {
        Remote::Ignore => {}
        Remote::Reload(id) => spawn_local(async move {
            match read_entry(&id, &sessions.tokens.counter()).await {
                Ok(stored) => {
                    if let Some(notice) =
                        sessions.library.try_update(|l| l.take_remote(&id, stored))
                    {
                        show_remote(sessions, notice);
                    }
                }
                Err(e) => sessions.tab.update(|t| t.report(e)),
            }
        }),
        Remote::Conflict(id) => {
            let notice = sessions.library.with_untracked(|l| l.conflict_notice(&id));
            show_remote(sessions, notice);
        }
    }
}

fn show_remote(sessions: Sessions, notice: crate::app::library::RemoteNotice) {
    sessions.tab.update(|t| {
        sessions
            .library
            .with_untracked(|l| t.show_remote(notice, l))
    });
}

/// The stored version of one session; `None` when it was deleted.
async fn read_entry(id: &str, counter: &SharedCounter) -> Result<Option<Entry>, StoreError> {
    match db::get(id).await? {
        Some(record) => record.read_current(counter),
        None => Ok(None),
    }
}

/// Offers `text` as a download through a Blob URL.
fn download(filename: &str, text: &str) -> Result<(), StoreError> {
    let failed = |e: wasm_bindgen::JsValue| StoreError::DownloadFailed(format!("{e:?}"));
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/json");
    let blob =
        web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(failed)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(failed)?;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| StoreError::DownloadFailed("no document".into()))?;
    let anchor: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(failed)?
        .dyn_into()
        .map_err(|_| StoreError::DownloadFailed("no anchor".into()))?;
    anchor.set_href(&url);
    anchor.set_download(filename);
    anchor.click();
    // The click has started the download; the URL is no longer needed.
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// A new session id: the time and a random part, so two tabs never pick the same one.
pub fn new_id() -> String {
    format!(
        "{:x}-{:08x}",
        now_ms(),
        (js_sys::Math::random() * f64::from(u32::MAX)) as u32
    )
}
