//! What a corpus worker does with its messages, pure so that it is tested natively and the
//! worker's shell (`src/bin/corpus_worker.rs`) only moves bytes: [`Prepared::from_init`] reads
//! the columns and settings once, [`Prepared::measure_batch`] measures a batch with the
//! engine's [`corpus::measure`], one answer per conversation in the batch's order.
//!
//! The page's side: [`column_wire`] writes a column for the init, [`batch_of`] a batch.

use crate::engine::corpus::{self, Column, CorpusSettings, Row};
use crate::engine::memory::MemoryState;
use crate::engine::message::CountTokens;
use crate::engine::policy::Policy;
use crate::engine::session::{Session, SessionSettings, export_compact, import};

use super::wire::{Answer, BatchError, ColumnWire, Item, WorkerInit, decode_batch, encode_batch};

/// A worker's columns and settings, read from its [`WorkerInit`].
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    pub columns: Vec<Column>,
    pub settings: CorpusSettings,
}

impl Prepared {
    /// Reads the init's settings and columns; a preset that does not exist or a policy that
    /// does not read is refused, naming the column.
    pub fn from_init(init: &WorkerInit, counter: &dyn CountTokens) -> Result<Prepared, String> {
        let settings: CorpusSettings = serde_json::from_value(init.settings.clone())
            .map_err(|e| format!("the corpus settings do not read: {e}"))?;
        let columns = init
            .columns
            .iter()
            .enumerate()
            .map(|(n, column)| match column {
                ColumnWire::Preset { slug } => Column::preset(slug, settings.window)
                    .ok_or_else(|| format!("column {n}: no peer preset is called {slug}")),
                ColumnWire::Policy { id, label, session } => {
                    let session = import(session.as_bytes(), counter)
                        .map_err(|e| format!("column {n} ({id}): its policy does not read: {e}"))?;
                    Column::new(id.clone(), label.clone(), session.memory.policy().clone())
                        .map_err(|e| format!("column {n} ({id}): {e}"))
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Prepared { columns, settings })
    }

    /// Measures every conversation of a batch: its rows, or why its text does not import or
    /// its measure failed. A broken batch as a whole is refused with the place.
    pub fn measure_batch(
        &self,
        bytes: &[u8],
        counter: &dyn CountTokens,
    ) -> Result<Vec<Answer<Row>>, BatchError> {
        Ok(decode_batch(bytes)?
            .into_iter()
            .map(|item| self.measure_one(&item, counter))
            .collect())
    }

    fn measure_one(&self, item: &Item, counter: &dyn CountTokens) -> Answer<Row> {
        let session = import(item.text.as_bytes(), counter).map_err(|e| {
            format!(
                "{} [{}]: the conversation does not read: {e}",
                item.source, item.index
            )
        })?;
        corpus::measure(
            item.source,
            item.index,
            &session,
            &self.columns,
            &self.settings,
            counter,
        )
        .map_err(|e| e.to_string())
    }
}

/// A column for the init that is no peer preset (those go by their slug,
/// [`ColumnWire::Preset`]): the policy as a session export that holds no messages, refused
/// with the policy's reason when it is invalid.
pub fn column_wire(id: &str, label: &str, policy: &Policy) -> Result<ColumnWire, String> {
    let memory = MemoryState::new("", policy.clone()).map_err(|e| format!("{label}: {e}"))?;
    let session = Session::new(label, SessionSettings::default(), memory);
    Ok(ColumnWire::Policy {
        id: id.into(),
        label: label.into(),
        session: export_compact(&session, 0, ""),
    })
}

/// The bytes of one batch: the sessions `first..` of the corpus, each with its source.
pub fn batch_of<'a>(first: usize, sessions: impl IntoIterator<Item = (&'a str, &'a Session)>) -> Vec<u8> {
    let texts: Vec<(&str, String)> = sessions
        .into_iter()
        .map(|(source, s)| (source, export_compact(s, 0, "")))
        .collect();
    encode_batch(texts.iter().enumerate().map(|(n, (source, text))| Item {
        index: (first + n) as u32,
        source,
        text,
    }))
}
