//! The Inspect tab, a workspace of two levels, each with its own link (`?tab=inspect`, then
//! `&session=<id>&view=<view>`; `view::workspace` computes the screen). The library: import (a
//! file chosen or dropped, or a transcript pasted or dropped as text; any format
//! `engine::session::read` detects, named on the page with the number of conversations read),
//! the session list (`list.rs`), the export of every session, and the comparison of policies
//! over many sessions on a pool of workers (`corpus.rs`). One session (`detail.rs`), a view at a
//! time: its archive, its editions and their checks, probes (`probes.rs`), the replay under
//! another policy (`replay.rs`, and `live_replay.rs` with the endpoint's summariser), two
//! summarisers side by side (`ab.rs`), and its export. Nothing but the live replay, probes and
//! A/B need an endpoint, a key or the network, and they only when the user starts them.
//! Components read and render; what they do goes through the app-wide [`Sessions`], whose
//! runner ([`crate::ui::run::library_sync`]) performs it.

mod ab;
mod corpus;
mod detail;
mod edition_list;
mod list;
mod live_replay;
mod probes;
mod replay;

use leptos::prelude::*;

use crate::app::library::{Imported, Library, LibraryTab};
use crate::route::Route;
use crate::ui::run::clock::now_ms;
use crate::ui::run::importer::Importer;
use crate::ui::run::library_sync::{self as sync, Sessions};
use crate::ui::widgets::remote_notice::RemoteNoticeView;
use crate::ui::widgets::storage_line::PersistReminder;
use crate::view::import::ImportScreen;
use crate::view::workspace::{InspectScreen, all_sessions, import_reads};

/// The Inspect tab panel: the library, or one session at one of its views (`view::workspace`).
#[component]
pub fn InspectTab() -> impl IntoView {
    let sessions = expect_context::<Sessions>();
    // The library and its imports count any text: the vocabulary is needed now (and the
    // library is read once it has loaded).
    sessions.tokens.need();
    let route = expect_context::<RwSignal<Route>>();
    let export_text = RwSignal::new(String::new());
    let dragging = RwSignal::new(false);
    // What the last import read (its sentence, format slug and count); gone when one fails.
    let read_note = RwSignal::new(None::<Imported>);
    // A pasted transcript is kept in the box until it imports, so a fix can be made in place,
    // even across a look at a session.
    let pasted = RwSignal::new(String::new());
    let importer = Importer::get(sessions);
    let import_file = move |file: web_sys::File| importer.import(sessions, file, read_note);
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        let Some(data) = ev.data_transfer() else {
            return;
        };
        if let Some(file) = data.files().and_then(|f| f.get(0)) {
            import_file(file);
        } else if let Ok(text) = data.get_data("text/plain")
            && !text.trim().is_empty()
        {
            read_note.set(sync::import_text(sessions, "the dropped text", &text));
        }
    };
    let screen = Memo::new(move |_| {
        route.with(|r| {
            sessions
                .library
                .with(|l| InspectScreen::of(r, l, sessions.loaded.get()))
        })
    });
    // The level drawn: rebuilt when another session opens, not when its view or its content
    // changes (the session's own parts follow those).
    let level = Memo::new(move |_| match screen.get() {
        InspectScreen::Session(s) => Level::Session(s.id),
        InspectScreen::Library => Level::Library,
        InspectScreen::Loading { .. } => Level::Loading,
        InspectScreen::Missing { note, .. } => Level::Missing(note),
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
            <ProblemAlert />
            <RemoteNoticeView />
            {move || read_note.get().map(|r| {
                let skipped = r.skipped_heading().map(|heading| {
                    view! {
                        " "
                        {heading}
                        <ul class="import-skipped">
                            {r.skipped.iter().map(|s| view! {
                                <li data-testid="import-skipped">{s.describe()}</li>
                            }).collect_view()}
                        </ul>
                    }
                });
                view! {
                    <div class="import-note" data-testid="import-format" data-format=r.source.slug() data-count=r.count role="status">
                        {r.headline}
                        {skipped}
                    </div>
                }
            })}
            <ImportProgress importer />
            <output data-testid="export-preview" hidden>{move || export_text.get()}</output>
            {move || match level.get() {
                Level::Library => view! { <LibraryLevel export_text read_note pasted import_file /> }.into_any(),
                Level::Session(_) => view! { <detail::SessionDetail screen export_text /> }.into_any(),
                Level::Loading => view! {
                    <AllSessions />
                    <p class="hint" data-testid="session-loading">"Opening the session\u{2026}"</p>
                }.into_any(),
                Level::Missing(note) => view! {
                    <AllSessions />
                    <p class="empty" data-testid="session-missing" role="status">{note}</p>
                }.into_any(),
            }}
        </section>
    }
}

/// A large file's import: how far it got, Stop while it runs, what it skipped.
#[component]
fn ImportProgress(importer: Importer) -> impl IntoView {
    let sessions = expect_context::<Sessions>();
    let screen = Memo::new(move |_| {
        importer
            .shown(sessions)
            .map(|r| ImportScreen::of(&r, now_ms()))
    });
    move || {
        screen.get().map(|s| {
            let skipped = s.skipped_heading.clone().map(|heading| {
                view! {
                    " "
                    {heading}
                    <ul class="import-skipped">
                        {s.skipped.iter().map(|line| view! {
                            <li data-testid="import-progress-skipped">{line.clone()}</li>
                        }).collect_view()}
                    </ul>
                }
            });
            view! {
                <div
                    class="import-note"
                    data-testid="import-progress"
                    data-status=s.status
                    data-read=s.read
                    data-added=s.added
                    data-bytes=s.bytes
                    data-cut-off=s.cut_off.then_some("true")
                    role="status"
                >
                    {s.line.clone()}
                    {s.stop.then(|| view! {
                        " "
                        <button data-testid="import-stop" on:click=move |_| importer.stop()>"Stop"</button>
                    })}
                    {skipped}
                </div>
            }
        })
    }
}

/// Which level of the workspace is drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Level {
    Library,
    Session(String),
    Loading,
    Missing(String),
}

/// "← All sessions": back to the library.
#[component]
pub(super) fn AllSessions() -> impl IntoView {
    let sessions = expect_context::<Sessions>();
    let count = Memo::new(move |_| sessions.library.with(Library::len));
    view! {
        <nav class="crumbs" aria-label="Inspect">
            <button data-testid="session-close" data-count=move || count.get() on:click=move |_| sessions.tab.update(LibraryTab::close)>
                {move || all_sessions(count.get())}
            </button>
        </nav>
    }
}

/// The library: import, the sessions, export of them all, the corpus comparison.
#[component]
fn LibraryLevel(
    export_text: RwSignal<String>,
    read_note: RwSignal<Option<Imported>>,
    pasted: RwSignal<String>,
    import_file: impl Fn(web_sys::File) + Copy + 'static,
) -> impl IntoView {
    let sessions = expect_context::<Sessions>();
    let on_file = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            import_file(file);
        }
        // Clearing the value lets the same file be chosen again after fixing it.
        input.set_value("");
    };
    let on_paste_import = move |_| {
        let text = pasted.get_untracked();
        let imported = sync::import_text(sessions, "the pasted transcript", &text);
        if imported.is_some() {
            pasted.set(String::new());
        }
        read_note.set(imported);
    };
    let export = move |_| export_text.set(sync::export(sessions));
    view! {
        <h2>"Inspect"</h2>
        <p class="hint">
            "Open an exported session or another tool's transcript (choose a file, drop it here, or paste it) and look through it offline. "
            {import_reads()}
            "Sessions are kept in this browser; an export never contains your API key."
        </p>
        <div class="controls">
            <label class="file">
                "Import a session or transcript file "
                <input type="file" accept=".json,.jsonl,.ndjson,application/json,text/plain" data-testid="import-file" on:change=on_file />
            </label>
            // With no session there is nothing to export.
            <button
                data-testid="export"
                on:click=export
                disabled=move || sessions.library.with(|l| l.is_empty())
            >
                "Export all sessions"
            </button>
        </div>
        <details class="paste-fold" open=pasted.with_untracked(|p| !p.is_empty())>
            <summary data-testid="paste-open">"Paste a transcript instead"</summary>
            <div class="paste">
                <label>
                    "Transcript "
                    <textarea
                        data-testid="paste-transcript"
                        rows="4"
                        placeholder="[{\"role\": \"user\", \"content\": \"…\"}], a request body, a ChatGPT or Claude.ai export, a ShareGPT dataset, or JSON Lines"
                        prop:value=move || pasted.get()
                        on:input=move |ev| pasted.set(event_target_value(&ev))
                    ></textarea>
                </label>
                <button
                    data-testid="paste-import"
                    disabled=move || pasted.with(|t| t.trim().is_empty())
                    on:click=on_paste_import
                >"Import"</button>
            </div>
        </details>
        <list::UndoNotice />
        <PersistReminder />
        <list::SessionList />
        {move || (sessions.library.with(|l| !l.is_empty())).then(|| view! { <corpus::CorpusCompare /> })}
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
                        <button data-testid="reload" on:click=move |_| sync::reload(sessions)>"Reload sessions"</button>
                    })}
                </p>
            }
        })
    }
}
