//! The memory policy as the Chat side panel edits it: the trigger and its parameters as typed,
//! the prompt preset, the pinned facts, the summary placement and format.
//!
//! The form keeps what the user typed even when it is invalid, says why, and yields a policy only
//! when every value works together; the caller applies that policy to the session, so an invalid
//! value never reaches the engine. The numbers are checked like the Tuner's link parameters and
//! the trigger by the same [`crate::engine::policy::Trigger::validate`].

use crate::engine::drift::{FactPattern, PinnedFact};
use crate::engine::policy::{Placement, Policy, SummaryFormat, TRIGGER_FIELDS, TriggerKind};
use crate::engine::prompts::{PresetId, PromptSpec};
use crate::route::MAX_PARAM;

/// One change the user made in the panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicyEdit {
    Kind(TriggerKind),
    /// A number field, by its parameter name, with what was typed.
    Number(&'static str, String),
    Preset(PresetId),
    Placement(Placement),
    Format(SummaryFormat),
    /// The text of the fact about to be pinned.
    NewFact(String),
    AddFact,
    RemoveFact(usize),
}

/// The panel's values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyForm {
    pub kind: TriggerKind,
    /// What was typed in each number field, by parameter name (every field, shown or not, so
    /// switching the kind back finds the old values).
    numbers: Vec<(&'static str, String)>,
    pub preset: PresetId,
    pub placement: Placement,
    pub format: SummaryFormat,
    pub facts: Vec<PinnedFact>,
    /// The fact being typed.
    pub new_fact: String,
    /// Why the last fact could not be pinned.
    pub fact_error: Option<String>,
    /// The policy the form was read from, for what the panel does not edit (fold mode, summary
    /// budget, a custom prompt).
    base: Policy,
}

/// The placement choices, as (value, label).
pub const PLACEMENTS: [(Placement, &str, &str); 3] = [
    (
        Placement::SecondSystem,
        "second_system",
        "A second system message",
    ),
    (
        Placement::AppendToSystem,
        "append",
        "Appended to the system prompt",
    ),
    (
        Placement::UserAck,
        "user_ack",
        "A user message with an acknowledgement",
    ),
];

/// The format choices, as (value, slug, label).
pub const FORMATS: [(SummaryFormat, &str, &str); 3] = [
    (SummaryFormat::Prose, "prose", "Prose paragraph"),
    (
        SummaryFormat::Structured,
        "structured",
        "Structured (JSON memory)",
    ),
    (
        SummaryFormat::Topics,
        "topics",
        "Topic sections (one short section per topic)",
    ),
];

impl PolicyForm {
    /// The form showing `policy` and `facts`.
    pub fn from_policy(policy: &Policy, facts: &[PinnedFact]) -> PolicyForm {
        // Fields the current trigger does not use start from the Tuner's defaults.
        let mut numbers: Vec<(&'static str, String)> = TRIGGER_FIELDS
            .iter()
            .map(|f| (f.param, f.default.to_string()))
            .collect();
        for (param, value) in policy.trigger.params() {
            if let Some(slot) = numbers.iter_mut().find(|(n, _)| *n == param) {
                slot.1 = value.to_string();
            }
        }
        PolicyForm {
            kind: policy.trigger.kind(),
            numbers,
            preset: policy.prompt.preset,
            placement: policy.placement,
            format: policy.format,
            facts: facts.to_vec(),
            new_fact: String::new(),
            fact_error: None,
            base: policy.clone(),
        }
    }

    /// What was typed in a number field.
    pub fn number(&self, param: &str) -> String {
        self.numbers
            .iter()
            .find(|(n, _)| *n == param)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }

    /// The presets the picker offers: the five built in, and a custom prompt when the policy
    /// has one.
    pub fn presets(&self) -> Vec<PresetId> {
        let mut out = PresetId::BUILT_IN.to_vec();
        if self.base.prompt.preset == PresetId::Custom {
            out.push(PresetId::Custom);
        }
        out
    }

    /// Records one change. Returns the policy and facts to apply when the form is valid after
    /// it, and `None` when it is not (the reason is in [`PolicyForm::error`]) or when the change
    /// was only to the fact being typed.
    pub fn edit(&mut self, edit: PolicyEdit) -> Option<(Policy, Vec<PinnedFact>)> {
        match edit {
            PolicyEdit::Kind(kind) => self.kind = kind,
            PolicyEdit::Number(param, raw) => {
                if let Some(slot) = self.numbers.iter_mut().find(|(n, _)| *n == param) {
                    slot.1 = raw;
                }
            }
            PolicyEdit::Preset(preset) => self.preset = preset,
            PolicyEdit::Placement(placement) => self.placement = placement,
            PolicyEdit::Format(format) => self.format = format,
            PolicyEdit::NewFact(text) => {
                self.new_fact = text;
                self.fact_error = None;
                return None;
            }
            PolicyEdit::AddFact => {
                let phrase = self.new_fact.trim().to_owned();
                self.fact_error = if phrase.is_empty() {
                    Some("Type a word or phrase to pin first.".to_owned())
                } else if self.facts.iter().any(|f| fact_source(f) == phrase) {
                    Some(format!("\"{phrase}\" is already pinned."))
                } else {
                    None
                };
                if self.fact_error.is_some() {
                    return None;
                }
                self.facts.push(PinnedFact::phrase(phrase.clone(), phrase));
                self.new_fact.clear();
            }
            PolicyEdit::RemoveFact(index) => {
                if index < self.facts.len() {
                    self.facts.remove(index);
                }
            }
        }
        self.build().ok()
    }

    /// Why the values cannot be used now, or `None` when they can.
    pub fn error(&self) -> Option<String> {
        self.build().err()
    }

    /// The policy and facts the values describe.
    pub fn build(&self) -> Result<(Policy, Vec<PinnedFact>), String> {
        let mut bad = Vec::new();
        let mut n = |param: &str| -> u32 {
            let raw = self.number(param);
            match raw.trim().parse::<u32>().ok().filter(|n| *n <= MAX_PARAM) {
                Some(n) => n,
                None => {
                    bad.push(format!(
                        "{param} = \"{}\" is not valid: expected a whole number from 0 to {MAX_PARAM}.",
                        raw.trim()
                    ));
                    0
                }
            }
        };
        let trigger = self.kind.build(&mut n);
        if !bad.is_empty() {
            return Err(format!("{} Nothing was changed.", bad.join(" ")));
        }
        let mut policy = self.base.clone();
        policy.trigger = trigger;
        policy.placement = self.placement;
        policy.format = self.format;
        if self.preset != self.base.prompt.preset {
            policy.prompt = PromptSpec::from_preset(self.preset);
        }
        policy.validate().map_err(|error| {
            format!("The trigger parameters do not work together: {error}. Nothing was changed.")
        })?;
        Ok((policy, self.facts.clone()))
    }
}

/// The phrase or pattern a fact looks for.
pub fn fact_source(fact: &PinnedFact) -> &str {
    let (FactPattern::Phrase(source) | FactPattern::Regex(source)) = &fact.pattern;
    source
}

pub fn placement_slug(placement: Placement) -> &'static str {
    PLACEMENTS
        .iter()
        .find(|p| p.0 == placement)
        .map_or("second_system", |p| p.1)
}

pub fn placement_from_slug(slug: &str) -> Option<Placement> {
    PLACEMENTS.iter().find(|p| p.1 == slug).map(|p| p.0)
}

pub fn format_slug(format: SummaryFormat) -> &'static str {
    FORMATS
        .iter()
        .find(|f| f.0 == format)
        .map_or("prose", |f| f.1)
}

pub fn format_from_slug(slug: &str) -> Option<SummaryFormat> {
    FORMATS.iter().find(|f| f.1 == slug).map(|f| f.0)
}

/// The link-free name of a preset, for the picker's values.
pub fn preset_slug(preset: PresetId) -> &'static str {
    match preset {
        PresetId::FinancialAdvisor => "financial_advisor",
        PresetId::Technical => "technical",
        PresetId::CustomerSupport => "customer_support",
        PresetId::Research => "research",
        PresetId::Generic => "generic",
        PresetId::Custom => "custom",
    }
}

pub fn preset_from_slug(slug: &str) -> Option<PresetId> {
    PresetId::BUILT_IN
        .into_iter()
        .chain([PresetId::Custom])
        .find(|p| preset_slug(*p) == slug)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::policy::Trigger;

    fn form() -> PolicyForm {
        PolicyForm::from_policy(
            &Policy::default(),
            &[PinnedFact::phrase("salary", "1,20,000")],
        )
    }

    #[test]
    fn the_form_shows_the_policy_and_a_valid_edit_yields_the_new_policy() {
        let mut form = form();
        assert_eq!(form.kind, TriggerKind::Turns);
        assert_eq!(
            (form.number("max_turns"), form.number("keep")),
            ("4".into(), "2".into())
        );
        assert_eq!(form.error(), None);
        let (policy, facts) = form
            .edit(PolicyEdit::Number("max_turns", "3".into()))
            .unwrap();
        assert_eq!(
            policy.trigger,
            Trigger::Turns {
                max_turns: 3,
                keep: 2
            }
        );
        assert_eq!(facts.len(), 1);
        let (policy, _) = form.edit(PolicyEdit::Kind(TriggerKind::Every)).unwrap();
        assert_eq!(policy.trigger, Trigger::Every { n: 6 });
        let (policy, _) = form
            .edit(PolicyEdit::Placement(Placement::UserAck))
            .unwrap();
        assert_eq!(policy.placement, Placement::UserAck);
        let (policy, _) = form
            .edit(PolicyEdit::Format(SummaryFormat::Structured))
            .unwrap();
        assert_eq!(policy.format, SummaryFormat::Structured);
        let (policy, _) = form.edit(PolicyEdit::Preset(PresetId::Technical)).unwrap();
        assert_eq!(policy.prompt, PromptSpec::from_preset(PresetId::Technical));
    }

    #[test]
    fn invalid_values_are_kept_explained_and_never_yield_a_policy() {
        let mut form = form();
        assert_eq!(form.edit(PolicyEdit::Number("keep", "4".into())), None);
        let error = form.error().unwrap();
        assert!(
            error.contains("keep (4) must be smaller than max_turns (4)"),
            "{error}"
        );
        assert_eq!(
            form.number("keep"),
            "4",
            "what was typed stays in the field"
        );
        assert_eq!(
            form.edit(PolicyEdit::Number("max_turns", "four".into())),
            None
        );
        let error = form.error().unwrap();
        assert!(
            error.contains("max_turns = \"four\" is not valid"),
            "{error}"
        );
        // Fixing both makes it valid again.
        form.edit(PolicyEdit::Number("max_turns", "5".into()));
        assert!(form.edit(PolicyEdit::Number("keep", "1".into())).is_some());
        assert_eq!(form.error(), None);
        // A field the chosen kind does not show cannot make it invalid.
        form.edit(PolicyEdit::Number("budget", "x".into()));
        assert_eq!(form.error(), None);
        assert!(form.edit(PolicyEdit::Kind(TriggerKind::Tokens)).is_none());
    }

    #[test]
    fn facts_are_pinned_and_unpinned_with_empty_and_duplicate_phrases_refused() {
        let mut form = form();
        assert_eq!(form.edit(PolicyEdit::NewFact("equit".into())), None);
        let (_, facts) = form.edit(PolicyEdit::AddFact).unwrap();
        assert_eq!(
            facts.iter().map(fact_source).collect::<Vec<_>>(),
            ["1,20,000", "equit"]
        );
        assert!(form.new_fact.is_empty());
        assert_eq!(form.edit(PolicyEdit::AddFact), None);
        assert!(form.fact_error.as_deref().unwrap().contains("Type a word"));
        form.edit(PolicyEdit::NewFact(" equit ".into()));
        assert_eq!(form.edit(PolicyEdit::AddFact), None);
        assert!(
            form.fact_error
                .as_deref()
                .unwrap()
                .contains("already pinned")
        );
        let (_, facts) = form.edit(PolicyEdit::RemoveFact(0)).unwrap();
        assert_eq!(facts.iter().map(fact_source).collect::<Vec<_>>(), ["equit"]);
    }

    #[test]
    fn every_choice_round_trips_through_its_slug() {
        for kind in TriggerKind::ALL {
            assert_eq!(TriggerKind::from_slug(kind.slug()), Some(kind));
            assert!(!kind.fields().is_empty());
            // The form offers every kind, each with its own fields at their defaults.
            let mut form = PolicyForm::from_policy(&Policy::default(), &[]);
            form.edit(PolicyEdit::Kind(kind));
            assert_eq!(
                form.build().map(|(p, _)| p.trigger),
                Ok(kind.with_defaults())
            );
        }
        for (placement, slug, _) in PLACEMENTS {
            assert_eq!(placement_from_slug(slug), Some(placement));
            assert_eq!(placement_slug(placement), slug);
        }
        for (format, slug, _) in FORMATS {
            assert_eq!(format_from_slug(slug), Some(format));
            assert_eq!(format_slug(format), slug);
        }
        for preset in PresetId::BUILT_IN.into_iter().chain([PresetId::Custom]) {
            assert_eq!(preset_from_slug(preset_slug(preset)), Some(preset));
        }
        let trigger = Trigger::MessageCount { max_messages: 10 };
        let form = PolicyForm::from_policy(&Policy::new(trigger).unwrap(), &[]);
        assert_eq!(
            (form.kind, form.number("max_messages")),
            (TriggerKind::Messages, "10".into())
        );
    }
}
