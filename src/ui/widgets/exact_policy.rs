//! The "exact policy" section, collapsed by default (open when the policy states anything but
//! today's rules), drawn the same way in the Chat policy panel (`policy-{name}` hooks) and in
//! Inspect's replay form (`replay-{name}`): above it the whole policy in one line
//! (`{prefix}-exact-summary`, [`crate::view::policy_summary::summary_line`]); inside it one
//! input per field of [`EXACT_FIELDS`] with its hint, the changed fields first, each marked with
//! a Reset, and the others folded away in a nested `<details>` (`{prefix}-exact-defaults`).
//! Which field sits where is the form's ([`ExactForm::is_open`]): it changes only when the
//! section or its fold is opened or closed, never while a field is typed in.

use leptos::prelude::*;

use crate::app::exact_form::{EXACT_FIELDS, ExactForm, FieldKind};
use crate::view::exact_policy::{ExactFieldRow, ExactPolicyScreen, summary_line};
use crate::view::policy_summary::fold_label;

/// Field `i` of [`EXACT_FIELDS`]: its input and hint, the "changed" mark with its Reset, and the
/// note of a field its choice leaves unused. The row carries `data-changed` and, when changed,
/// the class `changed`.
fn field_row(
    i: usize,
    form: Signal<ExactForm>,
    set: Callback<(&'static str, String)>,
    hooks: ExactFieldRow,
) -> impl IntoView {
    let field = &EXACT_FIELDS[i];
    let name = field.name;
    let ExactFieldRow {
        input: testid,
        row,
        reset,
        reset_label,
    } = hooks;
    let value = move || form.with(|f| f.value(name));
    let changed = move || form.with(|f| f.is_changed(name));
    let input = match field.kind {
        FieldKind::Choice(choices) => view! {
            <select data-testid=testid on:change=move |ev| set.run((name, event_target_value(&ev)))>
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
    view! {
        <div
            class=move || if changed() { "exact-field changed" } else { "exact-field" }
            data-testid=row
            data-changed=move || changed().to_string()
        >
            <label><span>{field.label}</span>{input}<small class="hint">{field.hint}</small></label>
            {move || {
                changed()
                    .then(|| {
                        view! {
                            <p class="changed-line">
                                <span class="changed-mark">"changed"</span>
                                " "
                                <button
                                    type="button"
                                    class="link"
                                    data-testid=reset.clone()
                                    aria-label=reset_label.clone()
                                    on:click=move |_| set.run((name, field.default_value().to_owned()))
                                >
                                    "Reset"
                                </button>
                            </p>
                        }
                    })
            }}
            {move || form.with(|f| f.unused(name)).map(|note| view! { <p class="hint unused">{note}</p> })}
        </div>
    }
}

/// The section. `form` reads the values, `set` records a change by field name, `regroup` draws
/// the changed fields open again (the section or its fold opened or closed), `summary` is the
/// policy in one line (`None` while a value does not work), and `prefix` names the hooks
/// (`policy` or `replay`).
#[component]
pub fn ExactPolicy(
    form: Signal<ExactForm>,
    set: Callback<(&'static str, String)>,
    regroup: Callback<()>,
    summary: Signal<Option<String>>,
    prefix: &'static str,
    /// Why the values cannot be used, beside the section.
    error: Signal<Option<String>>,
) -> impl IntoView {
    let ExactPolicyScreen {
        summary: summary_hook,
        section,
        defaults,
        error: error_hook,
        fields,
    } = ExactPolicyScreen::of(prefix);
    let open = form.with_untracked(ExactForm::is_exact);
    // Which fields are drawn open; the rows are drawn again only when this changes.
    let grouping =
        Memo::new(move |_| form.with(|f| EXACT_FIELDS.map(|field| f.is_open(field.name))));
    view! {
        <p class="policy-summary" data-testid=summary_hook>
            {move || summary_line(summary.get())}
        </p>
        <details
            class="exact-policy"
            data-testid=section
            open=open
            on:toggle=move |_| regroup.run(())
        >
            <summary>"Exact policy"</summary>
            <p class="hint">
                "How another system's rule really runs: when it looks, what it weighs, what stays word for word and where the summary is sent. The defaults are the rules above; a changed field is marked, with a Reset."
            </p>
            {move || {
                let open = grouping.get();
                let rows = |drawn_open: bool| {
                    (0..EXACT_FIELDS.len())
                        .filter(|&i| open[i] == drawn_open)
                        .map(|i| field_row(i, form, set, fields[i].clone()))
                        .collect_view()
                };
                let fold = open.contains(&false).then(|| view! {
                    <details
                        class="exact-defaults"
                        data-testid=defaults.clone()
                        on:toggle=move |_| regroup.run(())
                    >
                        <summary>{move || form.with(fold_label)}</summary>
                        {rows(false)}
                    </details>
                });
                view! { {rows(true)} {fold} }
            }}
            {move || {
                error
                    .get()
                    .map(|e| view! { <p class="field-error" data-testid=error_hook.clone() role="alert">{e}</p> })
            }}
        </details>
    }
}
