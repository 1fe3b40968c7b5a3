//! Engine benchmarks. Each prints its time as a ratio against a peer measured in the same run,
//! so the number means something on any machine:
//! - the dry run over 10,000 turns against the notebook's list-based `schedule()` translated
//!   literally (it copies the verbatim list on every turn);
//! - building a 5,000-turn session with an instant summariser against pushing the same
//!   messages onto a plain `Vec`;
//! - the figures check's number pattern over a 40 KB summary with the core's matcher
//!   (`engine::pattern`, on regex-lite) against `regex::Regex`, which it replaced to take
//!   regex's engines, parser and Unicode tables out of the page's first load (docs/size.md).

use std::hint::black_box;
use std::time::Instant;

use criterion::Criterion;
use summary_memory::engine::{
    CommitMeta, MemoryState, Message, Policy, Provenance, Role, ScheduleInput, Trigger,
    WordCounter, schedule,
};

const DRY_RUN_TURNS: u32 = 10_000;
const SESSION_TURNS: usize = 5_000;

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench_dry_run(&mut c);
    bench_session(&mut c);
    bench_matcher();
    c.final_summary();
}

fn policy() -> Policy {
    Policy::new(Trigger::Turns {
        max_turns: 6,
        keep: 2,
    })
    .expect("a valid policy")
}

/// The notebook's schedule, kept as it was written: the verbatim turns live in a list that is
/// cloned for every row and sliced on every cycle.
fn notebook_schedule(total: u32, max_turns: usize, keep: usize) -> (u32, Vec<(u32, Vec<u32>)>) {
    let (mut summarised_to, mut recent, mut calls) = (0u32, Vec::<u32>::new(), 0u32);
    let mut rows = Vec::with_capacity(total as usize);
    for turn in 1..=total {
        let mut shown = recent.clone();
        shown.push(turn);
        rows.push((summarised_to, shown));
        recent.push(turn);
        if recent.len() >= max_turns {
            let cut = recent.len() - keep;
            summarised_to = recent[cut - 1];
            recent = recent[cut..].to_vec();
            calls += 1;
        }
    }
    (calls, rows)
}

fn bench_dry_run(c: &mut Criterion) {
    let policy = policy();
    let input = ScheduleInput::uniform(DRY_RUN_TURNS);
    c.bench_function("dry run, 10,000 turns", |b| {
        b.iter(|| schedule(black_box(&policy), black_box(&input)))
    });
    c.bench_function("notebook schedule, 10,000 turns", |b| {
        b.iter(|| notebook_schedule(black_box(DRY_RUN_TURNS), 6, 2))
    });
    let ours = median_ns(|| {
        black_box(schedule(&policy, &input));
    });
    let peer = median_ns(|| {
        black_box(notebook_schedule(DRY_RUN_TURNS, 6, 2));
    });
    println!(
        "dry run of 10,000 turns: {:.3} ms, {:.2}x the notebook-style peer ({:.3} ms)",
        ours / 1e6,
        ours / peer,
        peer / 1e6
    );
}

fn messages() -> Vec<Message> {
    (0..SESSION_TURNS)
        .flat_map(|t| {
            [
                Message::new(
                    Role::User,
                    format!("question {t} about savings"),
                    &WordCounter,
                    0,
                ),
                Message::new(
                    Role::Assistant,
                    format!("answer {t} with a few words of advice"),
                    &WordCounter,
                    0,
                ),
            ]
        })
        .collect()
}

fn build_session(messages: &[Message]) -> MemoryState {
    let mut memory = MemoryState::new("You are FinCoach.", policy()).expect("valid");
    let meta = CommitMeta {
        model: None,
        provenance: Provenance::Model,
        at_ms: 0,
    };
    for m in messages {
        let mut job = memory.add_message(m.clone()).expect("no system messages");
        while let Some(j) = job {
            job = memory
                .commit(j.id, "A short summary.", meta.clone(), &WordCounter)
                .expect("the job in flight");
        }
    }
    memory
}

fn push_plain(messages: &[Message]) -> Vec<Message> {
    let mut out = Vec::new();
    for m in messages {
        out.push(m.clone());
    }
    out
}

fn bench_session(c: &mut Criterion) {
    let messages = messages();
    c.bench_function("session, 5,000 turns", |b| {
        b.iter(|| build_session(black_box(&messages)))
    });
    c.bench_function("plain Vec push, 5,000 turns", |b| {
        b.iter(|| push_plain(black_box(&messages)))
    });
    let ours = median_ns(|| {
        black_box(build_session(&messages));
    });
    let peer = median_ns(|| {
        black_box(push_plain(&messages));
    });
    println!(
        "5,000-turn session: {:.3} ms, {:.2}x a plain Vec push of the same messages ({:.3} ms)",
        ours / 1e6,
        ours / peer,
        peer / 1e6
    );
}

fn bench_matcher() {
    use summary_memory::engine::pattern::Pattern;
    let paragraph = "The user earns ₹1,20,000 a month and saves 15% of it; rent is Rs. 25k, \
        the SIP was raised to $500 on 2025-03-01 and the emergency fund holds 6 months \
        (about 3.5 lakh). No equities above 40 percent, per the advisor. ";
    let text = paragraph.repeat(40_000 / paragraph.len() + 1);
    // The figures check's number pattern, walked over the text match by match with its groups,
    // as the check walks it.
    let number = summary_memory::engine::checks::figures::number_source();
    let ours = Pattern::new(&number).unwrap();
    let peer = regex::Regex::new(&number).unwrap();
    let walk_ours = || {
        let (mut at, mut n) = (0, 0);
        while let Some(caps) = ours.captures_at(&text, at) {
            n += caps.name("num").map_or(0, |m| m.end() - m.start());
            at = caps.get(0).unwrap().end().max(at + 1);
            if at >= text.len() {
                break;
            }
        }
        n
    };
    let walk_peer = || {
        let (mut at, mut n) = (0, 0);
        while let Some(caps) = peer.captures_at(&text, at) {
            n += caps.name("num").map_or(0, |m| m.len());
            at = caps.get(0).unwrap().end().max(at + 1);
            if at >= text.len() {
                break;
            }
        }
        n
    };
    assert_eq!(walk_ours(), walk_peer(), "the two matchers disagree");
    let ours = median_ns(|| {
        black_box(walk_ours());
    });
    let peer = median_ns(|| {
        black_box(walk_peer());
    });
    println!(
        "figures' number pattern over {} KB: {:.3} ms, {:.2}x regex::Regex ({:.3} ms)",
        text.len() / 1000,
        ours / 1e6,
        ours / peer,
        peer / 1e6
    );
}

/// Median wall time of 21 runs, in nanoseconds.
fn median_ns(mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..21)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_nanos() as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
