//! The crash tier: the browser killed with SIGKILL, process tree and all, at the moments that
//! matter, each confirmed before the kill (a request seen at the loopback server, a write seen
//! open in IndexedDB through a hook the test installs, a value seen stored), then reopened on the
//! same profile. A reload lets the page flush what it holds and
//! Chromium write localStorage out; a crash, an OOM kill or a power cut does neither, so these
//! tests find what only a reload would have saved (the first of them found the live chat lost:
//! its session's id was in localStorage, which Chromium writes lazily).
//!
//! After each kill the page must show exactly what the user had, nothing duplicated: a cut
//! reply incomplete with Retry, a deleted session still undoable, a setting as it was typed.

use std::time::Duration;

use serde_json::json;

use summary_memory::engine::session::{export, export_all, synthetic};

use crate::harness::{Browser, Profile, TempDir, text};
use crate::openai_server::{Reply, TestServer};
use crate::pages::chat::{ChatPage, Setup};
use crate::pages::inspect::{InspectPage, StoredSessions};
use crate::pages::query::{self, Field, Until};
use crate::pages::settings::SettingsPage;
use crate::sessions::played;

const REPLY: &str = "Start with an emergency fund of three months of expenses, then pay off the \
                     card with the highest rate, and only then think about investing.";

/// The live chat as the reopened page shows it: every message and, at most, one live session.
async fn reopened_chat(
    profile: &Profile,
    messages: usize,
) -> (Browser, Vec<(String, String, String)>) {
    let browser = Browser::on_profile(profile).await;
    // The bare address: the view, the chat and its session must all be found again.
    browser.open("").await;
    let chat = ChatPage::new(&browser);
    chat.wait_messages(messages, "the live chat after the crash")
        .await;
    let shown = chat.messages().await;
    (browser, shown)
}

/// The test's instrumentation of the page's IndexedDB writes, installed through a script: it
/// wraps `IDBDatabase.prototype.transaction` (web-sys calls it through the prototype each time)
/// and counts the read-write transactions the page opens on the `sessions` store
/// (`src/store/sessions.rs`) in `window.__smWrites.opened`. Once `hold` is set, each new one is
/// held open: the hook keeps a request pending in it (a `count` chained from the last one's
/// success), so it can neither commit nor end. A kill then lands on a write of sessions the test
/// has seen in flight (`held`), not on a guess of how long one takes.
const WRITES_HOOK: &str = "(() => {
    if (window.__smWrites) return null;
    const w = (window.__smWrites = { opened: 0, held: 0, hold: false });
    const original = IDBDatabase.prototype.transaction;
    IDBDatabase.prototype.transaction = function (names, mode, ...rest) {
        const tx = original.call(this, names, mode, ...rest);
        if (mode === 'readwrite' && tx.objectStoreNames.contains('sessions')) {
            w.opened += 1;
            if (w.hold) {
                w.held += 1;
                const store = tx.objectStore('sessions');
                const keep = () => { store.count().onsuccess = keep; };
                keep();
            }
        }
        return tx;
    };
    return null;
})()";

/// Installs [`WRITES_HOOK`] in the open page, holding every write from now on.
async fn hold_writes(browser: &Browser) {
    let _: serde_json::Value = browser.read(WRITES_HOOK).await;
    let _: serde_json::Value = browser.read("(window.__smWrites.hold = true, null)").await;
}

/// Waits until the page has opened at least one write of sessions since the hook was
/// installed (held or not).
async fn write_seen(browser: &Browser, what: &str) {
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    while browser.read::<u64>("window.__smWrites.opened").await == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "{what}: the page opened no write of sessions"
        );
        crate::harness::pause(5).await;
    }
}

/// Waits until the page has opened a write of sessions that the hook holds, and returns how
/// many it holds.
async fn write_in_flight(browser: &Browser, what: &str) -> u64 {
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    loop {
        let held: u64 = browser.read("window.__smWrites.held").await;
        if held > 0 {
            return held;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{what}: no write of the page's was seen in flight"
        );
        crate::harness::pause(10).await;
    }
}

/// The sessions stored, without the deleted ones.
async fn live_records(browser: &Browser) -> usize {
    StoredSessions::new(browser)
        .records()
        .await
        .iter()
        .filter(|r| !r.1)
        .count()
}

#[tokio::test]
async fn killed_mid_reply_the_message_and_what_had_arrived_come_back_with_retry() {
    let server = TestServer::start().await;
    server.chunk_delay(Duration::from_millis(120));
    server.script([text(REPLY), text("A short answer.")]);
    let profile = Profile::new();
    let browser = Browser::on_profile(&profile).await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("plan my savings").await;
    chat.wait_streaming_longer_than(30, "part of the reply")
        .await;
    // The reply is saved as it arrives, twice a second: once part of it is stored, kill.
    StoredSessions::new(&browser)
        .wait_for(
            |records| records.len() == 1 && records[0].2.contains(&REPLY[..30]),
            "part of the reply stored",
        )
        .await;
    browser.crash().await;
    server.chunk_delay(Duration::ZERO);

    let (browser, shown) = reopened_chat(&profile, 2).await;
    assert_eq!(
        (
            shown[0].0.as_str(),
            shown[0].1.as_str(),
            shown[0].2.as_str()
        ),
        ("user", "verbatim", "plan my savings")
    );
    assert_eq!(
        (shown[1].0.as_str(), shown[1].1.as_str()),
        ("assistant", "incomplete")
    );
    let partial = shown[1].2.trim();
    assert!(
        partial.len() >= 30 && REPLY.starts_with(partial),
        "{partial:?}"
    );
    let chat = ChatPage::new(&browser);
    assert!(chat.error_text().await.contains("Retry"));
    assert_eq!(live_records(&browser).await, 1, "one live chat, not a copy");
    browser.click_testid("retry").await;
    chat.wait_settled(3).await;
    assert_eq!(chat.messages().await[2].2, "A short answer.");
    assert_eq!(live_records(&browser).await, 1);
    browser.close().await;
}

#[tokio::test]
async fn killed_a_moment_after_send_the_message_is_there_with_retry() {
    let server = TestServer::start().await;
    server.script([Reply::Hang, text("Here it is.")]);
    let profile = Profile::new();
    let browser = Browser::on_profile(&profile).await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("are you there?").await;
    // The crash point, confirmed: the request is at the loopback server (whose reply hangs),
    // so the page has sent it and waits; no fixed delay after Send.
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    while crate::harness::posts(&server).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the request never reached the server"
        );
        crate::harness::pause(5).await;
    }
    browser.crash().await;

    let (browser, shown) = reopened_chat(&profile, 1).await;
    assert_eq!(
        (shown[0].0.as_str(), shown[0].2.as_str()),
        ("user", "are you there?")
    );
    let chat = ChatPage::new(&browser);
    browser.click_testid("retry").await;
    chat.wait_settled(2).await;
    assert_eq!(chat.messages().await[1].2, "Here it is.");
    assert_eq!(live_records(&browser).await, 1, "nothing duplicated");
    browser.close().await;
}

#[tokio::test]
async fn killed_mid_summary_the_summary_is_offered_again_and_committed_once() {
    let server = TestServer::start().await;
    // Four turns make the default trigger (4 turns, keep 2) fire; the summary then hangs.
    server.script([
        text("one"),
        text("two"),
        text("three"),
        text("four"),
        Reply::Hang,
        text("The user asked four questions."),
    ]);
    let profile = Profile::new();
    let browser = Browser::on_profile(&profile).await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    for (n, q) in ["q1", "q2", "q3", "q4"].into_iter().enumerate() {
        chat.send(q).await;
        chat.wait_settled(2 * (n + 1)).await;
    }
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    while crate::harness::posts(&server).len() < 5 {
        assert!(std::time::Instant::now() < deadline, "no summary request");
        crate::harness::pause(20).await;
    }
    browser.crash().await;

    let (browser, _) = reopened_chat(&profile, 8).await;
    let chat = ChatPage::new(&browser);
    assert!(chat.error_text().await.contains("summary"));
    assert!(browser.is_absent("summary").await);
    browser.click_testid("retry").await;
    let summary = browser.wait_testid("summary").await.text().await.unwrap();
    assert!(summary.contains("four questions"), "{summary}");
    browser.click_testid("tab-editions").await;
    browser.wait_testid("edition").await;
    assert_eq!(browser.count_testid("edition").await, 1);
    assert_eq!(
        crate::harness::posts(&server).len(),
        6,
        "one summary asked again, once"
    );
    browser.close().await;
}

#[tokio::test]
async fn killed_mid_import_a_large_file_keeps_whole_sessions_and_again_adds_only_the_rest() {
    // Over 2 MiB: imported in the worker, a batch at a time (`app::import`), each session kept
    // whole under an id of its own content, so what the kill left is whole sessions and the
    // same file imported again adds only the rest.
    const SESSIONS: usize = 700;
    let dir = TempDir::new();
    let all: Vec<_> = (0..SESSIONS)
        .map(|n| {
            let mut session = synthetic(4);
            session.name = format!("Conversation {n:03}");
            session
        })
        .collect();
    let path = dir.write("large.json", &export_all(&all, 5, "0.1.0"));
    let profile = Profile::new();
    let browser = Browser::on_profile(&profile).await;
    let inspect = InspectPage::open(&browser).await;
    inspect.wait_vocabulary().await;
    // The kill lands mid-write, seen: the import's write is open in IndexedDB, held by the
    // test's hook so that it cannot commit first.
    hold_writes(&browser).await;
    inspect.import(&path).await;
    let held = write_in_flight(&browser, "the import").await;
    browser.crash().await;

    let browser = Browser::on_profile(&profile).await;
    let inspect = InspectPage::open(&browser).await;
    inspect.wait_vocabulary().await;
    let names = inspect.names().await;
    // Every write since the hold was cut before its commit: none of the file is there, and
    // none of it half.
    assert!(
        names.is_empty(),
        "{} of {SESSIONS} sessions after a kill while {held} write(s) were in flight",
        names.len()
    );
    let mut unique = names.clone();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "no session twice");
    for (_, _, file) in StoredSessions::new(&browser).records().await {
        let session = summary_memory::engine::session::import_stored(
            file.as_bytes(),
            &summary_memory::engine::message::WordCounter,
        )
        .unwrap();
        assert_eq!(session.memory.archive().len(), 8, "a whole session");
    }
    // Imported again, the file is whole, nothing twice.
    inspect.import(&path).await;
    inspect.wait_sessions(SESSIONS).await;
    StoredSessions::new(&browser)
        .wait_count(SESSIONS as u64)
        .await;
    browser.close().await;
}

#[tokio::test]
async fn killed_right_after_a_rename_the_new_name_stays() {
    let dir = TempDir::new();
    let path = dir.write("aarav.json", &export(&played(), 5, "0.1.0"));
    let profile = Profile::new();
    let browser = Browser::on_profile(&profile).await;
    let inspect = InspectPage::open(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(1).await;
    let _: serde_json::Value = browser.read(WRITES_HOOK).await;
    inspect.rename("Renamed just before the crash").await;
    inspect.wait_names(&["Renamed just before the crash"]).await;
    // The kill follows the rename's write, seen opened by the hook (not held).
    write_seen(&browser, "the rename").await;
    browser.crash().await;

    let browser = Browser::on_profile(&profile).await;
    let inspect = InspectPage::open(&browser).await;
    inspect.wait_names(&["Renamed just before the crash"]).await;
    browser.close().await;
}

#[tokio::test]
async fn killed_right_after_a_delete_the_session_is_gone_and_the_undo_still_offered() {
    let dir = TempDir::new();
    let path = dir.write("aarav.json", &export(&played(), 5, "0.1.0"));
    let profile = Profile::new();
    let browser = Browser::on_profile(&profile).await;
    let inspect = InspectPage::open(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(1).await;
    inspect.library().await;
    let _: serde_json::Value = browser.read(WRITES_HOOK).await;
    browser.click_testid("session-delete").await;
    inspect.wait_sessions(0).await;
    browser.wait_testid("undo-delete").await;
    // The kill follows the delete's write, seen opened by the hook (not held).
    write_seen(&browser, "the delete").await;
    browser.crash().await;

    let browser = Browser::on_profile(&profile).await;
    let inspect = InspectPage::open(&browser).await;
    browser.click_testid("undo-delete").await;
    inspect.wait_sessions(1).await;
    query::wait_count(&browser, "message", 6).await;
    browser.close().await;
}

#[tokio::test]
async fn killed_right_after_a_settings_change_and_a_draft_both_are_kept() {
    let server = TestServer::start().await;
    let profile = Profile::new();
    let browser = Browser::on_profile(&profile).await;
    // An endpoint first, so the message box takes a draft; then a setting changed in the form.
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    browser.click_testid("tab-settings").await;
    SettingsPage::new(&browser)
        .fill(&[("chat-model", "typed-before-the-crash")])
        .await;
    browser.click_testid("tab-chat").await;
    chat.wait_enabled("the message box").await;
    chat.input()
        .await
        .send_keys("a draft typed before the crash")
        .await
        .unwrap();
    let draft = json!("a draft typed before the crash");
    query::wait(
        &browser,
        "[data-testid='chat-input']",
        Until::Is(Field::prop("value"), &draft),
        "the draft in the box",
    )
    .await;
    // Both are in IndexedDB, where the page keeps what it treats as saved: then the kill.
    browser
        .wait_durable("summary-memory.draft", |d| d == draft, "the draft stored")
        .await;
    browser
        .wait_durable(
            "summary-memory.settings",
            |s| s.contains("typed-before-the-crash"),
            "the settings stored",
        )
        .await;
    browser.crash().await;

    let browser = Browser::on_profile(&profile).await;
    // The bare address: the view (the Chat tab) comes back too.
    browser.open("").await;
    browser.wait_testid("panel-chat").await;
    query::wait(
        &browser,
        "[data-testid='chat-input']",
        Until::Is(Field::prop("value"), &draft),
        "the draft after the crash",
    )
    .await;
    let settings = SettingsPage::open(&browser).await;
    assert_eq!(
        settings.value_of("chat-model").await,
        "typed-before-the-crash"
    );
    browser.close().await;
}
