//! Tabs loaded on first use. Each is a split point: the build (`scripts/split.py`, with
//! `wasm-split-cli`) moves the code that only it reaches into a wasm module of its own, which the
//! page fetches the first time the tab opens (docs/size.md). Which tabs, and their words, are
//! [`crate::view::modules`]'s; what a module's place shows is `widgets::loaded`'s. The policy
//! exporters are a split point here too, handed to their widget as a context ([`export_module`]).

use leptos::prelude::*;
use leptos::wasm_split::wasm_split;

use crate::route::Tab;
use crate::tokens::StartLoading;
use crate::ui::run::token_service::{CounterLoader, CounterUnavailable};
use crate::ui::widgets::loaded::{ExportModule, LoadFailed, Loaded};
use crate::view::modules::module_view;

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

/// The policy exporters: the export panel's body, its templates and the snippets' dry runs,
/// fetched the first time "Export policy" opens (the button is in the first load: the Tuner and
/// the Chat's policy panel show it, and Inspect's replay form).
#[wasm_split(export, wasm_split_path = ::leptos::wasm_split, fallible)]
fn export_panel() -> Result<AnyView, LoadFailed> {
    Ok(view! { <super::widgets::export_policy::ExportPanel /> }.into_any())
}

/// The token counter's building code: the vocabulary file's parse, tiktoken's splitter (its
/// lazy DFA) and the BPE merge, fetched with the first vocabulary (`TokenService::need`); the
/// lesson and the demos count from the build-time table and never fetch it.
#[wasm_split(counter, wasm_split_path = ::leptos::wasm_split, fallible)]
fn counter_builder() -> Result<StartLoading, CounterUnavailable> {
    Ok(crate::tokens::Loading::start)
}

/// The counter module's loader, for the App root to give the token service.
pub fn counter_module() -> CounterLoader {
    || Box::pin(counter_builder())
}

/// The exporters' loader, for the App root to provide to the "Export policy" widget.
pub fn export_module() -> ExportModule {
    ExportModule(|| Box::pin(export_panel()))
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
    view! { <Loaded words=module_view(tab) load=move || load(tab) /> }
}
