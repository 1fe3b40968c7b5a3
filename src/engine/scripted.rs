//! A scripted abstractive summariser for the bundled demos: edition texts written for this app
//! that drift the way a model's summaries do, so a demo can teach the lesson with no endpoint.
//!
//! The extractive summariser copies sentences, so it cannot weaken a rule or invent a figure;
//! a model paraphrases, and its paraphrase is where the drift is. These texts stand in for that
//! paraphrase, one per cycle of each demo under the demo's own policy:
//!
//! - **drift**: edition 1 states the user's rule as a hard rule ("never suggest equity
//!   instruments"); edition 2 has weakened it to "would rather stay away from equity
//!   instruments"; edition 3 holds a mere preference ("prefers fixed-income options to
//!   equities"). The pinned facts "hard rule" and "never suggest" are lost from edition 2 while
//!   "equit" is kept in all three: the keyword check passes while the meaning changed.
//! - **fincoach**: edition 2 runs over the 80-word limit and holds advice figures (₹25,000,
//!   ₹15,000, 25 %) that no message of the conversation holds.
//!
//! Each text records the turns it was written to fold, so a caller can fall back to another
//! summariser when the user's policy folds differently. Nothing here is wired into the demo
//! player; this module is data and two lookups ([`scripted_editions`],
//! [`scripted_summary`]).

use crate::engine::edition::TurnRange;

/// One scripted edition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScriptedEdition {
    /// The cycle it is the summary of, from 1.
    pub cycle: u32,
    /// The turns that cycle folds under the demo's own policy.
    pub folds: TurnRange,
    pub text: &'static str,
}

/// The scripted editions of the drift demo: the rule weakens cycle by cycle.
pub const DRIFT: [ScriptedEdition; 3] = [
    ScriptedEdition {
        cycle: 1,
        folds: TurnRange { first: 1, last: 2 },
        text: "Chiru takes home ₹1,20,000 a month and spends ₹60,000, which leaves ₹60,000 free \
               each month. He set FinCoach a hard rule: never suggest equity instruments, since \
               he is allergic to them. FinCoach agreed to keep to fixed-income options.",
    },
    ScriptedEdition {
        cycle: 2,
        folds: TurnRange { first: 3, last: 4 },
        text: "Chiru, 32, takes home ₹1,20,000 a month, spends ₹60,000 and keeps ₹60,000 spare. \
               He would rather stay away from equity instruments and sticks to fixed-income \
               options. He wants to retire by 55, which gives him 23 years to build a corpus. \
               His ₹50,000 FD matures in 3 months; FinCoach said he can renew it or move the \
               money into PPF.",
    },
    ScriptedEdition {
        cycle: 3,
        folds: TurnRange { first: 5, last: 6 },
        text: "Chiru, 32, takes home ₹1,20,000, spends ₹60,000 a month and has ₹60,000 left \
               over. He prefers fixed-income options to equities. He plans to retire by 55, in \
               23 years. His ₹50,000 FD matures in 3 months and can be renewed or moved into \
               PPF. FinCoach explained that PPF is a government-backed savings scheme with a \
               15-year lock-in, while NPS is a pension scheme. Chiru will open a PPF account \
               this month and pay in a fixed sum monthly.",
    },
];

/// The scripted editions of the FinCoach demo: the second overruns its limit and invents advice.
pub const FINCOACH: [ScriptedEdition; 2] = [
    ScriptedEdition {
        cycle: 1,
        folds: TurnRange { first: 1, last: 2 },
        text: "Chiru takes home ₹1,20,000 a month and spends about ₹60,000 on rent, food and \
               transport, which leaves about ₹60,000 a month. FinCoach suggested an emergency \
               fund of six months of expenses, about ₹3,60,000, built by setting aside ₹30,000 a \
               month for a year, with the other ₹30,000 left for other goals.",
    },
    ScriptedEdition {
        cycle: 2,
        folds: TurnRange { first: 3, last: 4 },
        text: "Chiru takes home ₹1,20,000 a month, spends about ₹60,000 and saves the remaining \
               ₹60,000. He is risk-averse and holds a ₹50,000 FD that matures in 3 months, which \
               can seed a ₹3,60,000 emergency fund built at ₹30,000 a month. FinCoach advised \
               parking ₹25,000 of the FD in a liquid fund and the rest in a recurring deposit, \
               then starting an SIP of ₹15,000 a month in a conservative hybrid fund with about \
               25 % in equity, and keeping clear of single stocks for the first few years.",
    },
];

/// Every scripted edition of the demo with this slug (`DemoScript::slug`); empty for a demo
/// with no script.
pub fn scripted_editions(demo: &str) -> &'static [ScriptedEdition] {
    match demo {
        "drift" => &DRIFT,
        "fincoach" => &FINCOACH,
        _ => &[],
    }
}

/// The scripted summary of `cycle` (from 1) of the demo with this slug, if the script has one.
pub fn scripted_summary(demo: &str, cycle: u32) -> Option<&'static str> {
    scripted_editions(demo)
        .iter()
        .find(|e| e.cycle == cycle)
        .map(|e| e.text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::checks::rules::Verdict;
    use crate::engine::checks::{EditionChecks, EditionInput, check_editions};
    use crate::engine::demo::{DemoEvent, DemoPlayer, DemoScript};
    use crate::engine::drift::{compile_facts, fact_presence};
    use crate::engine::message::WordCounter;

    /// A demo played through the engine (with the extractive summariser), then checked twice:
    /// with the engine's own editions and with the scripted ones in their place, each against
    /// the messages archived and folded when that edition was written.
    struct Checked {
        extractive: Vec<EditionChecks>,
        scripted: Vec<EditionChecks>,
    }

    fn checked(script: DemoScript) -> Checked {
        let slug = script.slug;
        let mut player = DemoPlayer::new(script).unwrap();
        player.play_all(&WordCounter).unwrap();
        let scripted = scripted_editions(slug);
        assert_eq!(player.editions().len(), scripted.len(), "{slug}");
        // The turn asked when each cycle ran: the archive held its user messages and replies.
        let mut asked = 0;
        let mut at_cycle = Vec::new();
        for event in player.events() {
            match event {
                DemoEvent::Asked { turn } => asked = *turn,
                DemoEvent::Summarised { .. } => at_cycle.push(asked),
                _ => {}
            }
        }
        let archive: Vec<&str> = player
            .memory()
            .archive()
            .iter()
            .map(|m| m.content.as_str())
            .collect();
        for (edition, script) in player.editions().iter().zip(scripted) {
            assert_eq!(
                edition.folded,
                Some(script.folds),
                "{slug} {}",
                script.cycle
            );
            assert_eq!(edition.cycle, script.cycle);
        }
        let run = |texts: Vec<&str>| {
            let inputs: Vec<EditionInput<'_>> = player
                .editions()
                .iter()
                .zip(&at_cycle)
                .zip(texts)
                .map(|((edition, &turn), text)| EditionInput {
                    text,
                    archived: 2 * turn as usize,
                    folded: 2 * edition.folded.map_or(0, |f| f.last as usize),
                    word_limit: edition.word_limit,
                })
                .collect();
            check_editions(&archive, &inputs, player.pinned())
        };
        Checked {
            extractive: run(player
                .editions()
                .iter()
                .map(|e| e.summary.as_str())
                .collect()),
            scripted: run(scripted.iter().map(|e| e.text).collect()),
        }
    }

    #[test]
    fn drift_checks_find_the_rule_weakened_while_the_keyword_passes() {
        let checks = checked(DemoScript::drift());
        let verdicts = |checks: &[EditionChecks]| -> Vec<Vec<Verdict>> {
            checks
                .iter()
                .map(|c| c.rules.iter().map(|r| r.verdict).collect())
                .collect()
        };
        // One rule, stated by the user in turn 2: kept, then weakened at edition 2 and 3.
        assert_eq!(
            verdicts(&checks.scripted),
            [
                vec![Verdict::Kept],
                vec![Verdict::Weakened],
                vec![Verdict::Weakened]
            ]
        );
        assert_eq!(checks.scripted[1].rules[0].soft_found, ["rather"]);
        assert_eq!(checks.scripted[2].rules[0].soft_found, ["prefers"]);
        assert_eq!(
            checks.scripted[0].rules[0].rule.pinned,
            ["equity", "hard rule", "never suggest"]
        );
        // The extractive baseline copies the user's sentence, so it keeps the rule throughout.
        assert_eq!(
            verdicts(&checks.extractive),
            [
                vec![Verdict::Kept],
                vec![Verdict::Kept],
                vec![Verdict::Kept]
            ]
        );
        // The pinned keywords: "equit" passes every edition, the rule's force words are lost.
        let facts = compile_facts(&DemoScript::drift().facts).unwrap();
        let texts: Vec<&str> = DRIFT.iter().map(|e| e.text).collect();
        let kept: Vec<(String, Vec<bool>)> = fact_presence(&facts, &texts)
            .into_iter()
            .map(|t| (t.label, t.kept))
            .collect();
        assert_eq!(
            kept,
            [
                ("equity".to_owned(), vec![true, true, true]),
                ("hard rule".to_owned(), vec![true, false, false]),
                ("never suggest".to_owned(), vec![true, false, false]),
            ]
        );
        // The drift is in the wording, not in the figures, and no edition overruns.
        for check in &checks.scripted {
            assert!(check.unsourced.is_empty(), "{:?}", check.unsourced);
            assert_eq!(check.overrun, None);
        }
        // The summary grows every cycle: the snowball guard fires at edition 3.
        let words: Vec<u32> = texts
            .iter()
            .map(|t| crate::engine::text::word_count(t))
            .collect();
        let points = crate::engine::checks::snowball::snowball(&words, None, 2);
        assert!(points[2].warnings.len() == 1 && points[1].warnings.is_empty());
    }

    #[test]
    fn fincoach_checks_find_the_overrun_and_the_invented_advice() {
        let checks = checked(DemoScript::fincoach());
        let first = &checks.scripted[0];
        assert!(first.unsourced.is_empty(), "{:?}", first.unsourced);
        assert_eq!(first.overrun, None);
        let second = &checks.scripted[1];
        let overrun = second.overrun.expect("edition 2 overruns its limit");
        assert_eq!(overrun.limit, 80);
        assert!(overrun.words > 80);
        let invented: Vec<&str> = second.unsourced.iter().map(|f| f.text.as_str()).collect();
        assert_eq!(invented, ["₹25,000", "₹15,000", "25 %"]);
        // Of the folded turns' figures, it keeps the user's own and drops three of the replies'.
        let dropped: Vec<&str> = second
            .survival
            .figures
            .missing()
            .map(|i| i.text.as_str())
            .collect();
        assert_eq!(dropped, ["6", "₹10,000", "5th"]);
        assert_eq!(second.survival.figures.held(), 6);
        // The extractive baseline copies sentences: nothing invented, nothing over the limit.
        for check in &checks.extractive {
            assert!(check.unsourced.is_empty(), "{:?}", check.unsourced);
            assert_eq!(check.overrun, None);
        }
    }

    #[test]
    fn lookups_by_slug_and_cycle() {
        assert_eq!(scripted_summary("drift", 1), Some(DRIFT[0].text));
        assert_eq!(scripted_summary("fincoach", 2), Some(FINCOACH[1].text));
        assert_eq!(scripted_summary("drift", 4), None);
        assert_eq!(scripted_summary("drift", 0), None);
        assert_eq!(scripted_summary("nope", 1), None);
        for script in DemoScript::all() {
            assert!(
                !scripted_editions(script.slug).is_empty(),
                "{}",
                script.slug
            );
        }
    }
}
