//! Inspect's probe run: which cells (probe × edition) are asked, what that costs before it
//! starts, and the run itself as a state machine the shell's runner only performs. Each cell is
//! two calls, the answer (the chat model, from only what that edition's request held) then the
//! judge (the summariser model, with the judge's prompt); a cell is recorded in the session's
//! [`ProbeSet`] only once its judge's grade parses. A failed or stopped call records nothing:
//! the run waits, and Retry asks the same call again (a judge call keeps the answer it grades).

use crate::app::live::summary_timeout_ms;
use crate::engine::library_session::{Probe, ProbeResult, ProbeSet, Session};
use crate::engine::message::{ChatMessage, CountTokens, Role};
use crate::engine::openai::{ApiError, ChatRequest, ChatResponse};
use crate::engine::probes::writer::{parse_probes, writer_messages, writer_response_format};
use crate::engine::probes::{
    Point, answer_messages, applies, generate, judge_messages, judge_response_format,
    judge_response_format_object, parse_grade, points,
};
use crate::engine::run::{Estimate, Progress, RunStatus, Unit};
use crate::engine::settings::{Endpoint, ValidSettings};

/// One probe at one edition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    pub probe: u32,
    pub cycle: u32,
}

/// Which of a cell's two calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallKind {
    Answer,
    Judge,
}

/// A request the run wants made.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeCall {
    pub cell: Cell,
    pub kind: CallKind,
    pub endpoint: Endpoint,
    pub request: ChatRequest,
}

/// The cells `set` asks of `session` and has no grade for yet, in probe then edition order.
pub fn cells_to_run(
    session: &Session,
    set: &ProbeSet,
    points: &[Point],
    counter: &dyn CountTokens,
) -> Vec<Cell> {
    let mut cells = Vec::new();
    for probe in &set.probes {
        for point in points {
            if set.result(probe.id, point.cycle).is_none()
                && applies(probe, point, &session.pinned, counter)
            {
                cells.push(Cell {
                    probe: probe.id,
                    cycle: point.cycle,
                });
            }
        }
    }
    cells
}

/// Whether `probe` is asked at `cycle` (the page shows the other cells as still verbatim).
pub fn asked_at(
    session: &Session,
    points: &[Point],
    probe: &Probe,
    cycle: u32,
    counter: &dyn CountTokens,
) -> bool {
    points
        .iter()
        .find(|p| p.cycle == cycle)
        .is_some_and(|p| applies(probe, p, &session.pinned, counter))
}

/// The price of running `session.probes` before anything is sent: two calls a cell not graded
/// yet, and the tokens the requests send, counted as this app counts them (a judge request
/// without its answer, which is not known yet); the answers go to the chat model.
pub fn estimate(session: &Session, counter: &dyn CountTokens) -> Estimate {
    let points = points(session, counter);
    let set = &session.probes;
    let cells = cells_to_run(session, set, &points, counter);
    let (mut answers, mut judges) = (0u64, 0u64);
    for cell in &cells {
        let (Some(probe), Some(point)) = (probe_of(set, cell.probe), point_of(&points, cell.cycle))
        else {
            continue;
        };
        answers += sum(counter, &answer_messages(point, &probe.question, counter));
        judges += sum(counter, &judge_messages(&set.judge_prompt, probe, ""));
    }
    Estimate {
        calls: cells.len() as u32 * 2,
        tokens_sent: answers + judges,
        chat_sent: answers,
        ..Estimate::default()
    }
}

fn sum(counter: &dyn CountTokens, messages: &[ChatMessage]) -> u64 {
    messages
        .iter()
        .map(|m| u64::from(counter.count(&m.content)))
        .sum()
}

fn probe_of(set: &ProbeSet, id: u32) -> Option<&Probe> {
    set.probes.iter().find(|p| p.id == id)
}

fn point_of(points: &[Point], cycle: u32) -> Option<&Point> {
    points.iter().find(|p| p.cycle == cycle)
}

/// Adds the generated probes (pinned facts and rule sentences) to `session`'s set; how many
/// were new.
pub fn add_generated(session: &mut Session, counter: &dyn CountTokens) -> usize {
    let points = points(session, counter);
    let probes = generate(session, &points, counter);
    session.probes.add(probes)
}

/// A probe the user wrote: its question, and the archive message (counted from 1) and sentence
/// that answer it. Refused, with the reason, when the message is not in the archive or does not
/// hold the sentence.
pub fn user_probe(
    session: &Session,
    question: &str,
    message: usize,
    quote: &str,
) -> Result<Probe, String> {
    let question = question.trim();
    if question.is_empty() {
        return Err("A probe needs a question.".into());
    }
    let archive = session.memory.archive();
    let Some(text) = message.checked_sub(1).and_then(|i| archive.get(i)) else {
        return Err(format!(
            "Message {message} is not in the archive; it holds messages 1 to {}.",
            archive.len()
        ));
    };
    let quote = if quote.trim().is_empty() {
        text.content.trim()
    } else {
        quote.trim()
    };
    if !crate::engine::probes::quoted_in(&text.content, quote) {
        return Err(format!(
            "Message {message} does not hold the words \"{quote}\"."
        ));
    }
    Ok(Probe {
        id: 0,
        question: question.to_owned(),
        evidence: crate::engine::library_session::Evidence {
            message: message - 1,
            quote: quote.to_owned(),
        },
        source: crate::engine::library_session::ProbeSource::User,
    })
}

/// [`user_probe`] from the page's form, the message number as typed.
pub fn typed_probe(
    session: &Session,
    question: &str,
    message: &str,
    quote: &str,
) -> Result<Probe, String> {
    user_probe(session, question, message_number(message)?, quote)
}

/// The archive message number typed in `message`, or why it is not one.
pub fn message_number(message: &str) -> Result<usize, String> {
    let message = message.trim();
    message.parse::<usize>().map_err(|_| {
        if message.is_empty() {
            "Give the number of the archive message that answers it.".to_owned()
        } else {
            format!(
                "\"{message}\" is not a message number; the archive counts its messages from 1."
            )
        }
    })
}

/// The user changed probe `id`'s question in the matrix: kept (its grades go, since they
/// answer the old question), or refused when it is empty.
pub fn edit_question(set: &mut ProbeSet, id: u32, question: &str) -> Result<(), String> {
    let question = question.trim();
    if question.is_empty() {
        return Err("A probe needs a question; remove it instead to drop it.".into());
    }
    set.edit(id, question);
    Ok(())
}

/// The settings a run answers and judges with: the judge is the summariser model unless
/// `judge_model` names another (surrounding spaces dropped).
pub fn judge_settings(valid: &ValidSettings, judge_model: &str) -> ValidSettings {
    let mut valid = valid.clone();
    let judge = judge_model.trim();
    if !judge.is_empty() {
        valid.summary_model = judge.to_owned();
    }
    valid
}

/// The folded messages the model writes probes from: every message some edition folded.
fn folded(session: &Session, points: &[Point]) -> Vec<(usize, Role, String)> {
    let to = points.iter().map(Point::verbatim_from).max().unwrap_or(0);
    session.memory.archive()[..to]
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role != Role::System)
        .map(|(i, m)| (i, m.role, m.readable().into_owned()))
        .collect()
}

/// The request that asks the summariser model to write probes from the folded turns, with
/// the set's writer prompt; refused when nothing is folded yet.
pub fn writer_call(
    session: &Session,
    valid: &ValidSettings,
    counter: &dyn CountTokens,
) -> Result<(Endpoint, ChatRequest), String> {
    let points = points(session, counter);
    let folded = folded(session, &points);
    if folded.is_empty() {
        return Err(
            "No turn is folded yet, so there is nothing the summary alone must recall.".into(),
        );
    }
    let listed: Vec<(usize, Role, &str)> = folded
        .iter()
        .map(|(i, r, t)| (*i, *r, t.as_str()))
        .collect();
    let mut request =
        valid.summary_request(writer_messages(&session.probes.writer_prompt, &listed));
    request.response_format = Some(writer_response_format());
    Ok((judge_endpoint(valid), request))
}

/// The model's probes arrived: those that parse and are asked at some edition are added;
/// a reply that does not parse adds nothing and says why. Returns how many were added.
pub fn writer_answered(
    session: &mut Session,
    reply: Result<Option<ChatResponse>, ApiError>,
    counter: &dyn CountTokens,
) -> Result<usize, String> {
    let text = match reply {
        Ok(Some(r)) => r.content,
        Ok(None) => return Err("Stopped; no probes were added.".into()),
        Err(e) => return Err(e.to_string()),
    };
    let points = points(session, counter);
    let folded = folded(session, &points);
    let listed: Vec<(usize, Role, &str)> = folded
        .iter()
        .map(|(i, r, t)| (*i, *r, t.as_str()))
        .collect();
    let probes = parse_probes(&text, &listed).map_err(|e| format!("{e}; no probes were added."))?;
    let asked: Vec<Probe> = probes
        .into_iter()
        .filter(|p| {
            points
                .iter()
                .any(|pt| applies(p, pt, &session.pinned, counter))
        })
        .collect();
    Ok(session.probes.add(asked))
}

/// The same request in the next `response_format` form, when `error` is a refusal that names
/// it: `json_schema` becomes `json_object` with the schema (llama-cpp-python's form), and that
/// becomes none (the prompt alone asks for JSON). `None` when there is no form left or the
/// error is another.
pub fn next_format(request: &ChatRequest, error: &ApiError) -> Option<ChatRequest> {
    if !error.to_string().contains("response_format") {
        return None;
    }
    let format = request.response_format.as_ref()?;
    let mut next = request.clone();
    next.response_format = match format["type"].as_str() {
        Some("json_schema") => Some(serde_json::json!({
            "type": "json_object",
            "schema": format["json_schema"]["schema"].clone(),
        })),
        _ => None,
    };
    Some(next)
}

fn judge_endpoint(valid: &ValidSettings) -> Endpoint {
    let mut endpoint = valid.endpoint.clone();
    endpoint.timeout_ms = summary_timeout_ms(endpoint.timeout_ms);
    endpoint
}

/// One run over a session's probes.
#[derive(Clone, Debug)]
pub struct ProbeRun {
    points: Vec<Point>,
    probes: Vec<Probe>,
    judge_prompt: String,
    archive: Vec<String>,
    valid: ValidSettings,
    cells: Vec<Cell>,
    /// The cell being asked, an index into `cells`.
    at: usize,
    /// The current cell's answer, once it has one: its judge call is next.
    answer: Option<String>,
    /// How the judge is asked for JSON: 0 `json_schema`, 1 `json_object` with the schema, 2 no
    /// `response_format` (the prompt alone asks for JSON). A server that refuses one form
    /// (llama-cpp-python refuses `json_schema`) is asked the next, once, for the rest of the run.
    judge_format: u8,
    status: RunStatus,
}

impl ProbeRun {
    /// A run over every cell of `session` not graded yet; the first call, or `None` when there is
    /// nothing to ask (the run is then done).
    pub fn start(
        session: &Session,
        valid: ValidSettings,
        counter: &dyn CountTokens,
    ) -> (ProbeRun, Option<ProbeCall>) {
        let points = points(session, counter);
        let cells = cells_to_run(session, &session.probes, &points, counter);
        let run = ProbeRun {
            points,
            probes: session.probes.probes.clone(),
            judge_prompt: session.probes.judge_prompt.clone(),
            archive: session
                .memory
                .archive()
                .iter()
                .map(|m| m.content.clone())
                .collect(),
            valid,
            status: if cells.is_empty() {
                RunStatus::Done
            } else {
                RunStatus::Running
            },
            cells,
            at: 0,
            answer: None,
            judge_format: 0,
        };
        let call = run.call(counter);
        (run, call)
    }

    pub fn status(&self) -> &RunStatus {
        &self.status
    }

    pub fn is_running(&self) -> bool {
        self.status.is_running()
    }

    /// Cells graded in this run, of the cells it asks in all.
    pub fn progress(&self) -> Progress {
        Progress::of(
            Unit::Cell,
            self.at.min(self.cells.len()) as u64,
            self.cells.len() as u64,
        )
    }

    /// The cell whose call failed, while the run waits to try it again.
    pub fn failed(&self) -> Option<Cell> {
        matches!(self.status, RunStatus::Failed(_))
            .then(|| self.current())
            .flatten()
    }

    /// The cell being asked (or waiting for Retry).
    pub fn current(&self) -> Option<Cell> {
        (self.status != RunStatus::Done)
            .then(|| self.cells.get(self.at).copied())
            .flatten()
    }

    /// Whether `cell` is still to be asked in this run.
    pub fn pending(&self, cell: Cell) -> bool {
        self.cells[self.at.min(self.cells.len())..].contains(&cell)
    }

    /// The call to make now, if the run is running.
    pub fn call(&self, counter: &dyn CountTokens) -> Option<ProbeCall> {
        if !self.is_running() {
            return None;
        }
        let cell = *self.cells.get(self.at)?;
        let probe = self.probes.iter().find(|p| p.id == cell.probe)?;
        let point = self.points.iter().find(|p| p.cycle == cell.cycle)?;
        Some(match &self.answer {
            None => ProbeCall {
                cell,
                kind: CallKind::Answer,
                endpoint: judge_endpoint(&self.valid),
                request: self
                    .valid
                    .chat_request(answer_messages(point, &probe.question, counter))
                    .streaming(false),
            },
            Some(answer) => {
                let mut request =
                    self.valid
                        .summary_request(judge_messages(&self.judge_prompt, probe, answer));
                request.response_format = match self.judge_format {
                    0 => Some(judge_response_format()),
                    1 => Some(judge_response_format_object()),
                    _ => None,
                };
                ProbeCall {
                    cell,
                    kind: CallKind::Judge,
                    endpoint: judge_endpoint(&self.valid),
                    request,
                }
            }
        })
    }

    /// The reply to the call for `cell` (`Ok(None)`: the user stopped it). A grade that parses
    /// is recorded in `set`, with the models used; anything else records nothing and waits for
    /// Retry. Returns the next call. A reply for another cell than the current one (a late
    /// reply after Stop and Retry) is ignored.
    pub fn answered(
        &mut self,
        cell: Cell,
        kind: CallKind,
        reply: Result<Option<ChatResponse>, ApiError>,
        set: &mut ProbeSet,
        counter: &dyn CountTokens,
    ) -> Option<ProbeCall> {
        let expected = if self.answer.is_some() {
            CallKind::Judge
        } else {
            CallKind::Answer
        };
        if self.current() != Some(cell) || kind != expected || !self.is_running() {
            return None;
        }
        let text = match reply {
            Ok(Some(r)) => r.content,
            Ok(None) => {
                self.status.stop();
                return None;
            }
            Err(error) => {
                let text = error.to_string();
                // A server that refuses the judge's `response_format` names it; the judge is
                // asked again in the next form instead of failing the cell.
                if kind == CallKind::Judge
                    && self.judge_format < 2
                    && text.contains("response_format")
                {
                    self.judge_format += 1;
                    return self.call(counter);
                }
                return self.fail(text);
            }
        };
        match kind {
            CallKind::Answer if text.trim().is_empty() => {
                self.fail("the model answered with nothing".into())
            }
            CallKind::Answer => {
                self.answer = Some(text.trim().to_owned());
                self.call(counter)
            }
            CallKind::Judge => {
                let probe = self.probes.iter().find(|p| p.id == cell.probe)?;
                let archive: Vec<&str> = self.archive.iter().map(String::as_str).collect();
                match parse_grade(&text, probe, &archive) {
                    Err(error) => self.fail(error.to_string()),
                    Ok(judgement) => {
                        // The probe may have been edited or removed meanwhile: then nothing is
                        // recorded for it.
                        if set
                            .probes
                            .iter()
                            .any(|p| p.id == probe.id && p.question == probe.question)
                        {
                            set.record(ProbeResult {
                                probe: cell.probe,
                                cycle: cell.cycle,
                                answer: self.answer.take().unwrap_or_default(),
                                grade: judgement.grade,
                                evidence: judgement.evidence,
                            });
                            set.answer_model = self.valid.chat_model.clone();
                            set.judge_model = self.valid.summary_model.clone();
                        }
                        self.answer = None;
                        self.at += 1;
                        if self.at >= self.cells.len() {
                            self.status.finish();
                        }
                        self.call(counter)
                    }
                }
            }
        }
    }

    /// The current cell's call failed: the run waits with it ([`ProbeRun::failed`]).
    fn fail(&mut self, reason: String) -> Option<ProbeCall> {
        self.status.fail(reason);
        None
    }

    pub fn stop(&mut self) {
        self.status.stop();
    }

    /// After a Stop or a failure: the same call again.
    pub fn retry(&mut self, counter: &dyn CountTokens) -> Option<ProbeCall> {
        if !self.status.go_on() {
            return None;
        }
        self.call(counter)
    }
}

#[cfg(test)]
mod tests;
