//! What the edition card widget prints about one [`EditionCard`], as plain values
//! ([`EditionCardScreen::of`]): the newspaper's anchor, dateline, size and tokens, the folded
//! turns' labels, each fact badge's class and words; the archive row's heading and its line of
//! changes; the checks' sentences and survival table ([`ChecksScreen`]), the topic sections
//! ([`SectionsScreen`]) and the Restore, Edit and Continue buttons' labels ([`ActionsScreen`]). The card's
//! own fields (text, diff, who wrote it) are drawn as they are.

use super::editions::EditionCard;

/// Every sentence, label and class an edition card draws beyond the card's own fields.
#[derive(Clone, Debug, PartialEq)]
pub struct EditionCardScreen {
    /// The newspaper's element id, e.g. `edition-3` (the timeline links to it).
    pub anchor: String,
    /// The archive row's heading, e.g. "Edition 3".
    pub title: String,
    /// The newspaper's dateline, e.g. "Level 1 · Scripted · +12 / −3 words".
    pub dateline: String,
    /// The newspaper's size, e.g. "41 words of 80" or "96 words of 80 · over the limit".
    pub words: String,
    /// The newspaper's tokens, e.g. "120 → 44 tokens · 2.7× smaller", or "44 tokens" when
    /// nothing was read.
    pub tokens: String,
    /// The archive row's label over its diff, e.g. "Changes: +12 / −3 words".
    pub changes: String,
    /// The turns folded in, oldest first.
    pub folded: Vec<FoldedTurn>,
    /// One badge per pinned fact.
    pub facts: Vec<FactLine>,
    pub checks: ChecksScreen,
    /// The topic sections; `None` for a prose edition.
    pub sections: Option<SectionsScreen>,
    pub actions: ActionsScreen,
}

/// One turn the edition folded in, as the newspaper lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoldedTurn {
    /// E.g. "Turn 3 · User".
    pub label: String,
    pub text: String,
}

/// One pinned fact's badge. The colour (its class) and the words are the verdict's, never the
/// keyword check's alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactLine {
    /// E.g. `fact kept`, `fact lost`.
    pub class: String,
    /// E.g. "Salary: lost in edition 2".
    pub text: String,
    /// `data-fact`: the phrase, or the pattern of a regex fact.
    pub phrase: String,
    /// `data-kept`, `data-weakened`.
    pub kept: bool,
    pub weakened: bool,
    /// `data-verdict`.
    pub verdict: &'static str,
    /// The badge's title: the sentence that states the fact, or nothing.
    pub title: String,
}

/// The checks on one edition, as the newspaper, the archive row and the A/B card draw them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChecksScreen {
    /// The edition's text cut at its figures: (piece, whether no archived message holds it).
    pub marked: Vec<(String, bool)>,
    /// How many figures are unsourced, in one sentence.
    pub summary: String,
    /// E.g. "Over the limit: 96 words, 16 over the 80-word limit.", when it ran over.
    pub overrun: Option<String>,
    /// One note per rule the edition weakened.
    pub weakened: Vec<String>,
    /// One row per kind of fact of the folded turns.
    pub survival: Vec<SurvivalLine>,
}

/// One row of the survival table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SurvivalLine {
    /// `figures`, `names`, `dates`, `rules` (the row's `data-kind` and heading).
    pub kind: &'static str,
    /// E.g. "2 of 3".
    pub held: String,
    /// What the edition dropped, comma-separated.
    pub dropped: String,
}

/// A sectioned edition's topic sections.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionsScreen {
    /// E.g. "3 topic sections".
    pub title: String,
    /// What the edition lost from a section of the one before, one sentence each.
    pub losses: Vec<String>,
    pub sections: Vec<SectionLine>,
}

/// One topic section with the checks read in its own text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionLine {
    pub heading: String,
    pub text: String,
    /// After the heading, e.g. " · 41 words".
    pub words: String,
    /// After the words, e.g. " · states Salary · unsourced: 40 % · 1 rule(s) weakened"; `None`
    /// when nothing was found.
    pub notes: Option<String>,
    /// `data-unsourced`: how many of its figures no archived message holds.
    pub unsourced: usize,
    /// `data-facts`: the labels of the pinned facts it states, comma-separated.
    pub facts: String,
}

/// Restore and Edit's accessible names, and the editor's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionsScreen {
    pub restore: String,
    pub edit: String,
    pub editor: String,
    /// "Continue in a new session"'s accessible name.
    pub continue_from: String,
}

/// The words of the button that starts a new live chat from an edition.
pub const CONTINUE: &str = "Continue in a new session";

/// What Save says when the summary could not be written at all.
pub const NOT_SAVED: &str = "The summary was not saved.";

impl EditionCardScreen {
    pub fn of(card: &EditionCard) -> EditionCardScreen {
        let over = if card.overrun {
            " · over the limit"
        } else {
            ""
        };
        let tokens = match &card.compression {
            Some(ratio) => format!("{} → {} tokens · {ratio}", card.tokens_in, card.tokens_out),
            None => format!("{} tokens", card.tokens_out),
        };
        EditionCardScreen {
            anchor: format!("edition-{}", card.cycle),
            title: format!("Edition {}", card.cycle),
            dateline: format!(
                "Level {} · {} · +{} / −{} words",
                card.level, card.provenance, card.added_words, card.removed_words
            ),
            words: format!("{} words of {}{over}", card.words, card.word_limit),
            tokens,
            changes: format!(
                "Changes: +{} / −{} words",
                card.added_words, card.removed_words
            ),
            folded: card
                .folded
                .iter()
                .map(|(turn, role, text)| FoldedTurn {
                    label: format!("Turn {turn} · {role}"),
                    text: text.clone(),
                })
                .collect(),
            facts: card
                .facts
                .iter()
                .map(|fact| FactLine {
                    class: format!("fact {}", fact.verdict.slug()),
                    text: format!("{}: {}", fact.label, fact.status),
                    phrase: fact.phrase.clone(),
                    kept: fact.kept,
                    weakened: fact.weakened,
                    verdict: fact.verdict.slug(),
                    title: fact.sentence.clone().unwrap_or_default(),
                })
                .collect(),
            checks: ChecksScreen::of(card),
            sections: SectionsScreen::of(card),
            actions: ActionsScreen::of(card.cycle),
        }
    }
}

impl ChecksScreen {
    pub fn of(card: &EditionCard) -> ChecksScreen {
        let unsourced = card.marked.iter().filter(|(_, u)| *u).count();
        let summary = match unsourced {
            0 => "Every figure in this edition is in the archive.".to_owned(),
            1 => "1 figure in this edition is in no archived message (marked).".to_owned(),
            n => format!("{n} figures in this edition are in no archived message (marked)."),
        };
        ChecksScreen {
            marked: card.marked.clone(),
            summary,
            overrun: card
                .overrun_note
                .as_ref()
                .map(|n| format!("Over the limit: {n}.")),
            weakened: card.weakened_notes.clone(),
            survival: card
                .survival
                .iter()
                .map(|row| SurvivalLine {
                    kind: row.kind,
                    held: format!("{} of {}", row.held, row.total),
                    dropped: row.missing.join(", "),
                })
                .collect(),
        }
    }
}

impl SectionsScreen {
    /// `None` for a prose edition (no sections).
    pub fn of(card: &EditionCard) -> Option<SectionsScreen> {
        if card.sections.is_empty() {
            return None;
        }
        let sections = card
            .sections
            .iter()
            .map(|section| {
                let mut notes = Vec::new();
                if !section.facts.is_empty() {
                    notes.push(format!("states {}", section.facts.join(", ")));
                }
                if !section.unsourced.is_empty() {
                    notes.push(format!("unsourced: {}", section.unsourced.join(", ")));
                }
                if !section.weakened.is_empty() {
                    notes.push(format!("{} rule(s) weakened", section.weakened.len()));
                }
                SectionLine {
                    heading: section.heading.clone(),
                    text: section.text.clone(),
                    words: format!(" · {} words", section.words),
                    notes: (!notes.is_empty()).then(|| format!(" · {}", notes.join(" · "))),
                    unsourced: section.unsourced.len(),
                    facts: section.facts.join(","),
                }
            })
            .collect();
        Some(SectionsScreen {
            title: format!("{} topic sections", card.sections.len()),
            losses: card
                .section_losses
                .iter()
                .map(|n| format!("{n}."))
                .collect(),
            sections,
        })
    }
}

impl ActionsScreen {
    pub fn of(cycle: u32) -> ActionsScreen {
        ActionsScreen {
            restore: format!("Restore edition {cycle} as the current summary"),
            edit: format!("Edit edition {cycle}'s summary"),
            editor: format!("Summary text, starting from edition {cycle}"),
            continue_from: format!(
                "Continue in a new session that starts from edition {cycle}'s summary"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::drift::FactVerdict;
    use crate::view::editions::{FactBadge, SectionView, SurvivalRow};

    fn card() -> EditionCard {
        EditionCard {
            cycle: 3,
            folded: vec![(5, "User", "I earn 100.".to_owned())],
            added_words: 12,
            removed_words: 3,
            words: 41,
            word_limit: 80,
            tokens_in: 120,
            tokens_out: 44,
            compression: Some("2.7× smaller".to_owned()),
            level: 1,
            provenance: "Scripted",
            ..EditionCard::default()
        }
    }

    #[test]
    fn a_card_within_its_limit_prints_its_size_tokens_and_dateline() {
        let screen = EditionCardScreen::of(&card());
        assert_eq!(screen.anchor, "edition-3");
        assert_eq!(screen.title, "Edition 3");
        assert_eq!(screen.dateline, "Level 1 · Scripted · +12 / −3 words");
        assert_eq!(screen.words, "41 words of 80");
        assert_eq!(screen.tokens, "120 → 44 tokens · 2.7× smaller");
        assert_eq!(screen.changes, "Changes: +12 / −3 words");
        assert_eq!(
            screen.folded,
            vec![FoldedTurn {
                label: "Turn 5 · User".to_owned(),
                text: "I earn 100.".to_owned()
            }]
        );
        assert!(screen.facts.is_empty());
        assert_eq!(screen.sections, None);
    }

    #[test]
    fn an_overrun_and_a_hand_edit_say_so() {
        let screen = EditionCardScreen::of(&EditionCard {
            words: 96,
            overrun: true,
            compression: None,
            overrun_note: Some("96 words, 16 over the 80-word limit".to_owned()),
            ..card()
        });
        assert_eq!(screen.words, "96 words of 80 · over the limit");
        assert_eq!(screen.tokens, "44 tokens");
        assert_eq!(
            screen.checks.overrun.as_deref(),
            Some("Over the limit: 96 words, 16 over the 80-word limit.")
        );
    }

    #[test]
    fn a_fact_badge_takes_its_class_from_the_verdict_not_the_keyword() {
        let badge = |verdict, kept, sentence: Option<&str>| FactBadge {
            label: "Never equities".to_owned(),
            phrase: "never suggest".to_owned(),
            kept,
            weakened: verdict == FactVerdict::Weakened,
            verdict,
            status: "words kept, rule weakened".to_owned(),
            sentence: sentence.map(str::to_owned),
        };
        let screen = EditionCardScreen::of(&EditionCard {
            facts: vec![
                badge(FactVerdict::Weakened, true, Some("Maybe avoid equities.")),
                badge(FactVerdict::Lost, false, None),
            ],
            ..card()
        });
        assert_eq!(screen.facts[0].class, "fact weakened");
        assert_eq!(
            screen.facts[0].text,
            "Never equities: words kept, rule weakened"
        );
        assert_eq!(screen.facts[0].verdict, "weakened");
        assert!(screen.facts[0].kept && screen.facts[0].weakened);
        assert_eq!(screen.facts[0].title, "Maybe avoid equities.");
        assert_eq!(screen.facts[1].class, "fact lost");
        assert_eq!(screen.facts[1].title, "");
        assert_eq!(screen.facts[1].phrase, "never suggest");
    }

    #[test]
    fn the_checks_count_unsourced_figures_in_words() {
        let marked = |n: usize| {
            let mut pieces = vec![("The user earns ".to_owned(), false)];
            pieces.extend((0..n).map(|i| (format!("{i}00"), true)));
            EditionCard {
                marked: pieces,
                ..card()
            }
        };
        assert_eq!(
            ChecksScreen::of(&marked(0)).summary,
            "Every figure in this edition is in the archive."
        );
        assert_eq!(
            ChecksScreen::of(&marked(1)).summary,
            "1 figure in this edition is in no archived message (marked)."
        );
        assert_eq!(
            ChecksScreen::of(&marked(3)).summary,
            "3 figures in this edition are in no archived message (marked)."
        );
        assert_eq!(ChecksScreen::of(&marked(0)).overrun, None);
    }

    #[test]
    fn the_survival_table_prints_held_of_total_and_what_was_dropped() {
        let checks = ChecksScreen::of(&EditionCard {
            survival: vec![
                SurvivalRow {
                    kind: "figures",
                    held: 2,
                    total: 3,
                    missing: vec!["40 %".to_owned()],
                },
                SurvivalRow {
                    kind: "names",
                    held: 0,
                    total: 2,
                    missing: vec!["Ada".to_owned(), "Bo".to_owned()],
                },
            ],
            ..card()
        });
        assert_eq!(
            checks.survival,
            vec![
                SurvivalLine {
                    kind: "figures",
                    held: "2 of 3".to_owned(),
                    dropped: "40 %".to_owned()
                },
                SurvivalLine {
                    kind: "names",
                    held: "0 of 2".to_owned(),
                    dropped: "Ada, Bo".to_owned()
                },
            ]
        );
    }

    #[test]
    fn sections_carry_their_words_notes_and_losses() {
        let section =
            |heading: &str, facts: &[&str], unsourced: &[&str], weakened: usize| SectionView {
                heading: heading.to_owned(),
                text: "Some text.".to_owned(),
                words: 7,
                unsourced: unsourced.iter().map(|s| (*s).to_owned()).collect(),
                facts: facts.iter().map(|s| (*s).to_owned()).collect(),
                weakened: vec!["a rule".to_owned(); weakened],
            };
        let screen = SectionsScreen::of(&EditionCard {
            sections: vec![
                section("Money", &["Salary", "Rent"], &["40 %"], 1),
                section("Rules", &[], &[], 0),
            ],
            section_losses: vec!["Section \"Rules\" lost the pinned fact \"never\"".to_owned()],
            ..card()
        })
        .expect("a sectioned edition");
        assert_eq!(screen.title, "2 topic sections");
        assert_eq!(
            screen.losses,
            vec!["Section \"Rules\" lost the pinned fact \"never\".".to_owned()]
        );
        let money = &screen.sections[0];
        assert_eq!(money.words, " · 7 words");
        assert_eq!(
            money.notes.as_deref(),
            Some(" · states Salary, Rent · unsourced: 40 % · 1 rule(s) weakened")
        );
        assert_eq!(money.unsourced, 1);
        assert_eq!(money.facts, "Salary,Rent");
        let rules = &screen.sections[1];
        assert_eq!(rules.notes, None);
        assert_eq!(rules.facts, "");
        assert_eq!(rules.unsourced, 0);
    }

    #[test]
    fn the_actions_name_their_edition() {
        assert_eq!(
            ActionsScreen::of(4),
            ActionsScreen {
                restore: "Restore edition 4 as the current summary".to_owned(),
                edit: "Edit edition 4's summary".to_owned(),
                editor: "Summary text, starting from edition 4".to_owned(),
                continue_from: "Continue in a new session that starts from edition 4's summary"
                    .to_owned(),
            }
        );
    }
}
