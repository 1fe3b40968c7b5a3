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
}

/// Left margin for the tick labels, and the margins around the plot.
pub const MARGIN_LEFT: f64 = 48.0;
pub const MARGIN: f64 = 8.0;

impl LineChart {
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
    let plot = height - 2.0 * MARGIN;
    if max <= 0.0 {
        height - MARGIN
    } else {
        height - MARGIN - plot * value / max
    }
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
        assert_eq!(p, "48.0,108.0 144.0,58.0 240.0,8.0");
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
}
