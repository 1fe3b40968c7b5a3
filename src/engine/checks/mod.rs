//! Checks on every summary edition, deterministic and offline: what a reader of the lesson
//! would check by hand.
//!
//! - **Unsourced figures** ([`figures`]): every number, amount, percentage and date in the
//!   edition that no archived message holds in any equivalent form, with its byte span so the UI
//!   can mark it. A summariser that "helpfully" adds advice figures is caught here.
//! - **Survival by kind** ([`survival`]): of the figures, names, dates and rule sentences of the
//!   folded turns, how many the edition still holds.
//! - **Rule weakening** ([`rules`]): each rule of the folded turns, and each pinned phrase that is
//!   a rule, classified as kept, weakened (its words survive, its force does not) or lost, with
//!   the words found as evidence.
//! - **Word-limit overrun** ([`overrun`]): words against the prompt's limit, by the engine's one
//!   word-count rule ([`crate::engine::word_count`]).
//! - **Snowball guard** ([`snowball()`]): tokens per cycle, and a warning when the summary keeps
//!   growing or passes its budget. It needs the whole sequence, so it is computed apart.
//! - **Topic sections** ([`sections`]): the checks per section of a summary in topic sections,
//!   and which section lost a fact or a rule.
//!
//! [`check_edition`] and [`check_editions`] return [`EditionChecks`]. The words the rule and
//! survival checks compare come from [`crate::engine::words`].
//!
//! Everything here is a pure function of its arguments: no I/O, no clock, no model. The UI
//! renders the returned values as they are.

pub mod figures;
pub mod rules;
pub mod sections;
pub mod snowball;
pub mod survival;

use crate::engine::facts::PinnedFact;
use crate::engine::text::word_count;

pub use figures::{Currency, Date, Figure, FigureKind, Quantity, Sources, Value};
pub use rules::{Rule, RuleCheck, RuleSource, Verdict, check_rule};
pub use sections::{LossKind, SectionCheck, SectionLoss, check_sections, section_losses};
pub use snowball::{DEFAULT_GROWTH_RUN, SnowballPoint, SnowballWarning, snowball};
pub use survival::{Item, KindSurvival, Survival};

use survival::Expected;

/// Everything checked on one edition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditionChecks {
    /// Figures of the edition that no archived message holds, in reading order.
    pub unsourced: Vec<Figure>,
    /// Of what the folded turns said, what the edition still holds, per kind.
    pub survival: Survival,
    /// Each rule of the folded turns (then each pinned rule of its own), as the edition states
    /// it.
    pub rules: Vec<RuleCheck>,
    /// Set when the edition has more words than its limit.
    pub overrun: Option<Overrun>,
}

impl EditionChecks {
    /// Whether the pinned fact with this label belongs to a rule this edition weakened: its
    /// words may still match (the keyword check passes) while the rule's force is gone. This is
    /// what a fact badge's `data-weakened` shows.
    pub fn weakened(&self, label: &str) -> bool {
        self.rules
            .iter()
            .any(|c| c.verdict == Verdict::Weakened && c.rule.pinned.iter().any(|l| l == label))
    }
}

/// An edition longer than its prompt allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overrun {
    pub words: u32,
    pub limit: u32,
}

/// One edition of a sequence, as [`check_editions`] takes it: the texts it is checked against
/// are prefixes of one archive, since the archive only grows and folding takes the oldest turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EditionInput<'a> {
    pub text: &'a str,
    /// How many archived messages existed when the edition was written: its figures may come
    /// from any of them.
    pub archived: usize,
    /// How many of those the summary had folded: what it should still hold.
    pub folded: usize,
    /// The prompt's word limit; 0 for none.
    pub word_limit: u32,
}

/// Checks one edition against the archive it was written from (`archive`: every message so
/// far) and the turns it has folded (`folded`, usually the archive's first messages). `facts`
/// are the pinned facts (one that does not compile is skipped); `word_limit` 0 means none.
pub fn check_edition(
    edition: &str,
    archive: &[&str],
    folded: &[&str],
    facts: &[PinnedFact],
    word_limit: u32,
) -> EditionChecks {
    let pinned = rules::compile(facts);
    let sources = Sources::new(archive.iter().copied());
    let mut expected = Expected::default();
    let mut turn_rules = Vec::new();
    for text in folded {
        expected.add(text, &pinned);
        rules::add_turn_rules(&mut turn_rules, text);
    }
    let rules = rules::with_pinned(&turn_rules, &pinned);
    checked(edition, &sources, &expected, &rules, &pinned, word_limit)
}

/// Checks a sequence of editions over one `archive`, edition by edition, reading each archived
/// message once however many editions there are (as long as the counts only grow).
pub fn check_editions(
    archive: &[&str],
    editions: &[EditionInput<'_>],
    facts: &[PinnedFact],
) -> Vec<EditionChecks> {
    check_editions_stamped(archive, &[], editions, facts)
}

/// [`check_editions`], with what the archive records beside each message's text (`stamps[i]`
/// for message `i`: its time, and after a fold's last message how many messages were folded):
/// a time or a count in a summary is sourced when the archive holds it there, and flagged like
/// any other figure when it does not. A stamp is a source only, never a figure a summary must
/// keep.
pub fn check_editions_stamped(
    archive: &[&str],
    stamps: &[String],
    editions: &[EditionInput<'_>],
    facts: &[PinnedFact],
) -> Vec<EditionChecks> {
    let pinned = rules::compile(facts);
    let mut sources = Sources::default();
    let mut sourced = 0;
    let mut expected = Expected::default();
    let mut turn_rules = Vec::new();
    let mut folded = 0;
    let mut rules: Option<Vec<Rule>> = None;
    editions
        .iter()
        .map(|input| {
            let archived = input.archived.min(archive.len());
            if archived < sourced {
                (sources, sourced) = (Sources::default(), 0);
            }
            for (i, text) in archive[sourced..archived].iter().enumerate() {
                sources.add(text);
                if let Some(stamp) = stamps.get(sourced + i) {
                    sources.add(stamp);
                }
            }
            sourced = archived;
            let now_folded = input.folded.min(archive.len());
            if now_folded < folded {
                (expected, turn_rules, folded) = (Expected::default(), Vec::new(), 0);
            }
            for text in &archive[folded..now_folded] {
                expected.add(text, &pinned);
                rules::add_turn_rules(&mut turn_rules, text);
            }
            if now_folded != folded {
                rules = None;
            }
            folded = now_folded;
            let rules = rules.get_or_insert_with(|| rules::with_pinned(&turn_rules, &pinned));
            checked(
                input.text,
                &sources,
                &expected,
                rules,
                &pinned,
                input.word_limit,
            )
        })
        .collect()
}

/// The word-limit check: `Some` when `text` has more words than `limit` (0 is no limit).
pub fn overrun(text: &str, limit: u32) -> Option<Overrun> {
    let words = word_count(text);
    (limit > 0 && words > limit).then_some(Overrun { words, limit })
}

fn checked(
    edition: &str,
    sources: &Sources,
    expected: &Expected,
    rules: &[Rule],
    facts: &rules::Pinned<'_>,
    word_limit: u32,
) -> EditionChecks {
    let rules: Vec<RuleCheck> = rules.iter().map(|r| check_rule(r, edition)).collect();
    EditionChecks {
        unsourced: figures::unsourced(edition, sources),
        survival: expected.survival(edition, facts, &rules),
        rules,
        overrun: overrun(edition, word_limit),
    }
}

#[cfg(test)]
mod tests;
