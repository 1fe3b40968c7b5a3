//! `ThemeChoice`: the colour theme as the masthead's toggle shows it, read from storage once and
//! kept there (`store::theme`) each time it changes, and put on `<html>` as it changes. The
//! toggle reads and steps it here and touches no storage itself.

use leptos::prelude::*;

use crate::app::theme::Theme;
use crate::store::theme::{apply_theme, load_theme, save_theme};

/// Puts the stored theme on `<html>`: called before the app mounts, so a dark choice never
/// flashes light.
pub fn apply_stored() {
    apply_theme(load_theme());
}

/// The theme chosen on this device, read from storage once when created.
#[derive(Clone, Copy)]
pub struct ThemeChoice {
    theme: RwSignal<Theme>,
}

impl ThemeChoice {
    /// The stored theme, or the system's when nothing readable is stored.
    pub fn load() -> ThemeChoice {
        ThemeChoice {
            theme: RwSignal::new(load_theme()),
        }
    }

    /// The theme, tracked.
    pub fn get(self) -> Theme {
        self.theme.get()
    }

    /// Steps to the next theme: puts it on `<html>`, keeps it in storage, then shows it.
    pub fn step(self) {
        let next = self.theme.get_untracked().next();
        apply_theme(next);
        save_theme(next);
        self.theme.set(next);
    }
}
