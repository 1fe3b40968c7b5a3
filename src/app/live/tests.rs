use super::*;
use crate::engine::message::WordCounter;
use crate::engine::run::{Estimate, RunStatus, Tokens, Unit};

const C: WordCounter = WordCounter;

use crate::app::rows::RowState as LiveState;

fn states(session: &LiveSession) -> Vec<(&'static str, &'static str)> {
    session
        .rows()
        .iter()
        .map(|r| (r.role.as_str(), r.state.slug()))
        .collect()
}

/// The reason the summaries failed, while they wait for Retry.
fn summary_failure(session: &LiveSession) -> String {
    match session.summaries().status() {
        Some(RunStatus::Failed(reason)) => reason.clone(),
        other => panic!("the summaries failed, not {other:?}"),
    }
}

/// Plays `turns` complete turns and returns the last summary job emitted, if any.
fn play(session: &mut LiveSession, turns: u32) -> Option<SummaryJob> {
    let mut job = None;
    for n in 1..=turns {
        session.send(&format!("question {n}"), 0, &C).unwrap();
        session.delta(&format!("answer {n}"));
        job = session
            .finish(ReplyEnd::Complete(format!("answer {n}")), 0, &C)
            .or(job);
    }
    job
}

#[test]
fn sending_archives_the_user_message_before_the_request_and_streams_the_reply() {
    let mut session = LiveSession::default();
    let sent = session.send("  hello there ", 5, &C).unwrap();
    assert_eq!(session.memory().archive().len(), 1);
    assert_eq!(session.memory().archive()[0].content, "hello there");
    assert_eq!(sent.last().map(|m| m.content.as_str()), Some("hello there"));
    assert_eq!(sent[0].role, Role::System);
    session.delta("Hi");
    session.delta(" you");
    let rows = session.rows();
    assert_eq!(rows[1].content, "Hi you");
    assert_eq!(
        states(&session),
        [("user", "verbatim"), ("assistant", "streaming")]
    );
    assert_eq!(session.send("again", 6, &C), Err(LiveError::Busy));
    assert_eq!(
        session.finish(ReplyEnd::Complete("Hi you".into()), 7, &C),
        None
    );
    assert_eq!(
        states(&session),
        [("user", "verbatim"), ("assistant", "verbatim")]
    );
    assert_eq!(session.send("   ", 8, &C), Err(LiveError::EmptyMessage));
}

#[test]
fn each_call_records_our_count_beside_the_apis() {
    let mut session = LiveSession::default();
    let sent = session.send("how much is left", 0, &C).unwrap();
    let usage = Usage {
        prompt_tokens: 21,
        completion_tokens: 3,
        reasoning_tokens: None,
    };
    session.record_call(CallKind::Chat, &sent, Some(&usage), &C);
    session.record_call(CallKind::Summary, &sent[..1], None, &C);
    let ours: u32 = sent.iter().map(|m| C.count(&m.content)).sum();
    assert_eq!(
        session.calls(),
        [
            CallRecord {
                kind: CallKind::Chat,
                client_prompt_tokens: ours,
                api_prompt_tokens: Some(21),
                api_completion_tokens: Some(3),
            },
            CallRecord {
                kind: CallKind::Summary,
                client_prompt_tokens: C.count(&sent[0].content),
                api_prompt_tokens: None,
                api_completion_tokens: None,
            },
        ]
    );
}

#[test]
fn a_failed_request_keeps_the_user_message_and_retry_resends_it() {
    let mut session = LiveSession::default();
    let first = session.send("plan my savings", 1, &C).unwrap();
    let job = session.finish(
        ReplyEnd::Failed {
            partial: String::new(),
            error: "Rate limited.".into(),
        },
        2,
        &C,
    );
    assert_eq!(job, None);
    assert_eq!(session.error(), Some("Rate limited."));
    assert!(session.retries_reply());
    assert_eq!(states(&session), [("user", "verbatim")]);
    let again = session.retry(&C).unwrap();
    assert_eq!(again, LiveAction::Reply(first));
    assert_eq!(session.error(), None);
    assert!(session.is_streaming());
    assert_eq!(session.memory().archive().len(), 1, "not archived twice");
    assert_eq!(
        session.retry(&C),
        Err(LiveError::Busy),
        "no retry while a reply arrives"
    );
}

#[test]
fn retrying_a_reply_that_failed_mid_stream_does_not_send_the_partial_reply() {
    let mut session = LiveSession::default();
    let first = session.send("plan my savings", 1, &C).unwrap();
    session.delta("Start with an emer");
    session.finish(
        ReplyEnd::Failed {
            partial: "Start with an emer".into(),
            error: "The connection dropped.".into(),
        },
        2,
        &C,
    );
    // Nothing is lost: the partial reply is archived and shown as incomplete.
    assert_eq!(
        states(&session),
        [("user", "verbatim"), ("assistant", "incomplete")]
    );
    let again = session.retry(&C).unwrap();
    assert_eq!(
        again,
        LiveAction::Reply(first),
        "the same request as before"
    );
    session.finish(
        ReplyEnd::Complete("Start with an emergency fund.".into()),
        3,
        &C,
    );
    // Nor does any later request carry it, while the user's Stop-ped replies stay in.
    let next = session.send("and then?", 4, &C).unwrap();
    let sent: Vec<&str> = next.iter().map(|m| m.content.as_str()).collect();
    assert!(!sent.contains(&"Start with an emer"), "{sent:?}");
    assert!(sent.contains(&"Start with an emergency fund."));
    assert_eq!(sent.last(), Some(&"and then?"));
}

#[test]
fn stop_keeps_the_partial_reply_marked_incomplete() {
    let mut session = LiveSession::default();
    session.send("tell me a story", 1, &C).unwrap();
    session.delta("Once upon");
    session.finish(ReplyEnd::Stopped("Once upon".into()), 2, &C);
    assert_eq!(
        states(&session),
        [("user", "verbatim"), ("assistant", "incomplete")]
    );
    assert_eq!(session.rows()[1].content, "Once upon");
    assert_eq!(session.error(), None);
    // Stopping before any text arrived archives nothing.
    session.send("never mind", 3, &C).unwrap();
    session.finish(ReplyEnd::Stopped(String::new()), 4, &C);
    assert_eq!(session.memory().archive().len(), 3);
}

#[test]
fn a_due_summary_is_committed_as_a_model_edition_and_folds_the_old_turns() {
    let mut session = LiveSession::default();
    assert_eq!(play(&mut session, 3), None);
    let job = play(&mut session, 1).expect("the 4/2 policy fires after 4 turns");
    assert!(session.is_summarising());
    let next = session.summary_done(
        job.id,
        Ok("The user asked 1 and 2.".into()),
        "sum-model",
        9,
        &C,
    );
    assert_eq!(next, None);
    assert!(!session.is_summarising());
    let memory = session.memory();
    assert_eq!(memory.summary(), Some("The user asked 1 and 2."));
    let edition = memory.editions().last().unwrap();
    assert_eq!(edition.provenance, Provenance::Model);
    assert_eq!(edition.model.as_deref(), Some("sum-model"));
    let folded = session
        .rows()
        .iter()
        .filter(|r| r.state == LiveState::Folded)
        .count();
    assert_eq!(folded, 4);
}

#[test]
fn a_failed_or_empty_summary_changes_nothing_and_offers_retry() {
    for result in [
        Err("The server failed (HTTP 500).".to_owned()),
        Ok("   ".to_owned()),
    ] {
        let mut session = LiveSession::default();
        let job = play(&mut session, 4).unwrap();
        let before = session.memory().clone();
        assert_eq!(
            session.summary_done(job.id, result.clone(), "m", 9, &C),
            None
        );
        assert_eq!(session.memory().summary(), None, "{result:?}");
        assert_eq!(session.memory().verbatim(), before.verbatim());
        assert_eq!(session.memory().failures().len(), 1);
        assert!(states(&session).iter().all(|(_, s)| *s == "verbatim"));
        let reason = summary_failure(&session);
        assert!(
            reason.contains("HTTP 500") || reason.contains("empty summary"),
            "{reason}"
        );
        assert_eq!(
            session.error(),
            None,
            "the reply's error line is the reply's"
        );
        assert!(!session.retries_reply());
        let LiveAction::Summary(again) = session.retry(&C).unwrap() else {
            panic!("Retry redoes the summary");
        };
        assert!(again.id > job.id);
        assert!(session.summaries().is_running());
        session.summary_done(again.id, Ok("Turns 1-2.".into()), "m", 10, &C);
        assert_eq!(session.memory().summary(), Some("Turns 1-2."));
        assert_eq!(session.summaries().status(), Some(&RunStatus::Done));
    }
}

#[test]
fn a_script_run_live_sends_its_messages_in_order_pausing_on_errors_and_ending_on_stop() {
    let script = DemoScript::fincoach();
    let mut session = LiveSession::from_script(&script).unwrap();
    assert_eq!(session.memory().policy(), &script.policy);
    assert_eq!(session.queued(), script.turns.len());
    let first = session.next_queued(1, &C).unwrap();
    assert_eq!(first.last().unwrap().content, script.turns[0].0);
    assert_eq!(session.next_queued(2, &C), None, "one reply at a time");
    session.finish(
        ReplyEnd::Failed {
            partial: String::new(),
            error: "down".into(),
        },
        3,
        &C,
    );
    assert_eq!(session.next_queued(4, &C), None, "paused until Retry");
    assert!(matches!(session.retry(&C), Ok(LiveAction::Reply(_))));
    session.finish(ReplyEnd::Complete("ok".into()), 5, &C);
    let second = session.next_queued(6, &C).unwrap();
    assert_eq!(second.last().unwrap().content, script.turns[1].0);
    session.finish(ReplyEnd::Stopped("partial".into()), 7, &C);
    assert_eq!(session.queued(), 0);
    assert_eq!(session.next_queued(8, &C), None);
}

#[test]
fn the_default_session_uses_the_four_two_turn_policy() {
    assert_eq!(
        LiveSession::default().memory().policy().trigger,
        crate::engine::policy::Trigger::Turns {
            max_turns: 4,
            keep: 2
        }
    );
}

#[test]
fn a_live_chat_exported_imported_and_resumed_is_the_same_chat() {
    use crate::app::library::Library;
    use crate::engine::drift::PinnedFact;
    use crate::engine::library_session::SessionSettings;
    use crate::engine::session::{export, import};
    let mut session = LiveSession::default();
    let policy = session.memory().policy().clone();
    session
        .set_policy(policy, vec![PinnedFact::regex("plan", r"(?i)savings")])
        .unwrap();
    // A reply cut short by a failure, then retried; a stopped reply; two calls recorded.
    let sent = session.send("plan my savings", 1, &C).unwrap();
    session.finish(
        ReplyEnd::Failed {
            partial: "Start with an emer".into(),
            error: "The connection dropped.".into(),
        },
        2,
        &C,
    );
    session.record_call(CallKind::Chat, &sent, None, &C);
    let LiveAction::Reply(again) = session.retry(&C).unwrap() else {
        panic!("Retry asks for the reply again");
    };
    let usage = Usage {
        prompt_tokens: 9,
        completion_tokens: 4,
        reasoning_tokens: None,
    };
    session.record_call(CallKind::Chat, &again, Some(&usage), &C);
    session.finish(ReplyEnd::Complete("Start with a fund.".into()), 3, &C);
    session.send("and then?", 4, &C).unwrap();
    session.finish(ReplyEnd::Stopped("Then inv".into()), 5, &C);
    play(&mut session, 1);

    // Kept in the library as the shell keeps it, written as the store writes it, read back.
    let mut library = Library::default();
    let id = library
        .keep_live(None, || "live".into(), &session, 6, &C)
        .unwrap();
    let kept = &library.get(&id).unwrap().session;
    let file = export(kept, 6, "test");
    let back = import(file.as_bytes(), &C).unwrap();
    let resumed = LiveSession::resume(&back);

    assert_eq!(resumed.rows(), session.rows());
    assert_eq!(
        states(&resumed)[1..4],
        [
            ("assistant", "incomplete"),
            ("assistant", "verbatim"),
            ("user", "verbatim")
        ]
    );
    assert_eq!(resumed.rows()[4].state, LiveState::Incomplete);
    assert_eq!(resumed.calls(), session.calls());
    assert_eq!(resumed.calls().len(), 2);
    assert_eq!(resumed.pinned(), session.pinned());
    assert_eq!(resumed.record(), session.record());
    assert_eq!(resumed.memory().archive(), session.memory().archive());
    assert_eq!(resumed.memory().policy(), session.memory().policy());
    // The resumed chat writes the same file, and sends what the original would have sent:
    // the reply the failure cut short stays out of every later request.
    let again = Session {
        live: Some(resumed.record().clone()),
        pinned: resumed.pinned().to_vec(),
        ..Session::new(
            kept.name.clone(),
            SessionSettings::default(),
            resumed.memory().clone(),
        )
    };
    assert_eq!(export(&again, 6, "test"), file);
    let (mut a, mut b) = (session.clone(), resumed.clone());
    let next_a = a.send("what now?", 7, &C).unwrap();
    assert_eq!(next_a, b.send("what now?", 7, &C).unwrap());
    assert!(!next_a.iter().any(|m| m.content == "Start with an emer"));
}

#[test]
fn restore_and_edit_print_new_editions_of_the_live_memory_but_not_mid_summary() {
    let mut session = LiveSession::default();
    let job = play(&mut session, 4).unwrap();
    assert_eq!(
        session.restore(1, 5, &C),
        Err(LiveError::Summarising),
        "a summary is being written"
    );
    assert_eq!(
        session.edit_summary("mine", 5, &C),
        Err(LiveError::Summarising)
    );
    session.summary_done(job.id, Ok("Turns 1 and 2.".into()), "m", 6, &C);
    session.edit_summary("By hand.", 7, &C).unwrap();
    assert_eq!(session.memory().summary(), Some("By hand."));
    session.restore(1, 8, &C).unwrap();
    let memory = session.memory();
    assert_eq!(memory.summary(), Some("Turns 1 and 2."));
    let last = memory.editions().last().unwrap();
    assert_eq!(
        (last.cycle, last.provenance, last.restored_from),
        (3, Provenance::Restore, Some(1))
    );
    assert!(matches!(
        session.restore(9, 9, &C),
        Err(LiveError::Memory(MemoryError::NoSuchEdition(9)))
    ));
    assert!(session.edit_summary("  ", 9, &C).is_err());
    assert_eq!(session.memory().editions().len(), 3);
}

#[test]
fn retry_with_nothing_failed_is_refused() {
    let mut session = LiveSession::default();
    assert_eq!(session.retry(&C), Err(LiveError::NothingToRetry));
}

#[test]
fn a_replys_end_leads_to_its_summary_then_to_the_next_queued_message() {
    let script = DemoScript::fincoach();
    let mut session = LiveSession::from_script(&script).unwrap();
    let mut action = session.next_queued(0, &C).map(LiveAction::Reply);
    let (mut replies, mut summaries) = (0, 0);
    // The runner's loop, with canned results: every reply complete, every summary written.
    while let Some(current) = action.take() {
        action = match current {
            LiveAction::Reply(request) => {
                replies += 1;
                let end = ReplyEnd::Complete(format!("answer {replies}"));
                session.reply_ended(&request, None, end, replies, &C)
            }
            LiveAction::Summary(job) => {
                summaries += 1;
                let reply = Ok(Some(format!("Summary {summaries}.")));
                session.summary_ended(&job, reply, None, "m", 100, &C)
            }
        };
    }
    assert_eq!(
        replies as usize,
        script.turns.len(),
        "every queued message was sent"
    );
    assert_eq!(summaries, session.memory().editions().len());
    assert!(summaries > 0);
    let kinds: Vec<CallKind> = session.calls().iter().map(|c| c.kind).collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == CallKind::Chat).count(),
        replies as usize
    );
    assert_eq!(kinds.len(), replies as usize + summaries);
    assert!(!session.is_busy());
}

#[test]
fn a_failed_reply_or_a_stopped_summary_ends_the_run_until_retry() {
    let mut session = LiveSession::from_script(&DemoScript::fincoach()).unwrap();
    let request = session.next_queued(0, &C).unwrap();
    let end = ReplyEnd::of_completion(Err(ApiError::Network {
        base_url: "http://127.0.0.1:1".into(),
        detail: "down".into(),
        fix: "Start the server.".into(),
    }));
    assert!(matches!(end, ReplyEnd::Failed { .. }));
    assert_eq!(session.reply_ended(&request, None, end, 1, &C), None);
    assert!(session.error().is_some());
    assert!(matches!(session.retry(&C), Ok(LiveAction::Reply(_))));
    // A stopped non-streamed request is a stop with nothing received.
    assert_eq!(
        ReplyEnd::of_completion(Ok(None)),
        ReplyEnd::Stopped(String::new())
    );
    assert_eq!(
        ReplyEnd::of_completion(Ok(Some("hi".into()))),
        ReplyEnd::Complete("hi".into())
    );
    // A stopped summary request is a failure the memory records; the summaries stop, and
    // Retry goes on.
    let mut session = LiveSession::default();
    let job = play(&mut session, 4).unwrap();
    assert_eq!(
        summary_text(Ok(None)),
        Err("the summary request was stopped".into())
    );
    assert_eq!(
        session.summary_ended(&job, Ok(None), None, "m", 9, &C),
        None
    );
    assert_eq!(session.summaries().status(), Some(&RunStatus::Stopped));
    assert_eq!(session.memory().failures().len(), 1);
}

#[test]
fn the_shape_changes_with_what_the_library_keeps_but_not_with_a_streamed_piece() {
    let mut session = LiveSession::default();
    let empty = session.shape();
    assert!(!empty.busy);
    session.send("hello", 1, &C).unwrap();
    let sending = session.shape();
    assert!(sending.busy, "a reply is on its way");
    assert_ne!(sending, empty);
    session.delta("Hi");
    assert_eq!(session.shape(), sending, "a streamed piece is no change");
    session.finish(ReplyEnd::Complete("Hi".into()), 2, &C);
    let done = session.shape();
    assert!(!done.busy);
    let policy = session.memory().policy().clone();
    session
        .set_policy(policy.clone(), vec![PinnedFact::phrase("hi", "hi")])
        .unwrap();
    assert_ne!(session.shape(), done, "pinning a fact is a change");
    // An invalid policy or fact is refused with its own error, and changes nothing.
    let shape = session.shape();
    let bad = PinnedFact::regex("bad", "(");
    assert!(matches!(
        session.set_policy(policy, vec![bad]),
        Err(LiveError::Fact(_))
    ));
    assert_eq!(session.shape(), shape);
}

/// A reasoning model's reply showed only its answer, and its reasoning was dropped: it is now
/// kept with the reply it belongs to, apart from the answer, and never sent back.
#[test]
fn a_replys_reasoning_is_kept_apart_from_its_answer_and_never_sent() {
    let mut session = LiveSession::default();
    session.send("what is 2 + 2?", 1, &C).unwrap();
    session.delta("4");
    session.reasoned("Two and two make four.");
    assert_eq!(
        session.rows()[1].reasoning.as_deref(),
        Some("Two and two make four.")
    );
    session.finish(ReplyEnd::Complete("4".into()), 2, &C);
    let rows = session.rows();
    assert_eq!(rows[1].content, "4");
    assert_eq!(rows[1].reasoning.as_deref(), Some("Two and two make four."));
    assert_eq!(rows[0].reasoning, None);
    let next = session.send("and 3 + 3?", 3, &C).unwrap();
    assert!(
        next.iter().all(|m| !m.content.contains("Two and two")),
        "{next:?}"
    );
    // A reply without reasoning shows none.
    session.finish(ReplyEnd::Complete("6".into()), 4, &C);
    assert_eq!(session.rows()[3].reasoning, None);
}

/// A reply that finished with no text at all (an empty completion, no reasoning) archived
/// nothing and said nothing: it is now an error with the fix, and Retry is offered.
#[test]
fn a_reply_with_no_text_is_never_archived_silently() {
    let mut session = LiveSession::default();
    session.send("hello", 1, &C).unwrap();
    session.finish(ReplyEnd::Complete("  ".into()), 2, &C);
    assert_eq!(session.memory().archive().len(), 1);
    let error = session.error().expect("the empty reply is reported");
    assert!(error.contains("No answer text arrived"), "{error}");
    assert!(error.contains("max_tokens"), "{error}");
    assert!(session.retries_reply());
    assert_eq!(session.unanswered_reasoning(), None);

    // Reasoning with no answer: the error says so, and the reasoning is kept to be shown.
    session.retry(&C).unwrap();
    session.reasoned("Let me think.");
    session.finish(
        ReplyEnd::of_error(
            String::new(),
            &ApiError::NoAnswer {
                finish_reason: Some("length".into()),
                reasoned: true,
            },
        ),
        3,
        &C,
    );
    assert_eq!(session.memory().archive().len(), 1);
    assert!(session.error().unwrap().contains("only reasoned"));
    assert_eq!(session.unanswered_reasoning(), Some("Let me think."));
    // Retry starts afresh.
    session.retry(&C).unwrap();
    assert_eq!(session.unanswered_reasoning(), None);
}

fn context_error(purpose: Purpose) -> ApiError {
    ApiError::ContextTooLong {
        purpose: Some(purpose),
        requested: Some(9000),
        limit: Some(8192),
        message: "maximum context length is 8192 tokens".into(),
    }
}

/// A chat request too long for the context window offered no way out: the session now says
/// which request it was, and leaving a message out or folding early makes the retry smaller.
#[test]
fn a_chat_request_too_long_offers_folding_and_leaving_a_message_out() {
    let mut session = LiveSession::default();
    play(&mut session, 3);
    session
        .send("a very long pasted text of many many words", 1, &C)
        .unwrap();
    let end = ReplyEnd::of_error(String::new(), &context_error(Purpose::Chat));
    assert!(matches!(end, ReplyEnd::TooLong(_)));
    session.finish(end, 2, &C);
    assert_eq!(session.too_long(), Some(Purpose::Chat));
    assert!(
        session
            .error()
            .unwrap()
            .contains("The chat request is too long")
    );
    assert!(session.retries_reply());
    // The longest message still sent is the pasted one, at archive index 6, turn 4.
    assert_eq!(session.longest_sent(), Some((6, 4, 9)));
    assert!(session.memory().can_fold_now());

    session.set_excluded(6, true).unwrap();
    assert!(session.rows()[6].excluded);
    let LiveAction::Reply(sent) = session.retry(&C).unwrap() else {
        panic!("Retry redoes the reply");
    };
    assert_eq!(session.too_long(), None);
    assert!(
        sent.iter().all(|m| !m.content.contains("pasted")),
        "{sent:?}"
    );
    // The archive keeps it, and it can be sent again.
    assert_eq!(
        session.memory().archive()[6].content,
        "a very long pasted text of many many words"
    );
    session.finish(ReplyEnd::Complete("ok".into()), 3, &C);
    session.set_excluded(6, false).unwrap();
    assert!(!session.rows()[6].excluded);
}

/// Fold now after a chat request was too long: the summary cycle runs early, and Retry then
/// sends the summary in place of the folded turns.
#[test]
fn folding_now_after_a_request_too_long_makes_the_retry_smaller() {
    let mut session = LiveSession::default();
    play(&mut session, 3);
    let before = session.send("question 4", 1, &C).unwrap();
    session.finish(ReplyEnd::TooLong("too long".into()), 2, &C);
    let job = session.summarise_now().unwrap();
    assert_eq!(
        session.summary_ended(&job, Ok(Some("S.".into())), None, "m", 3, &C),
        None
    );
    assert!(session.retries_reply(), "the reply is still due");
    assert_eq!(session.summaries().status(), Some(&RunStatus::Done));
    let LiveAction::Reply(after) = session.retry(&C).unwrap() else {
        panic!("Retry redoes the reply");
    };
    assert!(after.len() < before.len(), "{after:?}");
    assert!(after.iter().any(|m| m.content.contains("S.")));
}

#[test]
fn a_summary_request_too_long_is_named_as_the_summarisers() {
    let mut session = LiveSession::default();
    let job = play(&mut session, 4).unwrap();
    session.summary_ended(&job, Err(context_error(Purpose::Summary)), None, "m", 5, &C);
    assert_eq!(session.too_long(), Some(Purpose::Summary));
    let reason = summary_failure(&session);
    assert!(
        reason.contains("The summariser's request is too long"),
        "{reason}"
    );
}

/// Enter sent a message while a summary was being written, so the new turn raced the commit:
/// Send is refused then, and the message stays with the user.
#[test]
fn send_is_refused_while_a_summary_is_being_written() {
    let mut session = LiveSession::default();
    let job = play(&mut session, 4).unwrap();
    assert!(session.is_summarising());
    assert_eq!(session.send("next", 5, &C), Err(LiveError::SummaryRunning));
    assert_eq!(session.memory().archive().len(), 8);
    session.summary_done(job.id, Ok("S.".into()), "m", 6, &C);
    assert!(session.send("next", 7, &C).is_ok());
}

fn wait(purpose: Purpose, until_ms: u64) -> RetryWait {
    RetryWait {
        purpose,
        attempt: 2,
        attempts: 3,
        until_ms,
        reason: "The server failed (HTTP 503): busy. Try again in a moment.".into(),
    }
}

/// Retries were silent: the chat said nothing for the seconds a retry waited. The session now
/// says what failed, when the next attempt goes and which attempt it is.
#[test]
fn a_pending_retry_counts_down_and_ends_with_the_request() {
    let mut session = LiveSession::default();
    let job = play(&mut session, 4).unwrap();
    assert_eq!(session.retry_status(0), None);
    session.retrying(wait(Purpose::Summary, 10_000));
    assert_eq!(
        session.retry_status(6_500).as_deref(),
        Some(
            "The summary request failed: The server failed (HTTP 503): busy. Try again in a moment. Retrying in 4 s, attempt 2 of 3."
        )
    );
    assert!(
        session
            .retry_status(10_000)
            .unwrap()
            .contains("Retrying now, attempt 2 of 3")
    );
    session.summary_ended(&job, Ok(Some("S.".into())), None, "m", 11_000, &C);
    assert_eq!(session.retry_status(11_000), None);
    assert_eq!(session.memory().summary(), Some("S."));
}

/// Cancelling the wait before a retry ended the request like a user's Stop, which for a chat
/// reply with no text said nothing and offered no Retry: the failure that caused the wait now
/// stands, and Retry is offered.
#[test]
fn cancelling_a_retry_keeps_the_failure_and_offers_retry() {
    let mut session = LiveSession::default();
    session.send("hello", 1, &C).unwrap();
    session.retrying(wait(Purpose::Chat, 5_000));
    session.finish(ReplyEnd::Stopped(String::new()), 2_000, &C);
    let error = session.error().unwrap();
    assert!(error.contains("HTTP 503"), "{error}");
    assert!(error.contains("Retries cancelled"), "{error}");
    assert!(session.retries_reply());
    assert_eq!(session.retry_wait(), None);

    // The same for a summary.
    let mut session = LiveSession::default();
    let job = play(&mut session, 4).unwrap();
    session.retrying(wait(Purpose::Summary, 5_000));
    session.summary_ended(&job, Ok(None), None, "m", 2_000, &C);
    let reason = summary_failure(&session);
    assert!(reason.contains("HTTP 503"), "{reason}");
    assert!(reason.contains("Retries cancelled"), "{reason}");

    // A Stop after the wait, while the attempt runs, is the user's ordinary Stop.
    let mut session = LiveSession::default();
    session.send("hello", 1, &C).unwrap();
    session.retrying(wait(Purpose::Chat, 5_000));
    session.finish(ReplyEnd::Stopped(String::new()), 6_000, &C);
    assert_eq!(session.error(), None);
}

#[test]
fn a_summary_may_take_far_longer_than_a_chat_reply() {
    assert_eq!(summary_timeout_ms(60_000), 300_000);
    assert_eq!(summary_timeout_ms(2_000), 300_000);
    assert_eq!(summary_timeout_ms(120_000), 480_000);
    assert_eq!(summary_timeout_ms(u64::MAX), u64::MAX);
}

/// Leaving a message out of the requests is a change the library keeps (so a reload does
/// not send it again), and sending it again is one too.
#[test]
fn leaving_a_message_out_changes_the_shape() {
    let mut session = LiveSession::default();
    play(&mut session, 1);
    let before = session.shape();
    session.set_excluded(0, true).unwrap();
    let left_out = session.shape();
    assert_ne!(left_out, before);
    session.set_excluded(0, false).unwrap();
    assert_eq!(session.shape(), before);
    // Not while a reply arrives: its request was built already.
    session.send("more", 2, &C).unwrap();
    assert_eq!(session.set_excluded(0, true), Err(LiveError::Busy));
}

/// A reply counted as it arrives has, after every piece, the count of what has arrived; it is
/// archived with the count of its whole text, and kept mid-reply with the same count, all
/// taken from where the count as it arrived stands.
#[test]
fn a_reply_is_counted_as_it_arrives_and_archived_with_its_exact_count() {
    use crate::tokens::{Encoding, TokenCounter};
    let counter = TokenCounter::default();
    counter.load(Encoding::O200kBase).unwrap();
    let exact = |text: &str| counter.count(text).value().unwrap();
    let mut session = LiveSession::default();
    session.send("hello", 1, &counter).unwrap();
    assert_eq!(session.streamed_tokens(), None, "nothing has arrived");
    let reply = "Sure! Here's a plan:\n\n1. Save 20% of each salary (₹1,20,000 a month).\n2. Don't   buy what you can't afford.   ";
    let mut so_far = String::new();
    let chars: Vec<char> = reply.chars().collect();
    for piece in chars.chunks(7).map(|c| c.iter().collect::<String>()) {
        so_far.push_str(&piece);
        session.arrived(&piece, &counter);
        assert_eq!(session.streaming_text(), Some(so_far.as_str()));
        assert_eq!(
            session.streamed_tokens(),
            Some(exact(&so_far)),
            "{so_far:?}"
        );
        let kept = session.streaming_message(9, &counter);
        assert_eq!(kept.map(|m| m.tokens), Some(exact(&so_far)));
    }
    let rows = session.rows();
    assert_eq!(
        rows[1].tokens, None,
        "the row arriving shows no archived count"
    );
    assert_eq!(so_far, reply);
    session.finish(ReplyEnd::Complete(so_far.clone()), 2, &counter);
    assert_eq!(session.streamed_tokens(), None);
    assert_eq!(session.memory().archive()[1].tokens, exact(&so_far));
    // The next reply starts its count afresh; a final text that is not the streamed one is
    // counted whole.
    session.send("again", 3, &counter).unwrap();
    session.arrived("One", &counter);
    assert_eq!(session.streamed_tokens(), Some(exact("One")));
    session.finish(ReplyEnd::Complete("Two words".into()), 4, &counter);
    assert_eq!(session.memory().archive()[3].tokens, exact("Two words"));
}

/// A streamed reply was kept twice, by the HTTP client and by the session, and the two copies
/// were reconciled when it ended; the session now keeps it alone, and the stream's end only
/// says how it ended.
#[test]
fn a_streamed_reply_is_the_text_its_pieces_brought_however_the_stream_ended() {
    let closed = ApiError::Server {
        status: None,
        message: "the connection closed before the reply was finished".into(),
    };
    let cases = [
        (StreamEnd::Complete, "verbatim", None),
        (StreamEnd::Stopped, "incomplete", None),
        (
            StreamEnd::Failed(closed.clone()),
            "incomplete",
            Some(closed.to_string()),
        ),
    ];
    let reply = "Start with an emergency fund.";
    for (end, state, error) in cases {
        let mut session = LiveSession::default();
        let request = session.send("plan my savings", 1, &C).unwrap();
        session.arrived("Start with ", &C);
        session.arrived("an emergency fund.", &C);
        let next = session.reply_ended(&request, None, ChatEnd::Streamed(end), 2, &C);
        assert_eq!(next, None);
        assert_eq!(session.memory().archive()[1].content, reply);
        assert_eq!(session.memory().archive()[1].tokens, C.count(reply));
        assert_eq!(
            states(&session),
            [("user", "verbatim"), ("assistant", state)]
        );
        assert_eq!(session.error(), error.as_deref());
        assert_eq!(session.streaming_text(), None);
        assert_eq!(session.calls().len(), 1, "the call is recorded");
    }
    // A stream that closed before any piece archives nothing and says why.
    let mut session = LiveSession::default();
    session.send("hello", 1, &C).unwrap();
    session.finish_stream(StreamEnd::Failed(closed.clone()), 2, &C);
    assert_eq!(session.memory().archive().len(), 1);
    assert_eq!(session.error(), Some(closed.to_string().as_str()));
    // A request too long for the window, refused before any piece, is named as such.
    assert_eq!(
        ReplyEnd::of_stream(
            String::new(),
            StreamEnd::Failed(context_error(Purpose::Chat))
        ),
        ReplyEnd::TooLong(context_error(Purpose::Chat).to_string())
    );
}

/// Under an exact policy that checks before each request (LangChain v1's middleware), the
/// message that makes a summary due waits for it: sending asks for the summary first, and its
/// end leads to the chat request, which carries the new summary in a lone user message.
#[test]
fn a_summary_due_before_a_request_is_written_before_that_request_is_sent() {
    let policy = crate::engine::peers::exact::langchain_v1(12, 2);
    let mut session = LiveSession::new(policy).unwrap();
    let mut summaries = 0;
    for turn in 1..=3u64 {
        let mut action = session
            .send_action(&format!("question number {turn} here"), turn, &C)
            .unwrap();
        loop {
            match action {
                LiveAction::Summary(job) => {
                    summaries += 1;
                    let reply = Ok(Some("the summary".to_owned()));
                    action = session
                        .summary_ended(&job, reply, None, "m", turn, &C)
                        .expect("the waiting request follows the summary");
                }
                LiveAction::Reply(request) => {
                    if turn == 3 {
                        // 4 + 2 + 4 + 2 + 4 = 16 words reach 12: the summary came first.
                        assert_eq!(summaries, 1);
                        assert_eq!(request[1].role, Role::User);
                        assert!(request[1].content.ends_with("the summary"), "{request:?}");
                        assert_eq!(request.last().unwrap().content, "question number 3 here");
                    }
                    let end = ReplyEnd::Complete(format!("answer {turn}"));
                    assert_eq!(session.reply_ended(&request, None, end, turn, &C), None);
                    break;
                }
            }
        }
    }
    assert_eq!(session.memory().editions().len(), 1);
}

/// A fold of two calls (Gemini CLI's snapshot, then its verification) is performed as two
/// summariser requests, both recorded; the second sees the first's draft, and only its text
/// reaches the waiting chat request.
#[test]
fn a_fold_of_two_calls_sends_both_records_both_and_commits_the_second() {
    let mut policy = crate::engine::peers::exact::langchain_v1(12, 2);
    policy.exact.calls_per_fold = 2;
    let mut session = LiveSession::new(policy).unwrap();
    let mut jobs = Vec::new();
    for turn in 1..=3u64 {
        let mut action = session
            .send_action(&format!("question number {turn} here"), turn, &C)
            .unwrap();
        loop {
            match action {
                LiveAction::Summary(job) => {
                    jobs.push(job.clone());
                    let text = format!("draft {}", jobs.len());
                    action = session
                        .summary_ended(&job, Ok(Some(text)), None, "m", turn, &C)
                        .expect("the second call, then the waiting request");
                }
                LiveAction::Reply(request) => {
                    if turn == 3 {
                        assert_eq!(jobs.len(), 2);
                        assert!(request[1].content.ends_with("draft 2"), "{request:?}");
                    }
                    let end = ReplyEnd::Complete(format!("answer {turn}"));
                    assert_eq!(session.reply_ended(&request, None, end, turn, &C), None);
                    break;
                }
            }
        }
    }
    assert_eq!((jobs[0].pass, jobs[1].pass), (1, 2));
    assert_eq!(
        jobs[1].request[jobs[1].request.len() - 2].content,
        "draft 1"
    );
    let summary_calls = session
        .calls()
        .iter()
        .filter(|c| c.kind == CallKind::Summary)
        .count();
    assert_eq!(summary_calls, 2);
    assert_eq!(session.memory().editions().len(), 1);
    assert_eq!(session.memory().summary(), Some("draft 2"));
}

/// The live chat's summaries run on the one run machine: running while the call is out,
/// failed with its reason, Try again (Retry) reissues the job, done once it is committed; and
/// Stop stops them, Go on (Retry) sends the job again. Progress and the estimate are the shared
/// types'.
#[test]
fn the_live_chats_summaries_fail_try_again_stop_go_on_and_finish_on_the_one_run_machine() {
    let mut session = LiveSession::default();
    assert_eq!(session.summaries().status(), None);
    let job = play(&mut session, 4).unwrap();
    let sent = u64::from(job.tokens_in);
    assert_eq!(session.summaries().status(), Some(&RunStatus::Running));
    assert!(session.is_busy());
    assert_eq!(
        session.summaries().estimate(),
        Some(Estimate {
            calls: 1,
            tokens_sent: sent,
            ..Estimate::default()
        })
    );
    let progress = session.summaries().progress();
    assert_eq!(
        (
            progress.unit,
            progress.done,
            progress.total,
            progress.tokens
        ),
        (
            Unit::Summary,
            0,
            Some(1),
            Some(Tokens { sent, received: 0 })
        )
    );

    // Failed, with its reason: the memory is unchanged, and the run waits for Try again.
    let refused = ApiError::NoAnswer {
        finish_reason: None,
        reasoned: false,
    };
    let reason = refused.to_string();
    assert_eq!(
        session.summary_ended(&job, Err(refused), None, "m", 5, &C),
        None
    );
    assert_eq!(
        session.summaries().status(),
        Some(&RunStatus::Failed(reason))
    );
    assert!(!session.is_busy() && session.summaries().waits());
    assert_eq!(session.memory().summary(), None);
    assert_eq!(session.memory().failures().len(), 1);
    assert_eq!(session.next_action(6, &C), None, "a demo run live pauses");

    // Try again: the job is reissued and the run runs again.
    let Ok(LiveAction::Summary(again)) = session.retry(&C) else {
        panic!("Retry tries the summary again");
    };
    assert!(again.id > job.id);
    assert_eq!(session.summaries().status(), Some(&RunStatus::Running));

    // Stopped by the user: the memory records the stop, and the run waits to go on.
    assert_eq!(
        session.summary_ended(&again, Ok(None), None, "m", 7, &C),
        None
    );
    assert_eq!(session.summaries().status(), Some(&RunStatus::Stopped));
    assert_eq!(
        session
            .memory()
            .failures()
            .last()
            .map(|f| f.reason.as_str()),
        Some("the summary request was stopped")
    );
    assert!(
        session.restore(1, 7, &C).is_err(),
        "no edition to restore yet"
    );

    // Go on: sent again, then committed, and done.
    let Ok(LiveAction::Summary(last)) = session.retry(&C) else {
        panic!("Retry goes on");
    };
    assert_eq!(session.summaries().status(), Some(&RunStatus::Running));
    let usage = Usage {
        prompt_tokens: 40,
        completion_tokens: 7,
        reasoning_tokens: None,
    };
    assert_eq!(
        session.summary_ended(
            &last,
            Ok(Some("Turns 1 and 2.".into())),
            Some(&usage),
            "m",
            8,
            &C
        ),
        None
    );
    assert_eq!(session.summaries().status(), Some(&RunStatus::Done));
    assert_eq!(session.memory().summary(), Some("Turns 1 and 2."));
    let progress = session.summaries().progress();
    assert_eq!(
        (progress.done, progress.total, progress.tokens),
        (
            1,
            Some(1),
            Some(Tokens {
                sent: sent + u64::from(again.tokens_in) + u64::from(last.tokens_in),
                received: 7
            })
        )
    );
    assert_eq!(session.summaries().estimate(), None);
    assert_eq!(session.retry(&C), Err(LiveError::NothingToRetry));

    // The next summary the trigger asks for begins a run of its own.
    play(&mut session, 2).expect("two more turns fold again");
    let progress = session.summaries().progress();
    assert_eq!((progress.done, progress.total), (0, Some(1)));
}

/// A reply asked for while a summary waits for Retry puts the summary away (the trigger asks
/// again at the next reply), as the reply's Retry and the summary's were one before.
#[test]
fn a_message_sent_while_a_summary_waits_puts_the_summary_away() {
    let mut session = LiveSession::default();
    let job = play(&mut session, 4).unwrap();
    session.summary_ended(&job, Ok(None), None, "m", 5, &C);
    assert_eq!(session.summaries().status(), Some(&RunStatus::Stopped));
    session.send("question 5", 6, &C).unwrap();
    assert_eq!(session.summaries().status(), None);
    assert!(!session.retries_reply());
}
