//! Which vocabulary the library vouches for a session's counts in ([`Entry::counted_in`]),
//! with the app's real counter (`tokens::TokenCounter`, tiktoken-rs's vocabularies): none for a
//! session counted before the vocabulary arrived, `o200k_base` once it is counted again after,
//! the encoding in use for an import counted exactly, none after an encoding switch whose
//! vocabulary has not arrived, and none for content handed in from the chat.

use super::*;
use crate::app::import::Piece;
use crate::engine::message::WordCounter;
use crate::engine::session::{export_compact, import};
use crate::tokens::{Encoding, TokenCounter, rough_estimate};

/// Texts no build-time table holds (so an unloaded counter estimates them), whose counts in
/// o200k_base differ from the estimate and from cl100k_base's.
const CHAT: &[u8] = r#"[{"role":"user","content":"a b c d e f g h i j k l m n o p"},{"role":"assistant","content":"q r s t u v w x y z; 東京とソウルの距離は約1,150キロメートルです"}]"#.as_bytes();

fn loaded(encoding: Encoding) -> TokenCounter {
    let counter = TokenCounter::new(encoding);
    counter.load(encoding).expect("the vocabulary loads");
    counter
}

/// Each message's count in the library's session `id`.
fn counts(library: &Library, id: &str) -> Vec<u32> {
    let entry = library.get(id).expect("the session is listed");
    entry
        .session
        .memory
        .archive()
        .iter()
        .map(|m| m.tokens)
        .collect()
}

/// Each message's count as `counter` makes it.
fn counted(library: &Library, id: &str, counter: &dyn CountTokens) -> Vec<u32> {
    let entry = library.get(id).expect("the session is listed");
    entry
        .session
        .memory
        .archive()
        .iter()
        .map(|m| m.count_with(counter))
        .collect()
}

/// The stored record of every session the library holds (what IndexedDB would give back).
fn records(library: &mut Library) -> Vec<Record> {
    library
        .take_pending()
        .iter()
        .filter_map(|op| op.record("test"))
        .collect()
}

#[test]
fn a_session_read_before_the_vocabulary_is_vouched_for_in_none_and_read_again_after_in_o200k() {
    let mut first = Library::default();
    first
        .import("chat.json", CHAT, &WordCounter, || "a".into(), 1)
        .unwrap();
    let stored = records(&mut first);
    assert_eq!(stored.len(), 1);

    // Read from storage while the vocabulary is still on its way: every count an estimate.
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut library = Library::default();
    assert_eq!(library.load(stored.clone(), &counter, 2), None);
    assert_eq!(library.get("a").unwrap().counted_in, None);
    let texts: Vec<String> = library
        .get("a")
        .unwrap()
        .session
        .memory
        .archive()
        .iter()
        .map(|m| m.content.clone())
        .collect();
    let estimates: Vec<u32> = texts.iter().map(|t| rough_estimate(t)).collect();
    assert_eq!(counts(&library, "a"), estimates);

    // The vocabulary arrives; the page does not recount a loaded library, so the estimates
    // stay unvouched until the session is read again ("Reload sessions").
    counter.load(Encoding::O200kBase).unwrap();
    let exact = counted(&library, "a", &counter);
    assert_ne!(exact, estimates, "the estimates are not the counts");
    assert_eq!(library.get("a").unwrap().counted_in, None);
    library.load(stored, &counter, 3);
    assert_eq!(
        library.get("a").unwrap().counted_in,
        Some(Vocabulary::O200k)
    );
    assert_eq!(counts(&library, "a"), exact);
}

#[test]
fn an_import_counted_exactly_is_vouched_for_in_the_encoding_in_use_and_a_switch_is_not() {
    let mut library = Library::default();
    let o200k = loaded(Encoding::O200kBase);
    library
        .import("chat.json", CHAT, &o200k, || "exact".into(), 1)
        .unwrap();
    assert_eq!(
        library.get("exact").unwrap().counted_in,
        Some(Vocabulary::O200k)
    );
    assert_eq!(
        counts(&library, "exact"),
        counted(&library, "exact", &o200k)
    );

    // The Tokens tab switches to cl100k_base: until its vocabulary arrives an import is
    // estimated and vouched for in none; once it has, in cl100k_base. The o200k_base session
    // keeps its own.
    let mut switched = o200k;
    switched.set_encoding(Encoding::Cl100kBase);
    library
        .import("chat.json", CHAT, &switched, || "pending".into(), 2)
        .unwrap();
    assert_eq!(library.get("pending").unwrap().counted_in, None);
    switched.load(Encoding::Cl100kBase).unwrap();
    library
        .import("chat.json", CHAT, &switched, || "cl100k".into(), 3)
        .unwrap();
    assert_eq!(
        library.get("cl100k").unwrap().counted_in,
        Some(Vocabulary::Cl100k)
    );
    assert_eq!(
        counts(&library, "cl100k"),
        counted(&library, "cl100k", &switched)
    );
    assert_ne!(counts(&library, "cl100k"), counts(&library, "exact"));
    assert_eq!(
        library.get("exact").unwrap().counted_in,
        Some(Vocabulary::O200k)
    );

    // A word count is no vocabulary's.
    library
        .import("chat.json", CHAT, &WordCounter, || "words".into(), 4)
        .unwrap();
    assert_eq!(library.get("words").unwrap().counted_in, None);
}

#[test]
fn a_large_files_batches_are_vouched_for_as_their_counter_was_when_they_came() {
    let file = export_compact(&import(CHAT, &WordCounter).unwrap(), 0, "test");
    let piece = |id: &str, position| Piece {
        id: id.into(),
        position,
        file: file.clone(),
    };
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut library = Library::default();
    let added = library.add_pieces(vec![piece("early", 0)], "big.json", 1, &counter);
    assert_eq!(added.added, 1);
    assert_eq!(library.get("early").unwrap().counted_in, None);
    counter.load(Encoding::O200kBase).unwrap();
    // The same conversation again is passed over, and stays as it was counted.
    let added = library.add_pieces(
        vec![piece("early", 0), piece("late", 1)],
        "big.json",
        1,
        &counter,
    );
    assert_eq!((added.added, added.already), (1, 1));
    assert_eq!(library.get("early").unwrap().counted_in, None);
    assert_eq!(
        library.get("late").unwrap().counted_in,
        Some(Vocabulary::O200k)
    );
    assert_eq!(
        counts(&library, "late"),
        counted(&library, "late", &counter)
    );
}

#[test]
fn a_copy_a_rename_and_probes_keep_the_vouch_and_content_from_the_chat_does_not() {
    let o200k = loaded(Encoding::O200kBase);
    let mut library = Library::default();
    library
        .import("chat.json", CHAT, &o200k, || "a".into(), 1)
        .unwrap();
    library.rename("a", "Renamed", 2).unwrap();
    library.duplicate("a", "copy".into(), 3).unwrap();
    library.set_probes("a", ProbeSet::default(), 4).unwrap();
    for id in ["a", "copy"] {
        assert_eq!(library.get(id).unwrap().counted_in, Some(Vocabulary::O200k));
    }
    // The same messages handed back (a policy changed in the chat) keep it.
    let mut same = library.get("a").unwrap().session.clone();
    same.name = "Same messages".into();
    library.update("a", same, 5).unwrap();
    assert_eq!(
        library.get("a").unwrap().counted_in,
        Some(Vocabulary::O200k)
    );
    // Other messages from the chat were counted by whatever counter the chat had then.
    let mut grown = library.get("a").unwrap().session.clone();
    grown
        .memory
        .add_message(crate::engine::message::Message::new(
            Role::User,
            "one more",
            &o200k,
            9,
        ))
        .unwrap();
    library.update("a", grown, 6).unwrap();
    assert_eq!(library.get("a").unwrap().counted_in, None);
    assert_eq!(
        library.get("copy").unwrap().counted_in,
        Some(Vocabulary::O200k)
    );
    // A session added from the chat is vouched for in none.
    library
        .add("chat".into(), tests::session("Chat"), 7)
        .unwrap();
    assert_eq!(library.get("chat").unwrap().counted_in, None);

    // A reload keeps what this tab holds that storage lacks, vouched for as it was.
    let mut reloaded = library.clone();
    reloaded.load(Vec::new(), &o200k, 8);
    assert_eq!(
        reloaded.get("copy").unwrap().counted_in,
        Some(Vocabulary::O200k)
    );
    assert_eq!(reloaded.get("a").unwrap().counted_in, None);
}
