//! "Continue in a new session": a live chat that goes on from one edition of another
//! conversation (the app's own, a replay's, or one another tool wrote, such as a Claude Code
//! compaction). Its memory holds no message, only that edition's summary as its first edition,
//! so its first request is the system prompt and the summary placed as the source's policy
//! says, with no verbatim turn; it records where it came from ([`ContinuedFrom`]), which the
//! library keeps with it and an export carries.

use super::{LIVE_SYSTEM_PROMPT, LiveError, LiveSession};
use crate::engine::library_session::{ContinuedFrom, Session};
use crate::engine::memory::{MemoryError, MemoryState};
use crate::engine::message::CountTokens;

impl LiveSession {
    /// A new live chat from edition `cycle` of `source` (kept in the library under
    /// `source_id`): the source's system prompt (the live chat's own when it has none), policy
    /// and pinned facts, and the edition's summary. Refused, with nothing changed, when the
    /// source has no such edition.
    pub fn continue_from(
        source: &Session,
        source_id: &str,
        cycle: u32,
        at_ms: u64,
        counter: &dyn CountTokens,
    ) -> Result<LiveSession, LiveError> {
        let edition = source
            .memory
            .editions()
            .iter()
            .find(|e| e.cycle == cycle)
            .ok_or(MemoryError::NoSuchEdition(cycle))?;
        let system = match source.memory.system_prompt().trim() {
            "" => LIVE_SYSTEM_PROMPT,
            prompt => prompt,
        };
        let memory = MemoryState::continued(
            system,
            source.memory.policy().clone(),
            &edition.summary,
            at_ms,
            counter,
        )?;
        let mut live = LiveSession::with_memory(memory);
        live.pinned = source.pinned.clone();
        live.continued_from = Some(ContinuedFrom {
            session_id: source_id.to_owned(),
            name: source.name.clone(),
            edition: cycle,
        });
        Ok(live)
    }

    /// The session and edition this chat went on from, if it was continued from one.
    pub fn continued_from(&self) -> Option<&ContinuedFrom> {
        self.continued_from.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::library::Library;
    use crate::engine::message::{Role, WordCounter};
    use crate::engine::policy::{Placement, SUMMARY_ACK};
    use crate::engine::session::{export, import, synthetic};

    /// A summarised session under `placement`, and its first edition's summary.
    fn source(placement: Placement) -> (Session, String) {
        let mut session = synthetic(12);
        let mut policy = session.memory.policy().clone();
        policy.placement = placement;
        session.memory.set_policy(policy).unwrap();
        let summary = session.memory.editions()[0].summary.clone();
        assert_ne!(Some(summary.as_str()), session.memory.summary());
        (session, summary)
    }

    /// Each message as (role, text), for comparing whole requests.
    fn shape(messages: impl IntoIterator<Item = (Role, String)>) -> Vec<(Role, String)> {
        messages.into_iter().collect()
    }

    #[test]
    fn the_first_request_holds_the_system_prompt_and_the_summary_as_each_placement_places_it() {
        let system = "You are a careful budgeting coach.";
        for placement in [
            Placement::SecondSystem,
            Placement::AppendToSystem,
            Placement::UserAck,
        ] {
            let (source, summary) = source(placement);
            let mut live = LiveSession::continue_from(&source, "s-1", 1, 50, &WordCounter).unwrap();
            // Before anything is sent: the context window's request, no verbatim turn.
            let before = shape(
                live.memory()
                    .request(&WordCounter)
                    .into_iter()
                    .map(|m| (m.role, m.content)),
            );
            let expected_head = match placement {
                Placement::SecondSystem => vec![
                    (Role::System, system.to_owned()),
                    (Role::System, before[1].1.clone()),
                ],
                Placement::AppendToSystem => vec![(Role::System, before[0].1.clone())],
                Placement::UserAck => vec![
                    (Role::System, system.to_owned()),
                    (Role::User, before[1].1.clone()),
                    (Role::Assistant, SUMMARY_ACK.to_owned()),
                ],
            };
            assert_eq!(before, expected_head, "{placement:?}");
            let holding: Vec<_> = before
                .iter()
                .filter(|(_, t)| t.contains(&summary))
                .collect();
            assert_eq!(
                holding.len(),
                1,
                "{placement:?}: the summary once: {before:?}"
            );
            if placement == Placement::AppendToSystem {
                assert!(before[0].1.starts_with(system), "{before:?}");
            }
            assert!(live.memory().archive().is_empty());
            assert_eq!(live.memory().summary(), Some(summary.as_str()));
            // The first request sent is that head and the question, nothing of the source's turns.
            let sent = live.send("What do I hold?", 60, &WordCounter).unwrap();
            let mut expected = expected_head.clone();
            expected.push((Role::User, "What do I hold?".to_owned()));
            assert_eq!(
                shape(sent.into_iter().map(|m| (m.role, m.content))),
                expected,
                "{placement:?}"
            );
            assert_eq!(
                live.continued_from(),
                Some(&ContinuedFrom {
                    session_id: "s-1".into(),
                    name: source.name.clone(),
                    edition: 1,
                })
            );
            assert_eq!(live.pinned(), source.pinned.as_slice());
        }
    }

    #[test]
    fn an_edition_the_source_lacks_is_refused() {
        let (source, _) = source(Placement::SecondSystem);
        assert_eq!(
            LiveSession::continue_from(&source, "s-1", 99, 0, &WordCounter),
            Err(LiveError::Memory(MemoryError::NoSuchEdition(99)))
        );
    }

    #[test]
    fn a_source_with_no_system_prompt_gets_the_live_chats() {
        let (mut source, _) = source(Placement::SecondSystem);
        source.memory.set_system_prompt("");
        let live = LiveSession::continue_from(&source, "s-1", 2, 0, &WordCounter).unwrap();
        assert_eq!(live.memory().system_prompt(), LIVE_SYSTEM_PROMPT);
    }

    #[test]
    fn the_library_keeps_the_continued_chat_at_once_and_the_link_survives_export_and_import() {
        let (source, summary) = source(Placement::UserAck);
        let mut library = Library::default();
        library.add("src".into(), source.clone(), 1).unwrap();
        let live = LiveSession::continue_from(&source, "src", 1, 5, &WordCounter).unwrap();
        // Kept before anything is sent, under a new id and a name that says where it came from.
        let id = library
            .keep_live(Some("src"), || "new".into(), &live, 6, &WordCounter)
            .unwrap();
        assert_eq!(id, "new");
        let kept = &library.get("new").unwrap().session;
        assert_eq!(kept.name, format!("Continued from {}", source.name));
        let link = kept.continued_from.clone().unwrap();
        assert_eq!((link.session_id.as_str(), link.edition), ("src", 1));
        assert_eq!(
            library.get("src").unwrap().session,
            source,
            "the source is untouched"
        );

        let file = export(kept, 0, "test");
        let value: serde_json::Value = serde_json::from_str(&file).unwrap();
        assert_eq!(value["version"], 6);
        assert_eq!(value["session"]["continued_from"]["edition"], 1);
        let back = import(file.as_bytes(), &WordCounter).unwrap();
        assert_eq!(back.continued_from, Some(link));
        assert_eq!(back.memory.summary(), Some(summary.as_str()));
        let resumed = LiveSession::resume(&back);
        assert_eq!(resumed.continued_from(), back.continued_from.as_ref());
        assert_eq!(
            resumed.memory().request(&WordCounter),
            live.memory().request(&WordCounter)
        );
    }

    #[test]
    fn the_metadata_option_survives_export_and_import_and_is_absent_when_off() {
        let (mut source, _) = source(Placement::SecondSystem);
        let plain = export(&source, 0, "test");
        assert!(!plain.contains("\"metadata\""), "absent when off");
        let mut policy = source.memory.policy().clone();
        policy.prompt.metadata = true;
        source.memory.set_policy(policy).unwrap();
        let back = import(export(&source, 0, "test").as_bytes(), &WordCounter).unwrap();
        assert!(back.memory.policy().prompt.metadata);
    }

    #[test]
    fn a_version_5_file_reads_as_not_continued_and_edition_0_is_refused() {
        let (source, _) = source(Placement::SecondSystem);
        let live = LiveSession::continue_from(&source, "src", 1, 5, &WordCounter).unwrap();
        let mut library = Library::default();
        let id = library
            .keep_live(None, || "new".into(), &live, 6, &WordCounter)
            .unwrap();
        let file = export(&library.get(&id).unwrap().session, 0, "test");
        let mut value: serde_json::Value = serde_json::from_str(&file).unwrap();
        value["session"]["continued_from"]["edition"] = 0.into();
        let error = import(value.to_string().as_bytes(), &WordCounter).unwrap_err();
        assert!(
            error.to_string().contains("session.continued_from.edition"),
            "{error}"
        );
        value["version"] = 5.into();
        value["session"]
            .as_object_mut()
            .unwrap()
            .remove("continued_from");
        let old = import(value.to_string().as_bytes(), &WordCounter).unwrap();
        assert_eq!(old.continued_from, None);
    }
}
