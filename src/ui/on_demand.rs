//! Tabs loaded on first use. Each is a split point: the build (`scripts/split.py`, with
//! `wasm-split-cli`) moves the code that only it reaches into a wasm module of its own, which the
//! page fetches the first time the tab opens (docs/size.md). Which tabs, and their words, are
//! [`crate::view::modules`]'s.

use leptos::prelude::*;
use leptos::wasm_split::{SplitLoaderError, wasm_split};

use crate::route::Tab;
use crate::view::modules::module_view;

/// A module that could not be fetched (offline before it was ever loaded, or the server gone).
/// The loader keeps no failure, so the next call tries again.
pub struct LoadFailed;

impl From<SplitLoaderError> for LoadFailed {
    fn from(_: SplitLoaderError) -> Self {
        LoadFailed
    }
}

#[wasm_split(inspect, wasm_split_path = ::leptos::wasm_split, fallible)]
fn inspect_tab() -> Result<AnyView, LoadFailed> {
    Ok(view! { <super::inspect::InspectTab /> }.into_any())
}

#[wasm_split(tokens, wasm_split_path = ::leptos::wasm_split, fallible)]
fn tokens_tab() -> Result<AnyView, LoadFailed> {
    Ok(view! { <super::tokens::TokensTab /> }.into_any())
}

#[wasm_split(settings, wasm_split_path = ::leptos::wasm_split, fallible)]
fn settings_tab() -> Result<AnyView, LoadFailed> {
    Ok(view! { <super::settings::SettingsPanel /> }.into_any())
}

/// The tab's view, once its module is loaded. Only the tabs of `view::modules::ON_DEMAND` come
/// here (`shell::panel`).
async fn load(tab: Tab) -> Result<AnyView, LoadFailed> {
    match tab {
        Tab::Inspect => inspect_tab().await,
        Tab::Tokens => tokens_tab().await,
        Tab::Settings => settings_tab().await,
        Tab::Chat | Tab::Editions | Tab::Tuner => unreachable!("{tab:?} is in the first load"),
    }
}

/// A tab's panel, loaded on first use: it says so while its module loads, and when the module
/// cannot be fetched it says why and offers Retry.
#[component]
pub fn OnDemand(tab: Tab) -> impl IntoView {
    let words = module_view(tab);
    let attempt = RwSignal::new(0u32);
    let loading = words.loading.clone();
    view! {
        <Suspense fallback=move || {
            view! {
                <p class="module-loading" role="status" data-testid="module-loading" data-module=words.slug>
                    {loading.clone()}
                </p>
            }
        }>
            {
                let words = words.clone();
                move || {
                    attempt.track();
                    let words = words.clone();
                    Suspend::new(async move {
                        match load(tab).await {
                            Ok(panel) => panel,
                            Err(LoadFailed) => {
                                view! {
                                    <div class="module-failed" role="alert" data-testid="module-failed" data-module=words.slug>
                                        <p>{words.failed}</p>
                                        <button
                                            type="button"
                                            data-testid="module-retry"
                                            on:click=move |_| attempt.update(|n| *n += 1)
                                        >
                                            {words.retry}
                                        </button>
                                    </div>
                                }
                                    .into_any()
                            }
                        }
                    })
                }
            }
        </Suspense>
    }
}
