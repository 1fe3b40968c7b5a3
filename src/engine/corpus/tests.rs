use super::*;
use crate::engine::message::WordCounter;
use crate::engine::policy::Trigger;
use crate::engine::replay::estimate;
use crate::engine::schedule::schedule;
use crate::engine::session::fixture::verbatim;

/// A window small enough that long test chats pass it.
const WINDOW: u32 = 3_000;

fn settings(replay: bool) -> CorpusSettings {
    CorpusSettings {
        window: WINDOW,
        summary_tokens: 150,
        replay,
    }
}

fn yours() -> Column {
    let policy = Policy::new(Trigger::Turns {
        max_turns: 6,
        keep: 2,
    })
    .unwrap();
    Column::new(YOURS, "Yours", policy).unwrap()
}

/// Yours, one preset of today's rules and two exact ones.
fn columns() -> Vec<Column> {
    let mut columns = vec![yours()];
    for slug in [
        "openai-cookbook-session",
        "langchain-summary-buffer",
        "claude-code",
    ] {
        columns.push(Column::preset(slug, WINDOW).expect("a preset"));
    }
    columns
}

/// Conversations of different lengths, so the distributions have something to rank.
fn corpus() -> Vec<Session> {
    [3, 12, 40, 7, 90, 25].into_iter().map(verbatim).collect()
}

fn measure_all(sessions: &[Session], columns: &[Column], replay: bool) -> Vec<Row> {
    sessions
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            measure(
                "corpus.json",
                i as u32,
                s,
                columns,
                &settings(replay),
                &WordCounter,
            )
            .unwrap()
        })
        .collect()
}

#[test]
fn each_conversation_gets_one_row_per_column_in_column_order() {
    let rows = measure_all(&corpus()[..2], &columns(), false);
    let ids: Vec<(u32, &str)> = rows.iter().map(|r| (r.index, r.policy.as_str())).collect();
    assert_eq!(
        ids,
        vec![
            (0, "yours"),
            (0, "openai-cookbook-session"),
            (0, "langchain-summary-buffer"),
            (0, "claude-code"),
            (1, "yours"),
            (1, "openai-cookbook-session"),
            (1, "langchain-summary-buffer"),
            (1, "claude-code"),
        ]
    );
    assert!(
        rows.iter()
            .all(|r| r.conversation == "Long chat, 3 turns"
                || r.conversation == "Long chat, 12 turns")
    );
}

#[test]
fn the_dry_run_columns_are_the_schedule_of_the_conversations_turns() {
    let session = verbatim(40);
    let column = yours();
    let row = &measure(
        "s",
        0,
        &session,
        std::slice::from_ref(&column),
        &settings(false),
        &WordCounter,
    )
    .unwrap()[0];
    let system_tokens = WordCounter.count(session.memory.system_prompt());
    // verbatim(n): every turn is one user and one assistant message.
    let sizes: Vec<TurnSize> = session
        .memory
        .archive()
        .chunks(2)
        .map(|pair| TurnSize {
            user: pair[0].tokens,
            assistant: pair[1].tokens,
        })
        .collect();
    let run = schedule(
        &column.policy,
        &ScheduleInput {
            turns: 40,
            sizes,
            system_tokens,
            summary_tokens: 150,
            summary_sizes: Vec::new(),
        },
    );
    assert_eq!(row.turns, 40);
    assert_eq!(row.summariser_calls, run.calls);
    assert!(run.calls > 0, "6/2 folds over 40 turns");
    assert_eq!(row.chat_tokens, run.total_tokens);
    assert_eq!(
        row.largest_request,
        run.rows.iter().map(|r| r.tokens).max().unwrap()
    );
    assert_eq!(row.summariser_tokens_out, u64::from(run.calls) * 150);
    assert!(row.summariser_tokens_in > 0);
}

#[test]
fn an_exact_policy_is_played_message_by_message_and_counts_requests_over_the_window() {
    let session = verbatim(200);
    let column = Column::preset("langchain-summary-buffer", WINDOW).unwrap();
    assert!(column.policy.exact.is_exact());
    let row = &measure("s", 0, &session, &[column], &settings(false), &WordCounter).unwrap()[0];
    // ConversationSummaryBufferMemory prunes past 2,000 tokens: it folds, and its requests
    // stay near its limit, never over a 3,000-token window.
    assert!(row.summariser_calls > 0);
    assert!(row.largest_request < u64::from(WINDOW), "{row:?}");
    assert_eq!(row.over_window, 0);
    // Sliding nothing: the manual trigger never folds, so its requests grow past the window.
    let manual = Column::new(
        "manual",
        "Manual",
        Policy::new(Trigger::Manual { keep: 4 }).unwrap(),
    )
    .unwrap();
    let row = &measure("s", 0, &session, &[manual], &settings(false), &WordCounter).unwrap()[0];
    assert_eq!(row.summariser_calls, 0);
    assert!(row.over_window > 0 && row.over_window < 200, "{row:?}");
}

#[test]
fn the_replay_counts_the_summariser_requests_as_the_live_replay_estimate_does() {
    let session = verbatim(40);
    let column = yours();
    let row = &measure(
        "s",
        0,
        &session,
        std::slice::from_ref(&column),
        &settings(true),
        &WordCounter,
    )
    .unwrap()[0];
    let expected = estimate(&session, column.policy.clone(), &WordCounter, None).unwrap();
    assert_eq!(row.summariser_tokens_in, expected.tokens_sent);
    assert_eq!(Some(row.summariser_tokens_out), expected.tokens_received);
    assert!(expected.calls > 0);
}

#[test]
fn a_conversation_with_no_messages_measures_as_zeros_rather_than_failing() {
    let empty = verbatim(0);
    let rows = measure("s", 0, &empty, &columns(), &settings(true), &WordCounter).unwrap();
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r.turns == 0 && r.chat_tokens == 0));
}

#[test]
fn the_aggregate_of_a_corpus_is_the_sum_of_its_parts() {
    let columns = columns();
    let rows = measure_all(&corpus(), &columns, true);
    let (a, b) = rows.split_at(rows.len() / 2 + 1);
    let whole = summarise(&rows, &columns);
    let parts = (summarise(a, &columns), summarise(b, &columns));
    for ((w, pa), pb) in whole.iter().zip(&parts.0).zip(&parts.1) {
        assert_eq!(w.totals, pa.totals + pb.totals, "{}", w.policy);
        // And each total is the sum over the policy's own rows.
        let own: Vec<&Row> = rows.iter().filter(|r| r.policy == w.policy).collect();
        assert_eq!(w.totals.conversations as usize, own.len());
        assert_eq!(
            w.totals.chat_tokens,
            own.iter().map(|r| r.chat_tokens).sum::<u64>()
        );
        assert_eq!(
            w.totals.facts_lost,
            own.iter().map(|r| u64::from(r.facts_lost)).sum::<u64>()
        );
    }
    assert!(whole.iter().any(|s| s.totals.summariser_calls > 0));
}

#[test]
fn summarising_shards_in_any_order_equals_summarising_the_whole_run() {
    let columns = columns();
    let rows = measure_all(&corpus(), &columns, false);
    let mut shuffled: Vec<Row> = rows[rows.len() / 3..].to_vec();
    shuffled.extend_from_slice(&rows[..rows.len() / 3]);
    shuffled.reverse();
    assert_eq!(summarise(&shuffled, &columns), summarise(&rows, &columns));
}

#[test]
fn rows_of_two_shards_concatenated_equal_the_rows_of_the_whole_run() {
    let columns = columns();
    let sessions = corpus();
    let whole = measure_all(&sessions, &columns, true);
    // A shard measures its own conversations with their indices in the whole source.
    let shard = |range: std::ops::Range<usize>| -> Vec<Row> {
        range
            .flat_map(|i| {
                measure(
                    "corpus.json",
                    i as u32,
                    &sessions[i],
                    &columns,
                    &settings(true),
                    &WordCounter,
                )
                .unwrap()
            })
            .collect()
    };
    let mut merged = shard(4..6);
    merged.extend(shard(0..4));
    sort_rows(&mut merged, &columns);
    assert_eq!(merged, whole);
    assert_eq!(rows_csv(&merged), rows_csv(&whole));
}

#[test]
fn measuring_on_several_threads_gives_the_rows_of_one_thread() {
    let columns = columns();
    let sessions = corpus();
    let one = measure_all(&sessions, &columns, true);
    let mut threaded: Vec<Row> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..3)
            .map(|t| {
                let (sessions, columns) = (&sessions, &columns);
                scope.spawn(move || {
                    (t..sessions.len())
                        .step_by(3)
                        .flat_map(|i| {
                            measure(
                                "corpus.json",
                                i as u32,
                                &sessions[i],
                                columns,
                                &settings(true),
                                &WordCounter,
                            )
                            .unwrap()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    sort_rows(&mut threaded, &columns);
    assert_eq!(threaded, one);
}

/// A row of policy `yours` whose every metric is `value`.
fn row(index: u32, value: u32) -> Row {
    Row {
        source: "hand.json".into(),
        conversation: format!("c{index}"),
        index,
        policy: YOURS.into(),
        turns: value,
        summariser_calls: value,
        chat_tokens: u64::from(value),
        summariser_tokens_in: 0,
        summariser_tokens_out: 0,
        largest_request: u64::from(value),
        over_window: value,
        facts_lost: value,
        rules_lost: value,
        unsourced_figures: value,
    }
}

#[test]
fn median_p90_and_worst_are_nearest_ranks_of_hand_counted_rows() {
    // Ten rows valued 1..=10, out of order, and 10 also at a later index.
    let values = [7, 3, 10, 1, 9, 2, 8, 4, 6, 5, 10];
    let rows: Vec<Row> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| row(i as u32, v))
        .collect();
    let summary = &summarise(&rows, &[yours()])[0];
    for metric in Metric::ALL {
        let d = summary.of(metric).unwrap();
        // Eleven values sorted: 1 2 3 4 5 6 7 8 9 10 10; rank ceil(5.5) = 6 is 6, rank
        // ceil(9.9) = 10 is 10.
        assert_eq!((d.median, d.p90, d.worst), (6, 10, 10), "{metric:?}");
        // The first of the two worst, index 2.
        assert_eq!(
            d.worst_at,
            Some(("hand.json".to_owned(), 2, "c2".to_owned()))
        );
    }
    assert_eq!(summary.totals.conversations, 11);
    assert_eq!(summary.totals.largest_request, 10);
    assert_eq!(summary.totals.over_window, 65);

    let four: Vec<Row> = [4, 1, 3, 2].iter().map(|&v| row(v, v)).collect();
    let d = summarise(&four, &[yours()])[0]
        .of(Metric::FactsLost)
        .unwrap()
        .clone();
    // 1 2 3 4: rank 2 is 2, rank ceil(3.6) = 4 is 4.
    assert_eq!((d.median, d.p90, d.worst), (2, 4, 4));
}

#[test]
fn a_policy_with_no_rows_summarises_to_zeros_and_no_worst_conversation() {
    let summary = &summarise(&[], &[yours()])[0];
    assert_eq!(summary.totals, Totals::default());
    assert!(summary.distributions.iter().all(|d| d.worst_at.is_none()));
}

#[test]
fn the_rows_csv_has_one_header_line_and_quotes_what_needs_quoting() {
    let mut r = row(0, 1);
    r.source = "dir/a,b.json".into();
    r.conversation = "He said \"hi\"\nthen left".into();
    let csv = rows_csv(&[r, row(1, 2)]);
    let lines: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(lines[0], ROWS_HEADER);
    assert_eq!(
        csv,
        format!(
            "{ROWS_HEADER}\r\n\"dir/a,b.json\",0,\"He said \"\"hi\"\"\nthen left\",yours,1,1,1,0,0,1,1,1,1,1\r\nhand.json,1,c1,yours,2,2,2,0,0,2,2,2,2,2\r\n"
        )
    );
    assert_eq!(ROWS_HEADER.split(',').count(), 14);
}

#[test]
fn the_summary_csv_prices_the_totals_and_names_the_worst_conversation() {
    let rows = vec![row(0, 1), row(1, 3)];
    let summaries = summarise(&rows, &[yours()]);
    let prices = Prices {
        chat_in_per_mtok: 1_000_000.0,
        summary_in_per_mtok: 0.0,
        summary_out_per_mtok: 0.0,
    };
    let csv = summary_csv(&summaries, &prices);
    let lines: Vec<&str> = csv.trim_end().split("\r\n").collect();
    assert_eq!(lines.len(), 2);
    let header: Vec<&str> = lines[0].split(',').collect();
    let fields: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(header.len(), fields.len());
    assert_eq!(header.len(), 15 + 5 * Metric::ALL.len());
    let field = |name: &str| fields[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(field("policy"), "yours");
    assert_eq!(field("chat_tokens"), "4");
    // Four chat tokens at a million per million tokens.
    assert_eq!(field("estimated_cost"), "4.0000");
    assert_eq!(field("facts_lost_worst"), "3");
    assert_eq!(field("facts_lost_worst_source"), "hand.json");
    assert_eq!(field("facts_lost_worst_index"), "1");
}

#[test]
fn a_preset_column_is_found_by_slug_and_an_unknown_slug_is_none() {
    let column = Column::preset("codex-cli", 200_000).unwrap();
    assert_eq!(column.id, "codex-cli");
    assert!(Column::preset("no-such-preset", 200_000).is_none());
    assert_eq!(Column::presets(200_000).len(), PEER_PRESETS.len());
}

#[test]
fn an_invalid_policy_is_refused_as_a_column_with_the_policys_reason() {
    let policy = Policy {
        trigger: Trigger::Turns {
            max_turns: 2,
            keep: 5,
        },
        ..Policy::default()
    };
    let err = Column::new("bad", "Bad", policy.clone()).unwrap_err();
    assert_eq!(err, policy.validate().unwrap_err());
}

/// Each column is measured with its own policy's counter: the LangChain preset (measured with
/// count_tokens_approximately) and the same policy measured with the run's own count give
/// different chat tokens on one conversation, and the run's count is what the default keeps.
#[test]
fn each_column_is_measured_with_its_policys_counter() {
    use crate::engine::policy::Counter;
    let preset = Column::preset("langchain-v1-middleware", WINDOW).unwrap();
    assert_eq!(preset.policy.exact.counter, Counter::LangChainApprox);
    let mut own = preset.policy.clone();
    own.exact.counter = Counter::O200K;
    let plain = Column::new("plain", "plain", own).unwrap();
    let mut words = preset.policy.clone();
    words.exact.counter = Counter::Words;
    // The word counter of this run is the run's own count: the same rows as the default.
    let words = Column::new("words", "words", words).unwrap();
    let session = verbatim(40);
    let rows = measure(
        "s",
        0,
        &session,
        &[preset, plain, words],
        &settings(false),
        &WordCounter,
    )
    .unwrap();
    assert_ne!(rows[0].chat_tokens, rows[1].chat_tokens, "{rows:?}");
    assert_eq!(rows[1].chat_tokens, rows[2].chat_tokens, "{rows:?}");
    // LangChain's count of a message is at least its characters over 4 plus 3: far above a
    // word count.
    assert!(rows[0].chat_tokens > rows[1].chat_tokens, "{rows:?}");
}
