//! The message box of the live chat, with Send, Stop and Retry of a reply (a summary's Stop and
//! Retry are its `RunControls`', in the tab).

use leptos::prelude::*;

use crate::app::workbench::Workbench;
use crate::engine::settings::Settings;
use crate::ui::run::draft::Draft;
use crate::ui::run::live_driver::LiveDriver;
use crate::ui::run::token_service::TokenService;

/// The message box with Send, Stop and Retry. It is enabled when no demo is loaded and the
/// endpoint settings are complete; a demo plays offline and never sends anything.
#[component]
pub(super) fn Composer() -> impl IntoView {
    let workbench = expect_context::<RwSignal<Workbench>>();
    let settings = expect_context::<RwSignal<Settings>>();
    let driver = LiveDriver::from_context();
    // Typing here is what first needs the vocabulary on the Chat tab: a typed text is in no
    // table of the demos' counts.
    let tokens = TokenService::from_context();
    // The draft is kept in storage as it is typed (`ui::run::draft`), so it survives a tab
    // switch (which rebuilds this component), a reload and a closed tab; a message taken by
    // Send clears it.
    let draft = Draft::load();
    let set_draft = move |text: String| draft.set(text);
    let live = Memo::new(move |_| workbench.with(Workbench::is_live));
    let valid = Memo::new(move |_| settings.with(|s| s.validate().is_ok()));
    let streaming = Memo::new(move |_| workbench.with(|w| w.live.is_streaming()));
    let busy = Memo::new(move |_| workbench.with(|w| w.live.is_busy()));
    let can_retry = Memo::new(move |_| workbench.with(Workbench::can_retry));
    let enabled = move || live.get() && valid.get();

    let send = move || {
        if driver.send(&draft.get_untracked()) {
            set_draft(String::new());
        }
    };
    let retry = move || driver.retry();
    let stop = move || driver.stop();
    let keydown = move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
        // Enter sends and Shift+Enter makes a new line, as in most chat apps.
        "Enter" if !ev.shift_key() => {
            ev.prevent_default();
            if !streaming.get_untracked() {
                send();
            }
        }
        "Escape" => stop(),
        _ => {}
    };

    view! {
        <form
            class="composer"
            on:submit=move |ev| {
                ev.prevent_default();
                send();
            }
        >
            <textarea
                data-testid="chat-input"
                aria-label="Message"
                rows="2"
                disabled=move || !enabled()
                placeholder=move || {
                    if !live.get() {
                        "Choose \"Choose a demo…\" to leave the demo and chat live."
                    } else if valid.get() {
                        "Message the model. Enter sends, Shift+Enter adds a line, Esc stops."
                    } else {
                        "Connect an endpoint in Settings to chat live."
                    }
                }
                prop:value=move || draft.get()
                on:focus=move |_| tokens.need()
                on:input=move |ev| {
                    tokens.need();
                    set_draft(event_target_value(&ev))
                }
                on:keydown=keydown
            ></textarea>
            <button type="submit" data-testid="send" disabled=move || !enabled() || busy.get()>
                "Send"
            </button>
            {move || {
                streaming
                    .get()
                    .then(|| {
                        view! {
                            <button type="button" data-testid="stop" on:click=move |_| stop()>
                                "Stop"
                            </button>
                        }
                    })
            }}
            {move || {
                can_retry
                    .get()
                    .then(|| {
                        view! {
                            <button type="button" data-testid="retry" on:click=move |_| retry()>
                                "Retry"
                            </button>
                        }
                    })
            }}
            {move || {
                (!enabled())
                    .then(|| {
                        view! {
                            <p class="hint">
                                {if live.get() {
                                    "Connect an endpoint in Settings (base URL and models) to chat live; the demos run offline."
                                } else {
                                    "A demo is loaded and plays offline; unload it to chat live with your endpoint."
                                }}
                            </p>
                        }
                    })
            }}
        </form>
    }
}
