//! The guided lesson's bar, above every tab while `?lesson=N` is in the route: the step's title
//! and text, Back, Next and Close. The steps and what each sets up are `app::lesson`'s; this file
//! applies them and mirrors the step's [`Look`] onto `<html data-lesson-look>`, where the
//! stylesheet highlights what to look at (a rule, not a class on an element, so it survives the
//! views redrawing).

use leptos::prelude::*;

use crate::app::lesson::{Look, STEPS, step};
use crate::app::workbench::Workbench;
use crate::route::Route;

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
    let open = Memo::new(move |_| current.get().is_some_and(|n| step(n).is_some()));
    let number = move || current.get().unwrap_or(1);
    let shown = move || step(number()).unwrap_or(&STEPS[0]);
    let total = STEPS.len() as u32;
    let go_by = move |delta: i64| {
        let to = i64::from(number()) + delta;
        if let Ok(to) = u32::try_from(to) {
            lesson.go(to);
        }
    };
    move || {
        open.get().then(|| view! {
            <section class="lesson" data-testid="lesson" data-step=number aria-label="Guided lesson">
                <p class="lesson-count" aria-live="polite">{move || format!("Lesson · step {} of {total}", number())}</p>
                <h2 class="lesson-title" data-testid="lesson-title">{move || shown().title}</h2>
                <p class="lesson-text">{move || shown().text}</p>
                <div class="lesson-nav">
                    <button
                        type="button"
                        data-testid="lesson-back"
                        disabled=move || { number() <= 1 }
                        on:click=move |_| go_by(-1)
                    >
                        "Back"
                    </button>
                    <button
                        type="button"
                        data-testid="lesson-next"
                        disabled=move || { number() >= total }
                        on:click=move |_| go_by(1)
                    >
                        "Next"
                    </button>
                    <button
                        type="button"
                        class="quiet"
                        data-testid="lesson-close"
                        on:click=move |_| route.update(|r| r.lesson = None)
                    >
                        "Close the lesson"
                    </button>
                </div>
            </section>
        })
    }
}

/// Scrolls the first element the step points at into view, once the views have drawn it.
fn scroll_to(look: Look) {
    let selector = look.selector();
    let scroll = move || {
        if let Ok(Some(element)) = document().query_selector(selector) {
            element.scroll_into_view_with_bool(false);
        }
    };
    set_timeout(scroll, std::time::Duration::from_millis(50));
}
