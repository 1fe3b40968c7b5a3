//! Inspect's replay. [`ReplayForm`] is its trigger form: a kind and two numbers, read from the
//! engine's [`Trigger`] that a session was recorded under and turned back into one as the user
//! edits. The kinds, their fields and labels are the shared [`TriggerKind`] table;
//! [`ReplayForm::of`] is the one mapping from a trigger to the form, so every trigger kind,
//! message count included, replays as itself. [`ReplayPolicy`] is the rest of the policy a
//! replay can change (placement, fold mode, prompt preset, word limit, summary budget, and the
//! numbers a kind has beyond two). [`Replayer`] (in `engine::replay`) plays the session's own messages
//! again under it into a new session, with the built-in extractive summariser
//! ([`replay_offline`]) or the endpoint's summariser model (Inspect's live replay, priced first
//! by [`estimate`]): the original is never changed.

mod form;

pub use form::{NumberField, ReplayEdit, TurnPick};

use crate::app::exact_form::ExactForm;
use crate::engine::policy::{FoldMode, Placement, Policy, PolicyError, Trigger, TriggerKind};
use crate::engine::prompts::{PresetId, PromptSpec};

// The replay's run is pure engine code (the corpus comparison runs it too), so it lives in
// `engine::replay`; these names stay for the tab's callers.
pub use crate::engine::replay::{ReplayError, Replayer, SummaryCost, estimate, replay_offline};

/// The name of the new session a replay of `name` writes.
pub fn replayed_name(name: &str) -> String {
    format!("{name} (replayed)")
}

/// The replay offers every trigger kind, from the one table the link, the policy panel and the
/// Tuner use.
pub type ReplayKind = TriggerKind;

/// The parameters the form's second number holds; every other parameter is its first.
const SECOND: [&str; 2] = ["keep", "keep_tokens"];

/// The labels of the form's two number fields, from the kind's own fields; "(unused)" for one
/// the kind ignores.
pub fn labels(kind: ReplayKind) -> (&'static str, &'static str) {
    let fields = kind.fields();
    let find = |second: bool| {
        fields
            .iter()
            .find(|f| SECOND.contains(&f.param) == second)
            .map_or("(unused)", |f| f.label)
    };
    (find(false), find(true))
}

/// What the replay's form holds: the kind and its two numbers, `a` and `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayForm {
    pub kind: ReplayKind,
    pub a: u32,
    pub b: u32,
}

/// The first number a kind without one starts from, should the user switch to a kind that has.
const UNUSED_A: u32 = 4;

impl ReplayForm {
    /// The form showing `trigger`, the one the session was recorded under.
    pub fn of(trigger: &Trigger) -> ReplayForm {
        let kind = trigger.kind();
        let (a, b) = form_params(kind);
        ReplayForm {
            kind,
            a: a.and_then(|p| trigger.param(p)).unwrap_or(UNUSED_A),
            b: b.and_then(|p| trigger.param(p)).unwrap_or(0),
        }
    }

    /// The trigger the form describes; a number the form does not hold is at its default. It
    /// is checked by the replay, which names what is invalid.
    pub fn trigger(&self) -> Trigger {
        let (a, b) = form_params(self.kind);
        self.kind.build(|param| {
            if Some(param) == a {
                self.a
            } else if Some(param) == b {
                self.b
            } else {
                TriggerKind::default_of(param)
            }
        })
    }
}

/// The parameters the form's two numbers hold for `kind`: its first field that is not a keep,
/// and its keep field.
fn form_params(kind: ReplayKind) -> (Option<&'static str>, Option<&'static str>) {
    let fields = kind.fields();
    let find = |second: bool| {
        fields
            .iter()
            .find(|f| SECOND.contains(&f.param) == second)
            .map(|f| f.param)
    };
    (find(false), find(true))
}

/// The whole policy a replay runs under, beside its trigger form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayPolicy {
    pub trigger: ReplayForm,
    /// Numbers of the kind beyond the form's two (the window trigger's share and turns), by
    /// parameter name.
    pub extra: Vec<(&'static str, u32)>,
    pub placement: Placement,
    pub fold: FoldMode,
    pub preset: PresetId,
    pub word_limit: u32,
    /// `None` turns hierarchical compression off.
    pub summary_budget: Option<u32>,
    /// The "exact policy" section.
    pub exact: ExactForm,
    /// What was typed in each number field the user changed, by field name
    /// ([`ReplayPolicy::edit`]), kept even when it is not a number.
    typed: Vec<(&'static str, String)>,
}

impl ReplayPolicy {
    /// The form showing `policy`, the one the session was recorded under.
    pub fn of(policy: &Policy) -> ReplayPolicy {
        let trigger = ReplayForm::of(&policy.trigger);
        let (a, b) = form_params(trigger.kind);
        let extra = policy
            .trigger
            .params()
            .into_iter()
            .filter(|(param, _)| Some(*param) != a && Some(*param) != b)
            .collect();
        ReplayPolicy {
            trigger,
            extra,
            placement: policy.placement,
            fold: policy.fold,
            preset: policy.prompt.preset,
            word_limit: policy.prompt.word_limit,
            summary_budget: policy.summary_budget,
            exact: ExactForm::of(&policy.exact),
            typed: Vec::new(),
        }
    }

    /// The policy the form describes, starting from `recorded`: the prompt's text is the
    /// recorded one while the preset stays, the chosen preset's once it changes.
    /// A number field that is not a number is named first ([`ReplayPolicy::typed_error`]).
    pub fn policy(&self, recorded: &Policy) -> Result<Policy, PolicyError> {
        if let Some(error) = self.typed_error() {
            return Err(error);
        }
        let form = self.trigger;
        let trigger = form.kind.build(|param| {
            self.extra
                .iter()
                .find(|(p, _)| *p == param)
                .map(|(_, v)| *v)
                .or_else(|| form.trigger().param(param))
                .unwrap_or_else(|| TriggerKind::default_of(param))
        });
        let mut prompt = if self.preset == recorded.prompt.preset {
            recorded.prompt.clone()
        } else {
            PromptSpec::from_preset(self.preset)
        };
        prompt.word_limit = self.word_limit;
        let policy = Policy {
            trigger,
            placement: self.placement,
            fold: self.fold,
            prompt,
            format: recorded.format,
            summary_budget: self.summary_budget,
            exact: self.exact.exact().map_err(PolicyError::ExactField)?,
        };
        policy.validate()?;
        Ok(policy)
    }

    /// Sets a number of the kind beyond the form's two.
    pub fn set_extra(&mut self, param: &'static str, value: u32) {
        self.extra.retain(|(p, _)| *p != param);
        self.extra.push((param, value));
    }

    /// The value of a number beyond the form's two, or its default.
    pub fn extra(&self, param: &str) -> u32 {
        self.extra
            .iter()
            .find(|(p, _)| *p == param)
            .map_or_else(|| TriggerKind::default_of(param), |(_, v)| *v)
    }

    /// The kind's fields that the form's two numbers do not hold.
    pub fn extra_fields(&self) -> Vec<crate::engine::policy::TriggerField> {
        let (a, b) = form_params(self.trigger.kind);
        self.trigger
            .kind
            .fields()
            .into_iter()
            .filter(|f| Some(f.param) != a && Some(f.param) != b)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::edition::Provenance;
    use crate::engine::library_session::{Session, SessionSettings};
    use crate::engine::message::{Role, WordCounter};
    use crate::engine::policy::Policy;
    use crate::view::inspect::InspectView;

    #[test]
    fn the_form_labels_come_from_the_shared_trigger_fields() {
        assert_eq!(
            labels(ReplayKind::Turns),
            ("Summarise at (turns)", "Keep verbatim (turns)")
        );
        assert_eq!(
            labels(ReplayKind::Tokens),
            (
                "Token budget of the verbatim turns (the system prompt and summary come on top)",
                "Keep verbatim (tokens)"
            )
        );
        assert_eq!(labels(ReplayKind::Every), ("Every N messages", "(unused)"));
        assert_eq!(
            labels(ReplayKind::Messages),
            ("Over N messages", "(unused)")
        );
        assert_eq!(
            labels(ReplayKind::Manual),
            ("(unused)", "Keep verbatim (turns)")
        );
    }

    #[test]
    fn every_trigger_kind_replays_as_itself() {
        for trigger in [
            Trigger::Turns {
                max_turns: 5,
                keep: 2,
            },
            Trigger::Tokens {
                budget: 900,
                keep_tokens: 300,
            },
            Trigger::Every { n: 6 },
            Trigger::MessageCount { max_messages: 7 },
            Trigger::Manual { keep: 3 },
        ] {
            let form = ReplayForm::of(&trigger);
            assert_eq!(form.trigger(), trigger);
            assert_eq!(form.kind.slug(), trigger.slug());
            assert_eq!(ReplayKind::from_slug(form.kind.slug()), Some(form.kind));
        }
        assert_eq!(ReplayKind::from_slug("sometimes"), None);
    }

    /// A session recorded under a message-count trigger was replayed as "every N messages": the
    /// form had no message-count kind, so it showed and ran another trigger.
    #[test]
    fn a_message_count_session_replays_under_message_count() {
        let trigger = Trigger::MessageCount { max_messages: 4 };
        let mut memory =
            crate::engine::memory::MemoryState::new("sys", Policy::new(trigger.clone()).unwrap())
                .unwrap();
        for t in 0..6u64 {
            use crate::engine::message::{Message, Role};
            for (role, text) in [(Role::User, "question"), (Role::Assistant, "an answer")] {
                let job = memory
                    .add_message(Message::new(role, format!("{text} {t}"), &WordCounter, t))
                    .unwrap();
                if let Some(job) = job {
                    let meta = crate::engine::memory::CommitMeta {
                        model: None,
                        provenance: crate::engine::edition::Provenance::Model,
                        at_ms: t,
                    };
                    memory
                        .commit(job.id, "summary", meta, &WordCounter)
                        .unwrap();
                }
            }
        }
        let session = Session::new("counted", SessionSettings::default(), memory);
        let view = InspectView::new(&session, &WordCounter);
        let form = ReplayForm::of(&view.trigger);
        assert_eq!(form.kind, ReplayKind::Messages);
        assert_eq!(labels(form.kind).0, "Over N messages");
        let replayed = view.replay(&session, form.trigger()).unwrap();
        let recorded = view.replay(&session, trigger).unwrap();
        assert_eq!(replayed.schedule.calls, recorded.schedule.calls);
        assert_eq!(
            replayed.schedule.calls as usize,
            session.memory.editions().len(),
            "the replay finds the cycles the session recorded"
        );
        // What the old form ran instead fires on other turns.
        let every = view.replay(&session, Trigger::Every { n: 4 }).unwrap();
        assert_ne!(every.schedule.rows, replayed.schedule.rows);
    }

    /// Twelve turns under 8/4: two editions.
    /// The text of every archived message, in order: what a replay must carry over.
    pub(super) fn archive_texts(session: &Session) -> Vec<String> {
        session
            .memory
            .archive()
            .iter()
            .map(|m| m.content.clone())
            .collect()
    }

    fn twelve_turns() -> Session {
        crate::engine::session::synthetic(12)
    }

    #[test]
    fn the_whole_policy_round_trips_through_the_form_for_every_kind() {
        for kind in TriggerKind::ALL {
            let mut policy = Policy::new(kind.with_defaults()).unwrap();
            policy.placement = Placement::UserAck;
            policy.fold = FoldMode::RebuildFromArchive;
            policy.summary_budget = Some(120);
            let form = ReplayPolicy::of(&policy);
            assert_eq!(form.policy(&policy).unwrap(), policy, "{kind:?}");
        }
        // The window trigger's share and turns are the numbers beyond the form's two.
        let form = ReplayPolicy::of(&Policy::new(TriggerKind::Window.with_defaults()).unwrap());
        let extra: Vec<&str> = form.extra_fields().iter().map(|f| f.param).collect();
        assert_eq!(extra, ["fire_pct", "keep_pct", "keep_turns"]);
        assert!(
            ReplayPolicy::of(&Policy::default())
                .extra_fields()
                .is_empty()
        );
    }

    #[test]
    fn a_changed_preset_brings_its_prompt_and_an_invalid_value_is_named() {
        let recorded = Policy::default();
        let mut form = ReplayPolicy::of(&recorded);
        assert_eq!(form.policy(&recorded).unwrap().prompt, recorded.prompt);
        form.preset = PresetId::Technical;
        form.word_limit = 55;
        let policy = form.policy(&recorded).unwrap();
        assert_eq!(
            policy.prompt.text,
            PromptSpec::from_preset(PresetId::Technical).text
        );
        assert_eq!(policy.prompt.word_limit, 55);
        form.word_limit = 0;
        assert_eq!(form.policy(&recorded), Err(PolicyError::ZeroWordLimit));
    }

    #[test]
    fn an_offline_replay_writes_new_editions_into_a_new_session() {
        let session = twelve_turns();
        let before = session.clone();
        let recorded = session.memory.policy().clone();
        let mut form = ReplayPolicy::of(&recorded);
        form.trigger = ReplayForm {
            kind: TriggerKind::Turns,
            a: 2,
            b: 1,
        };
        form.placement = Placement::UserAck;
        form.fold = FoldMode::RebuildFromArchive;
        let policy = form.policy(&recorded).unwrap();
        let replayed = replay_offline(&session, policy.clone(), &WordCounter, "replay").unwrap();
        assert_eq!(session, before, "the original is never changed");
        assert_eq!(replayed.name, "replay");
        assert_eq!(replayed.memory.policy(), &policy);
        // Every message is archived again, in order, with its text.
        assert_eq!(archive_texts(&replayed), archive_texts(&session));
        // 2/1 over twelve turns folds after every turn from the second: more cycles than 8/4.
        let editions = replayed.memory.editions();
        assert_eq!(editions.len(), 11);
        assert!(
            editions
                .iter()
                .all(|e| e.provenance == Provenance::Extractive)
        );
        assert!(editions.len() > session.memory.editions().len());
        // The request places the summary as a user message with an acknowledgement.
        let request = replayed.memory.request(&WordCounter);
        assert_eq!(request[1].role, Role::User);
        assert_eq!(request[2].content, crate::engine::memory::SUMMARY_ACK);
        // An exported replay imports again.
        let file = crate::engine::session::export(&replayed, 1, "test");
        assert!(crate::engine::session::import(file.as_bytes(), &WordCounter).is_ok());
    }
}
