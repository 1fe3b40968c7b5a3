//! The drift checks per topic section ([`crate::engine::sections`]): which section states each
//! pinned fact and each rule (and how), which unsourced figures sit in which section, and, from
//! one edition to the next, which section lost a fact or a rule.
//!
//! A section is checked by its own text, so a rule kept word for word in "Rules" but softened
//! where "Goals" repeats it shows as kept in one and weakened in the other. An edition with no
//! heading line has no sections, and nothing here applies to it.

use crate::engine::facts::PinnedFact;
use crate::engine::sections::parse_sections;
use crate::engine::text::word_count;

use super::EditionChecks;
use super::rules::{Verdict, check_rule};

/// The checks of one section of an edition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionCheck {
    /// Its topic; empty for text before the first heading.
    pub heading: String,
    pub words: u32,
    /// The edition's unsourced figures that sit in this section, as written.
    pub unsourced: Vec<String>,
    /// Labels of the pinned facts the section states.
    pub facts: Vec<String>,
    /// Each rule of the edition's checks that the section states, by the rule's text, with how
    /// the section states it (kept or weakened; a rule it does not state is left out).
    pub rules: Vec<(String, Verdict)>,
}

/// What an edition lost from one section of the edition before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionLoss {
    /// The section of the earlier edition that held it.
    pub section: String,
    /// The pinned fact's label, or the rule's text.
    pub what: String,
    pub kind: LossKind,
}

/// How a section lost what it held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossKind {
    /// A pinned fact no section states any more.
    Fact,
    /// A rule kept there is now stated only weakened (its words, not its force).
    RuleWeakened,
    /// A rule kept there is stated nowhere.
    RuleLost,
}

/// The checks of each section of `text`, in order; empty when it has no sections. `checks`
/// are the edition's own (their unsourced figures and rules are placed by section).
pub fn check_sections(
    text: &str,
    checks: &EditionChecks,
    facts: &[PinnedFact],
) -> Vec<SectionCheck> {
    let compiled: Vec<_> = facts.iter().filter_map(|f| f.compile().ok()).collect();
    parse_sections(text)
        .iter()
        .map(|section| SectionCheck {
            heading: section.heading.to_owned(),
            words: word_count(section.body),
            unsourced: checks
                .unsourced
                .iter()
                .filter(|f| section.span.start <= f.span.start && f.span.end <= section.span.end)
                .map(|f| f.text.clone())
                .collect(),
            facts: compiled
                .iter()
                .filter(|f| f.is_match(section.body))
                .map(|f| f.label.clone())
                .collect(),
            rules: checks
                .rules
                .iter()
                .filter_map(|c| {
                    let verdict = check_rule(&c.rule, section.body).verdict;
                    (verdict != Verdict::Lost).then(|| (c.rule.text.clone(), verdict))
                })
                .collect(),
        })
        .collect()
}

/// What `current` lost from the sections of `previous`: each pinned fact a section of
/// `previous` stated that no section of `current` states, and each rule a section of
/// `previous` kept that no section of `current` keeps (weakened when some section still
/// states it softly). A fact or rule that moved to another section is not lost.
pub fn section_losses(previous: &[SectionCheck], current: &[SectionCheck]) -> Vec<SectionLoss> {
    let mut losses = Vec::new();
    for section in previous {
        for fact in &section.facts {
            let stated = current.iter().any(|s| s.facts.contains(fact));
            let noted = losses.iter().any(|l: &SectionLoss| &l.what == fact);
            if !stated && !noted {
                losses.push(SectionLoss {
                    section: section.heading.clone(),
                    what: fact.clone(),
                    kind: LossKind::Fact,
                });
            }
        }
        for (rule, verdict) in &section.rules {
            if *verdict != Verdict::Kept || losses.iter().any(|l| &l.what == rule) {
                continue;
            }
            let mut now = current
                .iter()
                .flat_map(|s| &s.rules)
                .filter(|(r, _)| r == rule)
                .map(|(_, v)| *v);
            let kind = now.try_fold(LossKind::RuleLost, |kind, v| match v {
                Verdict::Kept => None,
                Verdict::Weakened => Some(LossKind::RuleWeakened),
                Verdict::Lost => Some(kind),
            });
            if let Some(kind) = kind {
                losses.push(SectionLoss {
                    section: section.heading.clone(),
                    what: rule.clone(),
                    kind,
                });
            }
        }
    }
    losses
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::checks::check_edition;

    const ARCHIVE: [&str; 2] = [
        "My salary is ₹1,20,000. One hard rule: never suggest equity instruments.",
        "Understood. I will keep to fixed-income options.",
    ];

    fn facts() -> Vec<PinnedFact> {
        vec![
            PinnedFact::phrase("salary", "1,20,000"),
            PinnedFact::phrase("never suggest", "never suggest"),
        ]
    }

    fn sections(text: &str) -> Vec<SectionCheck> {
        let checks = check_edition(text, &ARCHIVE, &ARCHIVE, &facts(), 0);
        check_sections(text, &checks, &facts())
    }

    #[test]
    fn each_section_holds_its_own_facts_figures_and_rules() {
        let text = "## Income\nChiru earns ₹1,20,000 and saves ₹30,000.\n\n\
                    ## Rules\nHard rule: never suggest equity instruments.\n\n\
                    ## Goals\nHe would rather avoid equity instruments.";
        let got = sections(text);
        let headings: Vec<&str> = got.iter().map(|s| s.heading.as_str()).collect();
        assert_eq!(headings, ["Income", "Rules", "Goals"]);
        assert_eq!(got[0].facts, ["salary"]);
        assert_eq!(got[0].unsourced, ["₹30,000"], "the figure no message holds");
        assert!(got[0].rules.is_empty());
        assert_eq!(got[1].facts, ["never suggest"]);
        assert!(got[1].unsourced.is_empty());
        assert_eq!(got[1].rules.len(), 1);
        assert_eq!(got[1].rules[0].1, Verdict::Kept);
        // The same rule, repeated softly in another section, is weakened there.
        assert_eq!(got[2].rules.len(), 1);
        assert_eq!(got[2].rules[0].1, Verdict::Weakened);
        assert_eq!(got[2].words, 6);
        // Prose has no sections.
        assert!(sections("Chiru earns ₹1,20,000.").is_empty());
    }

    #[test]
    fn a_loss_names_the_section_that_held_it() {
        let before = sections(
            "## Income\nChiru earns ₹1,20,000.\n\n## Rules\nHard rule: never suggest equity instruments.",
        );
        // The rule's section softened it and the salary left "Income".
        let after = sections(
            "## Income\nChiru has a good income.\n\n## Rules\nHe prefers to avoid equity instruments.",
        );
        let losses = section_losses(&before, &after);
        let got: Vec<(&str, &str, LossKind)> = losses
            .iter()
            .map(|l| (l.section.as_str(), l.what.as_str(), l.kind))
            .collect();
        let rule = before[1].rules[0].0.as_str();
        assert_eq!(
            got,
            [
                ("Income", "salary", LossKind::Fact),
                ("Rules", "never suggest", LossKind::Fact),
                ("Rules", rule, LossKind::RuleWeakened),
            ]
        );
        // Moved, not lost: the salary now in "Profile", the rule still kept in "Rules".
        let moved = sections(
            "## Profile\nChiru earns ₹1,20,000.\n\n## Rules\nHard rule: never suggest equity instruments.",
        );
        assert!(section_losses(&before, &moved).is_empty());
        // Dropped altogether, the rule is lost.
        let gone = sections("## Income\nChiru earns ₹1,20,000.");
        let kinds: Vec<LossKind> = section_losses(&before, &gone)
            .iter()
            .map(|l| l.kind)
            .collect();
        assert_eq!(kinds, [LossKind::Fact, LossKind::RuleLost]);
    }
}
