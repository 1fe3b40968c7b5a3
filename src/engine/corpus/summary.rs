//! Per policy, what the corpus adds up to: the totals (sums, the largest request a maximum),
//! and per metric the distribution over the conversations (median, p90, worst and which
//! conversation is worst). Percentiles are by nearest rank on the sorted values, integers
//! only, so any split of the rows summarises to the same values.

use serde::{Deserialize, Serialize};

use super::{Column, Row};

/// A per-conversation number the distribution is taken of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Metric {
    SummariserCalls,
    /// Chat requests plus summariser requests.
    TokensSent,
    LargestRequest,
    OverWindow,
    FactsLost,
    RulesLost,
    UnsourcedFigures,
}

impl Metric {
    /// Every metric, in the table's order.
    pub const ALL: [Metric; 7] = [
        Metric::SummariserCalls,
        Metric::TokensSent,
        Metric::LargestRequest,
        Metric::OverWindow,
        Metric::FactsLost,
        Metric::RulesLost,
        Metric::UnsourcedFigures,
    ];

    /// A stable slug: the page's `data-metric` and the summary CSV's column prefix.
    pub fn slug(self) -> &'static str {
        match self {
            Metric::SummariserCalls => "summariser_calls",
            Metric::TokensSent => "tokens_sent",
            Metric::LargestRequest => "largest_request",
            Metric::OverWindow => "over_window",
            Metric::FactsLost => "facts_lost",
            Metric::RulesLost => "rules_lost",
            Metric::UnsourcedFigures => "unsourced_figures",
        }
    }

    /// The words the table heads the metric with.
    pub fn label(self) -> &'static str {
        match self {
            Metric::SummariserCalls => "Summariser calls",
            Metric::TokensSent => "Tokens sent (chat + summariser)",
            Metric::LargestRequest => "Largest request",
            Metric::OverWindow => "Requests over the window",
            Metric::FactsLost => "Facts lost",
            Metric::RulesLost => "Rules lost",
            Metric::UnsourcedFigures => "Unsourced figures",
        }
    }

    /// The metric's value on one row.
    pub fn of(self, row: &Row) -> u64 {
        match self {
            Metric::SummariserCalls => u64::from(row.summariser_calls),
            Metric::TokensSent => row.tokens_sent(),
            Metric::LargestRequest => row.largest_request,
            Metric::OverWindow => u64::from(row.over_window),
            Metric::FactsLost => u64::from(row.facts_lost),
            Metric::RulesLost => u64::from(row.rules_lost),
            Metric::UnsourcedFigures => u64::from(row.unsourced_figures),
        }
    }
}

/// Sums over a set of rows of one policy; `largest_request` is their maximum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    pub conversations: u32,
    pub turns: u64,
    pub summariser_calls: u64,
    pub chat_tokens: u64,
    pub summariser_tokens_in: u64,
    pub summariser_tokens_out: u64,
    pub largest_request: u64,
    pub over_window: u64,
    pub facts_lost: u64,
    pub rules_lost: u64,
    pub unsourced_figures: u64,
}

impl Totals {
    /// The totals of `rows` (of one policy).
    pub fn of<'a>(rows: impl IntoIterator<Item = &'a Row>) -> Totals {
        rows.into_iter()
            .fold(Totals::default(), |t, r| t + Totals::row(r))
    }

    /// One row as totals.
    pub fn row(r: &Row) -> Totals {
        Totals {
            conversations: 1,
            turns: u64::from(r.turns),
            summariser_calls: u64::from(r.summariser_calls),
            chat_tokens: r.chat_tokens,
            summariser_tokens_in: r.summariser_tokens_in,
            summariser_tokens_out: r.summariser_tokens_out,
            largest_request: r.largest_request,
            over_window: u64::from(r.over_window),
            facts_lost: u64::from(r.facts_lost),
            rules_lost: u64::from(r.rules_lost),
            unsourced_figures: u64::from(r.unsourced_figures),
        }
    }

    /// Tokens sent in all: chat plus summariser.
    pub fn tokens_sent(&self) -> u64 {
        self.chat_tokens + self.summariser_tokens_in
    }
}

impl std::ops::Add for Totals {
    type Output = Totals;

    /// The totals of two disjoint sets of rows: the aggregate is the sum of its parts.
    fn add(self, o: Totals) -> Totals {
        Totals {
            conversations: self.conversations + o.conversations,
            turns: self.turns + o.turns,
            summariser_calls: self.summariser_calls + o.summariser_calls,
            chat_tokens: self.chat_tokens + o.chat_tokens,
            summariser_tokens_in: self.summariser_tokens_in + o.summariser_tokens_in,
            summariser_tokens_out: self.summariser_tokens_out + o.summariser_tokens_out,
            largest_request: self.largest_request.max(o.largest_request),
            over_window: self.over_window + o.over_window,
            facts_lost: self.facts_lost + o.facts_lost,
            rules_lost: self.rules_lost + o.rules_lost,
            unsourced_figures: self.unsourced_figures + o.unsourced_figures,
        }
    }
}

/// One metric over the conversations of one policy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distribution {
    pub metric: Metric,
    pub median: u64,
    pub p90: u64,
    pub worst: u64,
    /// The conversation with the worst value (the first in row order among equals), as
    /// `(source, index, conversation)`; `None` over no rows.
    pub worst_at: Option<(String, u32, String)>,
}

/// One policy over the corpus.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// The column's `id`.
    pub policy: String,
    pub label: String,
    pub totals: Totals,
    /// One per [`Metric::ALL`], in that order.
    pub distributions: Vec<Distribution>,
}

impl Summary {
    /// The distribution of `metric`.
    pub fn of(&self, metric: Metric) -> Option<&Distribution> {
        self.distributions.iter().find(|d| d.metric == metric)
    }
}

/// Per column (in column order), the totals and distributions of its rows. The rows may come in
/// any order: the result depends only on which rows there are.
pub fn summarise(rows: &[Row], columns: &[Column]) -> Vec<Summary> {
    columns
        .iter()
        .map(|column| {
            let mut mine: Vec<&Row> = rows.iter().filter(|r| r.policy == column.id).collect();
            mine.sort_unstable_by(|a, b| {
                (a.source.as_str(), a.index).cmp(&(b.source.as_str(), b.index))
            });
            Summary {
                policy: column.id.clone(),
                label: column.label.clone(),
                totals: Totals::of(mine.iter().copied()),
                distributions: Metric::ALL
                    .iter()
                    .map(|&metric| distribution(metric, &mine))
                    .collect(),
            }
        })
        .collect()
}

/// The value at nearest rank `ceil(p/100 × n)` of `sorted` (ascending, not empty).
fn rank(sorted: &[u64], percent: u64) -> u64 {
    let n = sorted.len() as u64;
    let at = (percent * n).div_ceil(100).max(1);
    sorted[(at - 1) as usize]
}

fn distribution(metric: Metric, rows: &[&Row]) -> Distribution {
    let mut values: Vec<u64> = rows.iter().map(|r| metric.of(r)).collect();
    // The first row of the largest value: `max_by_key` keeps the last, so it runs reversed.
    let worst_row = rows.iter().rev().max_by_key(|r| metric.of(r));
    values.sort_unstable();
    if values.is_empty() {
        return Distribution {
            metric,
            median: 0,
            p90: 0,
            worst: 0,
            worst_at: None,
        };
    }
    Distribution {
        metric,
        median: rank(&values, 50),
        p90: rank(&values, 90),
        worst: *values.last().expect("not empty"),
        worst_at: worst_row.map(|r| (r.source.clone(), r.index, r.conversation.clone())),
    }
}

pub use crate::engine::run::Prices;

/// The corpus's costs, at the one table of prices.
impl Prices {
    /// What one conversation's requests cost under one policy.
    pub fn cost(&self, row: &Row) -> f64 {
        self.of(
            row.chat_tokens,
            row.summariser_tokens_in,
            row.summariser_tokens_out,
        )
    }

    /// What a policy's requests cost over the corpus.
    pub fn cost_totals(&self, totals: &Totals) -> f64 {
        self.of(
            totals.chat_tokens,
            totals.summariser_tokens_in,
            totals.summariser_tokens_out,
        )
    }
}
