//! The core's fixed patterns on regex-lite (`Pattern`) against the sources before regex-lite on `regex::Regex`
//! (the oracle): the same `captures_all` spans, every group, over every text the app ships and
//! over random texts; and, over a Unicode-heavy alphabet, the same spans as the old source with
//! each `\b` made ASCII (`(?-u:\b)`), which shows that the ASCII `\b` is the only deviation. The
//! deviations themselves (a word or figure glued to a non-ASCII word char) are shown one by one.

use std::ops::Range;
use std::path::Path;
use std::sync::LazyLock;

use proptest::prelude::*;

use crate::engine::checks::figures;
use crate::engine::demo::DemoScript;
use crate::engine::openai::error;
use crate::engine::pattern::Pattern;
use crate::engine::{extractive, scripted};

/// The figures check's month names, as the old source wrote them into its DATE pattern.
const OLD_MONTH: &str = r"(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)";

/// Main's sources (regex syntax), verbatim.
const OLD_NUMBER: &str = r"(?x)
        (?: (?P<cur> ₹ | Rs\.? | INR | US\$ | USD | \$ | € | EUR | £ | GBP ) \s? )?
        (?P<num> [0-9]{1,3} (?: (?:,[0-9]{3})+ | (?:,[0-9]{2})+ ,[0-9]{3} ) (?:\.[0-9]+)? | [0-9]+ (?:\.[0-9]+)? )
        (?: \s? (?P<mult> (?i: thousand | lakhs? | lacs? | crores? | million | billion | mn | bn | cr ) | [kK] | L ) \b )?
        (?: (?: st | nd | rd | th ) \b )?
        (?: \s? (?P<pct> % | (?i: percent | per \s? cent ) \b ) )?
        (?: \s (?P<curw> (?i: rupees? | dollars? | euros? ) ) \b )?
        ";
const OLD_FIGURES_DATE: &str = r"(?x)
        (?P<iy> [0-9]{4} ) - (?P<im> [0-9]{1,2} ) - (?P<id> [0-9]{1,2} ) \b
        | (?P<n1> [0-9]{1,2} ) [/.\-] (?P<n2> [0-9]{1,2} ) [/.\-] (?P<n3> [0-9]{4} ) \b
        | (?P<dd> [0-9]{1,2} ) (?: st | nd | rd | th )? \s+ (?: of \s+ )? (?P<dm> MONTH ) \b \.?
          (?: ,? \s+ (?P<dy> [0-9]{4} ) \b )?
        | (?P<mm> MONTH ) \b \.? \s+ (?P<md> [0-9]{1,2} ) (?: st | nd | rd | th )? \b
          (?: ,? \s+ (?P<my> [0-9]{4} ) \b )?
        | (?P<ym> MONTH ) \b \.? ,? \s+ (?P<yy> [0-9]{4} ) \b
        ";
const OLD_SPELLED: &str = r"(?ix)
        \b (?P<tens> twenty | thirty | forty | fifty | sixty | seventy | eighty | ninety )
           (?: [\s\-\u{2010}\u{2011}] (?P<unit> one | two | three | four | five | six | seven | eight | nine ) )? \b
        | \b (?P<word> zero | one | two | three | four | five | six | seven | eight | nine | ten | eleven
              | twelve | thirteen | fourteen | fifteen | sixteen | seventeen | eighteen | nineteen
              | hundred | thousand ) \b
        ";
const OLD_AMOUNT: &str = r"(?ix)
        [₹$€£¥]\s?\d                                   # ₹1,20,000  $5k  £20
        | \b(?:rs\.?|inr|usd|eur)\s?\d                   # Rs. 500  INR 2000
        | \d[\d,]*(?:\.\d+)?\s?(?:%|k\b|l\b|lakhs?\b|crores?\b|cr\b|rupees\b|dollars\b|percent\b)
        ";
const OLD_EXTRACTIVE_DATE: &str = r"(?x)
        \b(?:January|February|March|April|June|July|August|September|October|November|December
            |Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\b
        | \bMay\s+\d
        | \b\d{4}-\d{2}-\d{2}\b
        | \b\d{1,2}/\d{1,2}/\d{2,4}\b
        | (?i:\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|yesterday)\b)
        ";
const OLD_LIST_MARKER: &str = r"^(?:[-*•]\s+|\d{1,2}[.)]\s+|#{1,6}\s+)";
const OLD_LIMIT: &str = r"(?i)maximum context length is (\d+)";
const OLD_ASKED: &str =
    r"(?i)(?:resulted in|requested|you sent|prompt has|contains) (?:about )?(\d+) tokens";
const OLD_WAIT: &str = r"try again in (?:(\d+)m)?(\d+(?:\.\d+)?)(ms|s)\b";

/// One fixed pattern: the old source on `regex`, the same with an ASCII `\b`, and ours.
struct Fixed {
    name: &'static str,
    old: regex::Regex,
    old_ascii_b: regex::Regex,
    new: Pattern,
}

fn fixed(name: &'static str, old: &str, new: String) -> Fixed {
    Fixed {
        name,
        old: regex::Regex::new(old).unwrap(),
        old_ascii_b: regex::Regex::new(&old.replace(r"\b", r"(?-u:\b)")).unwrap(),
        new: Pattern::new(&new).unwrap_or_else(|err| panic!("{name}: {err}")),
    }
}

/// Compiled once: the property tests call on them thousands of times.
static ALL_FIXED: LazyLock<Vec<Fixed>> = LazyLock::new(|| {
    vec![
        fixed("figures NUMBER", OLD_NUMBER, figures::number_source()),
        fixed(
            "figures DATE",
            &OLD_FIGURES_DATE.replace("MONTH", OLD_MONTH),
            figures::date_source(),
        ),
        fixed("figures SPELLED", OLD_SPELLED, figures::spelled_source()),
        fixed("extractive AMOUNT", OLD_AMOUNT, extractive::amount_source()),
        fixed(
            "extractive DATE",
            OLD_EXTRACTIVE_DATE,
            extractive::date_source(),
        ),
        fixed(
            "extractive LIST_MARKER",
            OLD_LIST_MARKER,
            extractive::list_marker_source(),
        ),
        fixed("error LIMIT", OLD_LIMIT, error::limit_source()),
        fixed("error ASKED", OLD_ASKED, error::asked_source()),
        fixed("error wait", OLD_WAIT, error::wait_source()),
    ]
});

fn all_fixed() -> &'static [Fixed] {
    &ALL_FIXED
}

type Spans = Vec<Vec<Option<Range<usize>>>>;

fn regex_spans(re: &regex::Regex, text: &str) -> Spans {
    re.captures_iter(text)
        .map(|caps| {
            (0..caps.len())
                .map(|i| caps.get(i).map(|m| m.range()))
                .collect()
        })
        .collect()
}

fn our_spans(pattern: &Pattern, groups: usize, text: &str) -> Spans {
    pattern
        .captures_all(text)
        .iter()
        .map(|caps| {
            (0..groups)
                .map(|i| caps.get(i).map(|m| m.range()))
                .collect()
        })
        .collect()
}

impl Fixed {
    fn ours(&self, text: &str) -> Spans {
        our_spans(&self.new, self.old.captures_len(), text)
    }

    fn oracle(&self, text: &str) -> Spans {
        regex_spans(&self.old, text)
    }

    fn oracle_ascii_b(&self, text: &str) -> Spans {
        regex_spans(&self.old_ascii_b, text)
    }
}

/// A non-ASCII char that regex's `\w` holds: where the ASCII `\b` can differ from regex's.
fn non_ascii_word(ch: char) -> bool {
    !ch.is_ascii() && super::super::literal::is_word(ch)
}

/// Every string value of a JSON document.
fn json_strings(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(text) => out.push(text.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| json_strings(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| json_strings(v, out)),
        _ => {}
    }
}

/// Every string value of the JSON (or JSON Lines) files under `dir`, and the whole text of
/// any other file.
fn strings_under(dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            strings_under(&path, out);
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) {
            json_strings(&value, out);
        } else if text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
        {
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                json_strings(&serde_json::from_str(line).unwrap(), out);
            }
        } else {
            out.push(text);
        }
    }
}

/// Every string literal in a Rust source file (plain or raw) outside its comments, with the
/// plain ones' escapes read: the figures check's test texts, the scripted summaries, the
/// lesson's words.
fn literals_in(path: &str) -> Vec<String> {
    let source = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    let source: String = source
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .flat_map(|line| [line, "\n"])
        .collect();
    let literal = regex::Regex::new(r##"(?s)r#"(.*?)"#|r"([^"]*)"|"((?:[^"\\]|\\.)*)""##).unwrap();
    let escape = regex::Regex::new(r#"\\u\{([0-9a-fA-F]+)\}|\\(.)|\\\n\s*"#).unwrap();
    literal
        .captures_iter(&source)
        .map(|caps| match (caps.get(1).or(caps.get(2)), caps.get(3)) {
            (Some(raw), _) => raw.as_str().to_owned(),
            (None, Some(plain)) => escape
                .replace_all(plain.as_str(), |e: &regex::Captures<'_>| {
                    if let Some(hex) = e.get(1) {
                        char::from_u32(u32::from_str_radix(hex.as_str(), 16).unwrap())
                            .map(String::from)
                            .unwrap_or_default()
                    } else {
                        match e.get(2).map(|m| m.as_str()) {
                            Some("n") => "\n".into(),
                            Some("t") => "\t".into(),
                            Some("r") => "\r".into(),
                            Some("0") => "\0".into(),
                            Some(other) => other.into(),
                            None => String::new(),
                        }
                    }
                })
                .into_owned(),
            _ => unreachable!(),
        })
        .collect()
}

/// Every text the app ships or its tests feed the figures check.
fn shipped_texts() -> Vec<String> {
    let mut texts = Vec::new();
    for script in DemoScript::all().into_iter().chain(DemoScript::recorded()) {
        texts.push(script.system_prompt.to_owned());
        for (user, reply) in &script.turns {
            texts.push((*user).to_owned());
            texts.push((*reply).to_owned());
        }
        for cycle in 0..8 {
            texts.extend(scripted::scripted_summary(script.slug, cycle).map(str::to_owned));
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    strings_under(&root.join("src/engine/demos"), &mut texts);
    strings_under(&root.join("tests/fixtures"), &mut texts);
    for file in [
        "src/engine/demo.rs",
        "src/engine/scripted.rs",
        "src/app/lesson.rs",
        "src/engine/checks/figures.rs",
        "src/engine/checks/tests.rs",
        "src/engine/extractive.rs",
        "src/engine/openai/tests.rs",
    ] {
        texts.extend(literals_in(file));
    }
    texts
}

/// On every shipped text, ours matches what the old source with an ASCII `\b` matched, and what
/// the old source matched on every text with no non-ASCII word char in it.
#[test]
fn shipped_texts_match_as_on_main() {
    let texts = shipped_texts();
    assert!(texts.len() > 1_000, "only {} texts", texts.len());
    let mut compared = 0;
    let mut unicode_differs = Vec::new();
    for fixed in all_fixed() {
        for text in &texts {
            let ours = fixed.ours(text);
            assert_eq!(
                ours,
                fixed.oracle_ascii_b(text),
                "{} (ASCII \\b) on {text:?}",
                fixed.name
            );
            if ours != fixed.oracle(text) {
                assert!(
                    text.chars().any(non_ascii_word),
                    "{} differs from the old source on {text:?}",
                    fixed.name
                );
                unicode_differs.push((fixed.name, text.clone()));
            }
            compared += ours.len();
        }
    }
    assert!(compared > 1_000, "only {compared} matches compared");
    // The fixtures' Hindi, Chinese and accented texts give no figure glued to a letter of
    // theirs: the texts that deviate are the figures check's own tests of the deviation.
    let deviation_tests = ["5ké", "5k\u{301}", "3 lakh\u{17F}"];
    assert!(!unicode_differs.is_empty());
    for (name, text) in &unicode_differs {
        assert!(
            deviation_tests.contains(&text.as_str()),
            "{name} differs from the old source on {text:?}"
        );
    }
}

/// Tokens that make the patterns match often: ASCII letters and digits, the currency signs,
/// punctuation, every Unicode space, the dashes and the words the patterns look for.
const TOKENS: &[&str] = &[
    "a",
    "e",
    "k",
    "K",
    "L",
    "l",
    "m",
    "s",
    "S",
    "t",
    "x",
    "_",
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "7",
    "9",
    "12",
    "2024",
    "1,20,000",
    "₹",
    "$",
    "€",
    "£",
    "¥",
    "%",
    ",",
    ".",
    "-",
    "/",
    ":",
    "(",
    ")",
    "*",
    "•",
    "#",
    "\u{2010}",
    "\u{2011}",
    "\n",
    "\t",
    "\u{B}",
    "\u{C}",
    "\r",
    " ",
    " ",
    " ",
    "\u{85}",
    "\u{A0}",
    "\u{1680}",
    "\u{2000}",
    "\u{2001}",
    "\u{2002}",
    "\u{2003}",
    "\u{2004}",
    "\u{2005}",
    "\u{2006}",
    "\u{2007}",
    "\u{2008}",
    "\u{2009}",
    "\u{200A}",
    "\u{2028}",
    "\u{2029}",
    "\u{202F}",
    "\u{205F}",
    "\u{3000}",
    "January",
    "March",
    "Mar",
    "May",
    "Sept",
    "Sep",
    "December",
    "Dec",
    "of",
    "st",
    "nd",
    "rd",
    "th",
    "one",
    "six",
    "Seven",
    "SIXTY",
    "twenty",
    "nineteen",
    "hundred",
    "thousand",
    "Thousand",
    "lakh",
    "lakhs",
    "Lakhs",
    "lac",
    "crore",
    "crores",
    "cr",
    "mn",
    "bn",
    "million",
    "Rs",
    "Rs.",
    "INR",
    "US$",
    "USD",
    "EUR",
    "GBP",
    "rs",
    "inr",
    "usd",
    "rupee",
    "rupees",
    "Dollars",
    "euro",
    "percent",
    "per",
    "cent",
    "Monday",
    "tuesday",
    "SATURDAY",
    "yesterday",
    "tomorrow",
    "maximum context length is ",
    "Maximum Context Length IS ",
    "resulted in ",
    "requested ",
    "you sent ",
    "prompt has ",
    "contains ",
    "about ",
    " tokens",
    " TOKENS",
    "try again in ",
    "ms",
    "2.5",
];

fn token_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(TOKENS), 0..30)
        .prop_map(|tokens| tokens.concat())
}

/// Chars where only the ASCII `\b` or the spelled-out classes could go wrong: non-ASCII
/// letters, marks, digits, joiners, KELVIN SIGN and LONG S, next to the tokens above.
const UNICODE_WORD: &[&str] = &[
    "é", "É", "ß", "\u{17F}", "\u{212A}", "ı", "İ", "σ", "д", "क", "ि", "्", "日", "٣", "५", "２",
    "\u{301}", "\u{200D}", "\u{203F}",
];

fn unicode_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            3 => proptest::sample::select(TOKENS),
            1 => proptest::sample::select(UNICODE_WORD),
        ],
        0..30,
    )
    .prop_map(|tokens| tokens.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// Over ASCII letters and digits, currency signs, punctuation and every Unicode space, ours
    /// matches what the old source matched, span for span.
    #[test]
    fn same_spans_as_main(text in token_text()) {
        for fixed in all_fixed() {
            prop_assert_eq!(fixed.ours(&text), fixed.oracle(&text), "{} on {:?}", fixed.name, text);
        }
    }

    /// With non-ASCII word chars too, ours matches the old source with an ASCII `\b`: the ASCII
    /// `\b` is the one deviation (the classes, KELVIN SIGN and LONG S are exact).
    #[test]
    fn only_the_word_boundary_deviates(text in unicode_text()) {
        for fixed in all_fixed() {
            prop_assert_eq!(
                fixed.ours(&text), fixed.oracle_ascii_b(&text), "{} on {:?}", fixed.name, text
            );
        }
    }
}

fn pattern(name: &str) -> &'static Fixed {
    all_fixed().iter().find(|f| f.name == name).unwrap()
}

/// Whole-match spans, ours and the old source's.
fn whole(fixed: &Fixed, text: &str) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
    let firsts = |spans: Spans| spans.into_iter().map(|g| g[0].clone().unwrap()).collect();
    (firsts(fixed.ours(text)), firsts(fixed.oracle(text)))
}

/// What the Unicode classes keep, one case each: a figure with a no-break or thin space, a
/// number word or unit with LONG S or KELVIN SIGN inside it, another script's digits.
#[test]
fn unicode_spaces_digits_and_folding_match_as_on_main() {
    let cases = [
        (
            "figures NUMBER",
            "₹\u{A0}500 and 5\u{202F}% and 3\u{2009}lakh and 2 la\u{212A}h",
        ),
        (
            "figures NUMBER",
            "5 thou\u{17F}and rupees\u{3000}and 40 per\u{2009}cent",
        ),
        ("figures DATE", "5\u{A0}March\u{202F}2024, March\u{3000}5th"),
        (
            "figures SPELLED",
            "twenty\u{A0}one, twenty-\u{17F}ix, a thou\u{17F}and",
        ),
        (
            "extractive AMOUNT",
            "₹\u{A0}५०० and INR\u{202F}２０ and 5 la\u{212A}h",
        ),
        ("extractive DATE", "May\u{A0}५ and on wedne\u{17F}day"),
        ("extractive LIST_MARKER", "१.\u{A0}item"),
        ("error LIMIT", "maximum context length i\u{17F} ४०९६"),
        ("error ASKED", "you \u{17F}ent 9000 to\u{212A}ens"),
        ("error wait", "try again in ٣s"),
    ];
    for (name, text) in cases {
        let fixed = pattern(name);
        let (ours, old) = whole(fixed, text);
        assert!(!ours.is_empty(), "{name} finds nothing in {text:?}");
        assert_eq!(fixed.ours(text), fixed.oracle(text), "{name} on {text:?}");
        assert_eq!(ours, old);
    }
}

/// A deviation: the pattern, the text, our whole match and the old source's.
type Deviation = (
    &'static str,
    &'static str,
    Option<Range<usize>>,
    Option<Range<usize>>,
);

/// The one deviation, pattern by pattern: `\b` is ASCII, so a non-ASCII word char (a letter,
/// a mark, another script's digit, KELVIN SIGN, LONG S) on the far side of a `\b` makes a
/// boundary where regex's made none, and none where regex's made one.
#[test]
fn the_ascii_word_boundary_is_the_one_deviation() {
    // (pattern, text, our whole matches, the old source's)
    let cases: [Deviation; 10] = [
        // "5k" then "é": the multiplier's `\b` holds now; regex's match stopped at "5".
        ("figures NUMBER", "5ké", Some(0..2), Some(0..1)),
        // A LONG S ends "lakhs": regex's `\b` held after it, ours does not (ſ is not ASCII \w).
        ("figures NUMBER", "5 lakh\u{17F} ", Some(0..6), Some(0..8)),
        ("figures DATE", "5 Maré", Some(0..5), None),
        ("figures DATE", "5 March 2024é", Some(0..12), Some(0..7)),
        ("figures SPELLED", "éten", Some(2..5), None),
        ("figures SPELLED", "\u{17F}ix ", None, Some(0..4)),
        ("extractive AMOUNT", "5ké", Some(0..2), None),
        ("extractive DATE", "५/५/२०२४", None, Some(0..20)),
        ("extractive DATE", "éMonday", Some(2..8), None),
        ("error wait", "try again in 7sé", Some(0..15), None),
    ];
    for (name, text, ours, old) in cases {
        let fixed = pattern(name);
        assert_eq!(
            whole(fixed, text),
            (Vec::from_iter(ours), Vec::from_iter(old)),
            "{name} on {text:?}"
        );
        assert_eq!(
            fixed.ours(text),
            fixed.oracle_ascii_b(text),
            "{name} on {text:?}"
        );
    }
}
