//! The summariser prompts: five editable presets, and the rendering of a summariser request in
//! its three layouts: the first summary, a fold (EXISTING SUMMARY / NEW TURNS), and the
//! compression of a summary one level up.
//!
//! A preset names the facts that must survive a cycle. A generic "summarise this" leaves that
//! choice to the model, and drift starts with what the model thinks is unimportant.
//!
//! A policy's prompt starts as a preset and can be edited (text, word limit, must-keep list);
//! [`PromptSpec::is_edited`] says when it no longer is the preset, which is when the demos'
//! scripted editions (written for the preset) stop applying. The offline extractive summariser
//! cannot read instructions, so it reads the must-keep list as ranking cues
//! ([`PromptSpec::must_keep_cues`]): a sentence that mentions an item's words is kept first, and
//! an item about rules also ranks the sentences that state one ("never", "always", "must").

use super::facts::CompiledFact;
use super::message::{ChatMessage, Message, Role};

/// The built-in presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PresetId {
    FinancialAdvisor,
    Technical,
    CustomerSupport,
    Research,
    Generic,
    /// A prompt the user wrote from scratch.
    Custom,
}

/// The prompt a policy uses: where it started, its editable text, the word limit and the facts
/// that must survive. The rendered system message joins all three.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptSpec {
    pub preset: PresetId,
    pub text: String,
    pub word_limit: u32,
    pub must_keep: Vec<String>,
    /// Off by default: the summariser is given each folded turn's time (where the archive has
    /// one), speaker and the number of messages folded, and asked to keep them.
    pub metadata: bool,
}

impl PresetId {
    /// The five presets in the order the picker shows them.
    pub const BUILT_IN: [PresetId; 5] = [
        PresetId::FinancialAdvisor,
        PresetId::Technical,
        PresetId::CustomerSupport,
        PresetId::Research,
        PresetId::Generic,
    ];

    /// The label shown in the preset picker.
    pub fn label(self) -> &'static str {
        match self {
            PresetId::FinancialAdvisor => "Financial advisor",
            PresetId::Technical => "Technical discussion",
            PresetId::CustomerSupport => "Customer support",
            PresetId::Research => "Research",
            PresetId::Generic => "Generic",
            PresetId::Custom => "Custom",
        }
    }

    /// The stable name of the preset in session files and form values, e.g. `financial_advisor`.
    pub fn slug(self) -> &'static str {
        match self {
            PresetId::FinancialAdvisor => "financial_advisor",
            PresetId::Technical => "technical",
            PresetId::CustomerSupport => "customer_support",
            PresetId::Research => "research",
            PresetId::Generic => "generic",
            PresetId::Custom => "custom",
        }
    }

    /// The preset a [`PresetId::slug`] names, `Custom` included; `None` for any other text.
    pub fn from_slug(slug: &str) -> Option<PresetId> {
        PresetId::BUILT_IN
            .into_iter()
            .chain([PresetId::Custom])
            .find(|p| p.slug() == slug)
    }
}

impl PromptSpec {
    /// The preset's text, word limit and facts, ready to edit.
    pub fn from_preset(id: PresetId) -> PromptSpec {
        let (text, word_limit, facts): (&str, u32, &[&str]) = match id {
            PresetId::FinancialAdvisor => (
                "You are condensing a conversation between a user and a financial advisor \
                 assistant. The summary you write replaces these turns: the advisor will see \
                 nothing else of them. Write in the third person, as a single paragraph. Keep \
                 every figure exactly as the user gave it, and keep the user's own rules as \
                 rules, not as preferences. Never add a fact that the conversation does not \
                 contain.",
                80,
                &[
                    "salary and monthly expenses",
                    "existing investments with their values and maturity dates",
                    "risk profile",
                    "goals",
                    "decisions made",
                    "advice the advisor gave",
                    "hard rules the user stated, worded as rules",
                ],
            ),
            PresetId::Technical => (
                "You are condensing a technical discussion. The summary replaces these turns for \
                 the assistant that continues it. Be precise: keep names, versions, numbers and \
                 commands exactly as written. Never add a fact that the conversation does not \
                 contain.",
                150,
                &[
                    "decisions made and why",
                    "technical specifications and constraints",
                    "action items and their owners",
                    "open questions and blockers",
                    "code snippets or commands discussed",
                ],
            ),
            PresetId::CustomerSupport => (
                "You are condensing a customer support conversation. The summary replaces these \
                 turns for the agent who continues the case, so it must let them pick up \
                 without asking the customer to repeat anything. Never add a fact that the \
                 conversation does not contain.",
                120,
                &[
                    "the customer's issue and symptoms",
                    "troubleshooting steps already tried",
                    "the resolution, if one was reached",
                    "the customer's sentiment",
                    "follow-up items",
                ],
            ),
            PresetId::Research => (
                "You are condensing a research discussion. The summary replaces these turns for \
                 the assistant that continues the investigation. Keep a clear line between what \
                 was found and what is still a guess. Never add a fact that the conversation \
                 does not contain.",
                150,
                &[
                    "questions being investigated",
                    "sources consulted",
                    "findings and the evidence for them",
                    "conclusions drawn",
                    "research questions still open",
                ],
            ),
            PresetId::Generic | PresetId::Custom => (
                "You are condensing a conversation. The summary replaces these turns for the \
                 assistant that continues it. Write in the third person. Never add a fact that \
                 the conversation does not contain.",
                100,
                &[
                    "key facts the user shared",
                    "decisions made",
                    "instructions or rules the user gave",
                    "open questions",
                ],
            ),
        };
        PromptSpec {
            preset: id,
            text: text.to_owned(),
            word_limit,
            must_keep: facts.iter().map(|f| (*f).to_owned()).collect(),
            metadata: false,
        }
    }

    /// Whether the text, word limit or must-keep list differ from the preset it started from.
    pub fn is_edited(&self) -> bool {
        *self != PromptSpec::from_preset(self.preset)
    }

    /// The must-keep list as ranking cues for the extractive summariser: one cue per item,
    /// matching a sentence that holds any of the item's content words (a plural matches its
    /// singular), and, for an item about rules, any sentence that states a rule. An item of
    /// stop words only gives no cue.
    pub fn must_keep_cues(&self) -> Vec<CompiledFact> {
        self.must_keep
            .iter()
            .filter_map(|item| {
                let mut words: Vec<String> = content_words(item);
                if words.iter().any(|w| w.starts_with("rule")) {
                    words.extend(RULE_WORDS.iter().map(|w| (*w).to_owned()));
                }
                // `(?i)\b(?:w1|w2|…)`, matched without a regex parser (`None` when empty).
                CompiledFact::words(format!("must keep: {}", item.trim()), &words, false)
            })
            .collect()
    }

    /// The summariser's system message: the prompt text, the facts that must survive and the
    /// word limit.
    pub fn render_system(&self) -> String {
        let mut out = self.text.trim().to_owned();
        if !self.must_keep.is_empty() {
            out.push_str("\nPreserve these facts if they are mentioned:");
            for fact in &self.must_keep {
                out.push_str("\n- ");
                out.push_str(fact.trim());
            }
        }
        if self.metadata {
            out.push_str(METADATA_INSTRUCTION);
        }
        out.push_str(&format!(
            "\nWrite at most {} words.",
            self.word_limit.max(1)
        ));
        out
    }
}

/// The words of a sentence that state a rule, as the drift checks read them.
const RULE_WORDS: [&str; 6] = ["never", "always", "must", "don't", "do not", "avoid"];

/// Words of a must-keep item too common to say what it is about.
const STOP_WORDS: [&str; 28] = [
    "about", "also", "and", "any", "are", "been", "each", "from", "gave", "given", "have", "into",
    "made", "other", "said", "shared", "stated", "that", "the", "their", "them", "they", "this",
    "user", "what", "when", "with", "worded",
];

/// The content words of a must-keep item, lower-cased, four letters or more, a final plural
/// "s" dropped, each once.
fn content_words(item: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in item.split(|c: char| !c.is_alphanumeric()) {
        let lower = word.to_lowercase();
        if lower.chars().count() < 4 || STOP_WORDS.contains(&lower.as_str()) {
            continue;
        }
        let stem = match lower.strip_suffix('s') {
            Some(stem) if !stem.ends_with('s') && stem.chars().count() >= 3 => stem.to_owned(),
            _ => lower,
        };
        if !out.contains(&stem) {
            out.push(stem);
        }
    }
    out
}

/// Renders turns as the summariser reads them: one `USER: ...` or `ASSISTANT: ...` line each;
/// tool calls and results as [`Message::readable`] writes them (`TOOL: [result of name] ...`).
pub fn render_turns(messages: &[Message]) -> String {
    let mut out = String::new();
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&m.role.as_str().to_uppercase());
        out.push_str(": ");
        out.push_str(&m.readable());
    }
    out
}

/// What the summariser is asked when the prompt's metadata option is on.
pub const METADATA_INSTRUCTION: &str = "\nEach turn is given with its time (when known) and speaker, and the \
     number of messages folded is stated: keep when things were said, by whom, and how many \
     messages the summary covers.";

/// A time in milliseconds since the Unix epoch as the summariser and the edition header read it,
/// in UTC: `2025-03-12 14:05`; `None` for 0 (no time recorded) or a time out of range.
pub fn stamp(at_ms: u64) -> Option<String> {
    let (date, hour, minute) = utc(at_ms)?;
    Some(format!("{date} {hour:02}:{minute:02}"))
}

/// The UTC date of a time, as `2025-03-12`, and its hour and minute.
pub fn utc(at_ms: u64) -> Option<(String, u8, u8)> {
    if at_ms == 0 {
        return None;
    }
    let nanos = i128::from(at_ms) * 1_000_000;
    let t = time::OffsetDateTime::from_unix_timestamp_nanos(nanos).ok()?;
    let date = format!("{:04}-{:02}-{:02}", t.year(), u8::from(t.month()), t.day());
    Some((date, t.hour(), t.minute()))
}

/// [`render_turns`] with each turn's metadata: its time, when the archive has one, before the
/// speaker (`[2025-03-12 14:05] USER: ...`), after a line that states how many messages are
/// folded.
pub fn render_turns_with_metadata(messages: &[Message]) -> String {
    let mut out = format!(
        "({} message{} folded)",
        messages.len(),
        if messages.len() == 1 { "" } else { "s" }
    );
    for m in messages {
        out.push('\n');
        if let Some(at) = stamp(m.at_ms) {
            out.push_str(&format!("[{at}] "));
        }
        out.push_str(&m.role.as_str().to_uppercase());
        out.push_str(": ");
        out.push_str(&m.readable());
    }
    out
}

/// The summariser request for a cycle: a first summary when there is no existing summary, and
/// a fold (the notebook's EXISTING SUMMARY / NEW TURNS layout) when there is one.
pub fn render_fold_request(
    spec: &PromptSpec,
    existing: Option<&str>,
    turns: &[Message],
) -> Vec<ChatMessage> {
    let turns_text = if spec.metadata {
        render_turns_with_metadata(turns)
    } else {
        render_turns(turns)
    };
    let user = match existing {
        Some(summary) => format!(
            "EXISTING SUMMARY (from previous turns):\n{summary}\n\n\
             NEW TURNS TO ADD TO THE SUMMARY:\n{turns_text}\n\n\
             Produce an updated summary that incorporates both."
        ),
        None => format!(
            "CONVERSATION TURNS TO SUMMARISE:\n{turns_text}\n\nProduce a summary of these turns."
        ),
    };
    vec![
        ChatMessage {
            role: Role::System,
            content: spec.render_system(),
        },
        ChatMessage {
            role: Role::User,
            content: user,
        },
    ]
}

/// The request that compresses a summary one level up. Each level keeps the facts that must
/// survive but allows fewer words, so the summary shrinks instead of growing without end.
pub fn render_compress_request(spec: &PromptSpec, summary: &str, level: u8) -> Vec<ChatMessage> {
    let words = compressed_word_limit(spec.word_limit, level);
    let mut system = spec.render_system();
    system.push_str(&format!(
        "\nThis is compression level {level}: rewrite the summary more briefly, in at most \
         {words} words, dropping detail before dropping any fact from the list."
    ));
    vec![
        ChatMessage {
            role: Role::System,
            content: system,
        },
        ChatMessage {
            role: Role::User,
            content: format!(
                "SUMMARY TO COMPRESS:\n{summary}\n\nProduce a shorter summary that keeps the facts."
            ),
        },
    ]
}

/// The word limit at a compression level: halved at each level, never below 10 words.
pub fn compressed_word_limit(word_limit: u32, level: u8) -> u32 {
    (word_limit >> level.min(3)).max(10)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::message::WordCounter;

    fn msg(role: Role, text: &str) -> Message {
        Message::new(role, text, &WordCounter, 0)
    }

    #[test]
    fn every_preset_round_trips_through_its_slug() {
        let all = PresetId::BUILT_IN.into_iter().chain([PresetId::Custom]);
        let slugs: Vec<&str> = all.clone().map(PresetId::slug).collect();
        assert_eq!(
            slugs,
            [
                "financial_advisor",
                "technical",
                "customer_support",
                "research",
                "generic",
                "custom"
            ]
        );
        for id in all {
            assert_eq!(PresetId::from_slug(id.slug()), Some(id));
        }
        assert_eq!(PresetId::from_slug("Generic"), None);
        assert_eq!(PresetId::from_slug(""), None);
    }

    #[test]
    fn every_preset_has_a_limit_and_facts() {
        for id in PresetId::BUILT_IN {
            let spec = PromptSpec::from_preset(id);
            assert!(spec.word_limit > 0, "{id:?}");
            assert!(spec.must_keep.len() >= 4, "{id:?}");
            let system = spec.render_system();
            for fact in &spec.must_keep {
                assert!(system.contains(fact.as_str()), "{id:?} lacks {fact}");
            }
            assert!(system.contains(&format!("at most {} words", spec.word_limit)));
        }
    }

    #[test]
    fn financial_preset_keeps_hard_rules() {
        let spec = PromptSpec::from_preset(PresetId::FinancialAdvisor);
        assert_eq!(spec.word_limit, 80);
        assert!(spec.must_keep.iter().any(|f| f.contains("hard rules")));
        assert!(spec.must_keep.iter().any(|f| f.contains("maturity dates")));
    }

    #[test]
    fn first_summary_and_fold_use_the_seed_layout() {
        let spec = PromptSpec::from_preset(PresetId::Generic);
        let turns = [msg(Role::User, "Hi"), msg(Role::Assistant, "Hello")];
        let first = render_fold_request(&spec, None, &turns);
        assert_eq!(first[0].role, Role::System);
        assert_eq!(
            first[1].content,
            "CONVERSATION TURNS TO SUMMARISE:\nUSER: Hi\nASSISTANT: Hello\n\nProduce a summary of these turns."
        );
        let fold = render_fold_request(&spec, Some("Old."), &turns);
        assert_eq!(
            fold[1].content,
            "EXISTING SUMMARY (from previous turns):\nOld.\n\nNEW TURNS TO ADD TO THE SUMMARY:\n\
             USER: Hi\nASSISTANT: Hello\n\nProduce an updated summary that incorporates both."
        );
    }

    #[test]
    fn a_prompt_is_edited_once_it_differs_from_its_preset() {
        let mut spec = PromptSpec::from_preset(PresetId::FinancialAdvisor);
        assert!(!spec.is_edited());
        spec.word_limit = 60;
        assert!(spec.is_edited());
        let mut spec = PromptSpec::from_preset(PresetId::Technical);
        spec.must_keep.push("deadlines".into());
        assert!(spec.is_edited());
        spec.must_keep.pop();
        assert!(!spec.is_edited());
        spec.text.push_str(" Be brief.");
        assert!(spec.is_edited());
    }

    #[test]
    fn the_metadata_option_is_off_by_default_and_gives_each_turns_time_speaker_and_the_count() {
        use crate::engine::message::{Message, WordCounter};
        for id in PresetId::BUILT_IN {
            assert!(!PromptSpec::from_preset(id).metadata, "{id:?}");
        }
        let turns = [
            Message::new(
                Role::User,
                "I rent a flat.",
                &WordCounter,
                1_741_788_300_000,
            ),
            Message::new(Role::Assistant, "Noted.", &WordCounter, 0),
        ];
        let plain = PromptSpec::from_preset(PresetId::Generic);
        let off = render_fold_request(&plain, None, &turns);
        assert!(!off[1].content.contains("2025") && !off[1].content.contains("folded)"));
        assert!(!off[0].content.contains(METADATA_INSTRUCTION));
        let spec = PromptSpec {
            metadata: true,
            ..plain
        };
        assert!(spec.is_edited());
        let on = render_fold_request(&spec, Some("Before."), &turns);
        assert!(
            on[0].content.contains(METADATA_INSTRUCTION),
            "{}",
            on[0].content
        );
        assert!(
            on[1].content.contains(
                "(2 messages folded)\n[2025-03-12 14:05] USER: I rent a flat.\nASSISTANT: Noted."
            ),
            "a time only where the archive has one: {}",
            on[1].content
        );
    }

    #[test]
    fn must_keep_items_become_cues_on_their_content_words() {
        let spec = PromptSpec {
            must_keep: vec![
                "salary and monthly expenses".into(),
                "hard rules the user stated".into(),
                "the and with".into(),
                "SIPs".into(),
            ],
            ..PromptSpec::from_preset(PresetId::Generic)
        };
        let cues = spec.must_keep_cues();
        assert_eq!(cues.len(), 3, "an item of stop words gives no cue");
        let matches = |i: usize, text: &str| cues[i].is_match(text);
        assert!(matches(0, "My Salary is 1,20,000."));
        assert!(matches(0, "Expenses are 60,000."));
        assert!(!matches(0, "I am risk-averse."));
        // An item about rules also finds a rule stated without the word "rule".
        assert!(matches(1, "One hard rule: never suggest equities."));
        assert!(matches(1, "Never suggest equities."));
        assert!(!matches(1, "I will open a PPF account."));
        // A plural item finds its singular, and the match is on word starts.
        assert!(matches(2, "An SIP invests monthly."));
        assert!(!matches(2, "Gossip."));
        assert!(cues[0].label.contains("salary and monthly expenses"));
    }

    #[test]
    fn compression_halves_the_word_limit_per_level() {
        assert_eq!(compressed_word_limit(80, 1), 40);
        assert_eq!(compressed_word_limit(80, 2), 20);
        assert_eq!(compressed_word_limit(80, 3), 10);
        assert_eq!(compressed_word_limit(80, 9), 10);
        let req = render_compress_request(&PromptSpec::from_preset(PresetId::Generic), "S", 2);
        assert!(req[0].content.contains("at most 25 words"));
    }
}
