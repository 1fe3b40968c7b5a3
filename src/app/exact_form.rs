//! The "exact policy" section of the policy panel and of Inspect's replay form: the exact
//! vocabulary's fields ([`Exact`]) as the user picks and types them, in one table
//! ([`EXACT_FIELDS`]: the `policy-{name}` hook, the label, the choices), kept as typed and read
//! back into an [`Exact`] only when every value works, with an error naming the field.
//!
//! The section edits what the live chat honours. The fields it does not show (calls per fold,
//! the user's messages kept by a fold, the newest message always kept, tool traffic kept to its
//! turn, a fixed context message)
//! keep the values of the policy the form was read from.

use crate::engine::policy::{
    CheckAt, Compare, Counted, Exact, Keep, Measure, ShareOf, Start, SummaryAt, SummaryOverflow,
};

/// What kind of input a field is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// A picker: (value, label) pairs, the first is the default.
    Choice(&'static [(&'static str, &'static str)]),
    /// A whole number.
    Number,
    /// A line of text.
    Text,
}

/// One field of the section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExactField {
    /// The field's name: its `policy-{name}` (and `replay-{name}`) hook.
    pub name: &'static str,
    pub label: &'static str,
    pub kind: FieldKind,
}

/// Every field of the section, in the order it shows them.
pub const EXACT_FIELDS: [ExactField; 10] = [
    ExactField {
        name: "exact_counted",
        label: "The threshold counts",
        kind: FieldKind::Choice(&[
            ("trigger", "what the trigger counts (today's rule)"),
            ("all", "the whole request"),
            ("history", "the stored history, not the system prompt"),
            ("verbatim", "the verbatim messages only"),
        ]),
    },
    ExactField {
        name: "exact_compare",
        label: "Fires when the count is",
        kind: FieldKind::Choice(&[
            ("above", "over the threshold (>)"),
            ("at_least", "at or over the threshold (>=)"),
        ]),
    },
    ExactField {
        name: "exact_check",
        label: "Checked",
        kind: FieldKind::Choice(&[
            ("after_reply", "after each reply"),
            ("before_request", "before each request, on its size"),
            ("before_turn", "before each turn's first request"),
            (
                "previous_request",
                "before each request, on the previous request's reported size",
            ),
        ]),
    },
    ExactField {
        name: "exact_keep",
        label: "Keeps verbatim",
        kind: FieldKind::Choice(&[
            ("trigger", "what the trigger keeps (whole turns)"),
            ("turns", "the last N turns"),
            ("messages", "the last N messages"),
            ("tokens", "the newest messages within N tokens"),
            ("history_tokens", "the newest N% of the history, by tokens"),
            (
                "history_chars",
                "the newest N% of the history, by characters",
            ),
        ]),
    },
    ExactField {
        name: "exact_keep_n",
        label: "N",
        kind: FieldKind::Number,
    },
    ExactField {
        name: "exact_start",
        label: "The kept part may start",
        kind: FieldKind::Choice(&[
            (
                "anywhere",
                "on any message (a tool's result stays with its call)",
            ),
            ("at_user", "only on a user message"),
        ]),
    },
    ExactField {
        name: "exact_summary_at",
        label: "The summary goes",
        kind: FieldKind::Choice(&[
            ("placement", "where the placement above says"),
            ("system", "in its own system message"),
            (
                "first_system",
                "in a system message before the system prompt",
            ),
            ("user", "in a lone user message"),
            ("user_then_ack", "in a user message, then a fixed reply"),
            ("assistant_after", "as the answer to a fixed user prompt"),
        ]),
    },
    ExactField {
        name: "exact_summary_text",
        label: "The fixed reply or prompt",
        kind: FieldKind::Text,
    },
    ExactField {
        name: "exact_summary_prefix",
        label: "Text before the summary",
        kind: FieldKind::Text,
    },
    ExactField {
        name: "exact_overflow",
        label: "When only the old summary is cut off",
        kind: FieldKind::Choice(&[
            ("keep", "keep it, with no call"),
            ("resummarise", "summarise it again"),
        ]),
    },
];

/// The section's values as typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactForm {
    values: Vec<(&'static str, String)>,
    /// The exact policy the form was read from, for the fields it does not show.
    base: Exact,
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
            ],
            base: exact.clone(),
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
            let field = EXACT_FIELDS
                .iter()
                .find(|f| f.name == name)
                .expect("every name is in the table");
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
                    return Err("The fixed reply or prompt is empty: write the text the summary comes with.".to_owned());
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
        assert!(form.exact().unwrap_err().contains("fixed reply or prompt"));
        form.set("exact_summary_text", "Summarize.".into());
        assert_eq!(
            form.exact().unwrap().summary_at,
            SummaryAt::AssistantAfter("Summarize.".into())
        );
        form.set("exact_check", "sometimes".into());
        assert!(
            form.exact()
                .unwrap_err()
                .starts_with("Checked: \"sometimes\"")
        );
        form.set("exact_check", "after_reply".into());
        form.set("exact_keep", "history_chars".into());
        form.set("exact_keep_n", "100".into());
        assert!(form.exact().unwrap_err().contains("between 1 and 99"));
    }
}
