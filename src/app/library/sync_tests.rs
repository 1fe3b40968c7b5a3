//! The decisions the shell's runner asks the library for (`record.rs`, `sync.rs`, `tab.rs`), each
//! fed the result of the I/O as the runner feeds it.

use super::tests::{names, session};
use super::*;
use crate::app::live::ReplyEnd;
use crate::app::storage::StoreError;
use crate::engine::drift::PinnedFact;
use crate::engine::message::WordCounter;
use crate::engine::session::{ImportError, export, import, import_all};

fn entry(id: &str, name: &str, revision: u64) -> Entry {
    Entry {
        id: id.into(),
        session: session(name),
        updated_ms: 10,
        revision,
        origin: None,
        counted_in: None,
    }
}

/// The library a reload reads: every entry written as the store writes it, and loaded back.
fn reloaded(library: &Library) -> Library {
    let records = library
        .list()
        .iter()
        .map(|e| Record::of(e, None, "test"))
        .collect();
    let mut back = Library::default();
    assert_eq!(back.load(records, &WordCounter, 1), None);
    back
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
fn an_import_records_its_file_time_and_each_sessions_place_and_the_record_keeps_them() {
    let mut library = Library::default();
    let three = crate::engine::session::export_all(
        &[session("Zed"), session("Alpha"), session("Mid")],
        1,
        "test",
    );
    let mut ids = 0;
    let mut new_id = || {
        ids += 1;
        format!("id{ids}")
    };
    library
        .import("three.json", three.as_bytes(), &WordCounter, &mut new_id, 7)
        .unwrap();
    library.add("chat".into(), session("A chat"), 8).unwrap();
    let origin = |library: &Library, id: &str| library.get(id).unwrap().origin.clone();
    // Listed by name, each keeps its place in the file.
    assert_eq!(
        origin(&library, "id1"),
        Some(Origin {
            file: "three.json".into(),
            imported_ms: 7,
            position: 0
        })
    );
    assert_eq!(origin(&library, "id2").map(|o| o.position), Some(1));
    assert_eq!(origin(&library, "id3").map(|o| o.position), Some(2));
    assert_eq!(origin(&library, "chat"), None);
    // A copy is a session of its own, from no import.
    library.duplicate("id2", "copy".into(), 9).unwrap();
    assert_eq!(origin(&library, "copy"), None);
    // The stored record keeps the origin beside the file, and reads back with it; a rename
    // keeps it.
    library.rename("id3", "Renamed", 10).unwrap();
    let kept = library.get("id3").unwrap().clone();
    let record = Record::of(&kept, None, "test");
    assert_eq!(record.origin, origin(&library, "id3"));
    assert_eq!(record.clone().read(&WordCounter), Ok((kept, None)));
    // A record stored before imports were recorded belongs to no import.
    let older = Record {
        origin: None,
        ..record
    };
    assert_eq!(older.read(&WordCounter).unwrap().0.origin, None);
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

/// The save effect used to skip the live chat while a reply streamed, so a reload mid-reply lost
/// the reply and, before its request ended, the user's message too. Now every change is saved at
/// once, and the reply as it arrives, throttled.
#[test]
fn a_change_of_the_live_chat_is_saved_at_once_and_a_streamed_reply_at_most_twice_a_second() {
    let mut live = LiveSession::default();
    let mut saves = LiveSaves::default();
    let empty = LiveShape::of(&live);
    assert_eq!(saves.decide(&empty, 0), SaveWhen::Now);
    assert_eq!(saves.decide(&empty, 10), SaveWhen::Nothing);
    live.send("hi", 1, &WordCounter).unwrap();
    let asked = LiveShape::of(&live);
    assert_ne!(
        asked, empty,
        "the user's message is archived before the request"
    );
    assert_eq!(
        saves.decide(&asked, 20),
        SaveWhen::Now,
        "saved before the reply"
    );
    live.delta("hel");
    assert_eq!(
        saves.decide(&LiveShape::of(&live), 120),
        SaveWhen::After(400),
        "a streamed piece soon after a save waits for the rest of the half second"
    );
    live.delta("lo");
    assert_eq!(saves.decide(&LiveShape::of(&live), 520), SaveWhen::Now);
    live.delta(&"x".repeat(STREAM_SAVE_BYTES));
    assert_eq!(
        saves.decide(&LiveShape::of(&live), 530),
        SaveWhen::Now,
        "a burst is saved without waiting"
    );
    live.finish(ReplyEnd::Complete("hello".into()), 2, &WordCounter);
    let answered = LiveShape::of(&live);
    assert_eq!(
        saves.decide(&answered, 540),
        SaveWhen::Now,
        "the end at once"
    );
    // Pinning a fact changes nothing in the memory, and is a change all the same.
    let policy = live.memory().policy().clone();
    live.set_policy(policy, vec![PinnedFact::phrase("hi", "hi")])
        .unwrap();
    assert_ne!(LiveShape::of(&live), answered);
    assert_eq!(saves.decide(&LiveShape::of(&live), 541), SaveWhen::Now);
}

/// A reload mid-reply used to lose the turn. The library now keeps the user's message before
/// the request, and the reply as far as it arrived, in the same session, marked incomplete;
/// the chat resumed after the reload shows both and offers Retry, and the finished reply
/// replaces the partial one in that same session.
#[test]
fn a_reply_kept_while_it_streams_resumes_marked_incomplete_with_retry() {
    let mut live = LiveSession::default();
    let mut library = Library::default();
    live.send("plan my savings", 1, &WordCounter).unwrap();
    let id = library.keep_live(None, || "live".into(), &live, 1, &WordCounter);
    let kept = &library.get("live").unwrap().session;
    assert_eq!(
        kept.memory.archive().len(),
        1,
        "the message alone, before any reply"
    );
    assert_eq!(kept.memory.archive()[0].content, "plan my savings");
    let ops = library.take_pending();
    assert!(matches!(&ops[..], [SaveOp::Put { .. }]), "{ops:?}");
    for op in &ops {
        library.landed(op);
    }

    live.delta("Start with an ");
    assert_eq!(
        library.keep_live(id.as_deref(), || "other".into(), &live, 2, &WordCounter),
        id
    );
    live.delta("emergency fund");
    assert_eq!(
        library.keep_live(id.as_deref(), || "other".into(), &live, 3, &WordCounter),
        id,
        "a longer partial reply goes on in the same session"
    );
    let kept = library.get("live").unwrap().session.clone();
    assert_eq!(library.len(), 1);
    assert_eq!(
        kept.memory.archive()[1].content,
        "Start with an emergency fund"
    );
    assert_eq!(kept.live.as_ref().unwrap().failed, [1].into());

    // The page closes here. Read back as the store reads it, the chat shows both messages,
    // the reply incomplete, and Retry asks for the whole reply again without the cut one.
    let back = import(export(&kept, 3, "test").as_bytes(), &WordCounter).unwrap();
    let (_, mut resumed) = reloaded(&library)
        .resume(id.as_deref(), &LiveSession::default(), 4)
        .unwrap();
    assert_eq!(LiveSession::resume_after_reload(&back, 4), resumed);
    let rows = resumed.rows();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1].state, crate::app::rows::RowState::Incomplete);
    assert!(resumed.retries_reply());
    assert!(resumed.error().unwrap().contains("Retry"));
    let crate::app::live::LiveAction::Reply(request) = resumed.retry(&WordCounter).unwrap() else {
        panic!("Retry asks for the reply");
    };
    assert!(
        request.iter().all(|m| !m.content.contains("emergency")),
        "the cut reply is not sent"
    );

    // Without the reload, the finished reply replaces the partial one in the same session.
    live.finish(
        ReplyEnd::Complete("Start with an emergency fund.".into()),
        5,
        &WordCounter,
    );
    assert_eq!(
        library.keep_live(id.as_deref(), || "other".into(), &live, 5, &WordCounter),
        id
    );
    let done = &library.get("live").unwrap().session;
    assert_eq!(&done.memory, live.memory());
    assert_eq!(done.live.as_ref(), Some(live.record()));
    assert_eq!(library.len(), 1);
}

/// A message whose reply never arrived (the page closed before any of it) is offered again too.
#[test]
fn a_message_with_no_reply_resumes_with_retry() {
    let mut live = LiveSession::default();
    live.send("hello?", 1, &WordCounter).unwrap();
    let mut library = Library::default();
    let id = library.keep_live(None, || "live".into(), &live, 1, &WordCounter);
    let resumed = library
        .resume(id.as_deref(), &LiveSession::default(), 2)
        .unwrap()
        .1;
    assert_eq!(resumed.memory().archive().len(), 1);
    assert!(resumed.retries_reply());
    // A chat that ended normally offers nothing.
    let mut done = LiveSession::default();
    done.send("hi", 1, &WordCounter).unwrap();
    done.finish(ReplyEnd::Complete("hello".into()), 2, &WordCounter);
    let mut library = Library::default();
    let id = library.keep_live(None, || "live".into(), &done, 2, &WordCounter);
    let resumed = library
        .resume(id.as_deref(), &LiveSession::default(), 3)
        .unwrap()
        .1;
    assert_eq!(
        (
            resumed.retries_reply(),
            resumed.summaries().status(),
            resumed.error()
        ),
        (false, None, None)
    );
}

/// A summary that was being written when the page closed used to be forgotten until the next
/// reply. After the reload it is offered again (Retry runs it), exactly once: a summary that
/// was committed before the page closed is not offered, so nothing is committed twice.
#[test]
fn a_summary_in_flight_at_a_reload_is_offered_again_and_committed_once() {
    let mut live = LiveSession::default();
    let mut job = None;
    for n in 1..=4 {
        live.send(&format!("question {n}"), n, &WordCounter)
            .unwrap();
        job = live.finish(ReplyEnd::Complete(format!("answer {n}")), n, &WordCounter);
    }
    let job = job.expect("the fourth turn makes a summary due");
    assert!(live.is_summarising());
    let mut library = Library::default();
    let id = library.keep_live(None, || "live".into(), &live, 5, &WordCounter);
    let kept = library.get("live").unwrap().session.clone();
    assert!(kept.memory.editions().is_empty());

    // Reloaded mid-summary: the summary is offered again, and Retry runs it.
    let mut resumed = reloaded(&library)
        .resume(id.as_deref(), &LiveSession::default(), 6)
        .unwrap()
        .1;
    assert!(matches!(
        resumed.summaries().status(),
        Some(crate::engine::run::RunStatus::Failed(reason)) if reason.contains("reloaded")
    ));
    assert_eq!(
        resumed.error(),
        None,
        "the summary's failure is its run's, not the reply's"
    );
    let crate::app::live::LiveAction::Summary(again) = resumed.retry(&WordCounter).unwrap() else {
        panic!("Retry runs the summary");
    };
    assert_eq!(again.kind, job.kind, "the same turns are folded");
    resumed.summary_done(again.id, Ok("A summary.".into()), "m", 7, &WordCounter);
    assert_eq!(resumed.memory().editions().len(), 1);

    // Kept after the commit and reloaded again: nothing is due, and nothing is offered.
    let mut library = Library::default();
    let id = library.keep_live(None, || "live".into(), &resumed, 8, &WordCounter);
    let after = reloaded(&library)
        .resume(id.as_deref(), &LiveSession::default(), 9)
        .unwrap()
        .1;
    assert_eq!((after.retries_reply(), after.error()), (false, None));
    assert_eq!(after.summaries().status(), None);
    assert_eq!(after.memory().editions().len(), 1);
    assert!(!after.is_summarising());
}

/// Leaving the page warned never; now it warns exactly while something is not stored.
#[test]
fn leaving_warns_only_while_something_is_unsaved() {
    let mut library = Library::default();
    let mut live = LiveSession::default();
    assert!(!warn_on_leave(&library, false, &LiveShape::of(&live)));
    assert!(
        warn_on_leave(&library, true, &LiveShape::of(&live)),
        "a write in flight"
    );
    library.add("a".into(), session("A"), 1).unwrap();
    assert!(
        warn_on_leave(&library, false, &LiveShape::of(&live)),
        "a write waiting"
    );
    let ops = library.take_pending();
    assert!(
        warn_on_leave(&library, false, &LiveShape::of(&live)),
        "taken but not landed (refused, or no storage at all)"
    );
    for op in &ops {
        library.landed(op);
    }
    assert!(!warn_on_leave(&library, false, &LiveShape::of(&live)));
    live.send("hi", 1, &WordCounter).unwrap();
    assert!(
        warn_on_leave(&library, false, &LiveShape::of(&live)),
        "a reply arriving"
    );
    live.finish(ReplyEnd::Complete("hello".into()), 2, &WordCounter);
    assert!(!warn_on_leave(&library, false, &LiveShape::of(&live)));
}

/// A storage failure used to be shown only in Inspect. It is now the alert of every tab, says
/// what to do, stays until a write lands, and is not shown twice in Inspect.
#[test]
fn a_storage_failure_is_the_alert_of_every_tab_until_a_write_lands() {
    let library = Library::default();
    let put = SaveOp::Put {
        entry: Box::new(entry("s", "Mine", 2)),
        expected: Some(1),
    };
    let mut tab = LibraryTab::default();
    assert_eq!(tab.store_alert(&library), None);
    tab.write_failed(&put, StoreError::QuotaExceeded);
    let alert = tab.store_alert(&library).unwrap();
    assert!(alert.text.contains("storage is full"), "{}", alert.text);
    assert!(alert.text.contains("export"), "{}", alert.text);
    assert!(!alert.dismiss_undo);
    assert_eq!(tab.problem_here(), None, "shown once, above the tab");
    tab.report(LibraryError::EmptyName);
    assert!(tab.problem_here().is_some(), "other problems are Inspect's");
    assert!(tab.store_alert(&library).is_some(), "the alert persists");
    tab.write_landed();
    assert_eq!(tab.store_alert(&library), None);

    // No IndexedDB at all is a storage failure too, shown from the start.
    let mut tab = LibraryTab::default();
    tab.store_failed(StoreError::NoIndexedDb(
        "this browser has no IndexedDB".into(),
    ));
    let alert = tab.store_alert(&library).unwrap();
    assert!(alert.text.contains("cannot be kept"), "{}", alert.text);
    // A refused burial is not a storage failure but a choice that a reload settles.
    let mut tab = LibraryTab::default();
    let bury = SaveOp::Bury {
        entry: Box::new(entry("s", "Mine", 2)),
        deleted_ms: 3,
        expected: Some(1),
    };
    tab.write_failed(
        &bury,
        StoreError::Conflict {
            name: "Mine".into(),
        },
    );
    assert_eq!(tab.store_alert(&library), None);
    assert!(tab.offers_reload());
}

/// Deleting to free space used to free nothing: the tombstone kept the whole record until the
/// undo was dismissed. On a full disk a deletion now removes the record at once (the undo stays
/// in this tab), and the alert offers to dismiss an undo that still holds a record.
#[test]
fn on_a_full_disk_a_deletion_frees_its_record_and_a_held_undo_is_offered_for_dismissal() {
    let mut library = Library::from_stored(vec![
        entry("a", "A", 1),
        entry("b", "B", 1),
        entry("c", "C", 1),
    ]);
    library.delete("a", 5).unwrap();
    let ops = library.take_pending();
    assert!(
        matches!(&ops[..], [SaveOp::Bury { .. }]),
        "undo across reloads, normally"
    );
    for op in &ops {
        library.landed(op);
    }
    assert_eq!(library.undo_holds_space(), Some("A"));

    // The disk fills up: the alert names the held undo and offers to dismiss it.
    library.write_failed(&StoreError::QuotaExceeded);
    assert!(library.quota_full());
    let mut tab = LibraryTab::default();
    tab.write_failed(
        &SaveOp::Put {
            entry: Box::new(entry("b", "B", 2)),
            expected: Some(1),
        },
        StoreError::QuotaExceeded,
    );
    let alert = tab.store_alert(&library).unwrap();
    assert!(alert.dismiss_undo);
    assert!(alert.text.contains("\u{201c}A\u{201d}"), "{}", alert.text);

    // Deleting now removes the record (the older tombstone goes too), keeping the undo here.
    library.delete("b", 6).unwrap();
    let ops = library.take_pending();
    assert_eq!(
        ops,
        [
            SaveOp::Delete {
                id: "a".into(),
                expected: Some(2)
            },
            SaveOp::Delete {
                id: "b".into(),
                expected: Some(1)
            },
        ]
    );
    for op in &ops {
        library.landed(op);
    }
    assert!(
        library.quota_full(),
        "a removal needs no room, so it says nothing of the quota"
    );
    assert_eq!(library.undoable(), Some("B"));
    assert_eq!(library.undo_holds_space(), None, "nothing held in storage");
    // The undo puts it back as a new record.
    assert_eq!(library.undo_delete().unwrap(), "b");
    let ops = library.take_pending();
    assert!(
        matches!(&ops[..], [SaveOp::Put { entry, expected: None }] if entry.id == "b"),
        "{ops:?}"
    );
    library.landed(&ops[0]);
    assert!(!library.quota_full(), "a put landed: there is room again");
    // An undo before the removal was performed takes the removal back too.
    library.write_failed(&StoreError::QuotaExceeded);
    library.delete("c", 7).unwrap();
    library.undo_delete().unwrap();
    let ops = library.take_pending();
    assert!(
        matches!(&ops[..], [SaveOp::Put { entry, expected: Some(1) }] if entry.id == "c"),
        "{ops:?}"
    );
}

/// The store held the indented export, read back under the import's 64 MiB cap: a session that
/// grew past it once stored could never be read again. Records are now compact and read with
/// no cap; one that does not read is kept as stored, to be exported as it is.
#[test]
fn a_stored_session_is_compact_and_always_reads_back_or_exports_raw() {
    let kept = entry("a", "Alpha", 1);
    let record = Record::of(&kept, None, "test");
    assert!(!record.file.contains("\n"), "compact");
    assert!(record.file.len() < export(&kept.session, kept.updated_ms, "test").len());
    assert_eq!(record.clone().read(&WordCounter), Ok((kept.clone(), None)));

    // A message made longer than the import cap inside the stored text, as a long chat grows.
    let long = "a".repeat(crate::engine::session::MAX_IMPORT_BYTES);
    let big = Record {
        file: record.file.replacen("\"hello\"", &format!("\"{long}\""), 1),
        ..record.clone()
    };
    assert!(big.file.len() > crate::engine::session::MAX_IMPORT_BYTES);
    let (back, _) = big
        .read(&WordCounter)
        .expect("what the app stored reads back");
    assert_eq!(back.session.memory.archive()[1].content.len(), long.len());

    let broken = Record {
        file: "{\"format\": \"summary-memory-session\", \"version\": 99}".into(),
        ..Record::of(&kept, None, "test")
    };
    let mut library = Library::default();
    let problem = library.load(vec![broken.clone()], &WordCounter, 1).unwrap();
    let mut tab = LibraryTab::default();
    tab.report(problem);
    assert_eq!(tab.skipped_raw().as_deref(), Some(broken.file.as_str()));
}

/// With two tabs on the live chat, the later tab's refused write offered "reload / keep mine as
/// a copy" only in Inspect, and neither choice moved the chat on screen: it forked a new session
/// on its next change. Now "Reload" shows the stored version in the chat, and "Keep mine" keeps
/// the chat on screen in the copy from then on.
#[test]
fn answering_a_conflict_about_the_live_chat_moves_the_chat_on_screen() {
    let mut mine = LiveSession::default();
    mine.send("mine", 1, &WordCounter).unwrap();
    mine.finish(ReplyEnd::Complete("ok".into()), 2, &WordCounter);
    let mut library = Library::default();
    let id = library
        .keep_live(None, || "live".into(), &mine, 2, &WordCounter)
        .unwrap();
    let mut theirs = library.get(&id).unwrap().clone();
    let mut other = LiveSession::default();
    other.send("theirs", 1, &WordCounter).unwrap();
    other.finish(ReplyEnd::Complete("fine".into()), 2, &WordCounter);
    theirs.session.memory = other.memory().clone();
    theirs.revision = 5;

    let mut reload = library.clone();
    reload.resolve(&id, Some(theirs.clone()), None, 3).unwrap();
    let LiveAfterConflict::Resume(shown) = reload.live_after_conflict(Some(&id), &id, None, &mine)
    else {
        panic!("the chat on screen becomes the stored version");
    };
    assert_eq!(shown.memory(), other.memory());
    assert_eq!(
        reload.live_after_conflict(Some("elsewhere"), &id, None, &mine),
        LiveAfterConflict::Unchanged
    );

    let mut copy = library.clone();
    copy.resolve(&id, Some(theirs), Some("copy".into()), 3)
        .unwrap();
    assert_eq!(
        copy.live_after_conflict(Some(&id), &id, Some("copy"), &mine),
        LiveAfterConflict::KeptIn("copy".into())
    );
    assert_eq!(
        copy.keep_live(Some("copy"), || "fork".into(), &mine, 4, &WordCounter)
            .as_deref(),
        Some("copy"),
        "the chat goes on in the copy, no fork"
    );
}

#[test]
fn the_kept_live_chat_is_resumed_only_into_an_empty_chat() {
    let mut chat = LiveSession::default();
    chat.send("hi", 1, &WordCounter).unwrap();
    chat.finish(ReplyEnd::Stopped("hel".into()), 2, &WordCounter);
    let mut library = Library::default();
    let id = library.keep_live(None, || "live".into(), &chat, 3, &WordCounter);
    let empty = LiveSession::default();
    let (kept_in, resumed) = library.resume(id.as_deref(), &empty, 9).unwrap();
    assert_eq!(Some(kept_in), id);
    assert_eq!(
        (resumed.memory(), resumed.record()),
        (chat.memory(), chat.record())
    );
    assert!(
        library.resume(id.as_deref(), &chat, 9).is_none(),
        "a chat under way stays"
    );
    assert!(
        library.resume(Some("deleted"), &empty, 9).is_none(),
        "a chat the user deleted is not brought back"
    );
}

/// A crash (the browser killed mid-reply) lost the localStorage pointer to the live chat, which
/// Chromium writes lazily, and the Chat tab opened on the first-visit welcome although the
/// library held the chat. The library, not the pointer, says which chat was live.
#[test]
fn a_crash_that_lost_the_pointer_still_resumes_the_newest_live_chat() {
    let mut library = Library::default();
    let mut old = LiveSession::default();
    old.send("an older chat", 1, &WordCounter).unwrap();
    let old_id = library.keep_live(None, || "old".into(), &old, 2, &WordCounter);
    let mut chat = LiveSession::default();
    chat.send("hi", 3, &WordCounter).unwrap();
    chat.finish(ReplyEnd::Stopped("hel".into()), 4, &WordCounter);
    library.keep_live(None, || "live".into(), &chat, 5, &WordCounter);
    let empty = LiveSession::default();
    for hint in [None, old_id.as_deref()] {
        let (id, resumed) = library.resume(hint, &empty, 9).unwrap();
        assert_eq!(id, "live", "hint {hint:?}: the newest live chat wins");
        assert_eq!(resumed.memory(), chat.memory());
    }
    // A session that is not a live chat is never taken for one.
    let mut imported = Library::default();
    let session = library.get("live").unwrap().session.clone();
    imported
        .add(
            "file".into(),
            Session {
                live: None,
                ..session
            },
            6,
        )
        .unwrap();
    assert!(imported.resume(None, &empty, 9).is_none());
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
