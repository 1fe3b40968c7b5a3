//! Property tests of the edition checks: a figure copied from the archive in any equivalent form
//! is never flagged, any text is checked without a panic, and the rule and snowball checks agree
//! with simple models of them.
// proptest is a native-only dev-dependency.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use summary_memory::engine::checks::{
    Rule, RuleSource, SnowballWarning, Sources, Value, Verdict, check_edition, check_rule,
    figures::figures, overrun, rules::rules_in, snowball,
};
use summary_memory::engine::drift::PinnedFact;
use summary_memory::engine::word_count;

/// `n / 10^scale` as an exact decimal, without trailing zeros ("1.2", "120000").
fn decimal(n: u64, scale: u32) -> String {
    let digits = format!("{n:0>width$}", width = scale as usize + 1);
    let (int, frac) = digits.split_at(digits.len() - scale as usize);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        int.to_owned()
    } else {
        format!("{int}.{frac}")
    }
}

/// Groups digits Western style: 1,234,567.
fn western(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Groups digits Indian style: 12,34,567.
fn indian(n: u64) -> String {
    let digits = n.to_string();
    if digits.len() <= 3 {
        return digits;
    }
    let (head, last3) = digits.split_at(digits.len() - 3);
    let mut out = String::new();
    for (i, c) in head.chars().enumerate() {
        if i > 0 && (head.len() - i).is_multiple_of(2) {
            out.push(',');
        }
        out.push(c);
    }
    format!("{out},{last3}")
}

/// One way of writing `n` rupees (or `n` bare): `form` picks the digits, `sign` the currency.
fn amount(n: u64, form: u8, sign: u8) -> String {
    let number = match form % 9 {
        0 => n.to_string(),
        1 => western(n),
        2 => indian(n),
        3 => format!("{}k", decimal(n, 3)),
        4 => format!("{} k", decimal(n, 3)),
        5 => format!("{} lakh", decimal(n, 5)),
        6 => format!("{}L", decimal(n, 5)),
        7 => format!("{} crore", decimal(n, 7)),
        _ => format!("{}.00", western(n)),
    };
    match sign % 6 {
        0 => number,
        1 => format!("₹{number}"),
        2 => format!("Rs {number}"),
        3 => format!("Rs.{number}"),
        4 => format!("INR {number}"),
        _ => format!("{number} rupees"),
    }
}

fn percent(tenths: u32, form: u8) -> String {
    let number = decimal(u64::from(tenths), 1);
    match form % 5 {
        0 => format!("{number}%"),
        1 => format!("{number} %"),
        2 => format!("{number} percent"),
        3 => format!("{number} per cent"),
        _ => format!(
            "{}0%",
            if number.contains('.') {
                number
            } else {
                format!("{number}.")
            }
        ),
    }
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

fn date(day: u32, month: usize, year: u32, form: u8) -> String {
    let name = MONTHS[month - 1];
    let short = &name[..3];
    match form % 7 {
        0 => format!("{day} {name} {year}"),
        1 => format!("{day}th of {name} {year}"),
        2 => format!("{name} {day}, {year}"),
        3 => format!("{year}-{month:02}-{day:02}"),
        4 => format!("{day:02}/{month:02}/{year}"),
        5 => format!("{day} {short} {year}"),
        _ => format!("{short}. {day} {year}"),
    }
}

/// Checks that `edition` (one figure, written as `written`) is sourced by `archive`, that it is
/// found as exactly one figure, and that the folded turn's figure survives in it.
fn sourced(archive_form: &str, edition_form: &str) -> Result<(), TestCaseError> {
    let archive = format!("Earlier the user said {archive_form} exactly.");
    let edition = format!("The summary keeps {edition_form} today.");
    let found = figures(&edition);
    prop_assert_eq!(found.len(), 1, "{:?}", found);
    prop_assert_eq!(&found[0].text, edition_form);
    let in_archive = figures(&archive);
    prop_assert_eq!(in_archive.len(), 1, "{:?}", in_archive);
    let checks = check_edition(&edition, &[&archive], &[&archive], &[], 0);
    prop_assert!(
        checks.unsourced.is_empty(),
        "{edition} / {archive}: {:?}",
        checks.unsourced
    );
    let survival = &checks.survival;
    let (held, total) = match found[0].value {
        Value::Date(_) => (survival.dates.held(), survival.dates.total()),
        _ => (survival.figures.held(), survival.figures.total()),
    };
    prop_assert_eq!((held, total), (1, 1));
    Ok(())
}

/// Words for generated rules: none of them is a binding or a soft word.
const VOCABULARY: &[&str] = &[
    "equity", "crypto", "gold", "bonds", "property", "lottery", "options", "futures", "shares",
    "loans", "buy", "sell", "touch", "invest", "trade", "borrow",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn an_amount_copied_in_any_form_is_never_flagged(
        n in 1u64..10_000_000_000,
        (form_a, sign_a, form_b, sign_b) in (0u8..9, 0u8..6, 0u8..9, 0u8..6),
    ) {
        sourced(&amount(n, form_a, sign_a), &amount(n, form_b, sign_b))?;
    }

    #[test]
    fn a_percentage_copied_in_any_form_is_never_flagged(
        tenths in 0u32..10_000,
        (form_a, form_b) in (0u8..5, 0u8..5),
    ) {
        sourced(&percent(tenths, form_a), &percent(tenths, form_b))?;
    }

    #[test]
    fn a_date_copied_in_any_form_is_never_flagged(
        (day, month, year) in (1u32..=28, 1usize..=12, 1900u32..2100),
        (form_a, form_b) in (0u8..7, 0u8..7),
    ) {
        sourced(&date(day, month, year, form_a), &date(day, month, year, form_b))?;
    }

    #[test]
    fn a_different_amount_is_flagged(
        n in 1u64..10_000_000_000,
        delta in 1u64..1_000,
        (form_a, form_b) in (0u8..9, 0u8..9),
    ) {
        let archive = format!("I said {}.", amount(n, form_a, 1));
        let edition = format!("He has {}.", amount(n + delta, form_b, 1));
        let checks = check_edition(&edition, &[&archive], &[], &[], 0);
        prop_assert_eq!(checks.unsourced.len(), 1, "{} / {}", edition, archive);
    }

    #[test]
    fn any_text_is_checked_without_panic_and_sources_itself(
        text in prop_oneof![
            any::<String>(),
            "[0-9 ,.₹$€£%kKLl\\-‑–/:a-zA-Z]{0,80}",
            "((Rs|INR|₹|March|May|12|1,20,000|3\\.6|L|k|%|percent|never|only|-|/| |\\.)){0,30}",
        ],
        archive in any::<String>(),
        phrase in "[a-z ]{0,12}",
        limit in 0u32..40,
    ) {
        let facts = [PinnedFact::phrase("fact", phrase), PinnedFact::regex("bad", "(")];
        // Checked against itself, nothing is unsourced.
        let checks = check_edition(&text, &[&text], &[&text], &facts, limit);
        prop_assert!(checks.unsourced.is_empty(), "{:?}", checks.unsourced);
        prop_assert_eq!(checks.overrun.is_some(), limit > 0 && word_count(&text) > limit);
        // Spans mark the figure, on character boundaries, in order, never overlapping.
        let found = figures(&text);
        for figure in &found {
            prop_assert_eq!(text.get(figure.span.clone()), Some(figure.text.as_str()));
        }
        for pair in found.windows(2) {
            prop_assert!(pair[0].span.end <= pair[1].span.start, "{:?}", pair);
        }
        // Against another text, every unsourced figure is one of the text's figures.
        let other = check_edition(&text, &[&archive], &[&archive], &facts, limit);
        for figure in &other.unsourced {
            prop_assert!(found.contains(figure));
        }
        let _ = Sources::new([archive.as_str(), text.as_str()]);
    }

    #[test]
    fn a_copied_rule_is_kept_and_a_softened_one_is_not(
        marker in prop_oneof![Just("Never"), Just("Always"), Just("You must"), Just("Don't"), Just("Only")],
        words in prop::collection::vec(prop::sample::select(VOCABULARY), 1..6),
        soft in prop_oneof![Just("He prefers to"), Just("He tends to"), Just("He generally would")],
    ) {
        let body = words.join(" ");
        let sentence = format!("{marker} {body}.");
        let rules = rules_in(&[&format!("Hello there. {sentence}")], &[]);
        prop_assert_eq!(rules.len(), 1);
        prop_assert_eq!(&rules[0].text, &sentence);
        let kept = check_rule(&rules[0], &format!("The summary. {sentence} More."));
        prop_assert_eq!(kept.verdict, Verdict::Kept);
        let softened = check_rule(&rules[0], &format!("The summary. {soft} {body}. More."));
        prop_assert_eq!(softened.verdict, Verdict::Weakened, "{:?}", softened);
        prop_assert!(!softened.soft_found.is_empty());
        let lost = check_rule(&rules[0], "The summary says nothing of it.");
        prop_assert_eq!(lost.verdict, Verdict::Lost);
        // A pinned rule of the same words agrees.
        let pinned = Rule::from_text(&sentence, RuleSource::Pinned("p".into()));
        prop_assert_eq!(&pinned.content, &rules[0].content);
    }

    #[test]
    fn the_snowball_guard_matches_a_model(
        tokens in prop::collection::vec(0u32..500, 0..20),
        budget in prop::option::of(0u32..500),
        run in 0usize..5,
    ) {
        let points = snowball(&tokens, budget, run);
        prop_assert_eq!(points.len(), tokens.len());
        let mut streak = 0;
        for (i, point) in points.iter().enumerate() {
            streak = if i > 0 && tokens[i] > tokens[i - 1] { streak + 1 } else { 0 };
            prop_assert_eq!(point.cycle, i + 1);
            prop_assert_eq!(point.growth_run, streak);
            let growing = point.warnings.iter().any(|w| matches!(w, SnowballWarning::Growing { .. }));
            prop_assert_eq!(growing, run > 0 && streak >= run);
            let over = point.warnings.iter().any(|w| matches!(w, SnowballWarning::OverBudget { .. }));
            prop_assert_eq!(over, budget.is_some_and(|b| tokens[i] > b));
        }
    }

    #[test]
    fn overrun_follows_the_engines_word_count(text in any::<String>(), limit in 0u32..30) {
        let found = overrun(&text, limit);
        prop_assert_eq!(found.is_some(), limit > 0 && word_count(&text) > limit);
        if let Some(found) = found {
            prop_assert_eq!(found.words, word_count(&text));
        }
    }
}
