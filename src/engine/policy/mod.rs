//! The summary policy: when a cycle fires (the trigger), where the summary goes in the request
//! (placement), how a cycle builds the new summary (fold mode) and what the summariser is told
//! (the prompt), with the summary budget and their validation. [`Trigger::loop_risk`] names a
//! window policy that would fold on every turn.
//!
//! Two tables are the only place their names are written: [`TriggerKind`] for the trigger kinds
//! (slug, label, number fields with their labels and defaults, and `build`), which the link, the
//! policy panel, the Tuner and the replay all read, and [`Choice`] for the slugs and labels of
//! [`Placement`], [`FoldMode`] and [`SummaryFormat`].
//!
//! Architecture invariant: [`Trigger::turns_to_fold`] is the only place that decides when a
//! cycle fires and how many turns it folds. Both the live engine ([`crate::engine::MemoryState`])
//! and the dry run ([`crate::engine::schedule`]) call it, so the tuner can never disagree with
//! what a session does.

mod counter;
mod exact;

pub use crate::engine::message::{Vocabularies, Vocabulary};
pub use counter::simulated::{SAMPLES, Sample};
pub use counter::{
    CHAT_REPLY_PRIMING, CHAT_TOKENS_PER_MESSAGE, CountedBy, Counter, Through, gemini_quarters,
    langchain_message, tiktoken_message, words_message,
};
pub use exact::{
    CheckAt, Compare, Counted, Exact, Fold, FoldView, HeadPart, Keep, Measure, Measured, Moment,
    ShareOf, Start, SummaryAt, SummaryOverflow, SummarySize, head_measured, kept_user_messages,
    request_head, summary_size, turn_sizes,
};

use thiserror::Error;

/// The header of the summary when it is sent as its own message.
pub const SUMMARY_HEADER: &str = "CONVERSATION SUMMARY (earlier turns):\n";
/// The assistant's reply after a [`Placement::UserAck`] summary.
pub const SUMMARY_ACK: &str = "Understood. I will use this summary of our earlier conversation.";

use super::prompts::{PresetId, PromptSpec};

/// When a summary cycle fires and what it folds. Every trigger is checked after an assistant
/// reply, when the latest turn is complete, and only ever folds whole turns from the oldest end
/// of the verbatim part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// Fires once the verbatim part holds at least `max_turns` complete turns, and folds all of
    /// them but the last `keep` (the notebook's `max_turns_before_summary` and
    /// `turns_to_keep_verbatim`).
    Turns { max_turns: u32, keep: u32 },
    /// The summary buffer: fires when the verbatim turns hold more than `budget` tokens, and
    /// folds the oldest whole turns until the rest fits in `keep_tokens`. It never splits a turn
    /// and always keeps the latest turn, even when that turn alone is larger than the budget.
    Tokens { budget: u32, keep_tokens: u32 },
    /// Periodic, after the LangGraph lesson (`len >= n && len % n == 0`): fires when the
    /// conversation's message count (the archive, folded messages included) reaches a multiple
    /// of `n` during the turn just completed. It folds every verbatim turn but the latest one.
    /// Counting over the whole turn means an odd `n` still fires every `n` messages even though
    /// a turn always ends on an even count.
    Every { n: u32 },
    /// After the LangGraph router (`len(messages) > N`): fires when the verbatim turns hold more
    /// than `max_messages` messages, and folds every verbatim turn but the latest one.
    MessageCount { max_messages: u32 },
    /// Never fires by itself; a cycle runs only when the user asks for one, and then folds all
    /// verbatim turns but the last `keep`.
    Manual { keep: u32 },
    /// A fraction of the model's context window, as most agents now compact (Codex at 90%,
    /// LibreChat's `token_ratio` 0.8, LlamaIndex at 0.75, Gemini CLI at 0.5): fires when the
    /// whole request (system prompt, summary and verbatim turns) passes `fire_pct` percent of a
    /// `context`-token window, and folds the oldest whole turns until the verbatim turns fit in
    /// `keep_pct` percent of it, or, when `keep_turns` is not 0, keeps the newest `keep_turns`
    /// turns instead (LibreChat keeps turns, Gemini CLI a share). Like the token trigger it
    /// never splits a turn and always keeps the latest one. See [`Trigger::loop_risk`] for a
    /// policy that would fold on every turn.
    Window {
        context: u32,
        fire_pct: u32,
        keep_pct: u32,
        keep_turns: u32,
    },
}

/// Where the summary goes in the request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Placement {
    /// A second system message right after the system prompt (the notebook's choice).
    #[default]
    SecondSystem,
    /// Appended to the system prompt, as the LangGraph chat node does.
    AppendToSystem,
    /// A user message carrying the summary followed by an assistant acknowledgement, for
    /// providers that accept only one leading system message.
    UserAck,
}

/// How a cycle builds the new summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FoldMode {
    /// The old summary plus the newly folded turns go to the summariser (the notebook's
    /// EXISTING SUMMARY / NEW TURNS layout). Cheap, but drift compounds from cycle to cycle.
    #[default]
    Progressive,
    /// Every folded turn so far is summarised again from the raw archive, so no summary is ever
    /// a summary of a summary. Costs more input tokens per cycle; drift cannot compound.
    RebuildFromArchive,
}

/// What the summariser is asked to write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SummaryFormat {
    /// One paragraph of prose within the prompt's word limit.
    #[default]
    Prose,
    /// Structured memory (entity extraction, as in the LangGraph lesson): a JSON object
    /// `{summary, user_name, preferences, facts}`. A reply that fails validation is a failed
    /// job under the commit rule. Hierarchical compression applies to prose only, since a
    /// shorter paragraph would not be JSON.
    Structured,
    /// Prose kept as one short section per topic (`## topic` lines, see
    /// [`crate::engine::sections`]), the source article's topic-aware strategy: the summariser
    /// prompt asks for the sections, and the drift checks read each section apart. Compression
    /// applies to prose only, so a sectioned summary is never rewritten a level up.
    Topics,
}

/// A policy value the pickers offer, in one table: the slug (the `<option value>` of the policy
/// panel and the replay form, and the hooks the end-to-end tests select) and the label (the
/// words every tab shows for it). Like [`TriggerKind`] for the trigger, this is the only place
/// either is written; the session file keeps its own names (`engine::session::wire`).
pub trait Choice: Copy + PartialEq + Sized + 'static {
    /// Every value in the order the pickers offer them, as (value, slug, label).
    const CHOICES: &'static [(Self, &'static str, &'static str)];

    /// The name in the pickers' values.
    fn slug(self) -> &'static str {
        self.row().1
    }

    /// The words for the value, in a picker and in the policy's description.
    fn label(self) -> &'static str {
        self.row().2
    }

    /// The value a [`Choice::slug`] names; `None` for any other text.
    fn from_slug(slug: &str) -> Option<Self> {
        Self::CHOICES.iter().find(|c| c.1 == slug).map(|c| c.0)
    }

    /// This value's row of [`Choice::CHOICES`], which lists every value (a test checks it).
    fn row(self) -> &'static (Self, &'static str, &'static str) {
        Self::CHOICES
            .iter()
            .find(|c| c.0 == self)
            .unwrap_or(&Self::CHOICES[0])
    }
}

impl Choice for Placement {
    const CHOICES: &'static [(Placement, &'static str, &'static str)] = &[
        (
            Placement::SecondSystem,
            "second_system",
            "as a second system message, after the system prompt",
        ),
        (
            Placement::AppendToSystem,
            "append_to_system",
            "appended to the system prompt",
        ),
        (
            Placement::UserAck,
            "user_ack",
            "as a user message with an assistant acknowledgement",
        ),
    ];
}

impl Choice for FoldMode {
    const CHOICES: &'static [(FoldMode, &'static str, &'static str)] = &[
        (
            FoldMode::Progressive,
            "progressive",
            "progressive: the old summary plus the new turns",
        ),
        (
            FoldMode::RebuildFromArchive,
            "rebuild",
            "rebuilt from every folded turn in the archive",
        ),
    ];
}

impl Choice for SummaryFormat {
    const CHOICES: &'static [(SummaryFormat, &'static str, &'static str)] = &[
        (SummaryFormat::Prose, "prose", "Prose paragraph"),
        (
            SummaryFormat::Structured,
            "structured",
            "Structured (JSON memory)",
        ),
        (
            SummaryFormat::Topics,
            "topics",
            "Topic sections (one short section per topic)",
        ),
    ];
}

/// Everything that shapes summary memory for one session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    pub trigger: Trigger,
    pub placement: Placement,
    pub fold: FoldMode,
    pub prompt: PromptSpec,
    /// Prose or structured memory. Absent in older saved policies, which were all prose.
    pub format: SummaryFormat,
    /// Token budget of the summary itself. When a committed summary is larger, the engine asks
    /// for a compression one level up (hierarchical summarisation). `None` turns that off.
    pub summary_budget: Option<u32>,
    /// The exact policy's fields ([`Exact`]); the default is today's behaviour.
    pub exact: Exact,
}

/// One check of a policy: the message-level view, and what the periodic trigger counts.
#[derive(Clone, Copy, Debug)]
pub struct Check<'a> {
    pub view: FoldView<'a>,
    /// Messages in the whole conversation at the previous check.
    pub messages_before: usize,
    /// Messages in the whole conversation now.
    pub messages_now: usize,
}

/// Why a policy cannot be used. Every message says which value to change.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PolicyError {
    /// The turn trigger needs at least one turn before it fires.
    #[error("max_turns must be at least 1")]
    ZeroMaxTurns,
    /// Keeping as many turns as the threshold would fold nothing and fire on every turn.
    #[error(
        "keep ({keep}) must be smaller than max_turns ({max_turns}); lower keep or raise max_turns"
    )]
    KeepNotBelowMax { max_turns: u32, keep: u32 },
    /// A zero token budget would fire after every turn and could never be met.
    #[error("the token budget must be at least 1")]
    ZeroBudget,
    /// What is kept after a cycle has to fit within the budget that fires it.
    #[error(
        "keep_tokens ({keep_tokens}) must not exceed the budget ({budget}); lower keep_tokens or raise the budget"
    )]
    KeepTokensAboveBudget { budget: u32, keep_tokens: u32 },
    /// A period of zero messages has no meaning.
    #[error("the periodic trigger needs n of at least 1 message")]
    ZeroPeriod,
    /// Below two messages even a single kept turn would break the limit on every turn.
    #[error("max_messages ({0}) must be at least 2, one complete turn")]
    MessageCountTooSmall(u32),
    /// The summariser needs a word limit to aim for.
    #[error("the prompt's word limit must be at least 1")]
    ZeroWordLimit,
    /// An empty prompt leaves the summariser without instructions.
    #[error("the summariser prompt is empty; pick a preset or write a prompt")]
    EmptyPrompt,
    /// A window trigger needs a window.
    #[error("the context window must be at least 1 token")]
    ZeroContext,
    /// A percentage of the window outside 1 to 100.
    #[error("{field} ({value}%) must be between 1 and 100 percent of the window")]
    PercentOutOfRange { field: &'static str, value: u32 },
    /// Keeping as much of the window as the threshold would fold nothing.
    #[error(
        "keep ({keep_pct}%) must be below the fold threshold ({fire_pct}%); lower keep or raise the threshold"
    )]
    KeepPctNotBelowFire { fire_pct: u32, keep_pct: u32 },
    /// A zero summary budget would compress every summary straight to the top level.
    #[error("the summary token budget must be at least 1, or turned off")]
    ZeroSummaryBudget,
    /// An exact policy field out of range; the message names the field.
    #[error("exact policy: {0}")]
    Exact(&'static str),
    /// A field as a form read it (an exact policy field, a number typed in the replay), the
    /// form's own words naming the field.
    #[error("{0}")]
    ExactField(String),
}

impl Trigger {
    /// Checks the trigger's numbers, never panicking on any input.
    pub fn validate(&self) -> Result<(), PolicyError> {
        match *self {
            Trigger::Turns { max_turns, keep } => {
                if max_turns == 0 {
                    Err(PolicyError::ZeroMaxTurns)
                } else if keep >= max_turns {
                    Err(PolicyError::KeepNotBelowMax { max_turns, keep })
                } else {
                    Ok(())
                }
            }
            Trigger::Tokens {
                budget,
                keep_tokens,
            } => {
                if budget == 0 {
                    Err(PolicyError::ZeroBudget)
                } else if keep_tokens > budget {
                    Err(PolicyError::KeepTokensAboveBudget {
                        budget,
                        keep_tokens,
                    })
                } else {
                    Ok(())
                }
            }
            Trigger::Every { n: 0 } => Err(PolicyError::ZeroPeriod),
            Trigger::Window {
                context,
                fire_pct,
                keep_pct,
                keep_turns,
            } => {
                if context == 0 {
                    Err(PolicyError::ZeroContext)
                } else if !(1..=100).contains(&fire_pct) {
                    Err(PolicyError::PercentOutOfRange {
                        field: "the fold threshold",
                        value: fire_pct,
                    })
                } else if !(1..=100).contains(&keep_pct) {
                    Err(PolicyError::PercentOutOfRange {
                        field: "keep",
                        value: keep_pct,
                    })
                } else if keep_turns == 0 && keep_pct >= fire_pct {
                    Err(PolicyError::KeepPctNotBelowFire { fire_pct, keep_pct })
                } else {
                    Ok(())
                }
            }
            Trigger::MessageCount { max_messages } if max_messages < 2 => {
                Err(PolicyError::MessageCountTooSmall(max_messages))
            }
            _ => Ok(()),
        }
    }

    /// Decides, after an assistant reply, how many of the oldest complete verbatim turns a cycle
    /// folds now; 0 means the trigger does not fire (or fires with nothing to fold).
    pub fn turns_to_fold(&self, view: &TriggerView<'_>) -> usize {
        let turns = view.turn_tokens.len();
        match *self {
            Trigger::Turns { max_turns, keep } => {
                if turns >= max_turns as usize {
                    turns.saturating_sub(keep as usize)
                } else {
                    0
                }
            }
            Trigger::Tokens {
                budget,
                keep_tokens,
            } => {
                let total: u64 = view.turn_tokens.iter().map(|&t| u64::from(t)).sum();
                if total > u64::from(budget) {
                    fold_until_fits(view.turn_tokens, total, u64::from(keep_tokens))
                } else {
                    0
                }
            }
            Trigger::Every { n } => {
                let n = n.max(1) as usize;
                if view.messages_now / n > view.messages_before / n {
                    turns.saturating_sub(1)
                } else {
                    0
                }
            }
            Trigger::MessageCount { max_messages } => {
                if view.verbatim_messages > max_messages as usize {
                    turns.saturating_sub(1)
                } else {
                    0
                }
            }
            Trigger::Manual { .. } => 0,
            Trigger::Window { .. } => {
                let verbatim: u64 = view.turn_tokens.iter().map(|&t| u64::from(t)).sum();
                if view.fixed_tokens + verbatim > self.window_threshold() {
                    self.turns_to_fold_on_request(view.turn_tokens)
                } else {
                    0
                }
            }
        }
    }

    /// Tokens of the window trigger's threshold (0 for other triggers).
    fn window_threshold(&self) -> u64 {
        match *self {
            Trigger::Window {
                context, fire_pct, ..
            } => u64::from(context) * u64::from(fire_pct) / 100,
            _ => 0,
        }
    }

    /// Tokens of verbatim turns the window trigger keeps after a cycle (0 for other triggers).
    fn window_keep(&self) -> u64 {
        match *self {
            Trigger::Window {
                context, keep_pct, ..
            } => u64::from(context) * u64::from(keep_pct) / 100,
            _ => 0,
        }
    }

    /// A compaction loop foreseen: with the window trigger, when the part of the request a cycle
    /// cannot shrink (system prompt and summary, `fixed_tokens`) plus the turns it keeps
    /// already reaches the threshold, every turn fires another cycle. Kept turns are weighed at
    /// `turn_tokens` each when the trigger keeps a number of turns. Other triggers count the
    /// verbatim turns only and cannot loop this way.
    pub fn loop_risk(&self, fixed_tokens: u64, turn_tokens: u64) -> Option<LoopRisk> {
        let Trigger::Window { keep_turns, .. } = *self else {
            return None;
        };
        let threshold = self.window_threshold();
        let kept = if keep_turns > 0 {
            u64::from(keep_turns) * turn_tokens
        } else {
            self.window_keep()
        };
        (fixed_tokens + kept >= threshold).then_some(LoopRisk {
            fixed_tokens,
            kept_tokens: kept,
            threshold,
        })
    }

    /// How many turns a cycle the user asks for folds: what the trigger would fold if it fired
    /// now. The turn trigger and the manual trigger keep their `keep` turns, the token trigger
    /// folds until the rest fits `keep_tokens`, and the message triggers keep the latest turn.
    pub fn turns_to_fold_on_request(&self, turn_tokens: &[u32]) -> usize {
        let turns = turn_tokens.len();
        match *self {
            Trigger::Turns { keep, .. } | Trigger::Manual { keep } => {
                turns.saturating_sub(keep as usize)
            }
            Trigger::Tokens { keep_tokens, .. } => {
                let total = turn_tokens.iter().map(|&t| u64::from(t)).sum();
                fold_until_fits(turn_tokens, total, u64::from(keep_tokens))
            }
            Trigger::Every { .. } | Trigger::MessageCount { .. } => turns.saturating_sub(1),
            Trigger::Window { keep_turns: 0, .. } => {
                let total = turn_tokens.iter().map(|&t| u64::from(t)).sum();
                fold_until_fits(turn_tokens, total, self.window_keep())
            }
            Trigger::Window { keep_turns, .. } => turns.saturating_sub(keep_turns as usize),
        }
    }

    /// The trigger kind's short name, as used in links (`turns`, `tokens`, `every`, ...).
    pub fn slug(&self) -> &'static str {
        self.kind().slug()
    }

    /// Which kind of trigger this is.
    pub fn kind(&self) -> TriggerKind {
        match self {
            Trigger::Turns { .. } => TriggerKind::Turns,
            Trigger::Tokens { .. } => TriggerKind::Tokens,
            Trigger::Every { .. } => TriggerKind::Every,
            Trigger::MessageCount { .. } => TriggerKind::Messages,
            Trigger::Manual { .. } => TriggerKind::Manual,
            Trigger::Window { .. } => TriggerKind::Window,
        }
    }

    /// This trigger's numbers, by parameter name, in the order of [`TriggerKind::fields`].
    pub fn params(&self) -> Vec<(&'static str, u32)> {
        match *self {
            Trigger::Turns { max_turns, keep } => vec![("max_turns", max_turns), ("keep", keep)],
            Trigger::Tokens {
                budget,
                keep_tokens,
            } => vec![("budget", budget), ("keep_tokens", keep_tokens)],
            Trigger::Every { n } => vec![("every", n)],
            Trigger::MessageCount { max_messages } => vec![("max_messages", max_messages)],
            Trigger::Manual { keep } => vec![("keep", keep)],
            Trigger::Window {
                context,
                fire_pct,
                keep_pct,
                keep_turns,
            } => vec![
                ("context", context),
                ("fire_pct", fire_pct),
                ("keep_pct", keep_pct),
                ("keep_turns", keep_turns),
            ],
        }
    }

    /// The value of parameter `param`, if this trigger has it.
    pub fn param(&self, param: &str) -> Option<u32> {
        self.params()
            .into_iter()
            .find(|(name, _)| *name == param)
            .map(|(_, value)| value)
    }
}

/// The kinds of trigger, with what a form needs to offer them: the link name, the label, and
/// the number fields with their labels and defaults. The URL, the Chat policy panel, the Tuner
/// and Inspect's replay all build their trigger choices from this one table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TriggerKind {
    Turns,
    Tokens,
    Every,
    Messages,
    Manual,
    Window,
}

/// One number field of a trigger kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TriggerField {
    /// The parameter's name: the link parameter, and the `policy-{param}` hook.
    pub param: &'static str,
    pub label: &'static str,
    /// The value a form starts with when the trigger in use does not set it.
    pub default: u32,
    /// The upper end of the Tuner's slider for it.
    pub slider_max: u32,
}

/// Every number field a trigger kind can have.
pub const TRIGGER_FIELDS: [TriggerField; 10] = [
    TriggerField {
        param: "max_turns",
        label: "Summarise at (turns)",
        default: 4,
        slider_max: 50,
    },
    TriggerField {
        param: "keep",
        label: "Keep verbatim (turns)",
        default: 2,
        slider_max: 50,
    },
    TriggerField {
        param: "budget",
        // The budget counts only the turns kept word for word: the system prompt and the
        // summary come on top, so a request is larger than it (the Tuner found 1,050-1,440
        // tokens under a budget of 1,000 with no word of why).
        label: "Token budget of the verbatim turns (the system prompt and summary come on top)",
        default: 1_000,
        slider_max: 20_000,
    },
    TriggerField {
        param: "keep_tokens",
        label: "Keep verbatim (tokens)",
        default: 400,
        slider_max: 20_000,
    },
    TriggerField {
        param: "every",
        label: "Every N messages",
        default: 6,
        slider_max: 100,
    },
    TriggerField {
        param: "max_messages",
        label: "Over N messages",
        default: 8,
        slider_max: 100,
    },
    TriggerField {
        param: "context",
        label: "Context window (tokens)",
        default: 8_192,
        slider_max: 200_000,
    },
    TriggerField {
        param: "fire_pct",
        label: "Fold at (% of the window)",
        default: 80,
        slider_max: 100,
    },
    TriggerField {
        param: "keep_pct",
        label: "Keep verbatim (% of the window)",
        default: 30,
        slider_max: 100,
    },
    TriggerField {
        param: "keep_turns",
        label: "Or keep verbatim (turns; 0 keeps the share)",
        default: 0,
        slider_max: 50,
    },
];

/// The part of a request a cycle cannot shrink, already at the window trigger's threshold
/// together with what it keeps: such a policy folds after every turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoopRisk {
    /// System prompt and summary.
    pub fixed_tokens: u64,
    /// The verbatim turns a cycle keeps (at most).
    pub kept_tokens: u64,
    /// Where the trigger fires.
    pub threshold: u64,
}

impl std::fmt::Display for LoopRisk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "compaction loop: the system prompt and summary ({} tokens) plus the kept turns (up to {}) \
             reach the threshold ({} tokens), so every turn would fold again; raise the threshold, \
             keep less, or give the summary a smaller budget",
            self.fixed_tokens, self.kept_tokens, self.threshold
        )
    }
}

impl TriggerKind {
    /// Every kind, in the order the policy panel offers them.
    pub const ALL: [TriggerKind; 6] = [
        TriggerKind::Turns,
        TriggerKind::Tokens,
        TriggerKind::Window,
        TriggerKind::Every,
        TriggerKind::Messages,
        TriggerKind::Manual,
    ];

    /// The kinds a link's `?trigger=` can name, and so the Tuner offers (a link has no
    /// `max_messages` parameter).
    pub const LINKED: [TriggerKind; 5] = [
        TriggerKind::Turns,
        TriggerKind::Tokens,
        TriggerKind::Window,
        TriggerKind::Every,
        TriggerKind::Manual,
    ];

    /// The name in links and in the pickers' values.
    pub fn slug(self) -> &'static str {
        match self {
            TriggerKind::Turns => "turns",
            TriggerKind::Tokens => "tokens",
            TriggerKind::Every => "every",
            TriggerKind::Messages => "messages",
            TriggerKind::Manual => "manual",
            TriggerKind::Window => "window",
        }
    }

    pub fn from_slug(slug: &str) -> Option<TriggerKind> {
        TriggerKind::ALL.into_iter().find(|k| k.slug() == slug)
    }

    /// The label a picker shows.
    pub fn label(self) -> &'static str {
        match self {
            TriggerKind::Turns => "Every N turns (keep K)",
            TriggerKind::Tokens => "Token budget",
            TriggerKind::Every => "Every N messages",
            TriggerKind::Messages => "Over N verbatim messages",
            TriggerKind::Manual => "Manual",
            TriggerKind::Window => "Fraction of the context window",
        }
    }

    /// The number fields this kind has, in order.
    pub fn fields(self) -> Vec<TriggerField> {
        let names: &[&str] = match self {
            TriggerKind::Turns => &["max_turns", "keep"],
            TriggerKind::Tokens => &["budget", "keep_tokens"],
            TriggerKind::Every => &["every"],
            TriggerKind::Messages => &["max_messages"],
            TriggerKind::Manual => &["keep"],
            TriggerKind::Window => &["context", "fire_pct", "keep_pct", "keep_turns"],
        };
        TRIGGER_FIELDS
            .into_iter()
            .filter(|f| names.contains(&f.param))
            .collect()
    }

    /// The default of parameter `param` (0 for a name no kind has).
    pub fn default_of(param: &str) -> u32 {
        TRIGGER_FIELDS
            .iter()
            .find(|f| f.param == param)
            .map_or(0, |f| f.default)
    }

    /// The trigger of this kind whose numbers `value` gives, by parameter name. Not validated:
    /// call [`Trigger::validate`] on the result.
    pub fn build(self, mut value: impl FnMut(&'static str) -> u32) -> Trigger {
        match self {
            TriggerKind::Turns => Trigger::Turns {
                max_turns: value("max_turns"),
                keep: value("keep"),
            },
            TriggerKind::Tokens => Trigger::Tokens {
                budget: value("budget"),
                keep_tokens: value("keep_tokens"),
            },
            TriggerKind::Every => Trigger::Every { n: value("every") },
            TriggerKind::Messages => Trigger::MessageCount {
                max_messages: value("max_messages"),
            },
            TriggerKind::Manual => Trigger::Manual {
                keep: value("keep"),
            },
            TriggerKind::Window => Trigger::Window {
                context: value("context"),
                fire_pct: value("fire_pct"),
                keep_pct: value("keep_pct"),
                keep_turns: value("keep_turns"),
            },
        }
    }

    /// The trigger of this kind with every number at its default.
    pub fn with_defaults(self) -> Trigger {
        self.build(TriggerKind::default_of)
    }
}

/// What a trigger looks at after an assistant reply.
#[derive(Clone, Copy, Debug)]
pub struct TriggerView<'a> {
    /// Tokens of each complete verbatim turn, oldest first.
    pub turn_tokens: &'a [u32],
    /// Messages in those complete verbatim turns.
    pub verbatim_messages: usize,
    /// Messages in the whole conversation at the previous check.
    pub messages_before: usize,
    /// Messages in the whole conversation now.
    pub messages_now: usize,
    /// Tokens of the part of the next request that is not a verbatim turn: the system prompt
    /// and the summary (the window trigger counts the whole request).
    pub fixed_tokens: u64,
}

impl Policy {
    /// A policy with the notebook's defaults for everything but the trigger.
    pub fn new(trigger: Trigger) -> Result<Policy, PolicyError> {
        let policy = Policy {
            trigger,
            placement: Placement::default(),
            fold: FoldMode::default(),
            prompt: PromptSpec::from_preset(PresetId::FinancialAdvisor),
            format: SummaryFormat::default(),
            summary_budget: None,
            exact: Exact::default(),
        };
        policy.validate()?;
        Ok(policy)
    }

    /// Checks every part of the policy.
    pub fn validate(&self) -> Result<(), PolicyError> {
        self.trigger.validate()?;
        if self.prompt.word_limit == 0 {
            return Err(PolicyError::ZeroWordLimit);
        }
        if self.prompt.text.trim().is_empty() {
            return Err(PolicyError::EmptyPrompt);
        }
        if self.summary_budget == Some(0) {
            return Err(PolicyError::ZeroSummaryBudget);
        }
        self.exact.validate().map_err(PolicyError::Exact)
    }

    /// The one decision of when a cycle fires and what it folds, for the live engine and both
    /// dry runs. An exact policy decides in [`Exact::decide`]; any other decides after each
    /// reply in [`Trigger::turns_to_fold`], over whole turns.
    pub fn decide(&self, check: &Check<'_>) -> Fold {
        if self.exact.is_exact() {
            return self.exact.decide(&self.trigger, &check.view);
        }
        let view = &check.view;
        if view.moment != Moment::AfterReply {
            return Fold::NONE;
        }
        let turn_tokens = turn_sizes(view.messages);
        let turns = self.trigger.turns_to_fold(&TriggerView {
            turn_tokens: &turn_tokens,
            verbatim_messages: view.messages.len(),
            messages_before: check.messages_before,
            messages_now: check.messages_now,
            fixed_tokens: view.system_tokens + view.summary.map_or(0, |s| s.tokens),
        });
        Fold {
            messages: exact::turn_messages(view.messages, turns),
            call: turns > 0,
        }
    }
}

impl Default for Policy {
    /// The notebook's demo settings: summarise after 4 turns, keep 2.
    fn default() -> Self {
        Policy {
            trigger: Trigger::Turns {
                max_turns: 4,
                keep: 2,
            },
            placement: Placement::default(),
            fold: FoldMode::default(),
            prompt: PromptSpec::from_preset(PresetId::FinancialAdvisor),
            format: SummaryFormat::default(),
            summary_budget: None,
            exact: Exact::default(),
        }
    }
}

/// Folds the oldest turns until what is left fits `keep`, always leaving the latest turn.
fn fold_until_fits(turn_tokens: &[u32], total: u64, keep: u64) -> usize {
    let mut left = total;
    let mut folded = 0;
    while left > keep && folded + 1 < turn_tokens.len() {
        left -= u64::from(turn_tokens[folded]);
        folded += 1;
    }
    folded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(turn_tokens: &[u32], before: usize, now: usize) -> TriggerView<'_> {
        TriggerView {
            turn_tokens,
            verbatim_messages: turn_tokens.len() * 2,
            messages_before: before,
            messages_now: now,
            fixed_tokens: 0,
        }
    }

    fn check(trigger: Trigger, turn_tokens: &[u32], before: usize, now: usize, expect: usize) {
        assert_eq!(
            trigger.turns_to_fold(&view(turn_tokens, before, now)),
            expect,
            "{trigger:?} over {turn_tokens:?}"
        );
    }

    #[test]
    fn triggers_fold_the_documented_turns() {
        let turns = |max_turns, keep| Trigger::Turns { max_turns, keep };
        check(turns(4, 2), &[1, 1, 1], 4, 6, 0);
        check(turns(4, 2), &[1, 1, 1, 1], 6, 8, 2);
        check(turns(4, 3), &[1, 1, 1, 1], 6, 8, 1);
        check(turns(1, 0), &[1], 0, 2, 1);
        let tokens = |budget, keep_tokens| Trigger::Tokens {
            budget,
            keep_tokens,
        };
        check(tokens(100, 50), &[40, 40, 20], 4, 6, 0);
        check(tokens(100, 50), &[40, 40, 30], 4, 6, 2);
        check(tokens(100, 50), &[40, 30, 30], 4, 6, 0);
        check(tokens(100, 50), &[60, 20, 25], 4, 6, 1);
        // A single turn larger than the budget stays: a turn is never split or dropped.
        check(tokens(100, 50), &[500], 0, 2, 0);
        check(tokens(100, 50), &[10, 500], 2, 4, 1);
        check(Trigger::Every { n: 4 }, &[1, 1], 2, 4, 1);
        check(Trigger::Every { n: 4 }, &[1, 1, 1], 4, 6, 0);
        check(Trigger::Every { n: 5 }, &[1, 1, 1], 4, 6, 2);
        check(Trigger::Every { n: 5 }, &[1, 1, 1], 0, 4, 0);
        check(Trigger::MessageCount { max_messages: 4 }, &[1, 1], 2, 4, 0);
        check(
            Trigger::MessageCount { max_messages: 4 },
            &[1, 1, 1],
            4,
            6,
            2,
        );
        check(Trigger::Manual { keep: 0 }, &[1, 1, 1, 1, 1], 8, 10, 0);
    }

    fn window_view(turn_tokens: &[u32], fixed_tokens: u64) -> TriggerView<'_> {
        TriggerView {
            fixed_tokens,
            ..view(turn_tokens, 0, turn_tokens.len() * 2)
        }
    }

    #[test]
    fn the_window_trigger_counts_the_whole_request_and_keeps_its_share() {
        // A 1,000-token window, fold past 80% (800 tokens), keep the newest 30% (300 tokens).
        let window = Trigger::Window {
            context: 1_000,
            fire_pct: 80,
            keep_pct: 30,
            keep_turns: 0,
        };
        let fold = |turns: &[u32], fixed| window.turns_to_fold(&window_view(turns, fixed));
        // 700 tokens of turns: under the threshold alone...
        assert_eq!(fold(&[200, 200, 200, 100], 0), 0);
        // ...but over it with a 150-token system prompt: fold until 300 tokens of turns are left.
        assert_eq!(fold(&[200, 200, 200, 100], 150), 2);
        // Exactly at the threshold does not fire; one token more does.
        assert_eq!(fold(&[400, 300], 100), 0);
        assert_eq!(fold(&[400, 301], 100), 1);
        // The latest turn is never folded, however large.
        assert_eq!(fold(&[900], 0), 0);
        assert_eq!(fold(&[10, 900], 0), 1);
        // On request it folds to the kept share whatever the threshold says.
        assert_eq!(window.turns_to_fold_on_request(&[200, 200, 100]), 1);
        // Keeping turns instead of a share: the newest two stay, whatever their size.
        let by_turns = Trigger::Window {
            context: 1_000,
            fire_pct: 80,
            keep_pct: 30,
            keep_turns: 2,
        };
        let fold = |turns: &[u32], fixed| by_turns.turns_to_fold(&window_view(turns, fixed));
        assert_eq!(fold(&[200, 200, 200, 300], 0), 2);
        assert_eq!(fold(&[200, 200, 200, 100], 0), 0);
        // With turns kept, the share may be anything: it is not used.
        assert!(
            Trigger::Window {
                context: 1_000,
                fire_pct: 80,
                keep_pct: 100,
                keep_turns: 2,
            }
            .validate()
            .is_ok()
        );
    }

    #[test]
    fn a_window_policy_whose_fixed_part_passes_its_threshold_is_a_loop() {
        let window = Trigger::Window {
            context: 1_000,
            fire_pct: 80,
            keep_pct: 30,
            keep_turns: 0,
        };
        assert_eq!(window.loop_risk(499, 100), None);
        let risk = window.loop_risk(500, 100).expect("500 + 300 reaches 800");
        assert_eq!((risk.kept_tokens, risk.threshold), (300, 800));
        assert!(risk.to_string().contains("compaction loop"), "{risk}");
        // Triggers that count the verbatim turns alone never loop on a large system prompt.
        assert_eq!(
            Trigger::Turns {
                max_turns: 4,
                keep: 2
            }
            .loop_risk(1_000_000, 100),
            None
        );
        // Keeping turns, the kept part is weighed by the typical turn.
        let by_turns = Trigger::Window {
            context: 1_000,
            fire_pct: 80,
            keep_pct: 30,
            keep_turns: 3,
        };
        assert_eq!(by_turns.loop_risk(500, 99), None);
        assert!(by_turns.loop_risk(500, 100).is_some());
        // And the loop it foresees happens: with a 550-token fixed part, each new 100-token
        // turn after the kept 300 fires again.
        let turns = [150, 150, 100];
        assert_eq!(window.turns_to_fold(&window_view(&turns, 550)), 1);
    }

    #[test]
    fn impossible_combinations_are_errors_not_panics() {
        let cases = [
            (
                Trigger::Turns {
                    max_turns: 4,
                    keep: 4,
                },
                Some(PolicyError::KeepNotBelowMax {
                    max_turns: 4,
                    keep: 4,
                }),
            ),
            (
                Trigger::Turns {
                    max_turns: 0,
                    keep: 0,
                },
                Some(PolicyError::ZeroMaxTurns),
            ),
            (
                Trigger::Tokens {
                    budget: 10,
                    keep_tokens: 11,
                },
                Some(PolicyError::KeepTokensAboveBudget {
                    budget: 10,
                    keep_tokens: 11,
                }),
            ),
            (
                Trigger::Tokens {
                    budget: 0,
                    keep_tokens: 0,
                },
                Some(PolicyError::ZeroBudget),
            ),
            (Trigger::Every { n: 0 }, Some(PolicyError::ZeroPeriod)),
            (
                Trigger::MessageCount { max_messages: 1 },
                Some(PolicyError::MessageCountTooSmall(1)),
            ),
            (
                Trigger::Turns {
                    max_turns: 6,
                    keep: 2,
                },
                None,
            ),
            (Trigger::Manual { keep: 0 }, None),
            (
                Trigger::Window {
                    context: 0,
                    fire_pct: 80,
                    keep_pct: 30,
                    keep_turns: 0,
                },
                Some(PolicyError::ZeroContext),
            ),
            (
                Trigger::Window {
                    context: 8_192,
                    fire_pct: 120,
                    keep_pct: 30,
                    keep_turns: 0,
                },
                Some(PolicyError::PercentOutOfRange {
                    field: "the fold threshold",
                    value: 120,
                }),
            ),
            (
                Trigger::Window {
                    context: 8_192,
                    fire_pct: 50,
                    keep_pct: 50,
                    keep_turns: 0,
                },
                Some(PolicyError::KeepPctNotBelowFire {
                    fire_pct: 50,
                    keep_pct: 50,
                }),
            ),
        ];
        for (trigger, expect) in cases {
            assert_eq!(Policy::new(trigger.clone()).err(), expect, "{trigger:?}");
        }
    }

    #[test]
    fn prompt_and_summary_budget_are_validated() {
        let mut policy = Policy::default();
        policy.prompt.word_limit = 0;
        assert_eq!(policy.validate(), Err(PolicyError::ZeroWordLimit));
        let mut policy = Policy::default();
        policy.prompt.text = "  ".into();
        assert_eq!(policy.validate(), Err(PolicyError::EmptyPrompt));
        let policy = Policy {
            summary_budget: Some(0),
            ..Policy::default()
        };
        assert_eq!(policy.validate(), Err(PolicyError::ZeroSummaryBudget));
    }

    #[test]
    fn keep_below_max_message_names_both_values() {
        let err = Policy::new(Trigger::Turns {
            max_turns: 4,
            keep: 5,
        })
        .unwrap_err();
        assert!(err.to_string().contains("keep (5)"), "{err}");
        assert!(err.to_string().contains("max_turns (4)"), "{err}");
    }
}

#[cfg(test)]
mod trigger_kind_tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_through_its_slug_and_its_params() {
        for kind in TriggerKind::ALL {
            assert_eq!(TriggerKind::from_slug(kind.slug()), Some(kind));
            let trigger = kind.with_defaults();
            assert_eq!(trigger.kind(), kind);
            assert_eq!(trigger.slug(), kind.slug());
            let names: Vec<&str> = kind.fields().iter().map(|f| f.param).collect();
            let params: Vec<&str> = trigger.params().iter().map(|p| p.0).collect();
            assert_eq!(names, params, "{kind:?}");
            // Rebuilt from its own numbers, a trigger is itself.
            assert_eq!(kind.build(|p| trigger.param(p).unwrap()), trigger);
            assert!(trigger.validate().is_ok(), "{kind:?}'s defaults validate");
        }
        assert!(
            TriggerKind::LINKED
                .iter()
                .all(|k| TriggerKind::ALL.contains(k))
        );
        assert_eq!(TriggerKind::from_slug("nope"), None);
    }

    /// The replay once mapped a message-count trigger onto "every N": the kind of a trigger
    /// and the rebuilt trigger must be a message count again.
    #[test]
    fn a_message_count_trigger_round_trips_as_a_message_count() {
        let trigger = Trigger::MessageCount { max_messages: 10 };
        let kind = TriggerKind::from_slug(trigger.slug()).unwrap();
        assert_eq!(kind, TriggerKind::Messages);
        let values = trigger.params();
        let rebuilt = kind.build(|p| values.iter().find(|v| v.0 == p).map_or(0, |v| v.1));
        assert_eq!(rebuilt, trigger);
        assert_eq!(kind.label(), "Over N verbatim messages");
    }
}

#[cfg(test)]
mod choice_tests {
    use super::*;

    /// Every value of `T` is in its table once, and its slug names it again.
    fn check_table<T: Choice + std::fmt::Debug>(values: &[T], slugs: &[&str]) {
        let listed: Vec<T> = T::CHOICES.iter().map(|c| c.0).collect();
        assert_eq!(listed, values);
        let named: Vec<&str> = T::CHOICES.iter().map(|c| c.1).collect();
        assert_eq!(named, slugs);
        for &value in values {
            assert_eq!(T::from_slug(value.slug()), Some(value));
            assert!(!value.label().is_empty(), "{value:?} has words");
        }
        assert_eq!(T::from_slug(""), None);
        assert_eq!(T::from_slug("nope"), None);
    }

    #[test]
    fn every_choice_round_trips_through_its_one_slug() {
        // The slugs are the pickers' option values, which the end-to-end tests select
        // (`policy-placement`, `replay-placement`, `policy-fold`, `replay-fold`, `policy-format`).
        check_table(
            &[
                Placement::SecondSystem,
                Placement::AppendToSystem,
                Placement::UserAck,
            ],
            &["second_system", "append_to_system", "user_ack"],
        );
        check_table(
            &[FoldMode::Progressive, FoldMode::RebuildFromArchive],
            &["progressive", "rebuild"],
        );
        check_table(
            &[
                SummaryFormat::Prose,
                SummaryFormat::Structured,
                SummaryFormat::Topics,
            ],
            &["prose", "structured", "topics"],
        );
    }

    /// The policy panel once offered the placements and fold modes with labels of its own
    /// ("A second system message") beside the words the policy's description used: each value
    /// now has one label, the description's.
    #[test]
    fn each_value_has_the_one_label_the_policy_description_shows() {
        assert_eq!(
            Placement::SecondSystem.label(),
            "as a second system message, after the system prompt"
        );
        assert_eq!(
            FoldMode::RebuildFromArchive.label(),
            "rebuilt from every folded turn in the archive"
        );
        assert_eq!(
            SummaryFormat::Topics.label(),
            "Topic sections (one short section per topic)"
        );
    }
}
