//! Rule weakening: does a summary still state a rule as a rule?
//!
//! A keyword check sees "equit" in "He avoids equities" and calls the rule "never suggest
//! equities" kept. This check splits a rule into its **force** (the words that make it binding:
//! "never", "must", "only", "hard rule") and its **content** (what it is about: "equities"), finds
//! the summary sentence that holds most of the content, and reads that sentence's force:
//!
//! - **Kept**: at least half the content words (by stem) and a binding word ([`STRONG`]);
//! - **Weakened**: the content is there but no binding word is; the soft words found instead
//!   ("avoids", "prefers", "tends to", "generally", see [`SOFT`]) are listed;
//! - **Lost**: no sentence holds enough of the content.
//!
//! It reads one sentence at a time and knows nothing of negation scope or polarity ("He always
//! wants equities" would keep "never suggest equities"); it is a tripwire for the drift the
//! lesson shows, with its evidence attached, not a judge of meaning.

use crate::engine::facts::{CompiledFact, FactPattern, PinnedFact};
use crate::engine::text::split_sentences;

use crate::engine::words::{find_phrase, stem, words};

// What makes a sentence a rule is also how the topic table files a sentence under "Rules", so
// it lives below both, in `engine::words`; re-exported here, where the rule checks use it.
pub use crate::engine::words::{RULE_MARKERS, is_rule_sentence};

/// A rule the summaries should keep stating.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The rule as written: a sentence of a folded turn, or a pinned phrase.
    pub text: String,
    /// Where the rule came from.
    pub source: RuleSource,
    /// The words that make it binding, as found in `text` ("never", "hard rule").
    pub force: Vec<String>,
    /// What it is about: its remaining words, without stop words and without words that only
    /// say it is a rule ("rule", "suggest"), unless nothing else is left.
    pub content: Vec<String>,
    /// Labels of the pinned facts that match the rule's text, so a fact badge can say that its
    /// rule weakened even though its keyword was kept.
    pub pinned: Vec<String>,
}

/// Where a [`Rule`] came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleSource {
    /// A sentence of a folded turn holding "never", "always", "must", "don't", "do not" or
    /// "only".
    Turn,
    /// A pinned fact (its label) whose phrase is a rule but matches no folded sentence.
    Pinned(String),
}

/// How an edition states a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Its content and a binding word are in one sentence.
    Kept,
    /// Its content is there, its force is not.
    Weakened,
    /// Its content is not there.
    Lost,
}

/// One rule checked against one edition, with the evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleCheck {
    pub rule: Rule,
    pub verdict: Verdict,
    /// The edition's sentence that holds most of the rule's content, if any holds some.
    pub sentence: Option<String>,
    /// The rule's content words found in that sentence, and those not found.
    pub content_found: Vec<String>,
    pub content_missing: Vec<String>,
    /// Binding words in that sentence ("never", "only").
    pub strong_found: Vec<String>,
    /// Softer words in that sentence ("avoids", "prefers").
    pub soft_found: Vec<String>,
}

/// Words that keep a rule binding in a summary. "allergic" is here because "allergic to
/// equities" states an absolute aversion, which is how the lesson's user phrased the rule.
pub const STRONG: &[&[&str]] = &[
    &["never"],
    &["always"],
    &["must"],
    &["mustn't"],
    &["only"],
    &["don't"],
    &["dont"],
    &["do", "not"],
    &["does", "not"],
    &["doesn't"],
    &["will", "not"],
    &["won't"],
    &["cannot"],
    &["can't"],
    &["under", "no", "circumstances"],
    &["strictly"],
    &["hard", "rule"],
    &["forbid*"],
    &["prohibit*"],
    &["refus*"],
    &["not", "allowed"],
    &["allergic"],
];

/// Words that state a preference where a rule was: their presence without a [`STRONG`] word is
/// what a weakened rule looks like.
pub const SOFT: &[&[&str]] = &[
    &["avoid*"],
    &["prefer*"],
    &["tend*"],
    &["generally"],
    &["usually"],
    &["typically"],
    &["rather"],
    &["wary"],
    &["cautious*"],
    &["lean*"],
    &["inclin*"],
    &["ideally"],
    &["mostly"],
    &["reluctant*"],
    &["hesitant*"],
    &["dislik*"],
    &["not", "keen"],
    &["where", "possible"],
    &["if", "possible"],
];

/// The rules of the folded turns (each sentence with a rule marker, once), then the pinned
/// phrases that are rules of their own. Every rule lists the pinned facts that match its text.
pub fn rules_in(folded: &[&str], facts: &[PinnedFact]) -> Vec<Rule> {
    let mut rules = Vec::new();
    for text in folded {
        add_turn_rules(&mut rules, text);
    }
    with_pinned(&rules, &compile(facts))
}

/// Adds the rule sentences of one folded message that `rules` does not hold yet.
pub(crate) fn add_turn_rules(rules: &mut Vec<Rule>, text: &str) {
    for sentence in split_sentences(text) {
        if is_rule_sentence(sentence) && !rules.iter().any(|r| r.text == sentence) {
            rules.push(Rule::from_text(sentence, RuleSource::Turn));
        }
    }
}

/// The turns' rules annotated with the pinned facts that match them, then each pinned phrase
/// that is a rule and matches none of them.
pub(crate) fn with_pinned(turn_rules: &[Rule], facts: &Pinned<'_>) -> Vec<Rule> {
    let mut rules: Vec<Rule> = turn_rules.to_vec();
    for rule in &mut rules {
        rule.pinned = facts
            .iter()
            .filter(|(_, fact)| fact.is_match(&rule.text))
            .map(|(pinned, _)| pinned.label.clone())
            .collect();
    }
    for (fact, _) in facts {
        let FactPattern::Phrase(phrase) = &fact.pattern else {
            continue;
        };
        let anchored = rules.iter().any(|r| r.pinned.contains(&fact.label));
        if !anchored && is_rule_sentence(phrase) {
            let mut rule = Rule::from_text(phrase, RuleSource::Pinned(fact.label.clone()));
            rule.pinned = vec![fact.label.clone()];
            rules.push(rule);
        }
    }
    rules
}

/// Pinned facts with their matchers.
pub(crate) type Pinned<'a> = [(&'a PinnedFact, CompiledFact)];

/// Compiles the facts that compile; one that does not matches nothing (the policy panel
/// reports it).
pub(crate) fn compile(facts: &[PinnedFact]) -> Vec<(&PinnedFact, CompiledFact)> {
    facts
        .iter()
        .filter_map(|f| f.compile().ok().map(|c| (f, c)))
        .collect()
}

impl Rule {
    /// Splits a rule's text into force and content words.
    pub fn from_text(text: &str, source: RuleSource) -> Rule {
        let all = words(text);
        let force = phrases_in(&all, STRONG);
        let force_words: Vec<&str> = STRONG
            .iter()
            .chain(RULE_MARKERS)
            .chain(SOFT)
            .flat_map(|phrase| phrase.iter().copied())
            .collect();
        let is_force = |word: &str| {
            force_words.iter().any(|f| match f.strip_suffix('*') {
                Some(prefix) => word.starts_with(prefix),
                None => word == *f,
            })
        };
        let mut content = Vec::new();
        let mut meta = Vec::new();
        for word in &all {
            if word.chars().all(|c| c.is_ascii_digit()) || word.chars().count() < 3 {
                continue;
            }
            if STOP_WORDS.contains(&word.as_str()) || is_force(word) {
                continue;
            }
            let target = if META.contains(&stem(word).as_str()) {
                &mut meta
            } else {
                &mut content
            };
            if !target.iter().any(|w: &String| stem(w) == stem(word)) {
                target.push(word.clone());
            }
        }
        Rule {
            text: text.trim().to_owned(),
            source,
            force,
            content: if content.is_empty() { meta } else { content },
            pinned: Vec::new(),
        }
    }
}

/// Checks how `edition` states `rule`.
pub fn check_rule(rule: &Rule, edition: &str) -> RuleCheck {
    let needed = rule.content.len().div_ceil(2);
    let readings: Vec<Reading<'_>> = split_sentences(edition)
        .into_iter()
        .map(|sentence| Reading::of(rule, sentence))
        .collect();
    let enough = |reading: &Reading<'_>| {
        if rule.content.is_empty() {
            // A rule of force words alone is kept where all of them are.
            !rule.force.is_empty() && rule.force.iter().all(|f| reading.strong.contains(f))
        } else {
            reading.found.len() >= needed
        }
    };
    // The sentence that states the rule: a binding one first, then the one with most content,
    // then the earliest.
    let best = readings
        .iter()
        .enumerate()
        .filter(|(_, r)| enough(r))
        .max_by_key(|(i, r)| (!r.strong.is_empty(), r.found.len(), std::cmp::Reverse(*i)))
        .map(|(_, r)| r);
    // With no sentence holding enough, the closest one is shown as evidence of what is left.
    let closest = || {
        readings
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.found.is_empty())
            .max_by_key(|(i, r)| (r.found.len(), std::cmp::Reverse(*i)))
            .map(|(_, r)| r)
    };
    let (verdict, evidence) = match best {
        Some(r) if !r.strong.is_empty() => (Verdict::Kept, Some(r)),
        Some(r) => (Verdict::Weakened, Some(r)),
        None => (Verdict::Lost, closest()),
    };
    let evidence = evidence.cloned().unwrap_or_default();
    RuleCheck {
        content_missing: rule
            .content
            .iter()
            .filter(|w| !evidence.found.contains(w))
            .cloned()
            .collect(),
        rule: rule.clone(),
        verdict,
        sentence: evidence.sentence.map(str::to_owned),
        content_found: evidence.found,
        strong_found: evidence.strong,
        soft_found: evidence.soft,
    }
}

/// What one sentence of an edition holds of a rule.
#[derive(Clone, Debug, Default)]
struct Reading<'a> {
    sentence: Option<&'a str>,
    /// The rule's content words the sentence holds (by stem).
    found: Vec<String>,
    strong: Vec<String>,
    soft: Vec<String>,
}

impl<'a> Reading<'a> {
    fn of(rule: &Rule, sentence: &'a str) -> Reading<'a> {
        let words = words(sentence);
        let stems: Vec<String> = words.iter().map(|w| stem(w)).collect();
        Reading {
            sentence: Some(sentence),
            found: rule
                .content
                .iter()
                .filter(|w| stems.contains(&stem(w)))
                .cloned()
                .collect(),
            strong: phrases_in(&words, STRONG),
            soft: phrases_in(&words, SOFT),
        }
    }
}

/// The phrases of `list` that occur in `words`, as written in the text.
fn phrases_in(words: &[String], list: &[&[&str]]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for phrase in list {
        if let Some(start) = find_phrase(words, phrase) {
            let text = words[start..start + phrase.len()].join(" ");
            if !found.contains(&text) {
                found.push(text);
            }
        }
    }
    found
}

/// Stems of words that say a sentence is a rule, or what kind of advice it bars, without saying
/// what it is about.
const META: &[&str] = &[
    "rule", "hard", "stric", "sugge", "recom", "advis", "propo", "offer", "menti",
];

const STOP_WORDS: &[&str] = &[
    "the", "and", "i'm", "are", "was", "were", "been", "being", "mine", "you", "your", "yours",
    "its", "it's", "them", "they", "their", "she", "him", "his", "her", "hers", "our", "ours",
    "this", "that", "these", "those", "one", "with", "for", "from", "but", "not", "any", "ever",
    "please", "just", "also", "will", "would", "should", "can", "could", "does", "did", "have",
    "has", "had", "there", "here", "what", "which", "who", "whom", "about", "into", "than", "then",
    "too", "very", "want", "wants", "like", "get", "make", "keep", "okay", "let", "let's", "all",
    "some", "more", "most", "such", "when", "how", "out", "over", "under", "again", "me", "i've",
    "i'll", "i'd", "you're", "he's", "she's",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn verdicts(rule: &Rule, editions: &[&str]) -> Vec<Verdict> {
        editions
            .iter()
            .map(|e| check_rule(rule, e).verdict)
            .collect()
    }

    #[test]
    fn a_rule_splits_into_force_and_content() {
        let rule = Rule::from_text(
            "One hard rule: I am allergic to equity instruments, never suggest them.",
            RuleSource::Turn,
        );
        assert_eq!(rule.force, ["never", "hard rule", "allergic"]);
        assert_eq!(rule.content, ["equity", "instruments"]);
        // With nothing but words about rules, those words are the content.
        let rule = Rule::from_text("never suggest", RuleSource::Pinned("x".into()));
        assert_eq!(rule.content, ["suggest"]);
    }

    #[test]
    fn kept_weakened_and_lost() {
        let rule = Rule::from_text("never suggest equities", RuleSource::Pinned("x".into()));
        assert_eq!(
            verdicts(
                &rule,
                &[
                    "Chiru must never be offered equities.",
                    "He seeks only fixed income, not equity.",
                    "He avoids equities, preferring fixed income.",
                    "He tends to like debt funds. Equity is for later.",
                    "He likes debt funds.",
                    "",
                ]
            ),
            [
                Verdict::Kept,
                Verdict::Kept,
                Verdict::Weakened,
                Verdict::Weakened,
                Verdict::Lost,
                Verdict::Lost
            ]
        );
        let check = check_rule(&rule, "He avoids equities, preferring fixed income.");
        assert_eq!(check.content_found, ["equities"]);
        assert_eq!(check.soft_found, ["avoids", "preferring"]);
        assert!(check.strong_found.is_empty());
        assert_eq!(
            check.sentence.as_deref(),
            Some("He avoids equities, preferring fixed income.")
        );
    }

    #[test]
    fn the_binding_sentence_wins_over_a_softer_one() {
        let rule = Rule::from_text("Never suggest equities.", RuleSource::Turn);
        let check = check_rule(
            &rule,
            "He avoids equities. He said FinCoach must never suggest equities.",
        );
        assert_eq!(check.verdict, Verdict::Kept);
        assert_eq!(check.strong_found, ["never", "must"]);
    }

    #[test]
    fn rules_come_from_turns_and_pinned_phrases() {
        let facts = [
            PinnedFact::phrase("equity", "equit"),
            PinnedFact::phrase("never suggest", "never suggest"),
            PinnedFact::phrase("no crypto", "never buy crypto"),
            PinnedFact::phrase("salary", "1,20,000"),
        ];
        let rules = rules_in(
            &[
                "My salary is ₹1,20,000.",
                "One hard rule: I am allergic to equity instruments, never suggest them.",
                "Understood. I will only suggest fixed income.",
            ],
            &facts,
        );
        let texts: Vec<(&str, &RuleSource, Vec<&str>)> = rules
            .iter()
            .map(|r| {
                (
                    r.text.as_str(),
                    &r.source,
                    r.pinned.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            texts,
            [
                (
                    "One hard rule: I am allergic to equity instruments, never suggest them.",
                    &RuleSource::Turn,
                    vec!["equity", "never suggest"]
                ),
                (
                    "I will only suggest fixed income.",
                    &RuleSource::Turn,
                    vec![]
                ),
                (
                    "never buy crypto",
                    &RuleSource::Pinned("no crypto".into()),
                    vec!["no crypto"]
                ),
            ]
        );
    }
}
