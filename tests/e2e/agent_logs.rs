//! Coding agents' session logs imported through Inspect's file input: the compactions Claude
//! Code and Codex CLI made of their own conversations show as the session's editions, marked
//! with the tool that wrote them, with the drift checks on each; and the session exports and
//! imports back with those editions intact.

use summary_memory::engine::message::WordCounter;
use summary_memory::engine::session::read;

use crate::harness::{Browser, TempDir};
use crate::pages::inspect::InspectPage;

const CLAUDE_CODE: &str = include_str!("../fixtures/transcripts/claude_code_session.jsonl");
const CODEX: &str = include_str!("../fixtures/transcripts/codex_rollout.jsonl");

#[tokio::test]
async fn a_claude_code_sessions_compactions_show_as_its_editions_with_the_drift_checks() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let inspect = InspectPage::open_counted(&browser).await;
    inspect
        .import(&dir.write("0b6f6a4e-session.jsonl", CLAUDE_CODE))
        .await;
    let (note, count) = inspect.wait_import_note("claude-code").await;
    assert_eq!(note, "Read 1 conversation from a Claude Code session log.");
    assert_eq!(count, "1");
    inspect
        .wait_detail_contains(
            "Budget tracker: CSV import",
            "the session named by its title",
        )
        .await;
    let editions = inspect.editions().await.wait_editions(2).await;
    for edition in &editions {
        assert_eq!(edition.summariser, "claude-code", "{editions:?}");
        assert!(
            edition.writer.starts_with("Written by Claude Code"),
            "{editions:?}"
        );
        assert!(edition.survival, "{editions:?}");
    }
    // The first summary keeps the rent the user gave (1450 EUR); the second says 1500, which
    // no message of the session holds.
    assert!(editions[0].unsourced.is_empty(), "{editions:?}");
    assert_eq!(editions[1].unsourced, ["1500"], "{editions:?}");
    // Its diff against the first shows the drift; the first has nothing to differ from.
    assert!(editions[1].removed.contains("1450"), "{editions:?}");
    assert!(editions[1].added.contains("1500"), "{editions:?}");
    assert_eq!(
        (editions[0].added.as_str(), editions[0].removed.as_str()),
        ("", "")
    );
    // The summaries are the editions' text, not messages; the turns after the first boundary
    // stay verbatim.
    let summaries = inspect.editions().await.summaries().await;
    assert!(
        summaries[1].contains("Rent is 1500 EUR a month."),
        "{summaries:?}"
    );
    let states = inspect.archive().await.message_states().await;
    assert!(
        states.len() >= 7,
        "the archive's first rows are drawn: {states:?}"
    );
    assert!(states[..6].iter().all(|s| s == "folded"), "{states:?}");
    assert_eq!(states[6], "verbatim", "{states:?}");
    // Exported and imported back, the tool's editions are intact.
    let exported = inspect.export().await;
    let back = read(exported.as_bytes(), &WordCounter).expect("the export imports");
    let original = read(CLAUDE_CODE.as_bytes(), &WordCounter).unwrap();
    // The page counted tokens with its vocabulary and this test counts words, so the
    // summaries' token counts differ; everything the log said is compared.
    let said = |editions: &[summary_memory::engine::Edition]| {
        editions
            .iter()
            .map(|e| {
                (
                    e.folded,
                    e.previous.clone(),
                    e.summary.clone(),
                    e.provenance,
                    e.tokens_in,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        said(back.sessions[0].memory.editions()),
        said(original.sessions[0].memory.editions())
    );
    browser.close().await;
}

#[tokio::test]
async fn a_codex_rollouts_compactions_show_as_its_editions_with_the_drift_checks() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let inspect = InspectPage::open_counted(&browser).await;
    inspect
        .import(&dir.write("rollout-2026-02-10T08-00-00-0199aa00.jsonl", CODEX))
        .await;
    let (note, _) = inspect.wait_import_note("codex").await;
    assert_eq!(
        note,
        "Read 1 conversation from a Codex CLI session rollout."
    );
    let editions = inspect.editions().await.wait_editions(2).await;
    for edition in &editions {
        assert_eq!(edition.summariser, "codex", "{editions:?}");
        assert!(
            edition
                .writer
                .starts_with("Written by Codex CLI (model gpt-5.1-codex)"),
            "{editions:?}"
        );
    }
    // The second summary speaks of a 25% coupon; the conversation only ever had one of 20%.
    assert!(editions[0].unsourced.is_empty(), "{editions:?}");
    assert_eq!(editions[1].unsourced, ["25%"], "{editions:?}");
    browser.close().await;
}
