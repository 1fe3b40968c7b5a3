//! The acceptance tests: the checks run on the lesson's own summaries find what the lesson
//! says. The fixtures quote the seed (`/work/shared/seeds/000_…`) word for word, non-breaking
//! hyphens (U+2011) included.

use super::*;
use crate::engine::demo::{DRIFT_TURNS, FINCOACH_USER_MESSAGES};
use crate::engine::drift::{compile_facts, fact_presence};

/// The seed's three drift summaries, cycles 1 to 3 (58, 99 and 137 tokens by o200k_base).
const DRIFT_SUMMARIES: [&str; 3] = [
    "Chiru earns a monthly take‑home salary of ₹1,20,000 and incurs ₹60,000 in expenses, leaving a surplus of ₹60,000 each month. He explicitly states a hard rule that he is allergic to equity instruments and requests only fixed‑income investment suggestions.",
    "Chiru, 32, earns a take‑home salary of ₹1,20,000 and spends ₹60,000 monthly, leaving a ₹60,000 surplus. He is allergic to equity instruments and seeks only fixed‑income options. He aims to retire at 55, giving 23 years to build a corpus. He holds an FD of ₹50,000 maturing in three months; FinCoach advised he can either renew it or transfer the proceeds to a PPF account.",
    "Chiru, 32, earns ₹1,20,000 take‑home and spends ₹60,000 monthly, leaving a ₹60,000 surplus. He avoids equities, preferring fixed‑income. He aims to retire at 55 (23 years). He holds an FD of ₹50,000 maturing in three months; FinCoach suggested renewing it or moving the proceeds to a PPF account. Chiru asked about PPF vs NPS; FinCoach explained PPF is a 15‑year government‑backed savings scheme, while NPS is a pension scheme. Chiru decided to open a PPF account this month with regular monthly contributions.",
];

const DRIFT_TOKENS: [u32; 3] = [58, 99, 137];

/// The seed's summary after turn 6: 81 words under an 80-word limit.
const FINCOACH_SUMMARY: &str = "Chiru earns ₹1,20,000 net monthly, spends ₹60,000 and has ₹60,000 discretionary income. He holds a ₹50,000 fixed deposit maturing in three months and is risk‑averse. FinCoach advised keeping about ₹30,000 in a short‑term FD (3‑6 months) for liquidity and ₹20,000 in a government‑backed debt fund or RD, while continuing to save ₹15‑20 k each month for a 3‑6‑month emergency fund (₹1.8‑3.6 L). After the cushion is built, allocate ₹20‑25 k to a conservative hybrid SIP (≈30 % equity, 70 % debt).";

const WORD_LIMIT: u32 = 80;

fn drift_facts() -> Vec<PinnedFact> {
    vec![
        PinnedFact::phrase("equity", "equit"),
        PinnedFact::phrase("hard rule", "hard rule"),
        PinnedFact::phrase("never suggest", "never suggest"),
    ]
}

/// The seed's drift run checked edition by edition: cycle `c` was written from, and had
/// folded, the first `c` batches.
fn drift_checks(facts: &[PinnedFact]) -> Vec<EditionChecks> {
    let archive: Vec<&str> = DRIFT_TURNS
        .iter()
        .flat_map(|&(user, reply)| [user, reply])
        .collect();
    let inputs: Vec<EditionInput<'_>> = DRIFT_SUMMARIES
        .iter()
        .enumerate()
        .map(|(i, text)| EditionInput {
            text,
            archived: 4 * (i + 1),
            folded: 4 * (i + 1),
            word_limit: WORD_LIMIT,
        })
        .collect();
    check_editions(&archive, &inputs, facts)
}

#[test]
fn the_seeds_rule_is_kept_twice_and_weakened_at_cycle_3() {
    let checks = drift_checks(&drift_facts());
    for check in &checks {
        assert_eq!(check.rules.len(), 1, "{:?}", check.rules);
    }
    let verdicts: Vec<Verdict> = checks.iter().map(|c| c.rules[0].verdict).collect();
    assert_eq!(verdicts, [Verdict::Kept, Verdict::Kept, Verdict::Weakened]);

    let rule = &checks[0].rules[0].rule;
    assert_eq!(
        rule.text,
        "One hard rule: I am allergic to equity instruments, never suggest them."
    );
    assert_eq!(rule.source, RuleSource::Turn);
    assert_eq!(rule.pinned, ["equity", "hard rule", "never suggest"]);

    // The evidence: cycle 1 states it as a hard rule, cycle 2 keeps "allergic" and "only",
    // cycle 3 keeps the word "equities" but says "avoids" and "preferring".
    assert_eq!(
        checks[0].rules[0].strong_found,
        ["only", "hard rule", "allergic"]
    );
    assert_eq!(checks[1].rules[0].strong_found, ["only", "allergic"]);
    let third = &checks[2].rules[0];
    assert_eq!(
        third.sentence.as_deref(),
        Some("He avoids equities, preferring fixed‑income.")
    );
    assert_eq!(third.content_found, ["equity"]);
    assert!(third.strong_found.is_empty());
    assert_eq!(third.soft_found, ["avoids", "preferring"]);

    // Survival counts the rule as held only while it is kept.
    let held: Vec<(usize, usize)> = checks
        .iter()
        .map(|c| (c.survival.rules.held(), c.survival.rules.total()))
        .collect();
    assert_eq!(held, [(1, 1), (1, 1), (0, 1)]);

    // The fact badges: "equit" still matches at cycle 3, but its rule is weakened there.
    let weakened: Vec<bool> = checks.iter().map(|c| c.weakened("equity")).collect();
    assert_eq!(weakened, [false, false, true]);
    assert!(!checks[2].weakened("salary"));

    // Meanwhile the seed's keyword check passes at every cycle.
    let equity = compile_facts(&[PinnedFact::phrase("equity", "equit")]).unwrap();
    assert_eq!(
        fact_presence(&equity, &DRIFT_SUMMARIES)[0].kept,
        [true, true, true]
    );
}

#[test]
fn a_pinned_rule_of_its_own_weakens_at_cycle_3_too() {
    let rule = Rule::from_text(
        "never suggest equities",
        RuleSource::Pinned("no equities".into()),
    );
    let verdicts: Vec<Verdict> = DRIFT_SUMMARIES
        .iter()
        .map(|s| check_rule(&rule, s).verdict)
        .collect();
    assert_eq!(verdicts, [Verdict::Kept, Verdict::Kept, Verdict::Weakened]);
    // Pinned with no folded turn to anchor it, it is checked as a rule of its own.
    let facts = [PinnedFact::phrase("no equities", "never suggest equities")];
    let checks = check_edition(DRIFT_SUMMARIES[2], &[], &[], &facts, 0);
    assert_eq!(checks.rules.len(), 1);
    assert_eq!(checks.rules[0].verdict, Verdict::Weakened);
    assert_eq!(
        checks.rules[0].rule.source,
        RuleSource::Pinned("no equities".into())
    );
}

#[test]
fn the_seeds_drift_summaries_invent_no_figure_and_snowball() {
    let checks = drift_checks(&drift_facts());
    for (check, summary) in checks.iter().zip(DRIFT_SUMMARIES) {
        assert!(
            check.unsourced.is_empty(),
            "{summary}: {:?}",
            check.unsourced
        );
    }
    // Figures: salary and expenses, then age, retirement age, years, the FD and its months, then
    // the lock-in; every one survives
    // ("three months" holds the FD's "3 months").
    let figures: Vec<(usize, usize)> = checks
        .iter()
        .map(|c| (c.survival.figures.held(), c.survival.figures.total()))
        .collect();
    assert_eq!(figures, [(2, 2), (7, 7), (8, 8)]);
    // Names: Chiru, then FD and PPF, then NPS; the pinned "hard rule" and "never suggest" are
    // lost from cycle 2 (and "never suggest" was never there).
    let missing: Vec<Vec<&str>> = checks
        .iter()
        .map(|c| {
            c.survival
                .names
                .missing()
                .map(|i| i.text.as_str())
                .collect()
        })
        .collect();
    assert_eq!(
        missing,
        [
            vec!["never suggest"],
            vec!["hard rule", "never suggest"],
            vec!["hard rule", "never suggest"]
        ]
    );
    // The third summary is 82 words long, over the limit of 80.
    let overruns: Vec<Option<Overrun>> = checks.iter().map(|c| c.overrun).collect();
    assert_eq!(
        overruns,
        [
            None,
            None,
            Some(Overrun {
                words: 82,
                limit: 80
            })
        ]
    );
    let points = snowball(&DRIFT_TOKENS, None, DEFAULT_GROWTH_RUN);
    let warned: Vec<bool> = points.iter().map(|p| !p.warnings.is_empty()).collect();
    assert_eq!(warned, [false, false, true]);
}

#[test]
fn the_seeds_fincoach_summary_overruns_and_invents_the_advice_figures() {
    let checks = check_edition(
        FINCOACH_SUMMARY,
        &FINCOACH_USER_MESSAGES,
        &FINCOACH_USER_MESSAGES[..4],
        &[PinnedFact::phrase("salary", "1,20,000")],
        WORD_LIMIT,
    );
    assert_eq!(
        checks.overrun,
        Some(Overrun {
            words: 81,
            limit: 80
        })
    );
    let unsourced: Vec<(&str, String)> = checks
        .unsourced
        .iter()
        .map(|f| (f.text.as_str(), f.value.to_string()))
        .collect();
    assert_eq!(
        unsourced,
        [
            ("₹30,000", "₹30000".to_owned()),
            ("6", "6".to_owned()),
            ("₹20,000", "₹20000".to_owned()),
            ("₹15", "₹15000".to_owned()),
            ("20 k", "₹20000".to_owned()),
            ("6", "6".to_owned()),
            ("₹1.8", "₹180000".to_owned()),
            ("3.6 L", "₹360000".to_owned()),
            ("₹20", "₹20000".to_owned()),
            ("25 k", "₹25000".to_owned()),
            ("30 %", "30%".to_owned()),
            ("70 %", "70%".to_owned()),
        ]
    );
    // Each span marks its figure in the text.
    for figure in &checks.unsourced {
        assert_eq!(&FINCOACH_SUMMARY[figure.span.clone()], figure.text);
    }
    // The user's own figures are sourced: salary, expenses, the FD and its 3 months.
    for sourced in ["₹1,20,000", "₹60,000", "₹50,000"] {
        assert!(
            !checks.unsourced.iter().any(|f| f.text == sourced),
            "{sourced}"
        );
    }
    // Of the four folded user messages' figures (salary, expenses, FD, 3 months) all survive.
    assert_eq!(
        (
            checks.survival.figures.held(),
            checks.survival.figures.total()
        ),
        (4, 4)
    );
    assert!(checks.rules.is_empty());
}

#[test]
fn check_editions_agrees_with_check_edition() {
    let archive: Vec<&str> = DRIFT_TURNS
        .iter()
        .flat_map(|&(user, reply)| [user, reply])
        .collect();
    let facts = drift_facts();
    let sequence = drift_checks(&facts);
    for (i, summary) in DRIFT_SUMMARIES.iter().enumerate() {
        let n = 4 * (i + 1);
        let one = check_edition(summary, &archive[..n], &archive[..n], &facts, WORD_LIMIT);
        assert_eq!(one, sequence[i], "cycle {}", i + 1);
    }
    // Counts that shrink (a restore checked after a later edition) start over.
    let inputs = [
        EditionInput {
            text: DRIFT_SUMMARIES[2],
            archived: 12,
            folded: 12,
            word_limit: 80,
        },
        EditionInput {
            text: DRIFT_SUMMARIES[0],
            archived: 4,
            folded: 4,
            word_limit: 80,
        },
    ];
    let checks = check_editions(&archive, &inputs, &facts);
    assert_eq!(checks[1], sequence[0]);
}
