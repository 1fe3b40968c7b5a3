//! Pinned facts: what the user wants every summary to keep, as a phrase or a regular
//! expression, validated once and compiled into a matcher.
//!
//! Drift tracking ([`super::drift`]) asks which editions still state each fact; the extractive
//! summariser ([`super::extractive`]) ranks sentences that state one first.

use std::ops::Range;

use super::pattern::literal::Literal;
use super::pattern::{Options, Pattern};

use super::text::split_sentences;

/// A fact the user wants every summary to keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinnedFact {
    /// What the UI calls the fact, e.g. "salary" or "no equities".
    pub label: String,
    pub pattern: FactPattern,
}

/// How a fact is recognised in a summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FactPattern {
    /// Literal text, matched case-insensitively; whitespace runs match any whitespace and a
    /// hyphen matches any dash, since models often write "fixed‑income" with U+2011.
    Phrase(String),
    /// A regular expression in `regex` crate syntax with ASCII classes (`\w`, `\d`, `\s`, `\b`
    /// and `(?i)` cover ASCII only, and there is no `\p{..}`: [`super::pattern`]), matched as
    /// written (add `(?i)` for case).
    Regex(String),
}

/// A validated fact, ready to match.
#[derive(Clone, Debug)]
pub struct CompiledFact {
    pub label: String,
    matcher: Matcher,
}

/// A phrase (and the app's own word cues) on the core's parser-free matcher; a user's regular
/// expression on `Pattern`.
#[derive(Clone, Debug)]
enum Matcher {
    Literal(Literal),
    Regex(Pattern),
}

/// Why a pinned fact cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FactError {
    /// The label is blank.
    #[error("A pinned fact needs a label. Give it a short name such as \"salary\".")]
    EmptyLabel,
    /// The phrase or pattern is blank.
    #[error("The pinned fact \"{label}\" has no text to look for. Enter a phrase or a pattern.")]
    EmptyPattern { label: String },
    /// The regular expression does not compile.
    #[error(
        "The pattern of pinned fact \"{label}\" is not a valid regular expression: {detail}. Fix it, or switch the fact to a plain phrase."
    )]
    BadRegex { label: String, detail: String },
}

impl PinnedFact {
    pub fn phrase(label: impl Into<String>, phrase: impl Into<String>) -> Self {
        PinnedFact {
            label: label.into(),
            pattern: FactPattern::Phrase(phrase.into()),
        }
    }

    pub fn regex(label: impl Into<String>, pattern: impl Into<String>) -> Self {
        PinnedFact {
            label: label.into(),
            pattern: FactPattern::Regex(pattern.into()),
        }
    }

    /// Checks the fact and builds its matcher.
    pub fn compile(&self) -> Result<CompiledFact, FactError> {
        let label = self.label.trim();
        if label.is_empty() {
            return Err(FactError::EmptyLabel);
        }
        let raw = match &self.pattern {
            FactPattern::Phrase(text) | FactPattern::Regex(text) => text,
        };
        let empty = || FactError::EmptyPattern {
            label: label.to_owned(),
        };
        if raw.trim().is_empty() {
            return Err(empty());
        }
        let matcher = match &self.pattern {
            FactPattern::Phrase(text) => Matcher::Literal(Literal::phrase(text).ok_or_else(empty)?),
            FactPattern::Regex(text) => {
                let options = Options {
                    case_insensitive: false,
                    // A user-entered pattern must not be able to exhaust memory in the browser.
                    size_limit: Some(1 << 20),
                };
                Matcher::Regex(
                    Pattern::with(text, options).map_err(|err| FactError::BadRegex {
                        label: label.to_owned(),
                        detail: err.to_string(),
                    })?,
                )
            }
        };
        Ok(CompiledFact {
            label: label.to_owned(),
            matcher,
        })
    }
}

/// Compiles every fact, stopping at the first invalid one.
pub fn compile_facts(facts: &[PinnedFact]) -> Result<Vec<CompiledFact>, FactError> {
    facts.iter().map(PinnedFact::compile).collect()
}

impl CompiledFact {
    /// A cue the app builds itself: `(?i)\\b(?:w1|w2|…)`, with `\\w*` after it when
    /// `rest_of_word` (drift's subject stem, the must-keep cues), matched without a regex
    /// parser ([`Literal::word_start`]). `None` when no word is non-empty.
    pub fn words<S: AsRef<str>>(
        label: impl Into<String>,
        words: &[S],
        rest_of_word: bool,
    ) -> Option<CompiledFact> {
        Some(CompiledFact {
            label: label.into(),
            matcher: Matcher::Literal(Literal::word_start(words, rest_of_word)?),
        })
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.find(text).is_some()
    }

    /// The byte range of the first match.
    pub fn find(&self, text: &str) -> Option<Range<usize>> {
        match &self.matcher {
            Matcher::Literal(literal) => literal.find(text),
            Matcher::Regex(regex) => regex.find(text),
        }
    }

    /// The first sentence of `text` that states the fact.
    pub fn sentence_in<'a>(&self, text: &'a str) -> Option<&'a str> {
        split_sentences(text)
            .into_iter()
            .find(|sentence| self.is_match(sentence))
            .or_else(|| {
                // A match that spans a sentence break still counts as present; show the
                // whole text rather than nothing.
                self.is_match(text).then_some(text.trim())
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiled(fact: PinnedFact) -> CompiledFact {
        fact.compile().expect("test facts are valid")
    }

    #[test]
    fn phrases_are_loose_about_case_space_and_dashes() {
        let check = |phrase: &str, text: &str, expect: bool| {
            let fact = compiled(PinnedFact::phrase("f", phrase));
            assert_eq!(fact.is_match(text), expect, "{phrase:?} in {text:?}");
        };
        check("Hard Rule", "a hard rule that", true);
        check("hard rule", "a hard\n  rule", true);
        check("fixed-income", "fixed‑income options", true);
        check("take-home", "take–home", true);
        check("₹1,20,000", "earns ₹1,20,000 net", true);
        // Regex metacharacters in a phrase are literal.
        check("(23 years)", "retire at 55 (23 years).", true);
        check("1.5", "135", false);
        check("hard rule", "hardly a rule", false);
    }

    #[test]
    fn invalid_facts_are_reported_clearly() {
        let check = |fact: PinnedFact, expect: FactError| {
            assert_eq!(fact.compile().unwrap_err(), expect);
        };
        check(PinnedFact::phrase("  ", "x"), FactError::EmptyLabel);
        check(
            PinnedFact::phrase("salary", " "),
            FactError::EmptyPattern {
                label: "salary".into(),
            },
        );
        let err = PinnedFact::regex("salary", "₹(1,20").compile().unwrap_err();
        match &err {
            FactError::BadRegex { label, detail } => {
                assert_eq!(label, "salary");
                assert!(detail.contains("without closing ')'"), "{detail}");
            }
            other => panic!("expected BadRegex, got {other:?}"),
        }
        assert!(
            err.to_string()
                .contains("switch the fact to a plain phrase")
        );
        // regex-lite has no Unicode classes: a user's `\p{L}` is a clear error naming the fact.
        let err = PinnedFact::regex("name", r"\p{L}+").compile().unwrap_err();
        match &err {
            FactError::BadRegex { label, .. } => assert_eq!(label, "name"),
            other => panic!("expected BadRegex, got {other:?}"),
        }
        assert!(err.to_string().contains("\"name\""), "{err}");
        assert!(err.to_string().contains("list the characters"), "{err}");
        // `(?i)` over Greek would fold nothing: refused, with the way round it.
        let err = PinnedFact::regex("name", "(?i)σίσυφος")
            .compile()
            .unwrap_err();
        assert!(
            err.to_string().contains("pin the fact as a phrase"),
            "{err}"
        );
        assert!(
            compile_facts(&[PinnedFact::phrase("a", "a"), PinnedFact::regex("b", "[")]).is_err()
        );
        // Regexes are matched as written: case matters unless the pattern says otherwise.
        let exact = compiled(PinnedFact::regex("r", "Hard rule"));
        assert!(!exact.is_match("hard rule"));
        assert!(compiled(PinnedFact::regex("r", "(?i)Hard rule")).is_match("hard rule"));
    }

    #[test]
    fn a_fact_finds_the_sentence_that_states_it() {
        let fact = compiled(PinnedFact::phrase("salary", "₹1,20,000"));
        let text = "Hi. My salary is ₹1,20,000. Thanks.";
        assert_eq!(fact.sentence_in(text), Some("My salary is ₹1,20,000."));
        assert_eq!(fact.find(text), Some(17..28));
        assert_eq!(fact.sentence_in("No amount here."), None);
    }
}
