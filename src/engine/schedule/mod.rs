//! The dry run: what each request of a simulated conversation would hold under a policy, with
//! no model. The tuner draws its table and chart from it.
//!
//! It asks [`Trigger::turns_to_fold`] exactly as [`crate::engine::MemoryState`] does, and it
//! assumes an instant summariser: a cycle that fires after turn `t` is already in the request
//! of turn `t + 1`. It counts fold cycles only; compressions of an over-long summary depend on
//! what the model writes and cannot be foreseen without one.
//!
//! Verbatim turns are always a contiguous run ending with the current turn, so a row stores
//! its first verbatim turn instead of a list, and 10,000 turns cost linear time.

mod messages;

pub use messages::{
    MessageInput, MessageRun, PlayedMessage, RequestRow, Sizer, Slot, SummaryInput, answers,
    played, schedule_messages, system_tokens,
};

use super::edition::TurnRange;
use super::message::Role;
use super::policy::{Placement, Policy, Trigger, TriggerView};

/// Tokens of one turn's user message and assistant reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnSize {
    pub user: u32,
    pub assistant: u32,
}

/// The size assumed for a turn whose size is not given: a short question and a reply of about
/// five sentences, close to the FinCoach demo (its first four turns average about 120 tokens
/// per message pair beyond the system prompt).
pub const DEFAULT_TURN_SIZE: TurnSize = TurnSize {
    user: 30,
    assistant: 90,
};

/// What to simulate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleInput {
    pub turns: u32,
    /// Known turn sizes, oldest first. Turns beyond the list use [`DEFAULT_TURN_SIZE`].
    pub sizes: Vec<TurnSize>,
    pub system_tokens: u32,
    /// The size assumed for the summary once there is one.
    pub summary_tokens: u32,
    /// The size of the summary each fold cycle leaves in the request, oldest first (a replay's
    /// own editions): cycle `k` (from 1) sends `summary_sizes[k - 1]`, and a cycle beyond the
    /// list sends `summary_tokens`.
    pub summary_sizes: Vec<u32>,
}

/// One simulated turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduleRow {
    /// The turn, from 1.
    pub turn: u32,
    /// The last turn covered by the summary sent in this turn's request; 0 when none is sent.
    pub summarised_to: u32,
    /// The first turn sent word for word; the verbatim turns run from here to `turn`.
    pub verbatim_from: u32,
    /// Messages in the request: system prompt, summary messages, verbatim messages.
    pub messages: u32,
    /// Tokens in the request.
    pub tokens: u64,
    /// The turns a cycle folds after this turn's reply, if one fires.
    pub folds: Option<TurnRange>,
}

/// The dry run of a whole conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub rows: Vec<ScheduleRow>,
    /// Summariser calls (fold cycles) in the run.
    pub calls: u32,
    /// Tokens over all chat requests.
    pub total_tokens: u64,
}

impl ScheduleInput {
    /// `turns` turns of the default size, a 300-token system prompt and a 150-token summary.
    pub fn uniform(turns: u32) -> ScheduleInput {
        ScheduleInput {
            turns,
            sizes: Vec::new(),
            system_tokens: 300,
            summary_tokens: 150,
            summary_sizes: Vec::new(),
        }
    }

    /// The summary's size in a request after `cycles` fold cycles (none before the first).
    pub fn summary_after(&self, cycles: u32) -> u32 {
        match cycles {
            0 => 0,
            k => self
                .summary_sizes
                .get(k as usize - 1)
                .copied()
                .unwrap_or(self.summary_tokens),
        }
    }

    /// The size of turn `turn` (from 1).
    pub fn size(&self, turn: u32) -> TurnSize {
        self.sizes
            .get(turn.saturating_sub(1) as usize)
            .copied()
            .unwrap_or(DEFAULT_TURN_SIZE)
    }
}

impl ScheduleRow {
    /// The verbatim turns, comma-separated, as the `data-verbatim` hook wants them.
    pub fn verbatim_list(&self) -> String {
        let turns: Vec<String> = (self.verbatim_from..=self.turn)
            .map(|t| t.to_string())
            .collect();
        turns.join(",")
    }

    /// The row in the notebook's words, e.g. `summary of turns 1 to 2 + verbatim turns [3, 4, 5]`.
    pub fn describe(&self) -> String {
        let summary = if self.summarised_to == 0 {
            "no summary".to_owned()
        } else if self.summarised_to == 1 {
            "summary of turn 1".to_owned()
        } else {
            format!("summary of turns 1 to {}", self.summarised_to)
        };
        format!(
            "{summary} + verbatim turns [{}]",
            self.verbatim_list().replace(',', ", ")
        )
    }
}

/// Messages the summary adds to a request under each placement.
pub fn summary_messages(placement: Placement) -> u32 {
    match placement {
        Placement::SecondSystem => 1,
        Placement::AppendToSystem => 0,
        Placement::UserAck => 2,
    }
}

/// The [`Sizer`] of a turn-level dry run: fixed texts count a token a word, and each summary is
/// as many words as its fold cycle's size ([`ScheduleInput::summary_after`]).
struct TurnSizer<'a> {
    input: &'a ScheduleInput,
    /// Model calls per fold cycle, so a call's number names its cycle.
    calls_per_fold: u32,
}

impl Sizer for TurnSizer<'_> {
    fn tokens(&self, text: &str) -> u32 {
        crate::engine::text::word_count(text)
    }

    fn summary(&self, call: u32) -> String {
        let cycle = call.div_ceil(self.calls_per_fold.max(1)).max(1);
        vec!["w"; self.input.summary_after(cycle) as usize].join(" ")
    }
}

/// An exact policy's turn-level dry run: the message-level run over the turns' two messages
/// each, read back into rows.
fn schedule_exact(policy: &Policy, input: &ScheduleInput) -> Schedule {
    let mut messages = Vec::with_capacity(2 * input.turns as usize);
    for turn in 1..=input.turns {
        let size = input.size(turn);
        for (role, tokens) in [(Role::User, size.user), (Role::Assistant, size.assistant)] {
            messages.push(PlayedMessage {
                role,
                tokens,
                chars: tokens.saturating_mul(4),
                calls: false,
            });
        }
    }
    let sizer = TurnSizer {
        input,
        calls_per_fold: policy.exact.calls_per_fold,
    };
    // The system prompt's text is not known here; only its size is.
    let run = schedule_messages(
        policy,
        &MessageInput {
            messages,
            system_prompt: "",
            system_tokens: input.system_tokens,
            sizer: &sizer,
        },
    );
    let turn_of = |index: usize| index as u32 / 2 + 1;
    let mut rows: Vec<ScheduleRow> = run
        .requests
        .iter()
        .map(|r| {
            let turn = turn_of(r.answers);
            let summarised_to = if r.from == 0 { 0 } else { turn_of(r.from - 1) };
            ScheduleRow {
                turn,
                summarised_to,
                verbatim_from: turn_of(r.from),
                messages: r.messages.len() as u32,
                tokens: r.tokens,
                folds: None,
            }
        })
        .collect();
    // A fold between two requests is shown on the earlier turn, as a fold after its reply.
    for t in 1..rows.len() {
        let (before, after) = (run.requests[t - 1].from, run.requests[t].from);
        if after > before {
            rows[t - 1].folds = Some(TurnRange {
                first: turn_of(before),
                last: turn_of(after - 1),
            });
        }
    }
    Schedule {
        total_tokens: rows.iter().map(|r| r.tokens).sum(),
        calls: run.calls,
        rows,
    }
}

/// Runs the policy over `input.turns` turns with an instant summariser. An exact policy runs
/// at message level ([`schedule_messages`]); any other over whole turns, here.
pub fn schedule(policy: &Policy, input: &ScheduleInput) -> Schedule {
    if policy.exact.is_exact() {
        return schedule_exact(policy, input);
    }
    let n = input.turns as usize;
    let summary_extra = summary_messages(policy.placement);
    let trigger: &Trigger = &policy.trigger;
    // `full[i]` is the size of turn i + 1; `prefix[i]` is the sum of the first i turns.
    let mut full: Vec<u32> = Vec::with_capacity(n);
    let mut prefix: Vec<u64> = Vec::with_capacity(n + 1);
    prefix.push(0);
    let mut rows = Vec::with_capacity(n);
    let (mut folded, mut calls, mut total) = (0usize, 0u32, 0u64);
    for turn in 1..=input.turns {
        let size = input.size(turn);
        let t = turn as usize;
        let summary = folded > 0;
        // The summary the latest cycle wrote (none before the first).
        let summary_size = u64::from(input.summary_after(calls));
        let tokens = u64::from(input.system_tokens)
            + summary_size
            + (prefix[t - 1] - prefix[folded])
            + u64::from(size.user);
        let messages =
            1 + if summary { summary_extra } else { 0 } + 2 * (t - 1 - folded) as u32 + 1;
        let whole = size.user.saturating_add(size.assistant);
        full.push(whole);
        prefix.push(prefix[t - 1] + u64::from(whole));
        let view = TriggerView {
            turn_tokens: &full[folded..t],
            verbatim_messages: 2 * (t - folded),
            messages_before: 2 * (t - 1),
            messages_now: 2 * t,
            fixed_tokens: u64::from(input.system_tokens) + summary_size,
        };
        let fold = trigger.turns_to_fold(&view);
        rows.push(ScheduleRow {
            turn,
            summarised_to: folded as u32,
            verbatim_from: folded as u32 + 1,
            messages,
            tokens,
            folds: (fold > 0).then(|| TurnRange {
                first: folded as u32 + 1,
                last: (folded + fold) as u32,
            }),
        });
        total += tokens;
        if fold > 0 {
            folded += fold;
            calls += 1;
        }
    }
    Schedule {
        rows,
        calls,
        total_tokens: total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turns(max_turns: u32, keep: u32) -> Policy {
        Policy::new(Trigger::Turns { max_turns, keep }).unwrap()
    }

    /// Checks a dry run row by row against the notebook's printed table.
    fn check(policy: Policy, expect_rows: &[&str], expect_calls: u32) {
        let run = schedule(&policy, &ScheduleInput::uniform(expect_rows.len() as u32));
        let got: Vec<String> = run
            .rows
            .iter()
            .map(|r| format!("turn {}: {}", r.turn, r.describe()))
            .collect();
        assert_eq!(got, expect_rows);
        assert_eq!(run.calls, expect_calls);
    }

    #[test]
    fn seed_table_summarise_after_4_keep_2() {
        check(
            turns(4, 2),
            &[
                "turn 1: no summary + verbatim turns [1]",
                "turn 2: no summary + verbatim turns [1, 2]",
                "turn 3: no summary + verbatim turns [1, 2, 3]",
                "turn 4: no summary + verbatim turns [1, 2, 3, 4]",
                "turn 5: summary of turns 1 to 2 + verbatim turns [3, 4, 5]",
                "turn 6: summary of turns 1 to 2 + verbatim turns [3, 4, 5, 6]",
                "turn 7: summary of turns 1 to 4 + verbatim turns [5, 6, 7]",
                "turn 8: summary of turns 1 to 4 + verbatim turns [5, 6, 7, 8]",
                "turn 9: summary of turns 1 to 6 + verbatim turns [7, 8, 9]",
                "turn 10: summary of turns 1 to 6 + verbatim turns [7, 8, 9, 10]",
            ],
            4,
        );
    }

    #[test]
    fn seed_table_summarise_after_4_keep_3() {
        check(
            turns(4, 3),
            &[
                "turn 1: no summary + verbatim turns [1]",
                "turn 2: no summary + verbatim turns [1, 2]",
                "turn 3: no summary + verbatim turns [1, 2, 3]",
                "turn 4: no summary + verbatim turns [1, 2, 3, 4]",
                "turn 5: summary of turn 1 + verbatim turns [2, 3, 4, 5]",
                "turn 6: summary of turns 1 to 2 + verbatim turns [3, 4, 5, 6]",
                "turn 7: summary of turns 1 to 3 + verbatim turns [4, 5, 6, 7]",
                "turn 8: summary of turns 1 to 4 + verbatim turns [5, 6, 7, 8]",
                "turn 9: summary of turns 1 to 5 + verbatim turns [6, 7, 8, 9]",
                "turn 10: summary of turns 1 to 6 + verbatim turns [7, 8, 9, 10]",
            ],
            7,
        );
    }

    #[test]
    fn seed_exercise_summarise_after_6_keep_2() {
        check(
            turns(6, 2),
            &[
                "turn 1: no summary + verbatim turns [1]",
                "turn 2: no summary + verbatim turns [1, 2]",
                "turn 3: no summary + verbatim turns [1, 2, 3]",
                "turn 4: no summary + verbatim turns [1, 2, 3, 4]",
                "turn 5: no summary + verbatim turns [1, 2, 3, 4, 5]",
                "turn 6: no summary + verbatim turns [1, 2, 3, 4, 5, 6]",
                "turn 7: summary of turns 1 to 4 + verbatim turns [5, 6, 7]",
                "turn 8: summary of turns 1 to 4 + verbatim turns [5, 6, 7, 8]",
                "turn 9: summary of turns 1 to 4 + verbatim turns [5, 6, 7, 8, 9]",
                "turn 10: summary of turns 1 to 4 + verbatim turns [5, 6, 7, 8, 9, 10]",
            ],
            2,
        );
    }

    #[test]
    fn rows_carry_the_ui_hooks() {
        let run = schedule(&turns(4, 2), &ScheduleInput::uniform(10));
        let row = run.rows[4];
        assert_eq!(row.summarised_to, 2);
        assert_eq!(row.verbatim_list(), "3,4,5");
        assert_eq!(run.rows[0].summarised_to, 0);
        assert_eq!(run.rows[3].folds, Some(TurnRange { first: 1, last: 2 }));
        assert_eq!(run.rows[4].folds, None);
    }

    #[test]
    fn messages_sent_match_the_fincoach_run() {
        // The seed's six-turn run sent 2, 4, 6, 8, 7 and 9 messages.
        let run = schedule(&turns(4, 2), &ScheduleInput::uniform(6));
        let sent: Vec<u32> = run.rows.iter().map(|r| r.messages).collect();
        assert_eq!(sent, [2, 4, 6, 8, 7, 9]);
    }

    #[test]
    fn tokens_follow_the_given_sizes() {
        let input = ScheduleInput {
            turns: 5,
            sizes: vec![
                TurnSize {
                    user: 10,
                    assistant: 100,
                };
                5
            ],
            system_tokens: 200,
            summary_tokens: 50,
            summary_sizes: Vec::new(),
        };
        let run = schedule(&turns(4, 2), &input);
        let tokens: Vec<u64> = run.rows.iter().map(|r| r.tokens).collect();
        // Turn 5 sends the system prompt, the summary, turns 3 and 4 whole and turn 5's question.
        assert_eq!(tokens, [210, 320, 430, 540, 200 + 50 + 220 + 10]);
        assert_eq!(run.total_tokens, tokens.iter().sum::<u64>());
    }

    #[test]
    fn token_trigger_uses_default_sizes_without_given_sizes() {
        let policy = Policy::new(Trigger::Tokens {
            budget: 400,
            keep_tokens: 250,
        })
        .unwrap();
        let run = schedule(&policy, &ScheduleInput::uniform(6));
        // Default turns are 120 tokens: after turn 4 (480 > 400) two turns fold, leaving 240.
        assert_eq!(run.rows[3].folds, Some(TurnRange { first: 1, last: 2 }));
        assert_eq!(
            run.rows[4].describe(),
            "summary of turns 1 to 2 + verbatim turns [3, 4, 5]"
        );
    }

    #[test]
    fn manual_trigger_never_fires_in_a_dry_run() {
        let policy = Policy::new(Trigger::Manual { keep: 2 }).unwrap();
        let run = schedule(&policy, &ScheduleInput::uniform(20));
        assert_eq!(run.calls, 0);
        assert_eq!(run.rows[19].verbatim_from, 1);
    }

    // A row after the first fold read "summary of turns 1 to 1".
    #[test]
    fn a_summary_of_one_turn_is_named_in_the_singular() {
        let rows = schedule(
            &Policy {
                trigger: Trigger::Turns {
                    max_turns: 2,
                    keep: 1,
                },
                ..Policy::default()
            },
            &ScheduleInput::uniform(4),
        )
        .rows;
        let said: Vec<String> = rows.iter().map(ScheduleRow::describe).collect();
        assert!(
            said.iter().any(|d| d.starts_with("summary of turn 1 +")),
            "{said:?}"
        );
        assert!(!said.iter().any(|d| d.contains("turns 1 to 1")), "{said:?}");
    }
}
