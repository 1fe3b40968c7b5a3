//! Sliding window and full history over the same simulated conversation as a summary-memory
//! schedule, so the tuner can chart what each strategy sends per turn and in total.
//! [`window_turns`] is the sliding window a policy is compared with.
//!
//! A turn's size is its question and everything after it: for an imported transcript, the
//! reply side holds the tool calls and results too (`view::inspect` sums them so), so a window
//! that keeps a turn sends its tool traffic, and the full history sends all of it.

use super::policy::{TRIGGER_FIELDS, Trigger};
use super::schedule::{Schedule, ScheduleInput};

/// The sliding window compared against a policy keeps as many turns as that policy keeps
/// verbatim right after a cycle, so both send about the same number of recent turns; a policy
/// that keeps no number of turns is compared with the turn trigger's default keep.
pub fn window_turns(trigger: &Trigger) -> u32 {
    match *trigger {
        Trigger::Turns { keep, .. } | Trigger::Manual { keep } => keep.max(1),
        _ => TRIGGER_FIELDS[1].default,
    }
}

/// One turn of the comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompareRow {
    pub turn: u32,
    /// The first turn the sliding window still sends (it sends up to `turn`).
    pub window_from: u32,
    pub window_tokens: u64,
    pub full_tokens: u64,
    /// Tokens of the summary-memory request, from the schedule.
    pub summary_tokens: u64,
    pub window_total: u64,
    pub full_total: u64,
    pub summary_total: u64,
}

/// The three strategies over one conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    pub window_turns: u32,
    pub rows: Vec<CompareRow>,
}

/// Compares a sliding window of the last `window_turns` turns (the current one included; older
/// turns are dropped, not summarised) and the full history with the summary schedule that was
/// run on the same `input`. A window of 0 is treated as 1: the current question is always sent.
pub fn compare(input: &ScheduleInput, window_turns: u32, summary: &Schedule) -> Comparison {
    let window = window_turns.max(1);
    let system = u64::from(input.system_tokens);
    let mut prefix: Vec<u64> = Vec::with_capacity(input.turns as usize + 1);
    prefix.push(0);
    let mut rows = Vec::with_capacity(input.turns as usize);
    let (mut window_total, mut full_total, mut summary_total) = (0u64, 0u64, 0u64);
    for turn in 1..=input.turns {
        let t = turn as usize;
        let size = input.size(turn);
        let window_from = turn.saturating_sub(window - 1).max(1);
        let question = u64::from(size.user);
        let window_tokens = system + prefix[t - 1] - prefix[window_from as usize - 1] + question;
        let full_tokens = system + prefix[t - 1] + question;
        let summary_tokens = summary.rows.get(t - 1).map_or(0, |r| r.tokens);
        prefix.push(prefix[t - 1] + u64::from(size.user) + u64::from(size.assistant));
        window_total += window_tokens;
        full_total += full_tokens;
        summary_total += summary_tokens;
        rows.push(CompareRow {
            turn,
            window_from,
            window_tokens,
            full_tokens,
            summary_tokens,
            window_total,
            full_total,
            summary_total,
        });
    }
    Comparison {
        window_turns: window,
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::policy::{Policy, Trigger};
    use crate::engine::schedule::{TurnSize, schedule};

    #[test]
    fn window_full_and_summary_over_the_same_turns() {
        let input = ScheduleInput {
            turns: 5,
            sizes: vec![
                TurnSize {
                    user: 10,
                    assistant: 90,
                };
                5
            ],
            system_tokens: 100,
            summary_tokens: 40,
            summary_sizes: Vec::new(),
        };
        let policy = Policy::new(Trigger::Turns {
            max_turns: 4,
            keep: 2,
        })
        .unwrap();
        let run = schedule(&policy, &input);
        let cmp = compare(&input, 3, &run);
        let window: Vec<u64> = cmp.rows.iter().map(|r| r.window_tokens).collect();
        let full: Vec<u64> = cmp.rows.iter().map(|r| r.full_tokens).collect();
        assert_eq!(window, [110, 210, 310, 310, 310]);
        assert_eq!(full, [110, 210, 310, 410, 510]);
        assert_eq!(cmp.rows[4].window_from, 3);
        assert_eq!(cmp.rows[4].summary_tokens, 100 + 40 + 200 + 10);
        assert_eq!(cmp.rows[4].full_total, full.iter().sum::<u64>());
        assert_eq!(cmp.rows[4].summary_total, run.total_tokens);
    }

    #[test]
    fn a_zero_window_still_sends_the_question() {
        let input = ScheduleInput::uniform(2);
        let run = schedule(&Policy::default(), &input);
        let cmp = compare(&input, 0, &run);
        assert_eq!(cmp.window_turns, 1);
        assert_eq!(cmp.rows[1].window_tokens, 300 + 30);
    }

    #[test]
    fn tool_traffic_in_a_turn_is_sent_by_the_window_and_the_full_history() {
        // Turn 1 is a question of 10 tokens and a reply side of 90 (a call, its result and
        // the answer); the window of 2 turns and the full history both send all of it at
        // turn 2, and a window of 1 none of it.
        let input = ScheduleInput {
            turns: 2,
            sizes: vec![
                TurnSize {
                    user: 10,
                    assistant: 90,
                },
                TurnSize {
                    user: 5,
                    assistant: 5,
                },
            ],
            system_tokens: 0,
            summary_tokens: 0,
            summary_sizes: Vec::new(),
        };
        let run = schedule(&Policy::default(), &input);
        assert_eq!(compare(&input, 2, &run).rows[1].window_tokens, 105);
        assert_eq!(compare(&input, 2, &run).rows[1].full_tokens, 105);
        assert_eq!(compare(&input, 1, &run).rows[1].window_tokens, 5);
    }
}
