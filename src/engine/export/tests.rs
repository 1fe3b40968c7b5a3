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
            "summary-memory-middleware",
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
        // The command-line tool's `--policy` reads the page's export through the session reader.
        assert_eq!(
            crate::engine::session::import_policy(out.code.as_bytes()).ok(),
            Some(policy.clone())
        );
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

fn exported(target: Target, policy: &Policy) -> Export {
    export(target, policy, &ctx())
}

fn says(out: &Export, words: &str) -> bool {
    out.differences.iter().any(|d| d.contains(words))
}

#[test]
fn each_target_expresses_its_own_library_policy_exactly() {
    use crate::engine::export::LcSize::{FractionPct, Messages, Tokens};
    let cases = [
        (
            Target::LangchainMiddlewarePy,
            peers::langchain_v1(4_000, 20),
        ),
        (
            Target::LangchainMiddlewarePy,
            langchain_v1_runs(Some(Messages(10)), Tokens(200), 128_000),
        ),
        (
            Target::LangchainMiddlewarePy,
            langchain_v1_runs(None, Messages(6), 128_000),
        ),
        (
            Target::LangchainMiddlewarePy,
            langchain_v1_runs(Some(Tokens(300)), Tokens(150), 128_000),
        ),
        (Target::LangchainMiddlewareJs, peers::langchain_v1(300, 6)),
        (
            Target::LangchainMiddlewareJs,
            langchain_v1_js_runs(Some(Tokens(500)), Messages(0), 128_000),
        ),
        (Target::LangchainBuffer, peers::langchain_classic(2_000)),
        (Target::Llamaindex, peers::llamaindex(96_000)),
    ];
    for (target, policy) in cases {
        let out = exported(target, &policy);
        assert!(out.exact, "{target:?}: {:?}", out.differences);
        assert_eq!(out.runs, policy, "{target:?}");
        assert!(out.differences.is_empty());
    }
    // A fraction of the window comes back as the tokens the library computes from it, so the
    // policy it builds is exact again.
    let fraction = langchain_v1_runs(Some(FractionPct(80)), FractionPct(30), 1_000);
    assert_eq!(
        fraction.trigger,
        Trigger::Tokens {
            budget: 800,
            keep_tokens: 800
        }
    );
    assert!(exported(Target::LangchainMiddlewarePy, &fraction).exact);
}

#[test]
fn the_middleware_keeps_messages_not_turns_and_says_so_with_the_numbers() {
    let out = exported(Target::LangchainMiddlewarePy, &Policy::default());
    assert!(!out.exact);
    assert!(
        says(&out, "keep 4 messages ≈ your 2 turns"),
        "{:?}",
        out.differences
    );
    assert!(
        says(&out, "8 stored messages ≈ your 4 turns"),
        "{:?}",
        out.differences
    );
    assert!(
        says(&out, "not as a second system message"),
        "{:?}",
        out.differences
    );
    // `len(messages) >= 8` is "over 7 messages" in the engine's terms.
    assert_eq!(out.runs.trigger, Trigger::MessageCount { max_messages: 7 });
    assert_eq!(
        out.runs.exact.keep,
        Some(crate::engine::policy::Keep::Messages(4))
    );
    assert!(
        out.code.contains("TRIGGER = (\"messages\", 8)"),
        "{}",
        out.code
    );
    assert!(out.code.contains("KEEP = (\"messages\", 4)"));
    // The prompt, word limit, must-keep list and pinned facts are carried, and no key.
    assert!(
        out.code
            .contains(r#"SUMMARY_PROMPT = "Summarise the advice {so far}, with \"quotes\".""#)
    );
    assert!(out.code.contains("WORD_LIMIT = 120"));
    assert!(out.code.contains("[\"the client's salary\"]"));
    assert!(out.code.contains("salary: ₹1,20,000"));
    assert!(out.code.contains("OPENAI_API_KEY") && !out.code.contains("api_key="));
}

#[test]
fn a_token_budget_fires_one_token_later_and_keeps_tokens() {
    let policy = with_trigger(Trigger::Tokens {
        budget: 1_200,
        keep_tokens: 600,
    });
    let out = exported(Target::LangchainMiddlewareJs, &policy);
    assert!(!out.exact);
    // The app fires over 1,200 tokens; the middleware at 1,201 or more.
    assert_eq!(
        out.runs.trigger,
        Trigger::Tokens {
            budget: 1_201,
            keep_tokens: 1_201
        }
    );
    assert!(
        out.code.contains("TRIGGER = { tokens: 1201 }"),
        "{}",
        out.code
    );
    assert!(out.code.contains("KEEP = { tokens: 600 }"));
    assert!(says(&out, "checks before each model call"));
}

#[test]
fn python_keeps_at_least_one_message_where_javascript_keeps_none() {
    let policy = with_trigger(Trigger::Turns {
        max_turns: 3,
        keep: 0,
    });
    let py = exported(Target::LangchainMiddlewarePy, &policy);
    let js = exported(Target::LangchainMiddlewareJs, &policy);
    assert_eq!(
        py.runs.exact.keep,
        Some(crate::engine::policy::Keep::Messages(1))
    );
    assert_eq!(
        js.runs.exact.keep,
        Some(crate::engine::policy::Keep::Messages(0))
    );
    assert!(
        says(&py, "keeps at least 1 message"),
        "{:?}",
        py.differences
    );
    assert!(!says(&js, "keeps at least 1 message"));
}

#[test]
fn a_manual_policy_gets_no_trigger_and_the_sentence_says_why() {
    let policy = with_trigger(Trigger::Manual { keep: 2 });
    let out = exported(Target::LangchainMiddlewarePy, &policy);
    assert!(out.code.contains("TRIGGER = None"));
    assert!(says(&out, "no \"summarise now\" button"));
    let out = exported(Target::LangchainBuffer, &policy);
    assert!(
        out.code.contains("MAX_TOKEN_LIMIT = 128000"),
        "{}",
        out.code
    );
    assert!(says(&out, "128,000-token window"), "{:?}", out.differences);
}

#[test]
fn the_buffers_have_one_limit_and_say_what_it_stands_for() {
    let tokens = with_trigger(Trigger::Tokens {
        budget: 1_200,
        keep_tokens: 600,
    });
    let out = exported(Target::LangchainBuffer, &tokens);
    assert_eq!(out.runs.trigger, peers::langchain_classic(1_200).trigger);
    assert!(says(
        &out,
        "keeps the newest messages that fit in 1,200, where yours keeps 600 tokens"
    ));
    assert!(out.code.contains("MAX_TOKEN_LIMIT = 1200"));
    let window = with_trigger(Trigger::Window {
        context: 32_000,
        fire_pct: 80,
        keep_pct: 30,
        keep_turns: 0,
    });
    let out = exported(Target::Llamaindex, &window);
    assert_eq!(out.runs.exact, peers::llamaindex(25_600).exact);
    assert!(
        says(&out, "25,600 tokens ≈ your 80% of a 32,000-token window"),
        "{:?}",
        out.differences
    );
    assert!(out.code.contains("TOKEN_LIMIT = 25600"));
    let turns = exported(Target::Llamaindex, &Policy::default());
    assert!(
        says(
            &turns,
            "1,000 tokens ≈ your 4 turns at about 250 tokens a turn"
        ),
        "{:?}",
        turns.differences
    );
}

#[test]
fn what_no_library_target_can_carry_is_named() {
    let mut policy = peers::langchain_v1(4_000, 20);
    policy.fold = FoldMode::RebuildFromArchive;
    policy.summary_budget = Some(300);
    policy.format = SummaryFormat::Structured;
    let out = exported(Target::LangchainMiddlewarePy, &policy);
    assert!(!out.exact);
    assert_eq!(out.runs.fold, FoldMode::Progressive);
    assert_eq!(out.runs.summary_budget, None);
    assert_eq!(out.runs.format, SummaryFormat::Prose);
    assert!(says(&out, "cannot rebuild the summary"));
    assert!(says(&out, "your 300 tokens is not compressed again"));
    assert!(says(&out, "does not check the JSON memory"));
    // And only those: the trigger and the cut are the library's own.
    assert_eq!(out.differences.len(), 3, "{:?}", out.differences);
}

/// LangChain v1 keeps the newest message when it alone is over the kept tokens, and the
/// token buffers do not: the export runs the library's own floor and says so either way.
#[test]
fn the_newest_message_floor_is_the_middlewares_own_and_said_where_it_differs() {
    use crate::engine::export::LcSize::{FractionPct, Messages, Tokens};
    use crate::engine::policy::Keep;
    // The middleware's cut by tokens (a fraction of the window too) has the floor; by
    // messages it has none, and a floor on the input changes nothing there.
    let tokens = langchain_v1_runs(Some(Tokens(300)), Tokens(150), 128_000);
    assert!(tokens.exact.keep_newest);
    assert!(
        langchain_v1_js_runs(Some(Tokens(300)), FractionPct(30), 500)
            .exact
            .keep_newest
    );
    assert!(
        !langchain_v1_js_runs(Some(Tokens(300)), Messages(0), 500)
            .exact
            .keep_newest
    );
    for target in [Target::LangchainMiddlewarePy, Target::LangchainMiddlewareJs] {
        assert!(exported(target, &tokens).exact, "{target:?}");
        let mut no_floor = tokens.clone();
        no_floor.exact.keep_newest = false;
        let out = exported(target, &no_floor);
        assert!(!out.exact && out.runs.exact.keep_newest, "{target:?}");
        assert!(
            says(&out, "always keeps the newest message"),
            "{target:?}: {:?}",
            out.differences
        );
        let mut by_messages = peers::langchain_v1(300, 6);
        by_messages.exact.keep_newest = true;
        let out = exported(target, &by_messages);
        assert!(out.exact, "{target:?}: {:?}", out.differences);
    }
    // LlamaIndex's buffer and the classic one fold a giant newest message.
    for (target, mut policy) in [
        (Target::Llamaindex, peers::llamaindex(500)),
        (Target::LangchainBuffer, peers::langchain_classic(500)),
    ] {
        assert_eq!(policy.exact.keep, Some(Keep::Tokens(500)));
        policy.exact.keep_newest = true;
        let out = exported(target, &policy);
        assert!(!out.exact && !out.runs.exact.keep_newest, "{target:?}");
        assert!(
            says(&out, "can summarise the newest message too"),
            "{target:?}: {:?}",
            out.differences
        );
    }
}

fn conversation(turns: usize) -> Vec<crate::engine::schedule::PlayedMessage> {
    use crate::engine::Role;
    (0..turns * 2)
        .map(|i| crate::engine::schedule::PlayedMessage {
            role: if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            },
            tokens: 10,
            chars: 50,
            calls: false,
        })
        .collect()
}

struct Words;

impl crate::engine::schedule::Sizer for Words {
    fn tokens(&self, text: &str) -> u32 {
        text.split_whitespace().count() as u32
    }
    fn summary(&self, call: u32) -> String {
        format!("S{call} w w w")
    }
}

#[test]
fn the_schedule_difference_names_the_turns_of_each() {
    let input = MessageInput {
        messages: conversation(14),
        system_prompt: "You help.",
        system_tokens: 2,
        sizer: &Words,
    };
    let yours = Policy::default();
    let same = schedule_difference(&yours, &yours, &input);
    assert_eq!(same.yours, same.runs);
    assert!(!same.yours.is_empty());
    assert!(
        same.sentence
            .starts_with("on this conversation it folds at the same turns ("),
        "{}",
        same.sentence
    );
    // Every 6 messages folds after turns 3, 6 and 9; the middleware's count of stored messages
    // includes its summary and the kept ones, so after its first fold it fires every 2 turns.
    let yours = with_trigger(Trigger::Every { n: 6 });
    let runs = exported(Target::LangchainMiddlewarePy, &yours).runs;
    let diff = schedule_difference(&yours, &runs, &input);
    assert_eq!(diff.yours[..3], [4, 7, 10]);
    assert_eq!(diff.runs[..3], [4, 6, 8]);
    assert_ne!(diff.yours, diff.runs);
    let expect = format!(
        "on this conversation it folds at turns {} instead of {}",
        super::and_list(&diff.runs),
        super::and_list(&diff.yours)
    );
    assert_eq!(diff.sentence, expect);
    let never = with_trigger(Trigger::Manual { keep: 0 });
    let none = schedule_difference(&yours, &never, &input);
    assert!(none.runs.is_empty());
    assert!(
        none.sentence
            .contains("it never folds, where yours folds at turns"),
        "{}",
        none.sentence
    );
    assert_eq!(super::and_list(&[6, 12, 18]), "6, 12 and 18");
}

#[test]
fn the_conversation_on_screen_plays_with_its_own_counts() {
    use crate::engine::{Message, Role};
    let mut messages = vec![Message::counted(Role::System, "You help.".into(), 3, 0)];
    for i in 0..6 {
        messages.push(Message::counted(Role::User, format!("question {i}"), 12, 0));
        messages.push(Message::counted(
            Role::Assistant,
            format!("answer {i}"),
            30,
            0,
        ));
    }
    let sizer = AssumedSummary { words: 5 };
    assert_eq!(
        crate::engine::schedule::Sizer::summary(&sizer, 2),
        "S2 w w w w"
    );
    let input = MessageInput {
        messages: played(&messages),
        system_prompt: "You help.",
        system_tokens: 3,
        sizer: &sizer,
    };
    assert_eq!(input.messages.len(), 12);
    assert_eq!(
        (input.messages[0].tokens, input.messages[1].tokens),
        (12, 30)
    );
    let policy = with_trigger(Trigger::Turns {
        max_turns: 2,
        keep: 1,
    });
    let diff = schedule_difference(&policy, &policy, &input);
    assert_eq!(diff.yours, [3, 4, 5, 6]);
}

// Issue #39: a snippet ran its library's default counter whatever the policy was measured
// with. Each now passes the matching counter, or says the library's default is the one modelled.
#[test]
fn a_snippet_passes_the_counter_its_policy_is_measured_with() {
    use crate::engine::peers::preset;
    use crate::engine::policy::{Counter, Vocabulary};
    let ctx = ctx();
    let line = |code: &str, name: &str| -> String {
        code.lines()
            .find(|l| {
                l.starts_with(&format!("{name} = "))
                    || l.starts_with(&format!("export const {name} = "))
            })
            .unwrap_or_else(|| panic!("no {name} in:\n{code}"))
            .to_owned()
    };
    // LangChain's middleware preset is measured with its default: the snippet keeps it.
    let middleware = preset("langchain-v1-middleware").unwrap().policy(8_000);
    assert_eq!(middleware.exact.counter, Counter::LangChainApprox);
    let py = export(Target::LangchainMiddlewarePy, &middleware, &ctx);
    assert!(py.exact, "{:?}", py.differences);
    assert_eq!(line(&py.code, "COUNTER"), "COUNTER = None");
    assert_eq!(py.runs.exact.counter, Counter::LangChainApprox);
    let js = export(Target::LangchainMiddlewareJs, &middleware, &ctx);
    assert_eq!(line(&js.code, "COUNTER"), "export const COUNTER = null;");
    // Exact counts, as if a tiktoken counter were passed.
    let mut exact_counts = middleware.clone();
    exact_counts.exact.counter = Counter::O200K;
    let py = export(Target::LangchainMiddlewarePy, &exact_counts, &ctx);
    assert!(py.exact, "{:?}", py.differences);
    assert_eq!(
        line(&py.code, "COUNTER"),
        "COUNTER = (\"o200k_base\", False)"
    );
    assert!(
        py.code
            .contains("token_counter=token_counter or default_counter()")
    );
    let js = export(Target::LangchainMiddlewareJs, &exact_counts, &ctx);
    assert_eq!(
        line(&js.code, "COUNTER"),
        "export const COUNTER = [\"o200k_base\", false];"
    );
    let mut chat = middleware.clone();
    chat.exact.counter = Counter::Tiktoken {
        vocabulary: Vocabulary::Cl100k,
        chat: true,
    };
    let py = export(Target::LangchainMiddlewarePy, &chat, &ctx);
    assert_eq!(
        line(&py.code, "COUNTER"),
        "COUNTER = (\"cl100k_base\", True)"
    );
    assert_eq!(py.runs.exact.counter, chat.exact.counter);
    // A counter the library cannot take is stood in for, and said.
    let mut gemini = middleware.clone();
    gemini.exact.counter = Counter::GeminiEstimate;
    let py = export(Target::LangchainMiddlewarePy, &gemini, &ctx);
    assert!(!py.exact);
    assert_eq!(py.runs.exact.counter, Counter::O200K);
    assert!(
        py.differences.iter().any(|d| d
            == "LangChain's middleware cannot count with Gemini CLI's character estimate: the snippet passes exact o200k_base counts instead."),
        "{:?}",
        py.differences
    );
    // LlamaIndex's preset counts in its default cl100k_base; exact o200k_base is passed as
    // tokenizer_fn; LangChain's estimate it cannot take.
    let llamaindex = preset("llamaindex-summary-buffer").unwrap().policy(8_000);
    let out = export(Target::Llamaindex, &llamaindex, &ctx);
    assert!(out.exact, "{:?}", out.differences);
    assert_eq!(line(&out.code, "TOKENIZER"), "TOKENIZER = None");
    let mut o200k = llamaindex.clone();
    o200k.exact.counter = Counter::O200K;
    let out = export(Target::Llamaindex, &o200k, &ctx);
    assert!(out.exact, "{:?}", out.differences);
    assert_eq!(line(&out.code, "TOKENIZER"), "TOKENIZER = \"o200k_base\"");
    let mut approx = llamaindex.clone();
    approx.exact.counter = Counter::LangChainApprox;
    let out = export(Target::Llamaindex, &approx, &ctx);
    assert!(!out.exact);
    assert_eq!(out.runs.exact.counter, Counter::O200K);
    assert!(
        out.differences
            .iter()
            .any(|d| d.contains("not with LangChain's count_tokens_approximately")),
        "{:?}",
        out.differences
    );
}

#[test]
fn the_classic_buffer_snippet_keeps_its_models_counter_and_says_when_the_policy_counts_otherwise() {
    let counts = |d: &String| d.contains("get_num_tokens_from_messages");
    let preset = crate::engine::peers::preset("langchain-summary-buffer")
        .expect("the preset")
        .policy(128_000);
    let out = export(Target::LangchainBuffer, &preset, &ctx());
    assert!(!out.differences.iter().any(counts), "{:?}", out.differences);
    assert!(
        out.code
            .contains("Measured by the library's default counter, left in place")
    );
    let own = export(Target::LangchainBuffer, &Policy::default(), &ctx());
    let said: Vec<&String> = own.differences.iter().filter(|d| counts(d)).collect();
    assert_eq!(said.len(), 1, "{:?}", own.differences);
    assert!(said[0].ends_with("not o200k_base (exact) as your policy is measured."));
}

#[test]
fn the_middleware_snippet_carries_the_policy_itself_and_names_what_it_leaves_out() {
    let mut tuned = with_trigger(Trigger::Window {
        context: 32_000,
        fire_pct: 80,
        keep_pct: 30,
        keep_turns: 0,
    });
    tuned.placement = Placement::UserAck;
    tuned.fold = FoldMode::RebuildFromArchive;
    tuned.prompt.text = "Keep \"every\" figure {exactly}\\ as given.".to_owned();
    for policy in [
        Policy::default(),
        tuned.clone(),
        peers::langchain_v1(4_000, 20),
        peers::cookbook(2, 4),
    ] {
        let out = exported(Target::SummaryMemoryMiddleware, &policy);
        assert!(out.exact && out.differences.is_empty(), "{policy:?}");
        assert!(out.code.contains("SummaryMemoryMiddleware("));
        // The snippet's POLICY is the JSON the page exports, read back to the same policy.
        let start = out.code.find("POLICY = r\"\"\"").expect("POLICY") + 13;
        let end = start + out.code[start..].find("\"\"\"").expect("its end");
        assert_eq!(import_policy(&out.code[start..end]), Ok(policy.clone()));
    }
    // What the middleware does not run is left out of the policy it runs, and named.
    tuned.summary_budget = Some(400);
    let mut codex = peers::codex(8_000);
    codex.summary_budget = None;
    for (policy, says) in [
        (tuned, "summary budget"),
        (codex, "user messages"),
        (peers::gemini_cli(500), "one summariser call"),
    ] {
        let out = exported(Target::SummaryMemoryMiddleware, &policy);
        assert!(!out.exact);
        assert!(
            out.differences.iter().any(|d| d.contains(says)),
            "{:?}",
            out.differences
        );
        let start = out.code.find("POLICY = r\"\"\"").expect("POLICY") + 13;
        let end = start + out.code[start..].find("\"\"\"").expect("its end");
        assert_eq!(import_policy(&out.code[start..end]), Ok(out.runs.clone()));
    }
}
