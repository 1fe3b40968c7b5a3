//! The theme toggle in the masthead: system, light, dark, remembered on this device.

use leptos::prelude::*;

use crate::store::theme::{apply_theme, save_theme};

/// A button that steps through the themes; the stored theme was applied before mounting.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let theme = RwSignal::new(crate::store::theme::load_theme());
    let press = move |_| {
        let next = theme.get_untracked().next();
        theme.set(next);
        apply_theme(next);
        save_theme(next);
    };
    view! {
        <button
            type="button"
            class="theme-toggle"
            data-testid="theme-toggle"
            data-theme-choice=move || theme.get().slug()
            title="Switch between following the system, light and dark colours"
            on:click=press
        >
            {move || theme.get().label()}
        </button>
    }
}
