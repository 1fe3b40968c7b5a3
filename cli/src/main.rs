//! The command: parses the arguments, runs `compare` or `replay`, and says with its exit status
//! whether everything was read (0), something could not be read (2: named on stderr, the rest
//! went on), or nothing could run (1: a bad policy, an output that cannot be written).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use summary_memory::engine::corpus::{CorpusSettings, Prices};
use summary_memory_cli::run::Counting;
use summary_memory_cli::{Inputs, compare, policies, replay, table, write_csvs};

/// Compares summary-memory policies over a corpus of conversations: every file Inspect reads
/// (a directory recursively; JSON Lines of conversations streamed line by line), on every core.
#[derive(Parser)]
#[command(name = "summary-memory-cli", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every conversation under every policy: the per-policy table on stdout, and the page's
    /// CSVs (--csv for the table, --rows for one row per conversation and policy).
    Compare {
        #[command(flatten)]
        common: Common,
        /// Writes the per-policy table (totals, cost, median, p90, worst) as CSV.
        #[arg(long, value_name = "FILE")]
        csv: Option<PathBuf>,
        /// Writes one row per conversation and policy as CSV.
        #[arg(long, value_name = "FILE")]
        rows: Option<PathBuf>,
        /// Tokens each summary is assumed to hold in the dry run.
        #[arg(long, default_value_t = CorpusSettings::default().summary_tokens)]
        summary_tokens: u32,
        /// The dry run only: no extractive replay, no offline checks (many times faster).
        #[arg(long)]
        no_replay: bool,
        /// Price of the chat model's input, per million tokens.
        #[arg(long, default_value_t = Prices::default().chat_in_per_mtok)]
        price_chat_in: f64,
        /// Price of the summariser's input, per million tokens.
        #[arg(long, default_value_t = Prices::default().summary_in_per_mtok)]
        price_summary_in: f64,
        /// Price of the summariser's output, per million tokens.
        #[arg(long, default_value_t = Prices::default().summary_out_per_mtok)]
        price_summary_out: f64,
    },
    /// Every conversation replayed under every policy with the built-in extractive summariser,
    /// each written into --out as a session file that Inspect opens.
    Replay {
        #[command(flatten)]
        common: Common,
        /// The directory the session files are written into (created if need be).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
}

#[derive(Args)]
struct Common {
    /// Files or directories (read recursively: *.json, *.jsonl, *.ndjson).
    #[arg(required = true, value_name = "FILES")]
    paths: Vec<PathBuf>,
    /// A policy: "yours" (the app's starting policy), a peer preset's slug, or a JSON file of a
    /// policy as a session file stores it. Repeat for each column.
    #[arg(long = "policy", required = true, value_name = "POLICY")]
    policies: Vec<String>,
    /// Threads; all cores by default.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// The model's context window in tokens (requests over it are counted; the presets are
    /// sized to it).
    #[arg(long, default_value_t = CorpusSettings::default().window)]
    window: u32,
    /// How tokens are counted: o200k_base, cl100k_base, or words.
    #[arg(long, default_value = "o200k_base")]
    encoding: String,
}

impl Common {
    fn inputs(&self) -> Result<Inputs, String> {
        Ok(Inputs {
            paths: self.paths.clone(),
            columns: policies::columns(&self.policies, self.window)?,
            counting: Counting::named(&self.encoding)?,
            jobs: self
                .jobs
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        })
    }
}

fn main() -> ExitCode {
    match execute(Cli::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(2),
        Err(e) => {
            eprintln!("summary-memory-cli: {e}");
            ExitCode::from(1)
        }
    }
}

/// Runs the command: `Ok(true)` when every input was read, `Ok(false)` when some was not.
fn execute(cli: Cli) -> Result<bool, String> {
    match cli.command {
        Command::Compare {
            common,
            csv,
            rows,
            summary_tokens,
            no_replay,
            price_chat_in,
            price_summary_in,
            price_summary_out,
        } => {
            let inputs = common.inputs()?;
            let settings = CorpusSettings {
                window: common.window,
                summary_tokens,
                replay: !no_replay,
            };
            let prices = Prices {
                chat_in_per_mtok: price_chat_in,
                summary_in_per_mtok: price_summary_in,
                summary_out_per_mtok: price_summary_out,
            };
            let compared = compare(&inputs, &settings)?;
            write_csvs(&compared, &prices, csv.as_deref(), rows.as_deref())?;
            print!("{}", table(&compared.summaries, &prices));
            let o = &compared.outcome;
            eprintln!(
                "summary-memory-cli: {} conversations under {} policies; {} could not be read",
                o.conversations,
                inputs.columns.len(),
                o.problems.len()
            );
            Ok(o.problems.is_empty())
        }
        Command::Replay { common, out } => {
            let inputs = common.inputs()?;
            let (written, outcome) = replay(&inputs, &out)?;
            eprintln!(
                "summary-memory-cli: {} session files written into {} from {} conversations; {} could not be read",
                written.len(),
                out.display(),
                outcome.conversations,
                outcome.problems.len()
            );
            Ok(outcome.problems.is_empty())
        }
    }
}
