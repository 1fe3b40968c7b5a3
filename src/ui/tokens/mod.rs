//! The Tokens tab: an encoding picker with the vocabulary's loading status, a text split into its
//! tokens, and the per-message token table of a sample conversation. The counter it shows is the
//! app-wide [`TokenService`] (`ui/run/token_service.rs`).

use leptos::prelude::*;

use crate::tokens::Encoding;
use crate::ui::run::token_service::TokenService;
use crate::view::tokens::{
    ConversationTable, PiecesScreen, Tokenized, VocabStatus, count_state, encoding_models,
    overhead_rule,
};

/// What the textarea holds when the tab opens: a line that shows words, punctuation, a number
/// and a non-Latin script being split.
const STARTER_TEXT: &str =
    "Summary memory folds turns 1–4 into a summary; the salary (₹1,20,000) must survive.";

#[component]
pub fn TokensTab() -> impl IntoView {
    let service = expect_context::<TokenService>();
    // The tab counts any text: the vocabulary is needed now.
    service.need();
    let text = RwSignal::new(STARTER_TEXT.to_owned());
    // Memos, so the textarea and the select are never rebuilt while typing: only the outputs
    // below depend on them.
    let tokenized = Memo::new(move |_| {
        let encoding = service.encoding.get();
        service.with(|counter| text.with(|t| Tokenized::new(counter, encoding, t)))
    });
    let table = Memo::new(move |_| {
        let encoding = service.encoding.get();
        service.with(|counter| ConversationTable::sample(counter, encoding))
    });
    let count = Memo::new(move |_| tokenized.with(|t| t.count));

    view! {
        <section class="panel tokens" data-testid="panel-tokens">
            <h2>"Tokens"</h2>
            <p class="hint">
                "Count tokens exactly as OpenAI's tokenizer does, and see where the text splits. "
                "Everything runs in this page; nothing is sent anywhere."
            </p>
            <form class="controls" on:submit=|ev| ev.prevent_default()>
                <label>
                    "Encoding"
                    <select
                        data-testid="tokenizer-encoding"
                        on:change=move |ev| {
                            if let Some(encoding) = Encoding::from_name(&event_target_value(&ev)) {
                                service.set_encoding(encoding);
                            }
                        }
                    >
                        {Encoding::ALL
                            .into_iter()
                            .map(|e| {
                                view! {
                                    <option value=e.name() selected=move || service.encoding.get() == e>
                                        {e.name()}
                                        {encoding_models(e)}
                                    </option>
                                }
                            })
                            .collect_view()}
                    </select>
                </label>
                <LoadStatus />
            </form>
            <label class="tokenizer-input">
                "Text"
                <textarea
                    data-testid="tokenizer-input"
                    rows="6"
                    spellcheck="false"
                    prop:value=STARTER_TEXT
                    on:input=move |ev| text.set(event_target_value(&ev))
                ></textarea>
            </label>
            <p class="token-stats">
                <span>
                    "Tokens: "
                    <output
                        data-testid="token-count"
                        data-state=move || count_state(count.get())
                        aria-live="polite"
                    >
                        {move || count.get().to_string()}
                    </output>
                </span>
                <span>
                    "Characters: "
                    <output data-testid="char-count">{move || tokenized.with(|t| t.chars)}</output>
                </span>
                {move || {
                    (count_state(count.get()) == "estimate")
                        .then_some(
                            "≈ means estimated: a run of one character thousands long is \
                             sampled, not tokenised in full.",
                        )
                        .map(|why| view! { <span class="hint">{why}</span> })
                }}
            </p>
            <TokenPieces tokenized />
            <ConversationTableView table />
        </section>
    }
}

/// Says whether the vocabulary in use is loading, how long it took, or why it failed.
#[component]
fn LoadStatus() -> impl IntoView {
    let service = expect_context::<TokenService>();
    move || {
        let encoding = service.encoding.get();
        let VocabStatus {
            class,
            text,
            failed,
        } = VocabStatus::of(encoding, &service.state(encoding));
        view! {
            <p class=class data-testid="vocab-status" role=failed.then_some("alert")>
                {text}
                {failed.then(|| view! {
                    " "
                    <button type="button" data-testid="vocab-retry" on:click=move |_| service.retry(encoding)>
                        "Try again"
                    </button>
                })}
            </p>
        }
    }
}

/// The text's tokens on alternating backgrounds, as text spans.
#[component]
fn TokenPieces(tokenized: Memo<Tokenized>) -> impl IntoView {
    let pieces = Memo::new(move |_| tokenized.with(|t| PiecesScreen::of(&t.pieces)));
    move || {
        match pieces.get() {
        PiecesScreen::Pending => {
            view! { <p class="hint">"Tokens appear once the vocabulary has loaded."</p> }.into_any()
        }
        PiecesScreen::TooLong(why) => view! { <p class="hint">{why}</p> }.into_any(),
        PiecesScreen::Shown { spans, note } => {
            view! {
                <div class="token-pieces" data-testid="token-pieces" aria-label="The text split into tokens">
                    {spans
                        .into_iter()
                        .map(|p| view! { <span class=p.class title=p.title>{p.text}</span> })
                        .collect_view()}
                </div>
                {note.map(|n| view! { <p class="hint">{n}</p> })}
            }
            .into_any()
        }
    }
    }
}

/// The sample conversation, message by message, with the request total.
#[component]
fn ConversationTableView(table: Memo<ConversationTable>) -> impl IntoView {
    view! {
            <h3>"A conversation, per message"</h3>
            <p class="hint">
                "A chat request costs more than its messages' text. " {overhead_rule()}
                " The six user messages of the FinCoach demo, as one request:"
            </p>
    // Wider than a phone: it scrolls sideways on purpose, and the keyboard can scroll it.
            <div class="table-wrap" tabindex="0" role="region" aria-label="The conversation, per message (scrolls sideways)">
                    <table class="conversation-tokens" data-testid="conversation-tokens">
                <thead>
                    <tr>
                        <th scope="col">"#"</th>
                        <th scope="col">"Role"</th>
                        <th scope="col">"Message"</th>
                        <th scope="col">"Content"</th>
                        <th scope="col">"Overhead"</th>
                        <th scope="col">"Total"</th>
                    </tr>
                </thead>
                <tbody>
                    {move || {
                        table
                            .with(|t| t.rows.clone())
                            .into_iter()
                            .enumerate()
                            .map(|(i, row)| {
                                view! {
                                    <tr data-testid="conversation-row">
                                        <td>{i + 1}</td>
                                        <td>{row.role.as_str()}</td>
                                        <td class="content">{row.content}</td>
                                        <td data-state=count_state(row.content_tokens)>{row.content_tokens.to_string()}</td>
                                        <td>{row.overhead}</td>
                                        <td data-state=count_state(row.total)>{row.total.to_string()}</td>
                                    </tr>
                                }
                            })
                            .collect_view()
                    }}
                </tbody>
                <tfoot>
                    <tr>
                        <th scope="row" colspan="3">
                            {move || table.with(ConversationTable::total_heading)}
                        </th>
                        <td>{move || table.with(|t| t.content.to_string())}</td>
                        <td>{move || table.with(|t| t.overhead.to_string())}</td>
                        <td data-testid="conversation-total" data-state=move || table.with(|t| count_state(t.total))>
                            {move || table.with(|t| t.total.to_string())}
                        </td>
                    </tr>
                </tfoot>
            </table>
            </div>
        }
}
