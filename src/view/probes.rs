//! What Inspect's probes show: the probe list, the matrix (one cell per probe and edition, its
//! grade as a slug and a mark, the answer and the judge's evidence for on demand), the score per
//! edition, and who answers and who judges, as plain strings. The estimate's sentence and the
//! run's progress are every run's (`view::run`).

use crate::app::probes::{Cell, ProbeRun, asked_at};
use crate::engine::library_session::{Grade, ProbeSource, Session};
use crate::engine::message::CountTokens;
use crate::engine::probes::Point;
use crate::engine::run::RunStatus;
use crate::engine::settings::ValidSettings;

/// One probe's row.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeRow {
    pub id: u32,
    pub question: String,
    /// `fact`, `rule`, `model` or `user`.
    pub source: &'static str,
    /// Where the answer is: "From the pinned fact “salary”; message 3: “…”".
    pub evidence: String,
    pub cells: Vec<CellView>,
}

/// One cell of the matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct CellView {
    pub cycle: u32,
    /// `correct`, `partly`, `wrong`, `unanswerable`, `pending` (to be asked), `failed` (its
    /// call failed; Retry asks again) or `verbatim` (that edition's request still sends the
    /// answer word for word, so it is not asked there).
    pub grade: &'static str,
    /// The mark shown in the cell.
    pub mark: &'static str,
    pub answer: Option<String>,
    pub evidence: Option<String>,
    /// Why the call failed, for a `failed` cell.
    pub reason: Option<String>,
}

impl CellView {
    /// The cell's class: `grade-{grade}`.
    pub fn class(&self) -> String {
        format!("grade-{}", self.grade)
    }
}

/// One edition's score.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreView {
    pub cycle: u32,
    /// Two decimals from 0 to 1 (`data-score`); `None` when nothing is graded there.
    pub score: Option<String>,
    pub text: String,
}

/// The matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeMatrix {
    pub cycles: Vec<u32>,
    pub rows: Vec<ProbeRow>,
    pub scores: Vec<ScoreView>,
}

/// The matrix of `session`'s probes at its editions' `points`, with `run`'s failed cell.
pub fn matrix(
    session: &Session,
    points: &[Point],
    run: Option<&ProbeRun>,
    counter: &dyn CountTokens,
) -> ProbeMatrix {
    let set = &session.probes;
    let cycles: Vec<u32> = points.iter().map(|p| p.cycle).collect();
    let failed = run.and_then(|r| match (r.failed(), r.status()) {
        (Some(cell), RunStatus::Failed(reason)) => Some((cell, reason.clone())),
        _ => None,
    });
    let rows = set
        .probes
        .iter()
        .map(|probe| {
            let cells = cycles
                .iter()
                .map(|&cycle| {
                    let cell = Cell {
                        probe: probe.id,
                        cycle,
                    };
                    if let Some(result) = set.result(probe.id, cycle) {
                        return CellView {
                            cycle,
                            grade: result.grade.slug(),
                            mark: mark(result.grade),
                            answer: Some(result.answer.clone()),
                            evidence: Some(result.evidence.clone()),
                            reason: None,
                        };
                    }
                    let (grade, mark, reason) = match &failed {
                        Some((c, reason)) if *c == cell => ("failed", "!", Some(reason.clone())),
                        _ if asked_at(session, points, probe, cycle, counter) => {
                            ("pending", "…", None)
                        }
                        _ => ("verbatim", "—", None),
                    };
                    CellView {
                        cycle,
                        grade,
                        mark,
                        answer: None,
                        evidence: None,
                        reason,
                    }
                })
                .collect();
            ProbeRow {
                id: probe.id,
                question: probe.question.clone(),
                source: probe.source.slug(),
                evidence: evidence_line(
                    &probe.source,
                    probe.evidence.message,
                    &probe.evidence.quote,
                ),
                cells,
            }
        })
        .collect();
    let scores = cycles
        .iter()
        .map(|&cycle| {
            let score = set.score(cycle);
            ScoreView {
                cycle,
                score: score.map(|s| format!("{s:.2}")),
                text: score.map_or_else(|| "—".to_owned(), |s| format!("{:.0}%", s * 100.0)),
            }
        })
        .collect();
    ProbeMatrix {
        cycles,
        rows,
        scores,
    }
}

fn mark(grade: Grade) -> &'static str {
    match grade {
        Grade::Correct => "✓",
        Grade::Partly => "½",
        Grade::Wrong => "✗",
        Grade::Unanswerable => "?",
    }
}

/// Where a probe's answer is, in words.
pub fn evidence_line(source: &ProbeSource, message: usize, quote: &str) -> String {
    let from = match source {
        ProbeSource::Fact(label) => format!("From the pinned fact “{label}”; "),
        ProbeSource::Rule => "A rule of a folded turn; ".to_owned(),
        ProbeSource::Model => "Written by the model; ".to_owned(),
        ProbeSource::User => String::new(),
    };
    format!("{from}message {}: “{quote}”", message + 1)
}

/// What adding the probes of the pinned facts and rules did: `added` new probes.
pub fn generated_note(added: usize) -> String {
    match added {
        0 => "No new probe: every pinned fact and rule of the folded turns is asked already, or still verbatim at every edition.".to_owned(),
        1 => "Added 1 probe.".to_owned(),
        n => format!("Added {n} probes."),
    }
}

/// What asking the model to write probes did: `added` new probes.
pub fn written_note(added: usize) -> String {
    format!(" The model's probes: {added} added.")
}

/// Who answers and who judges, beside the Run button: `valid` as the run uses it (see
/// [`crate::app::probes::judge_settings`]), `summariser` the summariser model of the settings.
pub fn models_note(valid: &ValidSettings, summariser: &str) -> String {
    let same = if valid.summary_model == summariser {
        " (the summariser model)"
    } else {
        ""
    };
    format!(
        "Answers by {} and grades by {}{same}, at {}.",
        valid.chat_model, valid.summary_model, valid.endpoint.base_url
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_is_classed_by_its_grade_and_the_models_probes_are_counted() {
        let cell = |grade| CellView {
            cycle: 1,
            grade,
            mark: "",
            answer: None,
            evidence: None,
            reason: None,
        };
        assert_eq!(cell("correct").class(), "grade-correct");
        assert_eq!(cell("pending").class(), "grade-pending");
        assert_eq!(written_note(0), " The model's probes: 0 added.");
        assert_eq!(written_note(3), " The model's probes: 3 added.");
    }
    use crate::app::probes::add_generated;
    use crate::engine::facts::PinnedFact;
    use crate::engine::library_session::ProbeResult;
    use crate::engine::message::WordCounter;
    use crate::engine::probes::points;
    use crate::engine::session::fixture::Scripted;

    #[test]
    fn the_matrix_has_a_cell_per_probe_and_edition_and_a_score_per_edition() {
        let scripted = Scripted {
            turn: |t| match t {
                1 => ("My monthly salary is 4,200 euros.".into(), "Noted.".into()),
                t => (format!("question {t}"), format!("answer {t}")),
            },
            ..Scripted::default()
        };
        let mut session = scripted.play(4);
        session.pinned = vec![PinnedFact::phrase("monthly salary", "4,200")];
        add_generated(&mut session, &WordCounter);
        session.probes.record(ProbeResult {
            probe: 1,
            cycle: 2,
            answer: "4,200.".into(),
            grade: Grade::Partly,
            evidence: "4,200 euros".into(),
        });
        let points = points(&session, &WordCounter);
        let m = matrix(&session, &points, None, &WordCounter);
        assert_eq!(m.cycles, [1, 2, 3]);
        assert_eq!(m.rows.len(), 1);
        let grades: Vec<_> = m.rows[0].cells.iter().map(|c| c.grade).collect();
        assert_eq!(grades, ["pending", "partly", "pending"]);
        assert_eq!(m.rows[0].cells[1].answer.as_deref(), Some("4,200."));
        assert_eq!(m.scores[1].score.as_deref(), Some("0.50"));
        assert_eq!(m.scores[1].text, "50%");
        assert_eq!(m.scores[0].score, None);
        assert!(
            m.rows[0]
                .evidence
                .contains("message 1: “My monthly salary is 4,200 euros.”")
        );
    }

    #[test]
    fn the_models_note_names_the_judge_and_whether_it_is_the_summariser() {
        let mut settings = crate::engine::settings::Settings::default();
        settings.set_base_url("http://127.0.0.1:8080/v1".to_owned());
        settings.chat_model = "chat".to_owned();
        settings.summary_model = "sum".to_owned();
        let valid = settings.validate().expect("valid settings");
        let same = models_note(&crate::app::probes::judge_settings(&valid, ""), "sum");
        assert!(
            same.contains("grades by sum (the summariser model)"),
            "{same}"
        );
        let other = models_note(&crate::app::probes::judge_settings(&valid, "grader"), "sum");
        assert!(
            other.starts_with("Answers by chat and grades by grader, at"),
            "{other}"
        );
    }
}
