//! Plain-text rules the engine shares: where sentences end and what counts as a word.
//!
//! The summariser prompts state word limits, editions flag overruns, the extractive summariser
//! stays within its limit and drift shows the sentence that states a fact; all of them use the
//! two functions here, so they agree on what a word and a sentence are.

/// Words as the summariser prompts count them: runs of non-whitespace. Word limits, overrun
/// flags and the extractive summariser all use this one rule.
pub fn word_count(text: &str) -> u32 {
    text.split_whitespace().count() as u32
}

/// Splits text into sentences without breaking amounts ("₹1,20,000."), decimals ("3.5"),
/// common abbreviations ("e.g.", "Mr.", "Rs.") or initials. Line breaks also end a sentence,
/// so list items stand alone. Returned slices are trimmed and never empty.
pub fn split_sentences(text: &str) -> Vec<&str> {
    let mut sentences = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (pos, ch) = chars[i];
        if ch == '\n' {
            push_trimmed(&mut sentences, &text[start..pos]);
            start = pos + 1;
            i += 1;
            continue;
        }
        if matches!(ch, '.' | '!' | '?' | '…') {
            // Take the whole run of terminators and closing quotes or brackets.
            let mut end = i + 1;
            while end < chars.len()
                && matches!(
                    chars[end].1,
                    '.' | '!' | '?' | '…' | '"' | '\'' | ')' | ']' | '”' | '’' | '*'
                )
            {
                end += 1;
            }
            let followed_by_space = end == chars.len() || chars[end].1.is_whitespace();
            if followed_by_space && ends_sentence(text, &chars, start, i, end) {
                let cut = chars.get(end).map_or(text.len(), |&(p, _)| p);
                push_trimmed(&mut sentences, &text[start..cut]);
                start = cut;
            }
            i = end;
            continue;
        }
        i += 1;
    }
    push_trimmed(&mut sentences, &text[start..]);
    sentences
}

/// Words that end with a period without ending the sentence.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "rs", "approx",
    "inc", "ltd", "fig", "p.a", "a.m", "p.m", "u.s", "u.k",
];
fn push_trimmed<'a>(out: &mut Vec<&'a str>, piece: &'a str) {
    let piece = piece.trim();
    if !piece.is_empty() {
        out.push(piece);
    }
}

/// Decides whether the terminator run `chars[at..end]` ends the sentence that began at byte
/// `start`.
fn ends_sentence(text: &str, chars: &[(usize, char)], start: usize, at: usize, end: usize) -> bool {
    if chars[at].1 == '.' {
        // The word the period belongs to, e.g. "e.g" or "Rs" or "J".
        let word_start = chars[..at]
            .iter()
            .rposition(|&(_, c)| c.is_whitespace() || c == '(')
            .map_or(0, |i| i + 1);
        let word_from = chars
            .get(word_start)
            .map_or(text.len(), |&(p, _)| p)
            .max(start);
        let word = text[word_from..chars[at].0].to_lowercase();
        let single_initial = word.chars().count() == 1 && word.chars().all(char::is_alphabetic);
        if single_initial || ABBREVIATIONS.contains(&word.as_str()) {
            return false;
        }
    }
    // "… and then" or "3. items" with a lowercase word next is not a new sentence.
    let next = chars[end..]
        .iter()
        .map(|&(_, c)| c)
        .find(|c| !c.is_whitespace());
    !next.is_some_and(char::is_lowercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_split(text: &str, expect: &[&str]) {
        assert_eq!(split_sentences(text), expect, "{text:?}");
    }

    #[test]
    fn splitting_keeps_amounts_abbreviations_and_decimals_whole() {
        check_split(
            "Hi! I'm Chiru. My monthly take-home salary is ₹1,20,000. Thanks",
            &[
                "Hi!",
                "I'm Chiru.",
                "My monthly take-home salary is ₹1,20,000.",
                "Thanks",
            ],
        );
        check_split(
            "Use a debt fund, e.g. a liquid fund. Returns are about 6.5% p.a. in most years.",
            &[
                "Use a debt fund, e.g. a liquid fund.",
                "Returns are about 6.5% p.a. in most years.",
            ],
        );
        check_split(
            "Keep ₹1.8 L aside. Mr. Rao said so. Ask Dr. Iyer (i.e. the planner).",
            &[
                "Keep ₹1.8 L aside.",
                "Mr. Rao said so.",
                "Ask Dr. Iyer (i.e. the planner).",
            ],
        );
        check_split("Really?! Yes.", &["Really?!", "Yes."]);
        check_split(
            "He said \"stop.\" Then left.",
            &["He said \"stop.\"", "Then left."],
        );
        check_split("Options:\n- FD\n- PPF", &["Options:", "- FD", "- PPF"]);
        check_split("J. K. Rowling writes.", &["J. K. Rowling writes."]);
        check_split("Wait... then go.", &["Wait... then go."]);
        check_split("", &[]);
        check_split("  \n ", &[]);
    }

    #[test]
    fn words_are_runs_of_non_whitespace() {
        assert_eq!(word_count(""), 0);
        assert_eq!(word_count("  \n\t "), 0);
        assert_eq!(word_count("one"), 1);
        assert_eq!(word_count("take‑home ₹1,20,000\nnet,  paid"), 4);
    }
}
