//! The corpus comparison's form: which sessions (every one, or one import's, narrowed to the
//! names holding the text typed), which policies, the context window, the extractive replay,
//! and the prices. One change is a [`CorpusEdit`], applied by [`CorpusForm::edit`]; the numbers
//! keep what was typed even when it is not a number, and say why beside their field
//! ([`CorpusForm::field_error`]), as the Chat's [`crate::app::policy_form::PolicyForm`] does.
//! What a run of the form needs is [`CorpusForm::picked`] and [`CorpusForm::columns`].

use std::collections::BTreeSet;

use super::pick::{ImportGroup, imports};
use super::wire::ColumnWire;
use super::work::column_wire;
use crate::app::library::Library;
use crate::engine::corpus::{Column, CorpusSettings, Prices, YOURS};
use crate::engine::peers::PEER_PRESETS;
use crate::engine::policy::Policy;

/// One change the user made in the corpus form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CorpusEdit {
    /// The import picked, by its key ([`ImportGroup::key`]), or empty for every session.
    From(String),
    /// The text a session's name must hold.
    Filter(String),
    /// A policy ticked or not: [`YOURS`] or a peer preset's slug.
    Policy(String, bool),
    /// A number field, by its name ([`NUMBER_FIELDS`]), with what was typed.
    Number(&'static str, String),
    Replay(bool),
}

/// The form's number fields: the context window, then the three prices per million tokens.
pub const NUMBER_FIELDS: [&str; 4] = ["window", "chat_in", "summary_in", "summary_out"];

/// The corpus form's values.
#[derive(Clone, Debug, PartialEq)]
pub struct CorpusForm {
    pub from: String,
    pub filter: String,
    pub chosen: BTreeSet<String>,
    pub replay: bool,
    /// The numbers as they stand: the last valid value of each field.
    pub window: u32,
    pub prices: Prices,
    /// What was typed in each number field the user changed, by name.
    typed: Vec<(&'static str, String)>,
}

impl Default for CorpusForm {
    /// Every session, yours and the first two peer presets, the engine's default window and
    /// prices, the replay on.
    fn default() -> Self {
        CorpusForm {
            from: String::new(),
            filter: String::new(),
            chosen: BTreeSet::from([
                YOURS.to_owned(),
                PEER_PRESETS[0].slug.to_owned(),
                PEER_PRESETS[1].slug.to_owned(),
            ]),
            replay: true,
            window: CorpusSettings::default().window,
            prices: Prices::default(),
            typed: Vec::new(),
        }
    }
}

impl CorpusForm {
    /// Records one change.
    pub fn edit(&mut self, edit: CorpusEdit) {
        match edit {
            CorpusEdit::From(key) => self.from = key,
            CorpusEdit::Filter(text) => self.filter = text,
            CorpusEdit::Policy(id, true) => {
                self.chosen.insert(id);
            }
            CorpusEdit::Policy(id, false) => {
                self.chosen.remove(&id);
            }
            CorpusEdit::Replay(on) => self.replay = on,
            CorpusEdit::Number(name, raw) => {
                match (name, read(name, &raw)) {
                    ("window", Ok(n)) => self.window = n as u32,
                    ("chat_in", Ok(n)) => self.prices.chat_in_per_mtok = n,
                    ("summary_in", Ok(n)) => self.prices.summary_in_per_mtok = n,
                    ("summary_out", Ok(n)) => self.prices.summary_out_per_mtok = n,
                    _ => {}
                }
                self.typed.retain(|(n, _)| *n != name);
                self.typed.push((name, raw));
            }
        }
    }

    /// What number field `name` shows: what was typed, or its value's text.
    pub fn text(&self, name: &str) -> String {
        if let Some((_, raw)) = self.typed.iter().find(|(n, _)| *n == name) {
            return raw.clone();
        }
        match name {
            "window" => self.window.to_string(),
            "chat_in" => self.prices.chat_in_per_mtok.to_string(),
            "summary_in" => self.prices.summary_in_per_mtok.to_string(),
            "summary_out" => self.prices.summary_out_per_mtok.to_string(),
            _ => String::new(),
        }
    }

    /// Why what was typed in number field `name` cannot be used, or `None` when it can.
    pub fn field_error(&self, name: &str) -> Option<String> {
        let (_, raw) = self.typed.iter().find(|(n, _)| *n == name)?;
        read(name, raw).err()
    }

    /// The import picked, when it is still in `groups`.
    pub fn group<'a>(&self, groups: &'a [ImportGroup]) -> Option<&'a ImportGroup> {
        groups.iter().find(|g| g.key() == self.from)
    }

    /// The ids of the sessions of `library` the form picks, in the library's order: those of
    /// the import picked (every one when none is, or when it is gone), whose name holds the
    /// filter's text, whatever its case.
    pub fn picked(&self, library: &Library) -> Vec<String> {
        let needle = self.filter.trim().to_lowercase();
        let groups = imports(library);
        let group = self.group(&groups);
        library
            .list()
            .iter()
            .filter(|e| group.is_none_or(|g| g.holds(e)))
            .filter(|e| holds_text(&e.session.name, &needle))
            .map(|e| e.id.clone())
            .collect()
    }

    /// How many sessions [`CorpusForm::picked`] gives, without listing them: with no name
    /// typed, read from the library's counts (its length, or the import's count) at once; with
    /// one, counted over the sessions (of the import) without copying any.
    pub fn picked_count(&self, library: &Library) -> usize {
        let needle = self.filter.trim().to_lowercase();
        let groups = imports(library);
        let group = self.group(&groups);
        match (group, needle.is_empty()) {
            (None, true) => library.len(),
            (Some(g), true) => g.count,
            (group, false) => library
                .list()
                .iter()
                .filter(|e| group.is_none_or(|g| g.holds(e)))
                .filter(|e| holds_text(&e.session.name, &needle))
                .count(),
        }
    }

    /// The settings a run uses.
    pub fn settings(&self) -> CorpusSettings {
        CorpusSettings {
            window: self.window,
            replay: self.replay,
            ..CorpusSettings::default()
        }
    }

    /// The columns of a run, and what each worker is told of them, for the policies ticked:
    /// `yours` (the Chat tab's policy) first, then the presets in their order. Refused, with
    /// the reason, when none is ticked, when the window typed is wrong, or when your policy
    /// cannot run. (A price typed wrong is named beside it; the table stays at the last valid
    /// one.)
    pub fn columns(&self, yours: &Policy) -> Result<(Vec<Column>, Vec<ColumnWire>), String> {
        if let Some(error) = self.field_error("window") {
            return Err(error);
        }
        let mut columns = Vec::new();
        let mut wires = Vec::new();
        if self.chosen.contains(YOURS) {
            let column = Column::new(YOURS, "Yours", yours.clone())
                .map_err(|e| e.to_string())
                .and_then(|c| column_wire(YOURS, "Yours", yours).map(|w| (c, w)));
            match column {
                Ok((column, wire)) => {
                    columns.push(column);
                    wires.push(wire);
                }
                Err(e) => return Err(format!("Your policy cannot run: {e}")),
            }
        }
        for preset in PEER_PRESETS.iter().filter(|p| self.chosen.contains(p.slug)) {
            if let Some(column) = Column::preset(preset.slug, self.window) {
                columns.push(column);
                wires.push(ColumnWire::Preset {
                    slug: preset.slug.to_owned(),
                });
            }
        }
        if columns.is_empty() {
            return Err("Tick at least one policy to compare.".into());
        }
        Ok((columns, wires))
    }
}

/// What `raw` reads as in number field `name`, or why it reads as nothing: the window is a
/// whole number of tokens from 1, a price a number of dollars from 0.
fn read(name: &str, raw: &str) -> Result<f64, String> {
    let raw = raw.trim();
    if name == "window" {
        return raw
            .parse::<u32>()
            .ok()
            .filter(|n| *n > 0)
            .map(f64::from)
            .ok_or_else(|| {
                format!(
                    "Context window \"{raw}\" is not valid: type a whole number of tokens from 1."
                )
            });
    }
    let label = match name {
        "chat_in" => "The chat model's input price",
        "summary_in" => "The summariser's input price",
        _ => "The summariser's output price",
    };
    raw.parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && *n >= 0.0)
        .ok_or_else(|| {
            format!("{label} \"{raw}\" is not valid: type dollars per million tokens, 0 or more.")
        })
}

/// Whether `name` holds `needle` (already lower case; empty holds always), whatever the
/// name's case: compared byte by byte when both are ASCII, so a keystroke's count over tens of
/// thousands of names lowers none of them into a new string.
fn holds_text(name: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if name.is_ascii() && needle.is_ascii() {
        return name
            .as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()));
    }
    name.to_lowercase().contains(needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::library::{Entry, Origin};
    use crate::engine::session::fixture::verbatim;

    #[test]
    fn a_name_holds_the_text_whatever_its_case_ascii_or_not() {
        assert!(holds_text("Trip to GHENT", "ghent"));
        assert!(holds_text("anything", ""));
        assert!(!holds_text("Trip", "trips"));
        assert!(holds_text("Über Straße", "über"));
        assert!(holds_text("ÜBER", "über"));
        assert!(!holds_text("Uber", "über"));
        assert!(holds_text("Café Noir", "noir"));
    }

    #[test]
    fn the_count_picked_is_the_length_of_the_sessions_picked_in_every_case() {
        let entry = |id: usize, name: &str, origin: Option<(&str, u64)>| {
            let mut session = verbatim(1);
            session.name = name.to_owned();
            Entry {
                id: format!("s{id}"),
                session,
                updated_ms: id as u64 % 3,
                revision: 1,
                origin: origin.map(|(file, imported_ms)| Origin {
                    file: file.to_owned(),
                    imported_ms,
                    position: id as u32,
                }),
                counted_in: None,
            }
        };
        let names = ["Budget", "budget two", "Trip", "Ghent trip", "Ünïcode"];
        let origins = [Some(("a.json", 5)), Some(("b.json", 7)), None];
        let library = Library::from_stored(
            (0..30)
                .map(|i| entry(i, names[i % names.len()], origins[i % origins.len()]))
                .collect(),
        );
        let mut form = CorpusForm::default();
        for from in ["", "5:a.json", "7:b.json", "1:gone.json"] {
            for filter in ["", "BUDGET", " trip ", "ünï", "zzz"] {
                form.edit(CorpusEdit::From(from.into()));
                form.edit(CorpusEdit::Filter(filter.into()));
                assert_eq!(
                    form.picked_count(&library),
                    form.picked(&library).len(),
                    "{from:?} {filter:?}"
                );
            }
        }
        form.edit(CorpusEdit::From("7:b.json".into()));
        form.edit(CorpusEdit::Filter(String::new()));
        assert_eq!(form.picked_count(&library), 10);
    }
}
