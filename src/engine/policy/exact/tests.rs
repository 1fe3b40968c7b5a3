use super::*;

fn m(role: Role, tokens: u32) -> Measured {
    Measured {
        role,
        tokens,
        chars: tokens,
        calls: false,
    }
}

fn view(messages: &[Measured], moment: Moment) -> FoldView<'_> {
    FoldView {
        messages,
        moment,
        system_tokens: 0,
        summary: None,
        head: &[],
        reported: None,
    }
}

#[test]
fn the_default_is_not_exact_and_any_field_makes_it_so() {
    assert!(!Exact::default().is_exact());
    let changed = [
        Exact {
            compare: Compare::AtLeast,
            ..Exact::default()
        },
        Exact {
            calls_per_fold: 2,
            ..Exact::default()
        },
        Exact {
            summary_at: SummaryAt::User,
            ..Exact::default()
        },
    ];
    assert!(changed.iter().all(Exact::is_exact));
}

#[test]
fn a_check_at_the_wrong_moment_never_fires() {
    let trigger = Trigger::Tokens {
        budget: 1,
        keep_tokens: 1,
    };
    let big = [m(Role::User, 50), m(Role::Assistant, 50)];
    let before = Exact {
        check: CheckAt::BeforeRequest,
        keep: Some(Keep::Tokens(1)),
        ..Exact::default()
    };
    assert_eq!(
        before.decide(&trigger, &view(&big, Moment::AfterReply)),
        Fold::NONE
    );
    assert!(
        before
            .decide(&trigger, &view(&big, Moment::BeforeRequest))
            .call
    );
}

#[test]
fn the_previous_requests_size_decides_and_the_incoming_message_stays() {
    let trigger = Trigger::Tokens {
        budget: 100,
        keep_tokens: 100,
    };
    let exact = Exact {
        check: CheckAt::PreviousRequest,
        compare: Compare::AtLeast,
        keep: Some(Keep::Tokens(0)),
        ..Exact::default()
    };
    let history = [m(Role::User, 1), m(Role::Assistant, 1), m(Role::User, 1)];
    let mut v = view(&history, Moment::BeforeRequest);
    v.reported = Some(99);
    assert_eq!(exact.decide(&trigger, &v), Fold::NONE);
    v.reported = Some(100);
    // Everything stored before the incoming message folds; the incoming one is not yet stored.
    assert_eq!(
        exact.decide(&trigger, &v),
        Fold {
            messages: 2,
            call: true
        }
    );
}

#[test]
fn every_incoming_result_stays_out_of_the_history_a_previous_request_check_folds() {
    // Gemini CLI sends a call's results as one incoming content, stored after the compression:
    // none of them is folded, nor counted in the share the split keeps.
    let trigger = Trigger::Tokens {
        budget: 100,
        keep_tokens: 100,
    };
    let exact = Exact {
        check: CheckAt::PreviousRequest,
        compare: Compare::AtLeast,
        keep: Some(Keep::Share {
            of: ShareOf::History,
            pct: 70,
            by: Measure::Chars,
        }),
        ..Exact::default()
    };
    let mut call = m(Role::Assistant, 10);
    call.calls = true;
    let history = [
        m(Role::User, 10),
        m(Role::Assistant, 10),
        m(Role::User, 10),
        m(Role::Assistant, 10),
        m(Role::User, 10),
        call,
        m(Role::Tool, 40),
        m(Role::Tool, 40),
        m(Role::Tool, 40),
    ];
    assert_eq!(incoming_start(&history), 6);
    assert_eq!(incoming_start(&history[..5]), 4);
    assert_eq!(incoming_start(&[]), 0);
    let mut v = view(&history, Moment::BeforeRequest);
    v.reported = Some(100);
    // Of the 60 characters stored, 30% (18) is reached at the second user message: the first
    // exchange folds. Were the results counted (or all but the last, 140 in all), 30% (42)
    // would pass the third user message too, and the fold would take two exchanges.
    assert_eq!(
        exact.decide(&trigger, &v),
        Fold {
            messages: 2,
            call: true
        }
    );
}

#[test]
fn only_the_old_summary_cut_off_is_kept_or_written_again() {
    let trigger = Trigger::MessageCount { max_messages: 2 };
    let history = [m(Role::User, 1), m(Role::Assistant, 1)];
    let head = [m(Role::User, 20)];
    let mut v = view(&history, Moment::BeforeRequest);
    v.summary = Some(SummarySize {
        tokens: 20,
        chars: 40,
        messages: 1,
    });
    v.head = &head;
    let exact = Exact {
        counted: Some(Counted::HISTORY),
        check: CheckAt::BeforeRequest,
        keep: Some(Keep::Messages(2)),
        ..Exact::default()
    };
    // Three stored messages (the summary among them) keep two: only the summary is cut off.
    assert_eq!(exact.decide(&trigger, &v), Fold::NONE);
    let again = Exact {
        summary_overflow: SummaryOverflow::Resummarise,
        ..exact
    };
    assert_eq!(
        again.decide(&trigger, &v),
        Fold {
            messages: 0,
            call: true
        }
    );
}

#[test]
fn the_newest_message_stays_when_asked_even_alone_over_the_kept_tokens() {
    let trigger = Trigger::Tokens {
        budget: 100,
        keep_tokens: 100,
    };
    let by_tokens = Exact {
        counted: Some(Counted::HISTORY),
        check: CheckAt::BeforeRequest,
        keep: Some(Keep::Tokens(50)),
        ..Exact::default()
    };
    let floored = Exact {
        keep_newest: true,
        ..by_tokens.clone()
    };
    let folds = |messages| Fold {
        messages,
        call: true,
    };
    // A giant message alone over the kept tokens: folded without the floor, kept with it.
    let giant = [
        m(Role::User, 10),
        m(Role::Assistant, 10),
        m(Role::User, 300),
    ];
    let v = view(&giant, Moment::BeforeRequest);
    assert_eq!(by_tokens.decide(&trigger, &v), folds(3));
    assert_eq!(floored.decide(&trigger, &v), folds(2));
    // When a tail fits, the floor changes nothing.
    let small = [m(Role::User, 90), m(Role::Assistant, 20), m(Role::User, 20)];
    let v = view(&small, Moment::BeforeRequest);
    assert_eq!(by_tokens.decide(&trigger, &v), folds(1));
    assert_eq!(floored.decide(&trigger, &v), folds(1));
    // A tool's result kept by the floor takes its call with it.
    let mut call = m(Role::Assistant, 5);
    call.calls = true;
    let tool = [m(Role::User, 5), call, m(Role::Tool, 300)];
    let v = view(&tool, Moment::BeforeRequest);
    assert_eq!(floored.decide(&trigger, &v), folds(1));
    // Behind a summary, a lone giant message leaves only the summary to fold: written again
    // when the policy says so (LangChain v1 summarises its summary message alone here).
    let lone = [m(Role::User, 300)];
    let head = [m(Role::User, 20)];
    let mut v = view(&lone, Moment::BeforeRequest);
    v.summary = Some(SummarySize {
        tokens: 20,
        chars: 20,
        messages: 1,
    });
    v.head = &head;
    assert_eq!(by_tokens.decide(&trigger, &v), folds(1));
    let again = Exact {
        summary_overflow: SummaryOverflow::Resummarise,
        ..floored
    };
    assert_eq!(again.decide(&trigger, &v), folds(0));
}

#[test]
fn shares_of_a_window_and_out_of_range_numbers() {
    let trigger = Trigger::Window {
        context: 100,
        fire_pct: 50,
        keep_pct: 20,
        keep_turns: 0,
    };
    let exact = Exact {
        keep: Some(Keep::Share {
            of: ShareOf::Window(100),
            pct: 20,
            by: Measure::Tokens,
        }),
        ..Exact::default()
    };
    let history = [
        m(Role::User, 20),
        m(Role::Assistant, 20),
        m(Role::User, 10),
        m(Role::Assistant, 10),
    ];
    assert_eq!(
        exact.decide(&trigger, &view(&history, Moment::AfterReply)),
        Fold {
            messages: 2,
            call: true
        }
    );
    let bad = Exact {
        keep: Some(Keep::Share {
            of: ShareOf::History,
            pct: 100,
            by: Measure::Chars,
        }),
        ..Exact::default()
    };
    assert!(bad.validate().unwrap_err().contains("share"));
    let zero = Exact {
        calls_per_fold: 0,
        ..Exact::default()
    };
    assert!(zero.validate().unwrap_err().contains("calls per fold"));
}

#[test]
fn the_head_places_the_summary_where_asked() {
    let exact = |summary_at| Exact {
        summary_at,
        summary_prefix: "P: ".to_owned(),
        ..Exact::default()
    };
    let head = |e: &Exact| {
        request_head(
            e,
            super::super::Placement::SecondSystem,
            "sys",
            Some("sum"),
            "H:",
            "ack",
        )
    };
    let summary = |role| HeadPart::Summary {
        role,
        text: "P: sum".to_owned(),
    };
    assert_eq!(
        head(&exact(SummaryAt::FirstSystem)),
        [summary(Role::System), HeadPart::SystemPrompt]
    );
    assert_eq!(
        head(&exact(SummaryAt::AssistantAfter("go".into()))),
        [
            HeadPart::SystemPrompt,
            HeadPart::Fixed {
                role: Role::User,
                text: "go".into()
            },
            summary(Role::Assistant)
        ]
    );
    assert_eq!(
        head(&Exact::default())[1],
        HeadPart::Summary {
            role: Role::System,
            text: "H:sum".into()
        }
    );
}

/// LangChain classic's prune counts its buffer with `get_num_tokens_from_messages`, which in the
/// chat format primes the reply once a list (3 tokens): a buffer counted without the system
/// prompt (whose size holds the priming when it is counted) fires, and keeps, with it.
#[test]
fn a_list_counted_without_the_system_prompt_counts_the_chat_formats_reply_priming() {
    let trigger = Trigger::Tokens {
        budget: 100,
        keep_tokens: 100,
    };
    let exact = |counter: Counter| Exact {
        counted: Some(Counted::VERBATIM),
        keep: Some(Keep::Tokens(100)),
        counter,
        ..Exact::default()
    };
    use crate::engine::message::Vocabulary;
    use crate::engine::policy::CHAT_REPLY_PRIMING;
    let chat = Counter::Tiktoken {
        vocabulary: Vocabulary::O200k,
        chat: true,
    };
    assert_eq!(chat.per_request(), CHAT_REPLY_PRIMING);
    // 98 tokens: under the limit as a sum, over it with the 3 tokens of priming.
    let history = [
        m(Role::User, 40),
        m(Role::Assistant, 40),
        m(Role::User, 10),
        m(Role::Assistant, 8),
    ];
    let after = view(&history, Moment::AfterReply);
    assert_eq!(exact(Counter::O200K).decide(&trigger, &after), Fold::NONE);
    let fold = exact(chat).decide(&trigger, &after);
    assert!(fold.call);
    // The kept tail is at most 97 tokens with the priming: the last three (58) fit, all four
    // (98) do not, where without it they would.
    assert_eq!(fold.messages, 1);
}
