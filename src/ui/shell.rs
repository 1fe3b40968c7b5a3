//! The header, the tab bar and the tab panels, with the view state kept in the URL.
//!
//! This is the App root: it creates the app-wide signals (the route, the workbench, the
//! settings, the settings' storage failure) and provides them as context. The route starts from
//! [`start_query`] (the link, or the view stored at the last visit) and is mirrored into the
//! address bar (`url.rs`) and into `store::view`.

use leptos::prelude::*;

use super::chat::ChatTab;
use super::editions::EditionsTab;
use super::on_demand::OnDemand;
use super::run::library_sync::provide_sessions;
use super::run::live_driver::LiveDriver;
use super::run::streamed::Streamed;
use super::run::token_service::TokenService;
use super::tuner::TunerTab;
use super::url::{current_query, on_history_move, write_query};
use super::widgets::focus_soon;
use super::widgets::lesson_bar::LessonBar;
use super::widgets::offline_notice::OfflineNotice;
use super::widgets::store_alerts::{SettingsLoadError, StoreAlertRegion, StoreStatus};
use super::widgets::theme_toggle::ThemeToggle;
use crate::app::resume::start_query;
use crate::app::storage::StoreError;
use crate::app::workbench::Workbench;
use crate::route::{Navigation, Route, Tab, navigation};
use crate::store;
use crate::tokens::Encoding;
use crate::view::tuner::trigger_from_route;

/// The app root: reads the route from the URL once (or, for a bare URL, the view stored at the
/// last visit: `app::resume`), then keeps the URL and the stored view in step with it.
#[component]
pub fn App() -> impl IntoView {
    let start = start_query(&current_query(), store::view::load_view().as_deref());
    let route = RwSignal::new(Route::parse(&start));
    provide_context(route);
    // The chat state lives here, not in a tab, so a demo played in Chat is still there in
    // Editions. `?demo=` loads a bundled demo at start.
    let workbench = RwSignal::new(route.with_untracked(Workbench::from_route));
    provide_context(workbench);
    // The live reply's pieces, apart from the workbench's other changes (`ui/run/streamed.rs`).
    Streamed::provide();
    // The open tab as a memo: the panel is rebuilt when the tab changes, not whenever any other
    // part of the route does (that would reset the inputs the user is typing in).
    let tab = Memo::new(move |_| route.with(|r| r.tab));

    // Mirror the route back into the address bar so a configuration can be shared as a link,
    // and into storage so a later visit to the bare address resumes it. Another place (a tab, a
    // session, a view) is a new history entry, so Back returns to the one before; the first
    // write, and any other change, rewrites the entry the page is in.
    let written = StoredValue::new(None::<String>);
    Effect::new(move |_| {
        let query = route.with(Route::to_query);
        let how = match written.get_value() {
            None => Navigation::Replace,
            Some(from) => route.with(|r| navigation(&from, r)),
        };
        if how != Navigation::None {
            write_query(&query, how);
        }
        written.set_value(Some(query.clone()));
        store::view::save_view(&query);
    });
    // Back and Forward: the route becomes the entry's, which is already in the address bar.
    on_history_move(move |query| {
        let moved = Route::parse(&query);
        written.set_value(Some(moved.to_query()));
        route.set(moved);
    });

    // The settings are read from storage once, here, and every change is mirrored back. An
    // unreadable record is said in the Settings tab (the key and every readable field kept);
    // storage that cannot be used is a storage failure, shown above every tab. The app keeps
    // working with the form's values.
    let (loaded, load_error) = store::load_settings_kept();
    let (unreadable, unusable) = match load_error {
        Some(error @ StoreError::Corrupt(_)) => (Some(error.to_string()), None),
        other => (None, other.map(|e| e.to_string())),
    };
    let settings = RwSignal::new(loaded);
    let store_status = StoreStatus(RwSignal::new(unusable));
    provide_context(settings);
    provide_context(store_status);
    provide_context(super::on_demand::export_module());
    provide_context(SettingsLoadError(RwSignal::new(unreadable)));
    Effect::new(move |_| {
        let saved = settings.with(store::save_settings);
        if let Err(error) = saved {
            store_status.0.set(Some(error.to_string()));
        }
    });

    // One token counter for the whole app. Its vocabulary is fetched when first needed (typing
    // in the chat box, Tokens, Inspect, a text the build-time table of the lesson's and the
    // demos' counts does not hold), never on the lesson's path; counts it cannot give yet show
    // as pending. A live chat kept from an earlier visit is read back with exact counts, so it
    // needs the vocabulary now.
    let tokens = TokenService::provide(Encoding::default(), super::on_demand::counter_module());
    if crate::store::live_session_id().is_some() {
        tokens.need();
    }
    // The service worker installs once the page is idle after mount, and fetches every file of
    // the build (the vocabulary and the modules included) so an installed app opens every tab
    // offline.
    super::run::offline::register_when_idle();

    // The session library: loaded from IndexedDB once the vocabulary is (so its counts are
    // exact), every change saved back.
    let sessions = provide_sessions(tokens);
    // The session a link opens, and from then on the one the library keeps open: an import
    // opens the first session it read, a deletion or another tab's change closes it, Back and
    // Forward open the entry's. The link always names the session on screen.
    let follow = move |id: Option<String>| {
        sessions.tab.update(|t| match id {
            Some(id) if t.selected() != Some(id.as_str()) => t.open(id),
            None if t.selected().is_some() => t.close(),
            _ => {}
        })
    };
    follow(route.with_untracked(|r| r.session.clone()));
    Effect::new(move |_| {
        let open = sessions.tab.with(|t| t.selected().map(str::to_owned));
        if route.with_untracked(|r| r.session != open) {
            route.update(|r| match &open {
                Some(id) => r.open_session(id),
                None => r.close_session(),
            });
        }
    });
    Effect::new(move |_| follow(route.with(|r| r.session.clone())));
    // The browser is asked to keep the library once it holds something (`app::storage`).
    super::run::storage_status::provide_storage_status(sessions);
    // The live chat's runner, shared so Stop reaches a reply whichever tab is open.
    let counter = tokens.counter();
    LiveDriver::provide(workbench, settings, counter);
    // When a vocabulary arrives, the demo's cached counts (estimates until then) are recounted,
    // whichever tab shows them: the one effect that writes back into app state (invariant 7).
    Effect::new(move |_| {
        tokens.generation();
        workbench.update(|w| w.recount(&counter));
    });

    view! {
        // The first stop of the keyboard: past the masthead, the tabs and the lesson to the tab's
        // own content.
        <a
            class="skip-link"
            href="#panel"
            data-testid="skip-link"
            on:click=move |ev| {
                ev.prevent_default();
                focus_soon("#panel");
            }
        >
            "Skip to the content"
        </a>
        <header class="masthead">
            <h1>"Summary Memory"</h1>
            <p class="tagline">"Fold old turns into a summary, keep the new ones verbatim, and watch what drifts."</p>
            <ThemeToggle />
        </header>
        // The ARIA tabs pattern: only the selected tab is in the Tab order; the arrow keys, Home
        // and End move between tabs and open the one they land on.
        <nav
            class="tabs"
            role="tablist"
            aria-label="Sections"
            on:keydown=move |ev| {
                let Some(to) = route.with_untracked(|r| r.tab.after_key(&ev.key())) else {
                    return;
                };
                ev.prevent_default();
                route.update(|r| r.tab = to);
                focus_soon(&format!("#tab-{}", to.slug()));
            }
        >
            {Tab::ALL
                .into_iter()
                .map(|tab| {
                    let selected = move || route.with(|r| r.tab == tab);
                    view! {
                        <button
                            role="tab"
                            id=format!("tab-{}", tab.slug())
                            data-testid=format!("tab-{}", tab.slug())
                            aria-controls="panel"
                            aria-selected=move || selected().to_string()
                            tabindex=move || if selected() { "0" } else { "-1" }
                            class:active=selected
                            on:click=move |_| route.update(|r| r.tab = tab)
                        >
                            {tab.label()}
                        </button>
                    }
                })
                .collect_view()}
        </nav>
        <ParamErrors />
        <LessonBar />
        <OfflineNotice />
        <StoreAlertRegion />
        <main id="panel" role="tabpanel" tabindex="-1" aria-labelledby=move || format!("tab-{}", tab.get().slug())>
            {move || panel(tab.get())}
        </main>
    }
}

/// Shows why a link's parameters could not be used, without blocking the rest of the page.
#[component]
fn ParamErrors() -> impl IntoView {
    let route = expect_context::<RwSignal<Route>>();
    move || {
        let errors = route.with(|r| {
            let mut errors: Vec<String> = r.errors.iter().map(ToString::to_string).collect();
            // The Tuner says this at the field it concerns, in its labels' words.
            if let Err(policy) = trigger_from_route(r)
                && r.tab != Tab::Tuner
            {
                errors.push(format!(
                    "The trigger parameters do not work together: {policy}."
                ));
            }
            errors
        });
        (!errors.is_empty()).then(|| {
            view! {
                <p class="param-error" data-testid="param-error" role="alert">
                    {errors.join(" ")}
                </p>
            }
        })
    }
}

fn panel(tab: Tab) -> AnyView {
    match tab {
        Tab::Chat => view! { <ChatTab /> }.into_any(),
        Tab::Editions => view! { <EditionsTab /> }.into_any(),
        Tab::Tuner => view! { <TunerTab /> }.into_any(),
        // Loaded on first use (view::modules::ON_DEMAND).
        Tab::Tokens | Tab::Inspect | Tab::Settings => view! { <OnDemand tab /> }.into_any(),
    }
}
