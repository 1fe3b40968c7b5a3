//! `SummarySettings`: the summariser's own generation fields, shown by the Chat tab's policy
//! panel and, under a `settings-` prefix, by the Settings tab.

use leptos::prelude::*;

use crate::engine::settings::Settings;
use crate::view::summary_settings::SummarySettingsScreen;

/// The summariser's own generation settings, separate from the chat's: kept with the
/// endpoint's settings (they apply to every summary request), edited here beside the policy.
/// `prefix` goes before every id and hook, so the Settings tab can show the same fields.
#[component]
pub(crate) fn SummarySettings(#[prop(optional)] prefix: &'static str) -> impl IntoView {
    let settings = expect_context::<RwSignal<Settings>>();
    let screen = SummarySettingsScreen::of(prefix);
    view! {
        <fieldset class="summary-settings" data-testid=screen.testid>
            <legend>"Summariser generation"</legend>
            <p class="hint">"Sent with every summary request to your endpoint; an empty field uses the chat's value from Settings."</p>
            {screen
                .fields
                .into_iter()
                .map(|ids| {
                    let field = ids.field;
                    let id = ids.id;
                    let error = ids.error;
                    let input = if field.choices().is_empty() {
                        view! {
                            <input
                                id=id.clone()
                                type="text"
                                inputmode="decimal"
                                autocomplete="off"
                                data-testid=id.clone()
                                placeholder=field.placeholder()
                                prop:value=move || settings.with(|s| field.value(s))
                                on:input=move |ev| {
                                    let value = event_target_value(&ev);
                                    settings.update(|s| field.set(s, value));
                                }
                            />
                        }
                        .into_any()
                    } else {
                        view! {
                            <select
                                id=id.clone()
                                data-testid=id.clone()
                                prop:value=move || settings.with(|s| field.value(s))
                                on:change=move |ev| {
                                    let value = event_target_value(&ev);
                                    settings.update(|s| field.set(s, value));
                                }
                            >
                                {field
                                    .choices()
                                    .into_iter()
                                    .map(|(value, label)| view! { <option value=value>{label}</option> })
                                    .collect_view()}
                            </select>
                        }
                        .into_any()
                    };
                    view! {
                        <label class="number" for=id.clone()>
                            <span>{field.label()}</span>
                            {input}
                        </label>
                        {move || {
                            settings
                                .with(|s| field.error(s))
                                .map(|e| view! { <p class="field-error" data-testid=error.clone() role="alert">{e}</p> })
                        }}
                    }
                })
                .collect_view()}
        </fieldset>
    }
}
