//! The replay's form as the user types it: [`ReplayEdit`], one change, applied by
//! [`ReplayPolicy::edit`], as [`crate::app::policy_form::PolicyEdit`] is to the Chat's panel.
//! Each number field keeps what was typed even when it is not a number, and says why beside
//! itself ([`NumberField::error`]); while one does, the form yields no policy, so the replay
//! never runs on a value the page no longer shows. [`TurnPick`] is the turn whose request the
//! replay's stacked bar shows, typed the same way.

use super::{ReplayForm, ReplayKind, ReplayPolicy, labels};
use crate::engine::policy::{FoldMode, Placement, Policy, PolicyError};
use crate::engine::prompts::PresetId;

/// One change the user made in the replay's form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayEdit {
    /// Another trigger kind: its numbers start from the kind's defaults.
    Kind(ReplayKind),
    /// A number field, by its name (`a`, `b`, a parameter of the kind beyond them,
    /// `word_limit` or `summary_budget`), with what was typed.
    Number(&'static str, String),
    Placement(Placement),
    Fold(FoldMode),
    Preset(PresetId),
    /// A field of the "exact policy" section, by its name, with what was picked or typed.
    Exact(&'static str, String),
    /// The "exact policy" section or its fold of defaults opened or closed.
    ExactRegroup,
    /// A policy read back in the export panel: the whole form shows it.
    Import(Policy),
}

/// A number field as the form draws it: its name, words, hooks, the text shown and why that
/// text cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumberField {
    pub name: &'static str,
    pub label: &'static str,
    /// `replay-{name}`.
    pub testid: String,
    /// `replay-{name}-error`, beside the field while it is wrong.
    pub error_testid: String,
    /// The input's `min`.
    pub min: &'static str,
    /// What was typed, or the value's own text when nothing was.
    pub text: String,
    pub error: Option<String>,
}

/// The fields of the prompt, after the trigger's.
const PROMPT_NUMBERS: [&str; 2] = ["word_limit", "summary_budget"];

impl ReplayPolicy {
    /// Records one change. Returns whether it changes what the replay runs (a regroup of the
    /// exact section does not), so that a result drawn from the old policy is cleared.
    pub fn edit(&mut self, edit: ReplayEdit) -> bool {
        match edit {
            ReplayEdit::Kind(kind) => {
                self.trigger = ReplayForm::of(&kind.with_defaults());
                self.typed.retain(|(name, _)| PROMPT_NUMBERS.contains(name));
            }
            ReplayEdit::Number(name, raw) => {
                if let Ok(value) = self.read(name, &raw) {
                    match (name, value) {
                        ("a", Some(n)) => self.trigger.a = n,
                        ("b", Some(n)) => self.trigger.b = n,
                        ("word_limit", Some(n)) => self.word_limit = n,
                        ("summary_budget", budget) => self.summary_budget = budget,
                        (param, Some(n)) => self.set_extra(param, n),
                        (_, None) => {}
                    }
                }
                self.typed.retain(|(n, _)| *n != name);
                self.typed.push((name, raw));
            }
            ReplayEdit::Placement(placement) => self.placement = placement,
            ReplayEdit::Fold(fold) => self.fold = fold,
            ReplayEdit::Preset(preset) => self.preset = preset,
            ReplayEdit::Exact(name, value) => self.exact.set(name, value),
            ReplayEdit::ExactRegroup => {
                self.exact.regroup();
                return false;
            }
            ReplayEdit::Import(policy) => *self = ReplayPolicy::of(&policy),
        }
        true
    }

    /// The trigger's number fields: the form's two, then the kind's others.
    pub fn trigger_fields(&self) -> Vec<NumberField> {
        let (first, second) = labels(self.trigger.kind);
        let mut fields = vec![self.field("a", first, "0"), self.field("b", second, "0")];
        fields.extend(
            self.extra_fields()
                .into_iter()
                .map(|f| self.field(f.param, f.label, "0")),
        );
        fields
    }

    /// The prompt's number fields: the word limit and the summary budget.
    pub fn prompt_fields(&self) -> Vec<NumberField> {
        vec![
            self.field("word_limit", "Word limit", "1"),
            self.field(
                "summary_budget",
                "Summary budget (tokens; empty for none)",
                "1",
            ),
        ]
    }

    /// Why the first field that is wrong cannot be used, in the field's own words.
    pub fn typed_error(&self) -> Option<PolicyError> {
        self.trigger_fields()
            .into_iter()
            .chain(self.prompt_fields())
            .find_map(|f| f.error)
            .map(PolicyError::ExactField)
    }

    /// What field `name` shows: what was typed, or its value's text when nothing was.
    pub fn field_text(&self, name: &str) -> String {
        self.typed
            .iter()
            .find(|(n, _)| *n == name)
            .map_or_else(|| self.value_text(name), |(_, raw)| raw.clone())
    }

    /// Why what was typed in field `name` cannot be used, or `None` when it can.
    pub fn field_error(&self, name: &str) -> Option<String> {
        let (_, raw) = self.typed.iter().find(|(n, _)| *n == name)?;
        self.read(name, raw).err()
    }

    fn field(&self, name: &'static str, label: &'static str, min: &'static str) -> NumberField {
        NumberField {
            name,
            label,
            testid: format!("replay-{name}"),
            error_testid: format!("replay-{name}-error"),
            min,
            text: self.field_text(name),
            error: self.field_error(name),
        }
    }

    /// The value of field `name` as text.
    fn value_text(&self, name: &str) -> String {
        match name {
            "a" => self.trigger.a.to_string(),
            "b" => self.trigger.b.to_string(),
            "word_limit" => self.word_limit.to_string(),
            "summary_budget" => self
                .summary_budget
                .map(|b| b.to_string())
                .unwrap_or_default(),
            param => self.extra(param).to_string(),
        }
    }

    /// What `raw` reads as in field `name` (`None`: the summary budget left empty), or why it
    /// reads as nothing. The numbers' ranges are the policy's to check, naming the value.
    fn read(&self, name: &str, raw: &str) -> Result<Option<u32>, String> {
        let raw = raw.trim();
        if name == "summary_budget" {
            return if raw.is_empty() {
                Ok(None)
            } else {
                raw.parse().map(Some).map_err(|_| {
                    format!(
                        "Summary budget \"{raw}\" is not valid: type a whole number of tokens, or leave it empty for none."
                    )
                })
            };
        }
        let label = self.label_of(name);
        if raw.is_empty() {
            return Err(format!("{label} is empty: type a whole number."));
        }
        raw.parse()
            .map(Some)
            .map_err(|_| format!("{label} \"{raw}\" is not valid: type a whole number."))
    }

    /// The words of field `name`.
    fn label_of(&self, name: &str) -> &'static str {
        let (first, second) = labels(self.trigger.kind);
        match name {
            "a" => first,
            "b" => second,
            "word_limit" => "Word limit",
            "summary_budget" => "Summary budget",
            param => self
                .trigger
                .kind
                .fields()
                .into_iter()
                .find(|f| f.param == param)
                .map_or("This field", |f| f.label),
        }
    }
}

/// The turn whose request the replay's stacked bar shows, as typed: the last valid one stays
/// drawn while the text is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnPick {
    pub text: String,
    pub turn: u32,
    turns: u32,
}

impl TurnPick {
    /// The last of a session's `turns`.
    pub fn last(turns: u32) -> TurnPick {
        let turn = turns.max(1);
        TurnPick {
            text: turn.to_string(),
            turn,
            turns,
        }
    }

    /// The user typed `raw`.
    pub fn edit(&mut self, raw: String) {
        self.text = raw;
        if let Ok(turn) = self.read() {
            self.turn = turn;
        }
    }

    /// Why the text is not a turn of the session, or `None` when it is.
    pub fn error(&self) -> Option<String> {
        self.read().err()
    }

    /// The input's `max`.
    pub fn max(&self) -> String {
        self.turns.to_string()
    }

    fn read(&self) -> Result<u32, String> {
        let raw = self.text.trim();
        raw.parse()
            .ok()
            .filter(|n| (1..=self.turns).contains(n))
            .ok_or_else(|| {
                format!(
                    "Turn \"{raw}\" is not valid: type a turn of this session, from 1 to {}.",
                    self.turns
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::policy::{Trigger, TriggerKind};

    fn turns(max_turns: u32, keep: u32) -> Policy {
        Policy::new(Trigger::Turns { max_turns, keep }).unwrap()
    }

    #[test]
    fn typed_garbage_is_kept_and_named_and_no_policy_runs_on_it() {
        let recorded = turns(8, 4);
        let mut form = ReplayPolicy::of(&recorded);
        assert!(form.edit(ReplayEdit::Number("a", "1.5".into())));
        assert_eq!(form.field_text("a"), "1.5", "the text typed is kept");
        assert_eq!(form.trigger.a, 8, "the last number stays underneath");
        let error = form.field_error("a").unwrap();
        assert!(error.contains("Summarise at (turns)"), "{error}");
        assert!(error.contains("\"1.5\""), "{error}");
        assert_eq!(
            form.policy(&recorded),
            Err(PolicyError::ExactField(error.clone())),
            "the replay does not run on a value the page no longer shows"
        );
        let field = &form.trigger_fields()[0];
        assert_eq!(
            (field.testid.as_str(), field.error_testid.as_str()),
            ("replay-a", "replay-a-error")
        );
        assert_eq!(field.error.as_deref(), Some(error.as_str()));
        // An empty field is named too.
        form.edit(ReplayEdit::Number("word_limit", " ".into()));
        assert_eq!(
            form.field_error("word_limit").as_deref(),
            Some("Word limit is empty: type a whole number.")
        );
        assert_eq!(form.prompt_fields()[0].text, " ");
    }

    #[test]
    fn a_fix_clears_the_error_and_a_valid_value_changes_the_policy() {
        let recorded = turns(8, 4);
        let mut form = ReplayPolicy::of(&recorded);
        form.edit(ReplayEdit::Number("a", "-3".into()));
        form.edit(ReplayEdit::Number("summary_budget", "lots".into()));
        assert!(
            form.field_error("summary_budget")
                .unwrap()
                .contains("\"lots\"")
        );
        form.edit(ReplayEdit::Number("a", "6".into()));
        assert_eq!(form.field_error("a"), None);
        form.edit(ReplayEdit::Number("summary_budget", "120".into()));
        assert_eq!(form.field_error("summary_budget"), None);
        let policy = form.policy(&recorded).unwrap();
        assert_eq!(
            policy.trigger,
            Trigger::Turns {
                max_turns: 6,
                keep: 4
            }
        );
        assert_eq!(policy.summary_budget, Some(120));
        // Emptied, the budget turns compression off; a number out of range is the policy's to
        // name.
        form.edit(ReplayEdit::Number("summary_budget", String::new()));
        assert_eq!(form.policy(&recorded).unwrap().summary_budget, None);
        form.edit(ReplayEdit::Number("word_limit", "0".into()));
        assert_eq!(form.field_error("word_limit"), None);
        assert_eq!(form.policy(&recorded), Err(PolicyError::ZeroWordLimit));
    }

    #[test]
    fn the_kinds_other_numbers_are_named_by_their_label_and_a_new_kind_starts_clean() {
        let recorded = Policy::new(TriggerKind::Window.with_defaults()).unwrap();
        let mut form = ReplayPolicy::of(&recorded);
        let names: Vec<&str> = form.trigger_fields().iter().map(|f| f.name).collect();
        assert_eq!(names, ["a", "b", "fire_pct", "keep_pct", "keep_turns"]);
        form.edit(ReplayEdit::Number("fire_pct", "most".into()));
        let error = form.field_error("fire_pct").unwrap();
        let label = TriggerKind::Window
            .fields()
            .into_iter()
            .find(|f| f.param == "fire_pct")
            .unwrap()
            .label;
        assert!(error.starts_with(label), "{error}");
        form.edit(ReplayEdit::Number("fire_pct", "70".into()));
        assert_eq!(form.extra("fire_pct"), 70);
        assert_eq!(
            form.policy(&recorded).unwrap().trigger.param("fire_pct"),
            Some(70)
        );
        // Another kind: its fields show its defaults, whatever was typed before.
        form.edit(ReplayEdit::Number("a", "x".into()));
        form.edit(ReplayEdit::Number("word_limit", "y".into()));
        form.edit(ReplayEdit::Kind(TriggerKind::Turns));
        assert_eq!(form.field_error("a"), None);
        assert_eq!(form.field_text("a"), form.trigger.a.to_string());
        assert!(
            form.field_error("word_limit").is_some(),
            "the prompt's text stays"
        );
        // A regroup of the exact section changes nothing the replay runs; an import shows the
        // policy read, dropping what was typed.
        assert!(!form.edit(ReplayEdit::ExactRegroup));
        assert!(form.edit(ReplayEdit::Import(turns(5, 2))));
        assert_eq!(form, ReplayPolicy::of(&turns(5, 2)));
    }

    #[test]
    fn the_turn_typed_is_kept_and_named_and_the_last_valid_one_stays_drawn() {
        let mut at = TurnPick::last(12);
        assert_eq!(
            (at.text.as_str(), at.turn, at.max().as_str()),
            ("12", 12, "12")
        );
        at.edit("3".into());
        assert_eq!((at.turn, at.error()), (3, None));
        for typed in ["", "0", "13", "two"] {
            at.edit(typed.into());
            assert_eq!(at.text, typed);
            assert_eq!(at.turn, 3, "{typed:?}");
            let error = at.error().unwrap();
            assert!(error.contains("from 1 to 12"), "{error}");
        }
        at.edit(" 5 ".into());
        assert_eq!((at.turn, at.error()), (5, None));
    }
}
