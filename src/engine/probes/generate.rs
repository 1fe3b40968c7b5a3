//! The probes a session's archive offers: one per pinned fact the archive states, one per rule
//! sentence of the folded turns (as [`crate::engine::checks::rules::rules_in`] finds them), each
//! with the message and sentence that answer it, kept only when some edition's request no
//! longer holds that answer word for word ([`super::applies`]).

use super::context::{Point, applies};
use super::quoted_in;
use crate::engine::checks::rules::{Rule, RuleSource, is_rule_sentence, rules_in};
use crate::engine::library_session::Session;
use crate::engine::library_session::{Evidence, Probe, ProbeSource};
use crate::engine::message::{CountTokens, Role};

/// The question a pinned fact becomes: "What is the user's monthly salary?" for "monthly
/// salary"; a fact that is itself a rule ("no equities", "never suggest crypto") asks for the
/// rule.
pub fn fact_question(label: &str, phrase: Option<&str>) -> String {
    let label = label.trim().trim_end_matches('?');
    let rule_like = is_rule_sentence(label)
        || phrase.is_some_and(is_rule_sentence)
        || label.to_lowercase().starts_with("no ");
    if rule_like {
        format!("What did the user say about \"{label}\"?")
    } else {
        format!("What is the user's {label}?")
    }
}

/// The question a rule sentence becomes, from what it is about.
pub fn rule_question(rule: &Rule) -> String {
    let about: Vec<&str> = rule.content.iter().take(4).map(String::as_str).collect();
    if about.is_empty() {
        "What rules did the user set?".to_owned()
    } else {
        format!("What rule was set about {}?", about.join(" "))
    }
}

/// The probes of `session` at its editions' `points` (see [`super::points`]): the pinned facts
/// first, then the rule sentences no fact already asks about. Ids are left at 0 for
/// [`crate::engine::library_session::ProbeSet::add`] to give.
pub fn generate(session: &Session, points: &[Point], counter: &dyn CountTokens) -> Vec<Probe> {
    let archive = session.memory.archive();
    let mut probes = Vec::new();
    for fact in &session.pinned {
        let Ok(compiled) = fact.compile() else {
            continue;
        };
        let found = archive.iter().enumerate().find_map(|(i, m)| {
            (m.role != Role::System)
                .then(|| compiled.sentence_in(&m.content))
                .flatten()
                .map(|quote| (i, quote.trim().to_owned()))
        });
        let Some((message, quote)) = found else {
            continue;
        };
        let phrase = match &fact.pattern {
            crate::engine::facts::FactPattern::Phrase(p) => Some(p.as_str()),
            crate::engine::facts::FactPattern::Regex(_) => None,
        };
        probes.push(Probe {
            id: 0,
            question: fact_question(&fact.label, phrase),
            evidence: Evidence { message, quote },
            source: ProbeSource::Fact(fact.label.clone()),
        });
    }
    // The rules of every turn some edition folded.
    let folded_to = points.iter().map(Point::verbatim_from).max().unwrap_or(0);
    let folded: Vec<&str> = archive[..folded_to.min(archive.len())]
        .iter()
        .filter(|m| m.role != Role::System)
        .map(|m| m.content.as_str())
        .collect();
    for rule in rules_in(&folded, &session.pinned) {
        if rule.source != RuleSource::Turn
            || probes
                .iter()
                .any(|p| quoted_in(&p.evidence.quote, &rule.text))
        {
            continue;
        }
        let Some(message) = archive
            .iter()
            .position(|m| m.role != Role::System && m.content.contains(&rule.text))
        else {
            continue;
        };
        probes.push(Probe {
            id: 0,
            question: rule_question(&rule),
            evidence: Evidence {
                message,
                quote: rule.text.clone(),
            },
            source: ProbeSource::Rule,
        });
    }
    probes.retain(|p| {
        points
            .iter()
            .any(|point| applies(p, point, &session.pinned, counter))
    });
    probes
}
