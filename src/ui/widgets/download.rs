//! The one download link of the app (the Tuner's CSV, the export panel's snippet, the corpus
//! comparison's rows): the file is made when the link is clicked, never before. The click turns
//! the text into a `Blob` and points the link at an object URL for it just before the browser
//! follows it, so a large file is neither built nor percent-encoded into a `data:` URL while
//! the page renders, and the DOM never holds it. The previous click's URL is revoked by the
//! next click and when the link goes away.

use leptos::prelude::*;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

/// A link that downloads `text()` as `file_name`, of type `mime`, labelled by `children`.
#[component]
pub fn DownloadLink(
    /// The link's `data-testid`.
    testid: &'static str,
    file_name: &'static str,
    /// The file's media type, e.g. `text/csv;charset=utf-8`.
    mime: &'static str,
    /// The file's text, computed on click.
    text: UnsyncCallback<(), String>,
    children: Children,
) -> impl IntoView {
    let last = StoredValue::new_local(None::<String>);
    let revoke = move || {
        if let Some(url) = last.try_update_value(Option::take).flatten() {
            let _ = Url::revoke_object_url(&url);
        }
    };
    on_cleanup(revoke);
    let link = NodeRef::<leptos::html::A>::new();
    let click = move |ev: leptos::ev::MouseEvent| {
        let Some(anchor) = link.get_untracked() else {
            return;
        };
        let anchor: HtmlAnchorElement = anchor;
        revoke();
        match object_url(&text.run(()), mime) {
            Some(url) => {
                anchor.set_href(&url);
                last.set_value(Some(url));
            }
            // Without a Blob there is no file: the click goes nowhere rather than to `#`.
            None => ev.prevent_default(),
        }
    };
    view! {
        <a node_ref=link data-testid=testid href="#" download=file_name on:click=click>
            {children()}
        </a>
    }
}

/// An object URL for `text` as a Blob of type `mime`.
fn object_url(text: &str, mime: &str) -> Option<String> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options).ok()?;
    Url::create_object_url_with_blob(&blob).ok()
}
