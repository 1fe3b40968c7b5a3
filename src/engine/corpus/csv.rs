//! The two CSVs the page and the command-line tool both write, byte for byte (RFC 4180: one
//! header line, CRLF line ends, a field quoted when it holds a comma, a quote or a line end,
//! its quotes doubled), as the Tuner's comparison CSV is written ([`crate::engine::peers::to_csv`]).

use super::Row;
use super::summary::{Metric, Prices, Summary};

/// The header of [`rows_csv`].
pub const ROWS_HEADER: &str = "source,index,conversation,policy,turns,summariser_calls,chat_tokens,summariser_tokens_in,summariser_tokens_out,largest_request,over_window,facts_lost,rules_lost,unsourced_figures";

/// The header of [`summary_csv`]: the policy, the totals, the cost, then per metric its median,
/// p90, worst and the worst conversation (source, index).
pub const SUMMARY_HEADER: &str = "policy,label,conversations,turns,summariser_calls,chat_tokens,summariser_tokens_in,summariser_tokens_out,tokens_sent,largest_request,over_window,facts_lost,rules_lost,unsourced_figures,estimated_cost";

/// One line per row, in the order given (sort with [`super::sort_rows`] first).
pub fn rows_csv(rows: &[Row]) -> String {
    let mut out = String::with_capacity(64 * (rows.len() + 1));
    out.push_str(ROWS_HEADER);
    out.push_str("\r\n");
    for r in rows {
        let line = [
            quote(&r.source),
            r.index.to_string(),
            quote(&r.conversation),
            quote(&r.policy),
            r.turns.to_string(),
            r.summariser_calls.to_string(),
            r.chat_tokens.to_string(),
            r.summariser_tokens_in.to_string(),
            r.summariser_tokens_out.to_string(),
            r.largest_request.to_string(),
            r.over_window.to_string(),
            r.facts_lost.to_string(),
            r.rules_lost.to_string(),
            r.unsourced_figures.to_string(),
        ];
        out.push_str(&line.join(","));
        out.push_str("\r\n");
    }
    out
}

/// One line per policy: its totals, their cost under `prices` (four decimals), and each
/// metric's distribution.
pub fn summary_csv(summaries: &[Summary], prices: &Prices) -> String {
    let mut out = String::from(SUMMARY_HEADER);
    for metric in Metric::ALL {
        let m = metric.slug();
        out.push_str(&format!(
            ",{m}_median,{m}_p90,{m}_worst,{m}_worst_source,{m}_worst_index"
        ));
    }
    out.push_str("\r\n");
    for s in summaries {
        let t = &s.totals;
        let mut fields = vec![
            quote(&s.policy),
            quote(&s.label),
            t.conversations.to_string(),
            t.turns.to_string(),
            t.summariser_calls.to_string(),
            t.chat_tokens.to_string(),
            t.summariser_tokens_in.to_string(),
            t.summariser_tokens_out.to_string(),
            t.tokens_sent().to_string(),
            t.largest_request.to_string(),
            t.over_window.to_string(),
            t.facts_lost.to_string(),
            t.rules_lost.to_string(),
            t.unsourced_figures.to_string(),
            format!("{:.4}", prices.cost_totals(t)),
        ];
        for metric in Metric::ALL {
            let d = s.of(metric);
            fields.push(d.map_or(0, |d| d.median).to_string());
            fields.push(d.map_or(0, |d| d.p90).to_string());
            fields.push(d.map_or(0, |d| d.worst).to_string());
            let at = d.and_then(|d| d.worst_at.as_ref());
            fields.push(at.map_or(String::new(), |(source, _, _)| quote(source)));
            fields.push(at.map_or(String::new(), |(_, index, _)| index.to_string()));
        }
        out.push_str(&fields.join(","));
        out.push_str("\r\n");
    }
    out
}

/// A field as RFC 4180 writes it.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}
