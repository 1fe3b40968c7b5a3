//! Inspect's A/B comparison beside the [`AbRun`]: the form of its two sides as typed
//! ([`AbForm`]), its price before it starts, each summary's request (to the side's own model),
//! what an answer leads to, and the other side of a saved pair. The shell's runner only performs
//! the request [`ab_call`] describes and hands the reply to [`ab_answered`] until it is told the
//! run is over, with the live replay's rules: nothing is a result until both sides are done,
//! Stop and a failure wait, Retry asks the same summary again.

use crate::app::live_replay::{RunStep, SummaryCall, summary_call, summary_reply};
use crate::engine::ab::{AbJob, AbRun, FoldPlan, ModelSide, SideSpec, estimate};
use crate::engine::edition::Provenance;
use crate::engine::library_session::{PairSide, Session};
use crate::engine::message::CountTokens;
use crate::engine::openai::{ApiError, ChatResponse};
use crate::engine::policy::{Choice, SummaryFormat};
use crate::engine::prompts::{PresetId, PromptSpec};
use crate::engine::run::Estimate;
use crate::engine::settings::ValidSettings;

/// One side of the form, as typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideForm {
    /// The session's editions as recorded, instead of a summariser model.
    pub recorded: bool,
    pub model: String,
    pub preset: PresetId,
    /// As typed; checked by [`AbForm::sides`].
    pub word_limit: String,
    pub format: SummaryFormat,
}

/// The comparison's form: side A and side B.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbForm {
    pub a: SideForm,
    pub b: SideForm,
    /// Whether the session has editions that folded turns, so side A may be them as recorded.
    pub can_record: bool,
}

impl AbForm {
    /// The form for `session`: A is the editions another tool recorded, if it imported some,
    /// else the session's own summariser (its model, prompt and format); B starts as the
    /// summariser model in Settings (`summary_model`) with the session's prompt.
    pub fn of(session: &Session, summary_model: &str) -> AbForm {
        let policy = session.memory.policy();
        let editions = session.memory.editions();
        let can_record = editions.iter().any(|e| e.folded.is_some());
        let by_tool = editions
            .iter()
            .any(|e| matches!(e.provenance, Provenance::Tool(_)));
        let side = |recorded: bool, model: &str| SideForm {
            recorded,
            model: model.to_owned(),
            preset: policy.prompt.preset,
            word_limit: policy.prompt.word_limit.to_string(),
            format: policy.format,
        };
        AbForm {
            a: side(can_record && by_tool, &session.settings.summary_model),
            b: side(false, summary_model),
            can_record,
        }
    }

    pub fn side_mut(&mut self, side: PairSide) -> &mut SideForm {
        match side {
            PairSide::A => &mut self.a,
            PairSide::B => &mut self.b,
        }
    }

    pub fn side(&self, side: PairSide) -> &SideForm {
        match side {
            PairSide::A => &self.a,
            PairSide::B => &self.b,
        }
    }

    /// Records one change.
    pub fn edit(&mut self, edit: AbEdit) {
        match edit {
            AbEdit::Recorded(side, on) => self.side_mut(side).recorded = on,
            AbEdit::Model(side, text) => self.side_mut(side).model = text,
            AbEdit::Preset(side, slug) => {
                if let Some(preset) = PresetId::from_slug(&slug) {
                    self.side_mut(side).preset = preset;
                }
            }
            AbEdit::WordLimit(side, text) => self.side_mut(side).word_limit = text,
            AbEdit::Format(side, slug) => {
                if let Some(format) = SummaryFormat::from_slug(&slug) {
                    self.side_mut(side).format = format;
                }
            }
        }
    }

    /// Why what `side`'s `field` holds cannot be used, naming the side, or `None` when it can
    /// (or when the side is the recorded editions, which asks no model).
    pub fn field_error(&self, side: PairSide, field: AbField) -> Option<String> {
        let form = self.side(side);
        let letter = side.letter();
        match field {
            AbField::Recorded => (form.recorded && !self.can_record).then(|| {
                format!("side {letter}: this session has no editions that folded turns to compare")
            }),
            _ if form.recorded => None,
            AbField::Model => form
                .model
                .trim()
                .is_empty()
                .then(|| format!("side {letter}: name the summariser model")),
            AbField::WordLimit => read_word_limit(&form.word_limit).err().map(|typed| {
                format!(
                    "side {letter}: the word limit must be a whole number above 0, not {typed:?}"
                )
            }),
        }
    }

    /// The first thing wrong with the form, side A's fields before side B's, or `None`.
    pub fn error(&self) -> Option<String> {
        [PairSide::A, PairSide::B].into_iter().find_map(|side| {
            AbField::ALL
                .into_iter()
                .find_map(|field| self.field_error(side, field))
        })
    }

    /// The two sides, or what is wrong with the form, naming the side and the field. A preset
    /// the session was recorded with keeps the session's own prompt text and must-keep list.
    pub fn sides(&self, session: &Session) -> Result<(SideSpec, SideSpec), String> {
        if let Some(error) = self.error() {
            return Err(error);
        }
        let side = |form: &SideForm| -> SideSpec {
            if form.recorded {
                return SideSpec::Recorded;
            }
            let recorded = &session.memory.policy().prompt;
            let mut prompt = if recorded.preset == form.preset {
                recorded.clone()
            } else {
                PromptSpec::from_preset(form.preset)
            };
            // Checked by `error` above.
            prompt.word_limit = read_word_limit(&form.word_limit).unwrap_or(prompt.word_limit);
            SideSpec::Model(ModelSide {
                model: form.model.trim().to_owned(),
                prompt,
                format: form.format,
            })
        };
        Ok((side(&self.a), side(&self.b)))
    }
}

/// One change the user made in the A/B form, to one side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AbEdit {
    /// The side is the session's editions as recorded, or a summariser model.
    Recorded(PairSide, bool),
    /// The summariser model, as typed.
    Model(PairSide, String),
    /// The prompt preset picked, by its slug (one no preset has changes nothing).
    Preset(PairSide, String),
    /// The word limit, as typed.
    WordLimit(PairSide, String),
    /// The summary format picked, by its slug (one no format has changes nothing).
    Format(PairSide, String),
}

/// A field of one side that can be wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbField {
    Recorded,
    Model,
    WordLimit,
}

impl AbField {
    /// In the form's order.
    pub const ALL: [AbField; 3] = [AbField::Recorded, AbField::Model, AbField::WordLimit];
}

/// The word limit typed, or the trimmed text when it is not a whole number above 0.
fn read_word_limit(typed: &str) -> Result<u32, &str> {
    let typed = typed.trim();
    typed.parse().ok().filter(|n| *n > 0).ok_or(typed)
}

/// What comparing the form's sides on `session` costs, before anything is sent, and the fold
/// points both sides share.
pub fn ab_price(
    session: &Session,
    form: &AbForm,
    valid: &ValidSettings,
    counter: &dyn CountTokens,
) -> Result<(Estimate, FoldPlan), String> {
    let (a, b) = form.sides(session)?;
    estimate(
        session,
        session.memory.policy(),
        a,
        b,
        counter,
        valid.summary.max_tokens,
    )
    .map_err(|e| e.to_string())
}

/// What the runner does next: ask a side's summariser for a summary, or the two sides once
/// both are done.
pub type AbStep = RunStep<AbJob, [Session; 2]>;

/// Starts comparing the form's sides on `session`'s fold points; `pair_id` will link the two
/// sessions it ends with.
pub fn start_ab(
    session: &Session,
    form: &AbForm,
    pair_id: &str,
    counter: &dyn CountTokens,
) -> Result<(AbRun, AbStep), String> {
    let (a, b) = form.sides(session)?;
    let (run, job) = AbRun::start(session, session.memory.policy(), a, b, pair_id, counter)
        .map_err(|e| e.to_string())?;
    let step = AbStep::after(job, || run.finished());
    Ok((run, step))
}

/// "Try again" or "Go on": the same summary asked for again, or nothing when not waiting.
pub fn resume_ab(run: &mut AbRun) -> Option<AbStep> {
    run.resume().map(AbStep::Ask)
}

/// The request that writes `job`'s summary: the endpoint's summariser settings, with the
/// side's own model and the summary's timeout.
pub fn ab_call(valid: &ValidSettings, job: &AbJob) -> SummaryCall {
    let mut call = summary_call(valid, &job.job);
    call.request.model = job.model.clone();
    call
}

/// The summariser answered job `job_id` (`Ok(None)`: the user stopped it): the text is
/// committed to its side with what the server said it cost, and the next step returned.
pub fn ab_answered(
    run: &mut AbRun,
    job_id: u64,
    reply: Result<Option<ChatResponse>, ApiError>,
    counter: &dyn CountTokens,
) -> AbStep {
    let (result, cost) = summary_reply(reply);
    match run.answered(job_id, result, cost, counter) {
        Ok(next) => AbStep::after(next, || run.finished()),
        Err(error) => AbStep::Over(Some(Err(error.to_string()))),
    }
}

/// The other side of `session`'s pair among `sessions`: the same pair id, the other side.
pub fn partner<'a>(
    session: &Session,
    sessions: impl IntoIterator<Item = &'a Session>,
) -> Option<&'a Session> {
    let link = session.pair.as_ref()?;
    sessions.into_iter().find(|s| {
        s.pair
            .as_ref()
            .is_some_and(|l| l.id == link.id && l.side == link.side.other())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::library_session::SideConfig;
    use crate::engine::message::WordCounter;
    use crate::engine::openai::Usage;
    use crate::engine::session::{read, synthetic};
    use crate::engine::settings::Settings;

    const CLAUDE_CODE: &str =
        include_str!("../../tests/fixtures/transcripts/claude_code_session.jsonl");

    fn connected() -> ValidSettings {
        let mut settings = Settings::default();
        settings.set_base_url("http://127.0.0.1:8080/v1".to_owned());
        settings.chat_model = "chat".to_owned();
        settings.summary_model = "summariser".to_owned();
        settings.summary_max_tokens = "64".to_owned();
        settings.validate().expect("valid settings")
    }

    fn reply(text: &str) -> Result<Option<ChatResponse>, ApiError> {
        Ok(Some(ChatResponse {
            content: text.to_owned(),
            reasoning: String::new(),
            finish_reason: Some("stop".to_owned()),
            usage: Some(Usage {
                prompt_tokens: 100,
                completion_tokens: 10,
                reasoning_tokens: None,
            }),
        }))
    }

    #[test]
    fn a_tools_session_defaults_to_its_own_compactions_against_the_settings_summariser() {
        let session = read(CLAUDE_CODE.as_bytes(), &WordCounter)
            .unwrap()
            .sessions
            .remove(0);
        let form = AbForm::of(&session, "mine");
        assert!(form.a.recorded && form.can_record);
        assert!(!form.b.recorded);
        assert_eq!(form.b.model, "mine");
        // This app's own session: A is its own summariser, a model.
        let own = AbForm::of(&synthetic(20), "mine");
        assert!(!own.a.recorded && own.can_record);
        assert_eq!(own.a.model, synthetic(20).settings.summary_model);
    }

    #[test]
    fn the_form_names_the_side_and_field_at_fault() {
        let session = synthetic(20);
        let mut form = AbForm::of(&session, "mine");
        form.b.word_limit = "lots".into();
        let e = form.sides(&session).unwrap_err();
        assert!(e.starts_with("side B: the word limit"), "{e}");
        form.b.word_limit = "40".into();
        form.a.model = "  ".into();
        assert_eq!(
            form.sides(&session).unwrap_err(),
            "side A: name the summariser model"
        );
        form.a.recorded = true;
        let (a, b) = form.sides(&session).unwrap();
        assert_eq!(a, SideSpec::Recorded);
        let SideSpec::Model(b) = b else {
            panic!("B is a model")
        };
        assert_eq!(b.prompt.word_limit, 40);
        // The session's own preset keeps its must-keep list.
        assert_eq!(b.prompt.must_keep, session.memory.policy().prompt.must_keep);
    }

    #[test]
    fn each_edit_keeps_what_was_typed_and_each_field_says_what_is_wrong() {
        let session = synthetic(20);
        let mut form = AbForm::of(&session, "mine");
        assert_eq!(form.error(), None);
        // The word limit: kept as typed, named with its side, whatever is wrong with it.
        for typed in ["lots", "0", "-3", "1.5", " "] {
            form.edit(AbEdit::WordLimit(PairSide::B, typed.into()));
            assert_eq!(form.b.word_limit, typed, "the text typed is kept");
            let error = form.field_error(PairSide::B, AbField::WordLimit).unwrap();
            assert_eq!(
                error,
                format!(
                    "side B: the word limit must be a whole number above 0, not {:?}",
                    typed.trim()
                )
            );
            assert_eq!(form.field_error(PairSide::A, AbField::WordLimit), None);
            assert_eq!(form.error(), Some(error.clone()));
            assert_eq!(form.sides(&session).unwrap_err(), error);
        }
        form.edit(AbEdit::WordLimit(PairSide::B, " 40 ".into()));
        assert_eq!(form.error(), None);
        // The model: an empty one is named; side A's fault comes before side B's.
        form.edit(AbEdit::Model(PairSide::B, "  ".into()));
        form.edit(AbEdit::Model(PairSide::A, String::new()));
        assert_eq!(
            form.field_error(PairSide::B, AbField::Model).as_deref(),
            Some("side B: name the summariser model")
        );
        assert_eq!(
            form.error().as_deref(),
            Some("side A: name the summariser model")
        );
        // A side as recorded asks no model, so its model and word limit are not its fault.
        form.edit(AbEdit::Recorded(PairSide::A, true));
        form.edit(AbEdit::WordLimit(PairSide::A, "none".into()));
        assert_eq!(form.field_error(PairSide::A, AbField::Model), None);
        assert_eq!(form.field_error(PairSide::A, AbField::WordLimit), None);
        assert_eq!(
            form.error().as_deref(),
            Some("side B: name the summariser model")
        );
        form.edit(AbEdit::Model(PairSide::B, " beta ".into()));
        let (a, b) = form.sides(&session).unwrap();
        assert_eq!(a, SideSpec::Recorded);
        let SideSpec::Model(b) = b else {
            panic!("B is a model")
        };
        assert_eq!((b.model.as_str(), b.prompt.word_limit), ("beta", 40));
        // Recorded editions only where the session has some that folded turns.
        form.can_record = false;
        assert_eq!(
            form.field_error(PairSide::A, AbField::Recorded).as_deref(),
            Some("side A: this session has no editions that folded turns to compare")
        );
    }

    #[test]
    fn the_preset_and_format_are_picked_by_slug_and_an_unknown_slug_changes_nothing() {
        let session = synthetic(20);
        let mut form = AbForm::of(&session, "mine");
        let other = PresetId::BUILT_IN
            .into_iter()
            .find(|p| *p != form.b.preset)
            .unwrap();
        form.edit(AbEdit::Preset(PairSide::B, other.slug().to_owned()));
        assert_eq!(form.b.preset, other);
        let before = form.clone();
        form.edit(AbEdit::Preset(PairSide::B, "no-such-preset".into()));
        form.edit(AbEdit::Format(PairSide::A, "no-such-format".into()));
        assert_eq!(form, before);
        let &(format, slug, _) = SummaryFormat::CHOICES
            .iter()
            .find(|(f, _, _)| *f != form.a.format)
            .unwrap();
        form.edit(AbEdit::Format(PairSide::A, slug.to_owned()));
        assert_eq!((form.a.format, form.b.format), (format, before.b.format));
        let (_, b) = form.sides(&session).unwrap();
        let SideSpec::Model(b) = b else {
            panic!("B is a model")
        };
        // Another preset than the session's: its own prompt, with the word limit typed.
        assert_eq!(b.prompt.preset, other);
    }

    #[test]
    fn each_side_asks_its_own_model_and_a_saved_pair_finds_its_other_side() {
        let session = synthetic(20);
        let valid = connected();
        let mut form = AbForm::of(&session, "beta");
        form.a.model = "alpha".into();
        let (price, _) = ab_price(&session, &form, &valid, &WordCounter).unwrap();
        assert_eq!(price.received_at_most, Some(64 * u64::from(price.calls)));
        let (mut run, mut step) = start_ab(&session, &form, "id-1", &WordCounter).unwrap();
        let mut models = Vec::new();
        let sides = loop {
            match step {
                AbStep::Ask(job) => {
                    let call = ab_call(&valid, &job);
                    assert_eq!(call.request.max_tokens, Some(64));
                    assert!(call.endpoint.timeout_ms > valid.endpoint.timeout_ms);
                    models.push(call.request.model.clone());
                    step = ab_answered(
                        &mut run,
                        job.job.id,
                        reply(&format!("by {}", call.request.model)),
                        &WordCounter,
                    );
                }
                AbStep::Over(over) => break over.unwrap().unwrap(),
            }
        };
        assert_eq!(models.len() as u32, price.calls);
        assert!(models.iter().any(|m| m == "alpha") && models.iter().any(|m| m == "beta"));
        assert_eq!(
            run.progress().tokens.unwrap().sent,
            100 * u64::from(price.calls)
        );
        let [a, b] = *sides;
        let SideConfig::Model { model, .. } = &b.pair.as_ref().unwrap().config else {
            panic!("B is a model")
        };
        assert_eq!(model, "beta");
        let library = [synthetic(3), a.clone(), b.clone()];
        assert_eq!(partner(&a, &library), Some(&b));
        assert_eq!(partner(&b, &library), Some(&a));
        assert_eq!(partner(&library[0], &library), None);
    }

    #[test]
    fn a_stopped_summary_is_not_committed_and_a_failure_waits_for_try_again() {
        let session = synthetic(20);
        let form = AbForm::of(&session, "beta");
        let (mut run, step) = start_ab(&session, &form, "id", &WordCounter).unwrap();
        let AbStep::Ask(job) = step else {
            panic!("a fold is due")
        };
        run.stop();
        assert_eq!(
            ab_answered(&mut run, job.job.id, Ok(None), &WordCounter),
            AbStep::Over(None)
        );
        assert_eq!(run.progress().done, 0);
        let Some(AbStep::Ask(again)) = resume_ab(&mut run) else {
            panic!("go on")
        };
        let failed = ab_answered(
            &mut run,
            again.job.id,
            Err(ApiError::Timeout { after_ms: Some(1) }),
            &WordCounter,
        );
        assert_eq!(failed, AbStep::Over(None));
        assert_eq!(run.progress().done, 0);
        assert!(matches!(resume_ab(&mut run), Some(AbStep::Ask(j)) if j == job));
    }
}
