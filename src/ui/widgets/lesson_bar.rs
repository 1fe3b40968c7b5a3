//! The guided lesson's card, pinned to the top of the window while `?lesson=N` is in the route:
//! the step's title and text, Back, Next (Done on the last step) and Close; Esc closes it too. The steps and what each sets up are `app::lesson`'s; this file
//! applies them and mirrors the step's [`Look`] onto `<html data-lesson-look>`, where the
//! stylesheet highlights what to look at (a rule, not a class on an element, so it survives the
//! views redrawing).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::app::lesson::{Look, step};
use crate::app::workbench::Workbench;
use crate::route::Route;
use crate::view::lesson::LessonScreen;

use crate::ui::run::token_service::{SharedCounter, TokenService};

/// What opening a step needs, taken from the context while a component is built, so a click
/// handler can open a step.
#[derive(Clone, Copy)]
pub struct Lesson {
    route: RwSignal<Route>,
    workbench: RwSignal<Workbench>,
    counter: SharedCounter,
}

impl Lesson {
    pub fn from_context() -> Lesson {
        Lesson {
            route: expect_context::<RwSignal<Route>>(),
            workbench: expect_context::<RwSignal<Workbench>>(),
            counter: TokenService::from_context().counter(),
        }
    }

    /// Opens step `number` of the lesson: its tab, demo and parameters, and what to look at.
    pub fn go(self, number: u32) {
        let Some(chosen) = step(number) else {
            return;
        };
        let mut next = self.route.get_untracked();
        self.workbench
            .update(|w| chosen.apply(number, &mut next, w, &self.counter));
        self.route.set(next);
        scroll_to(chosen.look);
    }
}

/// The lesson bar; nothing outside the lesson.
#[component]
pub fn LessonBar() -> impl IntoView {
    let lesson = Lesson::from_context();
    let route = lesson.route;
    let workbench = lesson.workbench;
    let current = Memo::new(move |_| route.with(|r| r.lesson));

    // A link to a step opens its view once, at start.
    if let Some(number) = current.get_untracked() {
        lesson.go(number);
    }
    // Mirrors what the step points at onto the page for the stylesheet.
    Effect::new(move |_| {
        let look = current.get().and_then(step).map(|s| s.look.slug());
        if let Some(root) = document().document_element() {
            let _ = match look {
                Some(slug) => root.set_attribute("data-lesson-look", slug),
                None => root.remove_attribute("data-lesson-look"),
            };
        }
    });

    // The bar is built once while the lesson is open and only its words change with the step,
    // so the focus stays on Next or Back from one step to the next.
    let screen = Memo::new(move |_| {
        current
            .get()
            .and_then(|n| workbench.with(|w| LessonScreen::of(n, w)))
    });
    let open = Memo::new(move |_| screen.with(Option::is_some));
    let number = move || screen.with(|s| s.as_ref().map_or(1, |s| s.number));
    let last = move || screen.with(|s| s.as_ref().is_some_and(|s| s.last));
    let go_by = move |delta: i64| {
        let to = i64::from(number()) + delta;
        if let Ok(to) = u32::try_from(to) {
            lesson.go(to);
        }
    };
    // Closing gives the focus back to the tab on screen, where a keyboard user goes on from.
    let close = move || {
        route.update(|r| r.lesson = None);
        focus_selected_tab();
    };
    // The card takes the focus when it opens (from the welcome's button or a link), so its
    // words are read and Next is one Tab away.
    let card = NodeRef::<leptos::html::Section>::new();
    Effect::new(move |_| {
        if let Some(card) = card.get() {
            let _ = card.focus();
        }
    });
    // Esc closes the lesson wherever the focus is.
    let escape = window_event_listener(leptos::ev::keydown, move |event| {
        if event.key() == "Escape" && open.get_untracked() {
            close();
        }
    });
    on_cleanup(move || escape.remove());
    move || {
        open.get().then(|| view! {
            <section
                class="lesson"
                data-testid="lesson"
                data-step=number
                data-target=move || screen.with(|s| s.as_ref().map(|s| s.target))
                aria-labelledby="lesson-title"
                tabindex="-1"
                node_ref=card
            >
                <p class="lesson-count" aria-live="polite">{move || screen.with(|s| s.as_ref().map(|s| s.count.clone()))}</p>
                <h2 class="lesson-title" id="lesson-title" data-testid="lesson-title">{move || screen.with(|s| s.as_ref().map(|s| s.title))}</h2>
                <p class="lesson-text" data-testid="lesson-text">{move || screen.with(|s| s.as_ref().map(|s| s.text.clone()))}</p>
                // The end of the lesson leads to the app's other half: transcripts of your own.
                {move || last().then(|| view! {
                    <p class="hint">
                        "Next, your own conversations: "
                        <button type="button" class="link" data-testid="lesson-inspect" on:click=move |_| {
                            route.update(|r| {
                                r.lesson = None;
                                r.tab = crate::route::Tab::Inspect;
                            });
                        }>"open a transcript in Inspect"</button>
                        ", and check its summaries the same way."
                    </p>
                })}
                <div class="lesson-nav">
                    <button
                        type="button"
                        data-testid="lesson-back"
                        disabled=move || screen.with(|s| s.as_ref().is_none_or(|s| s.first))
                        on:click=move |_| go_by(-1)
                    >
                        "Back"
                    </button>
                    // One button, Next and on the last step Done, so the focus stays on it.
                    <button
                        type="button"
                        data-testid="lesson-next"
                        on:click=move |_| if last() { close() } else { go_by(1) }
                    >
                        {move || screen.with(|s| s.as_ref().map(|s| s.next))}
                    </button>
                    <button
                        type="button"
                        class="quiet"
                        data-testid="lesson-close"
                        aria-keyshortcuts="Escape"
                        on:click=move |_| close()
                    >
                        "Close the lesson"
                    </button>
                </div>
            </section>
        })
    }
}

/// Moves the focus to the selected tab's button, once the page has redrawn.
fn focus_selected_tab() {
    super::focus_soon("[role='tab'][aria-selected='true']");
}

/// Scrolls the first element the step points at into view below the lesson card, once the
/// views have drawn it. The card is pinned to the top of the window (`position: sticky`), so the
/// element is brought to the top and then down past the card. The views draw over a few frames
/// (a virtual list measures its rows after the first), and on a busy machine a view can take
/// well over the first look's 60 ms: so it looks again every 150 ms until the element has stood
/// beside the card twice in a row, for at most 4 s. A later step's scroll ends this one's.
fn scroll_to(look: Look) {
    thread_local! {
        static LATEST: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }
    let generation = LATEST.with(|latest| {
        latest.set(latest.get().wrapping_add(1));
        latest.get()
    });
    fn attempt(selector: &'static str, generation: u32, tries: u32, settled: u32) {
        let current = thread_local_latest();
        if current != generation || tries == 0 || settled >= 2 {
            return;
        }
        let settled = match place_beside_card(selector) {
            Placed::Beside => settled + 1,
            Placed::Moved | Placed::Absent => 0,
        };
        set_timeout(
            move || attempt(selector, generation, tries - 1, settled),
            std::time::Duration::from_millis(150),
        );
    }
    fn thread_local_latest() -> u32 {
        LATEST.with(std::cell::Cell::get)
    }
    let selector = look.selector();
    set_timeout(
        move || attempt(selector, generation, 27, 0),
        std::time::Duration::from_millis(60),
    );
}

/// What one look at the step's element found.
enum Placed {
    /// Not drawn yet.
    Absent,
    /// It was elsewhere and has been scrolled to.
    Moved,
    /// It already stood below the card, inside the window.
    Beside,
}

fn place_beside_card(selector: &str) -> Placed {
    let Ok(Some(element)) = document().query_selector(selector) else {
        return Placed::Absent;
    };
    let card_bottom = document()
        .query_selector("[data-testid='lesson']")
        .ok()
        .flatten()
        .and_then(|card| viewport_edge(&card, "bottom"))
        .unwrap_or(0.0);
    let top = viewport_edge(&element, "top").unwrap_or(0.0);
    let height = window().inner_height().ok().and_then(|h| h.as_f64());
    if top >= card_bottom && height.is_some_and(|h| top < h - 40.0) {
        return Placed::Beside;
    }
    element.scroll_into_view_with_bool(true);
    if let Some(top) = viewport_edge(&element, "top") {
        // Room between the card and the element, so its highlight's outline shows.
        window().scroll_by_with_x_and_y(0.0, top - card_bottom - 16.0);
    }
    Placed::Moved
}

/// Where `element`'s `edge` (`top` or `bottom`) is in the window, in CSS pixels. Read through
/// `getBoundingClientRect` by name: web-sys's `DomRect` binding is not among the features this
/// build compiles, and adding it would rebuild the whole web stack for two numbers.
fn viewport_edge(element: &web_sys::Element, edge: &str) -> Option<f64> {
    let rect = js_sys::Reflect::get(element, &"getBoundingClientRect".into())
        .ok()?
        .dyn_into::<js_sys::Function>()
        .ok()?
        .call0(element)
        .ok()?;
    js_sys::Reflect::get(&rect, &edge.into()).ok()?.as_f64()
}
