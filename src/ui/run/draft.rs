//! `Draft`: the live chat box's text as typed, kept in storage at each keystroke (localStorage
//! and IndexedDB's `state` store, `store::save_draft`), so it survives a tab switch (which
//! rebuilds the composer), a reload and a closed tab. The composer reads and writes it here and
//! touches no storage itself.

use leptos::prelude::*;

/// The draft, read from storage once when created.
#[derive(Clone, Copy)]
pub struct Draft {
    text: RwSignal<String>,
}

impl Draft {
    /// The draft kept at the last visit, or an empty one.
    pub fn load() -> Draft {
        Draft {
            text: RwSignal::new(crate::store::load_draft()),
        }
    }

    /// The text, tracked.
    pub fn get(self) -> String {
        self.text.get()
    }

    /// The text, untracked (for an event handler).
    pub fn get_untracked(self) -> String {
        self.text.get_untracked()
    }

    /// Keeps `text` in storage, then on screen.
    pub fn set(self, text: String) {
        crate::store::save_draft(&text);
        self.text.set(text);
    }
}
