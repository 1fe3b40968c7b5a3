//! The Editions tab as drawn ([`EditionsScreen::of`]): what it says with no edition yet, the
//! timeline's links, the fact table's columns and cells, the snowball bars with their labels and
//! widths, the snowball's warnings, and the stepper's position ([`position`]). The cards
//! themselves are [`crate::view::editions`]'s, the rewrite's frames
//! [`crate::view::timeline`]'s.

use crate::view::editions::{EditionCard, SnowballBar, fact_table, snowball_bars};

/// Everything the Editions tab shows around the cards.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EditionsScreen {
    /// What the tab says while no edition is printed; `None` once one is.
    pub empty: Option<String>,
    /// One link per edition, above the fact table.
    pub links: Vec<EditionLink>,
    /// The fact table's column headings, one per edition ("Ed. 2"); empty with no pinned fact.
    pub columns: Vec<String>,
    /// The fact table's rows; empty with no pinned fact.
    pub facts: Vec<FactLine>,
    /// The snowball chart's bars.
    pub bars: Vec<BarLine>,
    /// The snowball's warnings, one sentence each.
    pub warnings: Vec<String>,
}

/// A link to one edition in the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditionLink {
    /// `#edition-2`.
    pub href: String,
    pub headline: String,
    pub overrun: bool,
    /// `data-overrun`: `true` or `false`.
    pub overrun_attr: &'static str,
}

/// One pinned fact's row of the fact table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactLine {
    pub label: String,
    pub cells: Vec<FactCell>,
}

/// One fact in one edition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactCell {
    /// `fact-cell kept`.
    pub class: String,
    /// `data-verdict`.
    pub verdict: &'static str,
    pub status: String,
}

/// One bar of the snowball chart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarLine {
    pub cycle: u32,
    pub tokens: u32,
    pub warn: bool,
    /// "Ed. 2".
    pub label: String,
    /// The bar's width, at least 2% so a small summary still shows.
    pub style: String,
    /// "120 tokens".
    pub value: String,
}

impl EditionsScreen {
    /// The tab over `cards`, the conversation on screen's editions; `title`, the demo's when
    /// one is loaded; `budget`, the policy's summary budget, which the snowball warns past.
    pub fn of(title: Option<&str>, cards: &[EditionCard], budget: Option<u32>) -> EditionsScreen {
        if cards.is_empty() {
            return EditionsScreen {
                empty: Some(match title {
                    None => "No editions yet. Chat live until a summary cycle runs, or pick a demo in the Chat tab and play it.".to_owned(),
                    Some(title) => format!("{title}: no edition printed yet. Step or play the demo."),
                }),
                ..EditionsScreen::default()
            };
        }
        let bars = snowball_bars(cards, budget);
        EditionsScreen {
            empty: None,
            links: cards
                .iter()
                .map(|c| EditionLink {
                    href: format!("#edition-{}", c.cycle),
                    headline: c.headline.clone(),
                    overrun: c.overrun,
                    overrun_attr: if c.overrun { "true" } else { "false" },
                })
                .collect(),
            columns: cards.iter().map(|c| format!("Ed. {}", c.cycle)).collect(),
            facts: fact_table(cards)
                .into_iter()
                .map(|row| FactLine {
                    label: row.label,
                    cells: row
                        .cells
                        .into_iter()
                        .map(|(verdict, status)| FactCell {
                            class: format!("fact-cell {}", verdict.slug()),
                            verdict: verdict.slug(),
                            status,
                        })
                        .collect(),
                })
                .collect(),
            warnings: warnings(&bars),
            bars: bars.iter().map(BarLine::of).collect(),
        }
    }
}

impl BarLine {
    fn of(bar: &SnowballBar) -> BarLine {
        BarLine {
            cycle: bar.cycle,
            tokens: bar.tokens,
            warn: !bar.warnings.is_empty(),
            label: format!("Ed. {}", bar.cycle),
            style: format!("width: {}%", bar.percent.max(2)),
            value: format!("{} tokens", bar.tokens),
        }
    }
}

/// Every bar's warnings, each a sentence naming its edition.
fn warnings(bars: &[SnowballBar]) -> Vec<String> {
    bars.iter()
        .flat_map(|b| {
            b.warnings
                .iter()
                .map(move |w| format!("Snowball: Edition {}: {w}.", b.cycle))
        })
        .collect()
}

/// The stepper's position: "2 of 3: Edition 2 · turns 3–4 folded".
pub fn position(index: usize, count: usize, headline: &str) -> String {
    format!("{} of {count}: {headline}", index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::workbench::Workbench;
    use crate::engine::message::WordCounter;
    use crate::route::Route;
    use crate::view::editions::cards_on_screen;

    fn played(link: &str) -> (Workbench, Vec<EditionCard>) {
        let mut workbench = Workbench::from_route(&Route::parse(link));
        workbench.play_all(&WordCounter);
        let cards = cards_on_screen(&workbench);
        (workbench, cards)
    }

    #[test]
    fn with_nothing_printed_the_live_chat_says_how_to_get_an_edition() {
        let screen = EditionsScreen::of(None, &[], None);
        assert_eq!(
            screen.empty.as_deref(),
            Some(
                "No editions yet. Chat live until a summary cycle runs, or pick a demo in the Chat tab and play it."
            )
        );
        assert!(screen.links.is_empty() && screen.bars.is_empty() && screen.facts.is_empty());
    }

    #[test]
    fn a_demo_not_yet_played_names_itself() {
        let screen = EditionsScreen::of(Some("FinCoach"), &[], None);
        assert_eq!(
            screen.empty.as_deref(),
            Some("FinCoach: no edition printed yet. Step or play the demo.")
        );
    }

    #[test]
    fn a_played_demo_links_each_edition_and_tables_its_facts_and_bars() {
        let (_, cards) = played("?demo=drift");
        assert!(cards.len() >= 3);
        let screen = EditionsScreen::of(Some("Drift"), &cards, None);
        assert_eq!(screen.empty, None);
        assert_eq!(screen.links.len(), cards.len());
        assert_eq!(screen.links[0].href, format!("#edition-{}", cards[0].cycle));
        assert_eq!(screen.links[0].headline, cards[0].headline);
        for link in &screen.links {
            assert_eq!(
                link.overrun_attr,
                if link.overrun { "true" } else { "false" }
            );
        }
        assert_eq!(screen.columns[1], format!("Ed. {}", cards[1].cycle));
        assert_eq!(screen.facts.len(), cards[0].facts.len());
        let cell = &screen.facts[0].cells[1];
        assert_eq!(cell.class, format!("fact-cell {}", cell.verdict));
        assert_eq!(cell.status, "words kept, rule weakened");
        let bar = &screen.bars[0];
        assert_eq!(bar.label, format!("Ed. {}", cards[0].cycle));
        assert_eq!(bar.value, format!("{} tokens", bar.tokens));
        assert!(screen.bars.iter().any(|b| b.style == "width: 100%"));
        // The summary grows every cycle: the third edition's warning, as a sentence.
        assert_eq!(
            screen.warnings,
            ["Snowball: Edition 3: the summary grew 2 cycles running."]
        );
        assert!(screen.bars[2].warn && !screen.bars[1].warn);
    }

    #[test]
    fn a_tiny_bar_is_still_drawn_and_a_budget_warns_every_edition_over_it() {
        let (_, cards) = played("?demo=drift");
        let screen = EditionsScreen::of(None, &cards, Some(1));
        assert!(screen.bars.iter().all(|b| b.warn));
        assert_eq!(
            screen.warnings[0],
            format!(
                "Snowball: Edition {}: {} tokens, over its budget of 1.",
                cards[0].cycle, cards[0].tokens_out
            )
        );
        let bar = BarLine::of(&SnowballBar {
            cycle: 1,
            tokens: 0,
            percent: 0,
            warnings: Vec::new(),
        });
        assert_eq!(bar.style, "width: 2%");
    }

    #[test]
    fn the_position_counts_from_one() {
        assert_eq!(position(1, 3, "Edition 2"), "2 of 3: Edition 2");
    }
}
