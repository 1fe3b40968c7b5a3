//! An assistant reply rendered from its Markdown tree ([`crate::view::markdown`]) as Leptos
//! elements, one per node. Nothing here sets inner HTML: every word of the reply is a text node,
//! so raw HTML in a reply shows as text and runs nothing, and a link is an `<a>` only when the
//! view model made it one (http, https, mailto).
//!
//! [`RawReplies`] is the Chat tab's "raw text" toggle: with it on, a reply shows its source
//! exactly as it arrived.

use leptos::prelude::*;

use crate::engine::message::Role;
use crate::view::markdown::{Kind, Node, parse};

/// Whether replies show their raw text instead of their Markdown, provided by the Chat tab.
#[derive(Clone, Copy)]
pub struct RawReplies(pub RwSignal<bool>);

/// A message's content: an assistant reply as Markdown (or raw, under [`RawReplies`]), anything
/// else as the plain text it is. The element carries the `content` class either way.
#[component]
pub fn MessageContent(role: Role, text: String) -> impl IntoView {
    if role != Role::Assistant {
        return view! { <p class="content">{text}</p> }.into_any();
    }
    let raw = use_context::<RawReplies>().map(|r| r.0);
    (move || {
        if raw.is_some_and(|r| r.get()) {
            view! { <p class="content raw" data-testid="reply-raw">{text.clone()}</p> }.into_any()
        } else {
            let nodes = parse(&text);
            view! {
                <div class="content markdown" data-testid="reply-markdown">
                    {nodes.iter().map(render).collect_view()}
                </div>
            }
            .into_any()
        }
    })
    .into_any()
}

/// The toggle between a reply's Markdown and its raw text.
#[component]
pub fn RawToggle() -> impl IntoView {
    let raw = expect_context::<RawReplies>().0;
    view! {
        <label class="raw-toggle">
            <input
                type="checkbox"
                data-testid="raw-replies"
                prop:checked=move || raw.get()
                on:change=move |ev| raw.set(event_target_checked(&ev))
            />
            "Show replies as raw text"
        </label>
    }
}

fn render(node: &Node) -> AnyView {
    match node {
        Node::Text(text) => text.clone().into_any(),
        Node::Code(code) => view! { <code>{code.clone()}</code> }.into_any(),
        Node::CodeBlock { lang, code } => view! {
            <pre class="code-block" data-lang=lang.clone() tabindex="0">
                <code>{code.clone()}</code>
            </pre>
        }
        .into_any(),
        // The newline stays in the text (a copy keeps it); the line wraps as the reader's does.
        Node::SoftBreak => "\n".into_any(),
        Node::HardBreak => view! { <br /> }.into_any(),
        Node::Rule => view! { <hr /> }.into_any(),
        Node::Element { kind, children } => {
            let inner = children.iter().map(render).collect_view();
            element(kind, inner)
        }
    }
}

fn element(kind: &Kind, inner: Vec<AnyView>) -> AnyView {
    match kind {
        Kind::Paragraph => view! { <p>{inner}</p> }.into_any(),
        // A reply's headings sit under the tab's h2 and the page's h3 cards.
        Kind::Heading(1) => view! { <h4>{inner}</h4> }.into_any(),
        Kind::Heading(2) => view! { <h5>{inner}</h5> }.into_any(),
        Kind::Heading(_) => view! { <h6>{inner}</h6> }.into_any(),
        Kind::Quote => view! { <blockquote>{inner}</blockquote> }.into_any(),
        Kind::List(None) => view! { <ul>{inner}</ul> }.into_any(),
        Kind::List(Some(start)) => view! { <ol start=start.to_string()>{inner}</ol> }.into_any(),
        Kind::Item => view! { <li>{inner}</li> }.into_any(),
        Kind::Table => view! {
            <div class="table-wrap" tabindex="0">
                <table class="reply-table">{inner}</table>
            </div>
        }
        .into_any(),
        Kind::TableHead => view! { <thead><tr>{inner}</tr></thead> }.into_any(),
        Kind::TableRow => view! { <tr>{inner}</tr> }.into_any(),
        Kind::TableCell { align, head } => {
            let style = align.style();
            if *head {
                view! { <th scope="col" style=style>{inner}</th> }.into_any()
            } else {
                view! { <td style=style>{inner}</td> }.into_any()
            }
        }
        Kind::Emphasis => view! { <em>{inner}</em> }.into_any(),
        Kind::Strong => view! { <strong>{inner}</strong> }.into_any(),
        Kind::Strike => view! { <del>{inner}</del> }.into_any(),
        Kind::Link { href } => view! {
            <a href=href.clone() target="_blank" rel="noopener noreferrer">{inner}</a>
        }
        .into_any(),
        Kind::Span => view! { <span>{inner}</span> }.into_any(),
    }
}
