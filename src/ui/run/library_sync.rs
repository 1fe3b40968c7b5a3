//! The session library's runner: it creates the app-wide library ([`provide_sessions`]) and only
//! performs. It reads IndexedDB, performs the writes the pure [`Library`] queues (those queued
//! together in one transaction), posts and hears the cross-tab `BroadcastChannel`, reads imported files, offers exports
//! as Blob downloads, and keeps the live chat in the library (every change at once, a reply as
//! it arrives as often as [`LiveSaves`] allows, and before each chat request goes out:
//! [`stored_before_request`]); it asks the browser to warn before the page is left while
//! [`warn_on_leave`] says something is unsaved. A failed load or write is kept as the storage
//! failure every tab shows, and the app goes on in memory. Every result goes back into
//! [`Library`] or [`LibraryTab`], which decide what follows (see `app/library/sync.rs`).

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::clock::now_ms;
use super::streamed::Streamed;
use super::token_service::{LoadState, SharedCounter, TokenService};

use crate::app::continue_chat::{continue_in_new_session, on_screen_source};
use crate::app::library::LIVE_NAME;
use crate::app::library::{
    Broadcast, Entry, FileError, Imported, Library, LibraryTab, LiveAfterConflict, LiveSaves,
    LiveShape, Remote, SaveOp, SaveWhen, check_file_size, warn_on_leave,
};
use crate::app::storage::StoreError;
use crate::app::workbench::Workbench;
use crate::route::Route;
use crate::store::sessions as db;
use crate::store::{self, broadcast};

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
    /// Writes are being performed now.
    writing: RwSignal<bool>,
    /// Rounds of writing: taken from the queue, and done (landed or failed). What is queued now
    /// is written once `done` reaches `taken + 1` ([`Sessions::written_after`]).
    taken: StoredValue<u64>,
    done: RwSignal<u64>,
    /// The library session the live chat is kept in.
    live_id: StoredValue<Option<String>>,
    /// The throttle on saving the live chat while a reply arrives.
    live_saves: StoredValue<LiveSaves>,
    /// The app's chat state, when there is one (the live chat is kept from it).
    workbench: Option<RwSignal<Workbench>>,
}

/// Creates the library, loads it from IndexedDB, saves every change, and shares it as context.
///
/// The stored records are read at once, so a store that cannot be used says so at start.
/// Reading a session counts its messages, so a library that holds any is counted once `tokens`
/// has its vocabulary (or has failed to get it, and counts are marked estimates), which it asks
/// for then: a session read before would keep rough counts after the vocabulary arrived. An
/// empty library (a first visit, the lesson's path) needs no vocabulary.
pub fn provide_sessions(tokens: TokenService) -> Sessions {
    let workbench = use_context::<RwSignal<Workbench>>();
    let sessions = Sessions {
        library: RwSignal::new(Library::default()),
        tab: RwSignal::new(LibraryTab::default()),
        loaded: RwSignal::new(false),
        tokens,
        writing: RwSignal::new(false),
        taken: StoredValue::new(0),
        done: RwSignal::new(0),
        live_id: StoredValue::new(store::live_session_id()),
        live_saves: StoredValue::new(LiveSaves::default()),
        workbench,
    };
    provide_context(sessions);
    // The records are read at once (so a store that cannot be used says so at start); a
    // library that holds any is counted once the vocabulary has loaded, which it then needs.
    let read = RwSignal::new(None::<Vec<db::Record>>);
    let started = StoredValue::new(false);
    spawn_local(async move {
        match db::load_all().await {
            Ok(records) => {
                if !records.is_empty() {
                    tokens.need();
                }
                read.set(Some(records));
            }
            Err(e) => {
                started.set_value(true);
                sessions.tab.update(|t| t.store_failed(e));
                // The app goes on in memory: the live chat is still kept in the library (and
                // exported from it), and each change tries the write again.
                sessions.loaded.set(true);
            }
        }
    });
    Effect::new(move |_| {
        let empty = read.with(|r| r.as_ref().map(Vec::is_empty));
        let vocabulary = !matches!(
            tokens.state(tokens.encoding.get()),
            LoadState::Idle | LoadState::Scheduled
        );
        let ready = empty == Some(true) || (empty == Some(false) && vocabulary);
        if ready && !started.get_value() {
            started.set_value(true);
            let records = read.try_update_untracked(Option::take).flatten();
            load_records(sessions, records.unwrap_or_default());
        }
    });
    if let Some(workbench) = workbench {
        keep_live_chat(sessions, workbench);
        warn_before_leaving(sessions, workbench);
    }
    broadcast::listen(move |text| {
        if let Some(message) = Broadcast::decode(&text) {
            on_broadcast(sessions, &message);
        }
    });
    Effect::new(move |_| {
        let pending = sessions.library.with(Library::has_pending);
        if pending && !sessions.writing.get_untracked() {
            sessions.writing.set(true);
            spawn_local(async move {
                drain(sessions).await;
                sessions.writing.set(false);
            });
        }
    });
    sessions
}

impl Sessions {
    /// Every change of the library is written: no write waits or is being performed.
    pub fn settled(&self) -> bool {
        !self.writing.get_untracked() && !self.library.with_untracked(Library::has_pending)
    }

    /// The round of writing that will have written what the library queues now: done once
    /// [`Sessions::rounds_done`] reaches it (`None`: nothing is queued, it is written).
    pub fn written_after(&self) -> Option<u64> {
        self.library
            .with_untracked(Library::has_pending)
            .then(|| self.taken.get_value() + 1)
    }

    /// Rounds of writing done (tracked: an effect reading it runs again after each).
    pub fn rounds_done(&self) -> u64 {
        self.done.get()
    }

    /// [`Sessions::rounds_done`], untracked.
    pub fn rounds_done_untracked(&self) -> u64 {
        self.done.get_untracked()
    }
}

/// Keeps the live chat now (as the save effect would), then waits until its write has landed
/// or failed: the live driver awaits this before a chat request goes out, so the user's message
/// is stored before its request is sent. Before the library has loaded there is nothing to
/// wait for (the chat is kept once it has).
pub async fn stored_before_request(sessions: Sessions) {
    let Some(workbench) = sessions.workbench else {
        return;
    };
    if !sessions.loaded.get_untracked() {
        return;
    }
    keep_now(sessions, workbench);
    // The write loop picks the queued write up on the next tick; wait for it to finish. A
    // write that cannot land (no IndexedDB, a full disk) fails quickly and is shown.
    for _ in 0..250 {
        let waiting = sessions.writing.get_untracked()
            || sessions.library.with_untracked(Library::has_pending);
        if !waiting {
            return;
        }
        gloo_timers::future::TimeoutFuture::new(20).await;
    }
}

/// Reads the stored sessions into the library, in place of what it holds.
pub async fn load(sessions: Sessions) {
    match db::load_all().await {
        Ok(records) => load_records(sessions, records),
        Err(e) => {
            sessions.tab.update(|t| t.store_failed(e));
            // The app goes on in memory: the live chat is still kept in the library (and
            // exported from it), and each change tries the write again.
            sessions.loaded.set(true);
        }
    }
}

/// Counts the stored `records` into the library, in place of what it holds.
fn load_records(sessions: Sessions, records: Vec<db::Record>) {
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
/// when `keep_copy`. When the session is the live chat's, the chat on screen follows: it
/// becomes the stored version, or is kept in the copy from now on. The stored version is read
/// in the background; the library and the notice change once it has been.
pub fn resolve(sessions: Sessions, id: String, keep_copy: bool) {
    spawn_local(resolve_from_store(sessions, id, keep_copy));
}

async fn resolve_from_store(sessions: Sessions, id: String, keep_copy: bool) {
    match read_entry(&id, &sessions.tokens.counter()).await {
        Ok(stored) => {
            let copy_id = keep_copy.then(new_id);
            let result = sessions
                .library
                .try_update(|l| l.resolve(&id, stored, copy_id.clone(), now_ms()))
                .unwrap_or(Ok(()));
            if result.is_ok()
                && let Some(workbench) = sessions.workbench
            {
                let live_id = sessions.live_id.get_value();
                let after = workbench.with_untracked(|w| {
                    sessions.library.with_untracked(|l| {
                        l.live_after_conflict(live_id.as_deref(), &id, copy_id.as_deref(), &w.live)
                    })
                });
                match after {
                    LiveAfterConflict::Unchanged => {}
                    LiveAfterConflict::Resume(live) => {
                        sessions.live_saves.set_value(LiveSaves::default());
                        workbench.update(|w| w.set_live(*live));
                    }
                    LiveAfterConflict::KeptIn(copy) => remember_live_id(sessions, copy),
                }
            }
            sessions.tab.update(|t| t.resolved(result));
        }
        Err(e) => sessions.tab.update(|t| t.report(e)),
    }
}

/// Offers the stored records that were skipped as unreadable as one download, exactly as
/// stored, and returns the text for the preview.
pub fn export_unreadable(sessions: Sessions) -> String {
    let text = sessions
        .tab
        .with_untracked(LibraryTab::skipped_raw)
        .unwrap_or_default();
    if let Err(e) = download("summary-memory-unreadable.json", &text) {
        sessions.tab.update(|t| t.report(e));
    }
    text
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

/// Reads and imports `file` (chosen or dropped) in a task of its own, then sets `note` to
/// what was read ([`import_file`]), so the tab that asked spawns nothing.
pub fn import_file_into(sessions: Sessions, file: web_sys::File, note: RwSignal<Option<Imported>>) {
    spawn_local(async move {
        note.set(import_file(sessions, file).await);
    });
}

/// "Reload sessions": the tab says the library is being read again, and it is.
pub fn reload(sessions: Sessions) {
    sessions.tab.update(LibraryTab::reloading);
    spawn_local(load(sessions));
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

/// Writes every session into one export and offers it as a download, whichever is open.
pub fn export_all(sessions: Sessions) {
    let text = sessions
        .library
        .with_untracked(|l| l.export(None, now_ms(), APP_VERSION));
    if let Err(e) = download("summary-memory-sessions.json", &text) {
        sessions.tab.update(|t| t.report(e));
    }
}

/// Saves the Chat tab's live conversation into the library after every change (once the
/// library has loaded), a reply as it arrives at most every half second ([`LiveSaves`]), and
/// resumes it after a reload.
fn keep_live_chat(sessions: Sessions, workbench: RwSignal<Workbench>) {
    // A streamed piece reaches the workbench untracked (`ui/run/streamed.rs`), so the shape also
    // follows the pieces.
    let streamed = Streamed::from_context();
    let shape = Memo::new(move |_| {
        if let Some(streamed) = streamed {
            streamed.track();
        }
        workbench.with(|w| LiveShape::of(&w.live))
    });
    // Bumped by the timer a throttled save sets, so the save is asked for again.
    let again = RwSignal::new(0u32);
    let timer = StoredValue::new(false);
    Effect::new(move |_| {
        again.track();
        if !sessions.loaded.get() {
            return;
        }
        let when = shape.with(|shape| {
            sessions
                .live_saves
                .try_update_value(|s| s.decide(shape, now_ms()))
        });
        match when {
            Some(SaveWhen::Now) => keep_now(sessions, workbench),
            // One timer at a time: the pieces that arrive meanwhile are saved with it.
            Some(SaveWhen::After(ms)) if !timer.get_value() => {
                timer.set_value(true);
                set_timeout(
                    move || {
                        timer.set_value(false);
                        again.update(|n| *n = n.wrapping_add(1));
                    },
                    std::time::Duration::from_millis(ms),
                );
            }
            Some(SaveWhen::After(_)) => {}
            Some(SaveWhen::Nothing) | None => {}
        }
    });
    // Once loaded: an empty live chat resumes the one the library kept.
    Effect::new(move |_| {
        if !sessions.loaded.get() {
            return;
        }
        let id = sessions.live_id.get_value();
        let resumed = workbench.with_untracked(|w| {
            sessions
                .library
                .with_untracked(|l| l.resume(id.as_deref(), &w.live, now_ms()))
        });
        if let Some((kept_in, live)) = resumed {
            // The library found the chat (the remembered id can be lost to a crash): remember
            // where it is kept, so the next save goes on in that session instead of a new one.
            if id.as_deref() != Some(kept_in.as_str()) {
                remember_live_id(sessions, kept_in);
            }
            workbench.update(|w| w.set_live(live));
        }
    });
}

/// Keeps the live chat in the library as it is now.
fn keep_now(sessions: Sessions, workbench: RwSignal<Workbench>) {
    let id = sessions.live_id.get_value();
    let counter = sessions.tokens.counter();
    let kept = workbench
        .with_untracked(|w| {
            sessions
                .library
                .try_update(|l| l.keep_live(id.as_deref(), new_id, &w.live, now_ms(), &counter))
        })
        .flatten();
    if kept != id
        && let Some(kept) = kept
    {
        remember_live_id(sessions, kept);
    }
}

fn remember_live_id(sessions: Sessions, id: String) {
    if let Err(e) = store::set_live_session_id(&id) {
        sessions.tab.update(|t| t.report(e));
    }
    sessions.live_id.set_value(Some(id));
}

/// Asks the browser to warn before the page is left while something is unsaved
/// ([`warn_on_leave`]), and only then.
fn warn_before_leaving(sessions: Sessions, workbench: RwSignal<Workbench>) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let listener = wasm_bindgen::closure::Closure::<dyn FnMut(web_sys::Event)>::new(
        move |event: web_sys::Event| {
            let warn = workbench.with_untracked(|w| {
                sessions.library.with_untracked(|l| {
                    warn_on_leave(l, sessions.writing.get_untracked(), &LiveShape::of(&w.live))
                })
            });
            if warn {
                event.prevent_default();
                // Older browsers ask for a return value as well.
                let _ = js_sys::Reflect::set(
                    &event,
                    &wasm_bindgen::JsValue::from_str("returnValue"),
                    &wasm_bindgen::JsValue::from_str(""),
                );
            }
        },
    );
    let _ =
        window.add_event_listener_with_callback("beforeunload", listener.as_ref().unchecked_ref());
    // The listener lives as long as the page.
    listener.forget();
}

/// Performs the library's pending writes until none are left, in rounds: what is pending at once
/// (a large import's batch) in one transaction, and, should that fail, each on its own, so a
/// conflict or a failure is told of the write it concerns and the others still land.
async fn drain(sessions: Sessions) {
    loop {
        // Untracked: nothing drawn depends on the queue (only the save effect above reads it, and
        // an emptied queue asks nothing of it), and telling every reader of the library that it
        // changed redraws what a thousand sessions feed: a main-thread task of 170 ms in a debug
        // build, seconds after a large import, while a corpus run may be going.
        let Some(ops) = sessions
            .library
            .try_update_untracked(Library::take_pending)
            .filter(|ops| !ops.is_empty())
        else {
            return;
        };
        sessions.taken.update_value(|n| *n += 1);
        write_round(sessions, ops).await;
        sessions.done.update(|n| *n += 1);
    }
}

/// One round of writing: `ops` in one transaction, or each on its own should that fail.
async fn write_round(sessions: Sessions, ops: Vec<SaveOp>) {
    if ops.len() > 1 {
        let writes = ops.iter().map(to_write).collect();
        if db::write_all(writes).await.is_ok() {
            for op in &ops {
                landed(sessions, op);
            }
            return;
        }
    }
    for op in ops {
        let result = match op.record(APP_VERSION) {
            Some(record) => db::put(&record, op.expected()).await,
            None => db::delete(op.id(), op.id(), op.expected()).await,
        };
        match result {
            Ok(()) => landed(sessions, &op),
            Err(e) => {
                sessions.library.update(|l| l.write_failed(&e));
                sessions.tab.update(|t| t.write_failed(&op, e));
            }
        }
    }
}

fn to_write(op: &SaveOp) -> db::Write {
    match op.record(APP_VERSION) {
        Some(record) => db::Write::put(&record, op.expected()),
        None => db::Write::delete(op.id(), op.expected()),
    }
}

/// `op` landed in storage: the library records it, and the other tabs hear of it.
fn landed(sessions: Sessions, op: &SaveOp) {
    if let Some(message) = sessions.library.try_update_untracked(|l| l.landed(op)) {
        broadcast::post(&message.encode());
    }
    // A put that lands shows there is room again; a removal needs none.
    let stored = !matches!(op, SaveOp::Delete { .. });
    if stored && sessions.tab.with_untracked(|t| t.store_failure().is_some()) {
        sessions.tab.update(LibraryTab::write_landed);
        // The alert's undo offer depends on the library's quota state.
        sessions.library.update(|_| {});
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
                        follow_live(sessions, &id);
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

/// Another tab's version of `id` was taken with nothing unsaved here: when it is the live
/// chat's session, the chat on screen shows it too (unless a reply is arriving), so the next
/// change goes on from it rather than forking a new session.
fn follow_live(sessions: Sessions, id: &str) {
    let Some(workbench) = sessions.workbench else {
        return;
    };
    let live_id = sessions.live_id.get_value();
    let after = workbench.with_untracked(|w| {
        sessions
            .library
            .with_untracked(|l| l.live_after_conflict(live_id.as_deref(), id, None, &w.live))
    });
    if let LiveAfterConflict::Resume(live) = after {
        sessions.live_saves.set_value(LiveSaves::default());
        workbench.update(|w| w.set_live(*live));
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

/// Performs "Continue in a new session" on edition `cycle` of library session `source_id`, or,
/// with `None`, of the conversation on screen (a demo, or the live chat under the id it is kept
/// in): the app puts the new chat on screen (`app::continue_chat`), this follows the link it
/// returns (the Chat tab), and the new chat is kept in the library at once, as every live chat
/// is. A refusal is the workbench's error, shown in Chat.
pub fn continue_edition(
    sessions: Sessions,
    route: RwSignal<Route>,
    source_id: Option<String>,
    cycle: u32,
) {
    let Some(workbench) = sessions.workbench else {
        return;
    };
    let source = match source_id {
        Some(id) => sessions
            .library
            .with_untracked(|l| l.get(&id).map(|e| (e.session.clone(), id.clone()))),
        None => {
            let live_id = sessions.live_id.get_value();
            let live_name = live_id
                .as_deref()
                .and_then(|id| {
                    sessions
                        .library
                        .with_untracked(|l| l.get(id).map(|e| e.session.name.clone()))
                })
                .unwrap_or_else(|| LIVE_NAME.to_owned());
            Some(workbench.with_untracked(|w| on_screen_source(w, live_id.as_deref(), &live_name)))
        }
    };
    let Some((source, id)) = source else {
        return;
    };
    let counter = sessions.tokens.counter();
    let now = route.get_untracked();
    let next = workbench
        .try_update(|w| continue_in_new_session(w, &now, &source, &id, cycle, now_ms(), &counter))
        .flatten();
    if let Some(next) = next {
        route.set(next);
    }
}
