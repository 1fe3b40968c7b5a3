//! `TokenEstimateNote`: the line that says a tab's token figures are estimates until the
//! vocabulary in use has loaded.

use leptos::prelude::*;

use crate::ui::run::token_service::TokenService;

/// A line that says the token figures around it are estimates, shown until the vocabulary in
/// use has loaded (for the tabs whose counts come from the engine through
/// [`SharedCounter`](crate::ui::run::token_service::SharedCounter)).
#[component]
pub fn TokenEstimateNote() -> impl IntoView {
    let service = TokenService::from_context();
    move || {
        (!service.is_exact()).then(|| {
            view! {
                <p class="hint" data-testid="token-estimate-note">
                    "Token counts here are estimates (about 4 bytes a token) until the vocabulary \
                     has loaded; see the Tokens tab."
                </p>
            }
        })
    }
}
