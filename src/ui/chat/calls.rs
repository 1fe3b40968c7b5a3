//! The live chat's model calls: our prompt count beside the API's.

use leptos::prelude::*;

use crate::app::workbench::Workbench;

/// Every live model call: the prompt tokens we counted beside what the API reported.
#[component]
pub(super) fn CallsView() -> impl IntoView {
    let workbench = expect_context::<RwSignal<Workbench>>();
    let calls = Memo::new(move |_| workbench.with(|w| w.live.calls().to_vec()));
    let shown = |n: Option<u32>| n.map_or_else(|| "—".to_owned(), |n| n.to_string());
    move || {
        let calls = calls.get();
        (!calls.is_empty()).then(|| view! {
            <section class="card calls" aria-label="Model calls">
                <h3>"Model calls"</h3>
                <p class="hint">"Prompt tokens as this page counts them, beside what the API reported."</p>
                <table class="schedule">
                    <thead><tr><th scope="col">"Call"</th><th scope="col">"Ours"</th><th scope="col">"API prompt"</th><th scope="col">"API completion"</th></tr></thead>
                    <tbody>
                        {calls.into_iter().map(|c| view! {
                            <tr data-testid="call-usage" data-kind=c.kind.label()
                                data-client=c.client_prompt_tokens
                                data-api-prompt=shown(c.api_prompt_tokens)
                                data-api-completion=shown(c.api_completion_tokens)>
                                <td>{c.kind.label()}</td>
                                <td>{c.client_prompt_tokens}</td>
                                <td>{shown(c.api_prompt_tokens)}</td>
                                <td>{shown(c.api_completion_tokens)}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </section>
        })
    }
}
