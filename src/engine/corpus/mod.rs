//! The corpus comparison: every conversation of a corpus under every compared policy, one
//! [`Row`] per conversation and policy, and per policy the totals and the distribution over the
//! conversations ([`summarise`]). Inspect's corpus table (on a pool of workers) and the
//! command-line tool (`cli`, on rayon) both run [`measure`] and write [`rows_csv`] and
//! [`summary_csv`], so their files are equal byte for byte.
//!
//! A row holds integers only (tokens and counts): a run on N threads, a sharded run and a run
//! on one thread are equal bit for bit once sorted ([`sort_rows`]), and cost is computed from a
//! row with editable [`Prices`] when it is shown, never stored.
//!
//! What each column comes from:
//! - the **dry run** ([`crate::engine::schedule`]): summariser calls, the chat requests' tokens,
//!   the largest request and the requests over the window. A policy of today's rules runs over
//!   the conversation's real turn sizes, as Inspect's replay table does; an exact policy runs
//!   message by message ([`schedule_messages`]) over the real messages, tool traffic included.
//!   The summariser's tokens are estimated as the Tuner's comparison does
//!   ([`crate::engine::peers::outcome`]: instructions, the old summary, the folded turns);
//! - the **extractive replay** ([`crate::engine::replay::replay_extractive`], Inspect's offline
//!   replay), when [`CorpusSettings::replay`] is on: the summariser's tokens as this app counts
//!   the requests it really sends (replacing the estimate), and the **offline checks**
//!   ([`crate::engine::checks`]) on the replay's last edition, with the inputs Inspect's edition
//!   cards give them (`src/view/editions.rs`, `edition_checks`): the facts (figures, names,
//!   dates, pinned facts) and rules of the folded turns it lost, and its unsourced figures.

mod csv;
mod summary;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::engine::checks::{EditionInput, Verdict, check_editions};
use crate::engine::library_session::Session;
use crate::engine::message::{CountTokens, Role};
use crate::engine::peers::{self, ASSUMED_PROMPT_TOKENS, PEER_PRESETS};
use crate::engine::policy::{CountedBy, Counter, FoldMode, Policy, PolicyError};
use crate::engine::replay::{ReplayError, replay_extractive};
use crate::engine::schedule::{MessageInput, PlayedMessage, ScheduleInput, Sizer, TurnSize};

pub use csv::{ROWS_HEADER, SUMMARY_HEADER, rows_csv, summary_csv};
pub use summary::{Distribution, Metric, Prices, Summary, Totals, summarise};

/// The `id` of the user's own policy among the columns.
pub const YOURS: &str = "yours";

/// A policy compared: `id` is the `data-policy` value and the CSV's policy column ("yours", or
/// a peer preset's slug), `label` what the table shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub id: String,
    pub label: String,
    pub policy: Policy,
}

impl Column {
    /// A column for `policy`, refused with the policy's own reason when it is invalid.
    pub fn new(
        id: impl Into<String>,
        label: impl Into<String>,
        policy: Policy,
    ) -> Result<Column, PolicyError> {
        policy.validate()?;
        Ok(Column {
            id: id.into(),
            label: label.into(),
            policy,
        })
    }

    /// The peer preset `slug` for a model window of `window` tokens, labelled with its system's
    /// name; `None` for a slug that is no preset.
    pub fn preset(slug: &str, window: u32) -> Option<Column> {
        let preset = peers::preset(slug)?;
        Some(Column {
            id: preset.slug.to_owned(),
            label: preset.system.to_owned(),
            policy: preset.policy(window),
        })
    }

    /// Every peer preset, in the page's order, for a window of `window` tokens.
    pub fn presets(window: u32) -> Vec<Column> {
        PEER_PRESETS
            .iter()
            .filter_map(|p| Column::preset(p.slug, window))
            .collect()
    }
}

/// What a corpus run needs besides the columns and the counter (whose encoding counts every
/// text): the context window, the summary size the dry run assumes, and whether the extractive
/// replay and its checks run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorpusSettings {
    /// The model's context window in tokens: a request larger is "over the window".
    pub window: u32,
    /// Tokens each summary is assumed to hold in the dry run.
    pub summary_tokens: u32,
    /// Runs the extractive replay and the offline checks on it (slower by far than the dry run).
    pub replay: bool,
}

impl Default for CorpusSettings {
    /// A 128,000-token window, the dry run's usual 150-token summary, the replay on.
    fn default() -> Self {
        CorpusSettings {
            window: 128_000,
            summary_tokens: ScheduleInput::uniform(0).summary_tokens,
            replay: true,
        }
    }
}

/// One conversation under one policy. Integers only, so that any split of the work gives the
/// same rows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// The file or import the conversation came from.
    pub source: String,
    /// The conversation's title or name; `index` is what tells two of one name apart.
    pub conversation: String,
    /// The conversation's place in its source, from 0.
    pub index: u32,
    /// The column's `id`.
    pub policy: String,
    pub turns: u32,
    pub summariser_calls: u32,
    /// Tokens of every chat request.
    pub chat_tokens: u64,
    /// Tokens sent to the summariser: the replay's requests when it ran, else the dry run's
    /// estimate.
    pub summariser_tokens_in: u64,
    /// Tokens the summaries hold: the replay's when it ran, else calls × the assumed size.
    pub summariser_tokens_out: u64,
    /// The largest chat request.
    pub largest_request: u64,
    /// Chat requests larger than the window.
    pub over_window: u32,
    /// Figures, names, dates and pinned facts of the folded turns that the replay's last
    /// edition no longer holds.
    pub facts_lost: u32,
    /// Rules of the folded turns that the last edition lost or weakened (kept words without
    /// their force are lost to the model that reads the summary).
    pub rules_lost: u32,
    /// Figures of the last edition that no archived message holds.
    pub unsourced_figures: u32,
}

impl Row {
    /// Tokens sent in all: every chat request and every summariser request.
    pub fn tokens_sent(&self) -> u64 {
        self.chat_tokens + self.summariser_tokens_in
    }
}

/// Why a conversation could not be measured: which one, under which policy, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file} [{index}] \"{conversation}\" under {policy}: {reason}")]
pub struct CorpusError {
    /// The row's `source`: the file or import.
    pub file: String,
    pub index: u32,
    pub conversation: String,
    pub policy: String,
    pub reason: String,
}

/// Every column on one conversation: the dry run, then (when `settings.replay`) the extractive
/// replay and the offline checks. One row per column, in column order.
pub fn measure(
    source: &str,
    index: u32,
    conversation: &Session,
    columns: &[Column],
    settings: &CorpusSettings,
    counter: &dyn CountTokens,
) -> Result<Vec<Row>, CorpusError> {
    // One reading of the conversation per counter the columns measure with.
    let mut played: Vec<Played> = Vec::new();
    columns
        .iter()
        .map(|column| {
            let by = column.policy.exact.counter;
            let at = match played.iter().position(|p| p.sizer.counter.counter() == by) {
                Some(at) => at,
                None => {
                    played.push(Played::of(conversation, settings, counter, by));
                    played.len() - 1
                }
            };
            let played = &played[at];
            let dry = played.dry_run(&column.policy, settings);
            let mut row = Row {
                source: source.to_owned(),
                conversation: conversation.name.clone(),
                index,
                policy: column.id.clone(),
                turns: played.input.turns,
                summariser_calls: dry.calls,
                chat_tokens: dry.chat_tokens,
                summariser_tokens_in: dry.summariser_in,
                summariser_tokens_out: dry.summariser_out,
                largest_request: dry.largest,
                over_window: dry.over_window,
                facts_lost: 0,
                rules_lost: 0,
                unsourced_figures: 0,
            };
            if settings.replay {
                replay_columns(&mut row, conversation, &column.policy, counter).map_err(
                    |reason| CorpusError {
                        file: source.to_owned(),
                        index,
                        conversation: conversation.name.clone(),
                        policy: column.id.clone(),
                        reason,
                    },
                )?;
            }
            Ok(row)
        })
        .collect()
}

/// Sorts rows into the order every CSV has: by source, then index, then the column order of
/// `columns` (a policy not among them last, by id). Rows of shards, concatenated in any order
/// and sorted, are the rows of the whole run.
pub fn sort_rows(rows: &mut [Row], columns: &[Column]) {
    let rank = |id: &str| {
        columns
            .iter()
            .position(|c| c.id == id)
            .unwrap_or(columns.len())
    };
    rows.sort_unstable_by(|a, b| {
        (
            a.source.as_str(),
            a.index,
            rank(&a.policy),
            a.policy.as_str(),
        )
            .cmp(&(
                b.source.as_str(),
                b.index,
                rank(&b.policy),
                b.policy.as_str(),
            ))
    });
}

/// What the dry run found for one column.
struct DryRun {
    calls: u32,
    chat_tokens: u64,
    summariser_in: u64,
    summariser_out: u64,
    largest: u64,
    over_window: u32,
}

/// A conversation's sizes, read once for every column.
struct Played<'a> {
    /// Turn sizes, for a policy of today's rules.
    input: ScheduleInput,
    /// Every message, for an exact policy.
    messages: Vec<PlayedMessage>,
    system_prompt: &'a str,
    sizer: CounterSizer<'a>,
}

impl<'a> Played<'a> {
    /// The conversation read with the run's `counter`, each message sized by `by`, the
    /// policy's counter ([`Counter::sized`]).
    fn of(
        session: &'a Session,
        settings: &CorpusSettings,
        counter: &'a dyn CountTokens,
        by: Counter,
    ) -> Played<'a> {
        let memory = &session.memory;
        let mut sizes: Vec<TurnSize> = Vec::new();
        let mut messages = Vec::new();
        for (i, m) in memory.archive().iter().enumerate() {
            if m.role == Role::System {
                continue;
            }
            // The same sums as Inspect's replay table (src/view/inspect.rs, `turn_sizes`).
            let turn = memory.turn_of(i).saturating_sub(1) as usize;
            if sizes.len() <= turn {
                sizes.resize(
                    turn + 1,
                    TurnSize {
                        user: 0,
                        assistant: 0,
                    },
                );
            }
            let tokens = by.sized(m, counter);
            match m.role {
                Role::User => sizes[turn].user += tokens,
                Role::Assistant | Role::Tool => sizes[turn].assistant += tokens,
                Role::System => {}
            }
            messages.push(PlayedMessage {
                role: m.role,
                tokens,
                chars: m.content.chars().count() as u32,
                calls: !m.calls.is_empty(),
            });
        }
        let system_prompt = memory.system_prompt();
        let system_tokens = crate::engine::schedule::system_tokens(system_prompt, by, counter);
        Played {
            input: ScheduleInput {
                turns: sizes.len() as u32,
                sizes,
                system_tokens,
                summary_tokens: settings.summary_tokens,
                summary_sizes: Vec::new(),
            },
            messages,
            system_prompt,
            sizer: CounterSizer {
                counter: CountedBy::new(by, counter),
                summary_tokens: settings.summary_tokens,
            },
        }
    }

    fn dry_run(&self, policy: &Policy, settings: &CorpusSettings) -> DryRun {
        if policy.exact.is_exact() {
            return self.dry_run_messages(policy, settings);
        }
        let free = peers::Prices::flat(0.0, 0.0);
        let outcome = peers::outcome("", policy, &self.input, settings.window, free);
        let chat_tokens = outcome.schedule.total_tokens;
        DryRun {
            calls: outcome.calls,
            chat_tokens,
            summariser_in: outcome.tokens_in - chat_tokens,
            summariser_out: u64::from(outcome.calls) * u64::from(settings.summary_tokens),
            largest: outcome.largest,
            over_window: outcome.over_window,
        }
    }

    /// An exact policy, message by message over the real messages. The summariser's requests
    /// are estimated as [`peers::outcome`] estimates them, from the messages each fold took.
    fn dry_run_messages(&self, policy: &Policy, settings: &CorpusSettings) -> DryRun {
        let run = crate::engine::schedule::schedule_messages(
            policy,
            &MessageInput {
                messages: self.messages.clone(),
                system_prompt: self.system_prompt,
                system_tokens: self.input.system_tokens,
                sizer: &self.sizer,
            },
        );
        let tokens = |range: std::ops::Range<usize>| -> u64 {
            self.messages[range]
                .iter()
                .map(|m| u64::from(m.tokens))
                .sum()
        };
        let mut summariser_in = 0u64;
        let (mut from, mut had_summary) = (0usize, false);
        for request in &run.requests {
            if request.from > from {
                let first = match policy.fold {
                    FoldMode::Progressive => from,
                    FoldMode::RebuildFromArchive => 0,
                };
                let old = if had_summary && policy.fold == FoldMode::Progressive {
                    u64::from(settings.summary_tokens)
                } else {
                    0
                };
                let to = request.from.min(self.messages.len());
                summariser_in += ASSUMED_PROMPT_TOKENS + old + tokens(first..to);
                had_summary = true;
                from = request.from;
            }
        }
        let window = u64::from(settings.window);
        DryRun {
            calls: run.calls,
            chat_tokens: run.requests.iter().map(|r| r.tokens).sum(),
            summariser_in,
            summariser_out: u64::from(run.calls) * u64::from(settings.summary_tokens),
            largest: run.requests.iter().map(|r| r.tokens).max().unwrap_or(0),
            over_window: run.requests.iter().filter(|r| r.tokens > window).count() as u32,
        }
    }
}

/// The message-level dry run's sizer: texts counted by the run's counter as the policy's
/// counter measures them, and each summary `summary_tokens` one-token words.
struct CounterSizer<'a> {
    counter: CountedBy<'a>,
    summary_tokens: u32,
}

impl Sizer for CounterSizer<'_> {
    fn tokens(&self, text: &str) -> u32 {
        self.counter.count(text)
    }

    fn summary(&self, _call: u32) -> String {
        vec!["w"; self.summary_tokens as usize].join(" ")
    }
}

/// Fills the replay's columns of `row`: the extractive replay of `session` under `policy`, and
/// the offline checks on its last edition. A conversation with nothing to replay keeps zeros.
fn replay_columns(
    row: &mut Row,
    session: &Session,
    policy: &Policy,
    counter: &dyn CountTokens,
) -> Result<(), String> {
    let (replayed, progress) =
        match replay_extractive(session, policy.clone(), counter, session.name.clone()) {
            Ok(done) => done,
            Err(ReplayError::Empty) => return Ok(()),
            Err(e) => return Err(e.to_string()),
        };
    let tokens = progress.tokens.unwrap_or_default();
    row.summariser_tokens_in = tokens.sent;
    row.summariser_tokens_out = tokens.received;
    let memory = &replayed.memory;
    let Some(last) = memory.editions().last() else {
        return Ok(());
    };
    // The last edition's inputs as `view::editions::edition_checks` gives them: the messages
    // archived by its time, and the messages of every turn folded by then.
    let folded_to = memory
        .editions()
        .iter()
        .filter_map(|e| e.folded.map(|r| r.last))
        .max()
        .unwrap_or(0);
    let folded = (0..memory.archive().len())
        .take_while(|&i| memory.turn_of(i) <= folded_to)
        .count();
    let archived = memory
        .archive()
        .iter()
        .take_while(|m| m.at_ms <= last.at_ms)
        .count();
    let archive: Vec<&str> = memory
        .archive()
        .iter()
        .map(|m| m.content.as_str())
        .collect();
    let input = EditionInput {
        text: &last.summary,
        archived: archived.max(folded),
        folded,
        word_limit: last.word_limit,
    };
    let Some(checks) = check_editions(&archive, &[input], &replayed.pinned).pop() else {
        return Ok(());
    };
    let survival = &checks.survival;
    row.facts_lost = [&survival.figures, &survival.names, &survival.dates]
        .iter()
        .map(|kind| kind.missing().count() as u32)
        .sum();
    row.rules_lost = checks
        .rules
        .iter()
        .filter(|c| c.verdict != Verdict::Kept)
        .count() as u32;
    row.unsourced_figures = checks.unsourced.len() as u32;
    Ok(())
}
