use super::*;
use crate::engine::policy::{
    CheckAt, Compare, Counted, Exact, Keep, Measure, ShareOf, Start, SummaryAt, SummaryOverflow,
    Trigger,
};
use crate::engine::schedule::{ScheduleInput, TurnSize, schedule};

/// The contract's counter and summariser: a token a word, and call k writes `S<k>` and 19 `w`.
struct Words;

impl Sizer for Words {
    fn tokens(&self, text: &str) -> u32 {
        crate::engine::text::word_count(text)
    }

    fn summary(&self, call: u32) -> String {
        let mut words = vec![format!("S{call}")];
        words.extend(std::iter::repeat_n("w".to_owned(), 19));
        words.join(" ")
    }
}

fn played(sizes: &[(Role, u32)]) -> Vec<PlayedMessage> {
    sizes
        .iter()
        .map(|&(role, tokens)| PlayedMessage {
            role,
            tokens,
            chars: tokens * 2,
            calls: false,
        })
        .collect()
}

fn turns(sizes: &[(u32, u32)]) -> Vec<PlayedMessage> {
    let flat: Vec<(Role, u32)> = sizes
        .iter()
        .flat_map(|&(u, a)| [(Role::User, u), (Role::Assistant, a)])
        .collect();
    played(&flat)
}

fn run(policy: &Policy, messages: Vec<PlayedMessage>) -> MessageRun {
    schedule_messages(
        policy,
        &MessageInput {
            messages,
            system_prompt: "be brief",
            system_tokens: 2,
            sizer: &Words,
        },
    )
}

/// The verbatim indices of each request.
fn verbatim(run: &MessageRun) -> Vec<Vec<usize>> {
    run.requests
        .iter()
        .map(|r| {
            r.messages
                .iter()
                .filter_map(|s| match s {
                    Slot::Verbatim(i) => Some(*i),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

fn exact_policy(trigger: Trigger, exact: Exact) -> Policy {
    let mut policy = Policy::new(trigger).unwrap();
    policy.exact = exact;
    policy.validate().unwrap();
    policy
}

#[test]
fn a_default_policy_plays_as_the_turn_level_dry_run_does() {
    let sizes: Vec<(u32, u32)> = (0..12).map(|i| (10 + i, 30 + 7 * i)).collect();
    for policy in [
        Policy::default(),
        Policy::new(Trigger::Tokens {
            budget: 200,
            keep_tokens: 100,
        })
        .unwrap(),
        Policy::new(Trigger::Window {
            context: 400,
            fire_pct: 80,
            keep_pct: 30,
            keep_turns: 0,
        })
        .unwrap(),
        Policy::new(Trigger::Every { n: 5 }).unwrap(),
    ] {
        let by_messages = run(&policy, turns(&sizes));
        let input = ScheduleInput {
            turns: sizes.len() as u32,
            sizes: sizes
                .iter()
                .map(|&(user, assistant)| TurnSize { user, assistant })
                .collect(),
            system_tokens: 2,
            summary_tokens: 20,
            summary_sizes: Vec::new(),
        };
        let by_turns = schedule(&policy, &input);
        assert_eq!(by_messages.calls, by_turns.calls, "{:?}", policy.trigger);
        for (row, request) in by_turns.rows.iter().zip(&by_messages.requests) {
            assert_eq!(
                request.from,
                2 * (row.verbatim_from as usize - 1),
                "{:?} turn {}",
                policy.trigger,
                row.turn
            );
        }
    }
}

#[test]
fn a_message_budget_can_keep_a_reply_without_its_question() {
    // LangChain's classic buffer: after each reply, fold single messages from the front until
    // the rest fits 50 tokens; the summary is a bare system message.
    let policy = exact_policy(
        Trigger::Tokens {
            budget: 50,
            keep_tokens: 50,
        },
        Exact {
            counted: Some(Counted::VERBATIM),
            keep: Some(Keep::Tokens(50)),
            summary_at: SummaryAt::System,
            ..Exact::default()
        },
    );
    let played = run(&policy, turns(&[(10, 20), (10, 25)]));
    // After turn 2 the buffer is 65 tokens: the question of turn 1 (10) goes, 55 still do not
    // fit, the reply goes too; the second turn stays whole.
    assert_eq!(verbatim(&played), [vec![0], vec![0, 1, 2]]);
    let played = run(&policy, turns(&[(10, 20), (10, 25), (5, 5)]));
    assert_eq!(played.calls, 1);
    assert_eq!(verbatim(&played)[2], [2, 3, 4]);
    assert_eq!(
        played.requests[2].messages[1],
        Slot::Summary {
            call: 1,
            role: Role::System,
            text: Words.summary(1)
        }
    );
    // With a budget of 30 the fold keeps only turn 2's reply: a tail that starts on a reply.
    let policy = exact_policy(
        Trigger::Tokens {
            budget: 30,
            keep_tokens: 30,
        },
        Exact {
            counted: Some(Counted::VERBATIM),
            keep: Some(Keep::Tokens(30)),
            ..Exact::default()
        },
    );
    let played = run(&policy, turns(&[(10, 15), (10, 25), (5, 5)]));
    assert_eq!(verbatim(&played)[2], [3, 4]);
}

#[test]
fn a_check_before_the_request_folds_into_that_request() {
    // LangChain v1: before each call, on the stored history (summary and incoming message, no
    // system prompt), at >= 40 tokens, keeping 2 messages.
    let exact = Exact {
        counted: Some(Counted::HISTORY),
        compare: Compare::AtLeast,
        check: CheckAt::BeforeRequest,
        keep: Some(Keep::Messages(2)),
        summary_at: SummaryAt::User,
        summary_prefix: "Here is a summary of the conversation to date:\n\n".to_owned(),
        summary_overflow: SummaryOverflow::Resummarise,
        ..Exact::default()
    };
    let policy = exact_policy(
        Trigger::Tokens {
            budget: 40,
            keep_tokens: 40,
        },
        exact.clone(),
    );
    // Request 2 holds 10 + 20 + 10 = 40 tokens: it fires, and keeps the last 2 stored messages.
    let played = run(&policy, turns(&[(10, 20), (10, 5)]));
    assert_eq!(verbatim(&played), [vec![0], vec![1, 2]]);
    assert_eq!(played.calls, 1);
    match &played.requests[1].messages[1] {
        Slot::Summary {
            call: 1,
            role,
            text,
        } => {
            assert_eq!(*role, Role::User);
            assert!(text.starts_with("Here is a summary"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    // At > instead of >=, 40 tokens do not fire.
    let above = exact_policy(
        Trigger::Tokens {
            budget: 40,
            keep_tokens: 40,
        },
        Exact {
            compare: Compare::Above,
            ..exact
        },
    );
    assert_eq!(run(&above, turns(&[(10, 20), (10, 5)])).calls, 0);
}

#[test]
fn the_system_prompt_and_the_incoming_message_count_only_when_asked() {
    let exact = |counted| Exact {
        counted: Some(counted),
        check: CheckAt::BeforeRequest,
        keep: Some(Keep::Tokens(15)),
        ..Exact::default()
    };
    let trigger = Trigger::Tokens {
        budget: 30,
        keep_tokens: 15,
    };
    // Request 2 holds 10 + 10 stored and 10 incoming, and a 2-token system prompt.
    let calls = |counted| {
        run(
            &exact_policy(trigger.clone(), exact(counted)),
            turns(&[(10, 10), (10, 1)]),
        )
        .calls
    };
    assert_eq!(calls(Counted::HISTORY), 0, "30 is not over 30");
    assert_eq!(calls(Counted::ALL), 1, "32 is");
    let no_incoming = Counted {
        incoming: false,
        ..Counted::ALL
    };
    assert_eq!(calls(no_incoming), 0, "22 is not");
}

#[test]
fn a_budget_that_fits_only_the_old_summary_keeps_it_without_a_call() {
    // LlamaIndex: before each call the summary and every message are walked from the newest;
    // when only the summary is left over it is kept as it is.
    let policy = exact_policy(
        Trigger::Tokens {
            budget: 40,
            keep_tokens: 40,
        },
        Exact {
            counted: Some(Counted::HISTORY),
            check: CheckAt::BeforeRequest,
            keep: Some(Keep::Tokens(40)),
            start: Start::AtUser,
            summary_at: SummaryAt::System,
            ..Exact::default()
        },
    );
    let played = run(&policy, turns(&[(30, 30), (5, 5), (5, 5), (5, 5)]));
    // Request 2 (65 tokens) folds turn 1; from then on the summary (20) and the messages (up
    // to 35) pass 40 but the messages alone fit: no second call.
    assert_eq!(played.calls, 1);
    assert_eq!(verbatim(&played)[3], [2, 3, 4, 5, 6]);
    // A tail is never started on a reply: a budget of 12 would keep turn 2's reply alone, and
    // folds it too.
    let policy = exact_policy(
        Trigger::Tokens {
            budget: 12,
            keep_tokens: 12,
        },
        Exact {
            counted: Some(Counted::HISTORY),
            check: CheckAt::BeforeRequest,
            keep: Some(Keep::Tokens(12)),
            start: Start::AtUser,
            ..Exact::default()
        },
    );
    let played = run(&policy, turns(&[(4, 4), (6, 4), (3, 1)]));
    assert_eq!(verbatim(&played)[2], [4]);
}

#[test]
fn a_share_of_the_history_by_characters_is_cut_at_a_user_message_with_two_calls() {
    // Gemini CLI: on the previous request's size, keep the newest 30% of the history by
    // characters, cut at a user message; the snapshot, then the verification, two calls.
    let policy = exact_policy(
        Trigger::Tokens {
            budget: 50,
            keep_tokens: 50,
        },
        Exact {
            compare: Compare::AtLeast,
            check: CheckAt::PreviousRequest,
            keep: Some(Keep::Share {
                of: ShareOf::History,
                pct: 30,
                by: Measure::Chars,
            }),
            summary_at: SummaryAt::UserThenAck("Got it.".to_owned()),
            calls_per_fold: 2,
            ..Exact::default()
        },
    );
    let played = run(&policy, turns(&[(20, 20), (10, 10), (5, 5), (5, 5)]));
    // Request 2 is 2 + 40 + 10 = 52 tokens, so before request 3 the history of turns 1 and 2
    // (120 characters) is compressed: no user message has 70% (84) before it, and the history
    // ends on a reply, so all of it goes.
    assert_eq!(played.calls, 2);
    assert_eq!(verbatim(&played)[2], [4]);
    let summary: Vec<&Slot> = played.requests[2].messages.iter().take(3).collect();
    assert!(matches!(
        summary[1],
        Slot::Summary {
            call: 2,
            role: Role::User,
            ..
        }
    ));
    assert!(matches!(
        summary[2],
        Slot::Fixed {
            role: Role::Assistant,
            ..
        }
    ));
}

#[test]
fn the_summary_can_answer_a_fixed_user_prompt() {
    // The OpenAI cookbook: more than 2 user turns, keep the last 1; the summary is the
    // assistant's answer to a fixed prompt.
    let policy = exact_policy(
        Trigger::Turns {
            max_turns: 3,
            keep: 1,
        },
        Exact {
            keep: Some(Keep::Turns(1)),
            summary_at: SummaryAt::AssistantAfter(
                "Summarize the conversation we had so far.".to_owned(),
            ),
            ..Exact::default()
        },
    );
    let played = run(&policy, turns(&[(1, 1), (1, 1), (1, 1), (1, 1)]));
    assert_eq!(played.calls, 1);
    let request = &played.requests[3].messages;
    assert!(
        matches!(&request[1], Slot::Fixed { role: Role::User, text } if text.starts_with("Summarize"))
    );
    assert!(matches!(
        &request[2],
        Slot::Summary {
            role: Role::Assistant,
            call: 1,
            ..
        }
    ));
    assert_eq!(verbatim(&played)[3], [4, 5, 6]);
}

#[test]
fn a_fold_keeps_a_call_with_its_results_and_can_keep_the_users_own_messages() {
    let mut messages = played(&[
        (Role::User, 5),
        (Role::Assistant, 5),
        (Role::Tool, 5),
        (Role::Tool, 5),
        (Role::Assistant, 5),
        (Role::User, 5),
        (Role::Assistant, 5),
    ]);
    messages[1].calls = true;
    // Keep 4 messages: the cut at index 3 (a result) moves back onto the call at index 1.
    let exact = Exact {
        counted: Some(Counted::HISTORY),
        check: CheckAt::BeforeRequest,
        keep: Some(Keep::Messages(4)),
        ..Exact::default()
    };
    let policy = exact_policy(Trigger::MessageCount { max_messages: 5 }, exact.clone());
    let played = run(&policy, messages.clone());
    // Requests answer the user (0), the last result (3) and the user (5); the third request
    // holds 6 stored messages, over 5: the cut lands on result 3 and moves back to call 1.
    assert_eq!(
        played
            .requests
            .iter()
            .map(|r| r.answers)
            .collect::<Vec<_>>(),
        [0, 3, 5]
    );
    assert_eq!(verbatim(&played)[2], [1, 2, 3, 4, 5]);
    // Codex: everything folds, and the user's own messages come back before the summary.
    let codex = exact_policy(
        Trigger::MessageCount { max_messages: 5 },
        Exact {
            keep: Some(Keep::Turns(0)),
            keep_user_tokens: Some(100),
            summary_at: SummaryAt::User,
            ..exact
        },
    );
    let played = run(&codex, messages);
    assert_eq!(verbatim(&played)[2], [0, 5]);
}

/// A summariser whose text says what it was given, so a test can read the input back from
/// the requests: `S<call>`, then `s<k>` for the summary, `m<i>` for each message and `e<k>`
/// for each earlier call of the fold.
struct Telling;

impl Sizer for Telling {
    fn tokens(&self, text: &str) -> u32 {
        crate::engine::text::word_count(text)
    }

    fn summary(&self, call: u32) -> String {
        unreachable!("summary_of is asked, not summary ({call})")
    }

    fn summary_of(&self, input: &SummaryInput) -> String {
        let mut words = vec![format!("S{}", input.call)];
        words.extend(input.summary.iter().map(|k| format!("s{k}")));
        words.extend(input.messages.iter().map(|i| format!("m{i}")));
        words.extend(input.earlier.iter().map(|k| format!("e{k}")));
        words.join(" ")
    }
}

/// Every four messages, keep the newest two: the folds of six 10/20-token turns.
fn every_four(fold: FoldMode, calls_per_fold: u32) -> MessageRun {
    let mut policy = exact_policy(
        Trigger::Tokens {
            budget: 50,
            keep_tokens: 30,
        },
        Exact {
            counted: Some(Counted::VERBATIM),
            calls_per_fold,
            ..Exact::default()
        },
    );
    policy.fold = fold;
    schedule_messages(
        &policy,
        &MessageInput {
            messages: turns(&[(10, 20); 6]),
            system_prompt: "be brief",
            system_tokens: 2,
            sizer: &Telling,
        },
    )
}

#[test]
fn a_progressive_fold_gives_the_summariser_the_summary_and_the_new_messages_only() {
    let run = every_four(FoldMode::Progressive, 1);
    assert!(run.inputs.len() >= 2, "{:?}", run.inputs);
    assert_eq!(run.inputs.len() as u32, run.calls);
    let first = &run.inputs[0];
    assert_eq!((first.call, first.summary), (1, None));
    let second = &run.inputs[1];
    assert_eq!(second.summary, Some(1), "{second:?}");
    // No message is folded twice, and each input's tokens are its summary's words and its
    // messages' tokens (10 a question, 20 a reply).
    assert!(second.messages[0] > *first.messages.last().unwrap());
    for input in &run.inputs {
        let summaries: u64 = input
            .summary
            .iter()
            .map(|&k| {
                let before = &run.inputs[k as usize - 1];
                1 + (before.summary.iter().count() + before.messages.len()) as u64
            })
            .sum();
        let messages: u64 = input
            .messages
            .iter()
            .map(|i| if i % 2 == 0 { 10 } else { 20 })
            .sum();
        assert_eq!(input.tokens, summaries + messages, "{input:?}");
    }
    // The request after a fold carries the text written from that input.
    let carried = run.requests.iter().find_map(|r| {
        r.messages.iter().find_map(|s| match s {
            Slot::Summary { call: 2, text, .. } => Some(text.clone()),
            _ => None,
        })
    });
    let expected = std::iter::once("S2".to_owned())
        .chain(std::iter::once("s1".to_owned()))
        .chain(second.messages.iter().map(|i| format!("m{i}")))
        .collect::<Vec<_>>()
        .join(" ");
    // (after the default placement's header)
    assert!(
        carried
            .as_ref()
            .is_some_and(|c| c.ends_with(&format!("\n{expected}"))),
        "{carried:?}"
    );
}

#[test]
fn a_rebuilt_fold_gives_the_summariser_every_message_folded_so_far_and_no_summary() {
    let progressive = every_four(FoldMode::Progressive, 1);
    let rebuilt = every_four(FoldMode::RebuildFromArchive, 1);
    assert!(rebuilt.inputs.len() >= 2);
    for input in &rebuilt.inputs {
        assert_eq!(input.summary, None, "{input:?}");
        assert_eq!(input.messages[0], 0, "{input:?}");
    }
    // The same cut points, other inputs: a wrong fold mode cannot compare equal.
    let last = |run: &MessageRun| run.inputs.last().unwrap().messages.last().copied();
    assert_eq!(last(&progressive), last(&rebuilt));
    assert_ne!(progressive.inputs, rebuilt.inputs);
}

#[test]
fn a_fold_of_two_calls_gives_the_second_the_text_of_the_first() {
    let run = every_four(FoldMode::Progressive, 2);
    let (first, second) = (&run.inputs[0], &run.inputs[1]);
    assert_eq!((first.call, second.call), (1, 2));
    assert_eq!(
        (second.summary, second.earlier.as_slice()),
        (None, &[1][..])
    );
    assert_eq!(first.messages, second.messages);
    // The first call's text ("S1 m0 m1 …") is in the second's tokens.
    let first_words = 1 + first.messages.len() as u64;
    assert_eq!(second.tokens, first.tokens + first_words);
    // The next fold gets the fold's kept text: the second call's.
    assert_eq!(
        (run.inputs[2].summary, run.inputs[2].earlier.as_slice()),
        (Some(2), &[][..])
    );
    assert_eq!(
        (run.inputs[3].summary, run.inputs[3].earlier.as_slice()),
        (Some(2), &[3][..])
    );
}
