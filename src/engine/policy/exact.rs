//! The exact policy: the vocabulary that states another system's compaction rule as that system
//! really runs it, message by message (see `../shared/PEERS.md` for what each library does).
//!
//! [`Exact::default`] is today's behaviour: the trigger decides after each reply over whole
//! turns ([`Trigger::turns_to_fold`]), and the summary goes where [`super::Placement`] puts it.
//! Any other value switches the decision to [`Exact::decide`], which the live engine
//! ([`crate::engine::MemoryState`]) and the message-level dry run
//! ([`crate::engine::schedule::schedule_messages`]) both call through [`super::Policy::decide`],
//! so the two can never disagree.
//!
//! What the fields say:
//! - what the threshold counts ([`Counted`]: the system prompt, the summary, the verbatim
//!   history, the incoming message, the reply just received) and how it compares ([`Compare`]);
//! - when it is checked ([`CheckAt`]: after each reply, before each request on its own size, or
//!   before each request on the previous request's size as reported);
//! - what stays verbatim ([`Keep`]), whether the kept tail always holds the newest message
//!   (`keep_newest`), and where the kept tail may start ([`Start`]);
//! - what a fold keeps besides the summary (`keep_user_tokens`: the user's own messages, newest
//!   first, up to a token budget) and where the summary goes ([`SummaryAt`], `summary_prefix`);
//! - how many model calls a fold makes (`calls_per_fold`);
//! - what happens when only the old summary is cut off ([`SummaryOverflow`]);
//! - the counter every size is measured with ([`Counter`], `counter`: each library's own).

use crate::engine::message::{Role, starts_turn};

use super::Trigger;
use super::counter::Counter;

/// Which parts of the conversation the threshold adds up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted {
    /// The system prompt.
    pub system: bool,
    /// The summary as it is placed (its prefix and any message around it included).
    pub summary: bool,
    /// The verbatim history before the incoming message or the reply.
    pub verbatim: bool,
    /// The message a request answers (a user message or a tool's result), before a request.
    pub incoming: bool,
    /// The reply just received, after a reply.
    pub reply: bool,
}

impl Counted {
    /// Everything: the whole request.
    pub const ALL: Counted = Counted {
        system: true,
        summary: true,
        verbatim: true,
        incoming: true,
        reply: true,
    };

    /// The stored history only: no system prompt (LangChain v1, LlamaIndex).
    pub const HISTORY: Counted = Counted {
        system: false,
        ..Counted::ALL
    };

    /// The verbatim messages only (LangChain's classic buffer).
    pub const VERBATIM: Counted = Counted {
        system: false,
        summary: false,
        ..Counted::ALL
    };
}

/// How the counted size is compared with the threshold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compare {
    /// Fires when the size is over the threshold (`>`): today's rule.
    #[default]
    Above,
    /// Fires when the size reaches the threshold (`>=`).
    AtLeast,
}

/// When the trigger is checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CheckAt {
    /// After each reply that ends a turn: today's rule.
    #[default]
    AfterReply,
    /// Before each request, on the size of that request's stored history.
    BeforeRequest,
    /// Before the first request of each turn (the one answering the user's message), on the
    /// size of the stored history; the requests after a tool's result reuse it (LlamaIndex, as
    /// its agents read their memory once a turn).
    BeforeTurn,
    /// Before each request, on the previous request's size as the server reported it, and
    /// before the incoming message is stored (Gemini CLI).
    PreviousRequest,
}

/// What a share is measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    Tokens,
    /// Characters of each message as the library serialises it (Gemini CLI measures the JSON of
    /// each history entry).
    Chars,
}

/// What a share is a share of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShareOf {
    /// Of a context window of this many tokens.
    Window(u32),
    /// Of the history itself, as it stands when the fold runs (the summary included).
    History,
}

/// What stays verbatim after a fold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The newest `n` turns, each starting at a user message.
    Turns(u32),
    /// The newest `n` stored messages (the summary's stored messages counted among them when
    /// [`Counted::summary`] is set); the tail may start on a reply.
    Messages(u32),
    /// The newest messages whose tokens together fit `n`.
    Tokens(u32),
    /// The newest `pct` percent of the window or of the history. A share of the history is cut
    /// at a user message: the first one with at least `100 - pct` percent before it (Gemini
    /// CLI's `findCompressSplitPoint`).
    Share { of: ShareOf, pct: u32, by: Measure },
}

/// Where the verbatim tail may begin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Start {
    /// Anywhere, except that a tool's result is never kept without the call it answers: the cut
    /// moves back onto the assistant message that made the call (LangChain v1).
    #[default]
    Anywhere,
    /// At a user message: replies and tool traffic at the front of the tail are folded too
    /// (LlamaIndex).
    AtUser,
}

/// Where the summary goes in the request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum SummaryAt {
    /// Where [`super::Placement`] puts it, with the engine's header: today's rule.
    #[default]
    Placement,
    /// Its own system message, right after the system prompt.
    System,
    /// A system message before the system prompt: the first message of the request.
    FirstSystem,
    /// A lone user message.
    User,
    /// A user message, then an assistant message with this fixed acknowledgement.
    UserThenAck(String),
    /// A user message with this fixed prompt, then the summary as the assistant's answer.
    AssistantAfter(String),
}

/// What happens when the cut leaves nothing verbatim to fold but the old summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SummaryOverflow {
    /// The old summary stays as it is, and no call is made (today's rule, and LlamaIndex's).
    #[default]
    Keep,
    /// The summariser is called on the old summary alone (LangChain v1, when the messages it
    /// keeps are all the verbatim ones).
    Resummarise,
}

/// The exact policy's fields. The default is today's behaviour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exact {
    /// What the threshold counts; `None` keeps the trigger's own rule.
    pub counted: Option<Counted>,
    pub compare: Compare,
    pub check: CheckAt,
    /// What stays verbatim; `None` keeps the trigger's own rule (whole turns).
    pub keep: Option<Keep>,
    /// The kept tail always holds at least the newest stored message, even when that message
    /// alone is over what [`Exact::keep`] keeps (LangChain v1's cut by tokens); without it a
    /// fold may take every verbatim message (LlamaIndex's buffer, LangChain's classic one).
    pub keep_newest: bool,
    pub start: Start,
    /// Besides the summary, a fold keeps the user's own messages, newest first, up to this many
    /// tokens (Codex).
    pub keep_user_tokens: Option<u32>,
    pub summary_at: SummaryAt,
    /// Text before the summary in its message (not used by [`SummaryAt::Placement`], which
    /// writes the engine's own header).
    pub summary_prefix: String,
    /// Model calls per fold (Gemini CLI makes two: the snapshot, then a verification pass that
    /// writes the summary kept).
    pub calls_per_fold: u32,
    pub summary_overflow: SummaryOverflow,
    /// Tool calls and their results are sent only in the requests of their own turn; the
    /// history keeps the user's message and the final reply (LangChain's classic memory under
    /// an agent executor).
    pub tools_in_turn_only: bool,
    /// A fixed user message the library puts first in its history, before the summary, and
    /// writes again after each fold (Gemini CLI's session context).
    pub context_message: Option<String>,
    /// The counter the policy is measured with ([`Counter`]): each message's size, the system
    /// prompt's and the summary's. It changes the sizes, never the decision's rule, so
    /// [`Exact::is_exact`] does not look at it.
    pub counter: Counter,
}

impl Default for Exact {
    fn default() -> Self {
        Exact {
            counted: None,
            compare: Compare::Above,
            check: CheckAt::AfterReply,
            keep: None,
            keep_newest: false,
            start: Start::Anywhere,
            keep_user_tokens: None,
            summary_at: SummaryAt::Placement,
            summary_prefix: String::new(),
            calls_per_fold: 1,
            summary_overflow: SummaryOverflow::Keep,
            tools_in_turn_only: false,
            context_message: None,
            counter: Counter::default(),
        }
    }
}

/// One stored message as the decision sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measured {
    pub role: Role,
    pub tokens: u32,
    /// Characters, for a share measured in characters.
    pub chars: u32,
    /// An assistant message that calls a tool.
    pub calls: bool,
}

/// The moment of a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Moment {
    /// A reply that ends a turn was just stored; it is the last of `messages`.
    AfterReply,
    /// A request is about to be sent; the message it answers is the last of `messages`.
    BeforeRequest,
}

/// The summary as the history holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SummarySize {
    /// Tokens of the summary's messages as placed.
    pub tokens: u64,
    /// Characters of the summary's messages as placed.
    pub chars: u64,
    /// The messages the summary takes in the history (a pair counts two).
    pub messages: u32,
}

/// What the decision looks at.
#[derive(Clone, Copy, Debug)]
pub struct FoldView<'a> {
    /// The verbatim messages, oldest first; the last is the reply or the incoming message.
    pub messages: &'a [Measured],
    pub moment: Moment,
    pub system_tokens: u64,
    /// The summary, when there is one.
    pub summary: Option<SummarySize>,
    /// The stored messages before the verbatim part, as the library's history holds them (a
    /// fixed context message, the summary's messages), oldest first; see [`head_measured`].
    pub head: &'a [Measured],
    /// Tokens of the previous request, as reported (for [`CheckAt::PreviousRequest`]).
    pub reported: Option<u64>,
}

/// What a check decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fold {
    /// How many of the oldest verbatim messages are folded.
    pub messages: usize,
    /// Whether the summariser is called (false when nothing is folded, unless the old summary
    /// is summarised again on its own).
    pub call: bool,
}

impl Fold {
    /// Nothing to do.
    pub const NONE: Fold = Fold {
        messages: 0,
        call: false,
    };
}

impl Exact {
    /// Whether any field differs from today's behaviour, so that [`Exact::decide`] decides.
    pub fn is_exact(&self) -> bool {
        *self
            != Exact {
                counter: self.counter,
                ..Exact::default()
            }
    }

    /// Checks the numbers, naming the field at fault.
    pub fn validate(&self) -> Result<(), &'static str> {
        if self.calls_per_fold == 0 {
            return Err("calls per fold must be at least 1");
        }
        match self.keep {
            Some(Keep::Share { pct, .. }) if !(1..=99).contains(&pct) => {
                Err("the kept share must be between 1 and 99 percent")
            }
            Some(Keep::Share {
                of: ShareOf::Window(0),
                ..
            }) => Err("the kept share's window must be at least 1 token"),
            _ => Ok(()),
        }
    }

    /// The one decision of an exact policy: whether `trigger` fires at this check and how many
    /// of the oldest verbatim messages a fold takes.
    pub fn decide(&self, trigger: &Trigger, view: &FoldView<'_>) -> Fold {
        let before = view.moment == Moment::BeforeRequest;
        if before == (self.check == CheckAt::AfterReply) {
            return Fold::NONE;
        }
        let answers_user = view.messages.last().is_some_and(|m| m.role == Role::User);
        if self.check == CheckAt::BeforeTurn && !answers_user {
            return Fold::NONE;
        }
        // Gemini CLI compresses the history before the incoming content is stored in it: the
        // user's message, or every result of the calls it answers (one `Content`; the fidelity
        // tier's code-tools run at the Tuner's threshold split three results too late).
        let history = if self.check == CheckAt::PreviousRequest {
            &view.messages[..incoming_start(view.messages)]
        } else {
            view.messages
        };
        if history.is_empty() || !self.fires(trigger, view) {
            return Fold::NONE;
        }
        let summary_messages = view.head.len();
        // The cut, counted over the stored history (the head's messages first).
        let mut cut = self.cut(trigger, history, view.head);
        if self.keep_newest {
            // The newest message stays, before a tool's result moves the cut onto its call.
            cut = cut.min(summary_messages + history.len() - 1);
        }
        let cut = self.adjust_start(history, summary_messages, cut);
        let folded = cut.saturating_sub(summary_messages);
        if folded > 0 {
            return Fold {
                messages: folded,
                call: true,
            };
        }
        let summary_cut = view.summary.is_some() && cut > 0;
        Fold {
            messages: 0,
            call: summary_cut && self.summary_overflow == SummaryOverflow::Resummarise,
        }
    }

    /// Whether the threshold is met.
    fn fires(&self, trigger: &Trigger, view: &FoldView<'_>) -> bool {
        let messages = view.messages;
        let last = messages.len().saturating_sub(1);
        let size = match self.check {
            CheckAt::PreviousRequest => view.reported.unwrap_or(0),
            _ => {
                let counted = self.counted.unwrap_or(Counted::ALL);
                let mut size = 0u64;
                if counted.system {
                    size += view.system_tokens;
                } else {
                    // The list counted still primes the reply once (the chat format's 3 tokens,
                    // which the system prompt's size holds when it is counted).
                    size += u64::from(self.counter.per_request());
                }
                if counted.summary {
                    size += view.summary.map_or(0, |s| s.tokens);
                }
                for (i, m) in messages.iter().enumerate() {
                    let on = if i < last {
                        counted.verbatim
                    } else if view.moment == Moment::BeforeRequest {
                        counted.incoming
                    } else {
                        counted.reply
                    };
                    if on {
                        size += u64::from(m.tokens);
                    }
                }
                size
            }
        };
        let counted_messages = messages.len()
            + if self.counted.is_some_and(|c| c.summary) {
                view.head.len()
            } else {
                0
            };
        let over = |threshold: u64| match self.compare {
            Compare::Above => size > threshold,
            Compare::AtLeast => size >= threshold,
        };
        match *trigger {
            Trigger::Tokens { budget, .. } => over(u64::from(budget)),
            Trigger::Window {
                context, fire_pct, ..
            } => over(u64::from(context) * u64::from(fire_pct) / 100),
            Trigger::Turns { max_turns, .. } => user_turns(messages) >= max_turns as usize,
            Trigger::MessageCount { max_messages } => counted_messages > max_messages as usize,
            Trigger::Every { .. } | Trigger::Manual { .. } => false,
        }
    }

    /// Where the kept tail begins, as an index into the stored history with the summary's
    /// messages in front (so `summary_messages` means "fold no verbatim message").
    fn cut(&self, trigger: &Trigger, history: &[Measured], head: &[Measured]) -> usize {
        let s = head.len();
        let n = history.len();
        match self.keep {
            None => {
                let turns = turn_sizes(history);
                let fold_turns = trigger.turns_to_fold_on_request(&turns);
                s + turn_messages(history, fold_turns)
            }
            Some(Keep::Turns(keep)) => {
                let starts: Vec<usize> = (0..n).filter(|&i| starts_user_turn(history, i)).collect();
                if starts.len() <= keep as usize {
                    s
                } else if keep == 0 {
                    s + n
                } else {
                    s + starts[starts.len() - keep as usize]
                }
            }
            Some(Keep::Messages(keep)) => {
                let stored = n + if self.counted.is_some_and(|c| c.summary) {
                    s
                } else {
                    0
                };
                if stored <= keep as usize {
                    0
                } else {
                    // The stored list is the summary's messages (when counted) then the history.
                    let cut = stored - keep as usize;
                    if self.counted.is_some_and(|c| c.summary) {
                        cut
                    } else {
                        s + cut
                    }
                }
            }
            // The kept list, counted as a list, includes the counter's reply priming
            // (LangChain classic's prune counts the buffer with get_num_tokens_from_messages).
            Some(Keep::Tokens(budget)) => {
                let priming = u64::from(self.counter.per_request());
                s + longest_tail(history, u64::from(budget).saturating_sub(priming))
            }
            Some(Keep::Share {
                of: ShareOf::Window(context),
                pct,
                by,
            }) => {
                let budget = u64::from(context) * u64::from(pct) / 100;
                match by {
                    Measure::Tokens => s + longest_tail(history, budget),
                    Measure::Chars => s + longest_tail_by(history, budget, |m| m.chars),
                }
            }
            Some(Keep::Share {
                of: ShareOf::History,
                pct,
                by,
            }) => {
                let size = |m: &Measured| match by {
                    Measure::Tokens => u64::from(m.tokens),
                    Measure::Chars => u64::from(m.chars),
                };
                share_split(head, history, size, pct)
            }
        }
    }

    /// Moves the cut so the tail starts where this policy lets it start.
    fn adjust_start(&self, history: &[Measured], s: usize, cut: usize) -> usize {
        // A cut inside the head keeps part of it; one right after it (the summary goes, every
        // verbatim message stays) still moves a kept part that starts with a reply: LlamaIndex
        // then folds the old summary with that reply (its `_handle_assistant_and_tool_messages`
        // runs whatever the cut), which its fidelity trace on `giant-message` showed once the
        // summary's length followed its input.
        if cut < s || cut == 0 || (cut == s && self.start != Start::AtUser) {
            return cut;
        }
        let mut at = cut - s;
        match self.start {
            Start::Anywhere => {
                // A result is never kept without its call: move back onto the call.
                if at < history.len() && history[at].role == Role::Tool {
                    if let Some(call) = (0..at).rev().find(|&i| history[i].calls) {
                        at = call;
                    } else {
                        while at < history.len() && history[at].role == Role::Tool {
                            at += 1;
                        }
                    }
                }
            }
            Start::AtUser => {
                while at < history.len() && matches!(history[at].role, Role::Assistant | Role::Tool)
                {
                    at += 1;
                }
            }
        }
        s + at
    }
}

/// Whether history message `i` begins a user turn: a user message (tool results are their own
/// role, so every user message here is the user's own).
fn starts_user_turn(history: &[Measured], i: usize) -> bool {
    history[i].role == Role::User
}

/// The user's own messages in the history.
fn user_turns(history: &[Measured]) -> usize {
    (0..history.len())
        .filter(|&i| starts_user_turn(history, i))
        .count()
}

/// Tokens of each turn of `history` (a turn begins at a user message after a reply or a tool's
/// result, as [`starts_turn`] says).
pub fn turn_sizes(history: &[Measured]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    let mut previous = None;
    for m in history {
        if starts_turn(previous, m.role) || out.is_empty() {
            out.push(0);
        }
        if let Some(last) = out.last_mut() {
            *last = last.saturating_add(m.tokens);
        }
        previous = Some(m.role);
    }
    out
}

/// Messages in the first `turns` turns of `history`.
pub(super) fn turn_messages(history: &[Measured], turns: usize) -> usize {
    if turns == 0 {
        return 0;
    }
    let mut begun = 0;
    let mut previous = None;
    for (i, m) in history.iter().enumerate() {
        if starts_turn(previous, m.role) || i == 0 {
            if begun == turns {
                return i;
            }
            begun += 1;
        }
        previous = Some(m.role);
    }
    history.len()
}

/// Where the longest tail of `history` whose tokens fit `budget` begins (`history.len()` when
/// not even the last message fits). Folding from the front until the rest fits (LangChain's
/// `prune`) and keeping from the back while the next fits (LlamaIndex's walk) both stop here.
fn longest_tail(history: &[Measured], budget: u64) -> usize {
    longest_tail_by(history, budget, |m| m.tokens)
}

fn longest_tail_by(history: &[Measured], budget: u64, size: impl Fn(&Measured) -> u32) -> usize {
    let mut total = 0u64;
    let mut at = history.len();
    while at > 0 {
        let next = total + u64::from(size(&history[at - 1]));
        if next > budget {
            break;
        }
        total = next;
        at -= 1;
    }
    at
}

/// The newest `pct` percent of the stored history (`head`, then `history`): the cut is the
/// first user message with at least `100 - pct` percent of the whole before it; with none,
/// everything when the history ends on a reply that calls no tool, else the last user message.
/// The result indexes `head` then `history`. After Gemini CLI's `findCompressSplitPoint`
/// (`@google/gemini-cli-core` 0.61.0, `dist/src/context/chatCompressionService.js`), whose
/// history starts with its session context and its summary, both user messages.
/// Where the incoming content of a request starts in `messages`: its trailing tool results,
/// all of them, or else its last message.
fn incoming_start(messages: &[Measured]) -> usize {
    let results = messages
        .iter()
        .rev()
        .take_while(|m| m.role == Role::Tool)
        .count();
    messages.len().saturating_sub(results.max(1))
}

fn share_split(
    head: &[Measured],
    history: &[Measured],
    size: impl Fn(&Measured) -> u64,
    pct: u32,
) -> usize {
    let all = || head.iter().chain(history);
    let total: u64 = all().map(&size).sum();
    // The target is `total × (100 − pct) / 100`, compared without rounding.
    let reached = |before: u64| before * 100 >= total * u64::from(100 - pct);
    let mut last_split = 0;
    let mut before = 0u64;
    for (i, m) in all().enumerate() {
        // A tool's result is its own role here, never a user message.
        if m.role == Role::User {
            if reached(before) {
                return i;
            }
            last_split = i;
        }
        before += size(m);
    }
    match all().last() {
        Some(last) if last.role == Role::Assistant && !last.calls => head.len() + history.len(),
        _ => last_split,
    }
}

/// The user messages before `to` that a fold keeps besides the summary
/// ([`Exact::keep_user_tokens`]): newest first while their tokens fit `budget`, listed oldest
/// first, as indices into `messages` (each its role and tokens). Codex truncates the oldest one
/// that does not fit; this keeps it out instead, as a dry run cannot cut a message's text.
pub fn kept_user_messages(
    messages: impl IntoIterator<Item = (Role, u32)>,
    to: usize,
    budget: u32,
) -> Vec<usize> {
    let users: Vec<(usize, u32)> = messages
        .into_iter()
        .take(to)
        .enumerate()
        .filter(|(_, (role, _))| *role == Role::User)
        .map(|(k, (_, tokens))| (k, tokens))
        .collect();
    let mut left = u64::from(budget);
    let mut kept = Vec::new();
    for &(k, tokens) in users.iter().rev() {
        let tokens = u64::from(tokens);
        if tokens > left {
            break;
        }
        left -= tokens;
        kept.push(k);
    }
    kept.reverse();
    kept
}

/// One message of a request before its verbatim part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeadPart {
    /// The conversation's system prompt, as it is.
    SystemPrompt,
    /// The message that carries the summary, whole (its prefix or the system prompt included).
    Summary { role: Role, text: String },
    /// A message the policy adds around the summary: an acknowledgement, a prompt.
    Fixed { role: Role, text: String },
}

/// The request's messages before the verbatim part: the system prompt, and the summary where
/// `summary_at` puts it (`placement` and the engine's `header` and `ack` for
/// [`SummaryAt::Placement`]).
pub fn request_head(
    exact: &Exact,
    placement: super::Placement,
    system_prompt: &str,
    summary: Option<&str>,
    header: &str,
    ack: &str,
) -> Vec<HeadPart> {
    let mut out = request_head_of(exact, placement, system_prompt, summary, header, ack);
    if let Some(context) = &exact.context_message {
        let at = out
            .iter()
            .position(|p| *p == HeadPart::SystemPrompt)
            .map_or(0, |i| i + 1);
        out.insert(
            at,
            HeadPart::Fixed {
                role: Role::User,
                text: context.clone(),
            },
        );
    }
    out
}

fn request_head_of(
    exact: &Exact,
    placement: super::Placement,
    system_prompt: &str,
    summary: Option<&str>,
    header: &str,
    ack: &str,
) -> Vec<HeadPart> {
    use super::Placement;
    let Some(summary) = summary else {
        return vec![HeadPart::SystemPrompt];
    };
    let text = format!("{}{summary}", exact.summary_prefix);
    let summary_as = |role| HeadPart::Summary {
        role,
        text: text.clone(),
    };
    match &exact.summary_at {
        SummaryAt::Placement => match placement {
            Placement::SecondSystem => vec![
                HeadPart::SystemPrompt,
                HeadPart::Summary {
                    role: Role::System,
                    text: format!("{header}{summary}"),
                },
            ],
            Placement::AppendToSystem => vec![HeadPart::Summary {
                role: Role::System,
                text: format!("{system_prompt}\n\n{header}{summary}"),
            }],
            Placement::UserAck => vec![
                HeadPart::SystemPrompt,
                HeadPart::Summary {
                    role: Role::User,
                    text: format!("{header}{summary}"),
                },
                HeadPart::Fixed {
                    role: Role::Assistant,
                    text: ack.to_owned(),
                },
            ],
        },
        SummaryAt::System => vec![HeadPart::SystemPrompt, summary_as(Role::System)],
        SummaryAt::FirstSystem => vec![summary_as(Role::System), HeadPart::SystemPrompt],
        SummaryAt::User => vec![HeadPart::SystemPrompt, summary_as(Role::User)],
        SummaryAt::UserThenAck(ack) => vec![
            HeadPart::SystemPrompt,
            summary_as(Role::User),
            HeadPart::Fixed {
                role: Role::Assistant,
                text: ack.clone(),
            },
        ],
        SummaryAt::AssistantAfter(prompt) => vec![
            HeadPart::SystemPrompt,
            HeadPart::Fixed {
                role: Role::User,
                text: prompt.clone(),
            },
            summary_as(Role::Assistant),
        ],
    }
}

/// The head's stored messages as the decision measures them: every part but the system prompt
/// (none when the summary is appended to the system prompt).
pub fn head_measured(
    head: &[HeadPart],
    tokens: impl Fn(&str) -> u32,
    chars: impl Fn(Role, &str) -> u32,
) -> Vec<Measured> {
    if !head.contains(&HeadPart::SystemPrompt) {
        return Vec::new();
    }
    head.iter()
        .filter_map(|part| match part {
            HeadPart::SystemPrompt => None,
            HeadPart::Summary { role, text } | HeadPart::Fixed { role, text } => Some(Measured {
                role: *role,
                tokens: tokens(text),
                chars: chars(*role, text),
                calls: false,
            }),
        })
        .collect()
}

/// The summary's size in the history, from the request's head: every part but the system
/// prompt (a summary appended to the system prompt takes no message of its own, and counts
/// only what it adds).
pub fn summary_size(
    head: &[HeadPart],
    context: Option<&str>,
    system_tokens: u64,
    tokens: impl Fn(&str) -> u64,
    chars: impl Fn(Role, &str) -> u64,
) -> Option<SummarySize> {
    let mut size = SummarySize {
        tokens: 0,
        chars: 0,
        messages: 0,
    };
    let mut any = false;
    let replaces_system = !head.contains(&HeadPart::SystemPrompt);
    for part in head {
        if let HeadPart::Fixed { text, .. } = part
            && Some(text.as_str()) == context
        {
            continue;
        }
        if let HeadPart::Summary { role, text } | HeadPart::Fixed { role, text } = part {
            any |= matches!(part, HeadPart::Summary { .. });
            size.tokens += tokens(text);
            size.chars += chars(*role, text);
            size.messages += 1;
        }
    }
    if replaces_system {
        size.tokens = size.tokens.saturating_sub(system_tokens);
        size.messages = 0;
    }
    any.then_some(size)
}

#[cfg(test)]
mod tests;
