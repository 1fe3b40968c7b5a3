//! The theme toggle in the masthead: system, light, dark, remembered on this device.

use leptos::prelude::*;

use crate::ui::run::theme::ThemeChoice;

/// A button that steps through the themes; the stored theme was applied before mounting, and
/// [`ThemeChoice`] keeps each choice.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let theme = ThemeChoice::load();
    view! {
        <button
            type="button"
            class="theme-toggle"
            data-testid="theme-toggle"
            data-theme-choice=move || theme.get().slug()
            title="Switch between following the system, light and dark colours"
            on:click=move |_| theme.step()
        >
            {move || theme.get().label()}
        </button>
    }
}
