//! `Loaded`: the place of a part of the app loaded on first use (a tab's module, or the
//! exporters'). It says so while the module is fetched, draws what the module builds once it
//! is, and when it cannot be fetched says why and offers Retry. The split points themselves are
//! `ui::on_demand`'s, above every tab and widget: a widget gets its module's loader from the App
//! root as a context ([`ExportModule`]), so that no split point's import is reached from a
//! module's code (a build that is not split, such as the browser tests', could not link it).
//! The words are [`crate::view::modules`]'s.

use std::future::Future;
use std::pin::Pin;

use leptos::prelude::*;
use leptos::wasm_split::SplitLoaderError;

use crate::view::modules::ModuleView;

/// A module that could not be fetched (offline before it was ever loaded, or the server gone).
/// The loader keeps no failure, so the next call tries again.
pub struct LoadFailed;

impl From<SplitLoaderError> for LoadFailed {
    fn from(_: SplitLoaderError) -> Self {
        LoadFailed
    }
}

/// A module's loader: fetches the module (once; a failure is not kept) and builds its view.
pub type Loader = fn() -> Pin<Box<dyn Future<Output = Result<AnyView, LoadFailed>> + Send>>;

/// The policy exporters' loader, provided by the App root (`ui::on_demand::export_module`) for
/// the "Export policy" widget wherever it is drawn.
#[derive(Clone, Copy)]
pub struct ExportModule(pub Loader);

/// What a module's place shows: its words while `load` fetches it, the view it builds once it
/// has, or why it could not be fetched, with Retry (each Retry calls `load` again).
#[component]
pub fn Loaded<F, Fut>(words: ModuleView, load: F) -> impl IntoView
where
    F: Fn() -> Fut + Copy + Send + Sync + 'static,
    Fut: Future<Output = Result<AnyView, LoadFailed>> + Send + 'static,
{
    let attempt = RwSignal::new(0u32);
    let loading = words.loading.clone();
    let slug = words.slug;
    view! {
        <Suspense fallback=move || {
            view! {
                <p class="module-loading" role="status" data-testid="module-loading" data-module=slug>
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
                        match load().await {
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
