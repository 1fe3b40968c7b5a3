//! The Settings tab: endpoint, key, models and generation settings, provider presets, and
//! "Test connection" (performed by `ui::run::connection_test`).
//!
//! The form edits the one `RwSignal<Settings>` created in the App root; the root's effect saves
//! it. Validation and presets are core logic ([`Settings`]); this file only lays them out.

use leptos::prelude::*;

use crate::app::settings_check::ConnectionTest;
use crate::engine::openai::{PROVIDERS, detect_provider};
use crate::engine::settings::{REASONING_EFFORTS, Settings};
use crate::ui::run::connection_test::test_connection;
use crate::ui::widgets::storage_line::StorageLine;
use crate::ui::widgets::store_alerts::SettingsUnreadable;
use crate::ui::widgets::summary_settings::SummarySettings;
use crate::view::settings_form::{
    EXPORT_HOLDS, inline_error, key_kept, models_found, models_offered, provider_note,
};

/// The Settings tab panel.
#[component]
pub fn SettingsPanel() -> impl IntoView {
    let settings = expect_context::<RwSignal<Settings>>();
    let test = RwSignal::new(ConnectionTest::Idle);
    let on_test = move |_| test_connection(settings, test);

    let note = move || settings.with(|s| provider_note(&s.base_url));
    let problems = move || {
        settings.with(|s| match s.validate() {
            Ok(_) => Vec::new(),
            Err(errors) => errors.iter().map(ToString::to_string).collect(),
        })
    };

    view! {
        <section class="panel settings" data-testid="panel-settings">
            <h2>"Settings"</h2>
            <p class="lead">"Your OpenAI-compatible endpoint, models and keys. Requests go straight from this browser to the server."</p>

            <fieldset class="form-group">
                <legend>"Endpoint"</legend>
                <div class="field-row">
                    <label for="provider">"Provider preset"</label>
                    <div class="field-control">
                        <select
                            id="provider"
                            data-testid="provider"
                            prop:value=move || settings.with(|s| detect_provider(&s.base_url).map_or("", |p| p.id))
                            on:change=move |ev| {
                                let id = event_target_value(&ev);
                                if let Some(provider) = PROVIDERS.iter().find(|p| p.id == id) {
                                    settings.update(|s| s.apply_provider(provider));
                                }
                            }
                        >
                            <option value="">"Custom"</option>
                            {PROVIDERS
                                .iter()
                                .map(|p| view! { <option value=p.id>{p.name}</option> })
                                .collect_view()}
                        </select>
                        <p class="help">"Fills in the base URL of a known server."</p>
                    </div>
                    {move || note().map(|line| view! { <p class="field-aside note" data-testid="provider-note">{line}</p> })}
                </div>
                <TextField id="base-url" label="Base URL" kind="url" placeholder="http://localhost:11434/v1"
                    help="The address that ends before /chat/completions, usually in /v1."
                    get=|s| s.base_url.clone() set=Settings::set_base_url />
                <TextField id="api-key" label="API key" kind="password" placeholder="empty if the server needs none"
                    help="Sent only to the server above, as a Bearer token."
                    get=|s| s.api_key.clone() set=Settings::set_api_key />
                {move || settings.with(|s| s.key_withdrawn.as_ref().map(ToString::to_string)).map(|notice| view! {
                    <div class="field-row">
                        <span></span>
                        <p class="warning field-control" data-testid="key-withdrawn" role="status">{notice}</p>
                    </div>
                })}
                <CheckField id="remember-key" label="Remember the key on this device"
                    get=|s| s.remember_key set=|s, v| s.remember_key = v>
                    {move || {
                        settings.with(|s| s.remember_key).then(|| view! {
                            <p class="warning" data-testid="remember-warning">
                                "The key will be kept in this browser's localStorage until you untick this. Anyone who uses this browser profile can read it. Leave it unticked on a shared computer: the key is then forgotten when the tab closes."
                            </p>
                        })
                    }}
                </CheckField>
                <TextField id="timeout" label="Request timeout" inputmode="numeric"
                    help="Seconds to wait for a reply before giving up, 1 to 600."
                    get=|s| s.timeout_secs.clone() set=|s, v| s.timeout_secs = v />
                <div class="field-row">
                    <span></span>
                    <div class="field-control">
                        <button type="button" data-testid="test-connection" on:click=on_test
                            disabled=move || test.with(ConnectionTest::is_testing)>
                            "Test connection"
                        </button>
                        {move || match test.get() {
                            ConnectionTest::Idle => view! {
                                <p class="help">"Asks the server for its models, so you can pick them below."</p>
                            }.into_any(),
                            ConnectionTest::Testing => view! { <p role="status">"Asking the server for its models…"</p> }.into_any(),
                            ConnectionTest::Found(count) => view! {
                                <p role="status" class="ok" data-testid="models-found">
                                    {models_found(count)}
                                    {move || settings.with(|s| s.models.join(", "))}
                                </p>
                            }.into_any(),
                            ConnectionTest::Failed(message) => view! {
                                <p class="error" data-testid="error" role="alert">{message}</p>
                            }.into_any(),
                        }}
                    </div>
                </div>
            </fieldset>

            <fieldset class="form-group">
                <legend>"Models"</legend>
                <datalist id="model-options" data-testid="model-options">
                    {move || settings.with(|s| s.models.clone()).into_iter()
                        .map(|m| view! { <option value=m></option> })
                        .collect_view()}
                </datalist>
                <TextField id="chat-model" label="Chat model" list="model-options"
                    help="The model that answers in the chat."
                    get=|s| s.chat_model.clone() set=|s, v| s.chat_model = v />
                <TextField id="summary-model" label="Summariser model" list="model-options"
                    placeholder="the chat model"
                    help="The model that writes the summaries. Leave it empty to use the chat model."
                    get=|s| s.summary_model.clone() set=|s, v| s.summary_model = v />
                {move || settings.with(|s| models_offered(&s.models)).map(|line| view! {
                    <div class="field-row">
                        <span class="label">"Offered"</span>
                        <p class="field-control wide help" data-testid="models-offered">{line}</p>
                    </div>
                })}
            </fieldset>

            <fieldset class="form-group">
                <legend>"Generation"</legend>
                <div class="generation-columns">
                    <fieldset class="gen-column" data-testid="chat-generation">
                        <legend>"Chat replies"</legend>
                        <TextField id="temperature" label="Temperature" inputmode="decimal"
                            help="0 to 2; empty for the server's default."
                            get=|s| s.temperature.clone() set=|s, v| s.temperature = v />
                        <TextField id="max-tokens" label="max_tokens" inputmode="numeric"
                            help="The longest reply, in tokens; empty for the server's default."
                            get=|s| s.max_tokens.clone() set=|s, v| s.max_tokens = v />
                        <div class="field-row">
                            <label for="reasoning-effort">"reasoning_effort"</label>
                            <div class="field-control">
                                <select
                                    id="reasoning-effort"
                                    data-testid="reasoning-effort"
                                    prop:value=move || settings.with(|s| s.reasoning_effort.clone())
                                    on:change=move |ev| settings.update(|s| s.reasoning_effort = event_target_value(&ev))
                                >
                                    <option value="">"Not sent"</option>
                                    {REASONING_EFFORTS.iter().map(|level| view! { <option value=*level>{*level}</option> }).collect_view()}
                                </select>
                                <p class="help">"Only for reasoning models."</p>
                            </div>
                            <FieldError id="reasoning-effort" />
                        </div>
                        <CheckField id="stream" label="Stream replies as they are written"
                            get=|s| s.stream set=|s, v| s.stream = v />
                    </fieldset>
                    // The summariser's own settings, the same fields as the Chat policy panel's.
                    <div class="gen-column">
                        <SummarySettings prefix="settings-" />
                    </div>
                </div>
            </fieldset>

            <fieldset class="form-group">
                <legend>"Privacy"</legend>
                <div class="field-row">
                    <span class="label">"Your key"</span>
                    <p class="field-control wide" data-testid="key-kept">{move || settings.with(key_kept)}</p>
                </div>
                <div class="field-row">
                    <span class="label">"An export"</span>
                    <p class="field-control wide" data-testid="export-holds">{EXPORT_HOLDS}</p>
                </div>
                <div class="field-row">
                    <span class="label">"Storage"</span>
                    <div class="field-control wide"><StorageLine /></div>
                </div>
            </fieldset>

            {move || {
                let problems = problems();
                (!problems.is_empty()).then(|| view! {
                    <div class="problems" data-testid="settings-problems" aria-live="polite">
                        <p>"Before chatting:"</p>
                        <ul>{problems.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}</ul>
                    </div>
                })
            }}
            // A failed save of the settings is shown above every tab (`store_alerts.rs`).
            <SettingsUnreadable />
        </section>
    }
}

/// A checkbox bound to one field of the settings, its label beside it and whatever the caller
/// adds (a warning) under it.
#[component]
fn CheckField(
    id: &'static str,
    label: &'static str,
    get: fn(&Settings) -> bool,
    set: fn(&mut Settings, bool),
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    let settings = expect_context::<RwSignal<Settings>>();
    view! {
        <div class="field-row checkbox">
            <span></span>
            <div class="field-control">
                <label class="check">
                    <input
                        id=id
                        data-testid=id
                        type="checkbox"
                        prop:checked=move || settings.with(get)
                        on:change=move |ev| settings.update(|s| set(s, event_target_checked(&ev)))
                    />
                    {label}
                </label>
                {children.map(|children| children())}
            </div>
        </div>
    }
}

/// A labelled text input bound to one field of the settings, with its help text under it and
/// what is wrong with its value beside it.
#[component]
fn TextField(
    id: &'static str,
    label: &'static str,
    get: fn(&Settings) -> String,
    set: fn(&mut Settings, String),
    #[prop(default = "text")] kind: &'static str,
    #[prop(optional)] placeholder: Option<&'static str>,
    #[prop(optional)] list: Option<&'static str>,
    #[prop(optional)] inputmode: Option<&'static str>,
    #[prop(optional)] help: Option<&'static str>,
) -> impl IntoView {
    let settings = expect_context::<RwSignal<Settings>>();
    let invalid = Memo::new(move |_| settings.with(|s| inline_error(s, id).is_some()));
    let described = help.map(|_| format!("{id}-help"));
    view! {
        <div class="field-row">
            <label for=id>{label}</label>
            <div class="field-control">
                <input
                    id=id
                    data-testid=id
                    type=kind
                    placeholder=placeholder
                    list=list
                    inputmode=inputmode
                    autocomplete="off"
                    spellcheck="false"
                    aria-describedby=move || {
                        let error = invalid.get().then(|| format!("{id}-error"));
                        let ids: Vec<String> = described.clone().into_iter().chain(error).collect();
                        (!ids.is_empty()).then(|| ids.join(" "))
                    }
                    aria-invalid=move || invalid.get().then_some("true")
                    prop:value=move || settings.with(get)
                    on:input=move |ev| {
                        let value = event_target_value(&ev);
                        settings.update(|s| set(s, value));
                    }
                />
                {help.map(|text| view! { <p class="help" id=format!("{id}-help")>{text}</p> })}
            </div>
            <FieldError id />
        </div>
    }
}

/// What is wrong with field `id`'s value, beside it; nothing while it is fine.
#[component]
fn FieldError(id: &'static str) -> impl IntoView {
    let settings = expect_context::<RwSignal<Settings>>();
    move || {
        settings.with(|s| inline_error(s, id)).map(|message| view! {
            <p class="field-aside field-error" id=format!("{id}-error") data-testid=format!("{id}-error")>
                {message}
            </p>
        })
    }
}
