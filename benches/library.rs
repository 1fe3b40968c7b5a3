//! Session-library benchmark: importing one envelope of 1,000 sessions and one of 10,000 into an
//! empty [`Library`], and the ratio of the two times measured in the same run. A linear import
//! gives about 10; one that rescans and resorts the list after each session grows as the square
//! (about 100). The acceptance bound is 12: a median ratio above it fails the run (a panic with
//! the numbers), so the bound is enforced, not only printed.
//!
//! Then a large file's import as the page makes it, a batch at a time: 10 batches of 100
//! sessions added (`add_placed`) to a library of 1,000 sessions and to one of 30,000, with the
//! library's chunked list against the flat list it replaced (each batch sorted alone and merged
//! into one `Vec`, every entry moved once per batch: the same steps, in this file), in the same
//! run. Printed only: the chunked list's cost should stay about that of the batches (a ratio
//! near 1 from 1,000 to 30,000), the flat list's grow with the library.
//!
//! Run with `cargo bench --bench library`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use summary_memory::app::library::{Entry, Library};
use summary_memory::engine::WordCounter;
use summary_memory::engine::library_session::Session;
use summary_memory::engine::session::{export_all, synthetic};

/// The largest time ratio of 10,000 to 1,000 sessions a linear import may show on a loaded
/// machine (linear is 10).
const BOUND: f64 = 12.0;

/// An envelope of `n` two-turn sessions, each with its own name.
fn envelope(n: usize) -> String {
    let base = synthetic(2);
    let sessions: Vec<Session> = (0..n)
        .map(|i| Session {
            name: format!("session {i}"),
            ..base.clone()
        })
        .collect();
    export_all(&sessions, 0, "bench")
}

/// The median of `rounds` imports of `text` into a fresh library.
fn import_time(text: &str, rounds: usize) -> Duration {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let mut library = Library::default();
            let mut next = 0u64;
            let start = Instant::now();
            let first = library
                .import(
                    "bench.json",
                    text.as_bytes(),
                    &WordCounter,
                    || {
                        next += 1;
                        format!("s{next}")
                    },
                    1,
                )
                .expect("the envelope imports");
            let elapsed = start.elapsed();
            black_box((first, library.len()));
            elapsed
        })
        .collect();
    times.sort();
    times[rounds / 2]
}

/// A library of `n` sessions (each its own name, all stored at one time).
fn filled(n: usize) -> Vec<Entry> {
    let base = synthetic(2);
    (0..n)
        .map(|i| Entry {
            id: format!("old{i}"),
            session: Session {
                name: format!("stored {i:06}"),
                ..base.clone()
            },
            updated_ms: 1_000 + (i as u64 % 7),
            revision: 1,
            origin: None,
            counted_in: None,
        })
        .collect()
}

/// The 10 batches of 100 sessions the page adds, as a large file's import does.
fn batches() -> Vec<Vec<(String, Session, u32)>> {
    let base = synthetic(2);
    (0..10)
        .map(|b| {
            (0..100)
                .map(|i| {
                    let n = b * 100 + i;
                    let session = Session {
                        name: format!("Conversation {n:05}"),
                        ..base.clone()
                    };
                    (format!("new{n}"), session, n as u32)
                })
                .collect()
        })
        .collect()
}

/// The median time of adding [`batches`] to the library, fresh from `stored` each round.
fn batches_time(stored: &[Entry], rounds: usize) -> Duration {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let mut library = Library::from_stored(stored.to_vec());
            let batches = batches();
            let start = Instant::now();
            for batch in batches {
                black_box(library.add_placed(batch, Some("conversations.json"), 2_000));
            }
            let elapsed = start.elapsed();
            black_box(library.len());
            elapsed
        })
        .collect();
    times.sort();
    times[rounds / 2]
}

/// The flat list it replaced: each batch sorted alone, each new entry's place found by binary
/// search, and the list rebuilt in one pass of moves.
fn flat_merge(list: &mut Vec<Entry>, mut fresh: Vec<Entry>) {
    let order = |a: &Entry, b: &Entry| {
        b.updated_ms
            .cmp(&a.updated_ms)
            .then_with(|| a.session.name.cmp(&b.session.name))
            .then_with(|| a.id.cmp(&b.id))
    };
    fresh.sort_unstable_by(order);
    let cuts: Vec<usize> = fresh
        .iter()
        .map(|new| list.partition_point(|e| order(e, new) == std::cmp::Ordering::Less))
        .collect();
    let mut old = std::mem::take(list).into_iter();
    let mut merged = Vec::with_capacity(old.len() + fresh.len());
    let mut at = 0;
    for (cut, entry) in cuts.into_iter().zip(fresh) {
        merged.extend(old.by_ref().take(cut - at));
        at = cut;
        merged.push(entry);
    }
    merged.extend(old);
    *list = merged;
}

/// [`batches_time`] for the flat list.
fn flat_time(stored: &[Entry], rounds: usize) -> Duration {
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let mut list = stored.to_vec();
            list.sort_unstable_by(|a, b| {
                b.updated_ms
                    .cmp(&a.updated_ms)
                    .then_with(|| a.session.name.cmp(&b.session.name))
                    .then_with(|| a.id.cmp(&b.id))
            });
            let batches = batches();
            let start = Instant::now();
            for batch in batches {
                let fresh = batch
                    .into_iter()
                    .map(|(id, session, _)| Entry {
                        id,
                        session,
                        updated_ms: 2_000,
                        revision: 1,
                        origin: None,
                        counted_in: None,
                    })
                    .collect();
                flat_merge(&mut list, fresh);
            }
            let elapsed = start.elapsed();
            black_box(list.len());
            elapsed
        })
        .collect();
    times.sort();
    times[rounds / 2]
}

/// Adding 10 batches of 100 into 1,000 and 30,000 sessions, chunked and flat, interleaved.
fn batches_bench() {
    let (small, large) = (filled(1_000), filled(30_000));
    let mut lines = Vec::new();
    for (label, stored) in [("1,000", &small), ("30,000", &large)] {
        let chunked = batches_time(stored, 7);
        let flat = flat_time(stored, 7);
        lines.push((label, chunked, flat));
    }
    for (label, chunked, flat) in &lines {
        println!(
            "10 batches of 100 into {label} sessions: chunked list (now) {chunked:?}, flat list (before) {flat:?}: flat / chunked = {:.1}",
            flat.as_secs_f64() / chunked.as_secs_f64()
        );
    }
    println!(
        "from 1,000 to 30,000 sessions: the chunked list's time grows {:.2}x, the flat list's {:.2}x",
        lines[1].1.as_secs_f64() / lines[0].1.as_secs_f64(),
        lines[1].2.as_secs_f64() / lines[0].2.as_secs_f64()
    );
}

fn main() {
    batches_bench();
    let small = envelope(1_000);
    let large = envelope(10_000);
    // Interleaved, so that a burst of load on the shared machine hits both sizes alike.
    let mut ratios = Vec::new();
    let (mut t_small, mut t_large) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..3 {
        t_small = import_time(&small, 5);
        t_large = import_time(&large, 3);
        ratios.push(t_large.as_secs_f64() / t_small.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "envelope import: 1,000 sessions ({} KB) {t_small:?}, 10,000 sessions ({} KB) {t_large:?}",
        small.len() / 1000,
        large.len() / 1000
    );
    println!(
        "time ratio 10,000 / 1,000 = {:.2} (median of 3 interleaved runs: {:.2?}; linear is 10, the bound {BOUND})",
        ratios[1], ratios
    );
    assert!(
        ratios[1] <= BOUND,
        "the import is not linear: 10,000 sessions took {:.2} times as long as 1,000 \
         ({t_large:?} against {t_small:?}; runs {ratios:.2?}), over the bound {BOUND}",
        ratios[1]
    );
}
