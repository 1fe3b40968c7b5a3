//! The storage alerts: [`StoreAlertRegion`], shown above every tab while the session library or
//! the settings cannot be saved (with Export now, and Dismiss undo when a deleted session's undo
//! holds space on a full disk), together with the notice that another tab's version of a session
//! refused this tab's write, offered here too so the choice is made where the user is working;
//! and [`SettingsUnreadable`], the Settings tab's notice that the stored settings could not be
//! read. They render app values and call the runner; what each says is decided in `app::library`
//! and `app::storage`.

use leptos::prelude::*;

use super::remote_notice::RemoteNoticeView;
use crate::app::library::Library;
use crate::route::{Route, Tab};
use crate::ui::run::library_sync::{self as sync, Sessions};

/// Why the settings could not be saved (or storage cannot be used at all), shown above every
/// tab; `None` while saving works.
#[derive(Clone, Copy)]
pub struct StoreStatus(pub RwSignal<Option<String>>);

/// Why the stored settings were unreadable at start, if they were.
#[derive(Clone, Copy)]
pub struct SettingsLoadError(pub RwSignal<Option<String>>);

/// The app-wide storage alert (`store-error`, `role="alert"`), above the tab panels.
#[component]
pub fn StoreAlertRegion() -> impl IntoView {
    let sessions = expect_context::<Sessions>();
    let settings_failure = expect_context::<StoreStatus>().0;
    let route = expect_context::<RwSignal<Route>>();
    let alert = Memo::new(move |_| {
        sessions
            .tab
            .with(|t| sessions.library.with(|l| t.store_alert(l)))
    });
    // Inspect shows the notice about another tab itself, beside the session list.
    let remote_here = Memo::new(move |_| {
        route.with(|r| r.tab != Tab::Inspect)
            && sessions.tab.with(|t| t.remote().is_some_and(|n| n.unsaved))
    });
    let text = move || {
        let mut parts = Vec::new();
        if let Some(alert) = alert.get() {
            parts.push(alert.text);
        }
        if let Some(settings) = settings_failure.get() {
            parts.push(settings);
        }
        parts
    };
    view! {
        {move || {
            let parts = text();
            (!parts.is_empty()).then(|| {
                let dismiss_undo = alert.with(|a| a.as_ref().is_some_and(|a| a.dismiss_undo));
                let library_failed = alert.with(Option::is_some);
                view! {
                    <div class="error store-error" data-testid="store-error" role="alert">
                        {parts.into_iter().map(|p| view! { <p>{p}</p> }).collect_view()}
                        {library_failed.then(|| view! {
                            <button data-testid="store-export" on:click=move |_| {
                                sync::export(sessions);
                            }>"Export now"</button>
                        })}
                        {dismiss_undo.then(|| view! {
                            " "
                            <button data-testid="store-dismiss-undo" on:click=move |_| {
                                sessions.library.update(Library::dismiss_undo);
                            }>"Dismiss the undo to free its space"</button>
                        })}
                    </div>
                }
            })
        }}
        {move || remote_here.get().then(|| view! { <RemoteNoticeView /> })}
    }
}

/// The Settings tab's notice that the stored settings could not be read
/// (`settings-unreadable`, `role="alert"`): what was kept, and what to check.
#[component]
pub fn SettingsUnreadable() -> impl IntoView {
    let error = expect_context::<SettingsLoadError>().0;
    move || {
        error.get().map(|message| {
            view! {
                <p class="error" data-testid="settings-unreadable" role="alert">{message}</p>
            }
        })
    }
}
