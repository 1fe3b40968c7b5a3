//! The decisions the shell's runner asks the library for (`record.rs`, `sync.rs`, `tab.rs`), each
//! fed the result of the I/O as the runner feeds it.

use super::*;
use crate::app::storage::StoreError;
use crate::engine::drift::PinnedFact;
use crate::engine::message::WordCounter;
use crate::engine::session::{ImportError, export, import, import_all};
use crate::view::live::ReplyEnd;

const FILE: &[u8] = br#"[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]"#;

fn session(name: &str) -> Session {
    let mut s = import(FILE, &WordCounter).unwrap();
    s.name = name.into();
    s
}

fn entry(id: &str, name: &str, revision: u64) -> Entry {
    Entry {
        id: id.into(),
        session: session(name),
        updated_ms: 10,
        revision,
    }
}

fn names(library: &Library) -> Vec<&str> {
    library
        .list()
        .iter()
        .map(|e| e.session.name.as_str())
        .collect()
}

/// Performs every pending write as a store nobody else writes to would, through `landed`.
fn land_all(library: &mut Library) -> Vec<Broadcast> {
    let ops = library.take_pending();
    ops.iter().map(|op| library.landed(op)).collect()
}

#[test]
fn a_write_becomes_the_record_the_store_keeps_and_reads_back_as_it_was() {
    let kept = entry("a", "Alpha", 3);
    let put = SaveOp::Put {
        entry: Box::new(kept.clone()),
        expected: Some(2),
    };
    let record = put.record("test").unwrap();
    assert_eq!(
        (record.id.as_str(), record.name.as_str(), record.revision),
        ("a", "Alpha", 3)
    );
    assert_eq!((put.id(), put.expected()), ("a", Some(2)));
    assert_eq!(record.deleted_ms, None);
    assert_eq!(record.clone().read(&WordCounter), Ok((kept.clone(), None)));
    // A rename lands in the record's name, which wins over the name inside the file.
    let mut renamed = record.clone();
    renamed.name = "Renamed".into();
    assert_eq!(
        renamed.read(&WordCounter).unwrap().0.session.name,
        "Renamed"
    );

    let bury = SaveOp::Bury {
        entry: Box::new(kept.clone()),
        deleted_ms: 99,
        expected: None,
    };
    let buried = bury.record("test").unwrap();
    assert_eq!(buried.deleted_ms, Some(99));
    assert_eq!(buried.read(&WordCounter), Ok((kept, Some(99))));

    let delete = SaveOp::Delete {
        id: "a".into(),
        expected: Some(4),
    };
    assert_eq!(delete.record("test"), None);
    assert_eq!((delete.id(), delete.expected()), ("a", Some(4)));

    let broken = Record {
        file: "{".into(),
        ..record
    };
    let Err(unreadable) = broken.read(&WordCounter) else {
        panic!("a broken file reads")
    };
    assert_eq!(unreadable.name, "Alpha");
    assert!(
        unreadable
            .to_string()
            .starts_with("\u{201c}Alpha\u{201d}: "),
        "{unreadable}"
    );
}

#[test]
fn a_record_read_back_after_another_tab_wrote_it_is_the_session_or_its_deletion() {
    let kept = entry("a", "Alpha", 3);
    let record = Record::of(&kept, None, "test");
    assert_eq!(
        record.clone().read_current(&WordCounter),
        Ok(Some(kept.clone()))
    );
    // A tombstone is a deletion, however broken its file.
    let tombstone = Record {
        deleted_ms: Some(5),
        file: "{".into(),
        ..record.clone()
    };
    assert_eq!(tombstone.read_current(&WordCounter), Ok(None));
    let broken = Record {
        file: "{".into(),
        ..record
    };
    let error = broken.read_current(&WordCounter).unwrap_err();
    let StoreError::Unreadable { name, reason } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(name, "Alpha");
    assert_eq!(
        error.to_string(),
        format!("\u{201c}Alpha\u{201d} could not be read: {reason}")
    );
}

#[test]
fn a_landed_write_is_confirmed_and_told_to_the_other_tabs() {
    let mut library = Library::default();
    library.add("a".into(), session("Alpha"), 1).unwrap();
    library.add("b".into(), session("Beta"), 2).unwrap();
    assert_eq!(
        land_all(&mut library),
        [
            Broadcast::Saved {
                id: "a".into(),
                revision: 1
            },
            Broadcast::Saved {
                id: "b".into(),
                revision: 1
            }
        ]
    );
    // Confirmed: this tab's own broadcast means nothing to it, and the next write names it.
    let own = Broadcast::Saved {
        id: "a".into(),
        revision: 1,
    };
    assert_eq!(library.remote(&own), Remote::Ignore);
    assert!(!library.unsaved("a"));
    // A burial is a deletion to the other tabs; so is the removal when the undo is given up.
    library.delete("a", 5).unwrap();
    assert_eq!(
        land_all(&mut library),
        [Broadcast::Deleted { id: "a".into() }]
    );
    library.dismiss_undo();
    let ops = library.take_pending();
    assert!(
        matches!(
            &ops[..],
            [SaveOp::Delete {
                expected: Some(2),
                ..
            }]
        ),
        "{ops:?}"
    );
    assert_eq!(
        library.landed(&ops[0]),
        Broadcast::Deleted { id: "a".into() }
    );
    // Removed: a later record of that id would be a new one.
    library.add("a".into(), session("Again"), 6).unwrap();
    assert!(matches!(
        &library.take_pending()[..],
        [SaveOp::Put { expected: None, .. }]
    ));
}

#[test]
fn a_load_replaces_what_is_in_memory_and_keeps_sessions_made_before_it_finished() {
    let stored = |e: &Entry, deleted_ms| Record::of(e, deleted_ms, "test");
    let mut broken = stored(&entry("x", "Broken", 1), None);
    broken.file = "not json".into();
    let records = vec![
        stored(&entry("s", "Stored", 4), None),
        stored(&entry("d", "Deleted", 2), Some(1_000)),
        broken,
    ];
    let mut library = Library::default();
    // An import, and an in-memory copy of a stored session, both from before the load.
    library
        .add("new".into(), session("Early import"), 20)
        .unwrap();
    library.add("s".into(), session("Stale copy"), 20).unwrap();
    let problem = library.load(records, &WordCounter, 2_000);
    assert_eq!(names(&library), ["Early import", "Stored"]);
    assert_eq!(
        library.get("s").unwrap().revision,
        4,
        "the store's version wins"
    );
    assert_eq!(library.undoable(), Some("Deleted"));
    // The early import is written as a new record; the stored ones need no write.
    let ops = library.take_pending();
    assert!(
        matches!(&ops[..], [SaveOp::Put { entry, expected: None }] if entry.id == "new"),
        "{ops:?}"
    );
    let Some(Problem::Skipped(skipped)) = &problem else {
        panic!("{problem:?}")
    };
    assert_eq!(skipped.len(), 1);
    assert!(problem.unwrap().to_string().starts_with(
        "Some saved sessions could not be read and were skipped: \u{201c}Broken\u{201d}: "
    ));
    // Nothing broken, nothing to say.
    let mut clean = Library::default();
    assert_eq!(clean.load(Vec::new(), &WordCounter, 0), None);
}

#[test]
fn another_tabs_version_replaces_this_one_and_closes_it_when_deleted_there() {
    let mut library = Library::default();
    library.add("s".into(), session("Mine"), 1).unwrap();
    land_all(&mut library);
    let mut tab = LibraryTab::default();
    tab.open("s".into());

    let theirs = entry("s", "Theirs", 2);
    let notice = library.take_remote("s", Some(theirs.clone()));
    assert_eq!(
        notice,
        RemoteNotice {
            id: "s".into(),
            name: "Theirs".into(),
            unsaved: false
        }
    );
    assert_eq!(library.get("s"), Some(&theirs));
    tab.show_remote(notice, &library);
    assert_eq!(tab.selected(), Some("s"), "still listed, so still open");

    // Deleted there: named after this tab's version, taken out, and closed here.
    let notice = library.take_remote("s", None);
    assert_eq!(notice.name, "Theirs");
    assert!(library.is_empty());
    tab.show_remote(notice.clone(), &library);
    assert_eq!((tab.selected(), tab.remote()), (None, Some(&notice)));
    tab.dismiss_remote();
    assert_eq!(tab.remote(), None);
}

#[test]
fn a_conflict_is_answered_by_taking_theirs_or_keeping_mine_as_a_copy() {
    let mut library = Library::default();
    library.add("s".into(), session("Mine"), 1).unwrap();
    let _refused = library.take_pending();
    assert_eq!(
        library.conflict_notice("s"),
        RemoteNotice {
            id: "s".into(),
            name: "Mine".into(),
            unsaved: true
        }
    );
    let theirs = entry("s", "Theirs", 2);
    let mut copy = library.clone();
    copy.resolve("s", Some(theirs.clone()), Some("c".into()), 50)
        .unwrap();
    assert_eq!(names(&copy), ["Mine (copy)", "Theirs"]);
    library.resolve("s", Some(theirs), None, 5).unwrap();
    assert_eq!(names(&library), ["Theirs"]);
    assert!(!library.has_pending());
    // A copy under a taken id is refused, and the tab shows why.
    let mut tab = LibraryTab::default();
    tab.write_failed(
        &SaveOp::Put {
            entry: Box::new(entry("s", "Mine", 3)),
            expected: Some(1),
        },
        StoreError::Conflict {
            name: "Mine".into(),
        },
    );
    let refused = copy.resolve("s", None, Some("c".into()), 6);
    assert_eq!(refused, Err(LibraryError::DuplicateId("c".into())));
    tab.resolved(refused);
    assert_eq!(tab.remote(), None);
    assert_eq!(
        tab.problem(),
        Some(&Problem::Library(LibraryError::DuplicateId("c".into())))
    );
    tab.resolved(Ok(()));
    assert_eq!(tab.problem(), None);
}

#[test]
fn a_put_beaten_by_another_tab_is_a_choice_and_any_other_failure_an_alert() {
    let put = SaveOp::Put {
        entry: Box::new(entry("s", "Mine", 2)),
        expected: Some(1),
    };
    let bury = SaveOp::Bury {
        entry: Box::new(entry("s", "Mine", 2)),
        deleted_ms: 3,
        expected: Some(1),
    };
    let conflict = StoreError::Conflict {
        name: "Stored name".into(),
    };
    let mut tab = LibraryTab::default();
    tab.write_failed(&put, conflict.clone());
    assert_eq!(tab.problem(), None);
    assert_eq!(
        tab.remote(),
        Some(&RemoteNotice {
            id: "s".into(),
            name: "Stored name".into(),
            unsaved: true
        })
    );
    // A refused burial cannot be offered as a copy: it is an alert, and a reload settles it.
    let mut tab = LibraryTab::default();
    tab.write_failed(&bury, conflict.clone());
    assert!(tab.offers_reload());
    assert_eq!(tab.problem().unwrap().to_string(), conflict.to_string());
    // The latest problem wins; a full disk is not settled by a reload.
    tab.write_failed(&put, StoreError::QuotaExceeded);
    assert_eq!(
        tab.problem(),
        Some(&Problem::Store(StoreError::QuotaExceeded))
    );
    assert!(!tab.offers_reload());
    tab.report(LibraryError::EmptyName);
    assert_eq!(
        tab.problem().unwrap().to_string(),
        "a session needs a name; type at least one letter"
    );
    tab.report_result(Ok::<(), LibraryError>(()));
    assert!(
        tab.problem().is_some(),
        "a success elsewhere clears nothing"
    );
    tab.reloading();
    assert_eq!(tab.problem(), None);
}

#[test]
fn an_imported_file_adds_every_session_and_opens_the_first() {
    let mut library = Library::default();
    let two = crate::engine::session::export_all(&[session("One"), session("Two")], 1, "test");
    let mut ids = 0;
    let mut new_id = || {
        ids += 1;
        format!("id{ids}")
    };
    let first = library
        .import("two.json", two.as_bytes(), &WordCounter, &mut new_id, 5)
        .unwrap();
    assert_eq!(first.as_deref(), Some("id1"));
    assert_eq!(names(&library), ["One", "Two"]);
    let mut tab = LibraryTab::default();
    tab.report(StoreError::QuotaExceeded);
    tab.imported(first);
    assert_eq!((tab.selected(), tab.problem()), (Some("id1"), None));

    let before = library.clone();
    let error = library
        .import("bad.json", b"{\"x\": 1}", &WordCounter, &mut new_id, 6)
        .unwrap_err();
    assert_eq!(library, before, "nothing changed");
    let FileError::Invalid { file, error: why } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(file, "bad.json");
    assert_eq!(
        error.to_string(),
        format!("bad.json was not imported, and nothing changed: {why}.")
    );
    assert_eq!(
        FileError::Unreadable {
            file: "f.json".into()
        }
        .to_string(),
        "f.json could not be read; choose the file again."
    );
}

#[test]
fn a_file_over_the_limit_is_refused_before_it_is_read() {
    let limit = crate::engine::session::MAX_IMPORT_BYTES as u64;
    assert_eq!(check_file_size("big.json", limit), Ok(()));
    let error = check_file_size("big.json", limit + 1).unwrap_err();
    assert_eq!(
        error,
        FileError::TooLarge {
            file: "big.json".into(),
            error: ImportError::TooLarge {
                bytes: limit as usize + 1,
                limit: limit as usize
            }
        }
    );
    assert!(
        error
            .to_string()
            .starts_with("big.json could not be imported: the file is "),
        "{error}"
    );
}

#[test]
fn the_export_holds_the_open_session_or_else_every_session() {
    let mut library = Library::default();
    library.add("a".into(), session("Alpha"), 1).unwrap();
    library.add("b".into(), session("Beta"), 2).unwrap();
    let one = library.export(Some("a"), 7, "test");
    assert_eq!(one, export(&session("Alpha"), 7, "test"));
    let all = import_all(library.export(None, 7, "test").as_bytes(), &WordCounter).unwrap();
    assert_eq!(all.len(), 2);
    // An open session deleted meanwhile exports everything, rather than nothing.
    let gone = import_all(
        library.export(Some("zz"), 7, "test").as_bytes(),
        &WordCounter,
    );
    assert_eq!(gone.unwrap().len(), 2);
}

#[test]
fn a_change_of_the_live_chat_is_what_is_saved_never_a_streamed_piece() {
    let mut live = LiveSession::default();
    let empty = LiveShape::of(&live);
    assert!(empty.settled());
    live.send("hi", 1, &WordCounter).unwrap();
    let asked = LiveShape::of(&live);
    assert_ne!(
        asked, empty,
        "the user's message is archived before the request"
    );
    assert!(!asked.settled(), "a reply is on its way");
    live.delta("hel");
    live.delta("lo");
    assert_eq!(
        LiveShape::of(&live),
        asked,
        "streamed pieces change nothing saved"
    );
    live.finish(ReplyEnd::Complete("hello".into()), 2, &WordCounter);
    let answered = LiveShape::of(&live);
    assert!(answered.settled());
    assert_ne!(answered, asked);
    // Pinning a fact changes nothing in the memory, and is a change all the same.
    let policy = live.memory().policy().clone();
    live.set_policy(policy, vec![PinnedFact::phrase("hi", "hi")])
        .unwrap();
    assert_ne!(LiveShape::of(&live), answered);
}

#[test]
fn the_kept_live_chat_is_resumed_only_into_an_empty_chat() {
    let mut chat = LiveSession::default();
    chat.send("hi", 1, &WordCounter).unwrap();
    chat.finish(ReplyEnd::Stopped("hel".into()), 2, &WordCounter);
    let mut library = Library::default();
    let id = library.keep_live(None, || "live".into(), &chat, 3);
    let empty = LiveSession::default();
    let resumed = library.resume(id.as_deref(), &empty).unwrap();
    assert_eq!(
        (resumed.memory(), resumed.record()),
        (chat.memory(), chat.record())
    );
    assert!(
        library.resume(id.as_deref(), &chat).is_none(),
        "a chat under way stays"
    );
    assert!(library.resume(None, &empty).is_none());
    assert!(library.resume(Some("deleted"), &empty).is_none());
}

#[test]
fn an_import_says_what_it_read_and_adds_every_conversation() {
    let mut library = Library::default();
    let mut ids = 0;
    let mut new_id = || {
        ids += 1;
        format!("t{ids}")
    };
    let export = include_str!("../../../tests/fixtures/transcripts/chatgpt_conversations.json");
    let imported = library
        .import_read(
            "conversations.json",
            export.as_bytes(),
            &WordCounter,
            &mut new_id,
            3,
        )
        .unwrap();
    assert_eq!(imported.first.as_deref(), Some("t1"));
    assert_eq!(imported.count, 2);
    assert_eq!(imported.source.slug(), "chatgpt-export");
    assert_eq!(
        imported.note,
        "Read 2 conversations from a ChatGPT data export."
    );
    assert_eq!(library.len(), 2);

    let before = library.clone();
    let error = library
        .import_read(
            "pasted transcript",
            b"[{\"role\": \"robot\", \"content\": \"x\"}]",
            &WordCounter,
            &mut new_id,
            4,
        )
        .unwrap_err();
    assert_eq!(library, before, "nothing changed");
    assert_eq!(
        error.to_string(),
        "pasted transcript was not imported, and nothing changed: at [0].role: unknown role \"robot\"; expected system, developer, user, assistant, tool or function."
    );
}
