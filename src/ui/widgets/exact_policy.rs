//! The "exact policy" section, collapsed by default (open when the policy states anything but
//! today's rules): one input per field of [`EXACT_FIELDS`], drawn the same way in the Chat
//! policy panel (`policy-{name}` hooks) and in Inspect's replay form (`replay-{name}`).

use leptos::prelude::*;

use crate::app::exact_form::{EXACT_FIELDS, ExactForm, FieldKind};

/// The section. `form` reads the values, `set` records a change by field name, and `prefix`
/// names the hooks (`policy` or `replay`).
#[component]
pub fn ExactPolicy(
    form: Signal<ExactForm>,
    set: Callback<(&'static str, String)>,
    prefix: &'static str,
    /// Why the values cannot be used, beside the section.
    error: Signal<Option<String>>,
) -> impl IntoView {
    let open = form.with_untracked(ExactForm::is_exact);
    view! {
        <details class="exact-policy" data-testid=format!("{prefix}-exact") open=open>
            <summary>"Exact policy"</summary>
            <p class="hint">
                "How another system's rule really runs: what the threshold counts, when it is checked, what stays verbatim and where the summary goes. The defaults are the rules above."
            </p>
            {EXACT_FIELDS
                .iter()
                .map(|field| {
                    let name = field.name;
                    let testid = format!("{prefix}-{name}");
                    let value = move || form.with(|f| f.value(name));
                    let input = match field.kind {
                        FieldKind::Choice(choices) => view! {
                            <select
                                data-testid=testid
                                on:change=move |ev| set.run((name, event_target_value(&ev)))
                            >
                                {choices
                                    .iter()
                                    .map(|&(v, label)| view! { <option value=v selected=move || value() == v>{label}</option> })
                                    .collect_view()}
                            </select>
                        }
                        .into_any(),
                        FieldKind::Number => view! {
                            <input
                                type="number"
                                min="0"
                                data-testid=testid
                                prop:value=value
                                on:input=move |ev| set.run((name, event_target_value(&ev)))
                            />
                        }
                        .into_any(),
                        FieldKind::Text => view! {
                            <input
                                type="text"
                                data-testid=testid
                                prop:value=value
                                on:input=move |ev| set.run((name, event_target_value(&ev)))
                            />
                        }
                        .into_any(),
                    };
                    view! { <label><span>{field.label}</span>{input}</label> }
                })
                .collect_view()}
            {move || {
                error
                    .get()
                    .map(|e| view! { <p class="field-error" data-testid=format!("{prefix}-exact-error") role="alert">{e}</p> })
            }}
        </details>
    }
}
