//! The corpus comparison's limit, printed (never a timed test): conversations per second per
//! core, and the scaling from one thread to every core as a ratio, for
//! - the dry run: 10,000 generated conversations of 50 turns under the 8 peer presets;
//! - the extractive replay with the offline checks, the same way on fewer conversations;
//! - the whole command (`compare`: reading a JSON Lines file line by line, counting every
//!   message with o200k_base, the dry run), on a generated file;
//! - the hand-over to a corpus worker: the page's old way (each session's export text, which
//!   the worker imports, recounting every message) against the lean form the pool sends
//!   (`app::corpus::lean`, postcard), read with the page's counts kept (a session the library
//!   counted exactly in the run's encoding) and with the worker counting them (one it did
//!   not), each worker-side reading with a counter of its own that has counted none of the
//!   texts, as a worker's has not; and the worker's time a conversation (reading and the dry
//!   run) both ways, as a ratio. All beside the dry run's own time per conversation.
//!
//! Run with `cargo bench -p summary-memory-cli --bench corpus`. `SM_BENCH_CONVERSATIONS`,
//! `SM_BENCH_REPLAYS`, `SM_BENCH_HANDOVER` and `SM_BENCH_LINES` change the sizes.

use std::time::Instant;

use rayon::prelude::*;
use summary_memory::app::corpus::lean::Lean;
use summary_memory::engine::corpus::{Column, CorpusSettings, Row, measure};
use summary_memory::engine::library_session::{Session, SessionSettings};
use summary_memory::engine::memory::MemoryState;
use summary_memory::engine::message::{Message, Role, WordCounter};
use summary_memory::engine::policy::{Policy, Trigger};
use summary_memory::engine::session::{export_compact, import};
use summary_memory::tokens::{Encoding, TokenCounter};
use summary_memory_cli::run::Counting;
use summary_memory_cli::{Inputs, compare};

const TURNS: u32 = 50;
/// A window the presets fold in over 50 turns, so every policy does its work.
const WINDOW: u32 = 4_000;

fn main() {
    let size = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("corpus bench on {cores} cores (std::thread::available_parallelism)");
    let columns = Column::presets(WINDOW);
    assert_eq!(columns.len(), 8);

    let n = size("SM_BENCH_CONVERSATIONS", 10_000);
    let started = Instant::now();
    let sessions: Vec<Session> = (0..n).map(conversation).collect();
    println!(
        "generated {n} conversations of {TURNS} turns in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let dry = CorpusSettings {
        window: WINDOW,
        summary_tokens: 150,
        replay: false,
    };
    report("dry run", &sessions, &columns, &dry, cores);

    let replays = size("SM_BENCH_REPLAYS", 300).min(n);
    let replay = CorpusSettings {
        replay: true,
        ..dry
    };
    report(
        "extractive replay + checks",
        &sessions[..replays],
        &columns,
        &replay,
        cores,
    );
    handover(
        &sessions[..size("SM_BENCH_HANDOVER", 2_000).min(n)],
        &columns,
        &dry,
    );
    drop(sessions);

    command(size("SM_BENCH_LINES", 2_000), cores);
}

/// The two hand-overs of a corpus worker, timed on one thread over `sessions`, each side
/// (the page's writing, the worker's reading) as microseconds a conversation, beside the dry
/// run's measure; checks that both forms measure to the same rows.
fn handover(sessions: &[Session], columns: &[Column], settings: &CorpusSettings) {
    let counting = Counting::named("o200k_base").expect("a known encoding");
    counting.with(|counter| {
        // The sessions as the page's library holds them: counted with the encoding the run
        // uses (the generated ones are counted a token a word).
        let sessions: Vec<Session> = sessions
            .iter()
            .map(|s| {
                let text = export_compact(s, 0, "");
                import(text.as_bytes(), counter).expect("an export imports")
            })
            .collect();
        let n = sessions.len() as f64;
        let micros = |started: Instant| started.elapsed().as_secs_f64() * 1e6 / n;

        let started = Instant::now();
        let texts: Vec<String> = sessions.iter().map(|s| export_compact(s, 0, "")).collect();
        let write_text = micros(started);
        // Each worker-side reading counts with a counter of its own, as a worker's is: loaded,
        // but holding none of these texts in its cache (the page's counter, which counted them
        // above, would answer every message from its cache).
        let worker = worker_counter();
        let started = Instant::now();
        let from_text: Vec<Session> = texts
            .iter()
            .map(|t| import(t.as_bytes(), &worker).expect("an export imports"))
            .collect();
        let read_text = micros(started);

        // The lean form (app::corpus::lean), as the pool writes it: its counts vouched for in
        // the run's encoding, which the worker keeps (a session the library counted exactly in
        // it), or not (one counted before the vocabulary arrived, or in another encoding),
        // which the worker then counts.
        let started = Instant::now();
        let binaries: Vec<Vec<u8>> = sessions
            .iter()
            .map(|s| Lean::of(s, Some("o200k_base")).to_bytes())
            .collect();
        let write_binary = micros(started);
        let worker = worker_counter();
        let started = Instant::now();
        let from_binary: Vec<Session> = binaries
            .iter()
            .map(|b| {
                let lean = Lean::from_bytes(b).expect("it decodes");
                lean.session("o200k_base", &worker).expect("it reads")
            })
            .collect();
        let read_binary = micros(started);
        let unvouched: Vec<Vec<u8>> = sessions
            .iter()
            .map(|s| Lean::of(s, None).to_bytes())
            .collect();
        let worker = worker_counter();
        let started = Instant::now();
        let from_unvouched: Vec<Session> = unvouched
            .iter()
            .map(|b| {
                let lean = Lean::from_bytes(b).expect("it decodes");
                lean.session("o200k_base", &worker).expect("it reads")
            })
            .collect();
        let read_unvouched = micros(started);

        let started = Instant::now();
        let rows_text: Vec<Row> = from_text
            .iter()
            .enumerate()
            .flat_map(|(i, s)| measure("bench", i as u32, s, columns, settings, counter).unwrap())
            .collect();
        let measure_one = micros(started);
        let rows_binary: Vec<Row> = from_binary
            .iter()
            .enumerate()
            .flat_map(|(i, s)| measure("bench", i as u32, s, columns, settings, counter).unwrap())
            .collect();
        assert_eq!(rows_text, rows_binary, "both forms measure to the same rows");
        let rows_unvouched: Vec<Row> = from_unvouched
            .iter()
            .enumerate()
            .flat_map(|(i, s)| measure("bench", i as u32, s, columns, settings, counter).unwrap())
            .collect();
        assert_eq!(rows_text, rows_unvouched, "and counted by the worker");

        let text_bytes: usize = texts.iter().map(String::len).sum();
        let binary_bytes: usize = binaries.iter().map(Vec::len).sum();
        println!(
            "hand-over, {} conversations of {TURNS} turns, one thread, o200k_base, µs a conversation:",
            sessions.len()
        );
        println!(
            "  export text:  {:>7.0} bytes, page writes {write_text:>6.1}, worker imports (and recounts) {read_text:>7.1}",
            text_bytes as f64 / n
        );
        println!(
            "  lean form:    {:>7.0} bytes, page writes {write_binary:>6.1}, worker reads (counts kept) {read_binary:>7.1}, (counts not vouched for, counted) {read_unvouched:>7.1}; kept / counted {:.2}",
            binary_bytes as f64 / n,
            read_binary / read_unvouched
        );
        println!(
            "  ratios text / lean (counts kept): size {:.2}, page {:.2}, worker {:.2}; the dry run's measure under {} policies: {measure_one:.1} µs, so the worker's reading is {:.0}% of its time as text, {:.0}% lean with the counts kept and {:.0}% lean counted by the worker",
            text_bytes as f64 / binary_bytes as f64,
            write_text / write_binary,
            read_text / read_binary,
            columns.len(),
            100.0 * read_text / (read_text + measure_one),
            100.0 * read_binary / (read_binary + measure_one),
            100.0 * read_unvouched / (read_unvouched + measure_one)
        );
        println!(
            "  the worker's time a conversation, reading and the dry run: the page's counts kept {:.1} µs, counted by the worker {:.1} µs; kept / counted {:.2}",
            read_binary + measure_one,
            read_unvouched + measure_one,
            (read_binary + measure_one) / (read_unvouched + measure_one)
        );
    });
}

/// A corpus worker's counter: o200k_base loaded, nothing counted yet.
fn worker_counter() -> TokenCounter {
    let counter = TokenCounter::new(Encoding::O200kBase);
    counter.load(Encoding::O200kBase).expect("o200k_base loads");
    counter
}

/// Times `measure` over `sessions` under `columns` on one thread and on `cores`, and prints
/// the rate per core and the scaling; checks that both runs gave the same rows.
fn report(
    what: &str,
    sessions: &[Session],
    columns: &[Column],
    settings: &CorpusSettings,
    cores: usize,
) {
    let time = |threads: usize| -> (f64, Vec<Row>) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        let started = Instant::now();
        let rows: Vec<Row> = pool.install(|| {
            sessions
                .par_iter()
                .enumerate()
                .flat_map_iter(|(i, s)| {
                    measure("bench", i as u32, s, columns, settings, &WordCounter)
                        .expect("a generated conversation measures")
                })
                .collect()
        });
        (started.elapsed().as_secs_f64(), rows)
    };
    let (one, rows_one) = time(1);
    let (all, rows_all) = time(cores);
    assert_eq!(rows_one, rows_all, "threads change no row");
    let n = sessions.len() as f64;
    println!(
        "{what}: {} conversations x {} policies: 1 thread {:.2} s ({:.0} conversations/s per core), {cores} threads {:.2} s; scaling {:.2}x of {cores} cores ({:.2} per core)",
        sessions.len(),
        columns.len(),
        one,
        n / one,
        all,
        one / all,
        one / all / cores as f64
    );
    println!(
        "{what}: a million conversations under {} policies: {:.0} min on one core, {:.0} min on {cores} cores",
        columns.len(),
        1e6 / (n / one) / 60.0,
        1e6 / (n / all) / 60.0
    );
}

/// The whole command on a generated JSON Lines file of `lines` conversations: read line by
/// line, every message counted with o200k_base, the dry run under the 8 presets.
fn command(lines: usize, cores: usize) {
    let dir = std::env::temp_dir().join(format!("sm-corpus-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let file = dir.join("corpus.jsonl");
    let mut text = String::new();
    for i in 0..lines {
        let mut messages = vec![
            serde_json::json!({"role": "system", "content": "You are a careful budgeting coach."}),
        ];
        for t in 0..TURNS as usize {
            let (user, assistant) = texts(i, t);
            messages.push(serde_json::json!({"role": "user", "content": user}));
            messages.push(serde_json::json!({"role": "assistant", "content": assistant}));
        }
        text.push_str(&serde_json::json!({ "messages": messages }).to_string());
        text.push('\n');
    }
    std::fs::write(&file, &text).expect("the scratch file is written");
    let counting = Counting::named("o200k_base").expect("a known encoding");
    let specs: Vec<String> = Column::presets(WINDOW).into_iter().map(|c| c.id).collect();
    let settings = CorpusSettings {
        window: WINDOW,
        summary_tokens: 150,
        replay: false,
    };
    let time = |jobs: usize| -> f64 {
        let inputs = Inputs {
            paths: vec![file.clone()],
            columns: summary_memory_cli::policies::columns(&specs, WINDOW).expect("presets"),
            counting: counting.clone(),
            jobs,
        };
        let started = Instant::now();
        let compared = compare(&inputs, &settings).expect("the command runs");
        assert_eq!(compared.outcome.conversations, lines as u64);
        started.elapsed().as_secs_f64()
    };
    // Each thread loads its own vocabulary once: a first run warms nothing shared, so both
    // timed runs pay the same.
    let one = time(1);
    let all = time(cores);
    println!(
        "command (read, count o200k_base, dry run): {lines} conversations ({:.1} MB) x 8 policies: 1 thread {:.2} s ({:.0} conversations/s per core), {cores} threads {:.2} s; scaling {:.2}x",
        text.len() as f64 / 1e6,
        one,
        lines as f64 / one,
        all,
        one / all
    );
    println!(
        "command: a million such conversations: {:.0} min on one core, {:.0} min on {cores} cores",
        1e6 / (lines as f64 / one) / 60.0,
        1e6 / (lines as f64 / all) / 60.0
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Turn `t` of conversation `i`: a question and a reply of about 20 and 30 words, with figures
/// and a rule for the checks.
fn texts(i: usize, t: usize) -> (String, String) {
    (
        format!(
            "Turn {t}: I never want crypto. Rent was {} and food {} this month; should I move {} into savings or the bond fund?",
            900 + (i * 7 + t * 13) % 400,
            200 + (i + t) % 90,
            50 + (i * 3 + t) % 120
        ),
        format!(
            "Keep rent near {} and move {} into savings first. You must keep the emergency fund at {} before the bond fund, and review food spending of {} next month.",
            900 + (i * 7 + t * 13) % 400,
            50 + (i * 3 + t) % 120,
            3000 + i % 500,
            200 + (i + t) % 90
        ),
    )
}

/// Conversation `i`: 50 turns, every message verbatim (nothing folded), counted a token a word.
fn conversation(i: usize) -> Session {
    let mut memory = unfolded("You are a careful budgeting coach.");
    for t in 0..TURNS as usize {
        let (user, assistant) = texts(i, t);
        for (role, text) in [(Role::User, user), (Role::Assistant, assistant)] {
            memory
                .add_message(Message::new(role, text, &WordCounter, t as u64))
                .expect("a manual trigger never folds on its own");
        }
    }
    Session::new(
        format!("Conversation {i}"),
        SessionSettings::default(),
        memory,
    )
}

/// An empty memory under a manual trigger, so that adding the messages folds nothing.
fn unfolded(system_prompt: &str) -> MemoryState {
    let policy = Policy::new(Trigger::Manual { keep: 4 }).expect("a valid manual trigger");
    MemoryState::new(system_prompt, policy).expect("a valid policy")
}
