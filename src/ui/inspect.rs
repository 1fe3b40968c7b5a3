//! The Inspect tab and the app-wide session library: import and export files, list, rename,
//! duplicate, delete with undo, and a read-only look at one session (archive, editions, drift,
//! replay under another trigger). Nothing here needs an endpoint, a key or the network.
//!
//! The library is created once at the root by [`provide_sessions`]; it loads from IndexedDB and
//! writes every change back through the pure [`Library`]'s queue, one transaction per write.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::tokens::{AppCounter, LoadState, TokenService};

use crate::app::library::{Broadcast, Entry, Library, Remote, RemoteNotice, SaveOp};
use crate::engine::policy::Trigger;
use crate::engine::session::{self, Session};
use crate::store::StoreError;
use crate::store::sessions as db;
use crate::store::{self, broadcast};
use crate::ui::chat::WindowView;
use crate::ui::tuner::TokensChart;
use crate::ui::virtual_list::VirtualList;
use crate::view::chat::Workbench;
use crate::view::inspect::InspectView;
use crate::view::live::LiveSession;

/// The app-wide session library and what the Inspect tab shows of it.
#[derive(Clone, Copy)]
pub struct Sessions {
    pub library: RwSignal<Library>,
    /// The session open in Inspect.
    pub selected: RwSignal<Option<String>>,
    /// The last storage or import problem, shown as an alert.
    pub error: RwSignal<Option<String>>,
    /// A save was refused because another tab wrote first: offer a reload.
    pub conflict: RwSignal<bool>,
    /// Another tab changed a session this tab lists.
    pub remote: RwSignal<Option<RemoteNotice>>,
    /// The stored sessions have been read (the live chat is kept only from then on).
    pub loaded: RwSignal<bool>,
}

/// Creates the library, loads it from IndexedDB, saves every change, and shares it as context.
///
/// Reading a session counts its messages, so the library is read once `tokens` has its
/// vocabulary (or has failed to get it, and counts are marked estimates): a session read
/// before would keep rough counts after the vocabulary arrived.
pub fn provide_sessions(tokens: TokenService) -> Sessions {
    let sessions = Sessions {
        library: RwSignal::new(Library::default()),
        selected: RwSignal::new(None),
        error: RwSignal::new(None),
        conflict: RwSignal::new(false),
        remote: RwSignal::new(None),
        loaded: RwSignal::new(false),
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

/// Saves the Chat tab's live conversation into the library after every change (once the
/// library has loaded, and never mid-reply): its memory, pinned facts, incomplete replies and
/// model calls; and resumes it after a reload.
fn keep_live_chat(sessions: Sessions, workbench: RwSignal<Workbench>) {
    let live_id = StoredValue::new(store::live_session_id());
    // What a change of the live chat looks like, cheap to compare on every streamed piece.
    let shape = Memo::new(move |_| {
        workbench.with(|w| {
            let m = w.live.memory();
            let kept = w.live.record();
            (
                w.live.is_streaming() || w.live.is_summarising(),
                (m.archive().len(), m.editions().len(), m.failures().len()),
                m.summary().map(str::len),
                m.policy().clone(),
                w.live.pinned().to_vec(),
                (kept.incomplete.len(), kept.failed.len(), kept.calls.len()),
            )
        })
    });
    Effect::new(move |_| {
        let busy = shape.with(|s| s.0);
        if busy || !sessions.loaded.get() {
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
                sessions.error.set(Some(e.to_string()));
            }
            live_id.set_value(Some(kept));
        }
    });
    // Once loaded: an empty live chat resumes the one the library kept.
    Effect::new(move |_| {
        if !sessions.loaded.get() {
            return;
        }
        let Some(id) = live_id.get_value() else {
            return;
        };
        let empty = workbench.with_untracked(|w| w.live.memory().archive().is_empty());
        let saved = sessions
            .library
            .with_untracked(|l| l.get(&id).map(|e| e.session.clone()));
        if let (true, Some(session)) = (empty, saved) {
            workbench.update(|w| w.set_live(LiveSession::resume(&session)));
        }
    });
}

/// The Inspect tab panel.
#[component]
pub fn InspectTab() -> impl IntoView {
    let sessions = expect_context::<Sessions>();
    let Sessions {
        library,
        selected,
        error,
        conflict,
        remote,
        ..
    } = sessions;
    let export_text = RwSignal::new(String::new());
    let dragging = RwSignal::new(false);

    let on_file = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            spawn_local(import_file(sessions, file));
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
            spawn_local(import_file(sessions, file));
        }
    };
    let export = move |_| {
        let text = library.with_untracked(|l| {
            let now = now_ms();
            match selected.get_untracked().and_then(|id| l.get(&id).cloned()) {
                Some(entry) => session::export(&entry.session, now, env!("CARGO_PKG_VERSION")),
                None => {
                    let all: Vec<Session> = l.list().iter().map(|e| e.session.clone()).collect();
                    session::export_all(&all, now, env!("CARGO_PKG_VERSION"))
                }
            }
        });
        export_text.set(text.clone());
        if let Err(reason) = download("summary-memory-session.json", &text) {
            error.set(Some(format!(
                "The export could not be downloaded ({reason}); copy it from the preview instead."
            )));
        }
    };
    let ids = Memo::new(move |_| {
        library.with(|l| l.list().iter().map(|e| e.id.clone()).collect::<Vec<_>>())
    });
    let undoable = Memo::new(move |_| library.with(|l| l.undoable().map(str::to_owned)));
    let export_label = Memo::new(move |_| {
        if selected.get().is_some() {
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
            {move || error.get().map(|text| view! {
                <p class="error" data-testid="error" role="alert">
                    {text}
                    {move || conflict.get().then(|| view! {
                        " "
                        <button data-testid="reload" on:click=move |_| {
                            conflict.set(false);
                            error.set(None);
                            spawn_local(load(sessions));
                        }>"Reload sessions"</button>
                    })}
                </p>
            })}
            {move || remote.get().map(|notice| {
                let unsaved = notice.unsaved;
                let id = StoredValue::new(notice.id.clone());
                view! {
                    <p class="notice" data-testid="remote-notice" role="status">
                        {notice.text()}
                        {unsaved.then(|| view! {
                            " "
                            <button data-testid="remote-reload" on:click=move |_| {
                                spawn_local(resolve(sessions, id.get_value(), false));
                            }>"Reload"</button>
                            " "
                            <button data-testid="remote-keep-copy" on:click=move |_| {
                                spawn_local(resolve(sessions, id.get_value(), true));
                            }>"Keep mine as a copy"</button>
                        })}
                        " "
                        <button data-testid="remote-dismiss" on:click=move |_| remote.set(None)>"OK"</button>
                    </p>
                }
            })}
            <div class="controls">
                <label class="file">
                    "Import a session file "
                    <input type="file" accept=".json,application/json" data-testid="import-file" on:change=on_file />
                </label>
                <button data-testid="export" on:click=export>{move || export_label.get()}</button>
                {move || selected.get().map(|_| view! {
                    <button on:click=move |_| selected.set(None)>"Close"</button>
                })}
            </div>
            <output data-testid="export-preview" hidden>{move || export_text.get()}</output>
            {move || undoable.get().map(|name| view! {
                <p class="undo">
                    {format!("Deleted \u{201c}{name}\u{201d}. ")}
                    <button data-testid="undo-delete" on:click=move |_| {
                        library.update(|l| {
                            if let Ok(id) = l.undo_delete() {
                                selected.set(Some(id));
                            }
                        });
                    }>"Undo"</button>
                    " "
                    <button data-testid="undo-dismiss" on:click=move |_| library.update(Library::dismiss_undo)>"Dismiss"</button>
                </p>
            })}
            <ul class="session-list">
                <For each=move || ids.get() key=|id| id.clone() let:id>
                    <SessionItem id />
                </For>
            </ul>
            {move || ids.with(Vec::is_empty).then(|| view! {
                <p class="empty">"No sessions yet. Import a file, or chat in the Chat tab."</p>
            })}
            <SessionDetail />
        </section>
    }
}

/// One row of the session list: open, rename, duplicate, delete.
#[component]
fn SessionItem(id: String) -> impl IntoView {
    let Sessions {
        library,
        selected,
        error,
        ..
    } = expect_context::<Sessions>();
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
    let open = move || selected.with(|s| s.as_deref() == Some(id.get_value().as_str()));
    let report = move |result: Result<(), crate::app::library::LibraryError>| {
        if let Err(e) = result {
            error.set(Some(e.to_string()));
        }
    };
    view! {
        <li data-testid="session-item" data-id=id.get_value() class:open=open>
            {move || summary.get().map(|(name, turns, editions)| view! {
                <button class="open" on:click=move |_| selected.set(Some(id.get_value()))>
                    <strong data-testid="session-name">{name.clone()}</strong>
                    {format!(" · {turns} turns · {editions} editions")}
                </button>
                <input
                    aria-label="Session name"
                    data-testid="session-rename"
                    prop:value=name
                    on:change=move |ev| {
                        let name = event_target_value(&ev);
                        library.update(|l| report(l.rename(&id.get_value(), &name, now_ms())));
                    }
                />
            })}
            <button data-testid="session-duplicate" on:click=move |_| {
                library.update(|l| report(l.duplicate(&id.get_value(), new_id(), now_ms())));
            }>"Duplicate"</button>
            <button data-testid="session-delete" on:click=move |_| {
                if open() {
                    selected.set(None);
                }
                library.update(|l| report(l.delete(&id.get_value(), now_ms())));
            }>"Delete"</button>
        </li>
    }
}

/// The open session, read-only.
#[component]
fn SessionDetail() -> impl IntoView {
    let Sessions {
        library, selected, ..
    } = expect_context::<Sessions>();
    let entry = Memo::new(move |_| {
        selected
            .get()
            .and_then(|id| library.with(|l| l.get(&id).cloned()))
    });
    move || {
        entry.get().map(|entry| {
            let view = InspectView::new(&entry.session, &counter());
            view! { <Detail entry view /> }
        })
    }
}

#[component]
fn Detail(entry: Entry, view: InspectView) -> impl IntoView {
    let facts = view.facts.clone();
    let replay_view = view.clone();
    let session = entry.session.clone();
    let (editions, messages) = (view.editions.len(), view.messages.len());
    // Rows are drawn from here as they scroll into view, never all at once.
    let shown = StoredValue::new(view.clone());
    view! {
        <article class="session" data-testid="session-detail">
            <h3>{view.name.clone()}</h3>
            <p class="system">
                <strong>"System prompt: "</strong>{view.system_prompt.clone()}
            </p>
            {(!facts.is_empty()).then(|| view! {
                <section class="facts">
                    <h4>"Must-keep and pinned facts in the latest edition"</h4>
                    {facts.into_iter().map(|f| {
                        let lost = f.first_lost.map(|c| format!(" (first lost in edition {c})")).unwrap_or_default();
                        view! {
                            <span class="fact" class:lost=!f.kept data-testid="fact" data-fact=f.phrase.clone() data-kept=f.kept.to_string()>
                                {if f.kept { "✓ " } else { "✗ " }}{f.phrase.clone()}{lost}
                            </span>
                        }
                    }).collect_view()}
                </section>
            })}
            <h4>{format!("Editions ({})", editions)}</h4>
            <VirtualList count=editions estimate=220 class="editions" label="Editions" row=move |i| {
                let e = shown.with_value(|v| v.editions[i].clone());
                let folded = e.folded_turns.map(|(a, b)| format!("Folded turns {a}–{b}")).unwrap_or_else(|| format!("No turns folded ({})", e.provenance));
                view! {
                    <div class="edition" role="listitem" data-testid="edition" data-cycle=e.cycle data-overrun=e.overrun.to_string()>
                        <h5>{format!("Edition {}", e.cycle)}</h5>
                        <div class="before"><span class="label">"Before"</span><p data-testid="edition-before">{e.before}</p></div>
                        <div class="folded"><span class="label">{folded}</span><pre data-testid="edition-folded">{e.folded}</pre></div>
                        <div class="after"><span class="label">"After"</span><p data-testid="edition-after">{e.after}</p></div>
                        <p class="words" class:overrun=e.overrun>
                            <span data-testid="edition-words">{e.words}</span>{format!(" / {} words", e.word_limit)}
                            {e.overrun.then_some(" — over the limit")}
                        </p>
                    </div>
                }
            } />
            <Replay view=replay_view session />
            <h4>{format!("Archive ({} turns)", view.turns)}</h4>
            <VirtualList count=messages estimate=64 class="archive" label="Archive" row=move |i| {
                let m = shown.with_value(|v| v.messages[i].clone());
                let meta = format!("turn {} · {} · {} tokens{}", m.turn, m.role.as_str(), m.tokens, if m.state == "folded" { " · folded" } else { "" });
                view! {
                    <div class=format!("message {}", m.role.as_str()) role="listitem" data-testid="message" data-role=m.role.as_str() data-state=m.state data-turn=m.turn>
                        <span class="meta">{meta}</span>
                        <p>{m.content}</p>
                    </div>
                }
            } />
        </article>
    }
}

/// A dry run of this conversation, with its real turn sizes, under a trigger the user edits.
#[component]
fn Replay(view: InspectView, session: Session) -> impl IntoView {
    let (a0, b0, kind0) = match view.trigger {
        Trigger::Turns { max_turns, keep } => (max_turns, keep, "turns"),
        Trigger::Tokens {
            budget,
            keep_tokens,
        } => (budget, keep_tokens, "tokens"),
        Trigger::Every { n } => (n, 0, "every"),
        Trigger::MessageCount { max_messages } => (max_messages, 0, "every"),
        Trigger::Manual { keep } => (4, keep, "manual"),
    };
    let kind = RwSignal::new(kind0.to_owned());
    let turns = view.turns;
    // The turn whose request the stacked bar shows: the last one to start with.
    let at = RwSignal::new(turns.max(1));
    let a = RwSignal::new(a0);
    let b = RwSignal::new(b0);
    let view = StoredValue::new(view);
    let session = StoredValue::new(session);
    let outcome = Memo::new(move |_| {
        let (a, b) = (a.get(), b.get());
        let trigger = match kind.get().as_str() {
            "tokens" => Trigger::Tokens {
                budget: a,
                keep_tokens: b,
            },
            "every" => Trigger::Every { n: a },
            "manual" => Trigger::Manual { keep: b },
            _ => Trigger::Turns {
                max_turns: a,
                keep: b,
            },
        };
        view.with_value(|v| session.with_value(|s| v.replay(s, trigger)))
            .map_err(|e| e.to_string())
    });
    let labels = Memo::new(move |_| match kind.get().as_str() {
        "tokens" => ("Token budget", "Keep verbatim (tokens)"),
        "every" => ("Every N messages", "(unused)"),
        "manual" => ("(unused)", "Keep verbatim (turns)"),
        _ => ("Summarise at (turns)", "Keep verbatim (turns)"),
    });
    let number = |signal: RwSignal<u32>| {
        move |ev: leptos::ev::Event| {
            if let Ok(n) = event_target_value(&ev).trim().parse() {
                signal.set(n);
            }
        }
    };
    view! {
        <section class="replay">
            <h4>"Replay under another policy"</h4>
            <p class="hint">"A dry run over this session's real per-turn token counts; nothing is sent."</p>
            <form class="controls" on:submit=|ev| ev.prevent_default()>
                <label>"Trigger "
                    <select data-testid="replay-trigger" on:change=move |ev| kind.set(event_target_value(&ev))>
                        {["turns", "tokens", "every", "manual"].into_iter().map(|k| view! {
                            <option value=k selected=k == kind0>{k}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>{move || labels.get().0}" "
                    <input type="number" min="0" data-testid="replay-a" prop:value=move || a.get().to_string() on:input=number(a) />
                </label>
                <label>{move || labels.get().1}" "
                    <input type="number" min="0" data-testid="replay-b" prop:value=move || b.get().to_string() on:input=number(b) />
                </label>
            </form>
            {move || match outcome.get() {
                Err(reason) => view! { <p class="param-error" role="alert" data-testid="replay-error">{reason}</p> }.into_any(),
                Ok(run) => view! {
                    <p>"Summariser calls: " <strong data-testid="replay-calls">{run.schedule.calls}</strong>
                        {format!(" · tokens sent in all: {}", run.schedule.total_tokens)}</p>
                    <TokensChart
                        comparison=run.comparison.clone()
                        caption=" — tokens per request in this session, at its recorded sizes, under the trigger above."
                    />
                    <label class="number">"Context window at turn "
                        <input type="number" min="1" max=turns.to_string() data-testid="replay-turn"
                            prop:value=move || at.get().to_string() on:input=number(at) />
                    </label>
                    {
                        let run = run.clone();
                        move || view.with_value(|v| v.context_at(&run, at.get()))
                            .map(|w| view! { <WindowView window=w /> })
                    }
                    <div class="schedule-head" aria-hidden="true"><span>"Turn"</span><span>"The request holds"</span><span>"Tokens"</span></div>
                    <VirtualList count=run.schedule.rows.len() estimate=32 class="schedule" label="Replay, one row per turn" row={
                        let rows = StoredValue::new(run.schedule.rows);
                        move |i| {
                            let row = rows.with_value(|r| r[i]);
                            view! {
                                <div class="schedule-row" role="listitem" class:fires=row.folds.is_some() data-testid="replay-row" data-turn=row.turn data-summarised-to=row.summarised_to data-verbatim=row.verbatim_list()>
                                    <span>{row.turn}</span><span>{row.describe()}</span><span>{row.tokens}</span>
                                </div>
                            }
                        }
                    } />
                }.into_any(),
            }}
        </section>
    }
}

/// Reads the stored sessions into the library. Records that no longer import are reported and
/// left in storage untouched.
async fn load(sessions: Sessions) {
    let records = match db::load_all().await {
        Ok(records) => records,
        Err(e) => {
            sessions.error.set(Some(e.to_string()));
            return;
        }
    };
    let counter = counter();
    let mut entries = Vec::new();
    let mut deleted = Vec::new();
    let mut broken = Vec::new();
    for record in records {
        match session::import(record.file.as_bytes(), &counter) {
            Ok(mut s) => {
                s.name = record.name.clone();
                let entry = Entry {
                    id: record.id,
                    session: s,
                    updated_ms: record.updated_ms,
                    revision: record.revision,
                };
                match record.deleted_ms {
                    Some(at) => deleted.push((entry, at)),
                    None => entries.push(entry),
                }
            }
            Err(e) => broken.push(format!("\u{201c}{}\u{201d}: {e}", record.name)),
        }
    }
    sessions.library.update(|library| {
        let mut loaded = Library::from_stored_with_deleted(entries, deleted, now_ms());
        // Sessions created before the load finished are kept, and saved as new records.
        for e in library.list() {
            if loaded.get(&e.id).is_none() {
                let _ = loaded.add(e.id.clone(), e.session.clone(), e.updated_ms);
            }
        }
        *library = loaded;
    });
    sessions.loaded.set(true);
    if !broken.is_empty() {
        sessions.error.set(Some(format!(
            "Some saved sessions could not be read and were skipped: {}",
            broken.join("; ")
        )));
    }
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
            let result = match &op {
                SaveOp::Put { entry, expected }
                | SaveOp::Bury {
                    entry, expected, ..
                } => {
                    let deleted_ms = match &op {
                        SaveOp::Bury { deleted_ms, .. } => Some(*deleted_ms),
                        _ => None,
                    };
                    let record = db::Record {
                        id: entry.id.clone(),
                        name: entry.session.name.clone(),
                        updated_ms: entry.updated_ms,
                        revision: entry.revision,
                        file: session::export(
                            &entry.session,
                            entry.updated_ms,
                            env!("CARGO_PKG_VERSION"),
                        ),
                        deleted_ms,
                    };
                    db::put(&record, *expected).await.map(|()| {
                        sessions
                            .library
                            .update_untracked(|l| l.saved(&entry.id, entry.revision));
                        broadcast::post(
                            &match deleted_ms {
                                Some(_) => Broadcast::Deleted {
                                    id: entry.id.clone(),
                                },
                                None => Broadcast::Saved {
                                    id: entry.id.clone(),
                                    revision: entry.revision,
                                },
                            }
                            .encode(),
                        );
                    })
                }
                SaveOp::Delete { id, expected } => db::delete(id, id, *expected).await.map(|()| {
                    sessions.library.update_untracked(|l| l.removed(id));
                    broadcast::post(&Broadcast::Deleted { id: id.clone() }.encode());
                }),
            };
            match (result, &op) {
                (Ok(()), _) => {}
                // Another tab wrote this session first: this tab's change is unsaved, and the
                // user chooses between the two versions.
                (Err(StoreError::Conflict { name }), SaveOp::Put { entry, .. }) => {
                    sessions.remote.set(Some(RemoteNotice {
                        id: entry.id.clone(),
                        name,
                        unsaved: true,
                    }));
                }
                (Err(e), _) => {
                    sessions
                        .conflict
                        .set(matches!(e, StoreError::Conflict { .. }));
                    sessions.error.set(Some(e.to_string()));
                }
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
            let name = sessions
                .library
                .with_untracked(|l| l.get(&id).map(|e| e.session.name.clone()));
            match read_entry(&id).await {
                Ok(stored) => {
                    let name = stored
                        .as_ref()
                        .map(|e| e.session.name.clone())
                        .or(name)
                        .unwrap_or_default();
                    let gone = stored.is_none();
                    sessions.library.update(|l| l.accept_stored(&id, stored));
                    if gone && sessions.selected.get_untracked().as_deref() == Some(id.as_str()) {
                        sessions.selected.set(None);
                    }
                    sessions.remote.set(Some(RemoteNotice {
                        id,
                        name,
                        unsaved: false,
                    }));
                }
                Err(e) => sessions.error.set(Some(e)),
            }
        }),
        Remote::Conflict(id) => {
            let name = sessions
                .library
                .with_untracked(|l| l.get(&id).map(|e| e.session.name.clone()))
                .unwrap_or_default();
            sessions.remote.set(Some(RemoteNotice {
                id,
                name,
                unsaved: true,
            }));
        }
    }
}

/// The user's answer to a conflict: take the stored version, keeping this tab's as a copy
/// when `keep_copy`.
async fn resolve(sessions: Sessions, id: String, keep_copy: bool) {
    match read_entry(&id).await {
        Ok(stored) => {
            let mut result = Ok(());
            sessions.library.update(|l| {
                if keep_copy {
                    result = l.keep_as_copy(&id, new_id(), stored, now_ms());
                } else {
                    l.accept_stored(&id, stored);
                }
            });
            sessions.remote.set(None);
            sessions.conflict.set(false);
            sessions.error.set(result.err().map(|e| e.to_string()));
        }
        Err(e) => sessions.error.set(Some(e)),
    }
}

/// The stored version of one session; `None` when it was deleted.
async fn read_entry(id: &str) -> Result<Option<Entry>, String> {
    let Some(record) = db::get(id).await.map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    if record.deleted_ms.is_some() {
        return Ok(None);
    }
    let mut session = session::import(record.file.as_bytes(), &counter())
        .map_err(|e| format!("\u{201c}{}\u{201d} could not be read: {e}", record.name))?;
    session.name = record.name;
    Ok(Some(Entry {
        id: record.id,
        session,
        updated_ms: record.updated_ms,
        revision: record.revision,
    }))
}

async fn import_file(sessions: Sessions, file: web_sys::File) {
    if file.size() > session::MAX_IMPORT_BYTES as f64 {
        let error = session::ImportError::TooLarge {
            bytes: file.size() as usize,
            limit: session::MAX_IMPORT_BYTES,
        };
        sessions.error.set(Some(format!(
            "{} could not be imported: {error}.",
            file.name()
        )));
        return;
    }
    let text = match JsFuture::from(file.text()).await {
        Ok(text) => text.as_string().unwrap_or_default(),
        Err(_) => {
            sessions.error.set(Some(format!(
                "{} could not be read; choose the file again.",
                file.name()
            )));
            return;
        }
    };
    match session::import_all(text.as_bytes(), &counter()) {
        Ok(imported) => {
            let now = now_ms();
            let mut first = None;
            sessions.library.update(|l| {
                for s in imported {
                    let id = new_id();
                    if l.add(id.clone(), s, now).is_ok() {
                        first.get_or_insert(id);
                    }
                }
            });
            sessions.error.set(None);
            sessions.conflict.set(false);
            if first.is_some() {
                sessions.selected.set(first);
            }
        }
        Err(e) => sessions.error.set(Some(format!(
            "{} was not imported, and nothing changed: {e}.",
            file.name()
        ))),
    }
}

/// Offers `text` as a download through a Blob URL.
fn download(filename: &str, text: &str) -> Result<(), String> {
    let describe = |e: wasm_bindgen::JsValue| format!("{e:?}");
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/json");
    let blob =
        web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(describe)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(describe)?;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let anchor: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(describe)?
        .dyn_into()
        .map_err(|_| "no anchor".to_owned())?;
    anchor.set_href(&url);
    anchor.set_download(filename);
    anchor.click();
    // The click has started the download; the URL is no longer needed.
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Token counts for imported messages: exact once the vocabulary is loaded, an estimate before
/// (a view that counts with it is recomputed when the vocabulary arrives).
fn counter() -> AppCounter {
    AppCounter
}

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}

/// A new session id: the time and a random part, so two tabs never pick the same one.
fn new_id() -> String {
    format!(
        "{:x}-{:08x}",
        now_ms(),
        (js_sys::Math::random() * f64::from(u32::MAX)) as u32
    )
}
