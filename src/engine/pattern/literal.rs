//! `Literal`: the patterns the app builds itself (a pinned phrase, drift's subject stem, the
//! must-keep cues) matched without a regex parser, with the regex's own Unicode semantics, so
//! that no code in the page's first load parses a pattern (docs/size.md, issue #37).
//!
//! - [`Literal::phrase`] is what `facts::phrase_pattern` (before this matcher) wrote as a regex: each character
//!   case-insensitively (`(?i)`), a whitespace run as `\s+`, a dash as any dash.
//! - [`Literal::word_start`] is `(?i)\b(?:w1|w2|…)`, and with `rest_of_word`, `\w*` after it.
//!
//! Case folding is regex-syntax's own simple case folding (`ClassUnicode::case_fold_simple`,
//! the table the `(?i)` flag uses), a word character is regex-syntax's own `\w`
//! (`is_word_character`) and `\s` is `char::is_whitespace` (Unicode White_Space, the set
//! regex's `\s` is): only those two tables are reached, not the parser nor the other property
//! tables. The tests compare every match with `regex::Regex` on the old pattern strings.

use std::ops::Range;

use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};

/// A matcher for an app-built pattern; see the module's doc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Literal {
    /// A phrase's units, in order.
    Phrase(Vec<Unit>),
    /// Alternatives tried in order at a word boundary, each as its characters' case orbits.
    WordStart {
        words: Vec<Vec<Vec<char>>>,
        rest_of_word: bool,
    },
}

/// One unit of a phrase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unit {
    /// One or more whitespace characters (`\s+`).
    Space,
    /// Any of the dashes `-`, U+2010 to U+2014.
    Dash,
    /// Any character of this case orbit.
    Char(Vec<char>),
}

/// The dashes a phrase's dash matches.
pub fn is_dash(ch: char) -> bool {
    matches!(ch, '-' | '\u{2010}'..='\u{2014}')
}

/// Whether `ch` is a word character as regex's Unicode `\w` defines it.
pub fn is_word(ch: char) -> bool {
    regex_syntax::is_word_character(ch)
}

/// Every character `(?i)` lets `ch` match, `ch` included, sorted.
pub fn case_orbit(ch: char) -> Vec<char> {
    let mut class = ClassUnicode::new([ClassUnicodeRange::new(ch, ch)]);
    class.case_fold_simple();
    class
        .iter()
        .flat_map(|range| range.start()..=range.end())
        .collect()
}

fn orbits(word: &str) -> Vec<Vec<char>> {
    word.chars().map(case_orbit).collect()
}

impl Literal {
    /// The phrase matcher (the phrase is trimmed; `None` when nothing is left).
    pub fn phrase(phrase: &str) -> Option<Literal> {
        let mut units = Vec::new();
        for ch in phrase.trim().chars() {
            if ch.is_whitespace() {
                if units.last() != Some(&Unit::Space) {
                    units.push(Unit::Space);
                }
            } else if is_dash(ch) {
                units.push(Unit::Dash);
            } else {
                units.push(Unit::Char(case_orbit(ch)));
            }
        }
        (!units.is_empty()).then_some(Literal::Phrase(units))
    }

    /// `(?i)\b(?:w1|w2|…)`, and `\w*` after it with `rest_of_word` (`None` when no word is
    /// non-empty).
    pub fn word_start<S: AsRef<str>>(words: &[S], rest_of_word: bool) -> Option<Literal> {
        let words: Vec<Vec<Vec<char>>> = words
            .iter()
            .map(|w| orbits(w.as_ref()))
            .filter(|w| !w.is_empty())
            .collect();
        (!words.is_empty()).then_some(Literal::WordStart {
            words,
            rest_of_word,
        })
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.find(text).is_some()
    }

    /// The byte range of the leftmost-first match, as the regex finds it.
    pub fn find(&self, text: &str) -> Option<Range<usize>> {
        let starts = text.char_indices().map(|(i, _)| i);
        for start in starts {
            if let Some(end) = self.match_at(text, start) {
                return Some(start..end);
            }
        }
        None
    }

    fn match_at(&self, text: &str, start: usize) -> Option<usize> {
        match self {
            Literal::Phrase(units) => phrase_at(units, text, start),
            Literal::WordStart {
                words,
                rest_of_word,
            } => {
                let before = text[..start].chars().next_back();
                let end = words.iter().find_map(|word| {
                    let first = text[start..].chars().next()?;
                    let boundary = before.is_some_and(is_word) != is_word(first);
                    boundary.then(|| chars_at(word, text, start)).flatten()
                })?;
                if !*rest_of_word {
                    return Some(end);
                }
                let rest: usize = text[end..]
                    .chars()
                    .take_while(|ch| is_word(*ch))
                    .map(char::len_utf8)
                    .sum();
                Some(end + rest)
            }
        }
    }
}

fn chars_at(word: &[Vec<char>], text: &str, start: usize) -> Option<usize> {
    let mut at = start;
    let mut chars = text[start..].chars();
    for orbit in word {
        let ch = chars.next()?;
        if !orbit.contains(&ch) {
            return None;
        }
        at += ch.len_utf8();
    }
    Some(at)
}

fn phrase_at(units: &[Unit], text: &str, start: usize) -> Option<usize> {
    let mut at = start;
    for unit in units {
        let mut chars = text[at..].chars();
        let ch = chars.next()?;
        match unit {
            // Greedy `\s+` never gives back: the next unit is never whitespace.
            Unit::Space => {
                if !ch.is_whitespace() {
                    return None;
                }
                at += text[at..]
                    .chars()
                    .take_while(|c| c.is_whitespace())
                    .map(char::len_utf8)
                    .sum::<usize>();
            }
            Unit::Dash if is_dash(ch) => at += ch.len_utf8(),
            Unit::Char(orbit) if orbit.contains(&ch) => at += ch.len_utf8(),
            _ => return None,
        }
    }
    Some(at)
}

#[cfg(test)]
mod tests;
