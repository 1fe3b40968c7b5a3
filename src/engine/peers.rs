//! Other systems' compaction policies as presets, and the table that compares any number of
//! policies on one conversation.
//!
//! Each preset reproduces a system's *documented policy* (when it fires, what it keeps verbatim,
//! where the summary goes) in this engine's terms, over the same dry run as the Tuner, measured
//! with the system's own default token counter ([`Counter`], named in its source line); it does
//! not reproduce the system's prompt or model. Where a system's rule has no exact
//! counterpart here the preset says how it is approximated (`approximation`). Sources are the
//! ones `PEERS.md` lists, cited on each preset: LangChain, LlamaIndex, the OpenAI cookbook,
//! Codex, Claude Code, Gemini CLI and LibreChat.
//!
//! [`outcome`] measures any policy on one dry run (calls, tokens in and out, the largest
//! request, the first fold, the turns over the window, the cost), and [`to_csv`] writes the
//! table.

use super::policy::{Counter, Policy, Vocabulary};
use super::schedule::{Schedule, ScheduleInput, schedule};

/// One system's policy, for a model whose window is `context` tokens.
#[derive(Clone, Copy, Debug)]
pub struct PeerPreset {
    /// Stable name, used by the page's hooks (`data-preset`).
    pub slug: &'static str,
    pub system: &'static str,
    /// Where the documented values come from.
    pub source: &'static str,
    /// How the preset departs from the documented policy, if it does.
    pub approximation: Option<&'static str>,
    build: fn(context: u32) -> Policy,
}

impl PeerPreset {
    /// The preset's policy for a window of `context` tokens.
    pub fn policy(&self, context: u32) -> Policy {
        (self.build)(context.max(1))
    }
}

/// `policy` measured with `counter`, its library's own.
fn counted(mut policy: Policy, counter: Counter) -> Policy {
    policy.exact.counter = counter;
    policy
}

/// A fraction of a window, at least one token.
fn share(context: u32, num: u64, den: u64) -> u32 {
    ((u64::from(context) * num / den) as u32).max(1)
}

/// The presets, in the order the page offers them, each measured with its library's own
/// default counter (`exact.counter`, named at the end of its `source`). The five with a library
/// to run are its exact policy ([`exact`]) at the library's defaults, checked request by request against the
/// real library by `tests/fidelity.rs`, which also holds each of them, at every window, to
/// [`library_policy`] at the parameters the Tuner shows; the other three follow their sources as
/// far as they go, and that test lists why each is not run.
pub const PEER_PRESETS: [PeerPreset; 8] = [
    PeerPreset {
        slug: "langchain-summary-buffer",
        system: "LangChain ConversationSummaryBufferMemory",
        source: "langchain-classic 1.0.8, langchain_classic/memory/summary_buffer.py (max_token_limit = 2000, pruned message by message after each exchange); counter: the model's get_num_tokens_from_messages, ChatOpenAI's on a gpt-4o model: o200k_base with the chat format's overhead",
        approximation: Some(
            "exact policy, measured as ChatOpenAI counts on gpt-4o; a model without its own get_num_tokens_from_messages counts Human:/AI: lines with GPT-2's tokenizer instead, and the prompt and model are yours",
        ),
        build: |_| {
            counted(
                exact::langchain_classic(2_000),
                Counter::Tiktoken {
                    vocabulary: Vocabulary::O200k,
                    chat: true,
                },
            )
        },
    },
    PeerPreset {
        slug: "langchain-v1-middleware",
        system: "LangChain v1 SummarizationMiddleware",
        source: "langchain 1.5.2, langchain/agents/middleware/summarization.py (no trigger by default; the docs' example fires at 4,000 tokens; keeps the last 20 messages); counter: its default, langchain-core's count_tokens_approximately",
        approximation: Some(
            "exact policy at the docs' example trigger, measured with its default counter (count_tokens_approximately); the prompt and the model differ",
        ),
        build: |_| counted(exact::langchain_v1(4_000, 20), Counter::LangChainApprox),
    },
    PeerPreset {
        slug: "llamaindex-summary-buffer",
        system: "LlamaIndex ChatSummaryMemoryBuffer",
        source: "llama-index-core 0.14.25, llama_index/core/memory/chat_summary_memory_buffer.py (token_limit = int(0.75 × the context window)); counter: its default tokenizer, tiktoken's cl100k_base",
        approximation: Some(
            "exact policy, measured with its default tokenizer (cl100k_base); its counter sees a message's content only, where this one also counts a tool call's name and arguments",
        ),
        build: |context| {
            counted(
                exact::llamaindex(share(context, 3, 4)),
                Counter::Tiktoken {
                    vocabulary: Vocabulary::Cl100k,
                    chat: false,
                },
            )
        },
    },
    PeerPreset {
        slug: "openai-cookbook-session",
        system: "OpenAI cookbook SummarizingSession",
        source: "openai/openai-cookbook examples/agents_sdk/session_memory.ipynb under openai-agents 0.24.0 (the notebook's instance: keep_last_n_turns = 2, context_limit = 4; the class defaults are 3 and 3); counter: none, it counts turns (sizes in o200k_base)",
        approximation: Some(
            "exact policy at the notebook's own instance; the Runner stores tool calls and results as user messages, which this engine keeps as tool traffic",
        ),
        build: |_| exact::cookbook(2, 4),
    },
    PeerPreset {
        slug: "codex-cli",
        system: "Codex CLI",
        source: "openai/codex codex-rs/core/src/compact.rs at 0100b103625752f6a10c21b79a8c423761dc4c6a (fires at 90% of the window as reported, protocol/src/openai_models.rs; keeps the user's messages newest first up to COMPACT_USER_MESSAGE_MAX_TOKENS = 20,000, then the summary as a user message); counter: the reply's reported usage",
        approximation: Some(
            "not run: Codex estimates tokens at 4 bytes each and truncates the oldest kept user message where this engine leaves it out; its summary prefix (templates/compact/summary_prefix.md) is not reproduced",
        ),
        build: |context| counted(exact::codex(context), Counter::Reported),
    },
    PeerPreset {
        slug: "claude-code",
        system: "Claude Code auto-compact",
        source: "anthropics/claude-code issue #31806, read from the shipped code: threshold = window − min(max output, 20,000) − 13,000 (about 83.5% of 200,000); not in the official docs; counter: the reply's reported usage",
        approximation: Some(
            "evidence from an issue, not source: what stays verbatim and where the summary goes are not documented; the latest turn is kept and the summary is a second system message",
        ),
        build: |context| counted(exact::claude_code(context), Counter::Reported),
    },
    PeerPreset {
        slug: "gemini-cli",
        system: "Gemini CLI",
        source: "@google/gemini-cli-core 0.61.0, dist/src/context/chatCompressionService.js (the previous request's prompt tokens ≥ 0.5 × the model's limit; the newest 30% of the history by characters kept; two model calls); counter: the reply's reported usage (promptTokenCount; its character estimate, estimateTokenCountSync, only until the first reply after a compression)",
        approximation: Some(
            "exact policy, except that the CLI refuses a compression whose summary would grow the history (and then stops compressing), which is not modelled; the history's characters are those of its JSON, estimated here at 4 a token, and its session context is not modelled in the Tuner",
        ),
        build: |context| counted(exact::gemini_cli(share(context, 1, 2)), Counter::Reported),
    },
    PeerPreset {
        slug: "librechat",
        system: "LibreChat",
        source: "danny-avila/agents docs/summarization-behavior.md and librechat.ai's summarization docs (by default on overflow: the window less a 5% reserve; each compaction sees the whole conversation; maxSummaryTokens 2048); counter: this app's o200k_base",
        approximation: Some(
            "not run: the request's own size stands for LibreChat's budget, and only the incoming message stays verbatim",
        ),
        build: |context| exact::librechat(context),
    },
];

/// The preset named `slug`.
pub fn preset(slug: &str) -> Option<&'static PeerPreset> {
    PEER_PRESETS.iter().find(|p| p.slug == slug)
}

/// The exact policy of each runnable peer at the library's own parameters, by the names the
/// library takes them (`params` holds them as a fidelity trace records them: a number, or a
/// `[kind, value]` pair). `None` for a preset that is not runnable or a parameter missing; the
/// error names the parameter.
pub fn library_policy(slug: &str, param: &dyn Fn(&str) -> Option<f64>) -> Result<Policy, String> {
    let need = |name: &str| {
        param(name)
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                format!("{slug}: the library parameter {name} is missing or not a number")
            })
    };
    let whole = |v: f64| v.ceil().min(f64::from(u32::MAX)) as u32;
    let policy = match slug {
        "langchain-summary-buffer" => exact::langchain_classic(whole(need("max_token_limit")?)),
        "langchain-v1-middleware" => exact::langchain_v1(
            whole(need("trigger.tokens")?),
            whole(need("keep.messages")?),
        ),
        "llamaindex-summary-buffer" => exact::llamaindex(whole(need("token_limit")?)),
        "openai-cookbook-session" => exact::cookbook(
            whole(need("keep_last_n_turns")?),
            whole(need("context_limit")?),
        ),
        "gemini-cli" => {
            exact::gemini_cli(whole(need("compressionThreshold")? * need("tokenLimit")?))
        }
        other => return Err(format!("{other}: no library to run this preset against")),
    };
    policy
        .validate()
        .map_err(|e| format!("{slug}: {e}"))
        .map(|()| policy)
}

/// The peers' exact policies, each after the library file and version named in its comment.
pub mod exact {
    use crate::engine::policy::{
        CheckAt, Compare, Counted, Exact, Keep, Measure, Policy, ShareOf, Start, SummaryAt,
        SummaryOverflow, Trigger,
    };

    fn exact_policy(trigger: Trigger, exact: Exact) -> Policy {
        let mut policy = Policy::new(trigger)
            .unwrap_or_else(|error| unreachable!("a peer's exact trigger is invalid: {error}"));
        policy.exact = exact;
        policy
    }

    /// `langchain-classic` 1.0.8, `langchain_classic/memory/summary_buffer.py`: after each
    /// exchange `prune()` pops single messages from the front while the buffer (the summary and
    /// the system prompt not counted) is over `max_token_limit`, so a reply can stay without
    /// its question; the summary is a bare `SystemMessage` before the buffer. Under an agent
    /// executor the memory stores the input and the final output only.
    pub fn langchain_classic(max_token_limit: u32) -> Policy {
        let limit = max_token_limit.max(1);
        exact_policy(
            Trigger::Tokens {
                budget: limit,
                keep_tokens: limit,
            },
            Exact {
                counted: Some(Counted::VERBATIM),
                keep: Some(Keep::Tokens(limit)),
                summary_at: SummaryAt::System,
                tools_in_turn_only: true,
                ..Exact::default()
            },
        )
    }

    /// The human message `SummarizationMiddleware` writes before the summary.
    pub const LANGCHAIN_V1_PREFIX: &str = "Here is a summary of the conversation to date:\n\n";

    /// `langchain` 1.5.2, `langchain/agents/middleware/summarization.py`: `before_model` counts
    /// the agent's stored messages (its summary message and the new input included, the system
    /// prompt not) and fires at `>=` the `("tokens", n)` trigger; it keeps the last
    /// `("messages", n)` stored messages, moving the cut back onto a tool call whose results
    /// it would orphan; the summary is one human message with a fixed prefix. When the cut
    /// leaves only the old summary, it is summarised again.
    pub fn langchain_v1(trigger_tokens: u32, keep_messages: u32) -> Policy {
        langchain_v1_keeping(trigger_tokens, Keep::Messages(keep_messages))
    }

    /// [`langchain_v1`] with the kept tail as the middleware's `keep` states it: messages, or
    /// tokens (a `("fraction", f)` of the window comes to tokens too). A cut by tokens always
    /// keeps the newest message, even when it alone is over the kept tokens: the binary search
    /// for the longest tail that fits falls back to `len(messages) - 1` (`langchain` 1.5.2,
    /// `langchain/agents/middleware/summarization.py`, `_find_token_based_cutoff`; npm
    /// `langchain` 1.5.14, `dist/agents/middleware/summarization.js`, `findTokenBasedCutoff`,
    /// the same). A cut by messages has no such floor (LangChain.js takes `{ messages: 0 }`).
    pub fn langchain_v1_keeping(trigger_tokens: u32, keep: Keep) -> Policy {
        let tokens = trigger_tokens.max(1);
        exact_policy(
            Trigger::Tokens {
                budget: tokens,
                keep_tokens: tokens,
            },
            Exact {
                counted: Some(Counted::HISTORY),
                compare: Compare::AtLeast,
                check: CheckAt::BeforeRequest,
                keep: Some(keep),
                keep_newest: matches!(
                    keep,
                    Keep::Tokens(_)
                        | Keep::Share {
                            of: ShareOf::Window(_),
                            ..
                        }
                ),
                summary_at: SummaryAt::User,
                summary_prefix: LANGCHAIN_V1_PREFIX.to_owned(),
                summary_overflow: SummaryOverflow::Resummarise,
                ..Exact::default()
            },
        )
    }

    /// `llama-index-core` 0.14.25, `llama_index/core/memory/chat_summary_memory_buffer.py`:
    /// `get()`, once a turn before its first call, walks the stored messages (the summary
    /// included, the system prompt not) from the newest while they fit `token_limit`; what is
    /// left is summarised, with the replies and tool traffic at the front of the kept part; an
    /// old summary left over alone is kept with no call. The summary is a system message.
    pub fn llamaindex(token_limit: u32) -> Policy {
        let limit = token_limit.max(1);
        exact_policy(
            Trigger::Tokens {
                budget: limit,
                keep_tokens: limit,
            },
            Exact {
                counted: Some(Counted::HISTORY),
                check: CheckAt::BeforeTurn,
                keep: Some(Keep::Tokens(limit)),
                start: Start::AtUser,
                summary_at: SummaryAt::System,
                ..Exact::default()
            },
        )
    }

    /// The fixed user message of the cookbook's summary pair.
    pub const COOKBOOK_PROMPT: &str = "Summarize the conversation we had so far.";

    /// The OpenAI cookbook's `SummarizingSession` (`openai/openai-cookbook`,
    /// `examples/agents_sdk/session_memory.ipynb`): once the stored items hold more than
    /// `context_limit` real user turns, everything before the last `keep_last_n_turns` of them
    /// is replaced by a user message asking for a summary and the summary as the assistant's
    /// answer.
    pub fn cookbook(keep_last_n_turns: u32, context_limit: u32) -> Policy {
        let max_turns = context_limit.saturating_add(1).max(keep_last_n_turns + 1);
        let mut policy = exact_policy(
            Trigger::Turns {
                max_turns,
                keep: keep_last_n_turns,
            },
            Exact {
                keep: Some(Keep::Turns(keep_last_n_turns)),
                summary_at: SummaryAt::AssistantAfter(COOKBOOK_PROMPT.to_owned()),
                ..Exact::default()
            },
        );
        policy.prompt.word_limit = 200;
        policy
    }

    /// Codex CLI, from `codex-rs/core/src/compact.rs` (openai/codex at
    /// 0100b103625752f6a10c21b79a8c423761dc4c6a): when the usage the server reported reaches
    /// 90% of the window, the whole history is summarised; the new history is the initial
    /// context, the user's own messages (newest first, up to 20,000 tokens), then the summary
    /// as a user message.
    pub fn codex(context: u32) -> Policy {
        let tokens = (u64::from(context.max(1)) * 9 / 10).max(1) as u32;
        exact_policy(
            Trigger::Tokens {
                budget: tokens,
                keep_tokens: tokens,
            },
            Exact {
                counted: Some(Counted::ALL),
                compare: Compare::AtLeast,
                check: CheckAt::PreviousRequest,
                keep: Some(Keep::Turns(0)),
                keep_user_tokens: Some(20_000),
                summary_at: SummaryAt::User,
                ..Exact::default()
            },
        )
    }

    /// Claude Code, from the evidence in anthropics/claude-code issue #31806 (the shipped code,
    /// not documentation): compaction when the request passes the window less the output
    /// reserve (at most 20,000) and a 13,000-token buffer.
    pub fn claude_code(context: u32) -> Policy {
        // The output reserve is min(max output, 20,000); Claude models' max output is above
        // 20,000, so the reserve is 20,000.
        let tokens = context.saturating_sub(20_000 + 13_000).max(1);
        exact_policy(
            Trigger::Tokens {
                budget: tokens,
                keep_tokens: tokens,
            },
            Exact {
                counted: Some(Counted::ALL),
                keep: Some(Keep::Turns(1)),
                ..Exact::default()
            },
        )
    }

    /// LibreChat's agents, by default on overflow: before a request whose size passes the
    /// window less a 5% reserve, the conversation is summarised into a user message.
    pub fn librechat(context: u32) -> Policy {
        let tokens = (u64::from(context.max(1)) * 95 / 100).max(1) as u32;
        let mut policy = exact_policy(
            Trigger::Tokens {
                budget: tokens,
                keep_tokens: tokens,
            },
            Exact {
                counted: Some(Counted::ALL),
                check: CheckAt::BeforeRequest,
                keep: Some(Keep::Messages(1)),
                summary_at: SummaryAt::User,
                ..Exact::default()
            },
        );
        policy.summary_budget = Some(2_048);
        policy
    }

    /// The model's reply after Gemini CLI's summary.
    pub const GEMINI_ACK: &str = "Got it. Thanks for the additional context!";

    /// `@google/gemini-cli-core` 0.61.0, `dist/src/context/chatCompressionService.js`: before
    /// each request, when the previous request's prompt tokens (as the server reported them)
    /// reach `threshold × tokenLimit(model)`, the oldest 70% of the history by JSON characters
    /// (cut at a user message) is compressed in two model calls (the snapshot, then a
    /// verification whose text is kept); the summary is a user message followed by a fixed
    /// model reply.
    pub fn gemini_cli(threshold_tokens: u32) -> Policy {
        let tokens = threshold_tokens.max(1);
        exact_policy(
            Trigger::Tokens {
                budget: tokens,
                keep_tokens: tokens,
            },
            Exact {
                compare: Compare::AtLeast,
                check: CheckAt::PreviousRequest,
                keep: Some(Keep::Share {
                    of: ShareOf::History,
                    pct: 30,
                    by: Measure::Chars,
                }),
                summary_at: SummaryAt::UserThenAck(GEMINI_ACK.to_owned()),
                calls_per_fold: 2,
                summary_overflow: SummaryOverflow::Resummarise,
                ..Exact::default()
            },
        )
    }
}

/// The Tuner prices every token sent at one rate and every token written at another
/// ([`Prices::flat`]).
pub use crate::engine::run::Prices;

/// Tokens the summariser's instructions are assumed to take in a dry run (the built-in prompts
/// are 60 to 110 tokens).
pub const ASSUMED_PROMPT_TOKENS: u64 = 100;

/// One policy's run over the conversation, as the comparison table shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyOutcome {
    pub label: String,
    pub schedule: Schedule,
    /// Summariser calls.
    pub calls: u32,
    /// Tokens of every chat request plus every summariser request.
    pub tokens_in: u64,
    /// Tokens written: the chat's replies and the summaries.
    pub tokens_out: u64,
    /// The largest chat request.
    pub largest: u64,
    /// The turn after whose reply the first cycle runs, if one does.
    pub first_fold: Option<u32>,
    /// Turns whose chat request is larger than the window.
    pub over_window: u32,
    pub cost: f64,
    /// The policy's parameters in words, for a reader of the CSV ([`to_csv`]); [`outcome`]
    /// leaves it empty for the caller, which knows how the policy was chosen, to fill.
    pub parameters: String,
}

/// Runs `policy` over `input` and sums what the table shows. A cycle's summariser request is
/// the instructions, the old summary (progressive folds) and the folded turns, or every turn
/// folded so far (a rebuild from the archive); cycle `k` writes `input.summary_after(k)`.
pub fn outcome(
    label: impl Into<String>,
    policy: &Policy,
    input: &ScheduleInput,
    context: u32,
    prices: Prices,
) -> PolicyOutcome {
    use super::policy::FoldMode;
    let run = schedule(policy, input);
    let turn_tokens = |turn: u32| {
        let size = input.size(turn);
        u64::from(size.user) + u64::from(size.assistant)
    };
    let mut summariser_in = 0u64;
    for (cycles, fold) in run.rows.iter().filter_map(|r| r.folds).enumerate() {
        let first = match policy.fold {
            FoldMode::Progressive => fold.first,
            FoldMode::RebuildFromArchive => 1,
        };
        // A progressive fold reads the summary the cycle before it wrote.
        let old = if policy.fold == FoldMode::Progressive {
            u64::from(input.summary_after(cycles as u32))
        } else {
            0
        };
        summariser_in +=
            ASSUMED_PROMPT_TOKENS + old + (first..=fold.last).map(turn_tokens).sum::<u64>();
    }
    let replies: u64 = (1..=input.turns)
        .map(|t| u64::from(input.size(t).assistant))
        .sum();
    let tokens_in = run.total_tokens + summariser_in;
    let written: u64 = (1..=run.calls)
        .map(|k| u64::from(input.summary_after(k)))
        .sum();
    let tokens_out = replies + written;
    let cost = prices.of(tokens_in, 0, tokens_out);
    PolicyOutcome {
        label: label.into(),
        parameters: String::new(),
        calls: run.calls,
        tokens_in,
        tokens_out,
        largest: run.rows.iter().map(|r| r.tokens).max().unwrap_or(0),
        first_fold: run.rows.iter().find(|r| r.folds.is_some()).map(|r| r.turn),
        over_window: run
            .rows
            .iter()
            .filter(|r| r.tokens > u64::from(context))
            .count() as u32,
        cost,
        schedule: run,
    }
}

/// The table as CSV (RFC 4180: a header row, fields quoted where they hold a comma or quote).
/// The last column, `parameters`, names what each policy was run with, so a file read later
/// says which policies made it; it comes after the table's columns, whose order stays.
pub fn to_csv(outcomes: &[PolicyOutcome]) -> String {
    let quote = |field: &str| {
        if field.contains([',', '"', '\n']) {
            format!("\"{}\"", field.replace('"', "\"\""))
        } else {
            field.to_owned()
        }
    };
    let mut out = String::from(
        "policy,summariser calls,tokens in,tokens out,largest request,first fold after turn,turns over the window,estimated cost,parameters\r\n",
    );
    for o in outcomes {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{:.4},{}\r\n",
            quote(&o.label),
            o.calls,
            o.tokens_in,
            o.tokens_out,
            o.largest,
            o.first_fold.map_or(String::new(), |t| t.to_string()),
            o.over_window,
            o.cost,
            quote(&o.parameters)
        ));
    }
    out
}

/// How exactly a preset reproduces its system, as the fidelity tier measured it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exactness {
    /// Every request of every fidelity conversation, and the number of summariser calls, came
    /// out the same as the real library's (tests/fidelity/traces/).
    Identical,
    /// Some request or the number of calls differs, or the library could not be run.
    Approximate,
}

impl Exactness {
    /// The page's `data-exactness` value.
    pub fn slug(self) -> &'static str {
        match self {
            Exactness::Identical => "identical",
            Exactness::Approximate => "approximate",
        }
    }
}

/// What the fidelity tier found for one preset: which code it was checked against and how
/// exact it is. One row per preset of [`PEER_PRESETS`], in [`FIDELITY`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fidelity {
    /// The preset's slug.
    pub slug: &'static str,
    /// The pip or npm package the tier runs, or the repository read when it cannot run it.
    pub library: &'static str,
    /// The exact version the tier runs; `None` when the library could not be run.
    pub version: Option<&'static str>,
    /// The file in the library whose behaviour the preset follows.
    pub source_file: &'static str,
    pub exactness: Exactness,
    /// What still differs from the real system, one sentence (for an identical preset: what
    /// the comparison leaves out, such as the prompt and the model).
    pub differs: &'static str,
}

/// The fidelity of every preset, in the order of [`PEER_PRESETS`]. The versions are the ones
/// pinned in tests/fidelity/ (requirements.txt, node/package-lock.json); a row with a version
/// must agree with the committed traces (tests/fidelity_table.rs), and its exactness with the
/// engine's dry run on them (tests/fidelity.rs).
pub const FIDELITY: [Fidelity; 8] = [
    Fidelity {
        slug: "langchain-summary-buffer",
        library: "langchain-classic",
        version: Some("1.0.8"),
        source_file: "langchain_classic/memory/summary_buffer.py",
        exactness: Exactness::Identical,
        differs: "request-identical with the contract's word counter; LangChain's default counter adds a Human:/AI: prefix to each message, and the summariser's prompt and model are yours",
    },
    Fidelity {
        slug: "langchain-v1-middleware",
        library: "langchain",
        version: Some("1.5.2"),
        source_file: "langchain/agents/middleware/summarization.py",
        exactness: Exactness::Identical,
        differs: "request-identical at the traced trigger and keep, with the contract's word counter and with its default count_tokens_approximately; the prompt and the model differ, and a reply's reported usage over the threshold would also fire it there",
    },
    Fidelity {
        slug: "llamaindex-summary-buffer",
        library: "llama-index-core",
        version: Some("0.14.25"),
        source_file: "llama_index/core/memory/chat_summary_memory_buffer.py",
        exactness: Exactness::Identical,
        differs: "request-identical with a word counter, and with its default cl100k_base tokenizer; its tokenizer counts the messages' contents joined by spaces as one text (a few tokens under the sum of theirs) and sees content only (not a tool call's name and arguments), and its prompt and model are its own",
    },
    Fidelity {
        slug: "openai-cookbook-session",
        library: "openai-agents",
        version: Some("0.24.0"),
        source_file: "examples/agents_sdk/session_memory.ipynb (openai/openai-cookbook), run by agents/run.py",
        exactness: Exactness::Approximate,
        differs: "identical on six of eight conversations (the two with tool calls differ); with tool calls the Runner stores the calls and results as user messages holding their text, which the engine keeps as tool traffic",
    },
    Fidelity {
        slug: "codex-cli",
        library: "openai/codex",
        version: None,
        source_file: "codex-rs/core/src/compact.rs",
        exactness: Exactness::Approximate,
        differs: "not run; the preset follows compact.rs (the user's messages up to 20,000 tokens, then the summary, at 90% of the reported usage) but estimates no truncation of the oldest kept message and no summary prefix",
    },
    Fidelity {
        slug: "claude-code",
        library: "anthropics/claude-code",
        version: None,
        source_file: "closed source; issues #31806 and #24589",
        exactness: Exactness::Approximate,
        differs: "not run; the threshold is the evidence of issue #31806 (window - 20,000 - 13,000, about 83.5% of 200k); what stays verbatim and where the summary goes are not documented",
    },
    Fidelity {
        slug: "gemini-cli",
        library: "@google/gemini-cli-core",
        version: Some("0.61.0"),
        source_file: "dist/src/context/chatCompressionService.js",
        exactness: Exactness::Approximate,
        differs: "identical on five of eight conversations with a word count as the reported usage (long replies, the Hindi and Chinese one and the code one reach the refusal), on seven of eight with its own character estimate as the usage (the code one); a compression whose summary would grow the count (its character estimate of the new history over the reported usage) is refused there and not retried, which the engine does not model, and the history's characters are its JSON's",
    },
    Fidelity {
        slug: "librechat",
        library: "danny-avila/agents",
        version: None,
        source_file: "docs/summarization-behavior.md",
        exactness: Exactness::Approximate,
        differs: "not run; by default it summarises on overflow (the window less a 5% reserve), and the 0.8 ratio of its documentation is an example",
    },
];

/// The fidelity row of the preset named `slug`.
pub fn fidelity(slug: &str) -> Option<&'static Fidelity> {
    FIDELITY.iter().find(|f| f.slug == slug)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::models::MODEL_WINDOWS;

    const FREE: Prices = Prices::flat(0.0, 0.0);

    #[test]
    fn every_preset_builds_a_valid_policy_at_every_offered_window() {
        for preset in PEER_PRESETS {
            for context in MODEL_WINDOWS
                .iter()
                .map(|m| m.context)
                .chain([1, 1_000, 4_096])
            {
                assert!(
                    preset.policy(context).validate().is_ok(),
                    "{} at {context}",
                    preset.slug
                );
            }
            assert!(!preset.source.is_empty());
        }
        let mut slugs: Vec<_> = PEER_PRESETS.iter().map(|p| p.slug).collect();
        slugs.sort_unstable();
        slugs.dedup();
        assert_eq!(slugs.len(), PEER_PRESETS.len(), "slugs are unique");
    }

    #[test]
    fn presets_fire_where_their_documentation_says() {
        // 1,200 turns of 120 tokens (144,000 in all) against gpt-4o's 128,000-token window.
        let context = 128_000;
        let input = ScheduleInput::uniform(1_200);
        let run = |slug| {
            let policy = preset(slug).unwrap().policy(context);
            outcome(slug, &policy, &input, context, FREE)
        };
        // The notebook's session folds after its fifth turn (more than four user turns).
        assert_eq!(run("openai-cookbook-session").first_fold, Some(5));
        // Gemini CLI at half the window fires well before Codex at 90%.
        let (gemini, codex) = (run("gemini-cli"), run("codex-cli"));
        let (g, c) = (gemini.first_fold.unwrap(), codex.first_fold.unwrap());
        assert!(g < c, "gemini {g}, codex {c}");
        // Both look at the previous request's size as reported, at >=: the first fold comes
        // after the first turn whose request reached the share (it is shown on that turn).
        for (outcome, pct) in [(&gemini, 50), (&codex, 90)] {
            let threshold = u64::from(context) * pct / 100;
            let turn = outcome.first_fold.unwrap() as usize;
            let rows = &outcome.schedule.rows;
            assert!(rows[turn - 1].tokens >= threshold, "{}", outcome.label);
            assert!(rows[turn - 2].tokens < threshold, "{}", outcome.label);
        }
        // Claude Code's threshold (about 83.5% at 200,000; 95,000 tokens, 74%, at 128,000) sits
        // between Gemini CLI's and Codex's.
        let claude = run("claude-code").first_fold.unwrap();
        assert!(
            g < claude && claude < c,
            "gemini {g}, claude {claude}, codex {c}"
        );
    }

    #[test]
    fn the_table_sums_chat_and_summariser_tokens_and_prices_them() {
        let input = ScheduleInput::uniform(10);
        let policy = Policy::default();
        let prices = Prices::flat(2.5, 10.0);
        let row = outcome("4/2", &policy, &input, 1_000, prices);
        let run = schedule(&policy, &input);
        assert_eq!(row.calls, run.calls);
        // Four progressive folds of two turns each (240 tokens), all but the first with the old
        // 150-token summary, each with the prompt.
        let summariser = 4 * (ASSUMED_PROMPT_TOKENS + 240) + 3 * 150;
        assert_eq!(row.tokens_in, run.total_tokens + summariser);
        assert_eq!(row.tokens_out, 10 * 90 + 4 * 150);
        let cost = row.tokens_in as f64 * 2.5e-6 + row.tokens_out as f64 * 10e-6;
        assert!((row.cost - cost).abs() < 1e-12);
        assert_eq!(row.first_fold, Some(4));
        // No request of ten small turns passes 1,000 tokens under 4/2; full history would.
        assert_eq!(row.over_window, 0);
        // A rebuild reads every folded turn again, so it costs more input.
        let rebuild = Policy {
            fold: crate::engine::policy::FoldMode::RebuildFromArchive,
            ..Policy::default()
        };
        assert!(outcome("r", &rebuild, &input, 1_000, prices).tokens_in > row.tokens_in);
    }

    #[test]
    fn every_preset_has_one_fidelity_row_in_the_same_order() {
        let presets: Vec<_> = PEER_PRESETS.iter().map(|p| p.slug).collect();
        let rows: Vec<_> = FIDELITY.iter().map(|f| f.slug).collect();
        assert_eq!(rows, presets);
        for row in FIDELITY {
            assert!(
                !row.library.is_empty() && !row.source_file.is_empty() && !row.differs.is_empty(),
                "{}",
                row.slug
            );
            // Only a library the tier ran can be found identical to it.
            assert!(
                row.version.is_some() || row.exactness == Exactness::Approximate,
                "{}",
                row.slug
            );
        }
        assert_eq!(
            fidelity("gemini-cli").map(|f| f.library),
            Some("@google/gemini-cli-core")
        );
        assert_eq!(fidelity("no-such-preset"), None);
    }

    #[test]
    fn csv_has_a_header_and_quotes_what_needs_it() {
        let input = ScheduleInput::uniform(4);
        let mut row = outcome("a, \"b\"", &Policy::default(), &input, 1_000, FREE);
        row.parameters = "Summarise at (turns) 4, Keep verbatim (turns) 2".into();
        let csv = to_csv(&[row]);
        let lines: Vec<&str> = csv.split("\r\n").collect();
        // The table's columns keep their order; the policy's parameters come last.
        assert_eq!(
            lines[0],
            "policy,summariser calls,tokens in,tokens out,largest request,first fold after turn,turns over the window,estimated cost,parameters"
        );
        assert!(lines[1].starts_with("\"a, \"\"b\"\"\",1,"), "{}", lines[1]);
        assert!(
            lines[1].ends_with(",\"Summarise at (turns) 4, Keep verbatim (turns) 2\""),
            "{}",
            lines[1]
        );
        assert_eq!(lines.len(), 3, "header, one row, and the final line break");
    }
}
