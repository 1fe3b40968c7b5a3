//! Inspect's corpus comparison as the page draws it (its progress is every run's,
//! `view::run`): one table line per policy (totals and cost at the prices typed), the
//! distribution over the conversations with the worst one, and the chart's bars, all computed
//! from the run's summaries (the shell summarises one policy per task,
//! `engine::corpus::summarise`); the picker's import groups.

use crate::app::corpus::pick::ImportGroup;
use crate::engine::corpus::{Prices, Summary};
use crate::engine::run::Progress;

/// One policy's line of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyLine {
    /// The column's id: the `data-policy` value.
    pub policy: String,
    pub label: String,
    pub calls: u64,
    pub chat_tokens: u64,
    pub summariser_tokens: u64,
    pub tokens_sent: u64,
    pub largest_request: u64,
    pub over_window: u64,
    /// The estimated cost at the prices typed, in dollars, two decimals.
    pub cost: String,
    pub facts_lost: u64,
    pub rules_lost: u64,
    pub unsourced_figures: u64,
    /// Per metric, the distribution over the conversations.
    pub spread: Vec<Spread>,
}

/// One metric over the conversations of one policy.
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    pub metric: &'static str,
    pub median: u64,
    pub p90: u64,
    pub worst: u64,
    /// The worst conversation: its source, its index there and its name.
    pub worst_at: Option<(String, u32, String)>,
}

/// One bar of the chart: tokens sent per policy, as a share of the largest.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub label: String,
    pub tokens: u64,
    /// Percent of the widest bar, 0 to 100.
    pub percent: f64,
}

/// The table, the chart and the CSV of a run's rows.
#[derive(Clone, Debug, PartialEq)]
pub struct CorpusTable {
    pub lines: Vec<PolicyLine>,
    pub bars: Vec<Bar>,
    /// The sentence above a table of part of the corpus; `None` when it covers all of it.
    pub partial: Option<String>,
}

/// The table of a run's `summaries` (one per policy, of every conversation done), at `prices`.
pub fn table(summaries: &[Summary], prices: &Prices, progress: Progress) -> CorpusTable {
    let lines: Vec<PolicyLine> = summaries.iter().map(|s| line(s, prices)).collect();
    let widest = lines
        .iter()
        .map(|l| l.tokens_sent)
        .max()
        .unwrap_or(0)
        .max(1);
    let bars = lines
        .iter()
        .map(|l| Bar {
            label: l.label.clone(),
            tokens: l.tokens_sent,
            percent: l.tokens_sent as f64 * 100.0 / widest as f64,
        })
        .collect();
    let partial = progress.total.filter(|&t| progress.done < t).map(|total| {
        format!(
            "Stopped: this table covers {} of the {} conversations, the ones done before Stop.",
            grouped(progress.done),
            grouped(total)
        )
    });
    CorpusTable {
        lines,
        bars,
        partial,
    }
}

/// The picker's words for one import: `All 1,000 from sharegpt.json, imported 08:31`, in the
/// local time of `offset_minutes` east of UTC, with the date when it was not on the day of
/// `now_ms`.
pub fn import_label(group: &ImportGroup, now_ms: u64, offset_minutes: i32) -> String {
    let local = |ms: u64| {
        let offset = time::UtcOffset::from_whole_seconds(offset_minutes.saturating_mul(60))
            .unwrap_or(time::UtcOffset::UTC);
        time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
            .map(|t| t.to_offset(offset))
            .ok()
    };
    let when = match (local(group.imported_ms), local(now_ms)) {
        (Some(at), Some(now)) => {
            let clock = format!("{:02}:{:02}", at.hour(), at.minute());
            if at.date() == now.date() {
                clock
            } else {
                format!(
                    "{}-{:02}-{:02} {clock}",
                    at.year(),
                    u8::from(at.month()),
                    at.day()
                )
            }
        }
        _ => "at an unknown time".to_owned(),
    };
    let all = if group.count == 1 {
        "The 1 session".to_owned()
    } else {
        format!("All {}", grouped(group.count as u64))
    };
    format!("{all} from {}, imported {when}", group.file)
}

pub use super::run::grouped;

fn line(summary: &Summary, prices: &Prices) -> PolicyLine {
    let t = &summary.totals;
    PolicyLine {
        policy: summary.policy.clone(),
        label: summary.label.clone(),
        calls: t.summariser_calls,
        chat_tokens: t.chat_tokens,
        summariser_tokens: t.summariser_tokens_in,
        tokens_sent: t.tokens_sent(),
        largest_request: t.largest_request,
        over_window: t.over_window,
        cost: format!("${:.2}", prices.cost_totals(t)),
        facts_lost: t.facts_lost,
        rules_lost: t.rules_lost,
        unsourced_figures: t.unsourced_figures,
        spread: summary
            .distributions
            .iter()
            .map(|d| Spread {
                metric: d.metric.label(),
                median: d.median,
                p90: d.p90,
                worst: d.worst,
                worst_at: d.worst_at.clone(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::engine::corpus::{Column, CorpusSettings, Row, measure, summarise};
    use crate::engine::message::WordCounter;
    use crate::engine::run::Unit;
    use crate::engine::session::fixture::verbatim;

    #[test]
    fn the_table_has_a_line_per_policy_and_says_when_it_covers_part_of_the_corpus() {
        let columns = vec![
            Column::preset("langchain-summary-buffer", 3_000).unwrap(),
            Column::preset("claude-code", 3_000).unwrap(),
        ];
        let settings = CorpusSettings {
            window: 3_000,
            summary_tokens: 150,
            replay: false,
        };
        let rows: Vec<Row> = [30, 80]
            .into_iter()
            .enumerate()
            .flat_map(|(i, n)| {
                measure(
                    "library",
                    i as u32,
                    &verbatim(n),
                    &columns,
                    &settings,
                    &WordCounter,
                )
                .unwrap()
            })
            .collect();
        let free = Prices {
            chat_in_per_mtok: 0.0,
            summary_in_per_mtok: 0.0,
            summary_out_per_mtok: 0.0,
        };
        let summaries = summarise(&rows, &columns);
        let t = table(&summaries, &free, Progress::of(Unit::Conversation, 2, 5));
        assert_eq!(
            t.lines
                .iter()
                .map(|l| l.policy.as_str())
                .collect::<Vec<_>>(),
            ["langchain-summary-buffer", "claude-code"]
        );
        assert_eq!(t.lines[0].cost, "$0.00");
        let sent: u64 = rows[..]
            .iter()
            .filter(|r| r.policy == "claude-code")
            .map(Row::tokens_sent)
            .sum();
        assert_eq!(t.lines[1].tokens_sent, sent);
        assert!(t.bars.iter().any(|b| b.percent == 100.0));
        assert_eq!(
            t.partial.as_deref(),
            Some("Stopped: this table covers 2 of the 5 conversations, the ones done before Stop.")
        );
        // The worst conversation by tokens sent is the longer one, named and indexed.
        let worst = t.lines[0]
            .spread
            .iter()
            .find(|d| d.metric == crate::engine::corpus::Metric::TokensSent.label())
            .unwrap();
        assert_eq!(worst.worst_at.as_ref().map(|w| w.1), Some(1));
        assert_eq!(
            table(&summaries, &free, Progress::of(Unit::Conversation, 2, 2)).partial,
            None
        );
    }

    #[test]
    fn an_import_is_offered_by_its_size_file_and_local_time() {
        // 2026-12-02 08:31 UTC.
        let at = 1_796_200_260_000;
        let group = ImportGroup {
            file: "sharegpt.json".into(),
            imported_ms: at,
            count: 1000,
        };
        assert_eq!(
            import_label(&group, at + 60_000, 0),
            "All 1,000 from sharegpt.json, imported 08:31"
        );
        // An hour east of UTC, and a day later.
        assert_eq!(
            import_label(&group, at + 86_400_000, 60),
            "All 1,000 from sharegpt.json, imported 2026-12-02 09:31"
        );
        let one = ImportGroup { count: 1, ..group };
        assert_eq!(
            import_label(&one, at, -120),
            "The 1 session from sharegpt.json, imported 06:31"
        );
    }
}
