//! The policy in one line, in the user's words, as the "exact policy" section shows it above its
//! fields (the Chat policy panel and Inspect's replay form): when it looks, when it summarises,
//! what stays word for word and where the summary is sent, then what else an exact policy does
//! ("checked before each request; summarises when the whole request is over 121,600 tokens;
//! keeps the last message word for word; the summary is sent as a user message, after the system
//! prompt"). It says what runs: today's rules through the trigger ([`Trigger`]), an exact policy
//! as [`Exact::decide`](crate::engine::policy::Exact::decide) reads its fields. Also the words
//! of the section's fold of fields at their defaults.

use crate::app::exact_form::{EXACT_FIELDS, ExactForm};
use crate::engine::policy::{
    CheckAt, Compare, Counted, Exact, Keep, Measure, Policy, ShareOf, Start, SummaryAt,
    SummaryOverflow, Trigger,
};
use crate::view::corpus::grouped;
use crate::view::labels::{placement_label, turn_count};

/// The policy in one line: its clauses joined by "; ".
pub fn summary_line(policy: &Policy) -> String {
    let exact = &policy.exact;
    let mut parts: Vec<String> = Vec::new();
    if let Some(when) = when(policy) {
        parts.push(when.to_owned());
    }
    parts.push(fires(policy));
    parts.push(keeps(policy));
    parts.push(sent(policy));
    if exact.context_message.is_some() {
        parts.push("a fixed context message is sent before the summary".to_owned());
    }
    if exact.calls_per_fold > 1 {
        parts.push(format!(
            "each summary takes {} model calls",
            exact.calls_per_fold
        ));
    }
    if exact.summary_overflow == SummaryOverflow::Resummarise {
        parts.push("when only the old summary would be folded, it is summarised again".to_owned());
    }
    if exact.tools_in_turn_only {
        parts.push("tool calls and their results are sent only within their own turn".to_owned());
    }
    if !exact.counter.is_default() {
        parts.push(format!(
            "the dry runs count tokens with {}",
            exact.counter.label()
        ));
    }
    parts.join("; ")
}

/// Whether an exact policy decides ([`Exact::is_exact`]), not the trigger alone.
fn is_exact(policy: &Policy) -> bool {
    policy.exact.is_exact()
}

/// Whether the policy never summarises by itself: manual, or a periodic trigger that an exact
/// policy does not count.
fn only_on_request(policy: &Policy) -> bool {
    match policy.trigger {
        Trigger::Manual { .. } => true,
        Trigger::Every { .. } => is_exact(policy),
        _ => false,
    }
}

/// When the policy looks; `None` when it never summarises by itself.
fn when(policy: &Policy) -> Option<&'static str> {
    if only_on_request(policy) {
        return None;
    }
    let check = if is_exact(policy) {
        policy.exact.check
    } else {
        CheckAt::AfterReply
    };
    Some(match check {
        CheckAt::AfterReply => "checked after each reply",
        CheckAt::BeforeRequest | CheckAt::PreviousRequest => "checked before each request",
        CheckAt::BeforeTurn => "checked before the first request of each turn",
    })
}

/// What a token threshold weighs, and whether its words take a plural verb.
fn weighed(exact: &Exact) -> (String, bool) {
    if exact.check == CheckAt::PreviousRequest {
        return (
            "the previous request, as the server reported it,".to_owned(),
            false,
        );
    }
    match exact.counted {
        None => ("the whole request".to_owned(), false),
        Some(c) if c == Counted::ALL => ("the whole request".to_owned(), false),
        Some(c) if c == Counted::HISTORY => (
            "the conversation without the system prompt".to_owned(),
            false,
        ),
        Some(c) if c == Counted::VERBATIM => ("the messages kept word for word".to_owned(), true),
        Some(c) => {
            let parts: Vec<&str> = [
                (c.system, "the system prompt"),
                (c.summary, "the summary"),
                (c.verbatim, "the messages kept word for word"),
                (c.incoming, "the message being answered"),
                (c.reply, "the reply just received"),
            ]
            .into_iter()
            .filter_map(|(on, words)| on.then_some(words))
            .collect();
            match parts.as_slice() {
                [] => ("nothing".to_owned(), false),
                [one] => ((*one).to_owned(), false),
                [rest @ .., last] => (format!("{} and {last}", rest.join(", ")), true),
            }
        }
    }
}

/// When it summarises.
fn fires(policy: &Policy) -> String {
    let exact = &policy.exact;
    if only_on_request(policy) {
        return match policy.trigger {
            Trigger::Every { n } => format!(
                "summarises only when you ask (an exact policy does not count every {n} messages)"
            ),
            _ => "summarises only when you ask".to_owned(),
        };
    }
    let window = |context: u32, fire_pct: u32| {
        let threshold = u64::from(context) * u64::from(fire_pct) / 100;
        format!(
            "{fire_pct}% of {} {}-token window ({} tokens)",
            a_or_an(context),
            grouped(u64::from(context)),
            grouped(threshold)
        )
    };
    if !is_exact(policy) {
        return match policy.trigger {
            Trigger::Turns { max_turns, .. } => format!(
                "summarises once {} are kept word for word",
                turn_count(max_turns)
            ),
            Trigger::Tokens { budget, .. } => format!(
                "summarises when the turns kept word for word are over {} tokens",
                grouped(u64::from(budget))
            ),
            Trigger::Every { n } => format!("summarises every {n} messages"),
            Trigger::MessageCount { max_messages } => {
                format!("summarises when over {max_messages} messages are kept word for word")
            }
            Trigger::Window {
                context, fire_pct, ..
            } => format!(
                "summarises when the whole request is over {}",
                window(context, fire_pct)
            ),
            Trigger::Manual { .. } => unreachable!("handled above"),
        };
    }
    let (what, plural) = weighed(exact);
    let verb = match (exact.compare, plural) {
        (Compare::Above, false) => "is over",
        (Compare::Above, true) => "are over",
        (Compare::AtLeast, false) => "reaches",
        (Compare::AtLeast, true) => "reach",
    };
    match policy.trigger {
        Trigger::Tokens { budget, .. } => format!(
            "summarises when {what} {verb} {} tokens",
            grouped(u64::from(budget))
        ),
        Trigger::Window {
            context, fire_pct, ..
        } => format!(
            "summarises when {what} {verb} {}",
            window(context, fire_pct)
        ),
        Trigger::Turns { max_turns, .. } => format!(
            "summarises once {} are kept word for word",
            turn_count(max_turns)
        ),
        Trigger::MessageCount { max_messages } => {
            let summary = if exact.counted.is_some_and(|c| c.summary) {
                ", the summary's counted among them"
            } else {
                ""
            };
            format!("summarises when over {max_messages} messages are kept word for word{summary}")
        }
        Trigger::Every { .. } | Trigger::Manual { .. } => unreachable!("handled above"),
    }
}

/// The article before `n` read aloud: "an" before eight, eleven and eighteen (8,192, 11,000,
/// 80,000), "a" before the others.
fn a_or_an(n: u32) -> &'static str {
    let digits = n.to_string();
    let lead = &digits[..match digits.len() % 3 {
        0 => 3,
        r => r,
    }];
    if lead.starts_with('8') || lead == "11" || lead == "18" {
        "an"
    } else {
        "a"
    }
}

/// "keeps the last 2 turns word for word", "keeps nothing word for word".
fn last_turns(n: u32) -> String {
    match n {
        0 => "keeps nothing word for word".to_owned(),
        1 => "keeps the last turn word for word".to_owned(),
        n => format!("keeps the last {} word for word", turn_count(n)),
    }
}

/// What the trigger keeps after a fold, today's rules (an exact policy keeps the same when its
/// `keep` is the trigger's).
fn trigger_keeps(trigger: &Trigger) -> String {
    let within = |limit: String| {
        format!("keeps the newest turns that fit in {limit} word for word, and always the latest")
    };
    match *trigger {
        Trigger::Turns { keep, .. } | Trigger::Manual { keep } => last_turns(keep),
        Trigger::Tokens { keep_tokens, .. } => {
            within(format!("{} tokens", grouped(u64::from(keep_tokens))))
        }
        Trigger::Every { .. } | Trigger::MessageCount { .. } => {
            "keeps the latest turn word for word".to_owned()
        }
        Trigger::Window {
            context,
            keep_pct,
            keep_turns: 0,
            ..
        } => within(format!(
            "{keep_pct}% of the window ({} tokens)",
            grouped(u64::from(context) * u64::from(keep_pct) / 100)
        )),
        Trigger::Window { keep_turns, .. } => last_turns(keep_turns),
    }
}

/// What stays word for word after a fold.
fn keeps(policy: &Policy) -> String {
    let exact = &policy.exact;
    if !is_exact(policy) {
        return trigger_keeps(&policy.trigger);
    }
    let by = |by: Measure| match by {
        Measure::Tokens => "",
        Measure::Chars => " (by characters)",
    };
    let mut out = match exact.keep {
        None => trigger_keeps(&policy.trigger),
        Some(Keep::Turns(n)) => last_turns(n),
        Some(Keep::Messages(0)) => "keeps nothing word for word".to_owned(),
        Some(Keep::Messages(1)) => "keeps the last message word for word".to_owned(),
        Some(Keep::Messages(n)) => format!("keeps the last {n} messages word for word"),
        Some(Keep::Tokens(n)) => format!(
            "keeps the newest messages that fit in {} tokens word for word",
            grouped(u64::from(n))
        ),
        Some(Keep::Share {
            of: ShareOf::History,
            pct,
            by: measure,
        }) => format!(
            "keeps the newest {pct}% of the conversation{} word for word, from a user message on",
            by(measure)
        ),
        Some(Keep::Share {
            of: ShareOf::Window(context),
            pct,
            by: measure,
        }) => format!(
            "keeps the newest messages that fit in {pct}% of {} {}-token window{} word for word",
            a_or_an(context),
            grouped(u64::from(context)),
            by(measure)
        ),
    };
    let nothing = out == "keeps nothing word for word";
    if let Some(tokens) = exact.keep_user_tokens {
        let tokens = grouped(u64::from(tokens));
        out = if nothing {
            format!(
                "keeps only the user's own messages word for word, newest first, up to {tokens} tokens"
            )
        } else {
            format!("{out}, and the user's own messages before it, up to {tokens} tokens")
        };
    }
    if exact.keep_newest {
        out.push_str(", and always the newest message");
    }
    let share_of_history = matches!(
        exact.keep,
        Some(Keep::Share {
            of: ShareOf::History,
            ..
        })
    );
    if exact.start == Start::AtUser && !share_of_history {
        out.push_str(", from a user message on");
    }
    out
}

/// A text the policy sends, quoted on one line, cut after 60 characters.
fn quoted(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let line = words.join(" ");
    if line.chars().count() > 60 {
        let cut: String = line.chars().take(59).collect();
        format!("\"{}…\"", cut.trim_end())
    } else {
        format!("\"{line}\"")
    }
}

/// Where the summary is sent.
fn sent(policy: &Policy) -> String {
    let exact = &policy.exact;
    if !is_exact(policy) || exact.summary_at == SummaryAt::Placement {
        return format!("the summary is sent {}", placement_label(policy.placement));
    }
    let prefix = if exact.summary_prefix.trim().is_empty() {
        String::new()
    } else {
        format!(" beginning {}", quoted(&exact.summary_prefix))
    };
    match &exact.summary_at {
        SummaryAt::Placement => unreachable!("handled above"),
        SummaryAt::System => {
            format!(
                "the summary is sent as its own system message{prefix}, after the system prompt"
            )
        }
        SummaryAt::FirstSystem => format!(
            "the summary is sent first, as a system message{prefix} before the system prompt"
        ),
        SummaryAt::User => {
            format!("the summary is sent as a user message{prefix}, after the system prompt")
        }
        SummaryAt::UserThenAck(ack) => format!(
            "the summary is sent as a user message{prefix}, answered {}, after the system prompt",
            quoted(ack)
        ),
        SummaryAt::AssistantAfter(prompt) => format!(
            "the summary is sent as the reply{prefix} to the user message {}",
            quoted(prompt)
        ),
    }
}

/// The words on the fold of the fields drawn folded ("9 more at their defaults"), counting
/// any changed since the fold was drawn.
pub fn fold_label(form: &ExactForm) -> String {
    let folded: Vec<&str> = EXACT_FIELDS
        .iter()
        .map(|f| f.name)
        .filter(|name| !form.is_open(name))
        .collect();
    let changed = folded.iter().filter(|n| form.is_changed(n)).count();
    let at_default = folded.len() - changed;
    if changed == 0 && at_default == 1 {
        "1 more at its default".to_owned()
    } else if changed == 0 {
        format!("{at_default} more at their defaults")
    } else {
        format!(
            "{} more: {at_default} at their defaults, {changed} changed",
            folded.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::peers::PEER_PRESETS;
    use crate::engine::policy::{Placement, TriggerKind};

    /// After each reply, today's rules: the summary as the default placement puts it.
    const SECOND_SYSTEM: &str =
        "the summary is sent as a second system message, after the system prompt";

    fn with_trigger(trigger: Trigger) -> Policy {
        Policy {
            trigger,
            ..Policy::default()
        }
    }

    #[test]
    fn the_apps_default_policy_in_one_line() {
        assert_eq!(
            summary_line(&Policy::default()),
            "checked after each reply; summarises once 4 turns are kept word for word; \
             keeps the last 2 turns word for word; \
             the summary is sent as a second system message, after the system prompt"
        );
    }

    /// Every peer preset, for a 128,000-token window, against the words written out by hand
    /// from the preset's source (`engine::peers::exact`).
    #[test]
    fn every_peer_preset_in_one_line() {
        let expected = |slug: &str| -> &str {
            match slug {
                "langchain-summary-buffer" => {
                    "checked after each reply; \
                     summarises when the messages kept word for word are over 2,000 tokens; \
                     keeps the newest messages that fit in 2,000 tokens word for word; \
                     the summary is sent as its own system message, after the system prompt; \
                     tool calls and their results are sent only within their own turn"
                }
                "langchain-v1-middleware" => {
                    "checked before each request; \
                     summarises when the conversation without the system prompt reaches 4,000 tokens; \
                     keeps the last 20 messages word for word; \
                     the summary is sent as a user message beginning \
                     \"Here is a summary of the conversation to date:\", after the system prompt; \
                     when only the old summary would be folded, it is summarised again"
                }
                "llamaindex-summary-buffer" => {
                    "checked before the first request of each turn; \
                     summarises when the conversation without the system prompt is over 96,000 tokens; \
                     keeps the newest messages that fit in 96,000 tokens word for word, \
                     from a user message on; \
                     the summary is sent as its own system message, after the system prompt"
                }
                "openai-cookbook-session" => {
                    "checked after each reply; summarises once 5 turns are kept word for word; \
                     keeps the last 2 turns word for word; the summary is sent as the reply to \
                     the user message \"Summarize the conversation we had so far.\""
                }
                "codex-cli" => {
                    "checked before each request; summarises when the previous request, \
                     as the server reported it, reaches 115,200 tokens; \
                     keeps only the user's own messages word for word, newest first, \
                     up to 20,000 tokens; \
                     the summary is sent as a user message, after the system prompt"
                }
                "claude-code" => {
                    "checked after each reply; \
                     summarises when the whole request is over 95,000 tokens; \
                     keeps the last turn word for word; \
                     the summary is sent as a second system message, after the system prompt"
                }
                "gemini-cli" => {
                    "checked before each request; summarises when the previous request, \
                     as the server reported it, reaches 64,000 tokens; \
                     keeps the newest 30% of the conversation (by characters) word for word, \
                     from a user message on; \
                     the summary is sent as a user message, \
                     answered \"Got it. Thanks for the additional context!\", \
                     after the system prompt; \
                     each summary takes 2 model calls; \
                     when only the old summary would be folded, it is summarised again"
                }
                "librechat" => {
                    "checked before each request; \
                     summarises when the whole request is over 121,600 tokens; \
                     keeps the last message word for word; \
                     the summary is sent as a user message, after the system prompt"
                }
                other => panic!("no line written for the preset {other}"),
            }
        };
        // Each is measured with its library's own counter, said last.
        let counted = |slug: &str| match slug {
            "langchain-summary-buffer" => {
                "; the dry runs count tokens with o200k_base with the chat format's overhead (exact)"
            }
            "langchain-v1-middleware" => {
                "; the dry runs count tokens with LangChain's count_tokens_approximately"
            }
            "llamaindex-summary-buffer" => "; the dry runs count tokens with cl100k_base (exact)",
            "codex-cli" | "claude-code" | "gemini-cli" => {
                "; the dry runs count tokens with the reply's reported usage"
            }
            _ => "",
        };
        for preset in PEER_PRESETS {
            assert_eq!(
                summary_line(&preset.policy(128_000)),
                format!("{}{}", expected(preset.slug), counted(preset.slug)),
                "{}",
                preset.slug
            );
        }
    }

    /// Every trigger kind at its defaults under today's rules, the placements, and the kinds
    /// an exact policy reads otherwise.
    #[test]
    fn every_trigger_kind_in_one_line() {
        let today = |kind: TriggerKind| summary_line(&with_trigger(kind.with_defaults()));
        let expected = |kind: TriggerKind| -> String {
            let middle = match kind {
                TriggerKind::Turns => {
                    "checked after each reply; summarises once 4 turns are kept word for word; \
                     keeps the last 2 turns word for word"
                }
                TriggerKind::Tokens => {
                    "checked after each reply; \
                     summarises when the turns kept word for word are over 1,000 tokens; \
                     keeps the newest turns that fit in 400 tokens word for word, \
                     and always the latest"
                }
                TriggerKind::Window => {
                    "checked after each reply; \
                     summarises when the whole request is over 80% of an 8,192-token window \
                     (6,553 tokens); keeps the newest turns that fit in 30% of the window \
                     (2,457 tokens) word for word, and always the latest"
                }
                TriggerKind::Every => {
                    "checked after each reply; summarises every 6 messages; \
                     keeps the latest turn word for word"
                }
                TriggerKind::Messages => {
                    "checked after each reply; \
                     summarises when over 8 messages are kept word for word; \
                     keeps the latest turn word for word"
                }
                TriggerKind::Manual => {
                    "summarises only when you ask; keeps the last 2 turns word for word"
                }
            };
            format!("{middle}; {SECOND_SYSTEM}")
        };
        for kind in TriggerKind::ALL {
            assert_eq!(today(kind), expected(kind), "{kind:?}");
        }

        let window_turns = with_trigger(Trigger::Window {
            context: 128_000,
            fire_pct: 90,
            keep_pct: 30,
            keep_turns: 1,
        });
        assert_eq!(
            summary_line(&window_turns),
            "checked after each reply; \
             summarises when the whole request is over 90% of a 128,000-token window \
             (115,200 tokens); keeps the last turn word for word; \
             the summary is sent as a second system message, after the system prompt"
        );
        let placed = |placement| Policy {
            placement,
            ..Policy::default()
        };
        assert!(
            summary_line(&placed(Placement::AppendToSystem))
                .ends_with("; the summary is sent appended to the system prompt")
        );
        assert!(summary_line(&placed(Placement::UserAck)).ends_with(
            "; the summary is sent as a user message with an assistant acknowledgement"
        ));

        // Under an exact policy: a periodic trigger is not counted, a message count may count
        // the summary's messages, and nothing kept is said so.
        let exact = |kind: TriggerKind, exact: Exact| Policy {
            exact,
            ..with_trigger(kind.with_defaults())
        };
        let before = Exact {
            check: CheckAt::BeforeRequest,
            ..Exact::default()
        };
        assert_eq!(
            summary_line(&exact(TriggerKind::Every, before.clone())),
            format!(
                "summarises only when you ask (an exact policy does not count every 6 messages); \
                 keeps the latest turn word for word; {SECOND_SYSTEM}"
            )
        );
        assert_eq!(
            summary_line(&exact(
                TriggerKind::Messages,
                Exact {
                    counted: Some(Counted::HISTORY),
                    keep: Some(Keep::Messages(0)),
                    ..before.clone()
                }
            )),
            format!(
                "checked before each request; summarises when over 8 messages are kept word for \
                 word, the summary's counted among them; keeps nothing word for word; \
                 {SECOND_SYSTEM}"
            )
        );
        assert_eq!(
            summary_line(&exact(
                TriggerKind::Tokens,
                Exact {
                    counted: Some(Counted {
                        summary: false,
                        ..Counted::ALL
                    }),
                    keep: Some(Keep::Share {
                        of: ShareOf::Window(8_000),
                        pct: 25,
                        by: Measure::Tokens,
                    }),
                    keep_newest: true,
                    summary_at: SummaryAt::FirstSystem,
                    context_message: Some("Context.".to_owned()),
                    ..before
                }
            )),
            "checked before each request; summarises when the system prompt, the messages kept \
             word for word, the message being answered and the reply just received are over \
             1,000 tokens; \
             keeps the newest messages that fit in 25% of an 8,000-token window word for word, \
             and always the newest message; \
             the summary is sent first, as a system message before the system prompt; \
             a fixed context message is sent before the summary"
        );
    }

    /// Each field of the section changed alone from today's rules (under the window trigger,
    /// which weighs the whole request either way): the changed set is that field, and the line
    /// says what it changed; a field its choice does not use leaves the line as it was, and
    /// says why beside itself.
    #[test]
    fn each_exact_field_changed_alone_shows_in_the_line() {
        let base = with_trigger(TriggerKind::Window.with_defaults());
        let before = summary_line(&base);
        let fires = "summarises when the whole request is over 80% of an 8,192-token window \
                     (6,553 tokens)";
        let keeps = "keeps the newest turns that fit in 30% of the window (2,457 tokens) word for \
                     word, and always the latest";
        assert_eq!(
            before,
            format!("checked after each reply; {fires}; {keeps}; {SECOND_SYSTEM}")
        );
        let cases: [(&str, &str, String); 11] = [
            (
                "exact_counted",
                "history",
                format!(
                    "checked after each reply; summarises when the conversation without the \
                     system prompt is over 80% of an 8,192-token window (6,553 tokens); \
                     {keeps}; {SECOND_SYSTEM}"
                ),
            ),
            (
                "exact_compare",
                "at_least",
                format!(
                    "checked after each reply; summarises when the whole request reaches 80% of \
                     an 8,192-token window (6,553 tokens); {keeps}; {SECOND_SYSTEM}"
                ),
            ),
            (
                "exact_check",
                "before_request",
                format!("checked before each request; {fires}; {keeps}; {SECOND_SYSTEM}"),
            ),
            (
                "exact_keep",
                "messages",
                format!(
                    "checked after each reply; {fires}; keeps nothing word for word; \
                     {SECOND_SYSTEM}"
                ),
            ),
            ("exact_keep_n", "5", before.clone()),
            (
                "exact_start",
                "at_user",
                format!(
                    "checked after each reply; {fires}; {keeps}, from a user message on; \
                     {SECOND_SYSTEM}"
                ),
            ),
            (
                "exact_summary_at",
                "first_system",
                format!(
                    "checked after each reply; {fires}; {keeps}; the summary is sent first, as \
                     a system message before the system prompt"
                ),
            ),
            ("exact_summary_text", "Thanks.", before.clone()),
            ("exact_summary_prefix", "Summary: ", before.clone()),
            (
                "exact_overflow",
                "resummarise",
                format!(
                    "checked after each reply; {fires}; {keeps}; {SECOND_SYSTEM}; \
                     when only the old summary would be folded, it is summarised again"
                ),
            ),
            (
                "exact_counter",
                "langchain-approx",
                format!(
                    "checked after each reply; {fires}; {keeps}; {SECOND_SYSTEM}; \
                     the dry runs count tokens with LangChain's count_tokens_approximately"
                ),
            ),
        ];
        assert_eq!(
            cases.iter().map(|c| c.0).collect::<Vec<_>>(),
            EXACT_FIELDS.iter().map(|f| f.name).collect::<Vec<_>>(),
            "one case per field"
        );
        for (name, value, line) in cases {
            let mut form = ExactForm::of(&base.exact);
            form.set(name, value.to_owned());
            assert_eq!(form.changed(), vec![name]);
            let policy = Policy {
                exact: form.exact().unwrap(),
                ..base.clone()
            };
            assert_eq!(summary_line(&policy), line, "{name} = {value}");
            assert_eq!(form.unused(name).is_some(), line == before, "{name}");
            assert_eq!(
                fold_label(&form),
                "11 more: 10 at their defaults, 1 changed"
            );
            form.regroup();
            assert_eq!(fold_label(&form), "10 more at their defaults");
            for field in EXACT_FIELDS {
                let this = field.name == name;
                assert_eq!(form.is_open(field.name), this);
                assert_eq!(form.unused(field.name).is_some(), this && line == before);
            }
            form.reset(name);
            assert!(form.changed().is_empty());
        }
    }

    #[test]
    fn texts_are_quoted_on_one_short_line_and_numbers_take_their_article() {
        assert_eq!(quoted(" Here is\n\n it. "), "\"Here is it.\"");
        assert_eq!(quoted(&"word ".repeat(20)).chars().count(), 62);
        for (n, article) in [
            (8, "an"),
            (11, "an"),
            (18, "an"),
            (80, "an"),
            (110, "a"),
            (1_100, "a"),
            (8_192, "an"),
            (11_000, "an"),
            (18_500, "an"),
            (128_000, "a"),
            (800_000, "an"),
            (1_000_000, "a"),
        ] {
            assert_eq!(a_or_an(n), article, "{n}");
        }
    }
}
