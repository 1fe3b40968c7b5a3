//! The "exact policy" section of the policy panel and of Inspect's replay form: the exact
//! vocabulary's fields ([`Exact`]) as the user picks and types them, in one table
//! ([`EXACT_FIELDS`]: the `policy-{name}` hook, the label, the choices), kept as typed and read
//! back into an [`Exact`] only when every value works, with an error naming the field.
//! Each field has a label and a one-line hint in the user's words; the first choice of a picker,
//! 0 and no text are the defaults (today's rules). Which fields differ from them
//! ([`ExactForm::changed`]) decides which are drawn open and which are folded away, and each can
//! be reset on its own.
//!
//! The section edits what the live chat honours. The fields it does not show (calls per fold,
//! the user's messages kept by a fold, the newest message always kept, tool traffic kept to its
//! turn, a fixed context message)
//! keep the values of the policy the form was read from.

use crate::engine::policy::{
    CheckAt, Compare, Counted, Counter, Exact, Keep, Measure, ShareOf, Start, SummaryAt,
    SummaryOverflow,
};

/// What kind of input a field is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// A picker: (value, label) pairs, the first is the default.
    Choice(&'static [(&'static str, &'static str)]),
    /// A whole number; 0 is the default.
    Number,
    /// A line of text; empty is the default.
    Text,
}

/// One field of the section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactField {
    /// The field's name: its `policy-{name}` (and `replay-{name}`) hook.
    pub name: &'static str,
    /// What the field is about, in the user's words.
    pub label: &'static str,
    /// One line on what the field changes.
    pub hint: &'static str,
    pub kind: FieldKind,
}

impl ExactField {
    /// The value the field holds under today's rules ([`Exact::default`]): a picker's first
    /// choice, 0, or no text.
    pub fn default_value(&self) -> &'static str {
        match self.kind {
            FieldKind::Choice(choices) => choices[0].0,
            FieldKind::Number => "0",
            FieldKind::Text => "",
        }
    }
}

/// Every field of the section, in the order it shows them.
pub const EXACT_FIELDS: [ExactField; 11] = [
    ExactField {
        name: "exact_counted",
        label: "What is weighed against the threshold",
        hint: "Which part of the conversation a token or window trigger measures.",
        kind: FieldKind::Choice(&[
            ("trigger", "what the trigger weighs"),
            ("all", "the whole request"),
            ("history", "the conversation, without the system prompt"),
            ("verbatim", "only the messages sent word for word"),
        ]),
    },
    ExactField {
        name: "exact_compare",
        label: "It summarises when that size is",
        hint: "Whether reaching the threshold exactly is already enough.",
        kind: FieldKind::Choice(&[
            ("above", "over the threshold"),
            ("at_least", "at or over the threshold"),
        ]),
    },
    ExactField {
        name: "exact_check",
        label: "When it looks",
        hint: "The moment the app decides whether a summary is due.",
        kind: FieldKind::Choice(&[
            ("after_reply", "after each reply"),
            ("before_request", "before each request"),
            ("before_turn", "before the first request of each turn"),
            (
                "previous_request",
                "before each request, by the size the server reported for the one before",
            ),
        ]),
    },
    ExactField {
        name: "exact_keep",
        label: "What stays word for word",
        hint: "What is still sent as written after a summary; everything older goes into the summary.",
        kind: FieldKind::Choice(&[
            ("trigger", "what the trigger keeps (whole turns)"),
            ("turns", "the last N turns"),
            ("messages", "the last N messages"),
            ("tokens", "the newest messages that fit in N tokens"),
            (
                "history_tokens",
                "the newest N% of the conversation, by tokens",
            ),
            (
                "history_chars",
                "the newest N% of the conversation, by characters",
            ),
        ]),
    },
    ExactField {
        name: "exact_keep_n",
        label: "N, for what stays",
        hint: "The number the choice above counts in: turns, messages, tokens or percent.",
        kind: FieldKind::Number,
    },
    ExactField {
        name: "exact_start",
        label: "Where the kept part may begin",
        hint: "Whether it may open on a reply, or must open with the user's own message.",
        kind: FieldKind::Choice(&[
            (
                "anywhere",
                "at any message (a tool's result stays with its call)",
            ),
            ("at_user", "only at a message from the user"),
        ]),
    },
    ExactField {
        name: "exact_summary_at",
        label: "Where the summary is sent",
        hint: "Which message of each request carries the summary.",
        kind: FieldKind::Choice(&[
            ("placement", "where \"Summary placement\" above says"),
            ("system", "as its own system message"),
            (
                "first_system",
                "as a system message before the system prompt",
            ),
            ("user", "as a user message"),
            ("user_then_ack", "as a user message, then a fixed reply"),
            ("assistant_after", "as the reply to a fixed user message"),
        ]),
    },
    ExactField {
        name: "exact_summary_text",
        label: "The fixed reply or user message",
        hint: "The words sent with the summary when it comes with a fixed reply or user message.",
        kind: FieldKind::Text,
    },
    ExactField {
        name: "exact_summary_prefix",
        label: "Text before the summary",
        hint: "Written in front of the summary in its message.",
        kind: FieldKind::Text,
    },
    ExactField {
        name: "exact_overflow",
        label: "When only the old summary would be folded",
        hint: "What happens when nothing new is left to fold but the old summary itself.",
        kind: FieldKind::Choice(&[
            ("keep", "keep it as it is, with no model call"),
            ("resummarise", "summarise it again"),
        ]),
    },
    ExactField {
        name: "exact_counter",
        label: "Tokens counted with",
        hint: "The counter a library measures with (its own default, or exact counts as if you passed a tiktoken counter). The Tuner, the replay, the corpus comparison and the command line size every message with it; the live chat counts exact o200k_base.",
        kind: FieldKind::Choice(&COUNTER_CHOICES),
    },
];

/// The counters offered, in [`Counter::ALL`]'s order: each counter's slug and its words.
const COUNTER_CHOICES: [(&str, &str); 8] = [
    ("o200k", "o200k_base (exact)"),
    (
        "o200k-chat",
        "o200k_base with the chat format's overhead (exact)",
    ),
    ("cl100k", "cl100k_base (exact)"),
    (
        "cl100k-chat",
        "cl100k_base with the chat format's overhead (exact)",
    ),
    ("langchain-approx", "LangChain's count_tokens_approximately"),
    ("gemini-estimate", "Gemini CLI's character estimate"),
    ("words", "a word count"),
    ("reported", "the reply's reported usage"),
];

/// The field named `name`; `None` for a name the table lacks.
pub fn exact_field(name: &str) -> Option<&'static ExactField> {
    EXACT_FIELDS.iter().find(|f| f.name == name)
}

/// The section's values as typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactForm {
    values: Vec<(&'static str, String)>,
    /// The exact policy the form was read from, for the fields it does not show.
    base: Exact,
    /// The fields drawn open, above the fold of those at their defaults: the changed ones as
    /// of the last [`ExactForm::regroup`]. A field changed since stays where it is, so an input
    /// never moves while it is typed in.
    open: Vec<&'static str>,
}

impl ExactForm {
    /// The form showing `exact`.
    pub fn of(exact: &Exact) -> ExactForm {
        let counted = match exact.counted {
            None => "trigger",
            Some(c) if c == Counted::HISTORY => "history",
            Some(c) if c == Counted::VERBATIM => "verbatim",
            Some(_) => "all",
        };
        let (keep, n) = match exact.keep {
            None => ("trigger", 0),
            Some(Keep::Turns(n)) => ("turns", n),
            Some(Keep::Messages(n)) => ("messages", n),
            Some(Keep::Tokens(n)) => ("tokens", n),
            Some(Keep::Share { pct, by, .. }) => match by {
                Measure::Tokens => ("history_tokens", pct),
                Measure::Chars => ("history_chars", pct),
            },
        };
        let (summary_at, text) = match &exact.summary_at {
            SummaryAt::Placement => ("placement", String::new()),
            SummaryAt::System => ("system", String::new()),
            SummaryAt::FirstSystem => ("first_system", String::new()),
            SummaryAt::User => ("user", String::new()),
            SummaryAt::UserThenAck(t) => ("user_then_ack", t.clone()),
            SummaryAt::AssistantAfter(t) => ("assistant_after", t.clone()),
        };
        let choice = |yes: bool, a: &str, b: &str| if yes { b.to_owned() } else { a.to_owned() };
        ExactForm {
            values: vec![
                ("exact_counted", counted.to_owned()),
                (
                    "exact_compare",
                    choice(exact.compare == Compare::AtLeast, "above", "at_least"),
                ),
                (
                    "exact_check",
                    match exact.check {
                        CheckAt::AfterReply => "after_reply",
                        CheckAt::BeforeRequest => "before_request",
                        CheckAt::BeforeTurn => "before_turn",
                        CheckAt::PreviousRequest => "previous_request",
                    }
                    .to_owned(),
                ),
                ("exact_keep", keep.to_owned()),
                ("exact_keep_n", n.to_string()),
                (
                    "exact_start",
                    choice(exact.start == Start::AtUser, "anywhere", "at_user"),
                ),
                ("exact_summary_at", summary_at.to_owned()),
                ("exact_summary_text", text),
                ("exact_summary_prefix", exact.summary_prefix.clone()),
                (
                    "exact_overflow",
                    choice(
                        exact.summary_overflow == SummaryOverflow::Resummarise,
                        "keep",
                        "resummarise",
                    ),
                ),
                ("exact_counter", exact.counter.slug().to_owned()),
            ],
            base: exact.clone(),
            open: Vec::new(),
        }
        .regrouped()
    }

    fn regrouped(mut self) -> ExactForm {
        self.regroup();
        self
    }

    /// Draws the changed fields open and folds the others away (when the section or its fold
    /// is opened or closed, and when the form is read from a policy).
    pub fn regroup(&mut self) {
        self.open = self.changed();
    }

    /// Whether field `name` is drawn open, above the fold.
    pub fn is_open(&self, name: &str) -> bool {
        self.open.contains(&name)
    }

    /// Whether field `name` differs from its default ([`ExactField::default_value`]); a
    /// number counts by its value, so "00" is still 0, and text that will not read is changed.
    pub fn is_changed(&self, name: &str) -> bool {
        let Some(field) = exact_field(name) else {
            return false;
        };
        let value = self.value(name);
        match field.kind {
            FieldKind::Number => value.trim().parse::<u32>() != Ok(0),
            _ => value != field.default_value(),
        }
    }

    /// The names of the fields that differ from their defaults, in the table's order.
    pub fn changed(&self) -> Vec<&'static str> {
        EXACT_FIELDS
            .iter()
            .map(|f| f.name)
            .filter(|name| self.is_changed(name))
            .collect()
    }

    /// Field `name` back to its default.
    pub fn reset(&mut self, name: &str) {
        if let Some(field) = exact_field(name) {
            self.set(name, field.default_value().to_owned());
        }
    }

    /// Why field `name`, as it stands, changes nothing: the choice it depends on does not use
    /// it. `None` when it is used, or at its default.
    pub fn unused(&self, name: &str) -> Option<&'static str> {
        if !self.is_changed(name) {
            return None;
        }
        let summary_at = self.value("exact_summary_at");
        match name {
            "exact_keep_n" if self.value("exact_keep") == "trigger" => {
                Some("Not used while what stays word for word is what the trigger keeps.")
            }
            "exact_summary_text"
                if !matches!(summary_at.as_str(), "user_then_ack" | "assistant_after") =>
            {
                Some("Not used unless the summary comes with a fixed reply or user message.")
            }
            "exact_summary_prefix" if summary_at == "placement" => {
                Some("Not written while the summary goes where \"Summary placement\" says.")
            }
            _ => None,
        }
    }

    /// What field `name` holds.
    pub fn value(&self, name: &str) -> String {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }

    /// Records what was picked or typed in field `name`; a name the table lacks changes nothing.
    pub fn set(&mut self, name: &str, value: String) {
        if let Some(slot) = self.values.iter_mut().find(|(n, _)| *n == name) {
            slot.1 = value;
        }
    }

    /// Whether the section states anything but today's rules (the panel opens it then).
    pub fn is_exact(&self) -> bool {
        self.exact().is_ok_and(|e| e.is_exact())
    }

    /// The exact policy the values describe, or why not, naming the field.
    pub fn exact(&self) -> Result<Exact, String> {
        let pick = |name: &'static str| -> Result<usize, String> {
            let field = exact_field(name).expect("every name is in the table");
            let FieldKind::Choice(choices) = field.kind else {
                unreachable!("{name} is a picker")
            };
            let value = self.value(name);
            choices
                .iter()
                .position(|c| c.0 == value)
                .ok_or_else(|| format!("{}: \"{value}\" is not one of the choices.", field.label))
        };
        let n = {
            let raw = self.value("exact_keep_n");
            raw.trim().parse::<u32>().map_err(|_| {
                format!(
                    "N = \"{}\" is not valid: expected a whole number.",
                    raw.trim()
                )
            })?
        };
        let counted = match pick("exact_counted")? {
            0 => None,
            // A combination the section cannot name shows as the whole request, and stays.
            1 => Some(match self.base.counted {
                Some(c) if c != Counted::HISTORY && c != Counted::VERBATIM => c,
                _ => Counted::ALL,
            }),
            2 => Some(Counted::HISTORY),
            _ => Some(Counted::VERBATIM),
        };
        let share = |by| Keep::Share {
            of: ShareOf::History,
            pct: n,
            by,
        };
        let keep = match pick("exact_keep")? {
            0 => None,
            1 => Some(Keep::Turns(n)),
            2 => Some(Keep::Messages(n)),
            3 => Some(Keep::Tokens(n)),
            4 => Some(share(Measure::Tokens)),
            _ => Some(share(Measure::Chars)),
        };
        let text = self.value("exact_summary_text");
        let summary_at = match pick("exact_summary_at")? {
            0 => SummaryAt::Placement,
            1 => SummaryAt::System,
            2 => SummaryAt::FirstSystem,
            3 => SummaryAt::User,
            k => {
                if text.trim().is_empty() {
                    return Err("The fixed reply or user message is empty: write the words the summary comes with.".to_owned());
                }
                if k == 4 {
                    SummaryAt::UserThenAck(text)
                } else {
                    SummaryAt::AssistantAfter(text)
                }
            }
        };
        let exact = Exact {
            counted,
            compare: [Compare::Above, Compare::AtLeast][pick("exact_compare")?],
            check: [
                CheckAt::AfterReply,
                CheckAt::BeforeRequest,
                CheckAt::BeforeTurn,
                CheckAt::PreviousRequest,
            ][pick("exact_check")?],
            keep,
            start: [Start::Anywhere, Start::AtUser][pick("exact_start")?],
            summary_at,
            summary_prefix: self.value("exact_summary_prefix"),
            summary_overflow: [SummaryOverflow::Keep, SummaryOverflow::Resummarise]
                [pick("exact_overflow")?],
            counter: Counter::ALL[pick("exact_counter")?],
            ..self.base.clone()
        };
        exact
            .validate()
            .map_err(|e| format!("Exact policy: {e}."))?;
        Ok(exact)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::peers::exact;

    #[test]
    fn every_peers_exact_policy_reads_back_as_itself() {
        for policy in [
            exact::langchain_classic(100),
            exact::langchain_v1(300, 6),
            exact::llamaindex(250),
            exact::cookbook(2, 4),
            exact::gemini_cli(300),
            exact::codex(1_000),
        ]
        .map(|p| p.exact)
        .into_iter()
        .chain([Exact::default()])
        {
            let form = ExactForm::of(&policy);
            assert_eq!(form.exact().as_ref(), Ok(&policy));
            assert_eq!(form.is_exact(), policy.is_exact());
        }
    }

    #[test]
    fn a_changed_field_changes_the_policy_and_bad_values_name_their_field() {
        let mut form = ExactForm::of(&Exact::default());
        form.set("exact_keep", "messages".into());
        form.set("exact_keep_n", "3".into());
        assert_eq!(form.exact().unwrap().keep, Some(Keep::Messages(3)));
        form.set("exact_keep_n", "three".into());
        assert!(form.exact().unwrap_err().starts_with("N = \"three\""));
        form.set("exact_keep_n", "3".into());
        form.set("exact_summary_at", "assistant_after".into());
        assert!(
            form.exact()
                .unwrap_err()
                .contains("fixed reply or user message")
        );
        form.set("exact_summary_text", "Summarize.".into());
        assert_eq!(
            form.exact().unwrap().summary_at,
            SummaryAt::AssistantAfter("Summarize.".into())
        );
        form.set("exact_check", "sometimes".into());
        assert!(
            form.exact()
                .unwrap_err()
                .starts_with("When it looks: \"sometimes\"")
        );
        form.set("exact_check", "after_reply".into());
        form.set("exact_keep", "history_chars".into());
        form.set("exact_keep_n", "100".into());
        assert!(form.exact().unwrap_err().contains("between 1 and 99"));
    }

    #[test]
    fn the_defaults_are_todays_rules_and_the_first_choice_of_each_picker() {
        let today = ExactForm::of(&Exact::default());
        for field in EXACT_FIELDS {
            assert_eq!(
                today.value(field.name),
                field.default_value(),
                "{}",
                field.name
            );
            if let FieldKind::Choice(choices) = field.kind {
                assert_eq!(field.default_value(), choices[0].0);
            }
            assert!(!field.hint.is_empty() && field.hint.ends_with('.'));
        }
        assert!(today.changed().is_empty());
        assert!(EXACT_FIELDS.iter().all(|f| !today.is_open(f.name)));
    }

    /// Every other value of every field, set alone: that field and no other is changed, and
    /// Reset brings the form back to today's rules.
    #[test]
    fn a_field_set_alone_is_the_one_changed_and_reset_undoes_it() {
        for field in EXACT_FIELDS {
            let others: Vec<&str> = match field.kind {
                FieldKind::Choice(choices) => choices[1..].iter().map(|c| c.0).collect(),
                FieldKind::Number => vec!["3", "x", ""],
                FieldKind::Text => vec!["Hi", " "],
            };
            for value in others {
                let mut form = ExactForm::of(&Exact::default());
                form.set(field.name, value.to_owned());
                assert_eq!(
                    form.changed(),
                    vec![field.name],
                    "{} = {value:?}",
                    field.name
                );
                // Changed, but drawn where it was until the section is regrouped.
                assert!(!form.is_open(field.name));
                form.regroup();
                assert!(form.is_open(field.name));
                form.reset(field.name);
                assert!(form.changed().is_empty());
                assert_eq!(form.exact(), Ok(Exact::default()));
            }
        }
        // A number is compared by its value.
        let mut form = ExactForm::of(&Exact::default());
        form.set("exact_keep_n", " 00".into());
        assert!(form.changed().is_empty());
    }

    #[test]
    fn a_field_its_choice_does_not_use_says_so() {
        let mut form = ExactForm::of(&Exact::default());
        form.set("exact_keep_n", "5".into());
        form.set("exact_summary_text", "OK.".into());
        form.set("exact_summary_prefix", "Summary: ".into());
        for name in ["exact_keep_n", "exact_summary_text", "exact_summary_prefix"] {
            assert!(form.unused(name).is_some(), "{name}");
        }
        form.set("exact_keep", "messages".into());
        form.set("exact_summary_at", "user_then_ack".into());
        for name in ["exact_keep_n", "exact_summary_text", "exact_summary_prefix"] {
            assert_eq!(form.unused(name), None, "{name}");
        }
        // A field at its default is not reported.
        assert_eq!(
            ExactForm::of(&Exact::default()).unused("exact_keep_n"),
            None
        );
    }

    #[test]
    fn the_counter_is_a_field_each_counter_offered_in_its_words() {
        assert_eq!(
            COUNTER_CHOICES.to_vec(),
            Counter::ALL.map(|c| (c.slug(), c.label())).to_vec(),
            "every counter, in its own words"
        );
        let mut form = ExactForm::of(&Exact::default());
        assert_eq!(form.value("exact_counter"), "o200k");
        assert!(!form.is_changed("exact_counter"));
        for counter in Counter::ALL {
            form.set("exact_counter", counter.slug().into());
            assert_eq!(form.exact().unwrap().counter, counter);
            assert_eq!(form.is_changed("exact_counter"), !counter.is_default());
            // The counter measures; it does not make the rules exact.
            assert!(!form.is_exact());
        }
        form.set("exact_counter", "tiktoken".into());
        assert_eq!(
            form.exact().unwrap_err(),
            "Tokens counted with: \"tiktoken\" is not one of the choices."
        );
        // A preset's own counter is read, and kept.
        let mut policy = exact::llamaindex(250).exact;
        policy.counter = Counter::Tiktoken {
            vocabulary: crate::engine::policy::Vocabulary::Cl100k,
            chat: false,
        };
        let form = ExactForm::of(&policy);
        assert_eq!(form.value("exact_counter"), "cl100k");
        assert_eq!(form.exact().as_ref(), Ok(&policy));
    }

    #[test]
    fn a_form_read_from_a_peer_shows_its_changed_fields_open() {
        let form = ExactForm::of(&exact::langchain_v1(4_000, 20).exact);
        let open: Vec<&str> = EXACT_FIELDS
            .iter()
            .map(|f| f.name)
            .filter(|n| form.is_open(n))
            .collect();
        assert_eq!(
            open,
            [
                "exact_counted",
                "exact_compare",
                "exact_check",
                "exact_keep",
                "exact_keep_n",
                "exact_summary_at",
                "exact_summary_prefix",
                "exact_overflow",
            ]
        );
        assert_eq!(form.changed(), open);
    }
}
