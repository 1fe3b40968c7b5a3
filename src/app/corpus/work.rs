//! What a corpus worker does with its messages, pure so that it is tested natively and the
//! worker's shell (`src/bin/corpus_worker.rs`) only moves bytes: [`Prepared::from_init`] reads
//! the columns and settings once, [`Prepared::measure_batch`] measures a batch with the
//! engine's [`corpus::measure`], one answer per conversation in the batch's order.
//!
//! The page's side: [`column_wire`] writes a column for the init, [`batch_of`] a batch.

use crate::engine::corpus::{self, Column, CorpusSettings, Row};
use crate::engine::library_session::{Session, SessionSettings};
use crate::engine::memory::MemoryState;
use crate::engine::message::CountTokens;
use crate::engine::policy::Policy;
use crate::engine::session::{export_compact, import};

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

/// The bytes of one batch: each session with the source and index its rows carry.
pub fn batch_of<'a>(sessions: impl IntoIterator<Item = (&'a str, u32, &'a Session)>) -> Vec<u8> {
    let texts: Vec<(&str, u32, String)> = sessions
        .into_iter()
        .map(|(source, index, s)| (source, index, export_compact(s, 0, "")))
        .collect();
    encode_batch(texts.iter().map(|(source, index, text)| Item {
        index: *index,
        source,
        text,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::corpus::CorpusRun;
    use crate::engine::corpus::sort_rows;
    use crate::engine::message::WordCounter;
    use crate::engine::policy::Trigger;
    use crate::engine::session::fixture::verbatim;

    fn init(columns: Vec<ColumnWire>) -> WorkerInit {
        WorkerInit {
            vocab_url: String::new(),
            encoding: "o200k_base".into(),
            columns,
            settings: serde_json::to_value(CorpusSettings {
                window: 3_000,
                summary_tokens: 150,
                replay: true,
            })
            .unwrap(),
            more_vocabs: Vec::new(),
        }
    }

    fn yours() -> Policy {
        Policy::new(Trigger::Turns {
            max_turns: 6,
            keep: 2,
        })
        .unwrap()
    }

    fn wires() -> Vec<ColumnWire> {
        vec![
            column_wire(corpus::YOURS, "Yours", &yours()).unwrap(),
            ColumnWire::Preset {
                slug: "langchain-summary-buffer".into(),
            },
            ColumnWire::Preset {
                slug: "claude-code".into(),
            },
        ]
    }

    #[test]
    fn a_policy_crosses_to_the_worker_unchanged() {
        let prepared = Prepared::from_init(&init(wires()), &WordCounter).unwrap();
        assert_eq!(prepared.columns[0].policy, yours());
        assert_eq!(prepared.columns[0].id, "yours");
        assert_eq!(
            prepared.columns[2],
            Column::preset("claude-code", 3_000).unwrap()
        );
    }

    #[test]
    fn a_preset_that_does_not_exist_is_refused_by_its_column() {
        let bad = init(vec![ColumnWire::Preset {
            slug: "nobody".into(),
        }]);
        assert_eq!(
            Prepared::from_init(&bad, &WordCounter).unwrap_err(),
            "column 0: no peer preset is called nobody"
        );
    }

    /// The whole path a worker takes (a session written into a batch, read back, imported and
    /// measured), on a pool of three answering in reverse, gives the rows of measuring each
    /// session directly on one thread.
    #[test]
    fn batches_on_a_pool_give_the_rows_of_one_thread() {
        let sessions: Vec<Session> = [3, 12, 40, 7, 90, 25, 1, 60]
            .into_iter()
            .map(verbatim)
            .collect();
        let prepared = Prepared::from_init(&init(wires()), &WordCounter).unwrap();
        let mut direct: Vec<Row> = sessions
            .iter()
            .enumerate()
            .flat_map(|(i, s)| {
                corpus::measure(
                    "library",
                    i as u32,
                    s,
                    &prepared.columns,
                    &prepared.settings,
                    &WordCounter,
                )
                .unwrap()
            })
            .collect();
        let mut run = CorpusRun::new(sessions.len(), 3, 2);
        let mut out = run.start();
        while let Some(d) = out.pop() {
            let bytes = batch_of(d.range.clone().map(|i| ("library", i as u32, &sessions[i])));
            let answers = prepared.measure_batch(&bytes, &WordCounter).unwrap();
            let rows = answers.into_iter().map(Result::unwrap).collect();
            out.extend(run.finished(d.worker, rows).unwrap());
        }
        let rows = run.rows();
        assert_eq!(rows, direct);
        sort_rows(&mut direct, &prepared.columns);
        assert_eq!(rows, direct, "the run's order is the CSV's order");
    }

    #[test]
    fn a_conversation_that_does_not_import_is_answered_with_its_place_and_the_rest_go_on() {
        let prepared = Prepared::from_init(&init(wires()), &WordCounter).unwrap();
        let good = export_compact(&verbatim(4), 0, "");
        let bytes = encode_batch([
            Item {
                index: 5,
                source: "library",
                text: "{not json",
            },
            Item {
                index: 6,
                source: "library",
                text: &good,
            },
        ]);
        let answers = prepared.measure_batch(&bytes, &WordCounter).unwrap();
        assert!(
            answers[0]
                .as_ref()
                .unwrap_err()
                .starts_with("library [5]: the conversation does not read"),
            "{answers:?}"
        );
        assert_eq!(answers[1].as_ref().unwrap().len(), 3);
    }
}
