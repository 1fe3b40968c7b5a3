//! Survival by kind: of what the folded turns said, how much an edition still holds.
//!
//! Four kinds are counted, each item once however often the turns repeat it:
//! - **figures**: numbers, amounts and percentages (one item per value, so "₹60,000" said twice
//!   is one item, and "Rs 60k" in the edition holds it);
//! - **names**: capitalised words that do not start a sentence (people, products, acronyms such
//!   as PPF), plus each pinned fact the turns match (by its label);
//! - **dates**: calendar dates; the edition must keep every part the turn stated;
//! - **rules**: sentences with "never", "always", "must", "don't", "do not" or "only"; a rule is
//!   held only when [`super::rules::check_rule`] finds it kept, so a weakened rule is not held.

use std::collections::HashSet;

use crate::engine::text::split_sentences;

use super::figures::{MONTHS, Sources, Value, figures};
use super::rules::{Pinned, RuleCheck, RuleSource, Verdict};
use crate::engine::words::raw_words;

/// How much of each kind an edition holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Survival {
    pub figures: KindSurvival,
    pub names: KindSurvival,
    pub dates: KindSurvival,
    pub rules: KindSurvival,
}

/// The items of one kind found in the folded turns, each marked held or not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KindSurvival {
    pub items: Vec<Item>,
}

/// One fact of the folded turns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// As first written in the turns (a figure or date as written, a name, a pinned fact's
    /// label, a rule's sentence).
    pub text: String,
    /// The edition still holds it.
    pub held: bool,
}

impl KindSurvival {
    /// How many items the edition holds.
    pub fn held(&self) -> usize {
        self.items.iter().filter(|i| i.held).count()
    }

    /// How many items the folded turns hold.
    pub fn total(&self) -> usize {
        self.items.len()
    }

    /// The items the edition no longer holds.
    pub fn missing(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|i| !i.held)
    }
}

/// What the folded turns hold, extracted once and checked against any edition.
#[derive(Clone, Debug, Default)]
pub(crate) struct Expected {
    figures: Vec<(String, Value)>,
    names: Vec<String>,
    dates: Vec<(String, Value)>,
    /// Labels of the pinned facts the turns match.
    pinned: Vec<String>,
    /// What is already listed: each figure's or date's [`item_key`], each name lower-cased.
    seen_values: HashSet<Value>,
    seen_names: HashSet<String>,
}

impl Expected {
    /// Adds the facts of one more folded message.
    pub(crate) fn add(&mut self, text: &str, facts: &Pinned<'_>) {
        for figure in figures(text) {
            let target = match figure.value {
                Value::Date(_) => &mut self.dates,
                _ => &mut self.figures,
            };
            if self.seen_values.insert(item_key(&figure.value)) {
                target.push((figure.text, figure.value));
            }
        }
        for sentence in split_sentences(text) {
            for word in raw_words(sentence).into_iter().skip(1) {
                if is_name(word) && self.seen_names.insert(word.to_lowercase()) {
                    self.names.push(word.to_owned());
                }
            }
        }
        for (fact, compiled) in facts {
            if !self.pinned.contains(&fact.label) && compiled.is_match(text) {
                self.pinned.push(fact.label.clone());
            }
        }
    }

    /// How much of this `edition` holds, given the rule checks already made on it.
    pub(crate) fn survival(
        &self,
        edition: &str,
        facts: &Pinned<'_>,
        rules: &[RuleCheck],
    ) -> Survival {
        let held = Sources::new([edition]);
        let edition_words: Vec<String> = raw_words(edition)
            .into_iter()
            .map(str::to_lowercase)
            .collect();
        let valued = |items: &[(String, Value)]| KindSurvival {
            items: items
                .iter()
                .map(|(text, value)| Item {
                    text: text.clone(),
                    held: held.holds(value),
                })
                .collect(),
        };
        let names = self
            .names
            .iter()
            .map(|name| Item {
                text: name.clone(),
                held: edition_words.contains(&name.to_lowercase()),
            })
            .chain(self.pinned.iter().map(|label| {
                Item {
                    text: label.clone(),
                    held: facts
                        .iter()
                        .find(|(f, _)| &f.label == label)
                        .is_some_and(|(_, c)| c.is_match(edition)),
                }
            }))
            .collect();
        Survival {
            figures: valued(&self.figures),
            names: KindSurvival { items: names },
            dates: valued(&self.dates),
            rules: KindSurvival {
                items: rules
                    .iter()
                    .filter(|c| c.rule.source == RuleSource::Turn)
                    .map(|c| Item {
                        text: c.rule.text.clone(),
                        held: c.verdict == Verdict::Kept,
                    })
                    .collect(),
            },
        }
    }
}

/// One item per value: an amount and the same number written bare are one figure.
fn item_key(value: &Value) -> Value {
    match value {
        Value::Amount { quantity, .. } => Value::Number(quantity.clone()),
        other => other.clone(),
    }
}

/// A capitalised word that names something: not "I", not a month (dates are their own kind).
fn is_name(word: &str) -> bool {
    const NOT_NAMES: &[&str] = &["I", "I'm", "I've", "I'll", "I'd"];
    let word = word.replace('\u{2019}', "'");
    word.chars().next().is_some_and(char::is_uppercase)
        && !NOT_NAMES.contains(&word.as_str())
        && !MONTHS.contains(&word.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::checks::rules::compile;
    use crate::engine::facts::PinnedFact;

    fn survival(folded: &[&str], edition: &str, facts: &[PinnedFact]) -> Survival {
        let facts = compile(facts);
        let mut expected = Expected::default();
        for text in folded {
            expected.add(text, &facts);
        }
        expected.survival(edition, &facts, &[])
    }

    fn items(kind: &KindSurvival) -> Vec<(&str, bool)> {
        kind.items
            .iter()
            .map(|i| (i.text.as_str(), i.held))
            .collect()
    }

    #[test]
    fn each_kind_is_counted_once_and_held_in_any_form() {
        let folded = [
            "Hi! I'm Chiru. My salary is ₹1,20,000 and my rent is ₹60,000.",
            "Rent of 60,000 is high, Chiru. Your SIP starts on 5 March 2026 with 10% in debt.",
        ];
        let facts = [
            PinnedFact::phrase("salary", "salary"),
            PinnedFact::phrase("bonus", "bonus"),
        ];
        let s = survival(
            &folded,
            "Chiru earns Rs 1.2 lakh. His SIP starts in March.",
            &facts,
        );
        assert_eq!(
            items(&s.figures),
            [("₹1,20,000", true), ("₹60,000", false), ("10%", false)]
        );
        assert_eq!(
            items(&s.names),
            [("Chiru", true), ("SIP", true), ("salary", false)]
        );
        // The edition keeps the month but not the day or year.
        assert_eq!(items(&s.dates), [("5 March 2026", false)]);
        assert_eq!((s.figures.held(), s.figures.total()), (1, 3));
        assert_eq!(s.names.missing().count(), 1);
    }
}
