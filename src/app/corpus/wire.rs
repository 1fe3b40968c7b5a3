//! What the page and a corpus worker say to each other, as plain data both sides build and read.
//!
//! - `started`, the worker's first word, once its wasm listens; only then the page sends
//! - [`WorkerInit`], sent once as JSON text: where the vocabulary is, the settings and the
//!   columns. A column's policy travels as a session export holding no messages (the export
//!   format is the app's one versioned written form of a policy, exact fields included), a
//!   peer preset by its slug.
//! - A batch, sent as bytes the page transfers (not copies) to the worker ([`encode_batch`],
//!   [`decode_batch`]): per conversation its index in the corpus, its source and its lean form
//!   ([`super::lean::Lean`]: the messages with their counts, postcard), each length-prefixed.
//!   Bytes because the page's wasm writes them, so a batch is one copy out of wasm memory and
//!   a transfer that copies nothing, where strings would be re-encoded to UTF-16 and
//!   structured-cloned. A conversation whose bytes do not read is answered on its own; the
//!   rest of the batch goes on.
//! - The answer, JSON text: per conversation its rows, or why it could not be measured.

use serde::{Deserialize, Serialize};

use crate::engine::policy::{Policy, Vocabulary};
use thiserror::Error;

/// The first message to a worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkerInit {
    /// The URL of the vocabulary file, as the page's build named it.
    pub vocab_url: String,
    /// The encoding's name (`o200k_base`, `cl100k_base`).
    pub encoding: String,
    pub columns: Vec<ColumnWire>,
    /// The window, the assumed summary size and whether the replay runs, as JSON.
    pub settings: serde_json::Value,
    /// The other vocabularies the columns' counters read ([`vocabularies_needed`]: a LlamaIndex
    /// column counts in cl100k_base), loaded beside the run's own; none when absent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub more_vocabs: Vec<VocabWire>,
}

/// A vocabulary a worker loads besides the run's own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VocabWire {
    /// The encoding's name (`cl100k_base`).
    pub encoding: String,
    /// The URL of its file, as the page's build named it.
    pub url: String,
}

/// The vocabularies the counters of `policies` read that a run counting in `run` does not
/// hold already, each once, in the order first needed.
pub fn vocabularies_needed<'a>(
    policies: impl IntoIterator<Item = &'a Policy>,
    run: Vocabulary,
) -> Vec<Vocabulary> {
    let mut out = Vec::new();
    for policy in policies {
        if let Some(v) = policy.exact.counter.vocabulary()
            && v != run
            && !out.contains(&v)
        {
            out.push(v);
        }
    }
    out
}

/// One compared policy as it travels to a worker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ColumnWire {
    /// A peer preset, by its slug, at the settings' window.
    Preset { slug: String },
    /// Any other policy: `session` is a session export with no messages whose policy it is.
    Policy {
        id: String,
        label: String,
        session: String,
    },
}

/// What a worker says back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FromWorker<R> {
    /// Its wasm is running and listening. A message posted to a worker before its wasm has set
    /// its handler is lost (the worker's script ends before the wasm is compiled, and the
    /// browser delivers what waited to no handler), so the page sends the init only then.
    Started,
    /// The vocabulary is loaded and the columns read: batches may come.
    Ready,
    /// The worker cannot go on (its vocabulary or columns did not load, or a batch broke).
    Failed { reason: String },
    /// One answer per conversation of the batch, in its order.
    Answers { answers: Vec<Answer<R>> },
}

/// One conversation of a batch, borrowed from the batch's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item<'a> {
    /// Its place in the corpus, from 0.
    pub index: u32,
    /// The file or import it came from.
    pub source: &'a str,
    /// Its lean form's bytes ([`super::lean::Lean::to_bytes`]).
    pub conversation: &'a [u8],
}

/// A batch that could not be read: where in its bytes, and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("the batch is broken at byte {at}: {reason}")]
pub struct BatchError {
    pub at: usize,
    pub reason: String,
}

/// What a worker answers for one conversation: its rows, or why it could not be measured.
pub type Answer<R> = Result<Vec<R>, String>;

/// Writes a batch: a count, then per conversation its index, source and lean form, each number
/// a little-endian `u32` and the source and the form each its byte length then its bytes.
pub fn encode_batch<'a>(items: impl IntoIterator<Item = Item<'a>>) -> Vec<u8> {
    let items: Vec<Item> = items.into_iter().collect();
    let size: usize = items
        .iter()
        .map(|i| 12 + i.source.len() + i.conversation.len())
        .sum();
    let mut out = Vec::with_capacity(4 + size);
    out.extend_from_slice(&(items.len() as u32).to_le_bytes());
    for item in &items {
        out.extend_from_slice(&item.index.to_le_bytes());
        for s in [item.source.as_bytes(), item.conversation] {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s);
        }
    }
    out
}

/// Reads a batch [`encode_batch`] wrote; a batch cut short, a length past the end, a source that
/// is not UTF-8 or bytes left over are refused with the place.
pub fn decode_batch(bytes: &[u8]) -> Result<Vec<Item<'_>>, BatchError> {
    let mut at = 0;
    let count = read_u32(bytes, &mut at, "the count")?;
    let mut items = Vec::with_capacity((count as usize).min(bytes.len() / 12));
    for n in 0..count {
        let index = read_u32(bytes, &mut at, &format!("conversation {n}'s index"))?;
        let source = read_str(bytes, &mut at, &format!("conversation {n}'s source"))?;
        let conversation = read_bytes(bytes, &mut at, &format!("conversation {n}'s form"))?;
        items.push(Item {
            index,
            source,
            conversation,
        });
    }
    if at != bytes.len() {
        return Err(BatchError {
            at,
            reason: format!("{} bytes follow the last conversation", bytes.len() - at),
        });
    }
    Ok(items)
}

fn read_u32(bytes: &[u8], at: &mut usize, what: &str) -> Result<u32, BatchError> {
    let Some(word) = bytes.get(*at..*at + 4) else {
        return Err(BatchError {
            at: *at,
            reason: format!("it ends before {what}"),
        });
    };
    *at += 4;
    Ok(u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
}

fn read_bytes<'a>(bytes: &'a [u8], at: &mut usize, what: &str) -> Result<&'a [u8], BatchError> {
    let len = read_u32(bytes, at, what)? as usize;
    let start = *at;
    let Some(raw) = bytes.get(start..start.saturating_add(len)) else {
        return Err(BatchError {
            at: start,
            reason: format!("{what} claims {len} bytes, past the end"),
        });
    };
    *at += len;
    Ok(raw)
}

fn read_str<'a>(bytes: &'a [u8], at: &mut usize, what: &str) -> Result<&'a str, BatchError> {
    let start = *at + 4;
    let raw = read_bytes(bytes, at, what)?;
    std::str::from_utf8(raw).map_err(|e| BatchError {
        at: start + e.valid_up_to(),
        reason: format!("{what} is not UTF-8"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items() -> Vec<Item<'static>> {
        vec![
            Item {
                index: 7,
                source: "conversations.jsoné",
                conversation: &[1, 2, 0xff],
            },
            Item {
                index: 8,
                source: "",
                conversation: &[],
            },
        ]
    }

    #[test]
    fn a_batch_reads_back_as_written() {
        let bytes = encode_batch(items());
        assert_eq!(decode_batch(&bytes), Ok(items()));
        assert_eq!(decode_batch(&encode_batch([])), Ok(vec![]));
    }

    #[test]
    fn a_batch_cut_anywhere_is_refused_with_its_place() {
        let bytes = encode_batch(items());
        for cut in 0..bytes.len() {
            let err = decode_batch(&bytes[..cut]).unwrap_err();
            assert!(err.at <= cut, "cut at {cut}: {err}");
        }
    }

    #[test]
    fn bytes_after_the_last_conversation_or_a_broken_source_are_refused() {
        let mut bytes = encode_batch(items());
        bytes.push(0);
        assert_eq!(
            decode_batch(&bytes).unwrap_err().reason,
            "1 bytes follow the last conversation"
        );
        let mut bytes = encode_batch(items());
        // The first byte of "é" in the first source, made invalid.
        let e = bytes.iter().position(|&b| b == 0xc3).unwrap();
        bytes[e] = 0xff;
        let err = decode_batch(&bytes).unwrap_err();
        assert_eq!(err.reason, "conversation 0's source is not UTF-8");
        assert_eq!(err.at, e);
    }

    #[test]
    fn the_init_message_reads_back_as_written() {
        let init = WorkerInit {
            vocab_url: "/o200k_base-0123.smv".into(),
            encoding: "o200k_base".into(),
            columns: vec![
                ColumnWire::Preset {
                    slug: "langchain-summary-buffer".into(),
                },
                ColumnWire::Policy {
                    id: "yours".into(),
                    label: "Yours".into(),
                    session: "{}".into(),
                },
            ],
            settings: serde_json::json!({"window": 8000}),
            more_vocabs: vec![VocabWire {
                encoding: "cl100k_base".into(),
                url: "/cl100k_base-4567.smv".into(),
            }],
        };
        let text = serde_json::to_string(&init).unwrap();
        assert_eq!(serde_json::from_str::<WorkerInit>(&text).unwrap(), init);
        // An init written before the field reads with none.
        let mut older: serde_json::Value = serde_json::from_str(&text).unwrap();
        older.as_object_mut().unwrap().remove("more_vocabs");
        let older: WorkerInit = serde_json::from_value(older).unwrap();
        assert!(older.more_vocabs.is_empty());
    }

    // The corpus worker loaded only the run's vocabulary, so a LlamaIndex column (cl100k_base)
    // was counted with the rough estimate there.
    #[test]
    fn a_column_counting_in_another_vocabulary_asks_the_worker_for_it() {
        use crate::engine::peers::preset;
        use crate::engine::policy::Counter;
        let policy = |slug: &str| preset(slug).unwrap().policy(8_000);
        let columns = [
            policy("langchain-v1-middleware"),
            policy("llamaindex-summary-buffer"),
            policy("codex-cli"),
            policy("llamaindex-summary-buffer"),
            Policy::default(),
        ];
        assert_eq!(
            vocabularies_needed(&columns, Vocabulary::O200k),
            [Vocabulary::Cl100k],
            "cl100k_base once; the reported usage is o200k_base, the run's own"
        );
        assert_eq!(
            vocabularies_needed(&columns, Vocabulary::Cl100k),
            [Vocabulary::O200k],
            "a run in cl100k_base needs o200k_base for the reported usage"
        );
        assert!(vocabularies_needed(&columns[..1], Vocabulary::O200k).is_empty());
        // The default counter is the run's own count, whatever its vocabulary.
        assert_eq!(Counter::O200K.vocabulary(), None);
        assert_eq!(Counter::LangChainApprox.vocabulary(), None);
    }
}
