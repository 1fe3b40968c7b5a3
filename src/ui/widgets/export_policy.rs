//! `ExportPolicy`: the "Export policy" button and the panel it opens, drawn the same in the
//! Tuner, the Chat tab's policy panel and Inspect's replay form. What it shows is
//! [`crate::view::export`]'s; this draws it, copies and downloads the snippet, reads a policy
//! JSON back into its host, and has the syntax highlighter loaded once the panel is first opened.
//! The button is in the page's first load; the panel (`ExportPanel`) is built in the exporters'
//! module, fetched the first time it opens (`ui::on_demand::export_module`, handed down by the
//! App root, drawn by `widgets::loaded`).
//! The clipboard, the file and the highlighter are `ui::run::export_io`'s. A dist built without
//! the highlighter shows the code plain.

use leptos::prelude::*;

use crate::engine::export::Target;
use crate::engine::facts::PinnedFact;
use crate::engine::policy::Policy;
use crate::engine::schedule::ScheduleInput;
use crate::engine::settings::Settings;
use crate::ui::run::export_io::{self, highlight, load_highlighter};
use crate::ui::widgets::download::DownloadLink;
use crate::ui::widgets::loaded::{ExportModule, Loaded};
use crate::ui::widgets::tokens_chart::{ChartLines, chart_width};
use crate::view::chart::LineChart;
use crate::view::export::{
    ExportInputs, copy_note, export_view, read_policy, read_policy_file, target_options,
};
use crate::view::modules::exporters_view;

/// The button that opens the panel, and the panel. `policy` is the host's policy on screen (or
/// why its form yields none), `conversation` the sizes of the conversation on screen, which the
/// schedule sentence and the chart play, and
/// `on_import`, where the host takes a policy read back from JSON.
#[component]
pub fn ExportPolicy(
    #[prop(into)] policy: Signal<Result<Policy, String>>,
    #[prop(into)] facts: Signal<Vec<PinnedFact>>,
    #[prop(into)] conversation: Signal<ScheduleInput>,
    on_import: Callback<Policy, Result<(), String>>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    provide_context(ExportHost {
        policy,
        facts,
        conversation,
        on_import,
    });
    view! {
        <p>
            <button type="button" data-testid="export-policy" aria-expanded=move || open.get().to_string()
                on:click=move |_| {
                    load_highlighter();
                    open.update(|o| *o = !*o);
                }>
                "Export policy"
            </button>
        </p>
        {move || open.get().then(|| match use_context::<ExportModule>() {
            Some(ExportModule(load)) => view! { <Loaded words=exporters_view() load=load /> }.into_any(),
            // Only a widget drawn outside the App (no root provided the module) comes here.
            None => view! { <p role="alert" data-testid="module-failed" data-module="export">{exporters_view().failed}</p> }.into_any(),
        })}
    }
}

/// What the panel exports and where a policy read back goes: the host's, handed from the button
/// (first load) to the panel (the exporters' module) as a context.
#[derive(Clone, Copy)]
pub struct ExportHost {
    policy: Signal<Result<Policy, String>>,
    facts: Signal<Vec<PinnedFact>>,
    conversation: Signal<ScheduleInput>,
    on_import: Callback<Policy, Result<(), String>>,
}

/// The open panel: the target, how exact its snippet is, the code, Copy and Download, and the
/// JSON read back. Built in the exporters' module (`ui::on_demand`'s `export` split point).
#[component]
pub fn ExportPanel() -> impl IntoView {
    let ExportHost {
        policy,
        facts,
        conversation,
        on_import,
    } = expect_context::<ExportHost>();
    let settings = expect_context::<RwSignal<Settings>>();
    let target = RwSignal::new(Target::ALL[0]);
    let shown = Memo::new(move |_| {
        policy.get().map(|p| {
            let (facts, conversation) = (facts.get(), conversation.get());
            settings.with(|settings| {
                let inputs = ExportInputs {
                    settings,
                    facts: &facts,
                    conversation: &conversation,
                };
                export_view(target.get(), &p, &inputs)
            })
        })
    });
    let copied = RwSignal::new(None::<String>);
    let imported = RwSignal::new(None::<Result<(), String>>);
    let pasted = RwSignal::new(String::new());
    let import = move |place: &str, text: &str| {
        let outcome = read_policy(place, text).and_then(|p| on_import.run(p));
        imported.set(Some(outcome));
    };
    let code = NodeRef::<leptos::html::Code>::new();
    // The code and its language are written here, then handed to the highlighter when it has
    // loaded: it rebuilds the element from text nodes, so Leptos must not own the element's
    // children, and the language must be the new one before it looks.
    Effect::new(move |_| {
        let Some(element) = code.get() else { return };
        let (text, language) = shown.with(|s| {
            s.as_ref()
                .ok()
                .map_or((None, ""), |v| (Some(v.code.clone()), v.language))
        });
        let _ = element.set_attribute("data-language", language);
        element.set_text_content(text.as_deref());
        highlight(&element);
    });
    let copy = move |_| {
        let Some(text) = shown.with_untracked(|s| s.as_ref().ok().map(|v| v.code.clone())) else {
            return;
        };
        export_io::copy(text, move |done| {
            copied.set(Some(copy_note(done).to_owned()))
        });
    };
    view! {
        <section class="card export" aria-label="Export policy">
            <h4>"Export this policy as code"</h4>
            <label>"Target "
                <select data-testid="export-target" on:change=move |ev| {
                    if let Some(t) = Target::from_slug(&event_target_value(&ev)) {
                        target.set(t);
                        copied.set(None);
                    }
                }>
                    {target_options().into_iter().map(|(slug, label)| view! {
                        <option value=slug selected=move || target.get().slug() == slug>{label}</option>
                    }).collect_view()}
                </select>
            </label>
            {move || match shown.get() {
                Err(reason) => view! {
                    <p class="param-error" role="alert" data-testid="export-error">
                        "The form does not yield a policy to export: " {reason}
                    </p>
                }.into_any(),
                Ok(v) => view! { <Exactness view=v.clone() /> }.into_any(),
            }}
            <pre class="export-code"><code node_ref=code data-testid="export-code"></code></pre>
            <p class="controls">
                <button type="button" data-testid="export-copy" on:click=copy>"Copy"</button>
                {move || shown.with(|s| s.as_ref().ok().map(|v| (v.code.clone(), v.file_name))).map(|(code, file_name)| {
                    let code = StoredValue::new(code);
                    view! {
                        <DownloadLink testid="export-download" file_name=file_name
                            mime="text/plain;charset=utf-8"
                            text=UnsyncCallback::new(move |()| code.get_value())>
                            "Download " {file_name}
                        </DownloadLink>
                    }
                })}
                {move || copied.get().map(|note| view! { <span role="status" data-testid="export-copied">{note}</span> })}
            </p>
            <details class="export-import">
                <summary data-testid="export-import-open">"Import a policy JSON"</summary>
                <p class="hint">"The JSON target reads back here: paste it or choose its file, and the form above takes its policy."</p>
                <textarea rows="4" data-testid="export-import-text" aria-label="Policy JSON"
                    prop:value=move || pasted.get()
                    on:input=move |ev| pasted.set(event_target_value(&ev))></textarea>
                <p class="controls">
                    <button type="button" data-testid="export-import"
                        on:click=move |_| import("the pasted text", &pasted.get_untracked())>
                        "Import the pasted JSON"
                    </button>
                    <input type="file" accept=".json,application/json" data-testid="export-import-file"
                        aria-label="Policy JSON file"
                        on:change=move |ev| {
                            let input: web_sys::HtmlInputElement = event_target(&ev);
                            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                                imported.set(None);
                                export_io::read_file(file, move |name, text| {
                                    let outcome = read_policy_file(&name, text.as_deref())
                                        .and_then(|p| on_import.run(p));
                                    imported.set(Some(outcome));
                                });
                            }
                            input.set_value("");
                        } />
                </p>
                {move || imported.get().map(|outcome| match outcome {
                    Ok(()) => view! { <p role="status" data-testid="export-imported">"Imported: the form above now holds this policy."</p> }.into_any(),
                    Err(reason) => view! { <p class="param-error" role="alert" data-testid="export-import-error">{reason}</p> }.into_any(),
                })}
            </details>
        </section>
    }
}

/// How exact the snippet is, and when it is not, what differs, what that does to the schedule,
/// and both dry runs in one chart.
#[component]
fn Exactness(view: crate::view::export::ExportView) -> impl IntoView {
    let chart =
        (!view.chart.is_empty()).then(|| LineChart::new(view.chart.clone(), chart_width(), 160.0));
    view! {
        <div data-testid="export-exactness" data-exact=view.exact.to_string()>
            <p>{view.verdict}</p>
            {(!view.differences.is_empty()).then(|| view! {
                <ul>{view.differences.into_iter().map(|d| view! { <li>{d}</li> }).collect_view()}</ul>
            })}
            {view.schedule.map(|s| view! { <p data-testid="export-schedule">{s}</p> })}
            {chart.map(|chart| view! {
                <figure class="chart">
                    <ChartLines chart=chart.clone() label="Tokens per request: your policy and the snippet's" />
                    <figcaption>
                        {chart.lines.iter().map(|(series, _)| view! {
                            <span class=series.key_class()>{series.label}</span>
                        }).collect_view()}
                        " — tokens per request on the conversation on screen."
                    </figcaption>
                </figure>
            })}
        </div>
    }
}
