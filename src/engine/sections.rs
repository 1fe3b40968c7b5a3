//! Topic sections: a summary kept as one short section per topic, the topic-aware strategy of
//! the source article (segment by topic, summarise each, join them as `## topic` blocks).
//!
//! The syntax is fixed so that a model's summary and the extractive one read alike: a section
//! starts with a line `## ` plus its topic, and runs to the next such line. [`parse_sections`]
//! reads it (leniently: one to three `#`, and text before the first heading is a section with
//! no heading); [`render_sections`] writes it. [`TOPIC_SECTIONS_INSTRUCTION`] is what the
//! summariser prompt gains under [`crate::engine::SummaryFormat::Topics`], and [`topic_of`]
//! is how the extractive summariser files a sentence under one of [`TOPICS`].

use std::ops::Range;

use crate::engine::words::is_rule_sentence;

/// What the summariser's system message gains when summaries are kept in topic sections.
pub const TOPIC_SECTIONS_INSTRUCTION: &str = "Organise the summary by topic: one short section \
per topic the conversation covered. Start each section on its own line with \"## \" and the \
topic's name, for example \"## Income and spending\", then write a few sentences. Keep every \
figure and every rule in the section of its topic, and keep the sections of the existing summary, \
adding to them. The word limit counts every section together.";

/// One section of a summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section<'a> {
    /// The topic, as written after the `#`s; empty for text before the first heading.
    pub heading: &'a str,
    /// The section's text, without its heading line, trimmed.
    pub body: &'a str,
    /// Byte span of the whole section (heading line included) in the summary.
    pub span: Range<usize>,
    /// Byte span of `body` in the summary.
    pub body_span: Range<usize>,
}

/// A topic the extractive summariser files sentences under, with the word stems that mark it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Topic {
    pub name: &'static str,
    pub stems: &'static [&'static str],
}

/// The extractive summariser's topics, in the order its sections are written. A sentence goes
/// to the topic with the most stems in it (the earlier topic on a tie); rule sentences always
/// go to "Rules", and one with no stem to "Other".
pub const TOPICS: [Topic; 6] = [
    Topic {
        name: "Rules",
        stems: &[],
    },
    Topic {
        name: "Profile",
        stems: &[
            "name",
            "years old",
            "age ",
            "i'm ",
            "risk",
            "averse",
            "lives",
            "live in",
        ],
    },
    Topic {
        name: "Income and spending",
        stems: &[
            "salary",
            "income",
            "take-home",
            "take home",
            "earn",
            "expense",
            "spend",
            "rent",
            "surplus",
            "budget",
            "left over",
        ],
    },
    Topic {
        name: "Savings and investments",
        stems: &[
            "fd", "deposit", "ppf", "nps", "sip", "fund", "invest", "equit", "stock", "bond",
            "saving", "scheme", "account", "matur", "lock-in", "pension",
        ],
    },
    Topic {
        name: "Goals and plans",
        stems: &[
            "goal",
            "retire",
            "plan",
            "want",
            "emergency",
            "target",
            "will ",
            "corpus",
        ],
    },
    Topic {
        name: "Other",
        stems: &[],
    },
];

/// The index in [`TOPICS`] of the topic `sentence` belongs to.
pub fn topic_of(sentence: &str) -> usize {
    if is_rule_sentence(sentence) {
        return 0;
    }
    let lower = format!(" {} ", sentence.to_lowercase());
    let mut best = (0, TOPICS.len() - 1);
    for (index, topic) in TOPICS.iter().enumerate() {
        let hits = topic
            .stems
            .iter()
            .filter(|stem| contains_word_start(&lower, stem))
            .count();
        if hits > best.0 {
            best = (hits, index);
        }
    }
    best.1
}

/// The sections of `summary`, in order. Empty when it has no heading line at all: a prose
/// summary is not sectioned, so nothing is shown per section.
pub fn parse_sections(summary: &str) -> Vec<Section<'_>> {
    let mut headings: Vec<(Range<usize>, &str)> = Vec::new();
    let mut at = 0;
    for line in summary.split_inclusive('\n') {
        if let Some(heading) = heading_of(line) {
            headings.push((at..at + line.len(), heading));
        }
        at += line.len();
    }
    if headings.is_empty() {
        return Vec::new();
    }
    let mut sections = Vec::new();
    let first = headings[0].0.start;
    if !summary[..first].trim().is_empty() {
        sections.push(section(summary, "", 0..first, 0..first));
    }
    for (i, (line, heading)) in headings.iter().enumerate() {
        let end = headings
            .get(i + 1)
            .map_or(summary.len(), |next| next.0.start);
        sections.push(section(summary, heading, line.start..end, line.end..end));
    }
    sections
}

/// Writes sections in the fixed syntax: `## heading`, a line break, the text; a blank line
/// between sections.
pub fn render_sections<'a>(sections: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    sections
        .into_iter()
        .map(|(heading, body)| format!("## {}\n{}", heading.trim(), body.trim()))
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn section<'a>(
    summary: &'a str,
    heading: &'a str,
    span: Range<usize>,
    body: Range<usize>,
) -> Section<'a> {
    let raw = &summary[body.clone()];
    let start = body.start + (raw.len() - raw.trim_start().len());
    let end = body.start + raw.trim_end().len();
    let body_span = if start < end { start..end } else { end..end };
    Section {
        heading,
        body: &summary[body_span.clone()],
        span,
        body_span,
    }
}

/// The topic of a heading line (`## Topic`, one to three `#`), trimmed, or `None`.
fn heading_of(line: &str) -> Option<&str> {
    let line = line.trim();
    let hashes = line.len() - line.trim_start_matches('#').len();
    if !(1..=3).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    let topic = rest.strip_prefix(' ')?.trim().trim_matches('*').trim();
    (!topic.is_empty()).then_some(topic)
}

/// Whether `stem` occurs in `text` at the start of a word (`text` is lower case and padded
/// with spaces).
fn contains_word_start(text: &str, stem: &str) -> bool {
    text.match_indices(stem).any(|(at, _)| {
        text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(summary: &str, expect: &[(&str, &str)]) {
        let got: Vec<(&str, &str)> = parse_sections(summary)
            .iter()
            .map(|s| (s.heading, s.body))
            .collect();
        assert_eq!(got, expect, "{summary:?}");
        for s in parse_sections(summary) {
            assert_eq!(&summary[s.body_span.clone()], s.body);
            assert!(s.span.start <= s.body_span.start && s.body_span.end <= s.span.end);
        }
    }

    #[test]
    fn sections_are_read_from_their_heading_lines() {
        check(
            "## Income\nEarns ₹1,20,000.\n\n## Rules\nNever suggest equities.",
            &[
                ("Income", "Earns ₹1,20,000."),
                ("Rules", "Never suggest equities."),
            ],
        );
        // Text before the first heading is a section with no heading; one to three #s and bold
        // headings are accepted; an empty section is kept, with an empty body.
        check(
            "Chiru, 32.\n# Profile\nRisk-averse.\n### **Goals**\n\n## Other\n",
            &[
                ("", "Chiru, 32."),
                ("Profile", "Risk-averse."),
                ("Goals", ""),
                ("Other", ""),
            ],
        );
        // A prose summary has no sections; four #s, a # with no space or no topic, and a #
        // inside a line are not headings.
        check("Chiru earns ₹1,20,000. He is #1 at saving.", &[]);
        check("#### Deep\n#NoSpace\n## \nText", &[]);
    }

    #[test]
    fn rendered_sections_parse_back() {
        let text = render_sections([
            ("Rules", " Never suggest equities. "),
            ("Goals", "Retire by 55."),
        ]);
        assert_eq!(
            text,
            "## Rules\nNever suggest equities.\n\n## Goals\nRetire by 55."
        );
        check(
            &text,
            &[
                ("Rules", "Never suggest equities."),
                ("Goals", "Retire by 55."),
            ],
        );
    }

    #[test]
    fn sentences_are_filed_under_their_topic() {
        let name = |s: &str| TOPICS[topic_of(s)].name;
        assert_eq!(
            name("One hard rule: never suggest equity instruments."),
            "Rules"
        );
        assert_eq!(
            name("My monthly take-home salary is ₹1,20,000."),
            "Income and spending"
        );
        assert_eq!(
            name("I have an FD of ₹50,000 that matures in 3 months."),
            "Savings and investments"
        );
        assert_eq!(
            name("I am 32 years old and I want to retire by 55."),
            "Goals and plans"
        );
        assert_eq!(name("Hello there."), "Other");
        // A stem counts at the start of a word only: "fund" in "refund" does not.
        assert_eq!(name("A refund arrived."), "Other");
    }
}
