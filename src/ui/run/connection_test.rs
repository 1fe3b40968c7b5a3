//! Settings' "Test connection", performed: the app layer ([`ConnectionTest`]) says which
//! endpoint to ask for its models (or why none); this asks it and hands the answer back. The
//! tab's button only calls [`test_connection`] and renders the state.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::Client;
use crate::app::settings_check::ConnectionTest;
use crate::engine::settings::Settings;

/// "Test connection" pressed: `test` says where it stands, and the models the server lists are
/// offered in `settings`.
pub fn test_connection(settings: RwSignal<Settings>, test: RwSignal<ConnectionTest>) {
    let Some((state, request)) = settings.try_update(ConnectionTest::pressed) else {
        return;
    };
    test.set(state);
    let Some(endpoint) = request else {
        return;
    };
    spawn_local(async move {
        let (state, offered) = ConnectionTest::answered(Client::new(endpoint).list_models().await);
        if let Some(models) = offered {
            settings.update(|s| s.set_models(models));
        }
        test.set(state);
    });
}
