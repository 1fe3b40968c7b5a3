//! Geometry for the plain-SVG line charts: scaling series into a view box, and tick values.

/// One line of a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: &'static str,
    /// A CSS class that gives the line its colour.
    pub class: &'static str,
    pub values: Vec<f64>,
}

/// A chart laid out in a `width` × `height` view box, with room on the left for tick labels.
#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    pub width: f64,
    pub height: f64,
    pub max: f64,
    pub lines: Vec<(Series, String)>,
    pub ticks: Vec<(f64, String)>,
    /// The x axis: (x, turn number) under the plot, a round step apart and never closer than
    /// [`TURN_LABEL_GAP`], the first turn always among them.
    pub turn_ticks: Vec<(f64, String)>,
}

/// Left margin for the tick labels, and the margins around the plot.
pub const MARGIN_LEFT: f64 = 48.0;
pub const MARGIN: f64 = 8.0;
/// Room under the plot for the turn numbers.
pub const MARGIN_BOTTOM: f64 = 22.0;
/// The least distance between two turn numbers, in view-box units (CSS pixels when the chart
/// is drawn at its real width).
pub const TURN_LABEL_GAP: f64 = 36.0;

impl Series {
    /// The class of its key in a chart's caption, e.g. `key a`: the line's colour.
    pub fn key_class(&self) -> String {
        format!("key {}", self.class)
    }

    /// The class of its polyline, e.g. `line a`: the line's colour.
    pub fn line_class(&self) -> String {
        format!("line {}", self.class)
    }
}

impl LineChart {
    /// The `<svg>`'s `viewBox`, e.g. `0 0 960 260`.
    pub fn view_box(&self) -> String {
        format!("0 0 {} {}", self.width, self.height)
    }

    pub fn new(series: Vec<Series>, width: f64, height: f64) -> LineChart {
        let max = series
            .iter()
            .flat_map(|s| s.values.iter().copied())
            .fold(0.0_f64, f64::max);
        let max = nice_ceiling(max);
        let ticks = (0..=4)
            .map(|i| {
                let value = max * f64::from(i) / 4.0;
                (y_of(value, max, height), format_tokens(value))
            })
            .collect();
        let turns = series.iter().map(|s| s.values.len()).max().unwrap_or(0);
        let turn_ticks = turn_ticks(turns, width);
        let lines = series
            .into_iter()
            .map(|s| {
                let points = points(&s.values, max, width, height);
                (s, points)
            })
            .collect();
        LineChart {
            width,
            height,
            max,
            lines,
            ticks,
            turn_ticks,
        }
    }
}

/// The `points` attribute of an SVG polyline for `values`, first value at the left edge.
pub fn points(values: &[f64], max: f64, width: f64, height: f64) -> String {
    let span = (values.len().max(2) - 1) as f64;
    let plot_width = width - MARGIN_LEFT - MARGIN;
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let x = MARGIN_LEFT + plot_width * i as f64 / span;
            format!("{x:.1},{:.1}", y_of(*v, max, height))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn y_of(value: f64, max: f64, height: f64) -> f64 {
    let plot = height - MARGIN - MARGIN_BOTTOM;
    if max <= 0.0 {
        height - MARGIN_BOTTOM
    } else {
        height - MARGIN_BOTTOM - plot * value / max
    }
}

/// The turn numbers under a plot of `turns` points drawn `width` wide: every turn when they fit,
/// else every 2nd, 5th, 10th, 20th... (and the first).
fn turn_ticks(turns: usize, width: f64) -> Vec<(f64, String)> {
    if turns == 0 {
        return Vec::new();
    }
    let span = (turns.max(2) - 1) as f64;
    let plot_width = width - MARGIN_LEFT - MARGIN;
    let per_turn = plot_width / span;
    let step = [1, 2, 5]
        .into_iter()
        .cycle()
        .zip((0..).flat_map(|e| std::iter::repeat_n(10_usize.pow(e), 3)))
        .map(|(m, p)| m * p)
        .find(|&step| per_turn * step as f64 >= TURN_LABEL_GAP || step >= turns)
        .unwrap_or(turns);
    (0..turns)
        .filter(|&i| i == 0 || (i + 1) % step == 0)
        .filter(|&i| i == 0 || per_turn * i as f64 >= TURN_LABEL_GAP * 0.75)
        .map(|i| {
            (
                MARGIN_LEFT + plot_width * i as f64 / span,
                (i + 1).to_string(),
            )
        })
        .collect()
}

/// The smallest 1, 2 or 5 × 10ⁿ at or above `value`, so ticks land on round numbers.
pub fn nice_ceiling(value: f64) -> f64 {
    if value <= 0.0 {
        return 1.0;
    }
    let magnitude = 10f64.powf(value.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|step| step * magnitude)
        .find(|candidate| *candidate >= value)
        .unwrap_or(10.0 * magnitude)
}

/// Token counts as people read them: 950, 12.5k, 1.2M.
pub fn format_tokens(value: f64) -> String {
    if value >= 1_000_000.0 {
        format!("{:.1}M", value / 1_000_000.0)
    } else if value >= 10_000.0 {
        format!("{:.0}k", value / 1_000.0)
    } else if value >= 1_000.0 {
        format!("{:.1}k", value / 1_000.0)
    } else {
        format!("{value:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceilings_are_round() {
        for (value, expect) in [
            (0.0, 1.0),
            (7.0, 10.0),
            (11.0, 20.0),
            (240.0, 250.0),
            (2600.0, 5000.0),
            (1000.0, 1000.0),
        ] {
            assert_eq!(nice_ceiling(value), expect, "{value}");
        }
    }

    #[test]
    fn points_span_the_plot_and_scale_to_the_maximum() {
        let p = points(&[0.0, 50.0, 100.0], 100.0, 248.0, 116.0);
        assert_eq!(p, "48.0,94.0 144.0,51.0 240.0,8.0");
    }

    #[test]
    fn token_labels_are_short() {
        assert_eq!(format_tokens(950.0), "950");
        assert_eq!(format_tokens(1_240.0), "1.2k");
        assert_eq!(format_tokens(12_400.0), "12k");
        assert_eq!(format_tokens(3_400_000.0), "3.4M");
    }

    #[test]
    fn a_chart_has_five_ticks_from_zero_to_the_ceiling() {
        let chart = LineChart::new(
            vec![Series {
                label: "a",
                class: "a",
                values: vec![10.0, 90.0],
            }],
            248.0,
            116.0,
        );
        assert_eq!(chart.max, 100.0);
        let labels: Vec<_> = chart.ticks.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["0", "25", "50", "75", "100"]);
    }

    // The charts had no turn numbers on their x axis.
    #[test]
    fn the_x_axis_numbers_the_turns_a_readable_gap_apart() {
        let series = |n: usize| {
            vec![Series {
                label: "",
                class: "",
                values: vec![1.0; n],
            }]
        };
        let labels = |chart: &LineChart| -> Vec<String> {
            chart.turn_ticks.iter().map(|(_, l)| l.clone()).collect()
        };
        let wide = LineChart::new(series(10), 960.0, 260.0);
        assert_eq!(
            labels(&wide),
            (1..=10).map(|t| t.to_string()).collect::<Vec<_>>()
        );
        // At a phone's width 40 turns are numbered every 5th, a readable gap apart.
        let narrow = LineChart::new(series(40), 340.0, 260.0);
        assert_eq!(labels(&narrow)[..3], ["1", "5", "10"]);
        for pair in narrow.turn_ticks.windows(2) {
            assert!(pair[1].0 - pair[0].0 >= TURN_LABEL_GAP * 0.75, "{pair:?}");
        }
        assert!(
            LineChart::new(series(0), 960.0, 260.0)
                .turn_ticks
                .is_empty()
        );
    }

    #[test]
    fn a_key_takes_its_lines_colour() {
        let series = Series {
            label: "Your policy",
            class: "a",
            values: vec![1.0],
        };
        assert_eq!(series.key_class(), "key a");
        let plain = Series {
            class: "",
            ..series
        };
        assert_eq!(plain.key_class(), "key ");
    }

    #[test]
    fn a_line_takes_its_series_colour_and_the_view_box_its_size() {
        let chart = LineChart::new(
            vec![Series {
                label: "summary memory",
                class: "summary",
                values: vec![1.0, 2.0],
            }],
            960.0,
            260.0,
        );
        assert_eq!(chart.lines[0].0.line_class(), "line summary");
        assert_eq!(chart.view_box(), "0 0 960 260");
        let narrow = LineChart::new(vec![], 342.5, 260.0);
        assert_eq!(narrow.view_box(), "0 0 342.5 260");
    }
}
