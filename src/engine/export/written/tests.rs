use super::*;
use crate::engine::export::{Target, export};
use crate::engine::peers::exact as peers;
use crate::engine::policy::{Placement, PolicyError};

const TARGETS: [Target; 3] = [Target::Langgraph, Target::AgentsSession, Target::SeedClass];

fn ctx() -> ExportContext<'static> {
    static MUST: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    static PINNED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    ExportContext {
        summary_prompt: "Summarise the advice, with \"quotes\" and a \\ backslash.",
        word_limit: Some(80),
        must_keep: MUST.get_or_init(|| vec!["the client's salary".to_owned()]),
        pinned: PINNED.get_or_init(|| vec!["salary: ₹1,20,000".to_owned()]),
        chat_model: "gpt-4o-mini",
        summary_model: "gpt-4.1-nano",
        base_url: "https://api.groq.com/openai/v1",
        context_window: 128_000,
    }
}

/// One valid trigger of each kind.
fn triggers() -> Vec<Trigger> {
    let all = vec![
        Trigger::Turns {
            max_turns: 6,
            keep: 3,
        },
        Trigger::Tokens {
            budget: 1_200,
            keep_tokens: 500,
        },
        Trigger::Every { n: 7 },
        Trigger::MessageCount { max_messages: 10 },
        Trigger::Manual { keep: 1 },
        Trigger::Window {
            context: 16_000,
            fire_pct: 75,
            keep_pct: 20,
            keep_turns: 0,
        },
        Trigger::Window {
            context: 16_000,
            fire_pct: 75,
            keep_pct: 20,
            keep_turns: 4,
        },
    ];
    for t in &all {
        assert_eq!(t.validate(), Ok::<(), PolicyError>(()), "{t:?}");
    }
    all
}

#[test]
fn every_trigger_placement_and_fold_mode_is_exported_exactly() {
    for trigger in triggers() {
        for &(placement, _, _) in Placement::CHOICES {
            for fold in [FoldMode::Progressive, FoldMode::RebuildFromArchive] {
                for format in [SummaryFormat::Prose, SummaryFormat::Topics] {
                    let mut policy = Policy::new(trigger.clone()).expect("valid");
                    policy.placement = placement;
                    policy.fold = fold;
                    policy.format = format;
                    for target in TARGETS {
                        let out = export(target, &policy, &ctx());
                        assert!(out.exact, "{target:?} {policy:?}: {:?}", out.differences);
                        assert_eq!(out.runs, policy);
                        assert!(out.differences.is_empty());
                        assert!(
                            out.code
                                .contains(&format!("PLACEMENT = \"{}\"", placement.slug())),
                            "{target:?}"
                        );
                        assert!(
                            out.code
                                .contains(&format!("FOLD_MODE = \"{}\"", fold_slug(fold)))
                        );
                        assert_eq!(
                            out.code.contains("SUMMARY_SECTIONS = None"),
                            format == SummaryFormat::Prose
                        );
                        assert!(!out.code.contains("__SM_"), "{target:?}:\n{}", out.code);
                    }
                }
            }
        }
    }
}

#[test]
fn the_snippet_carries_the_triggers_numbers_and_the_settings() {
    let mut policy = Policy::new(Trigger::Window {
        context: 16_000,
        fire_pct: 75,
        keep_pct: 20,
        keep_turns: 4,
    })
    .expect("valid");
    policy.placement = Placement::UserAck;
    for target in TARGETS {
        let code = export(target, &policy, &ctx()).code;
        for line in [
            "CONTEXT = 16000",
            "THRESHOLD = CONTEXT * 75 // 100",
            "KEEP_TOKENS = CONTEXT * 20 // 100",
            "KEEP_TURNS = 4",
            "BASE_URL = \"https://api.groq.com/openai/v1\"",
            "CHAT_MODEL = \"gpt-4o-mini\"",
            "SUMMARY_MODEL = \"gpt-4.1-nano\"",
            "SUMMARY_PROMPT = \"Summarise the advice, with \\\"quotes\\\" and a \\\\ backslash.\"",
            "MUST_KEEP = [\"the client's salary\"]",
            "PINNED = [\"salary: ₹1,20,000\"]",
            "WORD_LIMIT = 80",
            "SUMMARY_HEADER = \"CONVERSATION SUMMARY (earlier turns):\\n\"",
        ] {
            assert!(code.contains(line), "{target:?} lacks {line:?}:\n{code}");
        }
        assert!(code.contains(target.file_name()), "{target:?}");
        assert!(
            code.contains("summarise at 75% of a 16,000-token window, keep 4 turns"),
            "{target:?}"
        );
    }
}

#[test]
fn each_fragment_fills_every_number_of_its_trigger() {
    for trigger in triggers() {
        let rule = fold_rule(&trigger);
        assert!(!rule.contains("__SM_"), "{trigger:?}:\n{rule}");
        assert!(
            rule.contains("def turns_to_fold(") && rule.contains("def turns_to_fold_on_request(")
        );
        for (_, value) in trigger.params() {
            assert!(
                rule.contains(&value.to_string()),
                "{trigger:?} lacks {value}"
            );
        }
    }
}

#[test]
fn a_peer_presets_exact_fields_give_the_apps_own_rule_for_its_trigger() {
    let cookbook = peers::cookbook(2, 4);
    assert!(cookbook.exact.is_exact());
    for target in TARGETS {
        let out = export(target, &cookbook, &ctx());
        assert!(!out.exact);
        assert_eq!(out.runs.trigger, cookbook.trigger);
        assert_eq!(out.runs.exact, Exact::default());
        assert_eq!(out.runs.prompt, cookbook.prompt);
        assert_eq!(out.differences.len(), 1, "{:?}", out.differences);
        assert!(
            out.differences[0].contains("checks after each reply and folds whole turns"),
            "{:?}",
            out.differences
        );
    }
}

#[test]
fn structured_memory_and_a_summary_budget_are_dropped_and_named() {
    let policy = Policy {
        format: SummaryFormat::Structured,
        summary_budget: Some(1_500),
        ..Policy::default()
    };
    for target in TARGETS {
        let out = export(target, &policy, &ctx());
        assert!(!out.exact);
        let mut nearest = policy.clone();
        nearest.format = SummaryFormat::Prose;
        nearest.summary_budget = None;
        assert_eq!(out.runs, nearest);
        assert_eq!(out.differences.len(), 2, "{:?}", out.differences);
        assert!(out.differences[0].contains("not the JSON memory"));
        assert!(out.differences[1].contains("1,500 tokens is not compressed again"));
        // The nearest policy is the one the snippet writes.
        assert!(out.code.contains("MAX_TURNS = 4") && out.code.contains("KEEP_TURNS = 2"));
        assert!(out.code.contains("SUMMARY_SECTIONS = None"));
    }
}

#[test]
fn the_snippet_says_what_it_counts_with_and_a_policy_measured_otherwise_is_told() {
    use crate::engine::policy::Counter;
    // The policy's line in the opening comment, wrapped: compared word by word.
    let said = |code: &str, line: &str| {
        code.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(line)
    };
    for target in TARGETS {
        let plain = export(target, &Policy::default(), &ctx());
        assert_eq!(plain.runs.exact.counter, Counter::O200K);
        assert!(said(&plain.code, "tokens counted with o200k_base (exact)."));
        assert!(
            plain
                .differences
                .iter()
                .all(|d| !d.contains("count_tokens"))
        );
        let mut approx = Policy::default();
        approx.exact.counter = Counter::LangChainApprox;
        let out = export(target, &approx, &ctx());
        assert_eq!(out.runs.exact.counter, Counter::O200K, "{target:?}");
        assert!(
            out.differences.iter().any(|d| d.contains(
                "counts with tiktoken's o200k_base (its count_tokens default), not LangChain's count_tokens_approximately"
            )),
            "{target:?}: {:?}",
            out.differences
        );
        assert!(
            said(&out.code, "tokens counted with o200k_base (exact)."),
            "{target:?}"
        );
    }
}
