//! What a corpus worker does with its messages, pure so that it is tested natively and the
//! worker's shell (`src/bin/corpus_worker.rs`) only moves bytes: [`Prepared::from_init`] reads
//! the columns and settings once, [`Prepared::measure_batch`] measures a batch with the
//! engine's [`corpus::measure`], one answer per conversation in the batch's order.
//!
//! The page's side: [`column_wire`] writes a column for the init, [`batch_of`] a batch of
//! conversations in their lean form ([`super::lean`]).

use crate::engine::corpus::{self, Column, CorpusSettings, Row};
use crate::engine::library_session::{Session, SessionSettings};
use crate::engine::memory::MemoryState;
use crate::engine::message::CountTokens;
use crate::engine::policy::Policy;
use crate::engine::session::{export_compact, import};

use super::lean::Lean;
use super::wire::{Answer, BatchError, ColumnWire, Item, WorkerInit, decode_batch, encode_batch};

/// A worker's columns and settings, read from its [`WorkerInit`].
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    pub columns: Vec<Column>,
    pub settings: CorpusSettings,
    /// The run's encoding: a conversation's counts are kept when they were counted in it.
    pub encoding: String,
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
        Ok(Prepared {
            columns,
            settings,
            encoding: init.encoding.clone(),
        })
    }

    /// Measures every conversation of a batch: its rows, or why its form does not read or its
    /// measure failed. A broken batch as a whole is refused with the place.
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
        let session = Lean::from_bytes(item.conversation)
            .and_then(|lean| lean.session(&self.encoding, counter))
            .map_err(|e| format!("{} [{}]: {e}", item.source, item.index))?;
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

/// The bytes of one batch: each session's lean form with the source and index its rows carry
/// and the encoding its counts are vouched for in (`None`: the worker counts them).
pub fn batch_of<'a>(
    sessions: impl IntoIterator<Item = (&'a str, u32, &'a Session, Option<&'a str>)>,
) -> Vec<u8> {
    let forms: Vec<(&str, u32, Vec<u8>)> = sessions
        .into_iter()
        .map(|(source, index, s, counted_in)| (source, index, Lean::of(s, counted_in).to_bytes()))
        .collect();
    encode_batch(forms.iter().map(|(source, index, form)| Item {
        index: *index,
        source,
        conversation: form,
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

    /// The whole path a worker takes (a session written into a batch in its lean form, read
    /// back and measured), on a pool of three answering in reverse, gives the rows of measuring each
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
            let sessions = d
                .range
                .clone()
                .map(|i| ("library", i as u32, &sessions[i], Some("o200k_base")));
            let bytes = batch_of(sessions);
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
    fn a_conversation_that_does_not_read_is_answered_with_its_place_and_the_rest_go_on() {
        let prepared = Prepared::from_init(&init(wires()), &WordCounter).unwrap();
        let session = verbatim(4);
        let good = Lean::of(&session, None).to_bytes();
        let bytes = encode_batch([
            Item {
                index: 5,
                source: "library",
                conversation: &good[..good.len() / 2],
            },
            Item {
                index: 6,
                source: "library",
                conversation: &good,
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

    /// Every peer preset and a policy of the user's, with the replay and its checks.
    fn every_preset() -> WorkerInit {
        let mut columns = vec![column_wire(corpus::YOURS, "Yours", &yours()).unwrap()];
        columns.extend(
            crate::engine::peers::PEER_PRESETS
                .iter()
                .map(|p| ColumnWire::Preset {
                    slug: p.slug.into(),
                }),
        );
        init(columns)
    }

    /// What the worker measured before the lean form: the session's export text, imported
    /// (and so recounted with the run's counter).
    fn old_path(prepared: &Prepared, sessions: &[Session]) -> Vec<Answer<Row>> {
        sessions
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let text = export_compact(s, 0, "");
                let session = import(text.as_bytes(), &WordCounter).map_err(|e| e.to_string())?;
                corpus::measure(
                    "library",
                    i as u32,
                    &session,
                    &prepared.columns,
                    &prepared.settings,
                    &WordCounter,
                )
                .map_err(|e| e.to_string())
            })
            .collect()
    }

    fn lean_path(
        prepared: &Prepared,
        sessions: &[Session],
        counted_in: Option<&str>,
    ) -> Vec<Answer<Row>> {
        let batch = sessions
            .iter()
            .enumerate()
            .map(|(i, s)| ("library", i as u32, s, counted_in));
        prepared
            .measure_batch(&batch_of(batch), &WordCounter)
            .unwrap()
    }

    /// A conversation of `turns`: user questions, replies, some with a tool call and its
    /// result, some with a placeholder, words from `words`; and pinned facts the replay's
    /// summariser ranks first. Counted a token a word, as the run counts.
    fn conversation(turns: &[(Vec<usize>, Vec<usize>, u8)], pinned: bool) -> Session {
        use crate::engine::facts::{FactPattern, PinnedFact};
        use crate::engine::message::{Message, MessageParts, Role, ToolCall};
        const WORDS: [&str; 10] = [
            "budget",
            "no equities",
            "rent",
            "€1,200",
            "salary",
            "42",
            "ok",
            "naïve",
            "bonds",
            "Oslo",
        ];
        let text = |ws: &[usize]| {
            ws.iter()
                .map(|w| WORDS[w % WORDS.len()])
                .collect::<Vec<_>>()
                .join(" ")
        };
        let policy = Policy::new(Trigger::Manual { keep: 4 }).unwrap();
        let mut memory =
            MemoryState::new("You are a budgeting coach. Keep every figure.", policy).unwrap();
        for (t, (question, answer, kind)) in turns.iter().enumerate() {
            let at = t as u64 * 1_000;
            let mut user = MessageParts::text(Role::User, text(question));
            if kind % 5 == 4 {
                user.placeholders.push("image".into());
                user.content.push_str(" [image]");
            }
            user.at_ms = at;
            memory
                .add_message(Message::with_parts(user, &WordCounter))
                .unwrap();
            if kind % 3 == 1 {
                let id = format!("call_{t}");
                let mut call = MessageParts::text(Role::Assistant, "");
                call.calls.push(ToolCall {
                    id: id.clone(),
                    name: "forecast".into(),
                    arguments: format!("{{\"turn\":{t}}}"),
                });
                call.at_ms = at + 1;
                memory
                    .add_message(Message::with_parts(call, &WordCounter))
                    .unwrap();
                let mut result = MessageParts::text(Role::Tool, text(answer));
                result.call_id = Some(id);
                result.tool_name = Some("forecast".into());
                result.at_ms = at + 2;
                memory
                    .add_message(Message::with_parts(result, &WordCounter))
                    .unwrap();
            }
            let mut reply = MessageParts::text(Role::Assistant, text(answer));
            reply.at_ms = at + 3;
            memory
                .add_message(Message::with_parts(reply, &WordCounter))
                .unwrap();
        }
        let mut session = Session::new("Budget", SessionSettings::default(), memory);
        if pinned {
            session.pinned = vec![
                PinnedFact {
                    label: "no equities".into(),
                    pattern: FactPattern::Phrase("no equities".into()),
                },
                PinnedFact {
                    label: "rent".into(),
                    pattern: FactPattern::Regex(r"(?i)€\d".into()),
                },
            ];
        }
        session
    }

    /// The page's stored counts made wrong, as a session read from storage before the
    /// vocabulary arrived holds estimates.
    fn estimated(session: &Session) -> Session {
        let mut memory = MemoryState::new(
            session.memory.system_prompt(),
            session.memory.policy().clone(),
        )
        .unwrap();
        for m in session.memory.archive() {
            let mut m = m.clone();
            m.tokens = m.tokens * 3 + 1;
            memory.add_message(m).unwrap();
        }
        let mut out = session.clone();
        out.memory = memory;
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

        /// The lean hand-over measures to the old path's rows under every preset, the replay
        /// included: with the page's counts kept when they are in the run's encoding, and
        /// recounted when the page does not vouch for them or they are in another.
        #[test]
        fn the_lean_form_measures_to_the_rows_of_the_export_text(
            turns in proptest::collection::vec(
                (
                    proptest::collection::vec(0usize..10, 1..30),
                    proptest::collection::vec(0usize..10, 1..60),
                    0u8..15,
                ),
                1..40,
            ),
            pinned in proptest::bool::ANY,
        ) {
            let prepared = Prepared::from_init(&every_preset(), &WordCounter).unwrap();
            let sessions = [conversation(&turns, pinned)];
            let old = old_path(&prepared, &sessions);
            proptest::prop_assert_eq!(old[0].as_ref().map(Vec::len), Ok::<usize, &String>(9));
            proptest::prop_assert_eq!(&lean_path(&prepared, &sessions, Some("o200k_base")), &old);
            let stale = [estimated(&sessions[0])];
            proptest::prop_assert_eq!(&lean_path(&prepared, &stale, None), &old);
            proptest::prop_assert_eq!(&lean_path(&prepared, &stale, Some("cl100k_base")), &old);
        }
    }

    /// A counter that counts words and keeps every text it was asked to count.
    #[derive(Default)]
    struct Recorder(std::cell::RefCell<Vec<String>>);

    impl CountTokens for Recorder {
        fn count(&self, text: &str) -> u32 {
            self.0.borrow_mut().push(text.to_owned());
            WordCounter.count(text)
        }
    }

    /// A conversation vouched for in the run's encoding is measured without its messages being
    /// counted (the counter is never asked about one) in the dry run under the columns that
    /// size with the run's count (yours and the presets counting in it); one vouched for in
    /// none, or in another encoding, has every message counted; the rows are the same. (A
    /// column with a counter of its own, LangChain's approximation or LlamaIndex's cl100k_base,
    /// sizes each message itself, and the extractive replay counts what it plays, whatever the
    /// form.)
    #[test]
    fn a_vouched_conversation_is_measured_without_counting_its_messages() {
        let turns: Vec<(Vec<usize>, Vec<usize>, u8)> = (0..12)
            .map(|t| ((0..6).collect(), (0..9).map(|w| w + t).collect(), t as u8))
            .collect();
        let session = conversation(&turns, true);
        let contents: std::collections::BTreeSet<&str> = session
            .memory
            .archive()
            .iter()
            .map(|m| m.content.as_str())
            .filter(|c| !c.is_empty())
            .collect();
        assert!(contents.len() > 5);
        let measured = |counted_in: Option<&str>| {
            let recorder = Recorder::default();
            let mut init = every_preset();
            init.settings["replay"] = serde_json::Value::Bool(false);
            init.columns.retain(|c| match c {
                ColumnWire::Preset { slug } => Column::preset(slug, 3_000)
                    .unwrap()
                    .policy
                    .exact
                    .counter
                    .is_default(),
                ColumnWire::Policy { .. } => true,
            });
            let prepared = Prepared::from_init(&init, &recorder).unwrap();
            recorder.0.borrow_mut().clear();
            let bytes = batch_of([("library", 0, &session, counted_in)]);
            let rows = prepared.measure_batch(&bytes, &recorder).unwrap();
            let asked: std::collections::BTreeSet<String> =
                recorder.0.borrow().iter().cloned().collect();
            let messages = contents.iter().filter(|c| asked.contains(**c)).count();
            (rows, messages)
        };
        let (kept, asked) = measured(Some("o200k_base"));
        assert_eq!(asked, 0, "no message of a vouched conversation is counted");
        assert_eq!(
            kept[0].as_ref().map(Vec::len),
            Ok(3),
            "yours and two presets"
        );
        for other in [None, Some("cl100k_base")] {
            let (counted, asked) = measured(other);
            assert_eq!(asked, contents.len(), "{other:?}: every message is counted");
            assert_eq!(counted, kept);
        }
    }

    /// Counts vouched for in the run's encoding are what the worker measures with: it counts
    /// nothing itself (stale counts, vouched for, give other rows).
    #[test]
    fn counts_in_the_run_encoding_are_not_counted_again() {
        let prepared = Prepared::from_init(&every_preset(), &WordCounter).unwrap();
        let turns: Vec<(Vec<usize>, Vec<usize>, u8)> = (0..30)
            .map(|t| ((0..8).collect(), (0..20).map(|w| w + t).collect(), t as u8))
            .collect();
        let sessions = [conversation(&turns, true)];
        let stale = [estimated(&sessions[0])];
        let old = old_path(&prepared, &sessions);
        assert_ne!(lean_path(&prepared, &stale, Some("o200k_base")), old);
        assert_eq!(lean_path(&prepared, &stale, None), old);
    }
}
