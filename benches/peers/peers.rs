//! Our o200k_base counting against three other Rust tokenizers, measured in the same process on
//! the bench corpora (benches/corpora/corpora.json: English prose, code, CJK, Hindi, emoji):
//! tiktoken-rs 0.12 (the reference the exactness tests use), github's `bpe-openai` 0.3
//! (rust-gems' linear-time BPE) and the `tiktoken` crate 4.x (hand-written pre-tokenisers, a
//! vocabulary layered by key length, a whole-piece memo). Criterion times each; then a table
//! prints the median of three interleaved timings and our time as a fraction of each peer's.
//! Every count is checked against tiktoken-rs's, and a count that differs fails the run.
//!
//! A package of its own (its own workspace and lock file) because both peers embed their
//! vocabularies, and bpe-openai's build script builds three of them: as dev-dependencies of the
//! app they would cost every debug build of it minutes and 70 MB. Run it from the repository
//! root: `cargo bench --manifest-path benches/peers/Cargo.toml`
//! (`SM_BENCH_PEERS_ONLY=1` skips criterion and prints only the table).

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use summary_memory::tokens::{Encoding, TokenCounter};

fn loaded() -> TokenCounter {
    let counter = TokenCounter::default();
    counter
        .load(Encoding::O200kBase)
        .expect("the embedded vocabulary parses");
    counter
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
    start.elapsed() / rounds.max(1)
}

/// The five bench corpora of benches/corpora/corpora.json (written by `make.py` there).
fn bench_corpora() -> Vec<(String, String)> {
    #[derive(serde::Deserialize)]
    struct Entry {
        name: String,
        text: String,
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpora/corpora.json");
    let json = std::fs::read_to_string(&path).expect("the bench corpora are readable");
    let entries: Vec<Entry> = serde_json::from_str(&json).expect("the bench corpora are valid");
    entries.into_iter().map(|e| (e.name, e.text)).collect()
}

/// One way of counting o200k_base tokens, named for the table.
struct Peer {
    name: &'static str,
    count: Box<dyn Fn(&str) -> usize>,
}

/// Ours (per-piece cache kept between rounds, and emptied before each) and the three peers.
fn peers() -> Vec<Peer> {
    let ours = std::rc::Rc::new(loaded());
    let cold = ours.clone();
    let tiktoken4 = tiktoken::get_encoding("o200k_base").expect("tiktoken has o200k_base");
    vec![
        Peer {
            name: "ours (warm)",
            count: Box::new(move |t| {
                ours.count_uncached(Encoding::O200kBase, t)
                    .value()
                    .unwrap_or(0) as usize
            }),
        },
        Peer {
            name: "ours (cold)",
            count: Box::new(move |t| {
                cold.clear_cache();
                cold.count_uncached(Encoding::O200kBase, t)
                    .value()
                    .unwrap_or(0) as usize
            }),
        },
        Peer {
            name: "tiktoken-rs 0.12",
            count: Box::new(|t| tiktoken_rs::o200k_base_singleton().encode_ordinary(t).len()),
        },
        Peer {
            name: "bpe-openai 0.3",
            count: Box::new(|t| bpe_openai::o200k_base().count(t)),
        },
        Peer {
            name: "tiktoken 4",
            count: Box::new(move |t| tiktoken4.count(t)),
        },
    ]
}

fn peer_counting(c: &mut Criterion) {
    let mut group = c.benchmark_group("peers");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(2));
    for (name, text) in bench_corpora() {
        group.throughput(Throughput::Bytes(text.len() as u64));
        for peer in peers() {
            group.bench_function(BenchmarkId::new(peer.name, &name), |b| {
                b.iter(|| black_box((peer.count)(&text)))
            });
        }
    }
    group.finish();
}

/// The median of three interleaved timings of each peer on each corpus, and our time as a
/// fraction of each peer's: below 1.0 means ours counts faster. Token counts must agree.
fn print_peer_ratios() {
    let peers = peers();
    println!("
o200k_base, time per corpus (median of 3 interleaved runs of about 0.3 s):");
    let names: Vec<&str> = peers.iter().map(|p| p.name).collect();
    println!("  {:<14} {}", "corpus", names.join(" | "));
    let mut mismatches = Vec::new();
    for (name, text) in bench_corpora() {
        let counts: Vec<usize> = peers.iter().map(|p| (p.count)(&text)).collect();
        let mut times = vec![Vec::new(); peers.len()];
        for _ in 0..3 {
            for (i, peer) in peers.iter().enumerate() {
                times[i].push(time_for(Duration::from_millis(300), || {
                    black_box((peer.count)(&text));
                }));
            }
        }
        let medians: Vec<Duration> = times
            .into_iter()
            .map(|mut t| {
                t.sort();
                t[1]
            })
            .collect();
        let cells: Vec<String> = medians.iter().map(|d| format!("{d:.1?}")).collect();
        println!("  {name:<14} {}", cells.join(" | "));
        let ratio = |ours: usize, peer: usize| {
            medians[ours].as_secs_f64() / medians[peer].as_secs_f64()
        };
        println!(
            "  {:<14} warm ours / tiktoken-rs {:.3}, / bpe-openai {:.3}, / tiktoken 4 {:.3}; \
             cold ours / bpe-openai {:.3}",
            "",
            ratio(0, 2),
            ratio(0, 3),
            ratio(0, 4),
            ratio(1, 3)
        );
        if counts.iter().any(|&n| n != counts[2]) {
            println!("  {:<14} token counts differ: {counts:?}", "");
            mismatches.push(format!("{name}: {names:?} counted {counts:?}"));
        } else {
            println!("  {:<14} every count is {} tokens", "", counts[2]);
        }
    }
    // The table is printed whole first, so that every mismatch is seen, then the run fails:
    // a tokenizer that counts differently is a bug, not a figure.
    assert!(
        mismatches.is_empty(),
        "token counts differ from tiktoken-rs's: {mismatches:#?}"
    );
}


fn main() {
    if std::env::var_os("SM_BENCH_PEERS_ONLY").is_none() {
        let mut c = Criterion::default().configure_from_args();
        peer_counting(&mut c);
        c.final_summary();
    }
    print_peer_ratios();
}
