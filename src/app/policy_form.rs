//! The memory policy as the Chat side panel edits it: the trigger and its parameters as typed,
//! the fold mode, the summary budget, the prompt (preset, then its text, word limit and
//! must-keep list, each editable, with a reset to the preset), the pinned facts, the summary
//! placement and format; and the summariser's own generation settings ([`SummarySetting`]),
//! which live in [`Settings`] because they belong to the endpoint, not to one conversation.
//!
//! The form keeps what the user typed even when it is invalid, says why beside the field, and
//! yields a policy only when every value works together; the caller applies that policy to the
//! session, so an invalid value never reaches the engine. The numbers are checked like the
//! Tuner's link parameters and the trigger by the same
//! [`crate::engine::policy::Trigger::validate`]. None of it is in the link.

use crate::app::exact_form::ExactForm;
use crate::engine::drift::{FactPattern, PinnedFact};
use crate::engine::policy::{
    FoldMode, Placement, Policy, SummaryFormat, TRIGGER_FIELDS, TriggerKind,
};
use crate::engine::prompts::{PresetId, PromptSpec};
use crate::engine::settings::{REASONING_EFFORTS, SUMMARY_EFFORT_OFF, Settings, SettingsError};
use crate::route::MAX_PARAM;

/// The largest word limit the form accepts: well past any summary worth the name.
pub const MAX_WORD_LIMIT: u32 = 5_000;
/// The longest must-keep list the form accepts.
pub const MAX_MUST_KEEP: usize = 30;

/// One change the user made in the panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicyEdit {
    Kind(TriggerKind),
    /// A number field, by its parameter name, with what was typed.
    Number(&'static str, String),
    Preset(PresetId),
    Placement(Placement),
    Format(SummaryFormat),
    Fold(FoldMode),
    /// The summary's token budget as typed; empty turns hierarchical compression off.
    SummaryBudget(String),
    /// The prompt's metadata option: each folded turn's time, speaker and the count folded.
    Metadata(bool),
    /// The prompt's text, its word limit as typed, and its must-keep list (one item a line).
    PromptText(String),
    WordLimit(String),
    MustKeep(String),
    /// The prompt's text, word limit and must-keep list back to the chosen preset's.
    ResetPrompt,
    /// A field of the "exact policy" section, by its name in
    /// [`crate::app::exact_form::EXACT_FIELDS`], with what was picked or typed.
    Exact(&'static str, String),
    /// The "exact policy" section or its fold of defaults opened or closed: the changed fields
    /// are drawn open again ([`ExactForm::regroup`]).
    ExactRegroup,
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
    pub fold: FoldMode,
    /// The summary budget as typed; empty is off.
    pub summary_budget: String,
    /// The prompt's text as typed.
    pub prompt_text: String,
    /// The word limit as typed.
    pub word_limit: String,
    /// The must-keep list as typed, one item a line.
    pub must_keep: String,
    /// The prompt's metadata option, as ticked.
    pub metadata: bool,
    pub placement: Placement,
    pub format: SummaryFormat,
    /// The "exact policy" section.
    pub exact: ExactForm,
    pub facts: Vec<PinnedFact>,
    /// The fact being typed.
    pub new_fact: String,
    /// Why the last fact could not be pinned.
    pub fact_error: Option<String>,
    /// The policy the form was read from, for what the panel does not edit.
    base: Policy,
}

/// A field of the panel that is not a trigger number, by its `policy-{name}` hook.
pub const PROMPT_FIELDS: [&str; 4] = ["summary_budget", "prompt", "word_limit", "must_keep"];

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
        let mut form = PolicyForm {
            kind: policy.trigger.kind(),
            numbers,
            preset: policy.prompt.preset,
            fold: policy.fold,
            summary_budget: policy
                .summary_budget
                .map(|b| b.to_string())
                .unwrap_or_default(),
            prompt_text: String::new(),
            word_limit: String::new(),
            must_keep: String::new(),
            metadata: policy.prompt.metadata,
            placement: policy.placement,
            format: policy.format,
            exact: ExactForm::of(&policy.exact),
            facts: facts.to_vec(),
            new_fact: String::new(),
            fact_error: None,
            base: policy.clone(),
        };
        form.show_prompt(&policy.prompt);
        form
    }

    /// Fills the prompt's fields from `spec`.
    fn show_prompt(&mut self, spec: &PromptSpec) {
        self.prompt_text = spec.text.clone();
        self.word_limit = spec.word_limit.to_string();
        self.must_keep = spec.must_keep.join("\n");
    }

    /// Whether the prompt's fields differ from the chosen preset's, so "reset to preset" has
    /// something to do (an invalid value counts as a difference).
    pub fn prompt_edited(&self) -> bool {
        self.prompt_spec()
            .is_none_or(|spec| spec != PromptSpec::from_preset(self.preset))
    }

    /// Why field `name` (one of [`PROMPT_FIELDS`], or `exact` for the "exact policy" section)
    /// cannot be used, or `None` when it can.
    pub fn field_error(&self, name: &str) -> Option<String> {
        match name {
            "exact" => self.exact.exact().err(),
            "summary_budget" => self.summary_budget_value().err(),
            "prompt" => self
                .prompt_text
                .trim()
                .is_empty()
                .then(|| "The prompt is empty: write the summariser's instructions, or reset to the preset.".to_owned()),
            "word_limit" => self.word_limit_value().err(),
            "must_keep" => {
                let items = self.must_keep_items().len();
                (items > MAX_MUST_KEEP).then(|| {
                    format!("The must-keep list has {items} items; keep at most {MAX_MUST_KEEP}, one a line.")
                })
            }
            _ => None,
        }
    }

    fn summary_budget_value(&self) -> Result<Option<u32>, String> {
        let raw = self.summary_budget.trim();
        if raw.is_empty() {
            return Ok(None);
        }
        raw.parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_PARAM).contains(n))
            .map(Some)
            .ok_or_else(|| {
                format!(
                    "Summary budget \"{raw}\" is not valid: expected a whole number of tokens from 1 to {MAX_PARAM}, or empty to turn compression off."
                )
            })
    }

    fn word_limit_value(&self) -> Result<u32, String> {
        let raw = self.word_limit.trim();
        raw.parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_WORD_LIMIT).contains(n))
            .ok_or_else(|| {
                format!(
                    "Word limit \"{raw}\" is not valid: expected a whole number of words from 1 to {MAX_WORD_LIMIT}."
                )
            })
    }

    fn must_keep_items(&self) -> Vec<String> {
        self.must_keep
            .lines()
            .map(|l| l.trim().trim_start_matches(['-', '*', '•']).trim())
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    }

    /// The prompt the fields describe, when they are valid.
    fn prompt_spec(&self) -> Option<PromptSpec> {
        let valid = ["prompt", "word_limit", "must_keep"]
            .iter()
            .all(|f| self.field_error(f).is_none());
        valid.then(|| PromptSpec {
            preset: self.preset,
            text: self.prompt_text.trim().to_owned(),
            word_limit: self.word_limit_value().unwrap_or(1),
            must_keep: self.must_keep_items(),
            metadata: self.metadata,
        })
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
            // A preset brings its own text, word limit and must-keep list, replacing any edit.
            PolicyEdit::Preset(preset) => {
                self.preset = preset;
                self.show_prompt(&PromptSpec::from_preset(preset));
            }
            PolicyEdit::Fold(fold) => self.fold = fold,
            PolicyEdit::SummaryBudget(raw) => self.summary_budget = raw,
            PolicyEdit::Metadata(on) => self.metadata = on,
            PolicyEdit::PromptText(raw) => self.prompt_text = raw,
            PolicyEdit::WordLimit(raw) => self.word_limit = raw,
            PolicyEdit::MustKeep(raw) => self.must_keep = raw,
            PolicyEdit::ResetPrompt => {
                self.metadata = false;
                self.show_prompt(&PromptSpec::from_preset(self.preset));
            }
            PolicyEdit::Placement(placement) => self.placement = placement,
            PolicyEdit::Format(format) => self.format = format,
            PolicyEdit::Exact(name, value) => self.exact.set(name, value),
            PolicyEdit::ExactRegroup => self.exact.regroup(),
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

    /// Why the trigger's values cannot be used now, or `None` when they can. The other fields
    /// say why beside themselves ([`PolicyForm::field_error`]).
    pub fn error(&self) -> Option<String> {
        self.trigger_policy().err()
    }

    /// The policy and facts the values describe.
    pub fn build(&self) -> Result<(Policy, Vec<PinnedFact>), String> {
        let mut policy = self.trigger_policy()?;
        let errors: Vec<String> = PROMPT_FIELDS
            .iter()
            .filter_map(|f| self.field_error(f))
            .collect();
        if !errors.is_empty() {
            return Err(format!("{} Nothing was changed.", errors.join(" ")));
        }
        policy.fold = self.fold;
        policy.summary_budget = self.summary_budget_value()?;
        policy.exact = self
            .exact
            .exact()
            .map_err(|e| format!("{e} Nothing was changed."))?;
        policy.prompt = self.prompt_spec().expect("every prompt field is valid");
        policy
            .validate()
            .map_err(|error| format!("{error}. Nothing was changed."))?;
        Ok((policy, self.facts.clone()))
    }

    /// The base policy with the trigger, placement and format of the form, checked.
    fn trigger_policy(&self) -> Result<Policy, String> {
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
        policy.trigger.validate().map_err(|error| {
            format!("The trigger parameters do not work together: {error}. Nothing was changed.")
        })?;
        Ok(policy)
    }
}

/// The phrase or pattern a fact looks for.
pub fn fact_source(fact: &PinnedFact) -> &str {
    let (FactPattern::Phrase(source) | FactPattern::Regex(source)) = &fact.pattern;
    source
}

/// One of the summariser's own generation settings, as the policy panel's `summary-settings`
/// block edits it in [`Settings`]. An empty field uses the chat's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SummarySetting {
    MaxTokens,
    Temperature,
    ReasoningEffort,
}

impl SummarySetting {
    pub const ALL: [SummarySetting; 3] = [
        SummarySetting::MaxTokens,
        SummarySetting::Temperature,
        SummarySetting::ReasoningEffort,
    ];

    /// The field's `data-testid`: `summary-max_tokens`, `summary-temperature`,
    /// `summary-reasoning_effort`.
    pub fn testid(self) -> &'static str {
        match self {
            SummarySetting::MaxTokens => "summary-max_tokens",
            SummarySetting::Temperature => "summary-temperature",
            SummarySetting::ReasoningEffort => "summary-reasoning_effort",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            SummarySetting::MaxTokens => "max_tokens",
            SummarySetting::Temperature => "Temperature (0 to 2)",
            SummarySetting::ReasoningEffort => "reasoning_effort",
        }
    }

    /// The choices of a select, as (value, label); empty for a text field.
    pub fn choices(self) -> Vec<(&'static str, &'static str)> {
        match self {
            SummarySetting::ReasoningEffort => {
                let mut out = vec![("", "As the chat"), (SUMMARY_EFFORT_OFF, "Not sent")];
                out.extend(REASONING_EFFORTS.iter().map(|l| (*l, *l)));
                out
            }
            _ => Vec::new(),
        }
    }

    /// What was typed.
    pub fn value(self, settings: &Settings) -> String {
        match self {
            SummarySetting::MaxTokens => settings.summary_max_tokens.clone(),
            SummarySetting::Temperature => settings.summary_temperature.clone(),
            SummarySetting::ReasoningEffort => settings.summary_reasoning_effort.clone(),
        }
    }

    /// Keeps what was typed, valid or not; [`SummarySetting::error`] says what is wrong.
    pub fn set(self, settings: &mut Settings, value: String) {
        match self {
            SummarySetting::MaxTokens => settings.summary_max_tokens = value,
            SummarySetting::Temperature => settings.summary_temperature = value,
            SummarySetting::ReasoningEffort => settings.summary_reasoning_effort = value,
        }
    }

    /// Why the typed value cannot be sent, or `None` when it can.
    pub fn error(self, settings: &Settings) -> Option<String> {
        let errors = settings.summary_overrides().err()?;
        errors
            .into_iter()
            .find(|e| match e {
                SettingsError::Summary(inner) => matches!(
                    (self, inner.as_ref()),
                    (SummarySetting::MaxTokens, SettingsError::MaxTokens(_))
                        | (SummarySetting::Temperature, SettingsError::Temperature(_))
                        | (
                            SummarySetting::ReasoningEffort,
                            SettingsError::ReasoningEffort(_)
                        )
                ),
                _ => false,
            })
            .map(|e| e.to_string())
    }

    /// What the field sends when it is empty, in words.
    pub fn placeholder(self) -> &'static str {
        "as the chat"
    }
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
    fn fold_mode_and_summary_budget_reach_the_policy_and_a_bad_budget_is_explained() {
        let mut form = form();
        assert_eq!(
            (form.fold, form.summary_budget.as_str()),
            (FoldMode::Progressive, "")
        );
        let (policy, _) = form
            .edit(PolicyEdit::Fold(FoldMode::RebuildFromArchive))
            .unwrap();
        assert_eq!(policy.fold, FoldMode::RebuildFromArchive);
        let (policy, _) = form.edit(PolicyEdit::SummaryBudget(" 40 ".into())).unwrap();
        assert_eq!(policy.summary_budget, Some(40));
        for bad in ["0", "-3", "lots", "100001"] {
            assert_eq!(
                form.edit(PolicyEdit::SummaryBudget(bad.into())),
                None,
                "{bad}"
            );
            let error = form.field_error("summary_budget").unwrap();
            assert!(
                error.contains(&format!("\"{bad}\" is not valid")),
                "{error}"
            );
            assert!(error.contains("empty to turn compression off"), "{error}");
            assert_eq!(form.summary_budget, bad, "what was typed stays");
            // A bad budget is said beside its own field, not as a trigger error.
            assert_eq!(form.error(), None);
        }
        let (policy, _) = form.edit(PolicyEdit::SummaryBudget(String::new())).unwrap();
        assert_eq!(policy.summary_budget, None);
        // The form shows a policy's own fold and budget.
        let shown = PolicyForm::from_policy(
            &Policy {
                fold: FoldMode::RebuildFromArchive,
                summary_budget: Some(25),
                ..Policy::default()
            },
            &[],
        );
        assert_eq!(
            (shown.fold, shown.summary_budget.as_str()),
            (FoldMode::RebuildFromArchive, "25")
        );
    }

    #[test]
    fn the_prompt_starts_from_the_preset_is_edited_and_reset() {
        let mut form = form();
        let preset = PromptSpec::from_preset(PresetId::FinancialAdvisor);
        assert_eq!(form.prompt_text, preset.text);
        assert_eq!(form.word_limit, "80");
        assert_eq!(form.must_keep.lines().count(), preset.must_keep.len());
        assert!(!form.prompt_edited());
        // The source's exercise: a must-keep item added, one a line.
        let list = format!("{}\n  - no equity, ever  \n\n", form.must_keep);
        let (policy, _) = form.edit(PolicyEdit::MustKeep(list)).unwrap();
        assert_eq!(policy.prompt.must_keep.last().unwrap(), "no equity, ever");
        assert_eq!(policy.prompt.must_keep.len(), preset.must_keep.len() + 1);
        assert!(policy.prompt.is_edited() && form.prompt_edited());
        let (policy, _) = form.edit(PolicyEdit::WordLimit("60".into())).unwrap();
        assert_eq!(policy.prompt.word_limit, 60);
        let (policy, _) = form
            .edit(PolicyEdit::PromptText("Summarise tersely.".into()))
            .unwrap();
        assert_eq!(policy.prompt.text, "Summarise tersely.");
        assert_eq!(
            policy.prompt.preset,
            PresetId::FinancialAdvisor,
            "it remembers where it started"
        );
        // The metadata option is part of the prompt: off by default, on when ticked.
        assert!(!policy.prompt.metadata && !form.metadata);
        let (policy, _) = form.edit(PolicyEdit::Metadata(true)).unwrap();
        assert!(policy.prompt.metadata);
        // Reset brings the preset back, whole.
        let (policy, _) = form.edit(PolicyEdit::ResetPrompt).unwrap();
        assert!(!form.metadata);
        assert_eq!(policy.prompt, preset);
        assert!(!form.prompt_edited());
        // Another preset replaces an edit with that preset's prompt.
        form.edit(PolicyEdit::WordLimit("33".into()));
        let (policy, _) = form.edit(PolicyEdit::Preset(PresetId::Research)).unwrap();
        assert_eq!(policy.prompt, PromptSpec::from_preset(PresetId::Research));
        assert_eq!(form.word_limit, "150");
        // An edited prompt is shown as it is when the form is read again.
        let mut edited = Policy::default();
        edited.prompt.must_keep = vec!["a".into(), "b".into()];
        let shown = PolicyForm::from_policy(&edited, &[]);
        assert_eq!(shown.must_keep, "a\nb");
        assert!(shown.prompt_edited());
    }

    #[test]
    fn an_invalid_prompt_field_is_kept_explained_beside_it_and_changes_nothing() {
        let mut form = form();
        assert_eq!(form.edit(PolicyEdit::PromptText("   ".into())), None);
        assert!(
            form.field_error("prompt")
                .unwrap()
                .contains("The prompt is empty")
        );
        assert!(form.prompt_edited(), "reset is offered");
        form.edit(PolicyEdit::ResetPrompt);
        assert_eq!(form.field_error("prompt"), None);
        for bad in ["0", "ten", "5001", ""] {
            assert_eq!(form.edit(PolicyEdit::WordLimit(bad.into())), None, "{bad}");
            let error = form.field_error("word_limit").unwrap();
            assert!(
                error.contains("expected a whole number of words from 1 to 5000"),
                "{error}"
            );
            assert_eq!(form.word_limit, bad);
        }
        form.edit(PolicyEdit::WordLimit("80".into()));
        let long: String = (0..31).map(|i| format!("item {i}\n")).collect();
        assert_eq!(form.edit(PolicyEdit::MustKeep(long)), None);
        assert!(form.field_error("must_keep").unwrap().contains("31 items"));
        let build = form.build().unwrap_err();
        assert!(build.contains("Nothing was changed"), "{build}");
        // An empty must-keep list is allowed: the prompt then names no facts.
        let (policy, _) = form.edit(PolicyEdit::MustKeep(" \n".into())).unwrap();
        assert!(policy.prompt.must_keep.is_empty());
        assert_eq!(form.field_error("nope"), None);
    }

    #[test]
    fn the_summarisers_settings_keep_what_was_typed_and_say_what_is_wrong() {
        let mut settings = Settings::default();
        for field in SummarySetting::ALL {
            assert_eq!(field.value(&settings), "");
            assert_eq!(field.error(&settings), None, "empty is the chat's value");
            assert!(field.testid().starts_with("summary-"));
        }
        SummarySetting::MaxTokens.set(&mut settings, "1000".into());
        SummarySetting::Temperature.set(&mut settings, "warm".into());
        assert_eq!(SummarySetting::MaxTokens.error(&settings), None);
        let error = SummarySetting::Temperature.error(&settings).unwrap();
        assert!(
            error.contains("\"warm\"") && error.contains("summariser"),
            "{error}"
        );
        assert_eq!(SummarySetting::Temperature.value(&settings), "warm");
        SummarySetting::ReasoningEffort.set(&mut settings, "huge".into());
        assert!(
            SummarySetting::ReasoningEffort
                .error(&settings)
                .unwrap()
                .contains("\"huge\"")
        );
        assert!(
            SummarySetting::Temperature.error(&settings).is_some(),
            "each says its own"
        );
        SummarySetting::ReasoningEffort.set(&mut settings, SUMMARY_EFFORT_OFF.into());
        assert_eq!(SummarySetting::ReasoningEffort.error(&settings), None);
        // The select offers "as the chat", "not sent" and every level.
        let choices = SummarySetting::ReasoningEffort.choices();
        assert_eq!(choices[0].0, "");
        assert_eq!(choices[1].0, SUMMARY_EFFORT_OFF);
        assert_eq!(choices.len(), 2 + REASONING_EFFORTS.len());
        assert!(SummarySetting::MaxTokens.choices().is_empty());
    }

    /// Plays a demo to its end after `edits` in the panel, with `summariser`, and returns its
    /// editions.
    fn played_after(
        kind: crate::route::DemoKind,
        summariser: crate::engine::demo::DemoSummariser,
        edits: Vec<PolicyEdit>,
    ) -> (
        crate::app::workbench::Workbench,
        Vec<crate::engine::edition::Edition>,
    ) {
        use crate::engine::message::WordCounter;
        let mut workbench = crate::app::workbench::Workbench::default();
        workbench.set_demo_summariser(summariser, &WordCounter);
        workbench.load(kind);
        for edit in edits {
            workbench.edit_policy(edit);
        }
        assert_eq!(workbench.error, None);
        workbench.play_all(&WordCounter);
        assert_eq!(workbench.error, None);
        let editions = workbench.demo().unwrap().editions().to_vec();
        (workbench, editions)
    }

    fn with_item(kind: crate::route::DemoKind, item: &str) -> PolicyEdit {
        let script = crate::app::workbench::script_for(kind);
        let mut list = script.policy.prompt.must_keep.join("\n");
        list.push('\n');
        list.push_str(item);
        PolicyEdit::MustKeep(list)
    }

    #[test]
    fn an_edited_must_keep_list_changes_the_next_demo_edition() {
        use crate::engine::demo::DemoSummariser::{Extractive, Scripted};
        use crate::route::DemoKind::{Drift, FinCoach};
        // The extractive summariser ranks the new item's sentences first.
        let (_, plain) = played_after(FinCoach, Extractive, vec![]);
        let (_, edited) = played_after(
            FinCoach,
            Extractive,
            vec![with_item(FinCoach, "SIPs and mutual funds")],
        );
        assert_eq!(plain.len(), edited.len());
        assert_ne!(plain[1].summary, edited[1].summary);
        assert!(
            edited[1]
                .summary
                .contains("Systematic Investment Plan (SIP) puts")
        );
        assert!(
            !plain[1]
                .summary
                .contains("Systematic Investment Plan (SIP) puts")
        );
        // Emptying the list changes it too: the preset's items were ranking sentences.
        let (_, emptied) =
            played_after(Drift, Extractive, vec![PolicyEdit::MustKeep(String::new())]);
        let (_, drift) = played_after(Drift, Extractive, vec![]);
        assert_ne!(emptied[0].summary, drift[0].summary);
        // The scripted editions were written for the preset: an edited prompt has the
        // extractive summariser write, and the writer says so.
        let (workbench, scripted) = played_after(Drift, Scripted, vec![]);
        assert!((1..=3).all(|c| workbench.on_screen().writer(c).unwrap().summariser == Scripted));
        let (workbench, edited) = played_after(
            Drift,
            Scripted,
            vec![with_item(Drift, "hard rules the user stated")],
        );
        assert_ne!(scripted[0].summary, edited[0].summary);
        let writer = workbench.on_screen().writer(1).unwrap();
        assert!(
            writer.summariser == Extractive && writer.fell_back,
            "{writer:?}"
        );
        // Reset to the preset brings the scripted editions back.
        let (workbench, reset) = played_after(
            Drift,
            Scripted,
            vec![
                with_item(Drift, "hard rules the user stated"),
                PolicyEdit::ResetPrompt,
            ],
        );
        assert_eq!(reset[0].summary, scripted[0].summary);
        assert_eq!(
            workbench.on_screen().writer(1).unwrap().summariser,
            Scripted
        );
    }

    #[test]
    fn a_small_summary_budget_compresses_the_demo_summary_up_to_level_three() {
        use crate::engine::demo::DemoSummariser::Scripted;
        use crate::route::DemoKind::Drift;
        let (_, plain) = played_after(Drift, Scripted, vec![]);
        assert!(plain.iter().all(|e| e.level == 0));
        let (_, budgeted) = played_after(
            Drift,
            Scripted,
            vec![PolicyEdit::SummaryBudget("20".into())],
        );
        let levels: Vec<u8> = budgeted.iter().map(|e| e.level).collect();
        assert!(
            levels.contains(&1) && levels.iter().all(|&l| l <= 3),
            "{levels:?}"
        );
        // A compression folds no turns and halves the word limit of its level.
        let first = budgeted.iter().find(|e| e.level == 1).unwrap();
        assert_eq!(first.folded, None);
        assert_eq!(first.word_limit, 40);
    }

    #[test]
    fn a_rebuild_reads_the_archive_and_its_editions_say_so() {
        use crate::engine::demo::DemoSummariser::Extractive;
        use crate::route::DemoKind::Drift;
        let (_, progressive) = played_after(Drift, Extractive, vec![]);
        let (workbench, rebuilt) = played_after(
            Drift,
            Extractive,
            vec![PolicyEdit::Fold(FoldMode::RebuildFromArchive)],
        );
        assert!(progressive.iter().all(|e| !e.rebuilt));
        assert!(rebuilt.iter().all(|e| e.rebuilt));
        // Edition 2 read turns 1-4 of the archive, not edition 1's summary plus turns 3-4.
        assert_ne!(rebuilt[1].tokens_in, progressive[1].tokens_in);
        let archive = workbench.demo().unwrap().memory().archive();
        let turns_1_to_4: u32 = archive[..8].iter().map(|m| m.tokens).sum();
        assert_eq!(rebuilt[1].tokens_in, turns_1_to_4);
        assert_eq!(
            crate::view::editions::headline(&rebuilt[1]),
            "Edition 2 · turns 3–4 folded, rebuilt from the archive (turns 1–4 read, no earlier summary)"
        );
        assert_eq!(
            crate::view::editions::headline(&progressive[1]),
            "Edition 2 · turns 3–4 folded"
        );
    }

    #[test]
    fn every_trigger_kind_round_trips_through_its_slug() {
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
        let trigger = Trigger::MessageCount { max_messages: 10 };
        let form = PolicyForm::from_policy(&Policy::new(trigger).unwrap(), &[]);
        assert_eq!(
            (form.kind, form.number("max_messages")),
            (TriggerKind::Messages, "10".into())
        );
    }
}
