//! `summary-memory-cli`, the corpus comparison on the command line: the same core as Inspect's
//! corpus table ([`summary_memory::engine::corpus`]) over files and directories, on every
//! core. `compare` writes the page's two CSVs; `replay` writes each conversation replayed under
//! each policy as a session file Inspect opens.
//!
//! The shell is here (files, threads, the terminal); every decision is the core's.

pub mod input;
pub mod policies;
pub mod read;
pub mod run;

use std::path::{Path, PathBuf};

use summary_memory::engine::corpus::{
    Column, CorpusSettings, Metric, Prices, Row, Summary, measure, rows_csv, sort_rows, summarise,
    summary_csv,
};
use summary_memory::engine::library_session::Session;
use summary_memory::engine::replay::replay_offline;
use summary_memory::engine::session;

use input::{Problem, sources};
use run::{Counting, Done, Progress, run};

/// What every command reads: the inputs, the policies and how to run.
pub struct Inputs {
    pub paths: Vec<PathBuf>,
    pub columns: Vec<Column>,
    pub counting: Counting,
    /// Threads in the pool.
    pub jobs: usize,
}

/// What a run found besides its output: how many conversations, and what could not be read.
pub struct Outcome {
    pub conversations: u64,
    pub problems: Vec<Problem>,
}

/// What `compare` produced.
pub struct Compared {
    pub rows: Vec<Row>,
    pub summaries: Vec<Summary>,
    pub outcome: Outcome,
}

/// Every conversation of the inputs under every column, sorted as the page sorts them.
/// Problems are printed on stderr as they are found (`report`), and returned.
pub fn compare(inputs: &Inputs, settings: &CorpusSettings) -> Result<Compared, String> {
    let Started {
        sources,
        mut problems,
        progress,
        pool,
    } = start(inputs)?;
    let mut rows = Vec::new();
    let (mut unmeasured, mut unread) = (Vec::new(), Vec::new());
    let conversations = run(
        &sources,
        &pool,
        &inputs.counting,
        &progress,
        |session, counter| {
            measure("", 0, session, &inputs.columns, settings, counter).map_err(|e| e.reason)
        },
        |done: Done<Result<Vec<Row>, String>>| match done.value {
            Ok(measured) => rows.extend(measured.into_iter().map(|mut row| {
                row.source = sources[done.source].name.clone();
                row.index = done.index;
                row.conversation = done.name.clone();
                row
            })),
            Err(reason) => {
                let p = Problem {
                    place: format!(
                        "{} [{}] {:?}",
                        sources[done.source].name, done.index, done.name
                    ),
                    reason,
                };
                progress.println(report(&p));
                unmeasured.push(p);
            }
        },
        |p| {
            progress.println(report(&p));
            unread.push(p);
        },
    );
    progress.finish();
    problems.extend(unread);
    problems.extend(unmeasured);
    sort_rows(&mut rows, &inputs.columns);
    let summaries = summarise(&rows, &inputs.columns);
    Ok(Compared {
        rows,
        summaries,
        outcome: Outcome {
            conversations,
            problems,
        },
    })
}

/// Replays every conversation of the inputs under every column with the extractive summariser
/// and writes each replay into `out` as a session file, named
/// `<source>-<index>-<policy>.json`. Returns the files written and the outcome.
pub fn replay(inputs: &Inputs, out: &Path) -> Result<(Vec<PathBuf>, Outcome), String> {
    std::fs::create_dir_all(out)
        .map_err(|e| format!("{}: cannot be created: {e}", out.display()))?;
    let Started {
        sources,
        mut problems,
        progress,
        pool,
    } = start(inputs)?;
    let mut written = Vec::new();
    let (mut unreplayed, mut unread) = (Vec::new(), Vec::new());
    let mut fatal = None;
    let columns = &inputs.columns;
    let created_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let conversations = run(
        &sources,
        &pool,
        &inputs.counting,
        &progress,
        |session, counter| {
            columns
                .iter()
                .map(|c| {
                    replay_offline(session, c.policy.clone(), counter, "")
                        .map_err(|e| e.to_string())
                })
                .collect::<Vec<Result<Session, String>>>()
        },
        |done: Done<Vec<Result<Session, String>>>| {
            let source = &sources[done.source].name;
            for (column, replayed) in columns.iter().zip(done.value) {
                let mut session = match replayed {
                    Ok(s) => s,
                    Err(reason) => {
                        let p = Problem {
                            place: format!(
                                "{source} [{}] {:?} under {}",
                                done.index, done.name, column.id
                            ),
                            reason,
                        };
                        progress.println(report(&p));
                        unreplayed.push(p);
                        continue;
                    }
                };
                match write_replayed(
                    out,
                    source,
                    done.index,
                    &done.name,
                    column,
                    &mut session,
                    created_ms,
                ) {
                    Ok(file) => written.push(file),
                    Err(e) => {
                        fatal.get_or_insert(e);
                    }
                }
            }
        },
        |p| {
            progress.println(report(&p));
            unread.push(p);
        },
    );
    progress.finish();
    if let Some(fatal) = fatal {
        return Err(fatal);
    }
    problems.extend(unread);
    problems.extend(unreplayed);
    Ok((
        written,
        Outcome {
            conversations,
            problems,
        },
    ))
}

/// Writes `session`, conversation `index` of `source` (named `name`) replayed under `column`, into `out` as a
/// session file named `<source>-<index>-<policy>.json` and renamed "… (replayed under …)";
/// returns the file written.
pub fn write_replayed(
    out: &Path,
    source: &str,
    index: u32,
    name: &str,
    column: &Column,
    session: &mut Session,
    created_ms: u64,
) -> Result<PathBuf, String> {
    session.name = format!("{name} (replayed under {})", column.label);
    let file = out.join(format!(
        "{}-{}-{}.json",
        file_safe(source),
        index,
        file_safe(&column.id)
    ));
    let text = session::export(session, created_ms, env!("CARGO_PKG_VERSION"));
    std::fs::write(&file, text)
        .map_err(|e| format!("{}: cannot be written: {e}", file.display()))?;
    Ok(file)
}

/// Every column on each of `conversations` (source, index, session) on `pool`, each row named
/// by its conversation's source and index as `compare` names it; the rows in input order (sort them with
/// [`sort_rows`] as every CSV is), or why the first that failed could not be measured.
pub fn measure_named(
    conversations: &[(&str, u32, &Session)],
    columns: &[Column],
    settings: &CorpusSettings,
    counting: &Counting,
    pool: &rayon::ThreadPool,
) -> Result<Vec<Row>, summary_memory::engine::corpus::CorpusError> {
    use rayon::prelude::*;
    let measured: Vec<Vec<Row>> = pool.install(|| {
        conversations
            .par_iter()
            .map(|&(source, index, session)| {
                counting.with(|counter| measure(source, index, session, columns, settings, counter))
            })
            .collect::<Result<_, _>>()
    })?;
    Ok(measured.into_iter().flatten().collect())
}

/// A problem as stderr shows it.
pub fn report(problem: &Problem) -> String {
    format!("summary-memory-cli: {problem}")
}

/// The table `compare` prints: one line per policy with its totals and cost, then the worst
/// conversation per metric.
pub fn table(summaries: &[Summary], prices: &Prices) -> String {
    let mut out = format!(
        "{:<28} {:>6} {:>8} {:>14} {:>10} {:>6} {:>6} {:>6} {:>6} {:>10}\n",
        "policy",
        "convs",
        "calls",
        "tokens sent",
        "largest",
        "over",
        "facts",
        "rules",
        "unsrc",
        "cost"
    );
    for s in summaries {
        let t = &s.totals;
        out.push_str(&format!(
            "{:<28} {:>6} {:>8} {:>14} {:>10} {:>6} {:>6} {:>6} {:>6} {:>10.4}\n",
            s.policy,
            t.conversations,
            t.summariser_calls,
            t.tokens_sent(),
            t.largest_request,
            t.over_window,
            t.facts_lost,
            t.rules_lost,
            t.unsourced_figures,
            prices.cost_totals(t)
        ));
    }
    for s in summaries {
        for metric in [Metric::TokensSent, Metric::FactsLost] {
            if let Some(d) = s.of(metric)
                && let Some((source, index, name)) = &d.worst_at
            {
                out.push_str(&format!(
                    "{}: {} median {}, p90 {}, worst {} ({source} [{index}] {name:?})\n",
                    s.policy,
                    metric.label(),
                    d.median,
                    d.p90,
                    d.worst
                ));
            }
        }
    }
    out
}

/// Writes the CSVs that were asked for.
pub fn write_csvs(
    compared: &Compared,
    prices: &Prices,
    csv: Option<&Path>,
    rows: Option<&Path>,
) -> Result<(), String> {
    let write = |path: &Path, text: String| {
        std::fs::write(path, text)
            .map_err(|e| format!("{}: cannot be written: {e}", path.display()))
    };
    if let Some(path) = csv {
        write(path, summary_csv(&compared.summaries, prices))?;
    }
    if let Some(path) = rows {
        write(path, rows_csv(&compared.rows))?;
    }
    Ok(())
}

/// What `compare` and `replay` start from: the inputs' files, the problems found listing them
/// (already printed), the progress bar over the files and the pool of `--jobs` threads.
struct Started {
    sources: Vec<input::Source>,
    problems: Vec<Problem>,
    progress: Progress,
    pool: rayon::ThreadPool,
}

fn start(inputs: &Inputs) -> Result<Started, String> {
    let (sources, problems) = sources(&inputs.paths);
    let progress = Progress::new(&sources);
    for p in &problems {
        progress.println(report(p));
    }
    let pool = pool(inputs.jobs)?;
    Ok(Started {
        sources,
        problems,
        progress,
        pool,
    })
}

/// A pool of `jobs` threads (at least one).
pub fn pool(jobs: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .map_err(|e| format!("the pool of {jobs} threads could not start: {e}"))
}

/// `name` with every character but letters, digits, `.`, `-` and `_` as `_`.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}
