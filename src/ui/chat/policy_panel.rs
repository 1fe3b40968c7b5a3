//! The side panel's policy editor (with the summariser's own generation settings, a widget the
//! Settings tab shows too) and the rest of the policy in use, read-only.

use leptos::prelude::*;

use crate::app::policy_form::PolicyEdit;
use crate::app::workbench::Workbench;
use crate::engine::policy::{Choice, FoldMode, Placement, SummaryFormat, TriggerKind};
use crate::engine::prompts::PresetId;
use crate::ui::run::token_service::TokenService;
use crate::ui::widgets::exact_policy::ExactPolicy;
use crate::ui::widgets::export_policy::ExportPolicy;
use crate::ui::widgets::summary_settings::SummarySettings;
use crate::view::chat::PolicyPanel;
use crate::view::chat::policy_editor::{PinnedFactLine, error_hook, field_hook};
use crate::view::policy_summary::summary_line;
use crate::view::tuner::on_screen_input;

/// A field's own error, shown beside it, as `policy-{field}-error`.
fn field_error(workbench: RwSignal<Workbench>, field: &'static str) -> impl IntoView {
    move || {
        workbench.with(|w| w.policy.field_error(field)).map(
            |e| view! { <p class="field-error" data-testid=error_hook(field) role="alert">{e}</p> },
        )
    }
}

/// The editable part of the policy: trigger and parameters, fold mode, summary budget, the
/// prompt (preset, text, word limit, must-keep list), placement, format and pinned facts.
/// Every valid change applies to the conversation on screen from its next reply.
#[component]
pub(super) fn PolicyEditor() -> impl IntoView {
    let workbench = expect_context::<RwSignal<Workbench>>();
    let edit = move |e: PolicyEdit| workbench.update(|w| w.edit_policy(e));
    // A memo, so the number fields are rebuilt only when the kind changes, not on each keystroke.
    let kind = Memo::new(move |_| workbench.with(|w| w.policy.kind));
    let error = Memo::new(move |_| workbench.with(|w| w.policy.error()));
    let fact_error = Memo::new(move |_| workbench.with(|w| w.policy.fact_error.clone()));
    let facts = Memo::new(move |_| workbench.with(|w| PinnedFactLine::all(&w.policy.facts)));
    let preset = Memo::new(move |_| workbench.with(|w| w.policy.preset));
    let presets = Memo::new(move |_| workbench.with(|w| w.policy.presets()));
    let placement = Memo::new(move |_| workbench.with(|w| w.policy.placement));
    let format = Memo::new(move |_| workbench.with(|w| w.policy.format));
    let fold = Memo::new(move |_| workbench.with(|w| w.policy.fold));
    let prompt_edited = Memo::new(move |_| workbench.with(|w| w.policy.prompt_edited()));
    let tokens = use_context::<TokenService>();
    view! {
        <section class="card policy-editor" aria-label="Memory policy" data-testid="policy-editor">
            <h3>"Memory policy"</h3>
            <p class="hint">"Changes apply from the next reply; nothing already summarised changes."</p>
            <form class="policy-form" on:submit=|ev| ev.prevent_default()>
                <label>
                    "Trigger"
                    <select
                        data-testid="policy-trigger"
                        on:change=move |ev| {
                            if let Some(k) = TriggerKind::from_slug(&event_target_value(&ev)) {
                                edit(PolicyEdit::Kind(k));
                            }
                        }
                    >
                        {TriggerKind::ALL
                            .into_iter()
                            .map(|k| view! { <option value=k.slug() selected=move || kind.get() == k>{k.label()}</option> })
                            .collect_view()}
                    </select>
                </label>
                {move || {
                    kind.get()
                        .fields()
                        .into_iter()
                        .map(|field| {
                            let (param, label) = (field.param, field.label);
                            view! {
                                <label class="number">
                                    <span>{label}</span>
                                    <input
                                        type="number"
                                        min="0"
                                        data-testid=field_hook(param)
                                        prop:value=move || workbench.with(|w| w.policy.number(param))
                                        on:input=move |ev| edit(PolicyEdit::Number(param, event_target_value(&ev)))
                                    />
                                </label>
                            }
                        })
                        .collect_view()
                }}
                {move || {
                    error
                        .get()
                        .map(|e| view! { <p class="param-error" data-testid="param-error" role="alert">{e}</p> })
                }}
                <label>
                    "Each cycle"
                    <select
                        data-testid="policy-fold"
                        on:change=move |ev| {
                            if let Some(f) = FoldMode::from_slug(&event_target_value(&ev)) {
                                edit(PolicyEdit::Fold(f));
                            }
                        }
                    >
                        {FoldMode::CHOICES
                            .iter()
                            .map(|&(f, slug, label)| view! { <option value=slug selected=move || fold.get() == f>{label}</option> })
                            .collect_view()}
                    </select>
                </label>
                <label class="number">
                    <span>"Summary budget (tokens; empty: off)"</span>
                    <input
                        type="number"
                        min="1"
                        placeholder="off"
                        data-testid="policy-summary_budget"
                        prop:value=move || workbench.with(|w| w.policy.summary_budget.clone())
                        on:input=move |ev| edit(PolicyEdit::SummaryBudget(event_target_value(&ev)))
                    />
                </label>
                <p class="hint">"A summary over its budget is compressed a level up (levels 1 to 3), each level with half the words."</p>
                {field_error(workbench, "summary_budget")}
                <label>
                    "Prompt preset"
                    <select
                        data-testid="policy-preset"
                        on:change=move |ev| {
                            if let Some(p) = PresetId::from_slug(&event_target_value(&ev)) {
                                edit(PolicyEdit::Preset(p));
                            }
                        }
                    >
                        {move || {
                            presets
                                .get()
                                .into_iter()
                                .map(|p| view! { <option value=p.slug() selected=move || preset.get() == p>{p.label()}</option> })
                                .collect_view()
                        }}
                    </select>
                </label>
                <label>
                    "Summariser prompt"
                    <textarea
                        rows="5"
                        data-testid="policy-prompt"
                        prop:value=move || workbench.with(|w| w.policy.prompt_text.clone())
                        on:input=move |ev| edit(PolicyEdit::PromptText(event_target_value(&ev)))
                    ></textarea>
                </label>
                {field_error(workbench, "prompt")}
                <label class="number">
                    <span>"Word limit"</span>
                    <input
                        type="number"
                        min="1"
                        data-testid="policy-word_limit"
                        prop:value=move || workbench.with(|w| w.policy.word_limit.clone())
                        on:input=move |ev| edit(PolicyEdit::WordLimit(event_target_value(&ev)))
                    />
                </label>
                {field_error(workbench, "word_limit")}
                <label>
                    "Must keep (one a line)"
                    <textarea
                        rows="5"
                        data-testid="policy-must_keep"
                        prop:value=move || workbench.with(|w| w.policy.must_keep.clone())
                        on:input=move |ev| edit(PolicyEdit::MustKeep(event_target_value(&ev)))
                    ></textarea>
                </label>
                {field_error(workbench, "must_keep")}
                <label class="check">
                    <input
                        type="checkbox"
                        data-testid="policy-metadata"
                        prop:checked=move || workbench.with(|w| w.policy.metadata)
                        on:change=move |ev| edit(PolicyEdit::Metadata(event_target_checked(&ev)))
                    />
                    "Give and keep each turn's time, speaker and the messages folded"
                </label>
                <p class="hint" data-testid="policy-prompt-state">
                    {move || if prompt_edited.get() {
                        "Edited from the preset: the demos' scripted editions were written for the preset, so the extractive summariser writes instead, ranking the must-keep items first."
                    } else {
                        "The preset's prompt, as shipped."
                    }}
                </p>
                <button
                    type="button"
                    data-testid="policy-prompt-reset"
                    disabled=move || !prompt_edited.get()
                    on:click=move |_| edit(PolicyEdit::ResetPrompt)
                >
                    "Reset to preset"
                </button>
                <label>
                    "Summary placement"
                    <select
                        data-testid="policy-placement"
                        on:change=move |ev| {
                            if let Some(p) = Placement::from_slug(&event_target_value(&ev)) {
                                edit(PolicyEdit::Placement(p));
                            }
                        }
                    >
                        {Placement::CHOICES
                            .iter()
                            .map(|&(p, slug, label)| view! { <option value=slug selected=move || placement.get() == p>{label}</option> })
                            .collect_view()}
                    </select>
                </label>
                <label>
                    "Summary format"
                    <select
                        data-testid="policy-format"
                        on:change=move |ev| {
                            if let Some(f) = SummaryFormat::from_slug(&event_target_value(&ev)) {
                                edit(PolicyEdit::Format(f));
                            }
                        }
                    >
                        {SummaryFormat::CHOICES
                            .iter()
                            .map(|&(f, slug, label)| view! { <option value=slug selected=move || format.get() == f>{label}</option> })
                            .collect_view()}
                    </select>
                </label>
                <ExactPolicy
                    form=Signal::derive(move || workbench.with(|w| w.policy.exact.clone()))
                    set=Callback::new(move |(name, value)| edit(PolicyEdit::Exact(name, value)))
                    regroup=Callback::new(move |()| edit(PolicyEdit::ExactRegroup))
                    summary=Signal::derive(move || workbench.with(|w| w.policy.build().ok().map(|(p, _)| summary_line(&p))))
                    prefix="policy"
                    error=Signal::derive(move || workbench.with(|w| w.policy.field_error("exact")))
                />
            </form>
            <h4>"Pinned facts"</h4>
            <ul class="pinned" data-testid="pinned-facts">
                {move || {
                    facts
                        .get()
                        .into_iter()
                        .enumerate()
                        .map(|(i, fact)| {
                            // Shown by its label; the pattern it is checked by is in the title.
                            view! {
                                <li
                                    data-testid="pinned-fact"
                                    data-fact=fact.source
                                    title=fact.title
                                >
                                    {fact.label}
                                    " "
                                    <button
                                        type="button"
                                        class="link"
                                        data-testid="unpin-fact"
                                        aria-label=fact.unpin
                                        on:click=move |_| edit(PolicyEdit::RemoveFact(i))
                                    >
                                        "Unpin"
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
            <form
                class="pin-fact"
                on:submit=move |ev| {
                    ev.prevent_default();
                    edit(PolicyEdit::AddFact);
                }
            >
                <input
                    type="text"
                    data-testid="fact-input"
                    aria-label="Word or phrase to pin"
                    placeholder="e.g. 1,20,000"
                    prop:value=move || workbench.with(|w| w.policy.new_fact.clone())
                    on:input=move |ev| edit(PolicyEdit::NewFact(event_target_value(&ev)))
                />
                <button type="submit" data-testid="fact-add">"Pin"</button>
            </form>
            {move || {
                fact_error
                    .get()
                    .map(|e| view! { <p class="error" data-testid="fact-error" role="alert">{e}</p> })
            }}
            <SummarySettings />
            <ExportPolicy
                policy=Signal::derive(move || workbench.with(|w| w.policy.build().map(|(p, _)| p)))
                facts=Signal::derive(move || workbench.with(|w| w.policy.facts.clone()))
                conversation=Signal::derive(move || {
                    let counter = tokens.map(|t| {
                        // Reading the generation recounts the conversation when a vocabulary arrives.
                        t.generation();
                        t.counter()
                    });
                    workbench.with(|w| match &counter {
                        Some(c) => on_screen_input(w.on_screen().memory(), c),
                        None => on_screen_input(w.on_screen().memory(), &crate::engine::message::WordCounter),
                    })
                })
                on_import=Callback::new(move |policy| {
                    workbench.update(|w| w.import_policy(policy));
                    Ok(())
                })
            />
        </section>
    }
}

/// The rest of the policy, read-only: what the panel above does not edit.
#[component]
pub(super) fn PolicyView(panel: PolicyPanel) -> impl IntoView {
    view! {
        <section class="card policy" aria-label="Policy" data-testid="policy">
            <h3>"Policy in use"</h3>
            <dl>
                {panel
                    .rows
                    .into_iter()
                    .map(|(label, value)| view! { <dt>{label}</dt> <dd>{value}</dd> })
                    .collect_view()}
                <dt>"The prompt keeps"</dt>
                <dd>{panel.must_keep.join("; ")}</dd>
            </dl>
        </section>
    }
}
