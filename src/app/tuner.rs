//! The Tuner's form as the user types it: [`TunerEdit`], one change. The trigger, its numbers
//! and the presets compared are kept in the link ([`Route`], which keeps a number it cannot use
//! in [`Route::errors`], said beside its field by `view::tuner::field_problem`); the prices,
//! which the link does not hold, in [`TunerForm`], each as typed even when it is not a price, and
//! with why beside itself ([`TunerForm::field_error`]), the cost staying at the last valid price
//! meanwhile, as the corpus form's prices do. How the presets compared are counted
//! ([`Counting`]: each library's own counter or exact counts, and the language the simulated
//! conversation is taken to be in) is the form's too.

use crate::engine::policy::{SAMPLES, Sample};
use crate::engine::run::Prices;
use crate::route::{Route, TriggerKind};

/// One change the user made in the Tuner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TunerEdit {
    /// The trigger kind picked, by its slug (one no kind has is the default kind).
    Trigger(String),
    /// A number of the trigger (or `turns`, the turns simulated), by its parameter, as typed.
    Number(&'static str, String),
    /// A model picked for its window, by the window's text; empty ("Other") changes nothing,
    /// so the window typed stays.
    ModelWindow(String),
    /// A preset ticked or not in the comparison, by its slug.
    Compared(&'static str, bool),
    /// A price field ([`PRICE_FIELDS`]), as typed.
    Price(&'static str, String),
    /// The presets' counter chosen, by its value ([`COUNTED_EXACT`] for exact counts; any
    /// other is each library's own).
    Counters(String),
    /// The simulated conversation's language, by its sample's slug (one no sample has is
    /// English).
    Language(String),
}

/// The value of the counters' choice that switches every preset to exact counts.
pub const COUNTED_EXACT: &str = "exact";
/// The value of the counters' choice that keeps each library's own counter (the default).
pub const COUNTED_OWN: &str = "own";

/// How the presets compared are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counting {
    /// Every preset switched to exact counts ([`crate::engine::policy::Counter::exact`]), as if
    /// a tiktoken counter were passed to its library; else each keeps its library's own.
    pub exact: bool,
    /// The language the simulated conversation's text is taken to be in.
    pub sample: Sample,
}

impl Default for Counting {
    /// Each library's own counter, over English.
    fn default() -> Self {
        Counting {
            exact: false,
            sample: SAMPLES[0],
        }
    }
}

impl Counting {
    /// The value of the counters' choice.
    pub fn value(&self) -> &'static str {
        if self.exact {
            COUNTED_EXACT
        } else {
            COUNTED_OWN
        }
    }
}

/// The price fields: dollars per million tokens sent, and written.
pub const PRICE_FIELDS: [&str; 2] = ["price_in", "price_out"];

impl TunerEdit {
    /// Whether the change is kept in the link ([`TunerEdit::apply`]) rather than in the form
    /// ([`TunerForm::edit`]).
    pub fn in_link(&self) -> bool {
        !matches!(
            self,
            TunerEdit::Price(..) | TunerEdit::Counters(_) | TunerEdit::Language(_)
        )
    }

    /// Applies a change kept in the link to `route`; a price changes nothing there.
    pub fn apply(self, route: &mut Route) {
        match self {
            TunerEdit::Trigger(slug) => route.trigger = TriggerKind::from_slug(&slug),
            TunerEdit::Number(param, raw) => route.set_number(param, &raw),
            TunerEdit::ModelWindow(raw) => {
                if !raw.trim().is_empty() {
                    route.set_number("context", &raw);
                }
            }
            TunerEdit::Compared(slug, on) => route.set_compared(slug, on),
            TunerEdit::Price(..) | TunerEdit::Counters(_) | TunerEdit::Language(_) => {}
        }
    }
}

/// The Tuner's prices: the last valid value of each, and what was typed in those changed.
#[derive(Clone, Debug, PartialEq)]
pub struct TunerForm {
    input: f64,
    output: f64,
    typed: Vec<(&'static str, String)>,
    counting: Counting,
}

impl Default for TunerForm {
    /// A large model's prices: $2.50 per million tokens sent, $10 per million written.
    fn default() -> Self {
        TunerForm {
            input: 2.5,
            output: 10.0,
            typed: Vec::new(),
            counting: Counting::default(),
        }
    }
}

impl TunerForm {
    /// Records a price typed; a change kept in the link changes nothing here.
    pub fn edit(&mut self, edit: TunerEdit) {
        let (name, raw) = match edit {
            TunerEdit::Price(name, raw) => (name, raw),
            TunerEdit::Counters(value) => {
                self.counting.exact = value == COUNTED_EXACT;
                return;
            }
            TunerEdit::Language(slug) => {
                self.counting.sample = Sample::from_slug(&slug);
                return;
            }
            _ => return,
        };
        if let Ok(value) = read(name, &raw) {
            match name {
                "price_in" => self.input = value,
                "price_out" => self.output = value,
                _ => return,
            }
        }
        self.typed.retain(|(n, _)| *n != name);
        self.typed.push((name, raw));
    }

    /// The prices the comparison's cost is computed at: the last valid ones.
    pub fn prices(&self) -> Prices {
        Prices::flat(self.input, self.output)
    }

    /// How the presets compared are counted.
    pub fn counting(&self) -> Counting {
        self.counting
    }

    /// What price field `name` shows: what was typed, or its value's text.
    pub fn text(&self, name: &str) -> String {
        if let Some((_, raw)) = self.typed.iter().find(|(n, _)| *n == name) {
            return raw.clone();
        }
        match name {
            "price_in" => self.input.to_string(),
            "price_out" => self.output.to_string(),
            _ => String::new(),
        }
    }

    /// Why what was typed in price field `name` cannot be used, or `None` when it can.
    pub fn field_error(&self, name: &str) -> Option<String> {
        let (_, raw) = self.typed.iter().find(|(n, _)| *n == name)?;
        read(name, raw).err()
    }
}

/// What `raw` reads as in price field `name`, or why it reads as nothing: dollars per million
/// tokens, a finite number from 0.
fn read(name: &str, raw: &str) -> Result<f64, String> {
    let label = match name {
        "price_in" => "The input price",
        _ => "The output price",
    };
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(format!(
            "{label} is empty: type dollars per million tokens, 0 or more."
        ));
    }
    raw.parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && *n >= 0.0)
        .ok_or_else(|| {
            format!("{label} \"{raw}\" is not valid: type dollars per million tokens, 0 or more.")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_price_typed_wrong_is_kept_and_named_and_the_cost_stays_at_the_last_valid_one() {
        let mut form = TunerForm::default();
        assert_eq!(form.prices(), Prices::flat(2.5, 10.0));
        assert_eq!(
            (form.text("price_in"), form.text("price_out")),
            ("2.5".into(), "10".into())
        );
        form.edit(TunerEdit::Price("price_in", "0.5".into()));
        assert_eq!(form.prices(), Prices::flat(0.5, 10.0));
        assert_eq!(form.field_error("price_in"), None);
        for typed in ["-1", "cheap", "inf", "NaN"] {
            form.edit(TunerEdit::Price("price_in", typed.into()));
            assert_eq!(form.text("price_in"), typed, "the text typed is kept");
            assert_eq!(
                form.field_error("price_in"),
                Some(format!(
                    "The input price \"{typed}\" is not valid: type dollars per million tokens, 0 or more."
                ))
            );
            assert_eq!(form.prices(), Prices::flat(0.5, 10.0), "{typed}");
        }
        form.edit(TunerEdit::Price("price_out", " ".into()));
        assert_eq!(
            form.field_error("price_out").as_deref(),
            Some("The output price is empty: type dollars per million tokens, 0 or more.")
        );
        assert_eq!(form.text("price_out"), " ");
        // A fix clears the error; 0 is a price.
        form.edit(TunerEdit::Price("price_out", "0".into()));
        form.edit(TunerEdit::Price("price_in", " 3 ".into()));
        assert_eq!(
            (form.field_error("price_in"), form.field_error("price_out")),
            (None, None)
        );
        assert_eq!(form.prices(), Prices::flat(3.0, 0.0));
    }

    #[test]
    fn the_presets_counter_and_the_language_are_the_forms_not_the_links() {
        let mut route = Route::parse("?tab=tuner");
        let before = route.clone();
        let mut form = TunerForm::default();
        assert_eq!(form.counting(), Counting::default());
        assert_eq!(form.counting().value(), COUNTED_OWN);
        assert_eq!(form.counting().sample.label, "English");
        for edit in [
            TunerEdit::Counters(COUNTED_EXACT.into()),
            TunerEdit::Language("chinese".into()),
        ] {
            assert!(!edit.in_link());
            form.edit(edit.clone());
            edit.apply(&mut route);
        }
        assert_eq!(route, before, "nothing of it is kept in the link");
        assert!(form.counting().exact);
        assert_eq!(form.counting().value(), COUNTED_EXACT);
        assert_eq!(form.counting().sample.label, "Chinese");
        assert_eq!(form.prices(), TunerForm::default().prices());
        // Back to each library's own; a language no sample has is English.
        form.edit(TunerEdit::Counters(COUNTED_OWN.into()));
        form.edit(TunerEdit::Language("klingon".into()));
        assert_eq!(form.counting(), Counting::default());
    }

    #[test]
    fn the_trigger_its_numbers_and_the_presets_compared_are_kept_in_the_link() {
        let mut route = Route::parse("?tab=tuner");
        let mut form = TunerForm::default();
        let edits = [
            TunerEdit::Trigger("window".into()),
            TunerEdit::ModelWindow("200000".into()),
            TunerEdit::Number("fire_pct", "70".into()),
            TunerEdit::Compared("codex-cli", true),
        ];
        for edit in edits {
            assert!(edit.in_link());
            form.edit(edit.clone());
            edit.apply(&mut route);
        }
        assert_eq!(
            form,
            TunerForm::default(),
            "nothing of the link is kept here"
        );
        assert_eq!(route.trigger, Some(TriggerKind::Window));
        assert_eq!(route.number("context"), Some(200_000));
        assert_eq!(route.number("fire_pct"), Some(70));
        assert_eq!(route.compare, ["codex-cli"]);
        // "Other" keeps the window typed; a number typed wrong is the link's to name.
        TunerEdit::ModelWindow(String::new()).apply(&mut route);
        assert_eq!(route.number("context"), Some(200_000));
        TunerEdit::Number("fire_pct", "most".into()).apply(&mut route);
        assert_eq!(route.errors.len(), 1);
        assert_eq!(route.errors[0].param, "fire_pct");
        assert_eq!(route.errors[0].value, "most");
        TunerEdit::Number("fire_pct", "60".into()).apply(&mut route);
        assert!(route.errors.is_empty());
        // A price is the form's, and changes nothing in the link.
        let price = TunerEdit::Price("price_in", "1".into());
        assert!(!price.in_link());
        let before = route.clone();
        price.apply(&mut route);
        assert_eq!(route, before);
        TunerEdit::Compared("codex-cli", false).apply(&mut route);
        assert!(route.compare.is_empty());
        TunerEdit::Trigger("no-such-kind".into()).apply(&mut route);
        assert_eq!(route.trigger, None);
    }
}
