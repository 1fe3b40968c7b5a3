//! Inspect's live replay beside the [`Replayer`]: what it costs before it starts, which request
//! each summary is, and what an answer leads to. The shell's runner only performs the request
//! [`summary_call`] describes and hands the reply to [`summary_answered`], until it is told the
//! replay is over, so its loop holds no decision of its own.

use crate::app::live::{summary_text, summary_timeout_ms};
use crate::app::replay::{Replayer, SummaryCost, estimate};
use crate::engine::edition::Provenance;
use crate::engine::library_session::Session;
use crate::engine::memory::{CommitMeta, SummaryJob};
use crate::engine::message::CountTokens;
use crate::engine::openai::{ApiError, ChatRequest, ChatResponse};
use crate::engine::policy::Policy;
use crate::engine::run::Estimate;
use crate::engine::settings::{Endpoint, Settings, ValidSettings};

/// What the runner of a run of summaries (the live replay, the A/B comparison) does next.
#[derive(Clone, Debug, PartialEq)]
pub enum RunStep<J, R> {
    /// Ask the summariser for this summary.
    Ask(J),
    /// Nothing more is asked for: the run is stopped, failed, or over. What it ends with once
    /// every summary is written, or why it broke off; `None` when it is only waiting (stopped,
    /// or a summary failed and can be tried again). Boxed: a session is large beside a job.
    Over(Option<Result<Box<R>, String>>),
}

impl<J, R> RunStep<J, R> {
    /// The step once a run has handed out `job`, or none: ask for it, or the run is over with
    /// what `finished` holds (nothing while it only waits).
    pub fn after(job: Option<J>, finished: impl FnOnce() -> Option<R>) -> Self {
        match job {
            Some(job) => RunStep::Ask(job),
            None => RunStep::Over(finished().map(Box::new).map(Ok)),
        }
    }

    /// The summary to ask for next, if any, and what the run ended with, if it is over with
    /// something: what the shell's runner performs, and what it hands on.
    pub fn split(self) -> (Option<J>, Option<Result<Box<R>, String>>) {
        match self {
            RunStep::Ask(job) => (Some(job), None),
            RunStep::Over(result) => (None, result),
        }
    }
}

/// The live replay's step: a summary, or the new session.
pub type ReplayStep = RunStep<SummaryJob, Session>;

/// A request to the summariser: where it goes and what it sends.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryCall {
    /// The endpoint with the summary's own timeout: a summary is not streamed, so a slow local
    /// model gets a timeout it can meet, and Stop ends it sooner.
    pub endpoint: Endpoint,
    pub request: ChatRequest,
}

/// The settings a live replay goes out with, or why there are none, in words for the page.
pub fn replay_settings(settings: &Settings) -> Result<ValidSettings, String> {
    settings.validate().map_err(|errors| {
        errors.first().map_or_else(
            || "the settings are incomplete".to_owned(),
            ToString::to_string,
        )
    })
}

/// What replaying `session` live under `policy` costs, before anything is sent.
pub fn replay_price(
    session: &Session,
    policy: Policy,
    valid: &ValidSettings,
    counter: &dyn CountTokens,
) -> Result<Estimate, String> {
    estimate(session, policy, counter, valid.summary.max_tokens).map_err(|e| e.to_string())
}

/// Starts the live replay of `session` under `policy`, into a new session named after the
/// original. Returns the replayer and the first step.
pub fn start_replay(
    session: &Session,
    policy: Policy,
    counter: &dyn CountTokens,
) -> Result<(Replayer, ReplayStep), String> {
    let name = format!("{} (replayed live)", session.name);
    let (replayer, job) =
        Replayer::start(session, policy, counter, name).map_err(|e| e.to_string())?;
    let step = ReplayStep::after(job, || replayer.finished());
    Ok((replayer, step))
}

/// "Go on" after a Stop or a failure: the same summary asked for again, or nothing when the
/// replay is not waiting.
pub fn resume_replay(replayer: &mut Replayer) -> Option<ReplayStep> {
    replayer.resume().map(ReplayStep::Ask)
}

/// What a summariser's reply (`Ok(None)`: the user stopped it) gives a run to commit: the
/// summary's text or why there is none, and what the server said it cost.
pub fn summary_reply(
    reply: Result<Option<ChatResponse>, ApiError>,
) -> (Result<String, String>, SummaryCost) {
    let usage = reply
        .as_ref()
        .ok()
        .and_then(Option::as_ref)
        .and_then(|r| r.usage);
    let cost = SummaryCost {
        prompt_tokens: usage.map(|u| u.prompt_tokens),
        completion_tokens: usage.map(|u| u.completion_tokens),
    };
    (summary_text(reply.map(|r| r.map(|r| r.content))), cost)
}

/// The request that writes `job`'s summary with the summariser model.
pub fn summary_call(valid: &ValidSettings, job: &SummaryJob) -> SummaryCall {
    let mut endpoint = valid.endpoint.clone();
    endpoint.timeout_ms = summary_timeout_ms(endpoint.timeout_ms);
    SummaryCall {
        endpoint,
        request: valid.summary_request(job.request.clone()),
    }
}

/// The summariser answered job `job_id` (`Ok(None)`: the user stopped it): what the server
/// reported it cost is recorded, the text committed as `model`'s edition at `at_ms`, and the
/// next step returned.
pub fn summary_answered(
    replayer: &mut Replayer,
    job_id: u64,
    reply: Result<Option<ChatResponse>, ApiError>,
    model: &str,
    at_ms: u64,
    counter: &dyn CountTokens,
) -> ReplayStep {
    let (result, cost) = summary_reply(reply);
    let meta = CommitMeta {
        model: Some(model.to_owned()),
        provenance: Provenance::Model,
        at_ms,
    };
    match replayer.summary_ended(job_id, result, cost, meta, counter) {
        Ok(next) => ReplayStep::after(next, || replayer.finished()),
        // The new session, once done, stands above a reason the replay broke off.
        Err(error) => ReplayStep::Over(Some(
            replayer
                .finished()
                .map(Box::new)
                .ok_or_else(|| error.to_string()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::message::WordCounter;
    use crate::engine::openai::Usage;
    use crate::engine::policy::Trigger;
    use crate::engine::run::RunStatus;
    use crate::engine::session::synthetic;

    fn turns(max_turns: u32, keep: u32) -> Policy {
        Policy::new(Trigger::Turns { max_turns, keep }).unwrap()
    }

    #[test]
    fn a_step_splits_into_the_summary_to_ask_and_what_the_run_ended_with() {
        assert_eq!(RunStep::<u8, u8>::Ask(1).split(), (Some(1), None));
        assert_eq!(RunStep::<u8, u8>::Over(None).split(), (None, None));
        assert_eq!(
            RunStep::<u8, u8>::Over(Some(Err("gone".into()))).split(),
            (None, Some(Err("gone".into())))
        );
        assert_eq!(
            RunStep::<u8, u8>::after(None, || Some(7)).split(),
            (None, Some(Ok(Box::new(7))))
        );
    }

    fn connected() -> ValidSettings {
        let mut settings = Settings::default();
        settings.set_base_url("http://127.0.0.1:8080/v1".to_owned());
        settings.chat_model = "chat".to_owned();
        settings.summary_model = "summariser".to_owned();
        settings.summary_max_tokens = "64".to_owned();
        settings.validate().expect("valid settings")
    }

    fn answer(text: &str, usage: Option<Usage>) -> Result<Option<ChatResponse>, ApiError> {
        Ok(Some(ChatResponse {
            content: text.to_owned(),
            reasoning: String::new(),
            finish_reason: Some("stop".to_owned()),
            usage,
        }))
    }

    #[test]
    fn a_summary_request_goes_to_the_summariser_model_with_the_summarys_timeout() {
        let valid = connected();
        let session = synthetic(8);
        let (_, step) = start_replay(&session, turns(4, 2), &WordCounter).unwrap();
        let ReplayStep::Ask(job) = step else {
            panic!("four turns of eight fold");
        };
        let call = summary_call(&valid, &job);
        assert_eq!(call.endpoint.base_url, valid.endpoint.base_url);
        assert_eq!(
            call.endpoint.timeout_ms,
            summary_timeout_ms(valid.endpoint.timeout_ms)
        );
        assert!(call.endpoint.timeout_ms > valid.endpoint.timeout_ms);
        assert_eq!(call.request, valid.summary_request(job.request.clone()));
        assert_eq!(call.request.model, "summariser");
        assert_eq!(call.request.max_tokens, Some(64));
    }

    #[test]
    fn answers_are_committed_as_the_models_with_the_servers_counts_until_a_new_session_is_over() {
        let session = synthetic(10);
        let (mut replayer, mut step) = start_replay(&session, turns(4, 2), &WordCounter).unwrap();
        let usage = Usage {
            prompt_tokens: 200,
            completion_tokens: 20,
            reasoning_tokens: None,
        };
        let mut answered = 0u64;
        let finished = loop {
            match step {
                ReplayStep::Ask(job) => {
                    answered += 1;
                    step = summary_answered(
                        &mut replayer,
                        job.id,
                        answer("The user saves weekly.", Some(usage)),
                        "summariser",
                        42,
                        &WordCounter,
                    );
                }
                ReplayStep::Over(result) => break result,
            }
        };
        let new = finished.expect("over").expect("replayed");
        assert_eq!(new.name, format!("{} (replayed live)", session.name));
        assert!(answered > 0);
        let progress = replayer.progress();
        assert_eq!(progress.done, answered);
        let tokens = progress.tokens.unwrap();
        assert_eq!(tokens.sent, 200 * answered);
        assert_eq!(tokens.received, 20 * answered);
        for edition in new.memory.editions() {
            assert_eq!(edition.model.as_deref(), Some("summariser"));
            assert_eq!(edition.provenance, Provenance::Model);
        }
    }

    #[test]
    fn a_failed_or_stopped_summary_waits_and_go_on_asks_for_the_same_one_again() {
        let session = synthetic(8);
        let (mut replayer, step) = start_replay(&session, turns(4, 2), &WordCounter).unwrap();
        let ReplayStep::Ask(job) = step else {
            panic!("a summary is due");
        };
        let failed = summary_answered(
            &mut replayer,
            job.id,
            Err(ApiError::Timeout {
                after_ms: Some(1000),
            }),
            "summariser",
            1,
            &WordCounter,
        );
        assert_eq!(failed, ReplayStep::Over(None));
        assert!(matches!(replayer.status(), RunStatus::Failed(_)));
        let Some(ReplayStep::Ask(again)) = resume_replay(&mut replayer) else {
            panic!("go on asks again");
        };
        assert_eq!(again.id, job.id);
        // Stopped by the user: nothing committed, the same summary pending.
        replayer.stop();
        let stopped = summary_answered(&mut replayer, job.id, Ok(None), "m", 2, &WordCounter);
        assert_eq!(stopped, ReplayStep::Over(None));
        assert_eq!(replayer.progress().done, 0);
        let resumed = resume_replay(&mut replayer);
        assert!(
            matches!(&resumed, Some(ReplayStep::Ask(j)) if j.id == job.id),
            "{resumed:?}"
        );
        // Not waiting: Go on asks for nothing.
        assert_eq!(resume_replay(&mut replayer), None);
    }

    #[test]
    fn a_replay_that_needs_no_summary_is_over_at_once_with_its_new_session() {
        let session = synthetic(2);
        let (_, step) = start_replay(&session, turns(40, 2), &WordCounter).unwrap();
        let ReplayStep::Over(Some(Ok(new))) = step else {
            panic!("nothing folds in two turns under 40: {step:?}");
        };
        assert_eq!(new.memory.editions().len(), 0);
    }

    #[test]
    fn the_replay_names_what_is_wrong_with_the_settings_and_prices_with_the_summarisers_limit() {
        assert!(replay_settings(&Settings::default()).is_err());
        let valid = connected();
        let price = replay_price(&synthetic(10), turns(4, 2), &valid, &WordCounter).unwrap();
        assert!(price.calls > 0);
        assert_eq!(price.received_at_most, Some(64 * u64::from(price.calls)));
        assert!(start_replay(&synthetic(0), turns(4, 2), &WordCounter).is_err());
    }
}
