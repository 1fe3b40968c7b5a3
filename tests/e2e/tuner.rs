//! The Tuner tab reproduces the notebook's schedule tables and follows what the user types.

use fantoccini::Locator;
use summary_memory::engine::message::WordCounter;
use summary_memory::engine::peers::{Prices, fidelity, outcome, preset};
use summary_memory::engine::policy::{Policy, Trigger};
use summary_memory::engine::schedule::{ScheduleInput, schedule};
use summary_memory::engine::session::{export, synthetic};
use summary_memory::route::TriggerKind;
use summary_memory::view::inspect::InspectView;
use summary_memory::view::tuner_fidelity::preset_fidelity;

use crate::harness::{Browser, TempDir};
use crate::pages::inspect::InspectPage;
use crate::pages::query;
use crate::pages::tuner::TunerPage;

#[tokio::test]
async fn the_notebooks_three_schedules_row_by_row() {
    let browser = Browser::new().await;
    let tuner = TunerPage::new(&browser);

    browser
        .open("?tab=tuner&trigger=turns&max_turns=4&keep=2&turns=10")
        .await;
    assert_eq!(tuner.calls().await, "4");
    let expect: Vec<(u32, u32, String)> = [
        (1, 0, "1"),
        (2, 0, "1,2"),
        (3, 0, "1,2,3"),
        (4, 0, "1,2,3,4"),
        (5, 2, "3,4,5"),
        (6, 2, "3,4,5,6"),
        (7, 4, "5,6,7"),
        (8, 4, "5,6,7,8"),
        (9, 6, "7,8,9"),
        (10, 6, "7,8,9,10"),
    ]
    .map(|(t, s, v)| (t, s, v.to_owned()))
    .into();
    assert_eq!(tuner.rows().await, expect);

    browser
        .open("?tab=tuner&trigger=turns&max_turns=4&keep=3&turns=10")
        .await;
    assert_eq!(tuner.calls().await, "7");
    let summarised: Vec<u32> = tuner.rows().await.into_iter().map(|r| r.1).collect();
    assert_eq!(summarised, [0, 0, 0, 0, 1, 2, 3, 4, 5, 6]);

    browser
        .open("?tab=tuner&trigger=turns&max_turns=6&keep=2&turns=10")
        .await;
    assert_eq!(tuner.calls().await, "2");
    let last = tuner.rows().await.pop().unwrap();
    assert_eq!(last, (10, 4, "5,6,7,8,9,10".to_owned()));
    browser.close().await;
}

// A regression test as well: every keystroke used to rebuild the whole panel, so the field
// being typed in was replaced (losing focus) after each character.
#[tokio::test]
async fn typing_a_parameter_recomputes_and_rewrites_the_link() {
    let browser = Browser::new().await;
    let tuner = TunerPage::new(&browser);
    browser
        .open("?tab=tuner&trigger=turns&max_turns=4&keep=2&turns=10")
        .await;
    assert_eq!(tuner.calls().await, "4");

    let max_turns = browser.wait_testid("max_turns").await;
    max_turns.clear().await.unwrap();
    max_turns.send_keys("6").await.unwrap();
    tuner
        .wait_calls("2", "the call count to follow max_turns=6")
        .await;
    tuner
        .wait_link_has(&["max_turns=6"], "the link to carry max_turns=6")
        .await;

    // keep >= max_turns is impossible: the page says why at the field, in its labels' words,
    // and keeps showing the last valid policy (6, keep 2), marked as such.
    let keep = browser.wait_testid("keep").await;
    keep.clear().await.unwrap();
    keep.send_keys("8").await.unwrap();
    tuner
        .wait_field_error(
            "keep",
            "must be smaller than",
            "the error at the keep field",
        )
        .await;
    let at = tuner.field_error_layout("keep").await;
    assert_eq!(
        at.text,
        "\u{201c}Keep verbatim (turns)\u{201d} (8) must be smaller than \u{201c}Summarise at (turns)\u{201d} (6): lower it, or raise \u{201c}Summarise at (turns)\u{201d}."
    );
    assert!(!at.text.contains("max_turns"), "{at:?}");
    assert_eq!(at.invalid.as_deref(), Some("true"), "{at:?}");
    assert_eq!(at.described_by.as_deref(), Some(at.id.as_str()), "{at:?}");
    assert!(
        (0.0..=60.0).contains(&at.gap) && at.overlap,
        "the error sits right under its field: {at:?}"
    );
    assert!(at.below_heading, "{at:?}");
    // Nothing above the heading repeats it in the internal names.
    assert!(browser.is_absent("param-error").await);
    // The field being typed in keeps the focus.
    assert_eq!(browser.focused().await, "keep");
    let note = browser.text_of("tuner-last-valid").await;
    assert!(
        note.contains("last valid policy (Every N turns (keep K): Summarise at (turns) 6, Keep verbatim (turns) 2)"),
        "{note}"
    );
    assert_eq!(
        tuner.rows().await.len(),
        10,
        "the last valid schedule stays"
    );
    assert_eq!(tuner.calls().await, "2");
    let lines: Vec<usize> = browser
        .read("Array.from(document.querySelectorAll('.chart polyline')).map(l => l.getAttribute('points').split(' ').length)")
        .await;
    assert!(
        !lines.is_empty() && lines.iter().all(|&n| n == 10),
        "{lines:?}"
    );

    keep.clear().await.unwrap();
    keep.send_keys("1").await.unwrap();
    tuner
        .wait_table_back(10, "the error to clear and the table to return")
        .await;
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

#[tokio::test]
async fn every_trigger_kind_can_be_chosen() {
    let browser = Browser::new().await;
    let tuner = TunerPage::new(&browser);
    browser.open("?tab=tuner&turns=12").await;
    let select = browser.wait_testid("trigger").await;
    select.select_by_value("tokens").await.unwrap();
    browser.wait_testid("budget").await;
    tuner
        .wait_link_has(&["trigger=tokens"], "trigger=tokens in the link")
        .await;
    select.select_by_value("every").await.unwrap();
    browser.wait_testid("every").await;
    select.select_by_value("manual").await.unwrap();
    assert_eq!(tuner.calls().await, "0");
    assert_eq!(browser.all_testid("schedule-row").await.len(), 12);
    let chart = browser
        .client
        .find(Locator::Css(".chart svg polyline"))
        .await;
    assert!(chart.is_ok(), "the token chart is drawn");
    browser.close().await;
}

/// The fraction-of-the-window trigger: a model preset sets the window, and a policy whose fixed
/// part (system prompt and summary) plus what it keeps already reaches the threshold is named a
/// compaction loop, while the table shows it folding on every turn.
#[tokio::test]
async fn the_window_trigger_picks_a_model_and_warns_of_a_compaction_loop() {
    let browser = Browser::new().await;
    let tuner = TunerPage::new(&browser);
    browser.open("?tab=tuner&turns=12").await;
    browser
        .wait_testid("trigger")
        .await
        .select_by_value("window")
        .await
        .unwrap();
    let model = browser.wait_testid("model-window").await;
    model.select_by_value("128000").await.unwrap();
    tuner
        .wait_link_has(
            &["trigger=window", "context=128000"],
            "the window trigger and gpt-4o's window in the link",
        )
        .await;
    // A 128k window never fills in twelve small turns: no call, no warning.
    assert_eq!(tuner.calls().await, "0");
    assert_eq!(browser.count_testid("loop-warning").await, 0);

    // A 1,000-token window folding at 70% and keeping 30%: 300 system + 150 summary + 300 kept.
    browser.set_field("context", "1000").await;
    browser.set_field("fire_pct", "70").await;
    tuner
        .wait_loop_warning("compaction loop", "the loop warning")
        .await;
    let folds = tuner.folds().await;
    let first = folds
        .iter()
        .position(|&f| f)
        .expect("the window policy folds");
    assert!(
        folds[first..].iter().all(|&f| f),
        "after its first cycle it folds on every turn: {folds:?}"
    );
    // Keeping less of the window ends the loop and the warning.
    browser.set_field("keep_pct", "5").await;
    tuner.wait_no_loop_warning("the warning to go").await;
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

/// Three other systems' presets beside the Tuner's policy: a table row and a chart line each,
/// prices that change the cost, and the table as a CSV download.
#[tokio::test]
async fn three_presets_compared_show_a_row_and_a_line_each_and_download_as_csv() {
    let browser = Browser::new().await;
    let tuner = TunerPage::new(&browser);
    browser
        .open("?tab=tuner&trigger=window&context=8192&turns=120")
        .await;
    for slug in ["gemini-cli", "codex-cli", "openai-cookbook-session"] {
        tuner.compare(slug).await;
    }
    tuner
        .wait_compare_rows(4, "this policy and three presets in the table")
        .await;
    let lines = tuner.compare_lines().await;
    assert_eq!(lines, 4, "one line per policy");
    // The cookbook (the notebook's instance: more than four user turns) folds after its fifth
    // turn; at 8,192 tokens Gemini's half-window fires before Codex's 90%.
    let first = |policy: &'static str| async move {
        tuner.compare_cells(policy, &[4]).await.swap_remove(0)
    };
    assert_eq!(first("OpenAI cookbook SummarizingSession").await, "5");
    let gemini: u32 = first("Gemini CLI").await.parse().unwrap();
    let codex: u32 = first("Codex CLI").await.parse().unwrap();
    assert!(gemini < codex, "gemini {gemini}, codex {codex}");
    // A price emptied is kept so, and named under its field, until it is one again.
    browser.set_field("price-out", "").await;
    browser
        .wait_text_contains(
            "tuner-field-error",
            "The output price is empty",
            "the empty price named under its field",
        )
        .await;
    assert_eq!(browser.value_of("price-out").await, "");
    // Free tokens cost nothing.
    browser.set_field("price-in", "0").await;
    browser.set_field("price-out", "0").await;
    tuner
        .wait_every_cell(6, "$0.0000", "every cost to be zero")
        .await;
    browser
        .wait_gone("tuner-field-error", "the price's error gone once it is one")
        .await;
    let csv = tuner.csv().await;
    let rows: Vec<&str> = csv.lines().collect();
    assert!(rows[0].starts_with("policy,summariser calls"), "{csv}");
    assert_eq!(rows.len(), 5, "a header and four policies: {csv}");
    assert!(rows.iter().any(|r| r.starts_with("Gemini CLI,")));
    // The CSV says which policies made it: each names its parameters in the last column.
    assert!(rows[0].ends_with(",estimated cost,parameters"), "{csv}");
    assert!(
        rows[1].starts_with("this policy,")
            && rows[1].contains("Fraction of the context window: Context window (tokens) 8192, Fold at (% of the window) 80"),
        "{csv}"
    );
    for slug in ["gemini-cli", "codex-cli", "openai-cookbook-session"] {
        let p = preset(slug).unwrap();
        let row = rows
            .iter()
            .find(|r| r.starts_with(p.system))
            .unwrap_or_else(|| panic!("{slug}: {csv}"));
        let library = p.source.split(" (").next().unwrap();
        assert!(
            row.contains(library) && row.contains("at a 8192-token window"),
            "{slug}: {row}"
        );
    }
    assert_eq!(tuner.csv().await, csv);
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

/// A session imported in Inspect, then chosen as the Tuner's conversation: one schedule row per
/// turn of it, the summariser calls the engine finds over its real sizes, and the comparison
/// over the same turns; back on the simulated conversation, the link's `turns` again.
#[tokio::test]
async fn the_tuner_runs_on_a_library_session() {
    let browser = Browser::new().await;
    let tuner = TunerPage::new(&browser);
    let dir = TempDir::new();
    let mut session = synthetic(17);
    session.name = "Tuned budget".into();
    let path = dir.write("tuned.json", &export(&session, 5, "0.1.0"));
    let inspect =
        InspectPage::open_with(&browser, "&trigger=turns&max_turns=5&keep=2&turns=10").await;
    inspect.import(&path).await;
    inspect.wait_sessions(1).await;

    TunerPage::click_tab(&browser).await;
    query::wait_count(&browser, "schedule-row", 10).await;
    browser
        .wait_testid("tuner-conversation")
        .await
        .select_by_label("Tuned budget (17 turns)")
        .await
        .unwrap();
    query::wait_count(&browser, "schedule-row", 17).await;
    // What the engine finds over the session's own sizes. A turn trigger's cycles do not depend
    // on the counter, so the page's o200k_base counts and the word counter here agree on them.
    let sizes = InspectView::new(&session, &WordCounter).sizes;
    let policy = Policy::new(Trigger::Turns {
        max_turns: 5,
        keep: 2,
    })
    .unwrap();
    let expected = schedule(&policy, &sizes);
    assert_eq!(tuner.calls().await, expected.calls.to_string());
    let want: Vec<(u32, u32, String)> = expected
        .rows
        .iter()
        .map(|r| (r.turn, r.summarised_to, r.verbatim_list()))
        .collect();
    assert_eq!(tuner.rows().await, want);
    // The field for simulated turns gives way to the session's turn count.
    let note = browser.wait_testid("tuner-session-turns").await;
    assert!(note.text().await.unwrap().contains("17 turns"));
    assert_eq!(browser.count_testid("turns").await, 0);

    // The comparison runs over the same 17 turns.
    for slug in ["openai-cookbook-session", "gemini-cli"] {
        tuner.compare(slug).await;
    }
    query::wait_count(&browser, "compare-row", 3).await;
    let points = tuner.compare_points().await;
    assert_eq!(points, [17, 17, 17], "one point per turn");
    let cookbook = preset("openai-cookbook-session").unwrap();
    let context = TriggerKind::default_of("context");
    let prices = Prices::flat(2.5, 10.0);
    let engine = outcome(
        cookbook.system,
        &cookbook.policy(context),
        &sizes,
        context,
        prices,
    );
    let cells = tuner.compare_cells(cookbook.system, &[1, 4]).await;
    let first = engine
        .first_fold
        .map_or("never".to_owned(), |t| t.to_string());
    assert_eq!(
        cells,
        [engine.calls.to_string(), first],
        "the cookbook's calls and first fold over the session"
    );
    assert_eq!(engine.schedule.rows.len(), 17);

    // Back to the simulated conversation: the link's ten turns and the field again.
    browser
        .wait_testid("tuner-conversation")
        .await
        .select_by_value("simulated")
        .await
        .unwrap();
    query::wait_count(&browser, "schedule-row", 10).await;
    browser.wait_testid("turns").await;
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

/// The conversation on the Chat tab (here the FinCoach demo played to its end) can be tuned too:
/// one schedule row per turn it holds.
#[tokio::test]
async fn the_tuner_runs_on_the_chat_on_screen() {
    let browser = Browser::new().await;
    let tuner = TunerPage::new(&browser);
    browser
        .open("?demo=fincoach&trigger=turns&max_turns=3&keep=1&turns=10")
        .await;
    browser.click_testid("play-all").await;
    browser.wait_testid("summary").await;
    browser.click_testid("tab-tuner").await;
    tuner
        .wait_conversation_offered(
            "on-screen",
            "(6 turns)",
            "the chat on screen, six turns, among the conversations",
        )
        .await;
    browser
        .wait_testid("tuner-conversation")
        .await
        .select_by_value("on-screen")
        .await
        .unwrap();
    query::wait_count(&browser, "schedule-row", 6).await;
    // A turn trigger folds where the turn count says, whatever the sizes.
    let policy = Policy::new(Trigger::Turns {
        max_turns: 3,
        keep: 1,
    })
    .unwrap();
    let expected = schedule(&policy, &ScheduleInput::uniform(6));
    assert_eq!(tuner.calls().await, expected.calls.to_string());
    let summarised: Vec<u32> = tuner.rows().await.into_iter().map(|r| r.1).collect();
    let want: Vec<u32> = expected.rows.iter().map(|r| r.summarised_to).collect();
    assert_eq!(summarised, want);
    assert!(
        browser
            .wait_testid("tuner-session-turns")
            .await
            .text()
            .await
            .unwrap()
            .contains("6 turns")
    );
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

/// A preset chosen for the comparison says how exact it is: the library, version and file the
/// fidelity tier checked it against, `identical` or `approximate`, and what differs, as the
/// engine's fidelity table says; a preset taken out of the comparison takes its entry with it.
#[tokio::test]
async fn a_chosen_preset_shows_its_source_version_and_exactness() {
    let browser = Browser::new().await;
    let tuner = TunerPage::new(&browser);
    browser
        .open("?tab=tuner&trigger=window&context=8192&turns=40")
        .await;
    assert_eq!(
        browser.count_testid("peer-preset").await,
        0,
        "nothing chosen, nothing shown"
    );
    let chosen = ["langchain-v1-middleware", "gemini-cli", "codex-cli"];
    for slug in chosen {
        tuner.compare(slug).await;
    }
    tuner
        .wait_peer_presets(3, "the fidelity of the three presets chosen")
        .await;
    let shown = tuner.peer_presets().await;
    let slugs: Vec<&str> = shown.iter().map(|(slug, ..)| slug.as_str()).collect();
    assert_eq!(slugs, chosen, "in the table's order");
    for (slug, exactness, source, text) in &shown {
        let row = fidelity(slug).unwrap();
        let want = preset_fidelity(slug).unwrap();
        assert_eq!(exactness, row.exactness.slug(), "{slug}");
        assert_eq!(source, &want.source, "{slug}");
        assert!(
            source.contains(row.library) && source.contains(row.source_file),
            "{slug}: {source}"
        );
        match row.version {
            Some(version) => assert!(source.contains(version), "{slug}: {source}"),
            None => assert!(source.contains("not run"), "{slug}: {source}"),
        }
        assert!(text.contains(&want.verdict), "{slug}: {text}");
    }
    // Codex could not be run, so it can only be approximate.
    assert_eq!(shown[2].1, "approximate");

    tuner.compare("gemini-cli").await;
    tuner
        .wait_peer_presets(2, "gemini-cli's entry to go with it")
        .await;
    let left: Vec<String> = tuner
        .peer_presets()
        .await
        .into_iter()
        .map(|(slug, ..)| slug)
        .collect();
    assert_eq!(left, ["langchain-v1-middleware", "codex-cli"]);
}

// The schedule read "summary of turns 1 to 1", and Inspect offered "Export all sessions" with no session to export.
#[tokio::test]
async fn a_summary_of_one_turn_is_named_in_the_singular_and_an_empty_library_offers_no_export() {
    let browser = Browser::new().await;
    browser
        .open("?tab=tuner&trigger=turns&max_turns=2&keep=1&turns=4")
        .await;
    browser.wait_testid("schedule-row").await;
    let rows: String = browser.read("document.body.innerText").await;
    assert!(rows.contains("summary of turn 1 +"), "{rows}");
    assert!(!rows.contains("turns 1 to 1"), "{rows}");
    browser.click_testid("tab-inspect").await;
    browser.wait_testid("panel-inspect").await;
    assert!(!browser.is_enabled("export").await);
    browser.close().await;
}

// A token budget of 1,000 yielded 1,050-1,440-token requests with no word that the budget
// counts only the verbatim turns.
#[tokio::test]
async fn the_token_budget_says_it_counts_only_the_verbatim_turns() {
    let browser = Browser::new().await;
    browser.open("?tab=tuner&trigger=tokens&budget=1000").await;
    browser.wait_testid("summariser-calls").await;
    let page: String = browser.read("document.body.innerText").await;
    assert!(
        page.contains(
            "Token budget of the verbatim turns (the system prompt and summary come on top)"
        ),
        "{page}"
    );
    browser.close().await;
}

// An invalid link opened fresh had no valid policy to fall back on, and the chart became an
// empty plot with no word of why.
#[tokio::test]
async fn an_invalid_link_says_plainly_why_nothing_is_drawn() {
    let browser = Browser::new().await;
    let tuner = TunerPage::new(&browser);
    browser
        .open("?tab=tuner&trigger=turns&max_turns=6&keep=8")
        .await;
    tuner
        .wait_field_error(
            "keep",
            "(8) must be smaller than",
            "the error at the keep field",
        )
        .await;
    let why = browser.text_of("tuner-nothing-drawn").await;
    assert!(why.starts_with("Nothing is drawn"), "{why}");
    assert_eq!(browser.count_testid("schedule-row").await, 0);
    assert_eq!(
        query::count(&browser, ".chart svg").await,
        0,
        "no empty plot"
    );
    assert!(
        browser
            .text_of("compare-nothing")
            .await
            .contains("Nothing to compare")
    );
    // Fixing the field draws it all.
    browser.set_field("keep", "2").await;
    tuner
        .wait_table_back(10, "the schedule once keep is 2")
        .await;
    assert!(browser.is_absent("tuner-nothing-drawn").await);
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

// A peer preset whose numbers give the same schedule as "this policy" hid the "this policy"
// line exactly, drawn on top of it.
#[tokio::test]
async fn a_preset_with_this_policys_schedule_is_drawn_dashed_over_it_and_named() {
    let browser = Browser::new().await;
    let tuner = TunerPage::new(&browser);
    // Over ten short turns neither this 80 % window policy nor Codex's 90 % ever folds.
    browser
        .open("?tab=tuner&trigger=window&context=8192&turns=10")
        .await;
    tuner.compare("codex-cli").await;
    tuner.compare("openai-cookbook-session").await;
    tuner
        .wait_compare_rows(3, "this policy and two presets")
        .await;
    let lines = tuner.compare_line_styles().await;
    assert_eq!(lines.len(), 3, "{lines:?}");
    let (own, codex, cookbook) = (&lines[0], &lines[1], &lines[2]);
    assert_eq!(own.1, codex.1, "the same requests, point for point");
    assert_ne!(own.1, cookbook.1);
    // This policy's line is solid underneath, Codex's dashed on top, so both show.
    assert_eq!(own.2, "none", "{own:?}");
    assert!(codex.0.contains("same") && codex.2 != "none", "{codex:?}");
    assert_eq!(cookbook.2, "none", "{cookbook:?}");
    let note = tuner.compare_cells("Codex CLI", &[0]).await.swap_remove(0);
    assert!(note.contains("same schedule as this policy"), "{note}");
    assert_eq!(browser.count_testid("same-schedule").await, 1);
    let caption: String = browser
        .read("document.querySelector('[data-testid=compare-chart] figcaption').innerText")
        .await;
    assert!(
        caption.contains("dashed line has the same schedule"),
        "{caption}"
    );
    // Over 120 turns they fold at different turns: drawn apart, no note.
    browser.set_field("turns", "120").await;
    query::wait(
        &browser,
        &query::testid("same-schedule"),
        query::Until::Absent,
        "the note to go once the schedules differ",
    )
    .await;
    let lines = tuner.compare_line_styles().await;
    assert!(lines.iter().all(|l| l.2 == "none"), "{lines:?}");
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

// The preset checkboxes (which presets are compared) were forgotten on reload.
#[tokio::test]
async fn the_presets_compared_are_remembered_on_reload() {
    let browser = Browser::new().await;
    let tuner = TunerPage::new(&browser);
    browser.open("?tab=tuner&turns=30").await;
    tuner.compare("gemini-cli").await;
    tuner.compare("codex-cli").await;
    tuner.wait_compare_rows(3, "two presets ticked").await;
    tuner
        .wait_link_has(
            &["compare=gemini-cli%2Ccodex-cli"],
            "the link to carry the presets",
        )
        .await;
    browser.client.refresh().await.unwrap();
    browser.wait_testid("panel-tuner").await;
    tuner
        .wait_compare_rows(3, "the same two presets after the reload")
        .await;
    assert_eq!(tuner.ticked_presets().await, ["codex-cli", "gemini-cli"]);
    let policies: Vec<String> = query::all(
        &browser,
        &query::testid("compare-row"),
        query::Field::attr("data-policy"),
    )
    .await
    .into_iter()
    .map(|p: Option<String>| p.unwrap_or_default())
    .collect();
    assert_eq!(policies, ["this policy", "Gemini CLI", "Codex CLI"]);
    // Unticking one takes it out of the link too.
    tuner.compare("gemini-cli").await;
    tuner.wait_compare_rows(2, "one preset left").await;
    tuner
        .wait_link_has(&["compare=codex-cli"], "the link to carry the one left")
        .await;
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

// Issue #39: the Tuner predicted every preset with exact o200k_base counts, while LangChain's
// middleware fires on its own count_tokens_approximately. Each preset now names the counter it
// is measured with, and switching the presets to exact counts moves the plotted schedule.
#[tokio::test]
async fn a_presets_counter_is_shown_and_switching_to_exact_counts_moves_its_schedule() {
    let browser = Browser::new().await;
    let tuner = TunerPage::new(&browser);
    browser.open("?tab=tuner&turns=60").await;
    tuner.compare("langchain-v1-middleware").await;
    tuner
        .wait_compare_rows(2, "this policy and LangChain's middleware")
        .await;
    let system = preset("langchain-v1-middleware").unwrap().system;
    let note = browser.wait_testid("compare-counting").await;
    let said = note.text().await.unwrap();
    assert!(
        said.contains("its library's own default counter") && said.contains("English"),
        "{said}"
    );
    // Figures worked by hand in view::tuner's native test: LangChain's own count of the
    // simulated English turns first reaches 4,000 after turn 48, exact o200k_base after 34.
    assert_eq!(
        tuner.compare_cells(system, &[4, 7]).await,
        ["48", "LangChain's count_tokens_approximately"]
    );
    assert_eq!(
        tuner.compare_cells("this policy", &[7]).await,
        ["o200k_base (exact)"]
    );
    let before = tuner.compare_line_styles().await;
    browser
        .wait_testid("compare-counters")
        .await
        .select_by_value("exact")
        .await
        .unwrap();
    query::wait(
        &browser,
        &format!("[data-testid=compare-row][data-policy='{system}'] [data-testid=compare-counter]"),
        query::Until::Contains(query::Field::text(), "switched from"),
        "the preset switched to exact counts",
    )
    .await;
    assert_eq!(
        tuner.compare_cells(system, &[4, 7]).await,
        [
            "34",
            "o200k_base (exact) (switched from LangChain's count_tokens_approximately)"
        ]
    );
    let after = tuner.compare_line_styles().await;
    assert_eq!(before[0].1, after[0].1, "this policy's line stays");
    assert_ne!(before[1].1, after[1].1, "the preset's line moves");
    let said = browser
        .wait_testid("compare-counting")
        .await
        .text()
        .await
        .unwrap();
    assert!(said.contains("exact o200k_base counts"), "{said}");
    // The CSV's parameters name the counter each was measured with.
    let csv = tuner.csv().await;
    let row = csv
        .lines()
        .find(|r| r.starts_with(system))
        .unwrap_or_else(|| panic!("{csv}"));
    assert!(
        row.contains("switched to o200k_base (exact) in place of its default"),
        "{row}"
    );
    // Back to its own counter over Chinese text: LangChain counts far fewer tokens there, so
    // the middleware fires later than over English, or not within the 60 turns.
    browser
        .wait_testid("compare-counters")
        .await
        .select_by_value("own")
        .await
        .unwrap();
    browser
        .wait_testid("tuner-language")
        .await
        .select_by_value("chinese")
        .await
        .unwrap();
    query::wait(
        &browser,
        &query::testid("compare-counting"),
        query::Until::Contains(query::Field::text(), "Chinese"),
        "the note to name the language",
    )
    .await;
    let first = tuner.compare_cells(system, &[4]).await.swap_remove(0);
    assert!(
        first == "never" || first.parse::<u32>().unwrap() > 48,
        "{first}"
    );
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}
