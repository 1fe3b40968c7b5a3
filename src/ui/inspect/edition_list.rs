//! The editions a replay wrote, as the offline and the live replay both list them.

use leptos::prelude::*;

use crate::engine::edition::Edition;
use crate::ui::widgets::edition_card::EditionCardView;
use crate::view::editions::{EditionCard, EditionLayout};

/// The editions a replay wrote, each with its cycle, length, level and who wrote it.
#[component]
pub fn EditionList(editions: Vec<Edition>) -> impl IntoView {
    view! {
        <ol class="replay-editions">
            {editions.iter().map(|e| view! {
                <EditionCardView card=EditionCard::of_replay(e) layout=EditionLayout::Replay />
            }).collect_view()}
        </ol>
    }
}
