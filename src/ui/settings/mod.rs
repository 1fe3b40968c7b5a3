//! The Settings tab: endpoint, key, models and generation settings, provider presets, and
//! "Test connection" (performed by `ui::run::connection_test`).
//!
//! The form edits the one `RwSignal<Settings>` created in the App root, one
//! [`SettingsEdit`] at a time ([`SettingsForm`]); the root's effect saves it. Validation and
//! presets are core logic ([`Settings`]), every sentence the tab shows is
//! [`SettingsScreen`]'s; this file only lays them out.

use leptos::prelude::*;

use crate::app::settings_check::ConnectionTest;
use crate::app::settings_form::{SettingsEdit, SettingsField, SettingsForm};
use crate::engine::openai::PROVIDERS;
use crate::engine::settings::{REASONING_EFFORTS, Settings};
use crate::ui::run::connection_test::test_connection;
use crate::ui::widgets::storage_line::StorageLine;
use crate::ui::widgets::store_alerts::SettingsUnreadable;
use crate::ui::widgets::summary_settings::SummarySettings;
use crate::view::settings_form::{EXPORT_HOLDS, SettingsScreen, TestLine};

/// The Settings tab panel.
#[component]
pub fn SettingsPanel() -> impl IntoView {
    let settings = expect_context::<RwSignal<Settings>>();
    let test = RwSignal::new(ConnectionTest::Idle);
    let on_test = move |_| test_connection(settings, test);
    let edit = move |e: SettingsEdit| settings.update(|s| s.edit(e));
    let screen = Memo::new(move |_| settings.with(|s| test.with(|t| SettingsScreen::of(s, t))));
    let test_line = Memo::new(move |_| screen.with(|s| s.test.clone()));

    let note = move || screen.with(|s| s.note.clone());
    let problems = move || screen.with(|s| s.problems.clone());

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
                            prop:value=move || screen.with(|s| s.provider)
                            on:change=move |ev| edit(SettingsEdit::Provider(event_target_value(&ev)))
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
                <TextField field=SettingsField::BaseUrl screen label="Base URL" kind="url" placeholder="http://localhost:11434/v1"
                    help="The address that ends before /chat/completions, usually in /v1." />
                <TextField field=SettingsField::ApiKey screen label="API key" kind="password" placeholder="empty if the server needs none"
                    help="Sent only to the server above, as a Bearer token." />
                {move || screen.with(|s| s.key_withdrawn.clone()).map(|notice| view! {
                    <div class="field-row">
                        <span></span>
                        <p class="warning field-control" data-testid="key-withdrawn" role="status">{notice}</p>
                    </div>
                })}
                <CheckField id="remember-key" label="Remember the key on this device"
                    get=|s| s.remember_key edit=SettingsEdit::RememberKey>
                    {move || {
                        screen.with(|s| s.remember_warning).then(|| view! {
                            <p class="warning" data-testid="remember-warning">
                                "The key will be kept in this browser's localStorage until you untick this. Anyone who uses this browser profile can read it. Leave it unticked on a shared computer: the key is then forgotten when the tab closes."
                            </p>
                        })
                    }}
                </CheckField>
                <TextField field=SettingsField::Timeout screen label="Request timeout" inputmode="numeric"
                    help="Seconds to wait for a reply before giving up, 1 to 600." />
                <div class="field-row">
                    <span></span>
                    <div class="field-control">
                        <button type="button" data-testid="test-connection" on:click=on_test
                            disabled=move || test.with(ConnectionTest::is_testing)>
                            "Test connection"
                        </button>
                        {move || match test_line.get() {
                            TestLine::Idle => view! {
                                <p class="help">"Asks the server for its models, so you can pick them below."</p>
                            }.into_any(),
                            TestLine::Testing => view! { <p role="status">"Asking the server for its models…"</p> }.into_any(),
                            TestLine::Found { line, models } => view! {
                                <p role="status" class="ok" data-testid="models-found">
                                    {line}
                                    {models}
                                </p>
                            }.into_any(),
                            TestLine::Failed(message) => view! {
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
                <TextField field=SettingsField::ChatModel screen label="Chat model" list="model-options"
                    help="The model that answers in the chat." />
                <TextField field=SettingsField::SummaryModel screen label="Summariser model" list="model-options"
                    placeholder="the chat model"
                    help="The model that writes the summaries. Leave it empty to use the chat model." />
                {move || screen.with(|s| s.models_offered.clone()).map(|line| view! {
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
                        <TextField field=SettingsField::Temperature screen label="Temperature" inputmode="decimal"
                            help="0 to 2; empty for the server's default." />
                        <TextField field=SettingsField::MaxTokens screen label="max_tokens" inputmode="numeric"
                            help="The longest reply, in tokens; empty for the server's default." />
                        <div class="field-row">
                            <label for="reasoning-effort">"reasoning_effort"</label>
                            <div class="field-control">
                                <select
                                    id="reasoning-effort"
                                    data-testid="reasoning-effort"
                                    prop:value=move || settings.with(|s| SettingsField::ReasoningEffort.text(s))
                                    on:change=move |ev| edit(SettingsEdit::Text(SettingsField::ReasoningEffort, event_target_value(&ev)))
                                >
                                    <option value="">"Not sent"</option>
                                    {REASONING_EFFORTS.iter().map(|level| view! { <option value=*level>{*level}</option> }).collect_view()}
                                </select>
                                <p class="help">"Only for reasoning models."</p>
                            </div>
                            <FieldError field=SettingsField::ReasoningEffort screen />
                        </div>
                        <CheckField id="stream" label="Stream replies as they are written"
                            get=|s| s.stream edit=SettingsEdit::Stream />
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
                    <p class="field-control wide" data-testid="key-kept">{move || screen.with(|s| s.key_kept.clone())}</p>
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
    edit: fn(bool) -> SettingsEdit,
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
                        on:change=move |ev| settings.update(|s| s.edit(edit(event_target_checked(&ev))))
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
    field: SettingsField,
    screen: Memo<SettingsScreen>,
    label: &'static str,
    #[prop(default = "text")] kind: &'static str,
    #[prop(optional)] placeholder: Option<&'static str>,
    #[prop(optional)] list: Option<&'static str>,
    #[prop(optional)] inputmode: Option<&'static str>,
    #[prop(optional)] help: Option<&'static str>,
) -> impl IntoView {
    let settings = expect_context::<RwSignal<Settings>>();
    let id = field.id();
    let invalid = Memo::new(move |_| screen.with(|s| s.error(field).is_some()));
    let described = Memo::new(move |_| screen.with(|s| s.described_by(field, help.is_some())));
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
                    aria-describedby=move || described.get()
                    aria-invalid=move || invalid.get().then_some("true")
                    prop:value=move || settings.with(|s| field.text(s))
                    on:input=move |ev| {
                        let value = event_target_value(&ev);
                        settings.update(|s| s.edit(SettingsEdit::Text(field, value)));
                    }
                />
                {help.map(|text| view! { <p class="help" id=field.help_id()>{text}</p> })}
            </div>
            <FieldError field screen />
        </div>
    }
}

/// What is wrong with `field`'s value, beside it; nothing while it is fine.
#[component]
fn FieldError(field: SettingsField, screen: Memo<SettingsScreen>) -> impl IntoView {
    let error = Memo::new(move |_| screen.with(|s| s.error(field)));
    move || {
        error.get().map(|message| {
            view! {
                <p class="field-aside field-error" id=field.error_id() data-testid=field.error_id()>
                    {message}
                </p>
            }
        })
    }
}
