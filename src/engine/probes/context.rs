//! "Answer from this point's context": each edition's point in the conversation, and the request
//! a probe is answered with there.
//!
//! The point of edition k is the first chat request that carried its summary. It is found by
//! playing the archive again through a [`MemoryState`] under the session's own policy, the code
//! that built the real requests, and committing the session's recorded editions, in order, where
//! that memory asks for a summary. Right after edition k commits, the next user message would
//! have gone out with [`MemoryState::request`]: the system prompt, the summary where the
//! placement puts it, and the verbatim turns. A probe's request is exactly that, with the
//! question in the user message's place.
//!
//! When the replay does not ask for a summary where the session's editions folded (another
//! tool's compactions imported under the default policy, or a token trigger counted with
//! another tokenizer), the editions left get the latest request they were surely current for:
//! the archive up to the last turn the next edition folded (the whole archive for the last one),
//! rebuilt with the stored editions so far. That is what a tool that folds everything at once
//! (Claude Code, Codex) sent just before it compacted again.

use std::collections::BTreeSet;

use super::quoted_in;
use crate::engine::edition::{Edition, Provenance};
use crate::engine::facts::PinnedFact;
use crate::engine::library_session::Session;
use crate::engine::library_session::{Probe, ProbeSource};
use crate::engine::memory::{CommitMeta, JobKind, MemoryState, SummaryJob};
use crate::engine::message::{ChatMessage, CountTokens, Message, Role};

/// What goes before the question in the user message that asks it: the model answers from the
/// conversation alone and says so when it cannot.
pub const ANSWER_LEAD: &str = "Answer from this conversation alone, in one or two sentences. If it does not say, answer \"Not stated.\" Question: ";

/// One edition's point: the memory as it stood for the first request that sent its summary.
#[derive(Clone, Debug)]
pub struct Point {
    pub cycle: u32,
    pub memory: MemoryState,
    /// Archive indices no request sent (a live chat's replies cut short by a failure).
    pub leave_out: BTreeSet<usize>,
}

impl Point {
    /// The chat request's messages at this point, before the user's next message.
    pub fn request(&self, counter: &dyn CountTokens) -> Vec<Message> {
        self.memory
            .request_leaving_out(counter, |i| self.leave_out.contains(&i))
    }

    /// The archive index of the first message the request sends word for word.
    pub fn verbatim_from(&self) -> usize {
        self.memory.archive().len() - self.memory.verbatim().len()
    }
}

/// The point of every edition of `session`, in cycle order.
pub fn points(session: &Session, counter: &dyn CountTokens) -> Vec<Point> {
    let memory = &session.memory;
    let editions = memory.editions();
    if editions.is_empty() {
        return Vec::new();
    }
    let leave_out: BTreeSet<usize> = session
        .live
        .as_ref()
        .map(|l| l.failed.clone())
        .unwrap_or_default();
    let mut found = replayed_points(session, counter);
    found.truncate(editions.len());
    for k in found.len()..editions.len() {
        found.push(Point {
            cycle: editions[k].cycle,
            memory: rebuilt(memory, editions, k, counter),
            leave_out: leave_out.clone(),
        });
    }
    for point in &mut found {
        point.leave_out = leave_out.clone();
    }
    found
}

/// The points the replay under the session's policy reaches, in order, stopping where it no
/// longer folds what the recorded editions folded.
fn replayed_points(session: &Session, counter: &dyn CountTokens) -> Vec<Point> {
    let original = &session.memory;
    let editions = original.editions();
    let Ok(mut memory) = MemoryState::new(original.system_prompt(), original.policy().clone())
    else {
        return Vec::new();
    };
    memory.count_system_prompt(counter);
    let archive = original.archive();
    // A system message in the archive is the memory's system prompt, not a message it holds.
    if archive.iter().any(|m| m.role == Role::System) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut reported: Option<u64> = None;
    for (index, message) in archive.iter().enumerate() {
        let job = match memory.add_message(message.clone()) {
            Ok(job) => job,
            Err(_) => return out,
        };
        if original.is_excluded(index) && memory.set_excluded(index, true).is_err() {
            return out;
        }
        let mut job = job;
        // A policy that checks before each request checks once the message a request answers
        // is in, on the previous request's size (as the replay does).
        let next_is_reply = archive
            .get(index + 1)
            .is_none_or(|m| m.role == Role::Assistant);
        if job.is_none() && matches!(message.role, Role::User | Role::Tool) && next_is_reply {
            job = memory.before_request(reported);
            if job.is_none() {
                reported = Some(tokens(&memory.request(counter)));
            }
        }
        while let Some(current) = job {
            let Some(edition) = editions.get(out.len()) else {
                return out;
            };
            if !folds_as_recorded(&current, edition) {
                return out;
            }
            match commit(&mut memory, &current, edition, counter) {
                Some(next) => {
                    job = next;
                    if memory.editions().len() > out.len() {
                        out.push(Point {
                            cycle: edition.cycle,
                            memory: memory.clone(),
                            leave_out: BTreeSet::new(),
                        });
                    }
                }
                None => return out,
            }
        }
    }
    out
}

/// Commits `edition`'s text for `job` (each pass of a job of several calls); the next job, or
/// `None` when the memory refused it.
fn commit(
    memory: &mut MemoryState,
    job: &SummaryJob,
    edition: &Edition,
    counter: &dyn CountTokens,
) -> Option<Option<SummaryJob>> {
    let meta = CommitMeta {
        model: edition.model.clone(),
        provenance: edition.provenance,
        at_ms: edition.at_ms,
    };
    let mut next = memory
        .commit(job.id, &edition.summary, meta, counter)
        .ok()?;
    // Only a job's last pass commits; the passes before it see the same text as their draft.
    while let Some(pass) = next.clone().filter(|n| n.pass > 1) {
        let meta = CommitMeta {
            model: edition.model.clone(),
            provenance: edition.provenance,
            at_ms: edition.at_ms,
        };
        next = memory
            .commit(pass.id, &edition.summary, meta, counter)
            .ok()?;
    }
    Some(next)
}

/// Whether the replay's job folds what `edition` folded: the same turns for a fold, no turns
/// for a compression. A manual edit or a restore is never asked for by a trigger.
fn folds_as_recorded(job: &SummaryJob, edition: &Edition) -> bool {
    if matches!(
        edition.provenance,
        Provenance::ManualEdit | Provenance::Restore
    ) {
        return false;
    }
    let folds_to = match job.kind {
        JobKind::Fold { turns, .. } => Some(turns.last),
        JobKind::Compress { .. } => None,
    };
    folds_to == edition.folded.map(|r| r.last)
}

/// Edition `k`'s memory rebuilt from the stored parts: the archive up to the start of the last
/// turn the next edition folded, or all of it for the last edition.
fn rebuilt(
    memory: &MemoryState,
    editions: &[Edition],
    k: usize,
    counter: &dyn CountTokens,
) -> MemoryState {
    let archive = memory.archive();
    let folded_to = |e: &Edition| e.folded.map_or(0, |r| r.last);
    let own = editions[..=k].iter().map(folded_to).max().unwrap_or(0);
    let end = editions[k + 1..]
        .iter()
        .map(folded_to)
        .find(|&last| last > own)
        .map_or(archive.len(), |last| turn_start(archive, last - 1));
    MemoryState::from_parts(
        memory.system_prompt().to_owned(),
        memory.policy().clone(),
        archive[..end].to_vec(),
        editions[..=k].to_vec(),
        Vec::new(),
        counter,
    )
}

/// The archive index where turn `turn + 1` begins.
fn turn_start(archive: &[Message], turn: u32) -> usize {
    let mut starts = Vec::new();
    let mut previous = None;
    for (i, m) in archive.iter().enumerate() {
        if crate::engine::message::starts_turn(previous, m.role) {
            starts.push(i);
        }
        previous = Some(m.role);
    }
    starts.get(turn as usize).copied().unwrap_or(archive.len())
}

fn tokens(request: &[Message]) -> u64 {
    request.iter().map(|m| u64::from(m.tokens)).sum()
}

/// The request that asks `question` at `point`: what that point's chat request held, then the
/// question (after [`ANSWER_LEAD`]) as the last user message.
pub fn answer_messages(
    point: &Point,
    question: &str,
    counter: &dyn CountTokens,
) -> Vec<ChatMessage> {
    let mut messages: Vec<ChatMessage> = point
        .request(counter)
        .iter()
        .map(ChatMessage::from)
        .collect();
    messages.push(ChatMessage::new(
        Role::User,
        format!("{ANSWER_LEAD}{}", question.trim()),
    ));
    messages
}

/// Whether `probe` is asked at `point`: its evidence was folded by then, and no message the
/// request sends word for word still holds its quote (or, for a pinned fact, states the fact).
pub fn applies(
    probe: &Probe,
    point: &Point,
    facts: &[PinnedFact],
    counter: &dyn CountTokens,
) -> bool {
    if probe.evidence.message >= point.verbatim_from() {
        return false;
    }
    let fact = match &probe.source {
        ProbeSource::Fact(label) => facts
            .iter()
            .find(|f| &f.label == label)
            .and_then(|f| f.compile().ok()),
        _ => None,
    };
    let summary = point.memory.summary();
    !point.request(counter).iter().any(|m| {
        // The summary is what is measured; only the verbatim turns and the system prompt can
        // give the answer away.
        if m.role == Role::System || summary.is_some_and(|s| m.content.contains(s)) {
            return false;
        }
        quoted_in(&m.content, &probe.evidence.quote)
            || fact.as_ref().is_some_and(|f| f.is_match(&m.content))
    })
}
