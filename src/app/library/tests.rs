use super::*;
use crate::engine::message::WordCounter;
use crate::engine::session::import;

/// A two-message session named `name`; the sync tests use it too.
pub(super) fn session(name: &str) -> Session {
    let mut s = import(
        br#"[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]"#,
        &WordCounter,
    )
    .unwrap();
    s.name = name.into();
    s
}

/// The names the library lists, in its order.
pub(super) fn names(library: &Library) -> Vec<&str> {
    library
        .list()
        .iter()
        .map(|e| e.session.name.as_str())
        .collect()
}

/// Applies every pending write as a store that nobody else writes to would.
fn store_all(library: &mut Library) -> Vec<SaveOp> {
    let ops = library.take_pending();
    for op in &ops {
        match op {
            SaveOp::Put { entry, .. } | SaveOp::Bury { entry, .. } => {
                library.saved(&entry.id, entry.revision)
            }
            SaveOp::Delete { id, .. } => library.removed(id),
        }
    }
    ops
}

#[test]
fn newest_change_first_then_by_name() {
    let mut library = Library::default();
    library.add("a".into(), session("Alpha"), 10).unwrap();
    library.add("b".into(), session("Beta"), 30).unwrap();
    library.add("c".into(), session("Gamma"), 30).unwrap();
    assert_eq!(names(&library), ["Beta", "Gamma", "Alpha"]);
    library.rename("a", "  Aleph ", 40).unwrap();
    assert_eq!(names(&library), ["Aleph", "Beta", "Gamma"]);
    assert_eq!(library.get("a").unwrap().revision, 2);
}

#[test]
fn refused_operations_change_nothing() {
    let mut library = Library::default();
    library.add("a".into(), session("Alpha"), 1).unwrap();
    let before = library.clone();
    assert_eq!(library.rename("a", "   ", 2), Err(LibraryError::EmptyName));
    assert_eq!(
        library.rename("zz", "x", 2),
        Err(LibraryError::Unknown("zz".into()))
    );
    assert_eq!(
        library.add("a".into(), session("Other"), 2),
        Err(LibraryError::DuplicateId("a".into()))
    );
    assert_eq!(library.undo_delete(), Err(LibraryError::NothingToUndo));
    assert_eq!(library, before);
}

#[test]
fn a_duplicate_is_an_independent_copy() {
    let mut library = Library::default();
    library.add("a".into(), session("Chat"), 1).unwrap();
    library.duplicate("a", "b".into(), 2).unwrap();
    assert_eq!(names(&library), ["Chat (copy)", "Chat"]);
    library.rename("b", "Policy B", 3).unwrap();
    assert_eq!(library.get("a").unwrap().session.name, "Chat");
    assert_eq!(
        library.get("b").unwrap().session.memory,
        library.get("a").unwrap().session.memory
    );
}

#[test]
fn undo_restores_the_deleted_session_exactly() {
    let mut library = Library::default();
    library.add("a".into(), session("Alpha"), 1).unwrap();
    library.add("b".into(), session("Beta"), 2).unwrap();
    store_all(&mut library);
    let kept = library.get("a").unwrap().clone();
    library.delete("a", 5).unwrap();
    assert_eq!(names(&library), ["Beta"]);
    assert_eq!(library.undoable(), Some("Alpha"));
    assert_eq!(library.undo_delete(), Ok("a".to_owned()));
    let back = library.get("a").unwrap();
    assert_eq!(
        (&back.session, back.updated_ms),
        (&kept.session, kept.updated_ms)
    );
    assert_eq!(library.undoable(), None);
    // Only the last deletion can be undone.
    library.delete("a", 6).unwrap();
    library.delete("b", 7).unwrap();
    assert_eq!(library.undo_delete(), Ok("b".to_owned()));
    assert_eq!(library.undo_delete(), Err(LibraryError::NothingToUndo));
    assert_eq!(names(&library), ["Beta"]);
}

#[test]
fn writes_name_the_revision_the_store_last_confirmed() {
    let mut library = Library::default();
    library.add("a".into(), session("Alpha"), 1).unwrap();
    library.rename("a", "A2", 2).unwrap();
    // Two changes before a save become one put of the newest revision, of a new record.
    let ops = store_all(&mut library);
    assert_eq!(ops.len(), 1);
    let SaveOp::Put { entry, expected } = &ops[0] else {
        panic!("{ops:?}")
    };
    assert_eq!((entry.revision, *expected), (2, None));

    library.rename("a", "A3", 3).unwrap();
    let ops = library.take_pending();
    assert!(matches!(&ops[..], [SaveOp::Put { entry, expected: Some(2) }] if entry.revision == 3));
    // The write failed, so it is not confirmed: the next one still names revision 2.
    library.rename("a", "A4", 4).unwrap();
    let ops = store_all(&mut library);
    assert!(matches!(&ops[..], [SaveOp::Put { entry, expected: Some(2) }] if entry.revision == 4));

    library.delete("a", 5).unwrap();
    let ops = store_all(&mut library);
    assert!(
        matches!(&ops[..], [SaveOp::Bury { entry, deleted_ms: 5, expected: Some(4) }] if entry.revision == 5),
        "{ops:?}"
    );
    // Undo writes the buried record back, alive.
    library.undo_delete().unwrap();
    let ops = store_all(&mut library);
    assert!(matches!(&ops[..], [SaveOp::Put { entry, expected: Some(5) }] if entry.revision == 6));
    // A second deletion, then giving up the undo, removes the record for good.
    library.delete("a", 7).unwrap();
    library.dismiss_undo();
    let ops = store_all(&mut library);
    assert_eq!(
        ops,
        [SaveOp::Delete {
            id: "a".into(),
            expected: Some(6)
        }]
    );
    assert_eq!(library.undoable(), None);
    assert!(!library.has_pending());
}

#[test]
fn a_library_loaded_from_the_store_has_nothing_to_write() {
    let mut library = Library::default();
    library.add("a".into(), session("Alpha"), 1).unwrap();
    library.rename("a", "A", 5).unwrap();
    let loaded = Library::from_stored(library.list().to_vec());
    let mut loaded = loaded;
    assert!(!loaded.has_pending());
    loaded.rename("a", "B", 6).unwrap();
    assert!(matches!(
        &loaded.take_pending()[..],
        [SaveOp::Put {
            expected: Some(2),
            ..
        }]
    ));
}

#[test]
fn the_undo_of_a_delete_survives_a_reload_for_a_week() {
    let mut library = Library::default();
    library.add("a".into(), session("Alpha"), 1).unwrap();
    library.add("b".into(), session("Beta"), 2).unwrap();
    library.add("c".into(), session("Gamma"), 3).unwrap();
    store_all(&mut library);
    library.delete("a", 100).unwrap();
    let ops = store_all(&mut library);
    let [SaveOp::Bury { entry, .. }] = &ops[..] else {
        panic!("{ops:?}")
    };
    // What the store holds after the reload: two live records and the buried one.
    let mut reloaded = Library::from_stored_with_deleted(
        library.list().to_vec(),
        vec![((**entry).clone(), 100)],
        100 + UNDO_KEEP_MS - 1,
    );
    assert!(!reloaded.has_pending());
    assert_eq!(reloaded.undoable(), Some("Alpha"));
    assert_eq!(reloaded.undo_delete(), Ok("a".to_owned()));
    assert!(matches!(
        &reloaded.take_pending()[..],
        [SaveOp::Put { entry, expected: Some(2) }] if entry.id == "a" && entry.revision == 3
    ));

    // A week later the tombstone is gone; of two tombstones only the newer can be undone.
    let old = Library::from_stored_with_deleted(
        Vec::new(),
        vec![((**entry).clone(), 100)],
        100 + UNDO_KEEP_MS,
    );
    assert_eq!(old.undoable(), None);
    let mut old = old;
    assert_eq!(
        old.take_pending(),
        [SaveOp::Delete {
            id: "a".into(),
            expected: Some(2)
        }]
    );
    let mut b = (**entry).clone();
    b.id = "b".into();
    b.session.name = "Beta".into();
    let mut two = Library::from_stored_with_deleted(
        Vec::new(),
        vec![((**entry).clone(), 100), (b, 200)],
        300,
    );
    assert_eq!(two.undoable(), Some("Beta"));
    assert!(matches!(&two.take_pending()[..], [SaveOp::Delete { id, .. }] if id == "a"));
}

#[test]
fn broadcasts_round_trip_and_strangers_are_ignored() {
    for message in [
        Broadcast::Saved {
            id: "18c-00ab cd".into(),
            revision: 7,
        },
        Broadcast::Deleted { id: "x".into() },
    ] {
        assert_eq!(Broadcast::decode(&message.encode()), Some(message));
    }
    for junk in ["", "saved", "saved x y", "deleted ", "hello 1 a"] {
        assert_eq!(Broadcast::decode(junk), None, "{junk:?}");
    }
}

/// Two tabs over one store: `a` and `b` each loaded the same saved session.
fn two_tabs() -> (Library, Library) {
    let mut first = Library::default();
    first.add("s".into(), session("Alpha"), 1).unwrap();
    store_all(&mut first);
    let second = Library::from_stored(first.list().to_vec());
    (first, second)
}

#[test]
fn another_tabs_save_is_picked_up_when_this_tab_has_no_unsaved_change() {
    let (mut a, mut b) = two_tabs();
    a.rename("s", "Renamed in A", 2).unwrap();
    store_all(&mut a);
    let message = Broadcast::Saved {
        id: "s".into(),
        revision: 2,
    };
    // A hears its own message too, and ignores it.
    assert_eq!(a.remote(&message), Remote::Ignore);
    assert_eq!(b.remote(&message), Remote::Reload("s".into()));
    b.accept_stored("s", a.get("s").cloned());
    assert_eq!(b.get("s").unwrap().session.name, "Renamed in A");
    assert_eq!(b.remote(&message), Remote::Ignore);
    // B's next change is based on the revision it picked up.
    b.rename("s", "B", 3).unwrap();
    assert!(matches!(
        &b.take_pending()[..],
        [SaveOp::Put {
            expected: Some(2),
            ..
        }]
    ));

    // A deletion elsewhere removes the session here.
    let (mut a, mut b) = two_tabs();
    a.delete("s", 5).unwrap();
    store_all(&mut a);
    let gone = Broadcast::Deleted { id: "s".into() };
    assert_eq!(a.remote(&gone), Remote::Ignore, "A keeps its undo");
    assert_eq!(b.remote(&gone), Remote::Reload("s".into()));
    b.accept_stored("s", None);
    assert!(b.is_empty());
    assert_eq!(b.remote(&gone), Remote::Ignore);
}

#[test]
fn with_an_unsaved_change_this_tab_can_keep_its_version_as_a_copy() {
    let (mut a, mut b) = two_tabs();
    a.rename("s", "Renamed in A", 2).unwrap();
    store_all(&mut a);
    // B's own rename was refused by the store (A's write came first): it is unsaved.
    b.rename("s", "Renamed in B", 3).unwrap();
    let _refused = b.take_pending();
    assert!(b.unsaved("s"));
    let message = Broadcast::Saved {
        id: "s".into(),
        revision: 2,
    };
    assert_eq!(b.remote(&message), Remote::Conflict("s".into()));
    b.keep_as_copy("s", "s2".into(), a.get("s").cloned(), 4)
        .unwrap();
    assert_eq!(names(&b), ["Renamed in B (copy)", "Renamed in A"]);
    assert!(!b.unsaved("s"));
    let ops = store_all(&mut b);
    assert!(
        matches!(&ops[..], [SaveOp::Put { entry, expected: None }] if entry.id == "s2"),
        "{ops:?}"
    );
    // Or it takes the other version and drops its own.
    let (mut a, mut b) = two_tabs();
    a.rename("s", "Renamed in A", 2).unwrap();
    store_all(&mut a);
    b.rename("s", "Renamed in B", 3).unwrap();
    b.accept_stored("s", a.get("s").cloned());
    assert_eq!(names(&b), ["Renamed in A"]);
    assert!(!b.has_pending());
}

#[test]
fn the_live_chat_is_kept_as_one_session_while_it_goes_on() {
    use crate::app::live::{CallKind, ReplyEnd};
    use crate::engine::drift::PinnedFact;
    let mut live = LiveSession::default();
    let mut library = Library::default();
    let mut ids = 0;
    let mut fresh = || {
        ids += 1;
        format!("live{ids}")
    };
    // Nothing is kept before the first message.
    assert_eq!(
        library.keep_live(None, &mut fresh, &live, 1, &WordCounter),
        None
    );
    assert!(library.is_empty());
    let sent = live.send("hi", 2, &WordCounter).unwrap();
    let id = library.keep_live(None, &mut fresh, &live, 2, &WordCounter);
    assert_eq!(id.as_deref(), Some("live1"));
    assert_eq!(names(&library), [LIVE_NAME]);
    live.finish(ReplyEnd::Stopped("hel".into()), 3, &WordCounter);
    live.record_call(CallKind::Chat, &sent, None, &WordCounter);
    library.rename("live1", "My chat", 3).unwrap();
    store_all(&mut library);
    assert_eq!(
        library.keep_live(id.as_deref(), &mut fresh, &live, 4, &WordCounter),
        id
    );
    let kept = library.get("live1").unwrap();
    assert_eq!((kept.session.name.as_str(), kept.revision), ("My chat", 3));
    assert_eq!(&kept.session.memory, live.memory());
    assert_eq!(kept.session.live.as_ref(), Some(live.record()));
    assert_eq!(kept.session.live.as_ref().unwrap().incomplete, [1].into());
    // The same state again writes nothing.
    store_all(&mut library);
    assert_eq!(
        library.keep_live(id.as_deref(), &mut fresh, &live, 5, &WordCounter),
        id
    );
    assert!(!library.has_pending());
    // Pinning a fact changes nothing in the memory, and is saved all the same.
    let policy = live.memory().policy().clone();
    live.set_policy(policy, vec![PinnedFact::phrase("hi", "hi")])
        .unwrap();
    assert_eq!(
        library.keep_live(id.as_deref(), &mut fresh, &live, 6, &WordCounter),
        id
    );
    assert_eq!(library.get("live1").unwrap().session.pinned, live.pinned());
    assert_eq!(library.get("live1").unwrap().revision, 4);

    // Another conversation (a demo run live) becomes a session of its own.
    let mut other = LiveSession::default();
    other.send("something else", 6, &WordCounter).unwrap();
    assert_eq!(
        library
            .keep_live(id.as_deref(), &mut fresh, &other, 6, &WordCounter)
            .as_deref(),
        Some("live2")
    );
    assert_eq!(library.len(), 2);
    assert!(!continues(live.memory(), other.memory()));
    assert!(continues(other.memory(), other.memory()));
}

#[test]
fn adding_a_batch_is_adding_each_in_turn() {
    let batch = |names: &[(&str, &str)]| -> Vec<(String, Session)> {
        names
            .iter()
            .map(|(id, name)| (id.to_string(), session(name)))
            .collect()
    };
    let mut one_by_one = Library::default();
    one_by_one.add("x".into(), session("Existing"), 5).unwrap();
    let mut at_once = one_by_one.clone();
    // "x" is taken already and the second "b" repeats an id of the batch: both are skipped.
    let items = batch(&[
        ("b", "Beta"),
        ("x", "Clash"),
        ("a", "Alpha"),
        ("b", "Again"),
    ]);
    let mut added = Vec::new();
    for (id, s) in items.clone() {
        if one_by_one.add(id.clone(), s, 9).is_ok() {
            added.push(id);
        }
    }
    assert_eq!(at_once.add_all(items, 9), added);
    assert_eq!(added, ["b", "a"]);
    assert_eq!(at_once.list(), one_by_one.list());
    assert_eq!(names(&at_once), ["Alpha", "Beta", "Existing"]);
    assert_eq!(at_once.take_pending(), one_by_one.take_pending());
}

#[test]
fn a_changed_probe_set_is_written_and_an_unchanged_one_is_not() {
    use crate::engine::library_session::{Evidence, Probe, ProbeSource};
    let mut library = Library::default();
    library.add("a".into(), session("Alpha"), 1).unwrap();
    store_all(&mut library);
    let same = library.get("a").unwrap().session.probes.clone();
    assert_eq!(library.set_probes("a", same.clone(), 2), Ok(false));
    assert!(!library.has_pending());
    let mut probes = same;
    probes.add([Probe {
        id: 0,
        question: "What did the user say first?".into(),
        evidence: Evidence {
            message: 0,
            quote: "hi".into(),
        },
        source: ProbeSource::User,
    }]);
    assert_eq!(library.set_probes("a", probes.clone(), 3), Ok(true));
    let ops = store_all(&mut library);
    assert!(matches!(&ops[..], [SaveOp::Put { entry, .. }] if entry.session.probes == probes));
    assert_eq!(library.get("a").unwrap().revision, 2);
    assert_eq!(
        library.set_probes("zz", probes, 4),
        Err(LibraryError::Unknown("zz".into()))
    );
}

mod merged_batches {
    use super::*;
    use proptest::prelude::*;

    /// A step of a library's life: a batch of (id, name) added at a time, a rename, a deletion.
    #[derive(Clone, Debug)]
    enum Step {
        /// At a time, from one of two files or none.
        Batch(u64, Option<u8>, Vec<(u8, u8)>),
        Rename(u8, u8, u64),
        Delete(u8, u64),
        Undo,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (0u64..4, prop::option::of(0u8..2), prop::collection::vec((0u8..40, 0u8..6), 0..12))
                .prop_map(|(ms, file, batch)| Step::Batch(ms, file, batch)),
            1 => (0u8..40, 0u8..6, 0u64..4).prop_map(|(id, name, ms)| Step::Rename(id, name, ms)),
            1 => (0u8..40, 0u64..4).prop_map(|(id, ms)| Step::Delete(id, ms)),
            1 => Just(Step::Undo),
        ]
    }

    proptest! {
        /// However batches, renames and deletions come (times repeating and going back, names
        /// tied, ids clashing, deletions undone), the list is what a full sort of its entries
        /// gives, every listed id is found by `get` and every place by `list().get`, and each
        /// import's count is its sessions listed. (Under test a chunk holds 4 entries, so the
        /// batches split and merge chunks all the time.)
        #[test]
        fn the_list_stays_fully_sorted(steps in prop::collection::vec(step(), 1..25)) {
            let mut library = Library::default();
            for step in steps {
                match step {
                    Step::Batch(ms, file, batch) => {
                        let sessions = batch
                            .into_iter()
                            .map(|(id, name)| (format!("s{id}"), session(&format!("N{name}"))));
                        let file = file.map(|f| format!("f{f}.json"));
                        library.add_imported(sessions, file.as_deref(), ms);
                    }
                    Step::Rename(id, name, ms) => {
                        let _ = library.rename(&format!("s{id}"), &format!("N{name}"), ms);
                    }
                    Step::Delete(id, ms) => {
                        let _ = library.delete(&format!("s{id}"), ms);
                    }
                    Step::Undo => {
                        let _ = library.undo_delete();
                    }
                }
                let listed = library.list().to_vec();
                let mut sorted = listed.clone();
                sorted.sort_by(order);
                prop_assert_eq!(&listed, &sorted);
                prop_assert_eq!(library.len(), listed.len());
                for (i, e) in listed.iter().enumerate() {
                    prop_assert_eq!(library.position(&e.id), Some(i));
                    prop_assert_eq!(library.list().get(i), Some(e));
                }
                prop_assert_eq!(library.list().get(listed.len()), None);
                prop_assert_eq!(library.index.len(), library.len());
                // Each import's count is its sessions listed.
                let mut counted: BTreeMap<(u64, String), usize> = BTreeMap::new();
                for origin in listed.iter().filter_map(|e| e.origin.as_ref()) {
                    *counted.entry((origin.imported_ms, origin.file.clone())).or_default() += 1;
                }
                let kept: BTreeMap<(u64, String), usize> = library
                    .list()
                    .imports()
                    .map(|(ms, file, n)| ((ms, file.to_owned()), n))
                    .collect();
                prop_assert_eq!(kept, counted);
            }
        }
    }
}
