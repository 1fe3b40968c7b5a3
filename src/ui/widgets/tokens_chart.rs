//! `TokensChart`: tokens sent per request for the full history, a sliding window and summary
//! memory, drawn as lines by the Tuner (its simulated run) and by Inspect (a session's replay);
//! and `ChartLines`, the chart's `<svg>`, which the Tuner's policy comparison draws too.

use leptos::prelude::*;

use crate::engine::compare::{CompareRow, Comparison};
use crate::view::chart::{LineChart, Series};

/// Tokens sent per request for the full history, a sliding window and summary memory, as lines;
/// the Tuner draws its simulated run with it, Inspect a session's replay.
#[component]
pub(crate) fn TokensChart(comparison: Comparison, #[prop(into)] caption: String) -> impl IntoView {
    let series = |label, class, value: fn(&CompareRow) -> u64| Series {
        label,
        class,
        values: comparison.rows.iter().map(|r| value(r) as f64).collect(),
    };
    let chart = LineChart::new(
        vec![
            series("full history", "full", |r| r.full_tokens),
            series("sliding window", "window", |r| r.window_tokens),
            series("summary memory", "summary", |r| r.summary_tokens),
        ],
        chart_width(),
        260.0,
    );
    view! {
        <figure class="chart">
            <ChartLines chart=chart.clone()
                label="Tokens sent per request: full history, sliding window and summary memory" />
            <figcaption>
                {chart.lines.iter().map(|(series, _)| view! {
                    <span class=series.key_class()>{series.label}</span>
                }).collect_view()}
                {caption}
            </figcaption>
        </figure>
    }
}

/// The `<svg>` of a laid-out line chart: its grid, tick labels and one polyline a series. The
/// caller wraps it in its own `<figure>` with its own key and caption.
#[component]
pub(crate) fn ChartLines(chart: LineChart, label: &'static str) -> impl IntoView {
    view! {
        <svg viewBox=chart.view_box() role="img" aria-label=label>
            {chart.ticks.iter().map(|(y, label)| view! {
                <line class="grid" x1="48" x2=chart.width.to_string() y1=y.to_string() y2=y.to_string() />
                <text class="tick" x="42" y=(y + 4.0).to_string() text-anchor="end">{label.clone()}</text>
            }).collect_view()}
            {chart.lines.iter().map(|(series, points)| view! {
                <polyline class=series.line_class() points=points.clone() fill="none" />
            }).collect_view()}
            <text class="tick axis" x="42" y=(chart.height - 6.0).to_string() text-anchor="end">"turn"</text>
            {chart.turn_ticks.iter().map(|(x, label)| view! {
                <text class="tick" x=x.to_string() y=(chart.height - 6.0).to_string() text-anchor="middle">{label.clone()}</text>
            }).collect_view()}
        </svg>
    }
}

/// The width to lay a chart out at: the page's content width when the chart is drawn, so its
/// 11 px labels are 11 px on a phone too (a 960-wide view box shrank them to about 4 px at
/// 390 px). A window resized later scales the drawing, as an image would.
pub(crate) fn chart_width() -> f64 {
    let window = web_sys::window().and_then(|w| w.inner_width().ok()?.as_f64());
    // The body's side padding and the panel's own, less than the page gives at any width.
    window.map_or(960.0, |w| (w - 48.0).clamp(280.0, 960.0))
}
