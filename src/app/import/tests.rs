use std::io::{BufReader, Read};

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::engine::message::WordCounter;

/// A ChatGPT export of `n` conversations of `turns` messages each, one branch per conversation,
/// as the data export writes it (a `mapping` of nodes from a root, `current_node` the leaf).
fn chatgpt_export(n: usize, turns: usize) -> String {
    let conversations: Vec<Value> = (0..n)
        .map(|c| {
            let mut mapping = serde_json::Map::new();
            mapping.insert(
                "root".into(),
                json!({"id": "root", "message": null, "parent": null, "children": ["m0"]}),
            );
            for t in 0..turns {
                let id = format!("m{t}");
                let parent = if t == 0 { "root".to_owned() } else { format!("m{}", t - 1) };
                let children: Vec<String> = if t + 1 < turns { vec![format!("m{}", t + 1)] } else { vec![] };
                let role = if t % 2 == 0 { "user" } else { "assistant" };
                mapping.insert(
                    id.clone(),
                    json!({
                        "id": id,
                        "message": {
                            "id": id,
                            "author": {"role": role},
                            "create_time": 1_714_000_000.0 + (c * 100 + t) as f64,
                            "content": {"content_type": "text", "parts": [format!("conversation {c} turn {t}: the budget is {} euros", c * 7 + t)]},
                            "status": "finished_successfully",
                        },
                        "parent": parent,
                        "children": children,
                    }),
                );
            }
            json!({
                "title": format!("Conversation {c}"),
                "create_time": 1_714_000_000.0,
                "conversation_id": format!("id-{c}"),
                "current_node": format!("m{}", turns - 1),
                "mapping": mapping,
            })
        })
        .collect();
    serde_json::to_string(&conversations).unwrap()
}

/// A reader that hands out its bytes in the sizes given, cycling through them: a file read in
/// slices.
struct Sliced<'a> {
    bytes: &'a [u8],
    sizes: Vec<usize>,
    next: usize,
}

impl Read for Sliced<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = self.sizes[self.next % self.sizes.len()];
        self.next += 1;
        let n = size.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

fn posts(bytes: &[u8], sizes: Vec<usize>) -> Vec<FromImporter> {
    let mut posted = Vec::new();
    let reader = BufReader::with_capacity(
        7,
        Sliced {
            bytes,
            sizes,
            next: 0,
        },
    );
    import_stream(reader, 1_000, "test", |p| posted.push(p));
    posted
}

/// Feeds the worker's posts into `library` as the page does, up to `batches` batches.
fn apply(library: &mut Library, run: &mut ImportRun, posted: &[FromImporter], batches: usize) {
    let mut taken = 0;
    for post in posted {
        match post {
            FromImporter::Batch {
                bytes,
                pieces,
                skipped,
            } => {
                if taken == batches {
                    run.stop(9);
                    return;
                }
                taken += 1;
                let read = pieces.len();
                let added =
                    library.add_pieces(pieces.clone(), &run.file, run.started_ms, &WordCounter);
                run.batch(*bytes, read, &added, skipped.clone(), 5);
            }
            end => run.ended(end, 6),
        }
    }
}

#[test]
fn a_large_export_arrives_in_batches_with_how_far_the_file_was_read() {
    let text = chatgpt_export(120, 6);
    let posted = posts(text.as_bytes(), vec![4096]);
    let batches: Vec<_> = posted
        .iter()
        .filter(|p| matches!(p, FromImporter::Batch { .. }))
        .collect();
    assert!(batches.len() > 1, "one batch for {} bytes", text.len());
    let mut last = 0;
    for b in &batches {
        let FromImporter::Batch { bytes, pieces, .. } = b else {
            unreachable!()
        };
        assert!(*bytes >= last && *bytes <= text.len() as u64);
        assert!(!pieces.is_empty());
        last = *bytes;
    }
    assert_eq!(
        posted.last(),
        Some(&FromImporter::Done {
            bytes: text.len() as u64,
            source: "a ChatGPT data export".into()
        })
    );
}

#[test]
fn the_streamed_import_gives_the_sessions_the_whole_file_reader_gives() {
    let text = chatgpt_export(30, 5);
    let whole = session::read(text.as_bytes(), &WordCounter).unwrap();
    let mut library = Library::default();
    let mut run = ImportRun::start("big.json", text.len() as u64, 1_000);
    apply(
        &mut library,
        &mut run,
        &posts(text.as_bytes(), vec![100]),
        usize::MAX,
    );
    assert_eq!(run.status, RunStatus::Done);
    assert_eq!((run.read, run.added, run.already), (30, 30, 0));
    let first = run.first.clone().unwrap();
    assert_eq!(
        library
            .get(&first)
            .unwrap()
            .origin
            .as_ref()
            .unwrap()
            .position,
        0
    );
    assert_eq!(library.len(), 30);
    let mut got: Vec<_> = library.list().iter().collect();
    got.sort_by_key(|e| e.origin.as_ref().map(|o| o.position));
    for (entry, expected) in got.iter().zip(&whole.sessions) {
        assert_eq!(entry.session.name, expected.name);
        assert_eq!(entry.session.memory.archive(), expected.memory.archive());
        let origin = entry.origin.as_ref().unwrap();
        assert_eq!(
            (origin.file.as_str(), origin.imported_ms),
            ("big.json", 1_000)
        );
    }
}

#[test]
fn importing_the_same_file_again_adds_nothing_twice() {
    let text = chatgpt_export(40, 4);
    let posted = posts(text.as_bytes(), vec![512]);
    let mut library = Library::default();
    let mut first = ImportRun::start("a.json", text.len() as u64, 1);
    apply(&mut library, &mut first, &posted, usize::MAX);
    let mut again = ImportRun::start("a.json", text.len() as u64, 2);
    apply(
        &mut library,
        &mut again,
        &posts(text.as_bytes(), vec![333]),
        usize::MAX,
    );
    assert_eq!(library.len(), 40);
    assert_eq!((again.read, again.added, again.already), (40, 0, 40));
    assert_eq!(again.status, RunStatus::Done);
}

#[test]
fn a_stopped_import_keeps_whole_conversations_and_the_next_one_adds_the_rest() {
    let text = chatgpt_export(300, 6);
    let posted = posts(text.as_bytes(), vec![2048]);
    let mut library = Library::default();
    let mut run = ImportRun::start("a.json", text.len() as u64, 1);
    apply(&mut library, &mut run, &posted, 1);
    assert_eq!(run.status, RunStatus::Stopped);
    assert!(run.added > 0 && run.added < 300, "{}", run.added);
    assert_eq!(library.len(), run.added);
    // Every session held is a whole conversation of six messages.
    assert!(
        library
            .list()
            .iter()
            .all(|e| e.session.memory.archive().len() == 6)
    );
    assert!(run.bytes > 0 && run.bytes < text.len() as u64);
    let before = run.added;
    let mut resumed = ImportRun::start("a.json", text.len() as u64, 2);
    apply(&mut library, &mut resumed, &posted, usize::MAX);
    assert_eq!(library.len(), 300);
    assert_eq!((resumed.added, resumed.already), (300 - before, before));
}

#[test]
fn a_broken_conversation_is_skipped_and_named_and_invalid_json_fails_after_what_came_before() {
    let text = chatgpt_export(3, 4);
    let mut entries: Vec<Value> = serde_json::from_str(&text).unwrap();
    entries[1]["mapping"] = json!("not a mapping");
    let broken = serde_json::to_string(&entries).unwrap();
    let mut library = Library::default();
    let mut run = ImportRun::start("b.json", broken.len() as u64, 1);
    apply(
        &mut library,
        &mut run,
        &posts(broken.as_bytes(), vec![64]),
        usize::MAX,
    );
    assert_eq!(run.status, RunStatus::Done);
    assert_eq!((run.read, library.len()), (2, 2));
    assert_eq!(run.skipped.len(), 1);
    assert!(run.skipped[0].contains("[1]"), "{:?}", run.skipped);

    let cut = &text[..text.len() - 40];
    let mut library = Library::default();
    let mut run = ImportRun::start("c.json", cut.len() as u64, 1);
    apply(
        &mut library,
        &mut run,
        &posts(cut.as_bytes(), vec![64]),
        usize::MAX,
    );
    let RunStatus::Failed(reason) = &run.status else {
        panic!("{:?}", run.status)
    };
    assert!(reason.contains("not valid JSON"), "{reason}");
    assert_eq!(library.len(), run.added);
    assert!(run.added >= 2, "{}", run.added);
}

#[test]
fn a_file_that_is_no_array_is_read_whole_in_the_worker_and_one_over_the_cap_is_refused() {
    let one = json!({"messages": [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]});
    let text = serde_json::to_string(&one).unwrap();
    let mut library = Library::default();
    let mut run = ImportRun::start("one.json", text.len() as u64, 1);
    apply(
        &mut library,
        &mut run,
        &posts(text.as_bytes(), vec![5]),
        usize::MAX,
    );
    assert_eq!(run.status, RunStatus::Done);
    assert_eq!(library.len(), 1);
    assert_eq!(library.list()[0].session.memory.archive().len(), 2);
    // Read again later, by another version, it adds nothing.
    let mut again = ImportRun::start("one.json", text.len() as u64, 2);
    let mut posted = Vec::new();
    import_stream(text.as_bytes(), 99_999, "other", |p| posted.push(p));
    apply(&mut library, &mut again, &posted, usize::MAX);
    assert_eq!((library.len(), again.added, again.already), (1, 0, 1));

    let mut huge = b"{\"messages\": \"".to_vec();
    huge.resize(MAX_IMPORT_BYTES + 10, b'a');
    let posted = posts(&huge, vec![1 << 20]);
    let [FromImporter::Failed { reason, .. }] = posted.as_slice() else {
        panic!("{posted:?}")
    };
    assert!(reason.contains("neither an array"), "{reason}");
}

#[test]
fn the_run_says_how_far_it_got_what_is_left_and_what_a_crash_leaves_to_say() {
    let mut run = ImportRun::start("x.json", 1_000, 10_000);
    assert_eq!(run.left_ms(10_000), None);
    let added = Added {
        added: 8,
        already: 2,
        unreadable: vec![],
        first: None,
    };
    run.batch(250, 10, &added, vec!["[3]: no messages".into()], 11_000);
    // A quarter in one second: three more to go.
    assert_eq!(run.left_ms(11_000), Some(3_000));
    assert_eq!(run.rate(), 10.0);
    let mark = run.mark().unwrap();
    assert_eq!(
        mark,
        ImportMark {
            file: "x.json".into(),
            imported_ms: 10_000,
            total_bytes: 1_000,
            bytes: 250,
            read: 10,
            added: 8
        }
    );
    // After a crash, the library holds what landed of the import: three sessions here.
    let mut library = Library::default();
    let s = |_: &str| session::synthetic(2);
    library.add_placed(
        (0..3).map(|i| (format!("s{i}"), s("kept"), i)),
        Some("x.json"),
        10_000,
    );
    library.add_placed([("t".into(), s("other import"), 0)], Some("x.json"), 9_000);
    let back = ImportRun::cut_off(ImportMark::decode(&mark.encode()).unwrap(), &library);
    assert!(back.cut_off);
    assert_eq!(back.status, RunStatus::Stopped);
    assert_eq!(
        (back.bytes, back.read, back.added, back.already),
        (250, 10, 3, 2)
    );
    assert_eq!(ImportMark::decode("not a mark"), None);

    run.stop(12_000);
    assert_eq!(run.mark(), None);
    assert_eq!(run.left_ms(12_000), None);
    // A batch the worker sent before it was ended is not counted.
    run.batch(500, 10, &added, vec![], 12_500);
    assert_eq!((run.bytes, run.read), (250, 10));
    run.ended(
        &FromImporter::Done {
            bytes: 1_000,
            source: "s".into(),
        },
        13_000,
    );
    assert_eq!(run.status, RunStatus::Stopped);
}

#[test]
fn the_stable_id_follows_the_content_and_the_place() {
    let text = chatgpt_export(2, 2);
    let mut ids = Vec::new();
    import_stream(text.as_bytes(), 1, "v", |p| {
        if let FromImporter::Batch { pieces, .. } = p {
            ids.extend(pieces.into_iter().map(|p| p.id));
        }
    });
    let mut again = Vec::new();
    import_stream(text.as_bytes(), 2, "w", |p| {
        if let FromImporter::Batch { pieces, .. } = p {
            again.extend(pieces.into_iter().map(|p| p.id));
        }
    });
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1]);
    assert_eq!(ids, again, "the date and the app's version change no id");
    let c = Conversation {
        title: Some("t".into()),
        ..Conversation::default()
    };
    assert_ne!(stable_id(&c, 0), stable_id(&c, 1));
    let other = Conversation {
        title: Some("u".into()),
        ..Conversation::default()
    };
    assert_ne!(stable_id(&c, 0), stable_id(&other, 0));
}

#[test]
fn the_wire_reads_back_and_a_bad_answer_is_named() {
    let batch = FromImporter::Batch {
        bytes: 3,
        pieces: vec![Piece {
            id: "imp-1".into(),
            position: 0,
            file: "{}".into(),
        }],
        skipped: vec!["[2]: x".into()],
    };
    assert_eq!(FromImporter::decode(&batch.encode()), Ok(batch));
    assert!(
        FromImporter::decode("{")
            .unwrap_err()
            .contains("import worker")
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The file cut into slices at any offsets gives the same sessions, under the same ids.
    #[test]
    fn an_export_cut_anywhere_imports_the_same(
        n in 1usize..12,
        turns in 1usize..5,
        sizes in prop::collection::vec(1usize..300, 1..6),
    ) {
        let text = chatgpt_export(n, turns);
        let whole = posts(text.as_bytes(), vec![text.len()]);
        let cut = posts(text.as_bytes(), sizes);
        let pieces = |posted: &[FromImporter]| -> Vec<Piece> {
            posted
                .iter()
                .flat_map(|p| match p {
                    FromImporter::Batch { pieces, .. } => pieces.clone(),
                    _ => vec![],
                })
                .collect()
        };
        prop_assert_eq!(pieces(&whole), pieces(&cut));
        prop_assert_eq!(pieces(&whole).len(), n);
        prop_assert_eq!(whole.last(), cut.last());
    }
}

/// The worker's loop with the page's word: the file read from its start, each batch posted
/// and, `lag` batches later, said written; after a pause, read on from the offset named.
/// Returns the posts, and the most batches that were ever posted and not written.
fn posts_held_back(text: &[u8], lag: usize) -> (Vec<FromImporter>, usize) {
    let mut importing = Importing::new(1_000, "test");
    let mut posted = Vec::new();
    let mut most = 0;
    let mut written = 0;
    importing.start(BufReader::with_capacity(64, text), |p| posted.push(p));
    loop {
        most = most.max(importing.unwritten());
        let batches = posted
            .iter()
            .filter(|p| matches!(p, FromImporter::Batch { .. }))
            .count();
        // The page writes batches in order, keeping up to `lag` of them waiting.
        if written + lag >= batches {
            if matches!(
                posted.last(),
                Some(FromImporter::Done { .. } | FromImporter::Failed { .. })
            ) {
                return (posted, most);
            }
            assert!(written < batches, "the worker waits on no batch");
        }
        written += 1;
        if let Then::ReadOn { offset } = importing.written() {
            let rest = &text[offset as usize..];
            importing.resume(BufReader::with_capacity(64, rest), |p| posted.push(p));
        }
    }
}

#[test]
fn the_worker_reads_on_only_as_the_page_writes_and_posts_what_it_posts_unheld() {
    let mut entries: Vec<Value> = serde_json::from_str(&chatgpt_export(900, 10)).unwrap();
    entries.insert(400, json!({"title": "Broken", "mapping": 7}));
    let text = Value::Array(entries).to_string();
    let unheld = posts(text.as_bytes(), vec![4096]);
    let unheld_batches = unheld
        .iter()
        .filter(|p| matches!(p, FromImporter::Batch { .. }))
        .count();
    assert!(unheld_batches > IN_FLIGHT + 2, "{unheld_batches} batches");
    for lag in [0, 1, IN_FLIGHT] {
        let (held, most) = posts_held_back(text.as_bytes(), lag);
        assert!(most <= IN_FLIGHT, "{most} batches unwritten at once");
        // The same sessions, under the same ids and places, and the skipped entry named.
        let pieces = |posted: &[FromImporter]| -> (Vec<Piece>, Vec<String>) {
            let mut pieces = Vec::new();
            let mut skipped = Vec::new();
            for p in posted {
                if let FromImporter::Batch {
                    pieces: p,
                    skipped: s,
                    ..
                } = p
                {
                    pieces.extend(p.iter().cloned());
                    skipped.extend(s.iter().cloned());
                }
            }
            (pieces, skipped)
        };
        assert_eq!(pieces(&held), pieces(&unheld), "lag {lag}");
        assert_eq!(pieces(&held).1.len(), 1);
        assert_eq!(held.last(), unheld.last(), "lag {lag}");
        // How far the file was read only grows.
        let mut last = 0;
        for p in &held {
            if let FromImporter::Batch { bytes, .. } = p {
                assert!(*bytes >= last, "lag {lag}");
                last = *bytes;
            }
        }
    }
}
