//! Probes and a judge: questions whose answers are in a session's archive but no longer in the
//! newest verbatim turns, asked at each edition from only what that turn's request held, and
//! graded against the archive's evidence by a judge model.
//!
//! Everything here is data: [`generate`] makes the probes (one per pinned fact, one per rule
//! sentence of the folded turns, and the model's own through [`writer`]); [`context`] rebuilds
//! each edition's request ([`points`]) and the answer request on it; [`judge`] holds the judge's
//! request and the strict parsing of its grade. What a session keeps of its probes (the probes,
//! the judge's and writer's prompts and the models used, one result per probe and edition
//! graded) is [`crate::engine::library_session::ProbeSet`], which a session holds and so sits
//! below this.
//! The shell only performs the requests; `app::probes` runs them.

mod context;
mod generate;
pub mod judge;
pub mod writer;

#[cfg(test)]
mod tests;

pub use context::{ANSWER_LEAD, Point, answer_messages, applies, points};
pub use generate::{fact_question, generate, rule_question};
pub use judge::{
    GradeError, judge_messages, judge_response_format, judge_response_format_object, parse_grade,
};

/// `needle`'s words, in order, inside `haystack`, ignoring case, spacing and the quotes and
/// punctuation at its ends: how a quote is found in the archive.
pub fn quoted_in(haystack: &str, needle: &str) -> bool {
    let trim: &[char] = &['"', '\'', '“', '”', '‘', '’', '.', ' ', '\n', '«', '»'];
    let needle = needle.trim_matches(trim);
    if needle.is_empty() {
        return false;
    }
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    norm(haystack).contains(&norm(needle))
}
