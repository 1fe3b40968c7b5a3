//! `Pattern` against `regex::Regex` itself (a dev-dependency). With Unicode off, `regex` has
//! regex-lite's ASCII `\w`, `\d`, `\s`, `\b` and `(?i)`: there the two must agree on every match,
//! group and boundary, Unicode texts included. What only Unicode `regex` does is refused with a
//! clear error, or shown to differ exactly as the module's documentation says.

use super::*;

const PATTERNS: &[&str] = &[
    r"(?i)\bsalar\w*",
    r"(?i)\b(?:equit\w*|stock)",
    r"\b\d{4}-\d{2}-\d{2}\b",
    r"(?x) (?P<cur> ₹ | Rs\.? | \$ | € ) \s? (?P<num> [0-9]{1,3} (?: ,[0-9]{3} )* (?:\.[0-9]+)? )",
    r"(?i)maximum context length is (\d+)",
    r"try again in (?:(\d+)m)?(\d+(?:\.\d+)?)(ms|s)\b",
    r"^(?:[-*•]\s+|\d{1,2}[.)]\s+|#{1,6}\s+)",
    r"\bstraße\b",
    r"ΣΊΣΥΦΟΣ|σίσυφος",
    r"[α-ω]+",
    r"\w+",
    r"\b\w",
    r"(?i)k\b",
    r"a*",
    r"",
    r"(a)|(b)|c",
    r"(?m)^\s*$",
    r"[-\u{2010}\u{2011}]",
    r"(?i)fixed\s+income",
    r"[^a-z ]+",
];

const TEXTS: &[&str] = &[
    "",
    "My salary is ₹1,20,000 a month; SALARIES rise 5% by 2025-04-01.",
    "No equities, please: only fixed‑income and fixed income funds, $ 5,000.50 or € 20.",
    "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
    "Rate limit reached. Please try again in 1m2.5s. Or try again in 120ms.",
    "- first\n2) second\n### heading\n\n   \nlast",
    "Die STRASSE heißt Straße; sísyphos, ΣΊΣΥΦΟΣ and σίσυφος.",
    "漢字とひらがな、カタカナ and ελληνικά 42k K \u{212A}",
    "ab\u{301}c déjà vu — naïve café 😀 emoji",
    "aaa bbb ccc abc",
    "₹\u{A0}500 and 5\u{202F}% and १२३ and ５",
];

/// `regex` with regex-lite's semantics: Unicode off for a pattern that folds case (ASCII
/// folding), and otherwise each class escape made ASCII by itself (Unicode-off `regex` cannot
/// hold a non-ASCII literal or a negated class in a `str` pattern).
fn ascii_regex(source: &str) -> regex::Regex {
    let source = if source.contains("(?i") {
        assert!(source.is_ascii(), "no test folds case next to non-ASCII");
        format!("(?-u){source}")
    } else {
        [r"\w", r"\d", r"\s", r"\b"]
            .iter()
            .fold(source.to_owned(), |s, class| {
                s.replace(class, &format!("(?-u:{class})"))
            })
    };
    regex::Regex::new(&source).expect("the test patterns are valid")
}

fn spans(caps: &regex::Captures<'_>) -> Vec<Option<Range<usize>>> {
    caps.iter().map(|m| m.map(|m| m.range())).collect()
}

fn ours(caps: &Captures<'_>, groups: usize) -> Vec<Option<Range<usize>>> {
    (0..groups)
        .map(|i| caps.get(i).map(|m| m.range()))
        .collect()
}

#[test]
fn matches_and_groups_are_ascii_regexs_on_every_pattern_and_text() {
    for source in PATTERNS {
        let theirs = ascii_regex(source);
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
fn the_ascii_classes_differ_from_unicode_regex_as_documented() {
    let find = |source: &str, text: &str| Pattern::new(source).unwrap().find(text);
    // `\w` and `\b` stop at a letter outside ASCII, where Unicode `regex` goes on.
    assert_eq!(find(r"\bsalar\w*", "salarié"), Some(0..6));
    assert_eq!(
        regex::Regex::new(r"\bsalar\w*")
            .unwrap()
            .find("salarié")
            .map(|m| m.range()),
        Some(0..8)
    );
    // `\s` and `\d` are ASCII: no-break spaces and other scripts' digits are not in them.
    assert_eq!(find(r"5\s%", "5\u{A0}%"), None);
    assert_eq!(find(r"\d+", "१२३"), None);
    // `(?i)` does not fold the Kelvin sign into k.
    assert_eq!(find(r"(?i)k", "\u{212A}"), None);
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
fn the_case_insensitive_option_is_ascii_regexs() {
    let options = Options {
        case_insensitive: true,
        size_limit: Some(1 << 20),
    };
    for source in ["strasse", r"fixed\s+income", "k", "₹1,20,000"] {
        let theirs = regex::RegexBuilder::new(source)
            .unicode(false)
            .case_insensitive(true)
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
fn case_folding_over_a_letter_outside_ascii_is_refused_by_name() {
    let options = Options {
        case_insensitive: true,
        size_limit: None,
    };
    for (source, options, letter) in [
        ("(?i)ΣΊΣΥΦΟΣ", Options::default(), 'Σ'),
        ("(?xi: straße )", Options::default(), 'ß'),
        ("(?i-s)a.b|é", Options::default(), 'é'),
        ("déjà", options, 'é'),
    ] {
        let err = Pattern::with(source, options).unwrap_err();
        assert_eq!(err, PatternError::CaseOutsideAscii(letter), "{source}");
        assert!(err.to_string().contains("both cases"), "{err}");
    }
    // Letters without case, symbols, and flags that do not turn folding on are fine.
    for source in [
        "(?i)₹ ?[0-9]+",
        "(?i)漢字 salary",
        "(?s-i)ΣΊΣΥΦΟΣ",
        "(?x) ΣΊΣΥΦΟΣ",
        "ΣΊΣΥΦΟΣ",
    ] {
        assert!(Pattern::new(source).is_ok(), "{source}");
    }
}

#[test]
fn unicode_classes_are_refused_with_their_own_words() {
    for source in [r"\p{L}+", r"[\P{Greek}a]", r"x|\p{Han}"] {
        let err = Pattern::new(source).unwrap_err();
        assert_eq!(err, PatternError::UnicodeClass, "{source}");
        assert!(err.to_string().contains(r"\p{L}"), "{err}");
    }
    // An escaped backslash before a p is a literal backslash and a p.
    let literal = Pattern::new(r"\\p\{L\}").unwrap();
    assert_eq!(literal.find(r"a \p{L}"), Some(2..7));
}

#[test]
fn syntax_errors_are_refused_with_a_reason() {
    for source in [
        r"(unclosed",
        r"[z-a]",
        r"a{2,1}",
        r"(?P<n>a)(?P<n>b)",
        r"\q",
    ] {
        assert!(regex::Regex::new(source).is_err(), "{source} is invalid");
        match Pattern::new(source).unwrap_err() {
            PatternError::Syntax(reason) => assert!(!reason.trim().is_empty(), "{source}"),
            other => panic!("{source}: {other:?}"),
        }
    }
    // A user's pattern past the size limit is refused, not built.
    let options = Options {
        case_insensitive: false,
        size_limit: Some(1 << 20),
    };
    let huge = r"[a-z]{1000}{1000}";
    assert!(matches!(
        Pattern::with(huge, options),
        Err(PatternError::Syntax(_))
    ));
}

#[test]
fn escape_is_regexs() {
    let text = r"1.5 (x+y)*[z]? ^$ \d {2} | # -";
    assert_eq!(escape(text), regex::escape(text));
    let pattern = Pattern::new(&escape(text)).unwrap();
    assert_eq!(pattern.find(text), Some(0..text.len()));
}
