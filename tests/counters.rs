//! Each counter of `engine::policy::Counter` against the real library's own count, to the token.
//!
//! The corpus is every conversation of the wild fixtures (`tests/fixtures/wild/`, read by this
//! app's readers), the multilingual texts of `tests/fixtures/counters/texts.json` (each a user
//! message alone) and the two conversations beside them (Hindi and Chinese; code and tools).
//! It is written, as the engine reads it, to `tests/fidelity/counters/conversations.json`, from
//! which `tests/fidelity/counters.py` computes each library's count with the library itself
//! (LangChain's `count_tokens_approximately`, tiktoken's o200k_base and cl100k_base, Gemini
//! CLI's `estimateTokenCountSync` through `counters_gemini.mjs`) into `expected.json`. This
//! test checks the committed corpus is the fixtures' and that every counter gives every
//! message's count and every list's total as the library does; `tests/fidelity.rs` re-runs the
//! script live and checks `expected.json` is current.
//!
//! After changing the fixtures: `SM_WRITE_COUNTER_CORPUS=1 cargo test --test counters`, then
//! `tests/fidelity/counters.py` with the fidelity venv's python.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use summary_memory::engine::message::ToolCall;
use summary_memory::engine::policy::{Counter, SAMPLES, Vocabularies, Vocabulary, gemini_quarters};
use summary_memory::engine::session::import_all;
use summary_memory::engine::{Message, Role, WordCounter};
use summary_memory::tokens::{Encoding, TokenCounter};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One conversation of the corpus, by a name that says where it came from.
struct Named {
    name: String,
    messages: Vec<Message>,
}

fn plain(role: Role, text: &str) -> Message {
    Message::counted(role, text.to_owned(), 0, 0)
}

/// A conversation in the fidelity shapes' format: a system prompt, then messages with
/// `tool_calls`, `tool_call_id` and `name`.
fn conversation(value: &Value) -> Vec<Message> {
    let mut messages = vec![plain(Role::System, value["system"].as_str().unwrap())];
    for m in value["messages"].as_array().unwrap() {
        let role = match m["role"].as_str().unwrap() {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => Role::System,
        };
        let mut message = plain(role, m["content"].as_str().unwrap());
        for c in m["tool_calls"].as_array().into_iter().flatten() {
            message.calls.push(ToolCall {
                id: c["id"].as_str().unwrap().into(),
                name: c["name"].as_str().unwrap().into(),
                arguments: c["arguments"].as_str().unwrap().into(),
            });
        }
        message.call_id = m["tool_call_id"].as_str().map(str::to_owned);
        message.tool_name = m["name"].as_str().map(str::to_owned);
        messages.push(message);
    }
    messages
}

fn corpus() -> Vec<Named> {
    let mut corpus = Vec::new();
    let wild = root().join("tests/fixtures/wild");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&wild)
        .unwrap()
        .flat_map(|dir| std::fs::read_dir(dir.unwrap().path()).into_iter().flatten())
        .map(|f| f.unwrap().path())
        .collect();
    files.sort();
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let sessions =
            import_all(&bytes, &WordCounter).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let name = file.strip_prefix(root().join("tests/fixtures")).unwrap();
        for (i, session) in sessions.iter().enumerate() {
            corpus.push(Named {
                name: format!("{}#{i}", name.display()),
                messages: session.memory.archive().to_vec(),
            });
        }
    }
    let counters = root().join("tests/fixtures/counters");
    let texts = read_json(&counters.join("texts.json"));
    for (name, text) in texts.as_object().unwrap() {
        corpus.push(Named {
            name: format!("counters/texts.json#{name}"),
            messages: vec![plain(Role::User, text.as_str().unwrap())],
        });
    }
    for file in ["hindi-chinese.json", "code-tools.json"] {
        corpus.push(Named {
            name: format!("counters/{file}"),
            messages: conversation(&read_json(&counters.join(file))),
        });
    }
    // The fidelity tier's two conversations whose default counts are furthest from words,
    // which its drivers run with each library's default counter.
    let fidelity = root().join("tests/fidelity/conversations");
    for file in ["hindi-chinese.json", "code-tools.json"] {
        corpus.push(Named {
            name: format!("fidelity/{file}"),
            messages: conversation(&read_json(&fidelity.join(file))),
        });
    }
    corpus
}

/// The corpus as the Python script reads it.
fn corpus_json(corpus: &[Named]) -> Value {
    let conversations: Vec<Value> = corpus
        .iter()
        .map(|c| {
            let messages: Vec<Value> = c
                .messages
                .iter()
                .map(|m| {
                    let mut v = json!({"role": m.role.as_str(), "content": m.content});
                    if !m.calls.is_empty() {
                        v["tool_calls"] = m
                            .calls
                            .iter()
                            .map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments}))
                            .collect();
                    }
                    if let Some(id) = &m.call_id {
                        v["tool_call_id"] = json!(id);
                    }
                    if let Some(name) = &m.tool_name {
                        v["name"] = json!(name);
                    }
                    v
                })
                .collect();
            json!({"name": c.name, "messages": messages})
        })
        .collect();
    json!({ "conversations": conversations })
}

fn vocabularies() -> TokenCounter {
    let counter = TokenCounter::new(Encoding::O200kBase);
    for encoding in Encoding::ALL {
        counter.load(encoding).expect("the vocabulary loads");
    }
    counter
}

/// What a counter gives a conversation: each message's count, and the list's.
type Counts = (Vec<u64>, u64);

fn engine_counts(counter: Counter, messages: &[Message], vocab: &dyn Vocabularies) -> Counts {
    let each = messages
        .iter()
        .map(|m| u64::from(counter.message(m, vocab)))
        .collect();
    (each, counter.messages(messages, vocab))
}

/// Every count of `expected` that `count` does not give, in words.
fn differences(
    expected: &Value,
    corpus: &[Named],
    count: &dyn Fn(Counter, &[Message]) -> Counts,
) -> Vec<String> {
    let mut out = Vec::new();
    let counts = expected["counts"].as_object().expect("counts");
    for named in corpus {
        let Some(libraries) = counts.get(&named.name) else {
            out.push(format!("{}: not in expected.json", named.name));
            continue;
        };
        for (slug, library) in libraries.as_object().unwrap() {
            let counter = Counter::from_slug(slug).unwrap_or_else(|| panic!("counter {slug}"));
            let (each, total) = count(counter, &named.messages);
            let want: Vec<u64> = library["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_u64().unwrap())
                .collect();
            for (i, (got, want)) in each.iter().zip(&want).enumerate() {
                if got != want {
                    out.push(format!(
                        "{} message {i}, {slug}: {got}, the library {want}",
                        named.name
                    ));
                }
            }
            if each.len() != want.len() {
                out.push(format!("{} {slug}: message count differs", named.name));
            }
            let want_total = library["total"].as_u64().unwrap();
            if total != want_total {
                out.push(format!(
                    "{} total, {slug}: {total}, the library {want_total}",
                    named.name
                ));
            }
        }
    }
    out
}

fn counters_dir() -> PathBuf {
    root().join("tests/fidelity/counters")
}

#[test]
fn the_committed_corpus_is_the_fixtures_as_the_engine_reads_them() {
    let path = counters_dir().join("conversations.json");
    let now = corpus_json(&corpus());
    if std::env::var_os("SM_WRITE_COUNTER_CORPUS").is_some() {
        let text = serde_json::to_string_pretty(&now).unwrap() + "\n";
        std::fs::write(&path, text).unwrap();
    }
    assert!(
        read_json(&path) == now,
        "{} is stale: run SM_WRITE_COUNTER_CORPUS=1 cargo test --test counters, then tests/fidelity/counters.py",
        path.display()
    );
}

#[test]
fn every_counter_gives_the_libraries_count_to_the_token() {
    let expected = read_json(&counters_dir().join("expected.json"));
    let vocab = vocabularies();
    let corpus = corpus();
    let found = differences(&expected, &corpus, &|c, m| engine_counts(c, m, &vocab));
    assert!(found.is_empty(), "{}", found.join("\n"));
    // Every library's counter is checked on every conversation.
    let counts = expected["counts"].as_object().unwrap();
    assert_eq!(counts.len(), corpus.len());
    for slug in [
        "langchain-approx",
        "gemini-estimate",
        "o200k",
        "o200k-chat",
        "cl100k",
        "cl100k-chat",
    ] {
        assert!(counts.values().all(|c| c.get(slug).is_some()), "{slug}");
    }
}

#[test]
fn a_counter_off_by_one_fails_the_comparison() {
    let expected = read_json(&counters_dir().join("expected.json"));
    let vocab = vocabularies();
    let corpus = corpus();
    // Every counter the libraries' counts are written for.
    let planted_counters: Vec<Counter> = Counter::ALL
        .into_iter()
        .filter(|c| !matches!(c, Counter::Words | Counter::Reported))
        .collect();
    assert_eq!(planted_counters.len(), 6);
    for planted in planted_counters {
        let off_by_one = |c: Counter, m: &[Message]| {
            let (mut each, mut total) = engine_counts(c, m, &vocab);
            if c == planted {
                if let Some(first) = each.first_mut() {
                    *first += 1;
                }
                total += 1;
            }
            (each, total)
        };
        let found = differences(&expected, &corpus, &off_by_one);
        assert!(
            found.len() >= corpus.len() && found.iter().all(|d| d.contains(planted.slug())),
            "{planted:?}: {found:?}"
        );
    }
}

/// The issue's own table: on Chinese, LangChain's default counts far fewer than o200k_base,
/// and cl100k_base far more on Hindi.
#[test]
fn the_counters_differ_as_the_issue_measured() {
    let vocab = vocabularies();
    let texts = read_json(&root().join("tests/fixtures/counters/texts.json"));
    let count = |counter: Counter, name: &str| {
        counter.message(&plain(Role::User, texts[name].as_str().unwrap()), &vocab)
    };
    let cl100k = Counter::Tiktoken {
        vocabulary: summary_memory::engine::policy::Vocabulary::Cl100k,
        chat: false,
    };
    assert!(count(Counter::LangChainApprox, "chinese") * 3 / 2 < count(Counter::O200K, "chinese"));
    assert!(count(cl100k, "hindi") > 2 * count(Counter::O200K, "hindi"));
}

/// The Tuner's simulated conversation in each language: the samples' measures are their
/// texts' (from the real vocabularies, and the libraries' counts in `expected.json`), and at
/// the sample's own o200k_base size every counter gives its count of the sample itself, as
/// the library does; a role's name is one token in both vocabularies (the chat format's
/// framing the simulated messages add).
#[test]
fn a_simulated_message_counts_as_its_languages_sample_does() {
    let vocab = vocabularies();
    let texts = read_json(&root().join("tests/fixtures/counters/texts.json"));
    let expected = read_json(&counters_dir().join("expected.json"));
    for sample in SAMPLES {
        let text = texts[sample.slug].as_str().unwrap();
        let message = plain(Role::User, text);
        let cl100k = Counter::Tiktoken {
            vocabulary: Vocabulary::Cl100k,
            chat: false,
        };
        assert_eq!(
            (
                sample.o200k,
                sample.cl100k,
                sample.chars,
                sample.quarters,
                sample.words
            ),
            (
                Counter::O200K.message(&message, &vocab),
                cl100k.message(&message, &vocab),
                text.chars().count() as u32,
                gemini_quarters(&message) as u32,
                Counter::Words.message(&message, &vocab),
            ),
            "{}",
            sample.slug
        );
        let library = &expected["counts"][format!("counters/texts.json#{}", sample.slug)];
        for counter in Counter::ALL {
            let simulated = counter.simulated(Role::User, sample.o200k, &sample);
            assert_eq!(
                simulated,
                counter.message(&message, &vocab),
                "{} under {}",
                sample.slug,
                counter.slug()
            );
            if let Some(total) = library[counter.slug()]["messages"][0].as_u64() {
                assert_eq!(
                    u64::from(simulated),
                    total,
                    "{} {}",
                    sample.slug,
                    counter.slug()
                );
            }
        }
        // Twice the size scales every measure: LangChain's count of a text twice as long.
        let twice = plain(Role::User, &format!("{text}{text}"));
        assert_eq!(
            Counter::LangChainApprox.simulated(Role::User, 2 * sample.o200k, &sample),
            Counter::LangChainApprox.message(&twice, &vocab),
            "{}",
            sample.slug
        );
    }
    for role in [Role::System, Role::User, Role::Assistant, Role::Tool] {
        for vocabulary in [Vocabulary::O200k, Vocabulary::Cl100k] {
            assert_eq!(vocab.tokens(vocabulary, role.as_str()), 1, "{role:?}");
        }
    }
    // A planted off-by-one in a sample's measure is caught.
    let mut wrong = SAMPLES[1];
    wrong.chars += 4;
    let hindi = plain(Role::User, texts["hindi"].as_str().unwrap());
    assert_ne!(
        Counter::LangChainApprox.simulated(Role::User, wrong.o200k, &wrong),
        Counter::LangChainApprox.message(&hindi, &vocab)
    );
}

/// A conversation in Chinese: `turns` exchanges, each message distinct.
fn chinese(turns: usize) -> Vec<Message> {
    let user = "请帮我总结一下这个项目的进度，并列出下周需要完成的任务和负责人。";
    let reply = "好的。本周完成了数据库迁移和接口测试，下周需要完成前端页面、性能优化和上线前的安全检查，分别由王伟、李娜和张强负责。";
    (0..turns)
        .flat_map(|t| {
            [
                plain(Role::User, &format!("{user}（第{t}轮）")),
                plain(Role::Assistant, &format!("{reply}（第{t}轮）")),
            ]
        })
        .collect()
}

/// The first request that no longer carries the conversation's first message: where the first
/// fold shows.
fn first_fold(
    policy: &summary_memory::engine::Policy,
    messages: &[Message],
    run: &TokenCounter,
) -> Option<u32> {
    use summary_memory::engine::schedule::{
        MessageInput, Sizer, played, schedule_messages, system_tokens,
    };
    struct Words;
    impl Sizer for Words {
        fn tokens(&self, text: &str) -> u32 {
            summary_memory::engine::word_count(text)
        }
        fn summary(&self, call: u32) -> String {
            format!("S{call}")
        }
    }
    let counter = policy.exact.counter;
    let run_of = schedule_messages(
        policy,
        &MessageInput {
            messages: played(messages, counter, run),
            system_prompt: "",
            system_tokens: system_tokens("", counter, run),
            sizer: &Words,
        },
    );
    run_of
        .requests
        .iter()
        .find(|r| r.from > 0)
        .map(|r| r.request)
}

/// The issue's case: on a Chinese conversation LangChain's middleware, measured with its
/// default counter (count_tokens_approximately), fires later than the same policy measured
/// with exact o200k_base counts.
#[test]
fn a_chinese_conversation_under_langchain_fires_later_with_its_own_counter() {
    let run = vocabularies();
    let preset = summary_memory::engine::peers::preset("langchain-v1-middleware").unwrap();
    let own = preset.policy(128_000);
    assert_eq!(own.exact.counter, Counter::LangChainApprox);
    let mut exact = own.clone();
    exact.exact.counter = Counter::O200K;
    // Each message counted as a read counts it (the default counter keeps that count).
    let mut messages = chinese(300);
    for m in &mut messages {
        m.tokens = Counter::O200K.message(m, &run);
    }
    let by_own = first_fold(&own, &messages, &run).expect("LangChain's counter fires");
    let by_o200k = first_fold(&exact, &messages, &run).expect("o200k_base fires");
    // About twice as late: LangChain counts a Chinese character as a quarter token.
    assert!(
        by_own > 3 * by_o200k / 2,
        "count_tokens_approximately fired at request {by_own}, o200k_base at {by_o200k}"
    );
}
