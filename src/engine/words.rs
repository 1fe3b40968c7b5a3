//! Words as the rule and name checks compare them: lower-cased runs of letters, digits and
//! apostrophes, and a crude prefix stem so that "equity" and "equities", "suggest" and
//! "suggestions" meet; and what makes a sentence a rule ([`is_rule_sentence`]), which the rule
//! checks ([`crate::engine::checks::rules`]) and the topic table ([`crate::engine::sections`])
//! share. It sits below both, so neither imports the other.
//!
//! The stem is the first five letters (shorter words lose a plural "s"). A Snowball stemmer would
//! be finer, but this is enough to pair a rule's words with a summary's paraphrase of them, and it
//! keeps the core free of another dependency.

/// Words that make a sentence a rule when it is found in a turn.
pub const RULE_MARKERS: &[&[&str]] = &[
    &["never"],
    &["always"],
    &["must"],
    &["mustn't"],
    &["don't"],
    &["dont"],
    &["do", "not"],
    &["only"],
];

/// Whether a sentence states a rule: it holds one of [`RULE_MARKERS`].
pub fn is_rule_sentence(sentence: &str) -> bool {
    let words = words(sentence);
    RULE_MARKERS
        .iter()
        .any(|marker| find_phrase(&words, marker).is_some())
}

/// The words of `text`, lower-cased, in order. Curly apostrophes become straight ones, so
/// "don’t" is "don't".
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut current = String::new();
    for ch in text.chars() {
        let ch = if ch == '\u{2019}' { '\'' } else { ch };
        if ch.is_alphanumeric() || (ch == '\'' && !current.is_empty()) {
            current.extend(ch.to_lowercase());
        } else if !current.is_empty() {
            found.push(
                std::mem::take(&mut current)
                    .trim_end_matches('\'')
                    .to_owned(),
            );
        }
    }
    if !current.is_empty() {
        found.push(current.trim_end_matches('\'').to_owned());
    }
    found
}

/// The words of `text` as written (case kept), without the possessive "'s".
pub(crate) fn raw_words(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .map(|w| w.trim_matches(|c| c == '\'' || c == '\u{2019}'))
        .map(|w| {
            w.strip_suffix("'s")
                .or_else(|| w.strip_suffix("\u{2019}s"))
                .unwrap_or(w)
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// A crude stem: the first five characters, or a short word without its plural "s".
pub(crate) fn stem(word: &str) -> String {
    let chars: Vec<char> = word.chars().collect();
    if chars.len() > 5 {
        return chars[..5].iter().collect();
    }
    if chars.len() > 3 && chars.last() == Some(&'s') {
        return chars[..chars.len() - 1].iter().collect();
    }
    word.to_owned()
}

/// Where the word sequence `needle` starts in `haystack`, word by word; a `*` at the end of a
/// needle word matches any word starting with it.
pub(crate) fn find_phrase(haystack: &[String], needle: &[&str]) -> Option<usize> {
    if needle.is_empty() || needle.len() > haystack.len() {
        return None;
    }
    (0..=haystack.len() - needle.len()).find(|&start| {
        needle.iter().enumerate().all(|(i, pattern)| {
            let word = &haystack[start + i];
            match pattern.strip_suffix('*') {
                Some(prefix) => word.starts_with(prefix),
                None => word == pattern,
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_stems_and_phrases() {
        assert_eq!(
            words("Don’t suggest fixed‑income; it's Chiru's!"),
            ["don't", "suggest", "fixed", "income", "it's", "chiru's"]
        );
        assert_eq!(raw_words("Chiru’s PPF, 'FD'"), ["Chiru", "PPF", "FD"]);
        assert_eq!(stem("equities"), stem("equity"));
        assert_eq!(stem("suggestions"), stem("suggest"));
        assert_eq!(stem("rules"), stem("rule"));
        assert_ne!(stem("fund"), stem("funny"));
        let hay = words("he does not want equities");
        assert_eq!(find_phrase(&hay, &["does", "not"]), Some(1));
        assert_eq!(find_phrase(&hay, &["equit*"]), Some(4));
        assert_eq!(find_phrase(&hay, &["not", "keen"]), None);
    }

    /// The topic table asked the rule checks whether a sentence was a rule, and the rule checks
    /// read the topic sections: the two folders imported each other. The rule test lives here
    /// now, below both, and reads curly apostrophes as straight ones.
    #[test]
    fn a_sentence_with_a_rule_marker_states_a_rule() {
        for rule in [
            "Never suggest equities.",
            "Don’t touch the emergency fund",
            "Keep it only in the PPF.",
            "You do not sell gold",
        ] {
            assert!(is_rule_sentence(rule), "{rule}");
        }
        for plain in ["He prefers index funds.", "Notably, the fund grew", ""] {
            assert!(!is_rule_sentence(plain), "{plain}");
        }
    }
}
