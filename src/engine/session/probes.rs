//! Version 5's probes ([`ProbesV5`]): the probe set, the judge's and the writer's prompts, the
//! models the answers and grades came from, and one graded answer per probe and edition. Kept in
//! a file of their own, converted by hand like every wire type. A file of version 4 or older has
//! none and reads as a session with no probes and the default prompts; a probe set with neither
//! probes nor results, and the default prompts, is not written.

use serde::{Deserialize, Serialize};

use crate::engine::library_session::{Evidence, Grade, Probe, ProbeResult, ProbeSet, ProbeSource};

#[derive(Serialize, Deserialize)]
pub(super) struct ProbesV5 {
    pub(super) probes: Vec<ProbeV5>,
    pub(super) judge_prompt: String,
    pub(super) writer_prompt: String,
    #[serde(default)]
    pub(super) answer_model: String,
    #[serde(default)]
    pub(super) judge_model: String,
    #[serde(default)]
    pub(super) results: Vec<ResultV5>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct ProbeV5 {
    pub(super) id: u32,
    pub(super) question: String,
    /// `fact`, `rule`, `model` or `user`.
    pub(super) source: String,
    /// The pinned fact's label, for a `fact` probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) fact: Option<String>,
    /// The archive index of the message holding the answer.
    pub(super) message: usize,
    pub(super) quote: String,
}

#[derive(Serialize, Deserialize)]
pub(super) struct ResultV5 {
    pub(super) probe: u32,
    pub(super) cycle: u32,
    pub(super) answer: String,
    /// `correct`, `partly`, `wrong` or `unanswerable`.
    pub(super) grade: String,
    pub(super) evidence: String,
}

/// The probes as a file holds them; `None` when there is nothing to keep.
pub(super) fn probes_to_v5(set: &ProbeSet) -> Option<ProbesV5> {
    if set == &ProbeSet::default() {
        return None;
    }
    Some(ProbesV5 {
        probes: set
            .probes
            .iter()
            .map(|p| ProbeV5 {
                id: p.id,
                question: p.question.clone(),
                source: p.source.slug().to_owned(),
                fact: match &p.source {
                    ProbeSource::Fact(label) => Some(label.clone()),
                    _ => None,
                },
                message: p.evidence.message,
                quote: p.evidence.quote.clone(),
            })
            .collect(),
        judge_prompt: set.judge_prompt.clone(),
        writer_prompt: set.writer_prompt.clone(),
        answer_model: set.answer_model.clone(),
        judge_model: set.judge_model.clone(),
        results: set
            .results
            .iter()
            .map(|r| ResultV5 {
                probe: r.probe,
                cycle: r.cycle,
                answer: r.answer.clone(),
                grade: r.grade.slug().to_owned(),
                evidence: r.evidence.clone(),
            })
            .collect(),
    })
}

/// Reads the probes back, checking that each names a message of the archive (`archive_len`
/// messages), ids are unique, and each result names a probe and an edition (`editions` of
/// them) once; the error names the JSON path at fault under `prefix`.
pub(super) fn probes_from_v5(
    wire: Option<ProbesV5>,
    archive_len: usize,
    editions: u32,
    prefix: &str,
) -> Result<ProbeSet, (String, String)> {
    let Some(wire) = wire else {
        return Ok(ProbeSet::default());
    };
    let invalid = |path: String, reason: String| (path, reason);
    let mut probes: Vec<Probe> = Vec::with_capacity(wire.probes.len());
    for (i, p) in wire.probes.into_iter().enumerate() {
        let at = format!("{prefix}.probes[{i}]");
        if probes.iter().any(|q| q.id == p.id) {
            return Err(invalid(
                format!("{at}.id"),
                format!("probe id {} is used twice", p.id),
            ));
        }
        if p.message >= archive_len {
            return Err(invalid(
                format!("{at}.message"),
                format!(
                    "message {} is not in the archive ({archive_len} messages)",
                    p.message
                ),
            ));
        }
        if p.question.trim().is_empty() {
            return Err(invalid(
                format!("{at}.question"),
                "a probe needs a question".into(),
            ));
        }
        let source = match (p.source.as_str(), p.fact) {
            ("fact", Some(label)) => ProbeSource::Fact(label),
            ("rule", None) => ProbeSource::Rule,
            ("model", None) => ProbeSource::Model,
            ("user", None) => ProbeSource::User,
            (other, _) => {
                return Err(invalid(
                    format!("{at}.source"),
                    format!(
                        "unknown probe source {other:?}; expected fact (with its fact's label), rule, model or user"
                    ),
                ));
            }
        };
        probes.push(Probe {
            id: p.id,
            question: p.question,
            evidence: Evidence {
                message: p.message,
                quote: p.quote,
            },
            source,
        });
    }
    let mut set = ProbeSet {
        probes,
        judge_prompt: wire.judge_prompt,
        writer_prompt: wire.writer_prompt,
        answer_model: wire.answer_model,
        judge_model: wire.judge_model,
        results: Vec::new(),
    };
    for (i, r) in wire.results.into_iter().enumerate() {
        let at = format!("{prefix}.results[{i}]");
        if !set.probes.iter().any(|p| p.id == r.probe) {
            return Err(invalid(
                format!("{at}.probe"),
                format!("no probe has id {}", r.probe),
            ));
        }
        if r.cycle == 0 || r.cycle > editions {
            return Err(invalid(
                format!("{at}.cycle"),
                format!(
                    "edition {} is not one of this session's {editions}",
                    r.cycle
                ),
            ));
        }
        if set.result(r.probe, r.cycle).is_some() {
            return Err(invalid(
                at,
                format!("probe {} at edition {} is graded twice", r.probe, r.cycle),
            ));
        }
        let grade = Grade::from_slug(&r.grade).ok_or_else(|| {
            invalid(
                format!("{at}.grade"),
                format!(
                    "unknown grade {:?}; expected correct, partly, wrong or unanswerable",
                    r.grade
                ),
            )
        })?;
        set.record(ProbeResult {
            probe: r.probe,
            cycle: r.cycle,
            answer: r.answer,
            grade,
            evidence: r.evidence,
        });
    }
    Ok(set)
}
