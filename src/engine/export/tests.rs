use super::*;
use crate::engine::peers::exact as peers;
use crate::engine::policy::{FoldMode, Placement, SummaryFormat, Trigger};

fn ctx() -> ExportContext<'static> {
    static MUST: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    static PINNED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    ExportContext {
        summary_prompt: "Summarise the advice {so far}, with \"quotes\".",
        word_limit: Some(120),
        must_keep: MUST.get_or_init(|| vec!["the client's salary".to_owned()]),
        pinned: PINNED.get_or_init(|| vec!["salary: ₹1,20,000".to_owned()]),
        chat_model: "gpt-4o-mini",
        summary_model: "gpt-4o-mini",
        base_url: "https://api.openai.com/v1",
        context_window: 128_000,
    }
}

fn with_trigger(trigger: Trigger) -> Policy {
    Policy::new(trigger).expect("a valid trigger")
}

#[test]
fn every_target_has_one_row_and_its_slug_names_it_again() {
    let slugs: Vec<&str> = Target::ALL.iter().map(|t| t.slug()).collect();
    assert_eq!(
        slugs,
        [
            "langchain-middleware-py",
            "langchain-middleware-js",
            "langchain-buffer",
            "langgraph",
            "llamaindex",
            "agents-session",
            "seed-class",
            "json"
        ]
    );
    for target in Target::ALL {
        assert_eq!(TARGETS.iter().filter(|s| s.target == target).count(), 1);
        assert_eq!(Target::from_slug(target.slug()), Some(target));
        assert!(!target.label().is_empty());
        let ext = match target.language() {
            Language::Python => ".py",
            Language::JavaScript => ".mjs",
            Language::Json => ".json",
        };
        assert!(target.file_name().ends_with(ext), "{target:?}");
    }
    assert_eq!(Target::from_slug("nope"), None);
}

#[test]
fn the_json_export_imports_back_to_the_same_policy() {
    let mut tuned = with_trigger(Trigger::Window {
        context: 32_000,
        fire_pct: 80,
        keep_pct: 30,
        keep_turns: 0,
    });
    tuned.placement = Placement::UserAck;
    tuned.fold = FoldMode::RebuildFromArchive;
    tuned.format = SummaryFormat::Topics;
    tuned.summary_budget = Some(400);
    tuned.prompt.must_keep = vec!["salary".to_owned()];
    let policies = [
        Policy::default(),
        tuned,
        peers::langchain_v1(4_000, 20),
        peers::gemini_cli(500),
        peers::cookbook(2, 4),
    ];
    for policy in policies {
        let out = export(Target::Json, &policy, &ctx());
        assert!(out.exact && out.differences.is_empty());
        assert_eq!(import_policy(&out.code), Ok(policy.clone()), "{}", out.code);
        assert!(out.code.contains("gpt-4o-mini") && out.code.contains("₹1,20,000"));
    }
}

#[test]
fn a_broken_policy_file_is_refused_naming_the_place() {
    let err = import_policy("{").unwrap_err();
    assert!(err.contains("not valid JSON"), "{err}");
    let err = import_policy("[]").unwrap_err();
    assert!(err.contains("no JSON object"), "{err}");
    let err = import_policy(r#"{"format":"other"}"#).unwrap_err();
    assert!(err.starts_with("at format:"), "{err}");
    let err = import_policy(r#"{"version":99,"policy":{}}"#).unwrap_err();
    assert!(err.starts_with("at version:"), "{err}");
    let err = import_policy(r#"{"version":4}"#).unwrap_err();
    assert!(err.starts_with("at policy:"), "{err}");
    let good = export(Target::Json, &Policy::default(), &ctx()).code;
    let bad = good.replace("\"second_system\"", "\"sideways\"");
    let err = import_policy(&bad).unwrap_err();
    assert!(err.contains("policy.placement"), "{err}");
    let bad = good.replace("\"max_turns\": 4", "\"max_turns\": \"four\"");
    let err = import_policy(&bad).unwrap_err();
    assert!(err.contains("policy.trigger.max_turns"), "{err}");
}

#[test]
fn no_snippet_keeps_a_placeholder_or_a_key() {
    for target in Target::ALL {
        let out = export(target, &Policy::default(), &ctx());
        assert!(!out.code.contains("__SM_"), "{target:?}:\n{}", out.code);
        assert!(!out.code.contains("sk-"), "{target:?}");
    }
}
