//! The trigger form of Inspect's replay: a kind and two numbers, read from the engine's
//! [`Trigger`] that a session was recorded under and turned back into one as the user edits.
//! The kinds, their fields and labels are the shared [`TriggerKind`] table; [`ReplayForm::of`]
//! is the one mapping from a trigger to the form, so every trigger kind, message count
//! included, replays as itself.

use crate::engine::policy::{Trigger, TriggerKind};

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
        let mut form = ReplayForm {
            kind: trigger.kind(),
            a: UNUSED_A,
            b: 0,
        };
        for (param, value) in trigger.params() {
            if SECOND.contains(&param) {
                form.b = value;
            } else {
                form.a = value;
            }
        }
        form
    }

    /// The trigger the form describes. It is checked by the replay, which names what is
    /// invalid.
    pub fn trigger(&self) -> Trigger {
        self.kind.build(|param| {
            if SECOND.contains(&param) {
                self.b
            } else {
                self.a
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::message::WordCounter;
    use crate::engine::policy::Policy;
    use crate::engine::session::{Session, SessionSettings};
    use crate::view::inspect::InspectView;

    #[test]
    fn the_form_labels_come_from_the_shared_trigger_fields() {
        assert_eq!(
            labels(ReplayKind::Turns),
            ("Summarise at (turns)", "Keep verbatim (turns)")
        );
        assert_eq!(
            labels(ReplayKind::Tokens),
            ("Token budget", "Keep verbatim (tokens)")
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
}
