//! Drift tracking: which pinned facts ([`super::facts`]) each summary edition still states, the
//! sentence that states them, and a word-level diff between consecutive editions (computed with
//! the `similar` crate).
//!
//! A keyword check alone misses weakening ("a hard rule that he is allergic to equity
//! instruments" becomes "He avoids equities"), so every track also carries the sentence that
//! matched, for the UI to show side by side.

use similar::{Algorithm, ChangeTag, TextDiff};

use super::text::split_sentences;

/// Pinned facts live in [`super::facts`]; these paths stay for existing callers.
pub use super::facts::{CompiledFact, FactError, FactPattern, PinnedFact, compile_facts};

/// Where one fact stands across the editions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactTrack {
    pub label: String,
    /// One entry per edition: does it state the fact?
    pub kept: Vec<bool>,
    /// The first edition (1-based cycle) that does not state the fact; `None` if all do.
    pub first_lost: Option<usize>,
    /// Per edition, the sentence that states the fact, so wording changes can be read.
    pub sentences: Vec<Option<String>>,
}

/// Which side of a diff a piece of text belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffKind {
    Equal,
    Added,
    Removed,
}

/// A run of text with one [`DiffKind`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffSegment {
    pub kind: DiffKind,
    pub text: String,
}

/// A word-level diff between two editions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WordDiff {
    /// Segments in reading order; concatenating the Equal and Removed ones gives the old text,
    /// the Equal and Added ones the new text.
    pub segments: Vec<DiffSegment>,
    pub added_words: usize,
    pub removed_words: usize,
}

/// For each fact, whether each summary edition states it and where it was first lost.
pub fn fact_presence(facts: &[CompiledFact], summaries: &[&str]) -> Vec<FactTrack> {
    facts
        .iter()
        .map(|fact| {
            let sentences: Vec<Option<String>> = summaries
                .iter()
                .map(|summary| fact.sentence_in(summary).map(str::to_owned))
                .collect();
            let kept: Vec<bool> = sentences.iter().map(Option::is_some).collect();
            let first_lost = kept.iter().position(|&k| !k).map(|i| i + 1);
            FactTrack {
                label: fact.label.clone(),
                kept,
                first_lost,
                sentences,
            }
        })
        .collect()
}

/// How one edition states one pinned fact, read against what the folded turns said of it.
/// A badge's colour and words come from this, so a keyword that matched never reads as kept
/// when the check found otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FactVerdict {
    /// No folded turn states the fact yet, and the edition does not either.
    NotYet,
    /// The edition states it as the folded turns did.
    Kept,
    /// Its words are there, the force of its rule is not (the rule check's verdict).
    Weakened,
    /// A folded turn keeps away from it ("stay away from equity") and the edition puts weight
    /// on it ("about 25 % in equity"): the summary states the opposite.
    Contradicted,
    /// A folded turn states it and the edition does not.
    Lost,
}

impl FactVerdict {
    /// The value of a badge's `data-verdict`, and its class.
    pub fn slug(self) -> &'static str {
        match self {
            FactVerdict::NotYet => "not-yet",
            FactVerdict::Kept => "kept",
            FactVerdict::Weakened => "weakened",
            FactVerdict::Contradicted => "contradicted",
            FactVerdict::Lost => "lost",
        }
    }
}

/// How `edition` states `fact`, given the messages folded into it so far (`folded`) and
/// whether the rule check found the fact's rule weakened in it (`weakened`).
///
/// Contradiction is read from the few words before each match, one sentence at a time: an
/// aversion word ([`AVERSE`]: "never", "avoid", "stay away from", "keep clear of") makes a
/// sentence keep away from the fact; with none, an allocation cue ([`ENDORSE`]: a figure, "in",
/// "invest", "recommend") makes it put weight on it. A folded sentence that keeps away, against
/// an edition whose every sentence on the fact puts weight on it, is a contradiction. Like the
/// rule check it is a tripwire with its evidence attached, not a judge of meaning.
pub fn fact_verdict(
    fact: &CompiledFact,
    edition: &str,
    folded: &[&str],
    weakened: bool,
) -> FactVerdict {
    let stated_before = folded.iter().any(|text| fact.is_match(text));
    if !fact.is_match(edition) {
        return if stated_before {
            FactVerdict::Lost
        } else {
            FactVerdict::NotYet
        };
    }
    let averse_before = folded
        .iter()
        .flat_map(|text| split_sentences(text))
        .any(|sentence| stance(fact, sentence) == Some(Stance::Averse));
    let stances: Vec<Stance> = split_sentences(edition)
        .into_iter()
        .filter_map(|sentence| stance(fact, sentence))
        .collect();
    let endorsed = !stances.is_empty() && stances.iter().all(|s| *s == Stance::Endorses);
    if averse_before && endorsed {
        FactVerdict::Contradicted
    } else if weakened {
        FactVerdict::Weakened
    } else {
        FactVerdict::Kept
    }
}

/// How `edition` states the prompt's must-keep item `item`, given the messages folded into it
/// so far (`folded`).
///
/// A must-keep item is an instruction to the summariser ("stay away from equity", "no
/// equities", "risk profile"), so it is read twice. As a phrase, by [`fact_verdict`] (kept, lost,
/// not stated yet, or contradicted where a folded turn kept away from it). And when the item
/// itself keeps away from a subject (an [`AVERSE`] word before it: "stay away from *equity*"),
/// an edition whose every sentence on that subject puts weight on it ("about 25 % in equity")
/// states the opposite of the item: contradicted, whatever words the folded turns used.
pub fn must_keep_verdict(item: &str, edition: &str, folded: &[&str]) -> FactVerdict {
    // `(?i)\b{stem}\w*`, matched without a regex parser.
    let subject = averse_subject(item).and_then(|stem| CompiledFact::words(item, &[stem], true));
    if let Some(subject) = subject {
        let stances: Vec<Stance> = split_sentences(edition)
            .into_iter()
            .filter_map(|sentence| stance(&subject, sentence))
            .collect();
        if !stances.is_empty() && stances.iter().all(|s| *s == Stance::Endorses) {
            return FactVerdict::Contradicted;
        }
    }
    match PinnedFact::phrase(item, item).compile() {
        Ok(whole) => fact_verdict(&whole, edition, folded, false),
        // An item with no words to match (blank) is never stated.
        Err(_) => FactVerdict::NotYet,
    }
}

/// Words of a must-keep item between its aversion word and its subject ("stay away *from*
/// equity", "never *suggest* equities"), passed over to reach the subject.
const SUBJECT_SKIP: &[&str] = &[
    "from", "of", "the", "a", "an", "to", "any", "all", "for", "on", "with", "about", "mention*",
    "use", "using", "touch*", "go", "going", "talk*", "discuss*",
];

/// The stem of the subject a must-keep item keeps away from ("equit" for "stay away from
/// equity" or "no equities"), or `None` when the item keeps away from nothing.
fn averse_subject(item: &str) -> Option<String> {
    let words: Vec<String> = item
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';' || c == ':')
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let cue = words.iter().rposition(|w| is_cue(AVERSE, w))?;
    let subject = words[cue + 1..]
        .iter()
        .find(|w| !is_cue(AVERSE, w) && !is_cue(ENDORSE, w) && !is_cue(SUBJECT_SKIP, w))?;
    let stem = subject
        .strip_suffix("ies")
        .or_else(|| subject.strip_suffix('y'))
        .or_else(|| subject.strip_suffix('s'))
        .unwrap_or(subject);
    (stem.chars().count() >= 3).then(|| stem.to_owned())
}

/// Whether `word` is one of `list`'s cues (a `*` ends a prefix).
fn is_cue(list: &[&str], word: &str) -> bool {
    list.iter().any(|cue| match cue.strip_suffix('*') {
        Some(prefix) => word.starts_with(prefix),
        None => word == *cue,
    })
}

/// Words that, just before a fact, keep a sentence away from it. A `*` ends a prefix.
pub const AVERSE: &[&str] = &[
    "never", "not", "no", "don't", "dont", "avoid*", "away", "clear", "steer*", "allergic",
    "without", "except", "refus*", "exclud*", "prefer*", "rather", "wary", "against", "nothing",
];

/// Words that, just before a fact and with no [`AVERSE`] word, put weight on it: a figure is
/// one too.
pub const ENDORSE: &[&str] = &[
    "in",
    "into",
    "invest*",
    "buy*",
    "allocat*",
    "put",
    "add*",
    "recommend*",
    "suggest*",
    "start*",
    "increas*",
    "more",
    "heav*",
    "switch*",
    "move*",
];

/// How many words before a match are read for its stance.
const STANCE_WINDOW: usize = 5;

/// Where a sentence stands on a fact it mentions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stance {
    Averse,
    Endorses,
    Neutral,
}

/// The stance of `sentence` on `fact`, or `None` when it does not mention it.
fn stance(fact: &CompiledFact, sentence: &str) -> Option<Stance> {
    let at = fact.find(sentence)?;
    let before: Vec<String> = sentence[..at.start]
        .split(|c: char| c.is_whitespace() || c == ',' || c == ';' || c == ':' || c == '(')
        .filter(|w| !w.is_empty())
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '%' && c != '\'')
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let window = &before[before.len().saturating_sub(STANCE_WINDOW)..];
    Some(if window.iter().any(|w| is_cue(AVERSE, w)) {
        Stance::Averse
    } else if window
        .iter()
        .any(|w| is_cue(ENDORSE, w) || w.chars().any(|c| c.is_ascii_digit()) || w == "%")
    {
        Stance::Endorses
    } else {
        Stance::Neutral
    })
}

/// Diffs two editions word by word (whitespace is kept as its own token, so the segments
/// reproduce both texts exactly).
pub fn word_diff(old: &str, new: &str) -> WordDiff {
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Patience)
        .diff_words(old, new);
    let mut result = WordDiff::default();
    for change in diff.iter_all_changes() {
        let kind = match change.tag() {
            ChangeTag::Equal => DiffKind::Equal,
            ChangeTag::Insert => DiffKind::Added,
            ChangeTag::Delete => DiffKind::Removed,
        };
        let text = change.value();
        let is_word = !text.trim().is_empty();
        match kind {
            DiffKind::Added if is_word => result.added_words += 1,
            DiffKind::Removed if is_word => result.removed_words += 1,
            _ => {}
        }
        match result.segments.last_mut() {
            Some(last) if last.kind == kind => last.text.push_str(text),
            _ => result.segments.push(DiffSegment {
                kind,
                text: text.to_owned(),
            }),
        }
    }
    result
}

/// Diffs each edition against the one before it: `editions.len() - 1` diffs.
pub fn edition_diffs(editions: &[&str]) -> Vec<WordDiff> {
    editions
        .windows(2)
        .map(|pair| word_diff(pair[0], pair[1]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // The three summaries of the seed's drift run (cycles 1 to 3), as the model wrote them,
    // non-breaking hyphens included.
    const CYCLE_1: &str = "Chiru earns a monthly take‑home salary of ₹1,20,000 and incurs ₹60,000 in expenses, leaving a surplus of ₹60,000 each month. He explicitly states a hard rule that he is allergic to equity instruments and requests only fixed‑income investment suggestions.";
    const CYCLE_2: &str = "Chiru, 32, earns a take‑home salary of ₹1,20,000 and spends ₹60,000 monthly, leaving a ₹60,000 surplus. He is allergic to equity instruments and seeks only fixed‑income options. He aims to retire at 55, giving 23 years to build a corpus. He holds an FD of ₹50,000 maturing in three months; FinCoach advised he can either renew it or transfer the proceeds to a PPF account.";
    const CYCLE_3: &str = "Chiru, 32, earns ₹1,20,000 take‑home and spends ₹60,000 monthly, leaving a ₹60,000 surplus. He avoids equities, preferring fixed‑income. He aims to retire at 55 (23 years). He holds an FD of ₹50,000 maturing in three months; FinCoach suggested renewing it or moving the proceeds to a PPF account. Chiru asked about PPF vs NPS; FinCoach explained PPF is a 15‑year government‑backed savings scheme, while NPS is a pension scheme. Chiru decided to open a PPF account this month with regular monthly contributions.";

    fn compiled(fact: PinnedFact) -> CompiledFact {
        fact.compile().expect("test facts are valid")
    }

    fn check_presence(fact: PinnedFact, expect_kept: &[bool], expect_first_lost: Option<usize>) {
        let tracks = fact_presence(&[compiled(fact.clone())], &[CYCLE_1, CYCLE_2, CYCLE_3]);
        assert_eq!(tracks[0].kept, expect_kept, "{fact:?}");
        assert_eq!(tracks[0].first_lost, expect_first_lost, "{fact:?}");
    }

    #[test]
    fn seed_drift_run() {
        // The seed's keyword check: "equit" survives all three cycles.
        check_presence(
            PinnedFact::phrase("equity", "equit"),
            &[true, true, true],
            None,
        );
        // The rule's force does not: "hard rule" is gone from cycle 2 on.
        check_presence(
            PinnedFact::phrase("hard rule", "hard rule"),
            &[true, false, false],
            Some(2),
        );
        // "allergic" survives cycle 2 and is lost at cycle 3, where it became "avoids".
        check_presence(
            PinnedFact::phrase("allergic", "allergic to equity"),
            &[true, true, false],
            Some(3),
        );
        // The user's own words never made it into any summary.
        check_presence(
            PinnedFact::phrase("never suggest", "never suggest"),
            &[false, false, false],
            Some(1),
        );
        check_presence(
            PinnedFact::regex("salary", r"₹1,20,000"),
            &[true, true, true],
            None,
        );
        // The retirement age only arrives in the second batch.
        check_presence(
            PinnedFact::regex("retire at 55", r"retire\w* (at|by) 55"),
            &[false, true, true],
            Some(1),
        );
    }

    #[test]
    fn sentences_show_the_weakening() {
        let fact = compiled(PinnedFact::phrase("equity", "equit"));
        let track = &fact_presence(&[fact], &[CYCLE_1, CYCLE_2, CYCLE_3])[0];
        assert_eq!(
            track.sentences,
            vec![
                Some("He explicitly states a hard rule that he is allergic to equity instruments and requests only fixed‑income investment suggestions.".to_owned()),
                Some("He is allergic to equity instruments and seeks only fixed‑income options.".to_owned()),
                Some("He avoids equities, preferring fixed‑income.".to_owned()),
            ]
        );
    }

    fn rebuild(diff: &WordDiff, keep: DiffKind) -> String {
        diff.segments
            .iter()
            .filter(|s| s.kind == DiffKind::Equal || s.kind == keep)
            .map(|s| s.text.as_str())
            .collect()
    }

    #[test]
    fn word_diff_of_the_weakened_rule() {
        let old = "He is allergic to equity instruments and seeks only fixed‑income options.";
        let new = "He avoids equities, preferring fixed‑income.";
        let diff = word_diff(old, new);
        assert_eq!(rebuild(&diff, DiffKind::Removed), old);
        assert_eq!(rebuild(&diff, DiffKind::Added), new);
        assert_eq!(
            diff.segments[0],
            DiffSegment {
                kind: DiffKind::Equal,
                text: "He ".into()
            }
        );
        assert_eq!(diff.added_words, 4);
        assert_eq!(diff.removed_words, 10);
    }

    #[test]
    fn word_diff_counts() {
        let check = |old: &str, new: &str, added: usize, removed: usize| {
            let diff = word_diff(old, new);
            assert_eq!(
                (diff.added_words, diff.removed_words),
                (added, removed),
                "{old:?} -> {new:?}"
            );
            assert_eq!(rebuild(&diff, DiffKind::Removed), old);
            assert_eq!(rebuild(&diff, DiffKind::Added), new);
        };
        check("", "", 0, 0);
        check("same text", "same text", 0, 0);
        check("", "new words here", 3, 0);
        check("a b c", "a c", 0, 1);
        check("earns ₹1,20,000 net", "earns ₹1,10,000 net", 1, 1);
    }

    #[test]
    fn edition_diffs_follow_the_run() {
        let diffs = edition_diffs(&[CYCLE_1, CYCLE_2, CYCLE_3]);
        assert_eq!(diffs.len(), 2);
        assert_eq!(rebuild(&diffs[0], DiffKind::Removed), CYCLE_1);
        assert_eq!(rebuild(&diffs[1], DiffKind::Added), CYCLE_3);
        let removed: String = diffs[0]
            .segments
            .iter()
            .filter(|s| s.kind == DiffKind::Removed)
            .map(|s| s.text.as_str())
            .collect();
        assert!(removed.contains("hard"), "{removed}");
        assert!(edition_diffs(&[CYCLE_1]).is_empty());
    }

    const STAY_AWAY: &str = "Since you are risk-averse, keep the rest of the surplus in recurring deposits, PPF or short-term debt funds, and stay away from equity for now.";

    #[test]
    fn a_summary_that_puts_weight_where_a_turn_kept_away_is_contradicted() {
        let equity = compiled(PinnedFact::phrase("equity", "equit"));
        let edition = "FinCoach advised an SIP of ₹15,000 a month in a conservative hybrid fund with about 25 % in equity, and keeping clear of single stocks for the first few years.";
        assert_eq!(
            fact_verdict(&equity, edition, &[STAY_AWAY], false),
            FactVerdict::Contradicted
        );
        // The same edition is no contradiction where no folded turn kept away from equity.
        let neutral = "Equity funds invest mainly in shares and carry the most risk.";
        assert_eq!(
            fact_verdict(&equity, edition, &[neutral], false),
            FactVerdict::Kept
        );
    }

    #[test]
    fn an_aversion_restated_softly_is_weakened_not_contradicted() {
        let equity = compiled(PinnedFact::phrase("equity", "equit"));
        let rule = "Never suggest equity instruments.";
        for edition in [
            "He prefers fixed-income options to equities.",
            "He would rather stay away from equity instruments.",
        ] {
            assert_eq!(
                fact_verdict(&equity, edition, &[rule], true),
                FactVerdict::Weakened,
                "{edition}"
            );
        }
        assert_eq!(
            fact_verdict(
                &equity,
                "He set a hard rule: never suggest equity.",
                &[rule],
                false
            ),
            FactVerdict::Kept
        );
    }

    // Only a pinned rule was checked for contradiction: a summary stating the opposite of a
    // must-keep item ("about 25 % in equity" against "stay away from equity") was not flagged.
    #[test]
    fn a_summary_stating_the_opposite_of_a_must_keep_item_is_contradicted() {
        let edition = "FinCoach advised an SIP of ₹15,000 a month in a conservative hybrid fund with about 25 % in equity.";
        // No folded turn needs to say it in the item's words: the item itself keeps away.
        for item in [
            "stay away from equity",
            "no equities",
            "Never suggest equity instruments",
        ] {
            assert_eq!(
                must_keep_verdict(item, edition, &["I earn ₹1,20,000."]),
                FactVerdict::Contradicted,
                "{item}"
            );
        }
        // An edition that keeps away too is no contradiction: kept where the item's words are
        // there, else lost once a folded turn stated it, not stated before that.
        assert_eq!(
            must_keep_verdict(
                "stay away from equity",
                "He wants to stay away from equity for now.",
                &[STAY_AWAY]
            ),
            FactVerdict::Kept
        );
        assert_eq!(
            must_keep_verdict(
                "no equities",
                "He avoids equities.",
                &["No equities, please."]
            ),
            FactVerdict::Lost
        );
        assert_eq!(
            must_keep_verdict("no equities", "He avoids equities.", &["I earn ₹1,20,000."]),
            FactVerdict::NotYet
        );
        // An item that keeps away from nothing is read as a phrase, as a pinned fact is.
        assert_eq!(
            must_keep_verdict(
                "risk profile",
                "His risk profile is conservative.",
                &["My risk profile is conservative."]
            ),
            FactVerdict::Kept
        );
        assert_eq!(
            must_keep_verdict(
                "risk profile",
                "He saves ₹60,000.",
                &["My risk profile: low."]
            ),
            FactVerdict::Lost
        );
        // A folded turn that kept away still contradicts an endorsing edition of a plain item.
        assert_eq!(
            must_keep_verdict("equity", edition, &[STAY_AWAY]),
            FactVerdict::Contradicted
        );
        assert_eq!(must_keep_verdict("  ", edition, &[]), FactVerdict::NotYet);
    }

    #[test]
    fn a_fact_is_not_stated_yet_only_until_a_folded_turn_states_it() {
        let rule = compiled(PinnedFact::phrase("hard rule", "hard rule"));
        let edition = "Chiru wants only fixed-income options.";
        assert_eq!(
            fact_verdict(&rule, edition, &["I earn ₹1,20,000."], false),
            FactVerdict::NotYet
        );
        assert_eq!(
            fact_verdict(
                &rule,
                edition,
                &["A hard rule: never suggest equities."],
                false
            ),
            FactVerdict::Lost
        );
    }
}
