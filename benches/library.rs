//! Session-library benchmark: importing one envelope of 1,000 sessions and one of 10,000 into an
//! empty [`Library`], and the ratio of the two times measured in the same run. A linear import
//! gives about 10; one that rescans and resorts the list after each session grows as the square
//! (about 100). The acceptance bound is 12: a median ratio above it fails the run (a panic with
//! the numbers), so the bound is enforced, not only printed.
//!
//! Run with `cargo bench --bench library`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use summary_memory::app::library::Library;
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

fn main() {
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
