//! Inspect's corpus comparison as the page draws it (its progress is every run's,
//! `view::run`): one table line per policy (totals and cost at the prices typed), the
//! distribution over the conversations with the worst one, and the chart's bars, all computed
//! from the run's summaries (the shell summarises one policy per task,
//! `engine::corpus::summarise`); the picker's import groups; and [`CorpusScreen`], everything
//! the section shows but the run's progress, from the form ([`CorpusForm`]), the library and the
//! run.

use crate::app::corpus::form::CorpusForm;
use crate::app::corpus::pick::{ImportGroup, imports};
use crate::app::library::Library;
use crate::engine::corpus::{Prices, Summary, YOURS};
use crate::engine::peers::PEER_PRESETS;
use crate::engine::run::{Progress, RunStatus};

/// One policy's line of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyLine {
    /// The column's id: the `data-policy` value.
    pub policy: String,
    pub label: String,
    pub calls: u64,
    pub chat_tokens: u64,
    pub summariser_tokens: u64,
    pub tokens_sent: u64,
    /// `1,234 (1,000 + 234)`: tokens sent, chat and summariser.
    pub sent: String,
    pub largest_request: u64,
    pub over_window: u64,
    /// The estimated cost at the prices typed, in dollars, two decimals.
    pub cost: String,
    pub facts_lost: u64,
    pub rules_lost: u64,
    pub unsourced_figures: u64,
    /// Per metric, the distribution over the conversations.
    pub spread: Vec<Spread>,
    /// The distribution's fold: `Yours: per conversation`.
    pub spread_title: String,
}

/// One metric over the conversations of one policy.
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    pub metric: &'static str,
    pub median: u64,
    pub p90: u64,
    pub worst: u64,
    /// The worst conversation: its source, its index there and its name.
    pub worst_at: Option<(String, u32, String)>,
}

/// One bar of the chart: tokens sent per policy, as a share of the largest.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub label: String,
    pub tokens: u64,
    /// Percent of the widest bar, 0 to 100.
    pub percent: f64,
    /// The bar's `style`: its width.
    pub style: String,
}

/// The table, the chart and the CSV of a run's rows.
#[derive(Clone, Debug, PartialEq)]
pub struct CorpusTable {
    pub lines: Vec<PolicyLine>,
    pub bars: Vec<Bar>,
    /// The sentence above a table of part of the corpus; `None` when it covers all of it.
    pub partial: Option<String>,
}

/// The table of a run's `summaries` (one per policy, of every conversation done), at `prices`.
pub fn table(summaries: &[Summary], prices: &Prices, progress: Progress) -> CorpusTable {
    let lines: Vec<PolicyLine> = summaries.iter().map(|s| line(s, prices)).collect();
    let widest = lines
        .iter()
        .map(|l| l.tokens_sent)
        .max()
        .unwrap_or(0)
        .max(1);
    let bars = lines
        .iter()
        .map(|l| Bar {
            label: l.label.clone(),
            tokens: l.tokens_sent,
            percent: l.tokens_sent as f64 * 100.0 / widest as f64,
            style: format!(
                "width: {:.1}%",
                l.tokens_sent as f64 * 100.0 / widest as f64
            ),
        })
        .collect();
    let partial = progress.total.filter(|&t| progress.done < t).map(|total| {
        format!(
            "Stopped: this table covers {} of the {} conversations, the ones done before Stop.",
            grouped(progress.done),
            grouped(total)
        )
    });
    CorpusTable {
        lines,
        bars,
        partial,
    }
}

/// The picker's words for one import: `All 1,000 from sharegpt.json, imported 08:31`, in the
/// local time of `offset_minutes` east of UTC, with the date when it was not on the day of
/// `now_ms`.
pub fn import_label(group: &ImportGroup, now_ms: u64, offset_minutes: i32) -> String {
    let local = |ms: u64| {
        let offset = time::UtcOffset::from_whole_seconds(offset_minutes.saturating_mul(60))
            .unwrap_or(time::UtcOffset::UTC);
        time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
            .map(|t| t.to_offset(offset))
            .ok()
    };
    let when = match (local(group.imported_ms), local(now_ms)) {
        (Some(at), Some(now)) => {
            let clock = format!("{:02}:{:02}", at.hour(), at.minute());
            if at.date() == now.date() {
                clock
            } else {
                format!(
                    "{}-{:02}-{:02} {clock}",
                    at.year(),
                    u8::from(at.month()),
                    at.day()
                )
            }
        }
        _ => "at an unknown time".to_owned(),
    };
    let all = if group.count == 1 {
        "The 1 session".to_owned()
    } else {
        format!("All {}", grouped(group.count as u64))
    };
    format!("{all} from {}, imported {when}", group.file)
}

pub use super::run::grouped;

/// One import in the picker: its key and its words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportOption {
    pub key: String,
    pub label: String,
}

/// A policy's checkbox: [`YOURS`] or a peer preset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyOption {
    pub id: &'static str,
    pub label: &'static str,
    pub ticked: bool,
}

/// A number field of the form: the context window or a price.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumberShown {
    /// Its name in [`crate::app::corpus::form::NUMBER_FIELDS`], for the edit.
    pub name: &'static str,
    pub label: &'static str,
    /// Its `data-testid`, for the fields that have one.
    pub testid: Option<&'static str>,
    /// `corpus-{name}-error`, beside the field while it is wrong.
    pub error_testid: String,
    pub min: &'static str,
    pub step: &'static str,
    /// What was typed, or the value's own text.
    pub text: String,
    pub error: Option<String>,
}

/// Where a run stands, as the screen needs it.
#[derive(Clone, Copy, Debug)]
pub struct RunShown<'a> {
    pub phase: &'a RunStatus,
    pub progress: Progress,
    /// The run's summaries, once summarised.
    pub summaries: Option<&'a [Summary]>,
    /// Conversations handed to the workers with the library's counts, which they kept.
    pub kept: usize,
}

/// Everything the corpus comparison shows but the run's progress: the picker, the policies,
/// the numbers with what is wrong with them, whether it can start, and the table once a run is
/// summarised.
#[derive(Clone, Debug, PartialEq)]
pub struct CorpusScreen {
    pub imports: Vec<ImportOption>,
    /// The import picked (its key), or empty for every session.
    pub from: String,
    pub filter: String,
    /// How many sessions are picked (their ids are [`CorpusForm::picked`]'s, listed only when a
    /// run starts, not on every change of the library).
    pub picked: usize,
    /// `12 sessions`.
    pub count: String,
    pub policies: Vec<PolicyOption>,
    pub window: NumberShown,
    pub prices: Vec<NumberShown>,
    pub replay: bool,
    /// A run is going: the form waits and Stop is offered.
    pub running: bool,
    pub can_compare: bool,
    /// A run ended and its rows are being summarised.
    pub summarising: bool,
    pub table: Option<CorpusTable>,
    /// The `corpus` fold's `data-kept`: of the run's conversations, those handed to the workers
    /// with the library's counts, which they kept rather than counting the messages again
    /// (`None` before a run).
    pub kept: Option<usize>,
}

impl CorpusScreen {
    /// The screen of `form` over `library`, with the run `run` if one was started; the imports'
    /// times in the local time of `east_minutes` east of UTC, dated when not on `now_ms`'s day.
    pub fn of(
        form: &CorpusForm,
        library: &Library,
        run: Option<RunShown<'_>>,
        now_ms: u64,
        east_minutes: i32,
    ) -> CorpusScreen {
        let imports = imports(library)
            .iter()
            .map(|g| ImportOption {
                key: g.key(),
                label: import_label(g, now_ms, east_minutes),
            })
            .collect();
        let picked = form.picked_count(library);
        let count = match picked {
            1 => "1 session".to_owned(),
            n => format!("{} sessions", grouped(n as u64)),
        };
        let policies = std::iter::once((YOURS, "Yours (the Chat tab's policy)"))
            .chain(PEER_PRESETS.iter().map(|p| (p.slug, p.system)))
            .map(|(id, label)| PolicyOption {
                id,
                label,
                ticked: form.chosen.contains(id),
            })
            .collect();
        let number = |name: &'static str, label, testid, min, step| NumberShown {
            name,
            label,
            testid,
            error_testid: format!("corpus-{name}-error"),
            min,
            step,
            text: form.text(name),
            error: form.field_error(name),
        };
        let running = run.is_some_and(|r| r.phase.is_running());
        CorpusScreen {
            imports,
            from: form.from.clone(),
            filter: form.filter.clone(),
            count,
            policies,
            window: number("window", "Context window ", None, "1", "1"),
            prices: vec![
                number(
                    "chat_in",
                    "$ / M tokens: chat in ",
                    Some("corpus-price-chat"),
                    "0",
                    "0.01",
                ),
                number("summary_in", " summariser in ", None, "0", "0.01"),
                number("summary_out", " out ", None, "0", "0.01"),
            ],
            replay: form.replay,
            running,
            can_compare: !running && picked > 0 && form.field_error("window").is_none(),
            picked,
            summarising: run.is_some_and(|r| !r.phase.is_running() && r.summaries.is_none()),
            kept: run.map(|r| r.kept),
            table: run.and_then(|r| Some(table(r.summaries?, &form.prices, r.progress))),
        }
    }
}

/// Why a run could not start on the pool.
pub fn could_not_start(reason: &str) -> String {
    format!("The comparison could not start: {reason}")
}

fn line(summary: &Summary, prices: &Prices) -> PolicyLine {
    let t = &summary.totals;
    PolicyLine {
        policy: summary.policy.clone(),
        label: summary.label.clone(),
        calls: t.summariser_calls,
        chat_tokens: t.chat_tokens,
        summariser_tokens: t.summariser_tokens_in,
        tokens_sent: t.tokens_sent(),
        sent: format!(
            "{} ({} + {})",
            grouped(t.tokens_sent()),
            grouped(t.chat_tokens),
            grouped(t.summariser_tokens_in)
        ),
        largest_request: t.largest_request,
        over_window: t.over_window,
        cost: format!("${:.2}", prices.cost_totals(t)),
        facts_lost: t.facts_lost,
        rules_lost: t.rules_lost,
        unsourced_figures: t.unsourced_figures,
        spread: summary
            .distributions
            .iter()
            .map(|d| Spread {
                metric: d.metric.label(),
                median: d.median,
                p90: d.p90,
                worst: d.worst,
                worst_at: d.worst_at.clone(),
            })
            .collect(),
        spread_title: format!("{}: per conversation", summary.label),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::engine::corpus::{Column, CorpusSettings, Row, measure, summarise};
    use crate::engine::message::WordCounter;
    use crate::engine::run::Unit;
    use crate::engine::session::fixture::verbatim;

    #[test]
    fn the_table_has_a_line_per_policy_and_says_when_it_covers_part_of_the_corpus() {
        let columns = vec![
            Column::preset("langchain-summary-buffer", 3_000).unwrap(),
            Column::preset("claude-code", 3_000).unwrap(),
        ];
        let settings = CorpusSettings {
            window: 3_000,
            summary_tokens: 150,
            replay: false,
        };
        let rows: Vec<Row> = [30, 80]
            .into_iter()
            .enumerate()
            .flat_map(|(i, n)| {
                measure(
                    "library",
                    i as u32,
                    &verbatim(n),
                    &columns,
                    &settings,
                    &WordCounter,
                )
                .unwrap()
            })
            .collect();
        let free = Prices {
            chat_in_per_mtok: 0.0,
            summary_in_per_mtok: 0.0,
            summary_out_per_mtok: 0.0,
        };
        let summaries = summarise(&rows, &columns);
        let t = table(&summaries, &free, Progress::of(Unit::Conversation, 2, 5));
        assert_eq!(
            t.lines
                .iter()
                .map(|l| l.policy.as_str())
                .collect::<Vec<_>>(),
            ["langchain-summary-buffer", "claude-code"]
        );
        assert_eq!(t.lines[0].cost, "$0.00");
        let sent: u64 = rows[..]
            .iter()
            .filter(|r| r.policy == "claude-code")
            .map(Row::tokens_sent)
            .sum();
        assert_eq!(t.lines[1].tokens_sent, sent);
        assert!(t.bars.iter().any(|b| b.percent == 100.0));
        assert_eq!(
            t.partial.as_deref(),
            Some("Stopped: this table covers 2 of the 5 conversations, the ones done before Stop.")
        );
        // The worst conversation by tokens sent is the longer one, named and indexed.
        let worst = t.lines[0]
            .spread
            .iter()
            .find(|d| d.metric == crate::engine::corpus::Metric::TokensSent.label())
            .unwrap();
        assert_eq!(worst.worst_at.as_ref().map(|w| w.1), Some(1));
        assert_eq!(
            table(&summaries, &free, Progress::of(Unit::Conversation, 2, 2)).partial,
            None
        );
    }

    #[test]
    fn an_import_is_offered_by_its_size_file_and_local_time() {
        // 2026-12-02 08:31 UTC.
        let at = 1_796_200_260_000;
        let group = ImportGroup {
            file: "sharegpt.json".into(),
            imported_ms: at,
            count: 1000,
        };
        assert_eq!(
            import_label(&group, at + 60_000, 0),
            "All 1,000 from sharegpt.json, imported 08:31"
        );
        // An hour east of UTC, and a day later.
        assert_eq!(
            import_label(&group, at + 86_400_000, 60),
            "All 1,000 from sharegpt.json, imported 2026-12-02 09:31"
        );
        let one = ImportGroup { count: 1, ..group };
        assert_eq!(
            import_label(&one, at, -120),
            "The 1 session from sharegpt.json, imported 06:31"
        );
    }

    mod screen {
        use super::super::*;
        use crate::app::corpus::form::{CorpusEdit, CorpusForm};
        use crate::app::library::{Entry, Library, Origin};
        use crate::engine::corpus::{Column, CorpusSettings, measure, summarise};
        use crate::engine::message::WordCounter;
        use crate::engine::run::Unit;
        use crate::engine::session::fixture::verbatim;

        fn entry(id: &str, name: &str, origin: Option<(&str, u64)>) -> Entry {
            let mut session = verbatim(2);
            session.name = name.into();
            Entry {
                id: id.into(),
                session,
                updated_ms: 1,
                revision: 1,
                origin: origin.map(|(file, imported_ms)| Origin {
                    file: file.into(),
                    imported_ms,
                    position: 0,
                }),
                counted_in: None,
            }
        }

        fn library() -> Library {
            Library::from_stored(vec![
                entry("a", "Budget talk", Some(("chats.json", 60_000))),
                entry("b", "Trip plans", Some(("chats.json", 60_000))),
                entry("c", "budget, again", None),
            ])
        }

        fn screen(form: &CorpusForm, library: &Library, run: Option<RunShown<'_>>) -> CorpusScreen {
            CorpusScreen::of(form, library, run, 120_000, 0)
        }

        #[test]
        fn an_empty_library_offers_the_policies_but_nothing_to_compare() {
            let s = screen(&CorpusForm::default(), &Library::from_stored(vec![]), None);
            assert!(s.imports.is_empty() && s.picked == 0);
            assert_eq!(s.count, "0 sessions");
            assert!(!s.can_compare && !s.running && !s.summarising);
            assert_eq!(s.table, None);
            assert_eq!(s.policies[0].id, YOURS);
            assert_eq!(s.policies.len(), 1 + PEER_PRESETS.len());
            let ticked: Vec<&str> = s
                .policies
                .iter()
                .filter(|p| p.ticked)
                .map(|p| p.id)
                .collect();
            assert_eq!(ticked, [YOURS, PEER_PRESETS[0].slug, PEER_PRESETS[1].slug]);
            assert_eq!(s.window.text, "128000");
            assert_eq!(s.prices[0].testid, Some("corpus-price-chat"));
        }

        #[test]
        fn sessions_are_picked_by_import_and_by_the_name_typed() {
            let library = library();
            let mut form = CorpusForm::default();
            let s = screen(&form, &library, None);
            assert_eq!(form.picked(&library), ["a", "b", "c"]);
            assert_eq!(s.picked, 3);
            assert_eq!(s.count, "3 sessions");
            assert!(s.can_compare);
            assert_eq!(
                s.imports,
                [ImportOption {
                    key: "60000:chats.json".into(),
                    label: "All 2 from chats.json, imported 00:01".into(),
                }]
            );
            form.edit(CorpusEdit::Filter(" BUDGET ".into()));
            assert_eq!(form.picked(&library), ["a", "c"]);
            assert_eq!(screen(&form, &library, None).count, "2 sessions");
            form.edit(CorpusEdit::From("60000:chats.json".into()));
            let s = screen(&form, &library, None);
            assert_eq!(
                (form.picked(&library).as_slice(), s.count.as_str()),
                (&["a".to_owned()][..], "1 session")
            );
            assert_eq!(s.from, "60000:chats.json");
            // A policy unticked, and an import gone from the library, which means every session.
            form.edit(CorpusEdit::Policy(YOURS.into(), false));
            form.edit(CorpusEdit::From("1:gone.json".into()));
            form.edit(CorpusEdit::Filter(String::new()));
            let s = screen(&form, &library, None);
            assert!(!s.policies[0].ticked);
            assert_eq!(s.picked, 3);
            form.chosen.clear();
            assert_eq!(
                form.columns(&crate::engine::policy::Policy::default())
                    .err()
                    .as_deref(),
                Some("Tick at least one policy to compare.")
            );
        }

        #[test]
        fn a_bad_price_or_window_is_kept_and_named_and_a_fix_clears_it() {
            let library = library();
            let mut form = CorpusForm::default();
            form.edit(CorpusEdit::Number("chat_in", "-1".into()));
            let s = screen(&form, &library, None);
            assert_eq!(s.prices[0].text, "-1", "the text typed is kept");
            let error = s.prices[0].error.clone().unwrap();
            assert!(
                error.starts_with("The chat model's input price \"-1\""),
                "{error}"
            );
            assert_eq!(s.prices[0].error_testid, "corpus-chat_in-error");
            assert_eq!(form.prices, Prices::default(), "the last valid price stays");
            assert!(s.can_compare, "a price changes the table, not the run");
            form.edit(CorpusEdit::Number("window", "0".into()));
            let s = screen(&form, &library, None);
            assert!(s.window.error.as_deref().unwrap().contains("\"0\""));
            assert!(!s.can_compare);
            let policy = crate::engine::policy::Policy::default();
            assert_eq!(form.columns(&policy).err(), s.window.error);
            // Fixed: the errors go and the values change.
            form.edit(CorpusEdit::Number("chat_in", "3".into()));
            form.edit(CorpusEdit::Number("window", "4000".into()));
            let s = screen(&form, &library, None);
            assert_eq!(
                (s.prices[0].error.clone(), s.window.error.clone()),
                (None, None)
            );
            assert_eq!(form.prices.chat_in_per_mtok, 3.0);
            assert_eq!(form.settings().window, 4000);
            let (columns, wires) = form.columns(&policy).unwrap();
            assert_eq!((columns.len(), wires.len()), (3, 3));
        }

        #[test]
        fn a_running_run_locks_the_form_and_a_done_one_shows_its_table_at_the_prices() {
            let library = library();
            let mut form = CorpusForm::default();
            let progress = Progress::of(Unit::Conversation, 1, 2);
            assert_eq!(screen(&form, &library, None).kept, None);
            let running = RunShown {
                phase: &RunStatus::Running,
                progress,
                summaries: None,
                kept: 1,
            };
            let s = screen(&form, &library, Some(running));
            assert!(s.running && !s.can_compare && !s.summarising);
            assert_eq!(s.table, None);
            assert_eq!(s.kept, Some(1), "the conversations sent with their counts");

            let columns = vec![Column::preset("claude-code", 3_000).unwrap()];
            let settings = CorpusSettings {
                replay: false,
                ..CorpusSettings::default()
            };
            let rows = measure(
                "library",
                0,
                &verbatim(30),
                &columns,
                &settings,
                &WordCounter,
            )
            .unwrap();
            let summaries = summarise(&rows, &columns);
            let ended = RunShown {
                phase: &RunStatus::Done,
                progress: Progress::of(Unit::Conversation, 2, 2),
                summaries: None,
                kept: 2,
            };
            let s = screen(&form, &library, Some(ended));
            assert!(s.summarising && !s.running && s.can_compare);
            let done = RunShown {
                summaries: Some(&summaries),
                ..ended
            };
            form.edit(CorpusEdit::Number("chat_in", "0".into()));
            form.edit(CorpusEdit::Number("summary_in", "0".into()));
            form.edit(CorpusEdit::Number("summary_out", "0".into()));
            let s = screen(&form, &library, Some(done));
            assert!(!s.summarising);
            let table = s.table.unwrap();
            assert_eq!(table.lines[0].policy, "claude-code");
            assert_eq!(table.lines[0].cost, "$0.00");
            assert_eq!(table.partial, None);
        }
    }
}
