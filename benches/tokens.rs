//! Native token-counting benchmarks: vocabulary load time, throughput on the exactness corpus with
//! and without the cache, and the adversarial inputs that must stay bounded.
//!
//! Run with `cargo bench --bench tokens`. Besides criterion's report it prints the cached /
//! uncached time ratio measured in the same run. Our counting against other Rust tokenizers,
//! per bench corpus, is `benches/peers` (a package of its own, so that their embedded
//! vocabularies never reach this crate's builds).

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use summary_memory::tokens::{Encoding, TokenCounter};

/// The texts of tests/tokenizer-oracle/corpus.json.
fn corpus() -> Vec<String> {
    #[derive(serde::Deserialize)]
    struct Entry {
        text: String,
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tokenizer-oracle/corpus.json");
    let json = std::fs::read_to_string(&path).expect("the corpus file is readable");
    let entries: Vec<Entry> = serde_json::from_str(&json).expect("the corpus file is valid");
    entries.into_iter().map(|e| e.text).collect()
}

fn loaded() -> TokenCounter {
    let counter = TokenCounter::default();
    for encoding in Encoding::ALL {
        counter
            .load(encoding)
            .expect("the embedded vocabulary parses");
    }
    counter
}

fn adversarial() -> Vec<(&'static str, String)> {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let base64: String = (0..200_000u32)
        .map(|i| alphabet[((i.wrapping_mul(2_654_435_761) >> 7) % 64) as usize] as char)
        .collect();
    vec![
        ("1 MB of a", "a".repeat(1 << 20)),
        ("1 MB of ^", "^".repeat(1 << 20)),
        ("200 KB of base64", base64),
        ("1 MB of spaces then x", " ".repeat(1 << 20) + "x"),
    ]
}

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("load");
    group.sample_size(10);
    for encoding in Encoding::ALL {
        group.bench_function(encoding.name(), |b| {
            b.iter(|| {
                let counter = TokenCounter::new(encoding);
                counter
                    .load(encoding)
                    .expect("the embedded vocabulary parses");
                black_box(counter)
            })
        });
    }
    group.finish();
}

fn corpus_counting(c: &mut Criterion) {
    let texts = corpus();
    let bytes: usize = texts.iter().map(String::len).sum();
    let counter = loaded();
    let mut group = c.benchmark_group("corpus");
    group.throughput(Throughput::Bytes(bytes as u64));
    for encoding in Encoding::ALL {
        group.bench_function(BenchmarkId::new("uncached", encoding), |b| {
            b.iter(|| {
                for text in &texts {
                    black_box(counter.count_uncached(encoding, text));
                }
            })
        });
        group.bench_function(BenchmarkId::new("cached", encoding), |b| {
            b.iter(|| {
                for text in &texts {
                    black_box(counter.count_with(encoding, text));
                }
            })
        });
    }
    group.finish();
}

fn adversarial_counting(c: &mut Criterion) {
    let counter = loaded();
    let mut group = c.benchmark_group("adversarial");
    group.sample_size(10);
    for (name, text) in adversarial() {
        group.throughput(Throughput::Bytes(text.len() as u64));
        for encoding in Encoding::ALL {
            group.bench_function(BenchmarkId::new(name, encoding), |b| {
                b.iter(|| black_box(counter.count_uncached(encoding, &text)))
            });
        }
    }
    group.finish();
}

/// Times `f` over enough rounds to take about half a second.
fn time_per_round(f: impl FnMut()) -> Duration {
    time_for(Duration::from_millis(500), f)
}

/// Times `f` over enough rounds to take `budget`, after one untimed round.
fn time_for(budget: Duration, mut f: impl FnMut()) -> Duration {
    f();
    let start = Instant::now();
    let mut rounds = 0u32;
    while start.elapsed() < budget {
        f();
        rounds += 1;
    }
    start.elapsed() / rounds
}

/// Prints, for each encoding, the cached and uncached time of counting the whole corpus once and
/// their ratio, so the cache's benefit is measured on the same machine in the same run.
fn print_cache_ratio() {
    let texts = corpus();
    let counter = loaded();
    println!("\ncache ratio on the corpus ({} texts):", texts.len());
    for encoding in Encoding::ALL {
        let uncached = time_per_round(|| {
            for text in &texts {
                black_box(counter.count_uncached(encoding, text));
            }
        });
        let cached = time_per_round(|| {
            for text in &texts {
                black_box(counter.count_with(encoding, text));
            }
        });
        println!(
            "  {encoding}: uncached {uncached:?}, cached {cached:?}, cached / uncached = {:.4}",
            cached.as_secs_f64() / uncached.as_secs_f64()
        );
    }
    println!("\nadversarial inputs, one uncached count each:");
    for (name, text) in adversarial() {
        for encoding in Encoding::ALL {
            let start = Instant::now();
            let count = counter.count_uncached(encoding, &text);
            println!("  {name} ({encoding}): {count:?} in {:?}", start.elapsed());
        }
    }
}

criterion_group!(benches, load, corpus_counting, adversarial_counting);

fn main() {
    benches();
    print_cache_ratio();
    Criterion::default().configure_from_args().final_summary();
}
