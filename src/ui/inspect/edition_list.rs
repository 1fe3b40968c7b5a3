//! The editions a replay wrote, as the offline and the live replay both list them.

use leptos::prelude::*;

use crate::engine::edition::{Edition, Provenance};

/// The editions a replay wrote, each with its cycle, length, level and who wrote it.
#[component]
pub fn EditionList(editions: Vec<Edition>) -> impl IntoView {
    view! {
        <ol class="replay-editions">
            {editions.into_iter().map(|e| {
                let by = match (&e.model, e.provenance) {
                    (Some(model), _) => format!(" · written by {model}"),
                    (None, Provenance::Extractive) => " · extractive".to_owned(),
                    (None, _) => String::new(),
                };
                let level = if e.level > 0 { format!(" · level {}", e.level) } else { String::new() };
                view! {
                    <li data-testid="replay-edition" data-cycle=e.cycle data-level=e.level data-rebuilt=e.rebuilt.to_string()>
                        <p class="meta">{format!("Edition {} · {} words of {}{level}{by}", e.cycle, e.words, e.word_limit)}</p>
                        <p>{e.summary}</p>
                    </li>
                }
            }).collect_view()}
        </ol>
    }
}
