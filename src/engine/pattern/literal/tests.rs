//! `Literal` against `regex::Regex` on the pattern strings it replaces (the oracle): the same
//! match ranges on random phrases, words and texts over a Unicode-heavy alphabet.

use super::*;
use proptest::prelude::*;

/// The regex `facts::phrase_pattern` wrote for a phrase, compiled case-insensitively.
fn phrase_regex(phrase: &str) -> regex::Regex {
    let mut pattern = String::new();
    let mut in_space = false;
    for ch in phrase.trim().chars() {
        if ch.is_whitespace() {
            if !in_space {
                pattern.push_str(r"\s+");
            }
            in_space = true;
            continue;
        }
        in_space = false;
        if is_dash(ch) {
            pattern.push_str("[-\u{2010}\u{2011}\u{2012}\u{2013}\u{2014}]");
        } else {
            pattern.push_str(&regex::escape(ch.encode_utf8(&mut [0; 4])));
        }
    }
    regex::RegexBuilder::new(&pattern)
        .case_insensitive(true)
        .build()
        .unwrap()
}

/// The regex drift (`(?i)\b{stem}\w*`) and the must-keep cues (`(?i)\b(?:w1|w2|…)`) wrote.
fn word_regex(words: &[String], rest_of_word: bool) -> regex::Regex {
    let words: Vec<String> = words.iter().map(|w| regex::escape(w)).collect();
    let tail = if rest_of_word { r"\w*" } else { "" };
    regex::Regex::new(&format!(r"(?i)\b(?:{}){tail}", words.join("|"))).unwrap()
}

const ALPHABET: &[char] = &[
    'a', 'A', 'e', 'é', 'É', 'k', 'K', '\u{212A}', 's', 'S', 'ſ', 'ß', 'ẞ', 'i', 'I', 'ı', 'İ',
    'σ', 'Σ', 'ς', 'θ', 'ϑ', 'д', 'Д', 'ё', 'Ё', 'क', 'ि', '्', 'ष', '日', '本', '0', '7', '٣', '_',
    '-', '\u{2010}', '\u{2013}', '\u{2014}', '\u{2212}', ' ', '\t', '\n', '\u{A0}', '\u{202F}',
    '\u{3000}', '.', ',', '%', '₹', '\u{301}', '\u{200D}',
];

fn text_of(len: std::ops::Range<usize>) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(ALPHABET), len)
        .prop_map(|chars| chars.into_iter().collect())
}

fn assert_phrase(phrase: &str, text: &str) {
    let oracle = phrase_regex(phrase);
    let ours = Literal::phrase(phrase);
    match ours {
        Some(ours) => assert_eq!(
            ours.find(text),
            oracle.find(text).map(|m| m.range()),
            "phrase {phrase:?} in {text:?}"
        ),
        None => assert!(phrase.trim().is_empty()),
    }
}

fn assert_words(words: &[String], rest: bool, text: &str) {
    let oracle = word_regex(words, rest);
    let ours = Literal::word_start(words, rest).unwrap();
    assert_eq!(
        ours.find(text),
        oracle.find(text).map(|m| m.range()),
        "words {words:?} (rest {rest}) in {text:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn phrases_match_as_the_regex_did(phrase in text_of(1..4), text in text_of(0..24)) {
        assert_phrase(&phrase, &text);
    }

    #[test]
    fn a_phrase_taken_from_the_text_is_found_as_the_regex_finds_it(
        text in text_of(1..24), a in 0usize..24, len in 1usize..6,
    ) {
        let chars: Vec<char> = text.chars().collect();
        let a = a % chars.len();
        let phrase: String = chars[a..(a + len).min(chars.len())].iter().collect();
        assert_phrase(&phrase, &text);
    }

    #[test]
    fn word_starts_match_as_the_regex_did(
        words in proptest::collection::vec(text_of(1..3), 1..3),
        rest in any::<bool>(),
        text in text_of(0..24),
    ) {
        assert_words(&words, rest, &text);
    }
}

#[test]
fn the_app_s_own_phrases_and_stems_match_as_the_regex_did() {
    let texts = [
        "Salary: ₹1,20,000 per month. Stay away from equities; about 25 % in equity.",
        "The client's risk‑profile is moderate — no stocks, RULES apply.",
        "STRASSE Straße straße ſtraße, Kelvin \u{212A}elvin, ΣΊΣΥΦΟΣ σίσυφος",
        "निवेश का जोखिम प्रोफ़ाइल; 日本の株式",
    ];
    let phrases = [
        "risk profile",
        "risk-profile",
        "straße",
        "σίσυφος",
        "जोखिम प्रोफ़ाइल",
    ];
    let stems = ["equit", "salar", "stock", "rule", "kelvin", "स्ट"];
    for text in texts {
        for phrase in phrases {
            assert_phrase(phrase, text);
        }
        for stem in stems {
            assert_words(&[stem.to_owned()], true, text);
        }
        let cues: Vec<String> = stems.iter().map(|s| (*s).to_owned()).collect();
        assert_words(&cues, false, text);
    }
}

#[test]
fn word_characters_and_white_space_are_regex_s() {
    let word = regex::Regex::new(r"^\w$").unwrap();
    let space = regex::Regex::new(r"^\s$").unwrap();
    let mut buf = [0; 4];
    for ch in (0..=0x10FFFFu32).step_by(7).filter_map(char::from_u32) {
        let s = ch.encode_utf8(&mut buf);
        assert_eq!(is_word(ch), word.is_match(s), "{ch:?}");
        assert_eq!(ch.is_whitespace(), space.is_match(s), "{ch:?}");
    }
}
