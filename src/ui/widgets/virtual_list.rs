//! A virtualised list: a scroll box that keeps only the rows in view (and a few either side) in
//! the page, between two spacers as tall as the rows they stand for. The arithmetic is the pure
//! [`RowHeights`]; this component only reads the scroll position and measures the rows it shows.
//!
//! Rows are keyed by index and rendered once while they stay in the window, so a row whose data
//! changes in place (a streaming chat message) should read its signal inside `row`. A list
//! whose rows all change (a new session) is best rebuilt by its parent. The box is focusable, so
//! the keyboard scrolls it. With `follow` it is a chat's: it opens at its last row and holds on
//! to the bottom while the reader is there, as rows are added and as the followed signal changes.
//! Inspect uses it for the library's session list and a session's archive, editions and replay;
//! the Chat tab for its folded archive and its verbatim turns.
//!
//! Written here rather than taken from a crate: no Leptos 0.8 virtual-list crate was in the
//! offline registry the wasm-bindgen pin was resolved against.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::view::window::{RowHeights, list_class, row_index};

/// Viewport height assumed until the scroll box has been laid out.
const FIRST_VIEWPORT: u64 = 900;

/// Renders `row(i)` for the rows of `0..count` that are in view. Each row is wrapped in a
/// `div.vrow` (measured for its height); the scroll box takes `class` and `label` (its
/// accessible name) and is focusable, so the keyboard scrolls it (arrows, Page Down, End). The
/// box is a `list`, so rows should carry `role="listitem"`.
#[component]
pub fn VirtualList<F, V>(
    /// How many rows the list has.
    #[prop(into)]
    count: Signal<usize>,
    /// Height in CSS pixels assumed for a row until it has been shown and measured.
    estimate: u32,
    /// Rows rendered beyond each edge of the viewport.
    #[prop(default = 6)]
    overscan: usize,
    /// Class of the scroll box.
    #[prop(into)]
    class: String,
    /// Accessible name of the scroll box.
    #[prop(into)]
    label: String,
    /// Makes the list a chat's: it opens at its last row and, while the reader is at the
    /// bottom, stays there as rows are added and as this signal changes (a row growing in
    /// place, such as a reply arriving, bumps it). Scrolling up lets go; scrolling back to the
    /// bottom takes hold again.
    #[prop(optional)]
    follow: Option<Signal<u64>>,
    row: F,
) -> impl IntoView
where
    F: Fn(usize) -> V + Clone + Send + Sync + 'static,
    V: IntoView + 'static,
{
    let scroller = NodeRef::<leptos::html::Div>::new();
    let heights = RwSignal::new(RowHeights::new(count.get_untracked(), estimate));
    // (scroll top, viewport height) of the scroll box.
    let scroll = RwSignal::new((0u64, FIRST_VIEWPORT));
    // The list's length is the caller's; the heights follow it, keeping what was measured.
    Effect::new(move |_| {
        let n = count.get();
        heights.maybe_update(|h| {
            let changed = h.len() != n;
            h.resize(n);
            changed
        });
    });
    let window = Memo::new(move |_| {
        let (top, viewport) = scroll.get();
        heights.with(|h| h.window(top, viewport, overscan))
    });
    let range = Memo::new(move |_| window.with(|w| (w.start, w.end)));
    // Whether a following list holds on to its bottom.
    let stuck = StoredValue::new(follow.is_some());
    let read_scroll = move || {
        if let Some(el) = scroller.get_untracked() {
            let now = (
                el.scroll_top().max(0) as u64,
                el.client_height().max(0) as u64,
            );
            if follow.is_some() {
                let bottom = el.scroll_top() + el.client_height() + 8 >= el.scroll_height();
                // Only the reader scrolls up; the list itself only ever scrolls down.
                if bottom {
                    stuck.set_value(true);
                } else if now.0 + 2 < scroll.get_untracked().0 {
                    stuck.set_value(false);
                }
            }
            if scroll.get_untracked() != now {
                scroll.set(now);
            }
        }
    };
    let to_bottom = move || {
        if stuck.get_value()
            && let Some(el) = scroller.get_untracked()
        {
            el.set_scroll_top(el.scroll_height());
        }
    };
    // Measures the rows on screen once the browser has laid them out, after every change of the
    // window; a row whose height differs from what was assumed moves the rows below it.
    let measure = move || {
        let Some(el) = scroller.get_untracked() else {
            return;
        };
        let rows = el.children();
        let mut seen = Vec::new();
        for i in 0..rows.length() {
            let Some(child) = rows.item(i) else { continue };
            let Some(index) = row_index(child.get_attribute("data-index").as_deref()) else {
                continue;
            };
            if let Ok(html) = child.dyn_into::<web_sys::HtmlElement>() {
                seen.push((index, html.offset_height().max(0) as u32));
            }
        }
        heights.maybe_update(|h| {
            seen.into_iter()
                .fold(false, |any, (i, px)| h.set(i, px) | any)
        });
        to_bottom();
        read_scroll();
    };
    // One measurement per frame however many changes asked for one.
    let asked = StoredValue::new(false);
    let measure_soon = move || {
        if !asked.get_value() {
            asked.set_value(true);
            request_animation_frame(move || {
                // The list may have been taken off the page before the frame came (a lesson
                // step that switches tab and demo at once); its values are gone with it, and
                // reading them would panic.
                if heights.is_disposed() {
                    return;
                }
                asked.set_value(false);
                measure();
            });
        }
    };
    Effect::new(move |_| {
        range.track();
        if let Some(follow) = follow {
            follow.track();
            count.track();
        }
        measure_soon();
    });

    view! {
        <div
            class=list_class(&class)
            node_ref=scroller
            tabindex="0"
            role="list"
            aria-label=label
            on:scroll=move |_| read_scroll()
        >
            <div class="vspacer" aria-hidden="true" style:height=move || window.get().top_px()></div>
            <For
                each=move || { let (a, b) = range.get(); a..b }
                key=|i| *i
                children=move |i| {
                    let row = row.clone();
                    view! { <div class="vrow" data-index=i>{row(i)}</div> }
                }
            />
            <div class="vspacer" aria-hidden="true" style:height=move || window.get().bottom_px()></div>
        </div>
    }
}
