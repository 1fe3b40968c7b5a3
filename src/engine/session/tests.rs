//! Tests of the session format: round trips, migrations, and damaged files refused with the
//! path at fault.

use serde_json::{Value, json};

use super::*;
use crate::engine::edition::Provenance;
use crate::engine::facts::PinnedFact;
use crate::engine::library_session::{CallKind, CallRecord, LiveRecord, SessionSettings};
use crate::engine::memory::CommitMeta;
use crate::engine::memory::MemoryState;
use crate::engine::message::{Message, Role, WordCounter};
use crate::engine::policy::{Placement, Policy, SummaryFormat, Trigger};
use fixture::Scripted;

/// The shared scripted session with a failure, a manual edit and a restore: four turns under
/// "summarise at 2, keep 1" (user-ack placement), the second job failing once before it commits.
fn played() -> Session {
    let mut policy = Policy::new(Trigger::Turns {
        max_turns: 2,
        keep: 1,
    })
    .unwrap();
    policy.placement = Placement::UserAck;
    let mut session = Scripted {
        name: "Chiru".into(),
        policy,
        turn: |t| (format!("q{t}"), format!("a{t}")),
        summaries: vec!["S2".into(), "S3".into(), "S4".into()],
        model: Some("m".into()),
        provenance: Provenance::Model,
        fail: Some((2, "timeout".into())),
        ..Scripted::default()
    }
    .play(4);
    let memory = &mut session.memory;
    memory.edit_summary("By hand.", 10, &WordCounter).unwrap();
    memory.restore(1, 11, &WordCounter).unwrap();
    session.pinned = vec![
        PinnedFact::phrase("first summary", "S1"),
        PinnedFact::regex("hand", r"(?i)by\s+hand"),
    ];
    session
}

/// `played()` as the live chat: reply 3 (index 5) cut short by a failure, reply 4 stopped.
fn played_live() -> Session {
    Session {
        live: Some(LiveRecord {
            incomplete: [5, 7].into(),
            failed: [5].into(),
            calls: vec![
                CallRecord {
                    kind: CallKind::Chat,
                    client_prompt_tokens: 12,
                    api_prompt_tokens: Some(14),
                    api_completion_tokens: Some(3),
                },
                CallRecord {
                    kind: CallKind::Summary,
                    client_prompt_tokens: 30,
                    api_prompt_tokens: None,
                    api_completion_tokens: None,
                },
            ],
        }),
        ..played()
    }
}

fn file_json(session: &Session) -> Value {
    serde_json::from_str(&export(session, 1, "0.1.0")).unwrap()
}

fn import_value(value: &Value) -> Result<Session, ImportError> {
    import(value.to_string().as_bytes(), &WordCounter)
}

#[test]
fn export_then_import_gives_the_same_conversation() {
    let session = played();
    let back = import(export(&session, 1, "0.1.0").as_bytes(), &WordCounter).unwrap();
    assert_eq!(back.name, session.name);
    assert_eq!(back.settings, session.settings);
    let (a, b) = (&session.memory, &back.memory);
    assert_eq!(a.archive(), b.archive());
    assert_eq!(a.verbatim(), b.verbatim());
    assert_eq!(a.editions(), b.editions());
    assert_eq!(a.failures(), b.failures());
    assert_eq!(a.summary(), b.summary());
    assert_eq!(a.policy(), b.policy());
    assert_eq!(a.system_prompt(), b.system_prompt());
    assert_eq!(b.summarised_to(), 3);
    assert_eq!(back.pinned, session.pinned);
    assert_eq!(back.live, None);
}

#[test]
fn pinned_facts_and_the_live_record_survive_export_and_import() {
    let session = played_live();
    let text = export(&session, 1, "0.1.0");
    let back = import(text.as_bytes(), &WordCounter).unwrap();
    assert_eq!(back.pinned, session.pinned);
    assert_eq!(back.live, session.live);
    // Exporting what was imported writes the same file again.
    assert_eq!(export(&back, 1, "0.1.0"), text);
    let value = file_json(&session);
    assert_eq!(
        value["session"]["facts"][1],
        json!({"label": "hand", "kind": "regex", "pattern": r"(?i)by\s+hand"})
    );
    assert_eq!(value["session"]["live"]["incomplete"], json!([5, 7]));
    // A session that is not the live chat writes no live part at all.
    assert!(file_json(&played())["session"].get("live").is_none());
    let envelope = export_all(&[session.clone(), played()], 1, "0.1.0");
    let both = import_all(envelope.as_bytes(), &WordCounter).unwrap();
    assert_eq!(
        (both[0].live.as_ref(), both[1].live.as_ref()),
        (session.live.as_ref(), None)
    );
}

#[test]
fn version_1_files_are_read_with_no_facts_and_no_live_part() {
    // What the previous version of the app wrote: no `facts`, no `live`, version 1.
    let mut value = file_json(&played_live());
    value["version"] = json!(1);
    let session = value["session"].as_object_mut().unwrap();
    session.remove("facts");
    session.remove("live");
    let back = import_value(&value).unwrap();
    assert!(back.pinned.is_empty());
    assert_eq!(back.live, None);
    assert_eq!(back.memory.archive(), played().memory.archive());
    assert_eq!(back.memory.editions(), played().memory.editions());
    // Saved again, it is a file of the current version.
    assert_eq!(file_json(&back)["version"], VERSION);
    let mut envelope: Value = serde_json::from_str(&export_all(&[played()], 1, "0.1.0")).unwrap();
    envelope["version"] = json!(1);
    envelope["sessions"][0]["version"] = json!(1);
    assert!(import_value(&envelope).is_ok());
}

#[test]
fn damaged_facts_and_live_parts_name_what_is_wrong() {
    let refused = |damage: &dyn Fn(&mut Value), path: &str| {
        let mut value = file_json(&played_live());
        damage(&mut value);
        match import_value(&value) {
            Err(ImportError::Invalid { path: p, .. }) | Err(ImportError::Field { path: p, .. }) => {
                assert_eq!(p, path)
            }
            other => panic!("expected an error at {path}, got {other:?}"),
        }
    };
    refused(
        &|v| v["session"]["facts"][1]["pattern"] = json!("(unclosed"),
        "session.facts[1]",
    );
    refused(
        &|v| v["session"]["facts"][0]["label"] = json!(" "),
        "session.facts[0]",
    );
    refused(
        &|v| v["session"]["facts"][0]["kind"] = json!("glob"),
        "session.facts[0].kind",
    );
    refused(
        &|v| v["session"]["live"]["incomplete"] = json!([4]),
        "session.live.incomplete[0]",
    );
    refused(
        &|v| v["session"]["live"]["incomplete"] = json!([5, 99]),
        "session.live.incomplete[1]",
    );
    refused(
        &|v| v["session"]["live"]["failed"] = json!([3]),
        "session.live.failed[0]",
    );
    refused(
        &|v| v["session"]["live"]["calls"][1]["kind"] = json!("embed"),
        "session.live.calls[1].kind",
    );
}

#[test]
fn the_file_is_versioned_and_holds_no_api_key() {
    let value = file_json(&played());
    assert_eq!(value["format"], FORMAT);
    assert_eq!(value["version"], VERSION);
    assert_eq!(value["app_version"], "0.1.0");
    assert!(!value.to_string().to_lowercase().contains("api_key"));
    assert!(value["session"]["settings"].get("base_url").is_some());
}

#[test]
fn the_summary_format_survives_export_and_older_files_read_as_prose() {
    let mut session = played();
    let mut policy = session.memory.policy().clone();
    policy.format = SummaryFormat::Structured;
    session.memory = MemoryState::new("You are FinCoach.", policy).unwrap();
    let mut value = file_json(&session);
    assert_eq!(value["session"]["policy"]["format"], "structured");
    let back = import_value(&value).unwrap();
    assert_eq!(back.memory.policy().format, SummaryFormat::Structured);

    value["session"]["policy"]
        .as_object_mut()
        .unwrap()
        .remove("format");
    let back = import_value(&value).unwrap();
    assert_eq!(back.memory.policy().format, SummaryFormat::Prose);

    value["session"]["policy"]["format"] = "yaml".into();
    let err = import_value(&value).unwrap_err().to_string();
    assert!(
        err.contains("format") && err.contains("prose or structured"),
        "{err}"
    );
}

#[test]
fn many_sessions_round_trip_through_an_envelope() {
    let sessions = vec![played(), played()];
    let text = export_all(&sessions, 5, "0.1.0");
    let back = import_all(text.as_bytes(), &WordCounter).unwrap();
    assert_eq!(back.len(), 2);
    assert_eq!(back[1].memory.archive(), sessions[1].memory.archive());
    let err = import(text.as_bytes(), &WordCounter).unwrap_err();
    assert!(matches!(err, ImportError::Invalid { ref path, .. } if path == "sessions"));
}

/// What the store holds reads back through `import_stored`, with no size cap; another tool's
/// transcript is no stored record and is named as an unknown format, not imported.
#[test]
fn a_stored_record_reads_only_the_apps_own_format() {
    let session = played();
    let compact = export_compact(&session, 7, "test");
    let back = import_stored(compact.as_bytes(), &WordCounter).unwrap();
    assert_eq!(back.memory.archive(), session.memory.archive());
    let array =
        json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]);
    assert!(import_value(&array).is_ok(), "an import reads it");
    assert!(matches!(
        import_stored(array.to_string().as_bytes(), &WordCounter),
        Err(ImportError::UnknownFormat { ref found }) if found.starts_with("an array of 2 items")
    ));
    assert!(matches!(
        import_stored(b"{\"format\": ", &WordCounter),
        Err(ImportError::Json { line: 1, .. })
    ));
}

#[test]
fn a_plain_messages_array_becomes_a_new_session() {
    let array = json!([
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "bye"}
    ]);
    let session = import_value(&array).unwrap();
    assert_eq!(session.memory.system_prompt(), "Be brief.");
    assert_eq!(session.memory.archive().len(), 3);
    assert_eq!(session.memory.verbatim().len(), 3);
    assert!(session.memory.editions().is_empty());
    let late_system = json!([{"role": "user", "content": "a"}, {"role": "system", "content": "b"}]);
    assert!(matches!(
        import_value(&late_system),
        Err(ImportError::Invalid { ref path, .. }) if path == "[1].role"
    ));
}

#[test]
fn version_0_files_are_migrated() {
    let v0 = json!({
        "format": FORMAT,
        "version": 0,
        "name": "Old",
        "system_prompt": "sys",
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "a"}
        ],
        "summary": "Earlier talk."
    });
    let session = import_value(&v0).unwrap();
    assert_eq!(session.name, "Old");
    assert_eq!(session.memory.archive().len(), 2);
    assert_eq!(session.memory.verbatim().len(), 2);
    assert_eq!(session.memory.summary(), Some("Earlier talk."));
    let edition = &session.memory.editions()[0];
    assert_eq!(
        (edition.cycle, edition.provenance, edition.folded),
        (1, Provenance::Restore, None)
    );
    assert_eq!(session.memory.policy(), &Policy::default());
    assert_eq!((session.pinned.len(), session.live.is_none()), (0, true));
}

/// Checks that a damaged file is refused with an error naming `path`.
fn check_refused(damage: impl FnOnce(&mut Value), path: &str) {
    let mut value = file_json(&played());
    damage(&mut value);
    match import_value(&value) {
        Err(ImportError::Invalid { path: p, .. }) | Err(ImportError::Field { path: p, .. }) => {
            assert_eq!(p, path)
        }
        other => panic!("expected an error at {path}, got {other:?}"),
    }
}

#[test]
fn damaged_files_name_what_is_wrong() {
    check_refused(
        |v| v["session"]["archive"][2]["role"] = json!("robot"),
        "session.archive[2].role",
    );
    check_refused(
        |v| v["session"]["archive"][0]["role"] = json!("system"),
        "session.archive[0].role",
    );
    check_refused(
        |v| v["session"]["archive"][1]["content"] = json!(7),
        "session.archive[1].content",
    );
    check_refused(
        |v| v["session"]["editions"][1]["cycle"] = json!(5),
        "session.editions[1].cycle",
    );
    check_refused(
        |v| v["session"]["editions"][1]["folded"] = json!({"first": 1, "last": 2}),
        "session.editions[1].folded",
    );
    check_refused(
        |v| v["session"]["editions"][2]["folded"] = json!({"first": 4, "last": 9}),
        "session.editions[2].folded",
    );
    check_refused(
        |v| v["session"]["editions"][2]["previous"] = json!("x"),
        "session.editions[2].previous",
    );
    check_refused(
        |v| v["session"]["editions"][0]["level"] = json!(4),
        "session.editions[0].level",
    );
    check_refused(
        |v| v["session"]["editions"][0]["provenance"] = json!("magic"),
        "session.editions[0].provenance",
    );
    check_refused(
        |v| v["session"]["editions"][0]["summary"] = json!(" "),
        "session.editions[0].summary",
    );
    check_refused(
        |v| v["session"]["policy"]["trigger"]["keep"] = json!(2),
        "session.policy",
    );
    check_refused(
        |v| v["session"]["policy"]["placement"] = json!("top"),
        "session.policy.placement",
    );
    check_refused(
        |v| v["session"]["failures"][0]["turns"] = json!({"first": 1, "last": 99}),
        "session.failures[0].kind",
    );
    check_refused(
        |v| {
            v["session"].as_object_mut().unwrap().remove("archive");
        },
        "session",
    );
}

#[test]
fn folds_cannot_claim_an_incomplete_turn() {
    let mut value = file_json(&played());
    // Drop the final assistant reply: turn 4 is no longer complete, yet nothing folds it.
    value["session"]["archive"].as_array_mut().unwrap().pop();
    assert!(import_value(&value).is_ok());
    // Now drop turn 3's reply as well; the editions still claim turn 3 was folded.
    let archive = value["session"]["archive"].as_array_mut().unwrap();
    archive.truncate(5);
    assert!(matches!(
        import_value(&value),
        Err(ImportError::Invalid { ref path, .. }) if path == "session.editions[2].folded"
    ));
}

#[test]
fn wrong_format_version_size_and_syntax_are_refused() {
    let mut value = file_json(&played());
    value["version"] = json!(VERSION + 1);
    assert_eq!(
        import_value(&value).unwrap_err(),
        ImportError::UnsupportedVersion(VERSION + 1)
    );
    value["format"] = json!("something-else");
    assert!(matches!(
        import_value(&value),
        Err(ImportError::UnknownFormat { .. })
    ));
    assert!(matches!(
        import(b"{ not json", &WordCounter),
        Err(ImportError::Json { line: 1, .. })
    ));
    assert!(matches!(
        import(b"42", &WordCounter),
        Err(ImportError::UnknownFormat { .. })
    ));
    let huge = vec![b' '; MAX_IMPORT_BYTES + 1];
    assert_eq!(
        import(&huge, &WordCounter).unwrap_err(),
        ImportError::TooLarge {
            bytes: MAX_IMPORT_BYTES + 1,
            limit: MAX_IMPORT_BYTES
        }
    );
}

#[test]
fn token_and_word_counts_are_recounted_not_trusted() {
    let mut value = file_json(&played());
    value["session"]["editions"][0]["words"] = json!(999);
    value["session"]["editions"][0]["overrun"] = json!(true);
    let session = import_value(&value).unwrap();
    assert_eq!(session.memory.editions()[0].words, 1);
    assert!(!session.memory.editions()[0].overrun);
    assert_eq!(session.memory.archive()[0].tokens, 1);
}

#[test]
fn the_scripted_fixture_plays_its_script() {
    let session = played();
    let summaries: Vec<&str> = session
        .memory
        .editions()
        .iter()
        .map(|e| e.summary.as_str())
        .collect();
    assert_eq!(summaries, ["S2", "S3", "S4", "By hand.", "S2"]);
    let failures = session.memory.failures();
    assert_eq!(failures.len(), 1);
    assert_eq!(
        (failures[0].reason.as_str(), failures[0].at_ms),
        ("timeout", 3)
    );
    assert_eq!(session.memory.archive().len(), 8);
    assert_eq!(session.memory.archive()[6].content, "q4");
    // Past the last scripted summary, the last one answers every further job.
    let long = Scripted::default().play(5);
    assert!(long.memory.editions().len() > 1);
    assert!(
        long.memory
            .editions()
            .iter()
            .all(|e| e.summary == "Summary.")
    );
}

#[test]
fn a_rebuilt_edition_is_marked_in_the_file_and_older_files_read_as_progressive() {
    let mut policy = Policy::new(Trigger::Turns {
        max_turns: 2,
        keep: 1,
    })
    .unwrap();
    policy.fold = crate::engine::policy::FoldMode::RebuildFromArchive;
    let session = Scripted {
        policy,
        turn: |t| (format!("q{t}"), format!("a{t}")),
        summaries: vec!["S2".into(), "S3".into()],
        ..Scripted::default()
    }
    .play(3);
    assert!(session.memory.editions().iter().all(|e| e.rebuilt));
    let mut value = file_json(&session);
    assert_eq!(value["session"]["editions"][0]["rebuilt"], true);
    let back = import_value(&value).unwrap();
    assert!(back.memory.editions().iter().all(|e| e.rebuilt));
    // A progressive edition writes no field, and a file without it reads as progressive.
    assert!(
        file_json(&played())["session"]["editions"][0]
            .get("rebuilt")
            .is_none()
    );
    for edition in value["session"]["editions"].as_array_mut().unwrap() {
        edition.as_object_mut().unwrap().remove("rebuilt");
    }
    let back = import_value(&value).unwrap();
    assert!(back.memory.editions().iter().all(|e| !e.rebuilt));
}

/// A message the user left out of the requests was sent again after a reload: the file now
/// keeps which messages are left out (the messages themselves are in the archive as ever).
#[test]
fn messages_left_out_of_the_requests_stay_left_out_after_export_and_import() {
    let mut session = played();
    session.memory.set_excluded(6, true).unwrap();
    let value = file_json(&session);
    assert_eq!(value["session"]["excluded"], json!([6]));
    assert_eq!(value["session"]["archive"].as_array().unwrap().len(), 8);
    let back = import_value(&value).unwrap();
    assert_eq!(back.memory.excluded().collect::<Vec<_>>(), [6]);
    assert_eq!(back.memory.archive(), session.memory.archive());
    // None left out writes nothing.
    assert!(file_json(&played())["session"].get("excluded").is_none());
    // A folded message or one past the archive is refused, with the path at fault.
    for index in [0, 8] {
        let mut damaged = value.clone();
        damaged["session"]["excluded"] = json!([index]);
        let error = import_value(&damaged).unwrap_err().to_string();
        assert!(error.contains("excluded"), "{error}");
    }
}

/// A transcript with a tool call, its result and an image, read as a session.
fn with_tools() -> Session {
    let chat = json!([
        {"role": "developer", "content": "Use the tools."},
        {"role": "user", "content": [
            {"type": "text", "text": "What is in this picture, and the weather?"},
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
        ]},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}
        ]},
        {"role": "tool", "tool_call_id": "call_1", "content": "Snow, -3 C"},
        {"role": "assistant", "content": "A cat; it snows in Oslo."}
    ]);
    import_value(&chat).unwrap()
}

#[test]
fn version_3_keeps_tool_calls_results_and_placeholders() {
    let session = with_tools();
    let archive = session.memory.archive();
    assert_eq!(archive.len(), 4);
    assert_eq!(
        session.memory.turn_count(),
        1,
        "tool traffic stays in its turn"
    );
    let value = file_json(&session);
    assert_eq!(
        value["version"], VERSION,
        "written at the current version (tool traffic since 3)"
    );
    let stored = &value["session"]["archive"];
    assert_eq!(stored[0]["placeholders"], json!(["image"]));
    assert_eq!(stored[1]["calls"][0]["name"], "get_weather");
    assert_eq!(stored[2]["role"], "tool");
    assert_eq!(stored[2]["call_id"], "call_1");
    assert_eq!(stored[2]["tool_name"], "get_weather");
    // Plain messages write none of the new fields.
    assert!(stored[3].get("calls").is_none() && stored[3].get("placeholders").is_none());
    let back = import_value(&value).unwrap();
    assert_eq!(back.memory.archive(), archive);
    assert!(back.memory.archive()[0].is_estimate());
    assert_eq!(back.memory.system_prompt(), "Use the tools.");
}

#[test]
fn a_version_2_file_reads_as_version_3_without_tool_traffic() {
    let mut value = file_json(&played());
    value["version"] = json!(2);
    let back = import_value(&value).unwrap();
    assert_eq!(back.memory.archive(), played().memory.archive());
    assert!(back.memory.archive().iter().all(|m| !m.is_tool_traffic()));
}

#[test]
fn tool_fields_on_the_wrong_role_are_refused_with_the_path() {
    let mut value = file_json(&with_tools());
    value["session"]["archive"][0]["calls"] = json!([{"id": "x", "name": "n", "arguments": ""}]);
    assert!(matches!(
        import_value(&value),
        Err(ImportError::Invalid { ref path, .. }) if path == "session.archive[0].calls"
    ));
    let mut value = file_json(&with_tools());
    value["session"]["archive"][3]["call_id"] = json!("call_1");
    assert!(matches!(
        import_value(&value),
        Err(ImportError::Invalid { ref path, .. }) if path == "session.archive[3].call_id"
    ));
}

#[test]
fn read_says_what_the_file_was() {
    let file = export(&played(), 1, "0.1.0");
    let r = read(file.as_bytes(), &WordCounter).unwrap();
    assert_eq!(r.source, Source::SessionFile);
    assert_eq!(
        r.describe(),
        "Read 1 session from a Summary Memory session file."
    );
    let lines =
        "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\",\"content\":\"yo\"}\n";
    let r = read(lines.as_bytes(), &WordCounter).unwrap();
    assert_eq!(r.source.slug(), "openai-chat-jsonl");
    assert_eq!(
        r.describe(),
        "Read 1 conversation from OpenAI Chat Completions messages as JSON Lines."
    );
    let lines = "{\"title\":\"Fine\",\"messages\":[{\"role\":\"user\",\"content\":\"a\"}]}\n\
                 {\"title\":\"Broken\",\"messages\":[{\"role\":\"robot\",\"content\":\"b\"}]}\n";
    let r = read(lines.as_bytes(), &WordCounter).unwrap();
    assert_eq!(r.sessions.len(), 1);
    assert_eq!(
        r.describe(),
        "Read 1 conversation from OpenAI Chat Completions messages as JSON Lines. Skipped 1 \
         conversation: \"Broken\" (line 2.messages[0].role: unknown role \"robot\"; expected system, developer, user, \
         assistant, tool or function)."
    );
}

/// Every fixture format, read as sessions: the format named, each conversation a session, the
/// tool traffic in the turn of its question, and a re-export that holds every message's text.
#[test]
fn each_transcript_format_imports_and_its_export_holds_the_text() {
    let fixtures: [(&str, &str, usize, &[u32]); 5] = [
        (
            include_str!("../../../tests/fixtures/transcripts/openai_chat.json"),
            "openai-chat",
            1,
            &[2],
        ),
        (
            include_str!("../../../tests/fixtures/transcripts/openai_responses.json"),
            "openai-responses",
            1,
            &[2],
        ),
        (
            include_str!("../../../tests/fixtures/transcripts/anthropic.json"),
            "anthropic",
            1,
            &[3],
        ),
        (
            include_str!("../../../tests/fixtures/transcripts/chatgpt_conversations.json"),
            "chatgpt-export",
            2,
            &[2, 1],
        ),
        (
            include_str!("../../../tests/fixtures/transcripts/messages.jsonl"),
            "openai-chat-jsonl",
            1,
            &[2],
        ),
    ];
    for (text, slug, conversations, turns) in fixtures {
        let r = read(text.as_bytes(), &WordCounter).unwrap();
        assert_eq!(r.source.slug(), slug);
        assert_eq!(r.sessions.len(), conversations, "{slug}");
        let counted: Vec<u32> = r.sessions.iter().map(|s| s.memory.turn_count()).collect();
        assert_eq!(counted, turns, "{slug}");
        let exported = export_all(&r.sessions, 1, "test");
        let back = import_all(exported.as_bytes(), &WordCounter).unwrap();
        for (a, b) in r.sessions.iter().zip(&back) {
            assert_eq!(a.memory.archive(), b.memory.archive(), "{slug}");
            assert_eq!(a.memory.system_prompt(), b.memory.system_prompt(), "{slug}");
            assert_eq!(a.name, b.name);
            for m in a.memory.archive() {
                let quoted = serde_json::to_string(&m.content).unwrap();
                assert!(
                    exported.contains(&quoted[1..quoted.len() - 1]),
                    "{slug}: {}",
                    m.content
                );
                for c in &m.calls {
                    assert_eq!(m.tokens, m.count_with(&WordCounter));
                    assert!(!c.name.is_empty());
                }
            }
        }
    }
    let r = read(
        include_str!("../../../tests/fixtures/transcripts/chatgpt_conversations.json").as_bytes(),
        &WordCounter,
    )
    .unwrap();
    assert_eq!(r.sessions[0].name, "Budget for the bike trip");
    assert_eq!(
        r.describe(),
        "Read 2 conversations from a ChatGPT data export."
    );
}

#[test]
fn a_damaged_transcript_names_the_place() {
    let bad = json!({"model": "claude-3", "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "input": {}}]}
    ]});
    let err = import_value(&bad).unwrap_err();
    assert_eq!(
        err.to_string(),
        "at messages[1].content[0].name: name is missing"
    );
}

fn model_meta() -> CommitMeta {
    CommitMeta {
        model: None,
        provenance: Provenance::Model,
        at_ms: 0,
    }
}

/// A session under each peer's exact policy, played live with a fold that ends inside a turn
/// (LangChain's classic buffer keeps a reply without its question), survives a version-4
/// file: the exact fields and the first verbatim message come back as they were.
#[test]
fn the_exact_policy_and_a_fold_inside_a_turn_survive_export_and_import() {
    use crate::engine::peers::exact;
    for policy in [
        exact::langchain_classic(12),
        exact::langchain_v1(20, 3),
        exact::langchain_v1_keeping(20, crate::engine::policy::Keep::Tokens(8)),
        exact::llamaindex(15),
        exact::cookbook(1, 2),
        exact::gemini_cli(30),
        exact::codex(100),
    ] {
        let mut memory = MemoryState::new("be brief", policy.clone()).unwrap();
        memory.count_system_prompt(&WordCounter);
        for t in 0..6 {
            for (role, n) in [(Role::User, 2 + t % 3), (Role::Assistant, 5 + t % 4)] {
                let text = vec![format!("w{t}"); n].join(" ");
                let message = Message::new(role, text, &WordCounter, 0);
                let mut job = memory.add_message(message).unwrap();
                if role == Role::User {
                    job = job.or_else(|| memory.before_request(None));
                }
                if let Some(job) = job {
                    memory
                        .commit(job.id, "the summary", model_meta(), &WordCounter)
                        .unwrap();
                }
            }
        }
        let session = Session::new("exact", SessionSettings::default(), memory);
        let value = file_json(&session);
        assert_eq!(value["version"], VERSION);
        let back = import_value(&value).unwrap();
        assert_eq!(
            back.memory.policy(),
            session.memory.policy(),
            "{:?}",
            policy.exact
        );
        assert_eq!(
            back.memory.verbatim(),
            session.memory.verbatim(),
            "{:?}",
            policy.exact
        );
        assert_eq!(back.memory.summary(), session.memory.summary());
    }
    // The classic buffer's last fold above ended inside a turn, so the file says where.
    let mut memory = MemoryState::new("be brief", exact::langchain_classic(6)).unwrap();
    for (role, n) in [
        (Role::User, 2),
        (Role::Assistant, 3),
        (Role::User, 2),
        (Role::Assistant, 5),
    ] {
        let text = vec!["w"; n].join(" ");
        if let Some(job) = memory
            .add_message(Message::new(role, text, &WordCounter, 0))
            .unwrap()
        {
            memory
                .commit(job.id, "the summary", model_meta(), &WordCounter)
                .unwrap();
        }
    }
    assert_eq!(
        memory.verbatim().len(),
        1,
        "the last reply alone fits 6 tokens"
    );
    let session = Session::new("mid-turn", SessionSettings::default(), memory);
    let mut value = file_json(&session);
    assert_eq!(value["session"]["verbatim_from"], 3);
    let back = import_value(&value).unwrap();
    assert_eq!(back.memory.verbatim(), session.memory.verbatim());
    // A first verbatim message outside the last folded turn is refused, naming the field.
    value["session"]["verbatim_from"] = json!(0);
    let err = import_value(&value).unwrap_err().to_string();
    assert!(err.contains("verbatim_from"), "{err}");
}

/// A version-3 file (no exact policy) reads with today's defaults, and an exact field this
/// build does not know is refused with its path.
#[test]
fn older_files_read_the_exact_policy_as_the_defaults() {
    let session = played();
    let mut value = file_json(&session);
    assert!(value["session"]["policy"].get("exact").is_none());
    value["version"] = json!(3);
    let back = import_value(&value).unwrap();
    assert!(!back.memory.policy().exact.is_exact());
    value["session"]["policy"]["exact"] = json!({"check": "sometimes"});
    let err = import_value(&value).unwrap_err().to_string();
    assert!(
        err.contains("policy.exact.check") && err.contains("before_request"),
        "{err}"
    );
}

/// The newest-message floor is written only when set, so a version-4 file from before it (the
/// same policy without `keep_newest`) reads as it did, with the floor off and every other
/// field as written; with it, the floor survives the round trip.
#[test]
fn the_newest_message_floor_is_additive_to_version_4() {
    use crate::engine::peers::exact;
    use crate::engine::policy::Keep;
    let session_of = |policy: Policy| {
        let memory = MemoryState::new("be brief", policy).unwrap();
        Session::new("floor", SessionSettings::default(), memory)
    };
    // LangChain v1 keeping messages has no floor: its file has no such key.
    let by_messages = file_json(&session_of(exact::langchain_v1(20, 3)));
    assert_eq!(by_messages["version"], VERSION);
    assert!(
        by_messages["session"]["policy"]["exact"]
            .get("keep_newest")
            .is_none()
    );
    // Keeping tokens, it has one, and the file reads back to the same policy.
    let floored = exact::langchain_v1_keeping(20, Keep::Tokens(8));
    assert!(floored.exact.keep_newest);
    let mut value = file_json(&session_of(floored.clone()));
    assert_eq!(value["session"]["policy"]["exact"]["keep_newest"], true);
    assert_eq!(import_value(&value).unwrap().memory.policy(), &floored);
    // The same file as a build before the floor wrote it: everything else as it was.
    value["session"]["policy"]["exact"]
        .as_object_mut()
        .unwrap()
        .remove("keep_newest");
    let older = import_value(&value).unwrap();
    let mut expected = floored;
    expected.exact.keep_newest = false;
    assert_eq!(older.memory.policy(), &expected);
    // A floor that is not a boolean is refused, naming the field.
    value["session"]["policy"]["exact"]["keep_newest"] = json!("yes");
    let err = import_value(&value).unwrap_err().to_string();
    assert!(err.contains("keep_newest"), "{err}");
}

/// A policy's counter is written only when it is not the default (o200k_base), so a file or an
/// exported policy from before counters (no `counter`) reads as it did, measured with
/// o200k_base; a preset's own counter survives both round trips, a policy of today's rules
/// with another counter writes the counter alone, and an unknown counter is refused by name.
#[test]
fn the_counter_is_additive_to_version_4() {
    use crate::engine::peers::preset;
    use crate::engine::policy::Counter;
    let session_of = |policy: Policy| {
        let memory = MemoryState::new("be brief", policy).unwrap();
        Session::new("counted", SessionSettings::default(), memory)
    };
    let langchain = preset("langchain-v1-middleware").unwrap().policy(128_000);
    assert_eq!(langchain.exact.counter, Counter::LangChainApprox);
    let mut value = file_json(&session_of(langchain.clone()));
    assert_eq!(
        value["session"]["policy"]["exact"]["counter"],
        "langchain-approx"
    );
    assert_eq!(import_value(&value).unwrap().memory.policy(), &langchain);
    // The exported policy alone, too.
    let exported = export_policy(&langchain);
    assert!(
        exported.contains("\"counter\": \"langchain-approx\""),
        "{exported}"
    );
    assert_eq!(import_policy(exported.as_bytes()).unwrap(), langchain);

    // As a build before counters wrote it: the same policy, measured with o200k_base.
    value["session"]["policy"]["exact"]
        .as_object_mut()
        .unwrap()
        .remove("counter");
    let mut expected = langchain.clone();
    expected.exact.counter = Counter::O200K;
    assert_eq!(import_value(&value).unwrap().memory.policy(), &expected);
    let old_export: Value = serde_json::from_str(&exported).unwrap();
    let mut old_export = old_export;
    remove_key(&mut old_export, "counter");
    assert_eq!(
        import_policy(old_export.to_string().as_bytes()).unwrap(),
        expected
    );

    // The default writes nothing: a policy of today's rules has no exact fields at all.
    let plain = file_json(&session_of(Policy::default()));
    assert!(plain["session"]["policy"].get("exact").is_none());
    // Today's rules with another counter: the counter alone, read back whole.
    let mut words = Policy::default();
    words.exact.counter = Counter::Words;
    assert!(!words.exact.is_exact());
    let written = file_json(&session_of(words.clone()));
    assert_eq!(
        written["session"]["policy"]["exact"],
        json!({"counter": "words"})
    );
    assert_eq!(import_value(&written).unwrap().memory.policy(), &words);

    // A counter this build does not know is refused, naming the field and the choices.
    value["session"]["policy"]["exact"]["counter"] = json!("o201k");
    let err = import_value(&value).unwrap_err().to_string();
    assert!(
        err.contains("policy.exact.counter") && err.contains("langchain-approx"),
        "{err}"
    );
}

/// Removes `key` wherever it is in `value`.
fn remove_key(value: &mut Value, key: &str) {
    match value {
        Value::Object(map) => {
            map.remove(key);
            map.values_mut().for_each(|v| remove_key(v, key));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| remove_key(v, key)),
        _ => {}
    }
}
