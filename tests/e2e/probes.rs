//! Inspect's probes against the loopback server, whose [`responder`] answers and grades
//! deterministically: a probe's answer is the fact's words when the request's context holds
//! them, else "I don't know."; the judge grades an answer that gives the words `correct` and one
//! that does not know `unanswerable`, quoting the probe's evidence. What the matrix must show
//! is a table written by hand from the conversation ([`expected`]), not computed with the
//! engine's `points`, `applies` or `answer_messages`, so the test checks that the page asks
//! each edition from what that edition's request held.
//!
//! The matrix appears with a score per edition; a judge reply that is no grade fails only its
//! cell, with Retry; the grades travel in an export and read back offline; the probe set's
//! edits survive the browser being killed.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use summary_memory::engine::facts::PinnedFact;
use summary_memory::engine::library_session::Session;
use summary_memory::engine::probes::ANSWER_LEAD;
use summary_memory::engine::session::export;
use summary_memory::engine::session::fixture::Scripted;

use crate::harness::{Browser, Profile, TempDir, posts};
use crate::openai_server::{Reply, TestServer};
use crate::pages::chat::{ChatPage, Setup};
use crate::pages::inspect::{InspectPage, StoredSessions};
use crate::pages::probes::ProbesPage;

/// Each pinned fact's label and the words that answer it.
pub const FACTS: [(&str, &str); 2] = [("monthly salary", "4,200"), ("landlord", "Okafor")];

/// Five turns under "summarise at 2, keep 1": four editions. Turn 1 states the salary and turn
/// 2 the landlord; the first summary keeps the salary, the second both, the later ones neither.
pub fn session() -> Session {
    let scripted = Scripted {
        name: "Probed".into(),
        turn: |t| match t {
            1 => ("My monthly salary is 4,200 euros.".into(), "Noted.".into()),
            2 => ("My landlord is Mrs Okafor.".into(), "Got it.".into()),
            t => (format!("question {t}"), format!("answer {t}")),
        },
        summaries: vec![
            "The user's monthly salary is 4,200 euros.".into(),
            "The user earns 4,200 euros a month; the landlord is Mrs Okafor.".into(),
            "The user asked about savings.".into(),
        ],
        ..Scripted::default()
    };
    let mut session = scripted.play(5);
    session.pinned = FACTS
        .iter()
        .map(|(label, words)| PinnedFact::phrase(*label, *words))
        .collect();
    session
}

/// How the writer's prompt starts once the test has edited it.
const WRITER: &str = "Write recall questions for this test.";

/// The answer the responder gives to `question` over `context`.
fn answer(question: &str, context: &str) -> String {
    FACTS
        .iter()
        .find(|(label, _)| question.contains(label))
        .filter(|(_, words)| context.contains(words))
        .map_or_else(
            || "I don't know.".to_owned(),
            |(_, words)| format!("It is {words}."),
        )
}

/// The grade the responder's judge gives `answer`.
fn grade(answer: &str) -> &'static str {
    if answer.contains("don't know") {
        "unanswerable"
    } else {
        "correct"
    }
}

/// Answers probe requests and judge requests by their prompts; `bad_judge` is the judge call
/// (counted from 1) that gets a reply that is no grade.
fn responder(bad_judge: Option<usize>) -> impl Fn(&Value) -> Option<Reply> + Send + Sync {
    let judged = Arc::new(AtomicUsize::new(0));
    move |body| {
        let messages = body["messages"].as_array()?;
        let content = |m: &Value| m["content"].as_str().unwrap_or_default().to_owned();
        let last = content(messages.last()?);
        if let Some(question) = last.strip_prefix(ANSWER_LEAD) {
            let context: Vec<String> = messages[..messages.len() - 1].iter().map(content).collect();
            return Some(Reply::Text(answer(question, &context.join("\n"))));
        }
        if content(&messages[0]).starts_with(WRITER) {
            return Some(Reply::Text(
                r#"{"probes": [{"question": "What did the user ask third?", "message": 5, "quote": "question 3"}]}"#.into(),
            ));
        }
        if content(&messages[0]).starts_with("You grade an answer") {
            let n = judged.fetch_add(1, Ordering::SeqCst) + 1;
            if Some(n) == bad_judge {
                return Some(Reply::Text("It looks right to me.".into()));
            }
            let quote = last
                .split("): \"")
                .nth(1)?
                .split("\"\nAnswer to grade: ")
                .next()?;
            let answered = last.rsplit("Answer to grade: ").next()?;
            return Some(Reply::Text(
                serde_json::json!({"grade": grade(answered), "evidence": quote}).to_string(),
            ));
        }
        None
    }
}

/// The grade of every cell the page must ask, (probe id, edition), written by hand from
/// [`session`]: the archive, counted from 0, is turn t's message at 2(t-1) and its reply after
/// it; "summarise at 2, keep 1" folds turn 1 after turn 2, turn 2 after turn 3, turn 3 after
/// turn 4 and turn 4 after turn 5, so edition k's request sends turn k+1 verbatim and the
/// summary of cycle k (1: the salary; 2: the salary and the landlord; 3 and 4: neither).
/// - Probe 1, the salary (message 0): folded from edition 1 and never restated, so asked at
///   editions 1-4; the answer has "4,200" at 1 and 2 (correct), not at 3 and 4 (unanswerable).
/// - Probe 2, the landlord (message 2): turn 2 is still verbatim at edition 1, so asked at
///   editions 2-4; "Okafor" is in edition 2's summary only.
fn expected() -> BTreeMap<(String, String), &'static str> {
    const HAND: [(u32, u32, &str); 7] = [
        (1, 1, "correct"),
        (1, 2, "correct"),
        (1, 3, "unanswerable"),
        (1, 4, "unanswerable"),
        (2, 2, "correct"),
        (2, 3, "unanswerable"),
        (2, 4, "unanswerable"),
    ];
    HAND.iter()
        .map(|(probe, cycle, grade)| ((probe.to_string(), cycle.to_string()), *grade))
        .collect()
}

/// The score each edition must show, from [`expected`].
fn expected_scores(grades: &BTreeMap<(String, String), &str>) -> Vec<(String, Option<String>)> {
    let mut per: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
    for ((_, cycle), grade) in grades {
        per.entry(cycle.parse().unwrap()).or_default().push(grade);
    }
    let editions = session().memory.editions().len() as u32;
    (1..=editions)
        .map(|c| {
            let score = per.get(&c).map(|g| {
                let right = g.iter().filter(|g| **g == "correct").count();
                format!("{:.2}", right as f64 / g.len() as f64)
            });
            (c.to_string(), score)
        })
        .collect()
}

/// The graded cells the page shows, keyed as [`expected`].
fn graded(cells: &[(String, String, String)]) -> BTreeMap<(String, String), String> {
    cells
        .iter()
        .filter(|(_, _, g)| g != "verbatim")
        .map(|(p, c, g)| ((p.clone(), c.clone()), g.clone()))
        .collect()
}

fn as_owned(grades: &BTreeMap<(String, String), &str>) -> BTreeMap<(String, String), String> {
    grades
        .iter()
        .map(|(k, v)| (k.clone(), (*v).to_owned()))
        .collect()
}

/// Connects Settings to `server`, imports the session and adds its generated probes.
async fn ready<'a>(browser: &'a Browser, server: &TestServer, dir: &TempDir) -> ProbesPage<'a> {
    let probes = imported(
        browser,
        server,
        dir,
        "probed.json",
        &export(&session(), 5, "0.1.0"),
    )
    .await;
    probes.generate(FACTS.len()).await;
    probes
}

/// Connected to `server`, with `text` imported as the file `name` and open in Inspect.
async fn imported<'a>(
    browser: &'a Browser,
    server: &TestServer,
    dir: &TempDir,
    name: &str,
    text: &str,
) -> ProbesPage<'a> {
    ChatPage::connect(browser, Setup::new(&server.base_url)).await;
    let inspect = InspectPage::click_tab(browser).await;
    inspect.wait_vocabulary().await;
    inspect.import(&dir.write(name, text)).await;
    inspect.wait_sessions(1).await;
    let probes = ProbesPage::new(browser);
    probes.here().await;
    probes
}

#[tokio::test]
async fn a_probe_matrix_is_graded_with_a_score_per_edition_and_reads_back_offline() {
    let want = expected();
    let graded_kinds: Vec<&str> = want.values().copied().collect();
    assert!(
        graded_kinds.contains(&"correct") && graded_kinds.contains(&"unanswerable"),
        "the session must give a mix of grades: {want:?}"
    );
    let server = TestServer::start().await;
    server.respond_with(responder(None));
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let probes = ready(&browser, &server, &dir).await;

    // The price comes first, and nothing is sent for it.
    let (calls, tokens) = probes.estimated_calls().await;
    assert_eq!(calls, 2 * want.len() as u64);
    assert!(tokens > 0);
    assert!(posts(&server).is_empty());
    let pending = graded(&probes.cells().await);
    assert!(pending.values().all(|g| g == "pending"), "{pending:?}");
    assert_eq!(pending.len(), want.len());

    probes.run().await;
    probes.wait_status("done").await;
    assert_eq!(posts(&server).len(), 2 * want.len());
    assert_eq!(graded(&probes.cells().await), as_owned(&want));
    assert_eq!(probes.scores().await, expected_scores(&want));
    let answers = probes.answers().await;
    assert!(
        answers.iter().any(|a| a.contains("It is 4,200.")),
        "{answers:?}"
    );
    // Once every cell is graded there is nothing left to run.
    assert_eq!(probes.estimated_calls().await.0, 0);

    // Exported, then imported into another browser with no endpoint: the same matrix.
    let exported = InspectPage::new(&browser).export().await;
    browser.close().await;
    drop(server);
    let offline = Browser::new().await;
    let inspect = InspectPage::open(&offline).await;
    inspect.import(&dir.write("exported.json", &exported)).await;
    inspect.wait_sessions(1).await;
    let probes = ProbesPage::new(&offline);
    probes.wait_probes(FACTS.len()).await;
    assert_eq!(graded(&probes.cells().await), as_owned(&want));
    assert_eq!(probes.scores().await, expected_scores(&want));
    assert!(probes.unavailable().await);
    offline.close().await;
}

#[tokio::test]
async fn a_judge_reply_that_is_no_grade_fails_only_its_cell_and_retry_fills_it() {
    let want = expected();
    let server = TestServer::start().await;
    server.respond_with(responder(Some(2)));
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let probes = ready(&browser, &server, &dir).await;
    probes.run().await;
    probes.wait_status("failed").await;

    // The first cell is graded, the second failed, the rest still to ask; nothing more is sent.
    let shown = graded(&probes.cells().await);
    // The run asks probe by probe, then edition by edition: the keys' order (ids and cycles
    // are under ten).
    let asked: Vec<&(String, String)> = want.keys().collect();
    let (first, second) = (asked[0], asked[1]);
    assert_eq!(shown[first], want[first]);
    assert_eq!(shown[second], "failed");
    for key in &asked[2..] {
        assert_eq!(shown[*key], "pending", "{key:?}");
    }
    let sent = posts(&server).len();
    assert_eq!(sent, 4);
    crate::harness::pause(500).await;
    assert_eq!(posts(&server).len(), sent);

    probes.retry().await;
    probes.wait_status("done").await;
    assert_eq!(graded(&probes.cells().await), as_owned(&want));
    assert_eq!(probes.scores().await, expected_scores(&want));
    // Retry asked the judge again with the answer it already had, not the answer too.
    assert_eq!(posts(&server).len(), 2 * want.len() + 1);
    browser.close().await;
}

#[tokio::test]
async fn the_probe_sets_edits_survive_the_browser_being_killed() {
    let profile = Profile::new();
    let browser = Browser::on_profile(&profile).await;
    let dir = TempDir::new();
    let inspect = InspectPage::open(&browser).await;
    inspect.wait_vocabulary().await;
    inspect
        .import(&dir.write("probed.json", &export(&session(), 5, "0.1.0")))
        .await;
    inspect.wait_sessions(1).await;
    let probes = ProbesPage::new(&browser);
    // Without an endpoint the set can still be made, and the page says where to connect one.
    probes.generate(FACTS.len()).await;
    assert!(probes.unavailable().await);
    probes
        .add("What did the user ask third?", 5, "question 3")
        .await;
    probes.wait_probes(3).await;
    probes.remove("landlord").await;
    probes.wait_probes(2).await;
    probes
        .edit_first("What does the user earn each month?")
        .await;
    browser
        .wait_until(
            "document.querySelector(\"[data-testid='probe-row']\").dataset.source === 'user'",
            "the edited probe to be the user's",
        )
        .await;
    // A bad probe is refused with its reason, and the set is unchanged.
    probes.add("What else?", 99, "").await;
    browser
        .wait_text_contains("probes-error", "not in the archive", "the refusal")
        .await;
    let questions = probes.questions().await;
    assert_eq!(
        questions,
        [
            "What does the user earn each month?",
            "What did the user ask third?"
        ]
    );
    StoredSessions::new(&browser)
        .wait_for(
            |records| {
                records.len() == 1
                    && records[0].2.contains("What did the user ask third?")
                    && records[0].2.contains("What does the user earn each month?")
                    && !records[0].2.contains("landlord?")
            },
            "the edited probe set stored",
        )
        .await;
    browser.crash().await;

    let browser = Browser::on_profile(&profile).await;
    let inspect = InspectPage::open(&browser).await;
    inspect.wait_sessions(1).await;
    crate::pages::query::click(&browser, "[data-testid='session-item'] button.open").await;
    let probes = ProbesPage::new(&browser);
    probes.wait_probes(2).await;
    assert_eq!(probes.questions().await, questions);
    browser.close().await;
}

#[tokio::test]
async fn the_model_writes_probes_with_the_prompt_the_user_edited() {
    let server = TestServer::start().await;
    server.respond_with(responder(None));
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let probes = imported(
        &browser,
        &server,
        &dir,
        "probed.json",
        &export(&session(), 5, "0.1.0"),
    )
    .await;
    let prompt = format!("{WRITER} One per figure.");
    probes.edit_writer_prompt(&prompt).await;
    probes.write_probes(1).await;
    assert_eq!(probes.questions().await, ["What did the user ask third?"]);
    let asked = posts(&server);
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["messages"][0]["content"], prompt.as_str());
    assert_eq!(
        asked[0]["response_format"]["json_schema"]["name"], "probes",
        "{:?}",
        asked[0]["response_format"]
    );
    browser.close().await;
}

/// Another tool's session: a Claude Code log, its two compactions read as editions, probed and
/// graded like any session of this app.
#[tokio::test]
async fn a_claude_code_logs_compactions_are_probed_as_its_editions() {
    const CLAUDE_CODE: &str = include_str!("../fixtures/transcripts/claude_code_session.jsonl");
    let server = TestServer::start().await;
    server.respond_with(responder(None));
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let probes = imported(
        &browser,
        &server,
        &dir,
        "0b6f6a4e-session.jsonl",
        CLAUDE_CODE,
    )
    .await;
    InspectPage::new(&browser)
        .wait_import_note("claude-code")
        .await;
    browser.click_testid("probes-generate").await;
    browser
        .wait_until(
            "document.querySelectorAll(\"[data-testid='probe-row']\").length > 0",
            "probes from the log's rule sentences",
        )
        .await;
    let (calls, _) = probes.estimated_calls().await;
    assert!(calls > 0);
    probes.run().await;
    probes.wait_status("done").await;
    let cells = probes.cells().await;
    let rows = browser.count_testid("probe-row").await;
    assert_eq!(
        cells.len(),
        rows * 2,
        "a cell per probe and compaction: {cells:?}"
    );
    let asked = cells.iter().filter(|(_, _, g)| g != "verbatim").count();
    assert_eq!(calls, 2 * asked as u64);
    assert!(
        cells
            .iter()
            .all(|(_, _, g)| g == "verbatim" || g == "unanswerable" || g == "correct"),
        "{cells:?}"
    );
    assert_eq!(posts(&server).len(), 2 * asked);
    let scored = probes.scores().await;
    assert!(scored.iter().any(|(_, s)| s.is_some()), "{scored:?}");
    browser.close().await;
}

#[tokio::test]
async fn stop_sends_nothing_more_and_retry_finishes_the_same_matrix() {
    let want = expected();
    let server = TestServer::start().await;
    let decide = responder(None);
    server.respond_with(move |body| {
        decide(body).map(|reply| match reply {
            Reply::Text(text) => Reply::DelayedText {
                text,
                delay: std::time::Duration::from_millis(400),
            },
            other => other,
        })
    });
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let probes = ready(&browser, &server, &dir).await;
    probes.run().await;
    probes.wait_status("running").await;
    browser
        .wait_until(
            "document.querySelector(\"[data-testid='probe-cell'][data-grade='correct']\")",
            "a first cell graded",
        )
        .await;
    browser.click_testid("probes-stop").await;
    probes.wait_status("stopped").await;
    let sent = posts(&server).len();
    assert!(sent < 2 * want.len(), "stopped before the end");
    crate::harness::pause(1000).await;
    assert_eq!(posts(&server).len(), sent, "nothing is sent after Stop");
    let shown = graded(&probes.cells().await);
    assert!(shown.values().any(|g| g == "pending"), "{shown:?}");

    probes.retry().await;
    probes.wait_status("done").await;
    assert_eq!(graded(&probes.cells().await), as_owned(&want));
    assert_eq!(probes.scores().await, expected_scores(&want));
    browser.close().await;
}

/// The probe being typed keeps a message number typed wrong and names it beside the field,
/// offline, until it is fixed.
#[tokio::test]
async fn a_message_number_typed_wrong_is_named_beside_its_field_until_fixed() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let inspect = InspectPage::open(&browser).await;
    inspect
        .import(&dir.write("probed.json", &export(&session(), 5, "0.1.0")))
        .await;
    inspect.wait_sessions(1).await;
    ProbesPage::new(&browser).here().await;
    browser.set_field("probe-message", "first").await;
    browser
        .wait_text_contains(
            "probe-message-error",
            "\"first\" is not a message number",
            "the message number named beside its field",
        )
        .await;
    assert_eq!(browser.value_of("probe-message").await, "first");
    browser.set_field("probe-message", "1").await;
    browser
        .wait_gone(
            "probe-message-error",
            "the error gone once the number is fixed",
        )
        .await;
    browser.close().await;
}
