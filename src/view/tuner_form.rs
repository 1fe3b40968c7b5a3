//! The Tuner's small words, hooks and classes, as the tab draws them: the price fields (their
//! hooks and labels; what they hold and what is wrong is [`crate::app::tuner::TunerForm`]'s),
//! the id of a field's error, a model's option under the window trigger, the comparison's colour
//! classes per row and its cost, and what a schedule row's reply leads to.

use crate::engine::models::ModelWindow;
use crate::engine::schedule::ScheduleRow;
use crate::view::tuner::Compared;

/// A price field as the tab draws it; its text and error are the form's, by `name`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PriceField {
    /// The form's name ([`crate::app::tuner::PRICE_FIELDS`]).
    pub name: &'static str,
    pub testid: &'static str,
    pub label: &'static str,
}

/// The two price fields, input then output.
pub const PRICE_FIELDS: [PriceField; 2] = [
    PriceField {
        name: "price_in",
        testid: "price-in",
        label: "Input price ($ per million tokens)",
    },
    PriceField {
        name: "price_out",
        testid: "price-out",
        label: "Output price ($ per million tokens)",
    },
];

/// The id of the error said under field `param`, which its input is described by.
pub fn field_error_id(param: &str) -> String {
    format!("tuner-{param}-error")
}

/// A model's option under the window trigger: the model (and the others with its window),
/// and the window.
pub fn model_window_label(m: &ModelWindow) -> String {
    if m.also.is_empty() {
        format!("{} ({} tokens)", m.model, m.context)
    } else {
        format!("{}, {} ({} tokens)", m.model, m.also.join(", "), m.context)
    }
}

/// Colour classes of the comparison chart's lines, in order (www/style.css).
const SERIES_CLASSES: [&str; 9] = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"];
/// The same colours, dashed: a preset whose line lies exactly on this policy's is drawn over it
/// with gaps, so both show.
const SAME_CLASSES: [&str; 9] = [
    "p0 same", "p1 same", "p2 same", "p3 same", "p4 same", "p5 same", "p6 same", "p7 same",
    "p8 same",
];
/// The table's colour keys, one per line class above.
const KEY_CLASSES: [&str; 9] = [
    "key p0", "key p1", "key p2", "key p3", "key p4", "key p5", "key p6", "key p7", "key p8",
];
const SAME_KEY_CLASSES: [&str; 9] = [
    "key p0 same",
    "key p1 same",
    "key p2 same",
    "key p3 same",
    "key p4 same",
    "key p5 same",
    "key p6 same",
    "key p7 same",
    "key p8 same",
];

/// One compared row's colour: its line's class in the chart, and its key's in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowColour {
    pub line: &'static str,
    pub key: &'static str,
}

/// Each row's colour, in order, the colours starting over after nine; a row with this
/// policy's schedule is dashed.
pub fn row_colours(rows: &[Compared]) -> Vec<RowColour> {
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            let i = i % SERIES_CLASSES.len();
            if row.same_as_this_policy {
                RowColour {
                    line: SAME_CLASSES[i],
                    key: SAME_KEY_CLASSES[i],
                }
            } else {
                RowColour {
                    line: SERIES_CLASSES[i],
                    key: KEY_CLASSES[i],
                }
            }
        })
        .collect()
}

/// A row's estimated cost, in dollars to four places.
pub fn cost_text(cost: f64) -> String {
    format!("${cost:.4}")
}

/// What follows a turn's reply: the turns summarised then, or nothing.
pub fn after_reply(row: &ScheduleRow) -> String {
    row.folds
        .map(|f| format!("summarise turns {}–{}", f.first, f.last))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::models::MODEL_WINDOWS;
    use crate::engine::peers::Prices;
    use crate::engine::policy::Policy;
    use crate::engine::schedule::schedule;
    use crate::route::Route;
    use crate::view::tuner::{compare_policies, simulated_input};

    #[test]
    fn the_price_fields_keep_their_hooks_and_an_error_id_names_its_field() {
        assert_eq!(
            PRICE_FIELDS.map(|f| (f.name, f.testid)),
            [("price_in", "price-in"), ("price_out", "price-out")]
        );
        assert_eq!(
            PRICE_FIELDS.map(|f| f.name),
            crate::app::tuner::PRICE_FIELDS,
            "the form's names"
        );
        assert_eq!(field_error_id("keep"), "tuner-keep-error");
    }

    #[test]
    fn a_models_option_names_the_others_with_its_window() {
        let alone = ModelWindow {
            model: "m1",
            also: &[],
            context: 8192,
        };
        assert_eq!(model_window_label(&alone), "m1 (8192 tokens)");
        let shared = ModelWindow {
            model: "m1",
            also: &["m2", "m3"],
            context: 128_000,
        };
        assert_eq!(model_window_label(&shared), "m1, m2, m3 (128000 tokens)");
        assert!(
            MODEL_WINDOWS
                .iter()
                .all(|m| model_window_label(m).starts_with(m.model))
        );
    }

    #[test]
    fn each_row_has_its_colour_dashed_when_it_has_this_policys_schedule() {
        let route = Route::parse("?tab=tuner");
        let presets = [
            "langchain-summary-buffer",
            "langchain-v1-middleware",
            "llamaindex-summary-buffer",
            "openai-cookbook-session",
            "codex-cli",
            "claude-code",
            "gemini-cli",
            "librechat",
        ];
        let mut rows = compare_policies(&route, &presets, Prices::flat(1.0, 1.0));
        assert_eq!(rows.len(), 9, "this policy and eight presets");
        rows.push(rows[1].clone());
        rows[1].same_as_this_policy = true;
        let colours = row_colours(&rows);
        assert_eq!(
            colours[0],
            RowColour {
                line: "p0",
                key: "key p0"
            }
        );
        assert_eq!(
            colours[1],
            RowColour {
                line: "p1 same",
                key: "key p1 same"
            }
        );
        assert_eq!(colours[8].line, "p8");
        // The tenth row starts the colours over.
        assert_eq!(
            colours[9],
            RowColour {
                line: "p0",
                key: "key p0"
            }
        );
        assert!(colours.iter().all(|c| c.key == format!("key {}", c.line)));
        assert_eq!(cost_text(0.0), "$0.0000");
        assert_eq!(cost_text(1.23456), "$1.2346");
    }

    #[test]
    fn a_row_that_folds_says_which_turns_it_summarises() {
        let route = Route::parse("?tab=tuner&max_turns=4&keep=2&turns=10");
        let policy = Policy::new(crate::view::tuner::trigger_from_route(&route).unwrap()).unwrap();
        let plan = schedule(&policy, &simulated_input(&route));
        let said: Vec<String> = plan.rows.iter().map(after_reply).collect();
        assert!(
            said.iter().any(|s| s.is_empty()),
            "a turn that folds nothing"
        );
        let fold = plan.rows.iter().find(|r| r.folds.is_some()).unwrap();
        let range = fold.folds.unwrap();
        assert_eq!(
            after_reply(fold),
            format!("summarise turns {}–{}", range.first, range.last)
        );
    }
}
