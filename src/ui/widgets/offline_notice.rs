//! `OfflineNotice`: the small notice that says when the service worker's install could not keep
//! every file of the build offline. The worker is registered, and its message heard, by
//! `ui/run/offline.rs`; the words are [`OfflineScreen`]'s.

use leptos::prelude::*;

use crate::ui::run::offline::on_incomplete_install;
use crate::view::offline::{MissingFile, OfflineScreen};

/// A small, dismissible notice (`offline-notice`, `role="status"`: it interrupts nothing) shown
/// when the service worker's install could not keep every file of the build. It listens from
/// the first render, before the worker is registered, so the worker's message cannot be missed.
#[component]
pub fn OfflineNotice() -> impl IntoView {
    let missing = RwSignal::new(Vec::<MissingFile>::new());
    on_incomplete_install(move |files| missing.set(files));
    let screen = Memo::new(move |_| missing.with(|files| OfflineScreen::of(files)));
    move || {
        screen.get().map(|screen| {
            view! {
                <p class="offline-notice" data-testid="offline-notice" role="status">
                    {screen.text}
                    " "
                    <button data-testid="offline-notice-dismiss" on:click=move |_| missing.set(Vec::new())>
                        "OK"
                    </button>
                </p>
            }
        })
    }
}
