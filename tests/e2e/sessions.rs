//! Sessions: import a file, inspect it offline, export it again, keep it across a reload, refuse
//! a broken file, never export the API key, and load the app with the server gone.

use std::time::Duration;

use serde_json::Value;
use summary_memory::engine::edition::Provenance;
use summary_memory::engine::message::WordCounter;
use summary_memory::engine::policy::{Policy, Trigger};
use summary_memory::engine::session::fixture::Scripted;
use summary_memory::engine::session::{Session, export, synthetic};

use summary_memory::view::inspect::InspectView;

use crate::harness::{Browser, StoppableApp, TempDir};

/// Three turns under "summarise at 2, keep 1": two editions, turns 1 and 2 folded.
pub(crate) fn played() -> Session {
    Scripted {
        name: "Aarav's plan".into(),
        summaries: vec![
            "Aarav wants no equities.".into(),
            "Aarav keeps to bonds.".into(),
        ],
        model: Some("m".into()),
        provenance: Provenance::Model,
        ..Scripted::default()
    }
    .play(3)
}

pub(crate) fn write_file(dir: &TempDir, name: &str, text: &str) -> String {
    let path = dir.0.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// What a script returns, read in one WebDriver call.
pub(crate) async fn snapshot<T: serde::de::DeserializeOwned>(browser: &Browser, script: &str) -> T {
    let value = browser
        .client
        .execute(&format!("return {script};"), vec![])
        .await
        .unwrap();
    serde_json::from_value(value).unwrap()
}

pub(crate) async fn import(browser: &Browser, path: &str) {
    browser
        .wait_testid("import-file")
        .await
        .send_keys(path)
        .await
        .unwrap();
}

pub(crate) async fn count(browser: &Browser, testid: &str) -> usize {
    browser.all_testid(testid).await.len()
}

pub(crate) async fn wait_count(browser: &Browser, testid: &str, n: usize) {
    browser
        .wait_until(
            &format!("document.querySelectorAll(\"[data-testid='{testid}']\").length === {n}"),
            &format!("{n} × {testid}"),
        )
        .await;
}

/// Waits until IndexedDB holds `n` session records (the app has opened the database by then).
pub(crate) async fn wait_stored(browser: &Browser, n: u64) {
    let script = "const done = arguments[arguments.length - 1];
        const open = indexedDB.open('summary-memory');
        open.onerror = () => done(-1);
        open.onsuccess = () => {
            try {
                const count = open.result.transaction('sessions').objectStore('sessions').count();
                count.onsuccess = () => { open.result.close(); done(count.result); };
                count.onerror = () => done(-1);
            } catch (e) { done(-1); }
        };";
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    loop {
        let stored = browser.client.execute_async(script, vec![]).await.unwrap();
        if stored.as_u64() == Some(n) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "IndexedDB never held {n} sessions: {stored}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until IndexedDB holds exactly one record and it is (or is not) marked deleted.
async fn wait_one_record(browser: &Browser, deleted: bool) {
    let script = "const done = arguments[arguments.length - 1];
        const open = indexedDB.open('summary-memory');
        open.onerror = () => done(null);
        open.onsuccess = () => {
            try {
                const all = open.result.transaction('sessions').objectStore('sessions').getAll();
                all.onsuccess = () => {
                    open.result.close();
                    done(all.result.map((r) => r.deleted_ms !== undefined));
                };
                all.onerror = () => done(null);
            } catch (e) { done(null); }
        };";
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    loop {
        let stored = browser.client.execute_async(script, vec![]).await.unwrap();
        if stored == serde_json::json!([deleted]) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "IndexedDB never held one record with deleted={deleted}: {stored}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The text of the last export, from the hidden preview the Inspect tab keeps.
pub(crate) async fn exported(browser: &Browser) -> String {
    browser
        .wait_until(
            "document.querySelector(\"[data-testid='export-preview']\").textContent.length > 0",
            "the export",
        )
        .await;
    let value = browser
        .client
        .execute(
            "return document.querySelector(\"[data-testid='export-preview']\").textContent",
            vec![],
        )
        .await
        .unwrap();
    value.as_str().unwrap().to_owned()
}

#[tokio::test]
async fn an_imported_session_is_listed_inspected_exported_and_kept_across_a_reload() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let session = played();
    let file = export(&session, 5, "0.1.0");
    let path = write_file(&dir, "aarav.json", &file);

    browser.open("?tab=inspect").await;
    import(&browser, &path).await;
    wait_count(&browser, "session-item", 1).await;
    wait_count(&browser, "message", 6).await;
    let name = browser
        .wait_testid("session-name")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(name, "Aarav's plan");
    // Read in one script: the virtualised rows may be rebuilt between two WebDriver calls (the
    // vocabulary arriving recounts the session).
    let states: Vec<String> = snapshot(
        &browser,
        "[...document.querySelectorAll(\"[data-testid='message']\")].map(m => m.dataset.state)",
    )
    .await;
    assert_eq!(
        states,
        [
            "folded", "folded", "folded", "folded", "verbatim", "verbatim"
        ]
    );
    assert_eq!(count(&browser, "edition").await, 2);
    let afters: Vec<String> = snapshot(
        &browser,
        "[...document.querySelectorAll(\"[data-testid='edition-after']\")].map(e => e.innerText)",
    )
    .await;
    assert_eq!(
        afters,
        ["Aarav wants no equities.", "Aarav keeps to bonds."]
    );
    let fact = browser.wait_testid("fact").await;
    assert_eq!(
        fact.attr("data-kept").await.unwrap().as_deref(),
        Some("false")
    );
    // The replay starts from the recorded trigger, so it finds the same two cycles.
    assert_eq!(
        browser
            .wait_testid("replay-calls")
            .await
            .text()
            .await
            .unwrap(),
        "2"
    );
    // Beside it, the replay's chart (full history, sliding window, summary memory) and the
    // stacked bar of one request, at the last turn to start with, then at the turn typed in.
    browser
        .wait_until(
            "document.querySelectorAll(\"[data-testid='session-detail'] figure.chart polyline\").length === 3",
            "the replay's three lines",
        )
        .await;
    let view = InspectView::new(&session, &WordCounter);
    let replay = view.replay(&session, view.trigger.clone()).unwrap();
    for turn in [3, 1] {
        if turn != 3 {
            let input = browser.wait_testid("replay-turn").await;
            input.clear().await.unwrap();
            input.send_keys(&turn.to_string()).await.unwrap();
        }
        let expect = view.context_at(&replay, turn).unwrap();
        browser
            .wait_until(
                &format!("document.querySelector(\"[data-testid='last-request']\")?.dataset.turn === '{turn}'"),
                "the stacked bar of the chosen turn",
            )
            .await;
        let bar = browser.wait_testid("last-request").await;
        assert_eq!(
            bar.attr("data-summary-sent").await.unwrap().as_deref(),
            Some(expect.summary_sent.to_string().as_str())
        );
        let mut labels = Vec::new();
        for segment in browser.all_testid("context-segment").await {
            let text = segment.text().await.unwrap();
            labels.push(text.split(" · ").next().unwrap_or_default().to_owned());
        }
        let expect: Vec<String> = expect.segments.into_iter().map(|s| s.label).collect();
        assert_eq!(labels, expect, "turn {turn}");
    }

    // Export, then compare the session part (the envelope's time differs) with the original.
    browser.click_testid("export").await;
    let out: Value = serde_json::from_str(&exported(&browser).await).unwrap();
    let original: Value = serde_json::from_str(&file).unwrap();
    assert_eq!(out["format"], original["format"]);
    assert_eq!(out["session"], original["session"]);

    // IndexedDB keeps it across a reload, once the save has landed.
    wait_stored(&browser, 1).await;
    browser.open("?tab=inspect").await;
    wait_count(&browser, "session-item", 1).await;
    assert_eq!(
        browser
            .wait_testid("session-name")
            .await
            .text()
            .await
            .unwrap(),
        "Aarav's plan"
    );
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

/// Five turns under "summarise once over 4 verbatim messages": a message-count trigger.
fn counted() -> Session {
    Scripted {
        name: "Counted".into(),
        policy: Policy::new(Trigger::MessageCount { max_messages: 4 }).unwrap(),
        summaries: vec!["Summary of the early turns.".into()],
        model: Some("m".into()),
        provenance: Provenance::Model,
        ..Scripted::default()
    }
    .play(5)
}

/// A session recorded under a message-count trigger was replayed as "every N messages", a
/// different trigger, because the replay's form had no message-count kind.
#[tokio::test]
async fn a_message_count_session_replays_under_message_count() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let session = counted();
    let path = write_file(&dir, "counted.json", &export(&session, 5, "0.1.0"));
    let view = InspectView::new(&session, &WordCounter);
    let recorded = view.replay(&session, view.trigger.clone()).unwrap();
    let every = view.replay(&session, Trigger::Every { n: 4 }).unwrap();
    assert_ne!(
        recorded.schedule.rows, every.schedule.rows,
        "the fixture tells the two triggers apart"
    );

    browser.open("?tab=inspect").await;
    // The open session is recounted (and redrawn) once the vocabulary arrives: import after
    // that, so no element read below is replaced while it is read.
    browser
        .wait_until(
            "performance.getEntriesByName('sm-vocab-loaded-o200k_base').length > 0",
            "the o200k_base vocabulary to load",
        )
        .await;
    import(&browser, &path).await;
    let calls = browser
        .wait_testid("replay-calls")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(calls, recorded.schedule.calls.to_string());
    let kind = browser
        .client
        .execute(
            "return document.querySelector(\"[data-testid='replay-trigger']\").value",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(kind.as_str(), Some("messages"));
    let a = browser.wait_testid("replay-a").await;
    assert_eq!(a.prop("value").await.unwrap().as_deref(), Some("4"));
    // Every row fires where the recorded trigger fires, not where "every 4" would.
    let summarised: Vec<String> = snapshot(
        &browser,
        "[...document.querySelectorAll(\"[data-testid='replay-row']\")].map(r => r.dataset.summarisedTo)",
    )
    .await;
    let expect: Vec<String> = recorded.schedule.rows[..summarised.len()]
        .iter()
        .map(|r| r.summarised_to.to_string())
        .collect();
    assert_eq!(summarised, expect);
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

#[tokio::test]
async fn a_malformed_file_shows_what_is_wrong_and_changes_nothing() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let good = write_file(&dir, "good.json", &export(&played(), 5, "0.1.0"));
    let mut broken: Value = serde_json::from_str(&export(&played(), 5, "0.1.0")).unwrap();
    broken["session"]["editions"][1]["cycle"] = 7.into();
    let broken = write_file(&dir, "broken.json", &broken.to_string());
    let not_json = write_file(&dir, "notes.json", "{ this is not json");

    browser.open("?tab=inspect").await;
    import(&browser, &good).await;
    wait_count(&browser, "session-item", 1).await;
    import(&browser, &broken).await;
    let error = browser.wait_testid("error").await;
    assert_eq!(error.attr("role").await.unwrap().as_deref(), Some("alert"));
    let text = error.text().await.unwrap();
    assert!(text.contains("session.editions[1].cycle"), "{text}");
    assert!(text.contains("nothing changed"), "{text}");
    assert_eq!(count(&browser, "session-item").await, 1);

    import(&browser, &not_json).await;
    browser
        .wait_until(
            "document.querySelector(\"[data-testid='error']\").textContent.includes('not valid JSON')",
            "the JSON error",
        )
        .await;
    assert_eq!(count(&browser, "session-item").await, 1);
    browser.close().await;
}

#[tokio::test]
async fn the_api_key_never_appears_in_an_export() {
    const KEY: &str = "sk-e2e-never-exported";
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let path = write_file(&dir, "s.json", &export(&played(), 5, "0.1.0"));

    browser.open("?tab=settings").await;
    browser
        .wait_testid("api-key")
        .await
        .send_keys(KEY)
        .await
        .unwrap();
    browser.click_testid("tab-inspect").await;
    import(&browser, &path).await;
    wait_count(&browser, "session-item", 1).await;
    // The key is still set in Settings: the export could have taken it, and must not.
    browser.click_testid("export").await;
    let one = exported(&browser).await;
    assert!(one.contains("summary-memory-session"), "{one}");
    assert!(!one.contains(KEY));
    let key_kept = browser
        .client
        .execute(
            "return sessionStorage.getItem('summary-memory.api-key')",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(key_kept.as_str(), Some(KEY));
    browser.close().await;
}

#[tokio::test]
async fn after_the_first_visit_the_app_loads_with_the_server_gone() {
    let browser = Browser::new().await;
    let mut app = StoppableApp::start();
    let url = format!(
        "{}?tab=tuner&trigger=turns&max_turns=4&keep=2&turns=10",
        app.url
    );
    browser.client.goto(&url).await.unwrap();
    browser.wait_testid("summariser-calls").await;
    browser
        .wait_until(
            "navigator.serviceWorker && navigator.serviceWorker.controller",
            "the service worker to take control",
        )
        .await;

    app.stop();
    assert!(nothing_listens_at(&app.url), "the server still answers");
    browser.client.goto(&url).await.unwrap();
    let calls = browser
        .wait_testid("summariser-calls")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(calls, "4");
    assert_eq!(count(&browser, "schedule-row").await, 10);
    // Other tabs still open with no network.
    browser.click_testid("tab-inspect").await;
    browser.wait_testid("import-file").await;
    browser.close().await;
}

#[tokio::test]
async fn the_undo_of_a_delete_survives_a_reload() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let path = write_file(&dir, "aarav.json", &export(&played(), 5, "0.1.0"));

    browser.open("?tab=inspect").await;
    import(&browser, &path).await;
    wait_count(&browser, "session-item", 1).await;
    wait_one_record(&browser, false).await;
    browser.click_testid("session-delete").await;
    wait_count(&browser, "session-item", 0).await;
    browser.wait_testid("undo-delete").await;
    // The deleted session is kept in storage, marked deleted, until the undo is given up.
    wait_one_record(&browser, true).await;

    browser.open("?tab=inspect").await;
    let undo = browser.wait_testid("undo-delete").await;
    let notice = browser
        .client
        .find(fantoccini::Locator::Css("p.undo"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(notice.contains("Aarav's plan"), "{notice}");
    assert_eq!(count(&browser, "session-item").await, 0);
    undo.click().await.unwrap();
    wait_count(&browser, "session-item", 1).await;
    wait_count(&browser, "message", 6).await;
    wait_one_record(&browser, false).await;

    // Back for good: after another reload it is listed and there is nothing to undo.
    browser.open("?tab=inspect").await;
    wait_count(&browser, "session-item", 1).await;
    assert_eq!(count(&browser, "undo-delete").await, 0);

    // Dismissing the undo removes the record.
    browser.click_testid("session-delete").await;
    browser.click_testid("undo-dismiss").await;
    wait_stored(&browser, 0).await;
    browser.open("?tab=inspect").await;
    wait_count(&browser, "session-item", 0).await;
    assert_eq!(count(&browser, "undo-delete").await, 0);
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

/// Renames the only listed session in the current window, as a user would: type, then leave.
async fn rename(browser: &Browser, name: &str) {
    let input = browser.wait_testid("session-rename").await;
    input.clear().await.unwrap();
    let tab = String::from(char::from(fantoccini::key::Key::Tab));
    input.send_keys(&format!("{name}{tab}")).await.unwrap();
}

async fn names(browser: &Browser) -> Vec<String> {
    let mut out = Vec::new();
    for e in browser.all_testid("session-name").await {
        out.push(e.text().await.unwrap());
    }
    out.sort();
    out
}

async fn wait_names(browser: &Browser, want: &[&str]) {
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    loop {
        let got = names(browser).await;
        if got == want {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "sessions listed: {got:?}, wanted {want:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn two_tabs_never_silently_overwrite_each_other() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let path = write_file(&dir, "aarav.json", &export(&played(), 5, "0.1.0"));
    browser.open("?tab=inspect").await;
    import(&browser, &path).await;
    wait_count(&browser, "session-item", 1).await;
    wait_stored(&browser, 1).await;
    let a = browser.client.window().await.unwrap();
    let b = browser.client.new_window(true).await.unwrap().handle;
    browser.client.switch_to_window(b.clone()).await.unwrap();
    browser.open("?tab=inspect").await;
    wait_names(&browser, &["Aarav's plan"]).await;

    // A saves a change; B has none of its own, so it shows A's version and says so.
    browser.client.switch_to_window(a.clone()).await.unwrap();
    rename(&browser, "Renamed in A").await;
    wait_names(&browser, &["Renamed in A"]).await;
    browser.client.switch_to_window(b.clone()).await.unwrap();
    wait_names(&browser, &["Renamed in A"]).await;
    let notice = browser
        .wait_testid("remote-notice")
        .await
        .text()
        .await
        .unwrap();
    assert!(notice.contains("changed in another tab"), "{notice}");
    assert_eq!(count(&browser, "remote-keep-copy").await, 0);
    browser.click_testid("remote-dismiss").await;

    // The stored record changes behind B's back (as if a message were lost); B's own rename is
    // then refused, and B offers both versions instead of overwriting either: first B takes
    // the stored one, then, after another such change, keeps its own as a copy.
    let bump = "const done = arguments[arguments.length - 1];
        const open = indexedDB.open('summary-memory');
        open.onsuccess = () => {
            const store = open.result.transaction('sessions', 'readwrite').objectStore('sessions');
            const all = store.getAll();
            all.onsuccess = () => {
                const r = all.result[0];
                r.revision += 1;
                r.name = arguments[0];
                const put = store.put(r);
                put.onsuccess = () => { open.result.close(); done(true); };
                put.onerror = () => done(false);
            };
        };
        open.onerror = () => done(false);";
    let bumped = browser
        .client
        .execute_async(bump, vec![Value::from("Changed elsewhere")])
        .await
        .unwrap();
    assert_eq!(bumped, Value::Bool(true));
    rename(&browser, "Renamed in B").await;
    browser.click_testid("remote-reload").await;
    wait_names(&browser, &["Changed elsewhere"]).await;
    assert_eq!(count(&browser, "remote-notice").await, 0);

    let bumped = browser
        .client
        .execute_async(bump, vec![Value::from("Changed again")])
        .await
        .unwrap();
    assert_eq!(bumped, Value::Bool(true));
    rename(&browser, "Renamed in B").await;
    browser.click_testid("remote-keep-copy").await;
    wait_names(&browser, &["Changed again", "Renamed in B (copy)"]).await;
    wait_stored(&browser, 2).await;
    // A hears of the copy and lists it too.
    browser.client.switch_to_window(a).await.unwrap();
    wait_count(&browser, "session-item", 2).await;
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

#[tokio::test]
async fn a_five_thousand_turn_session_opens_with_few_rows_and_the_keyboard_reaches_its_last_turn() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let path = write_file(&dir, "long.json", &export(&synthetic(5_000), 5, "0.1.0"));

    browser.open("?tab=inspect").await;
    import(&browser, &path).await;
    browser.wait_testid("session-detail").await;
    browser.wait_testid("message").await;
    let detail = browser
        .wait_testid("session-detail")
        .await
        .text()
        .await
        .unwrap();
    assert!(detail.contains("Archive (5000 turns)"), "{detail:.300}");
    // Virtualised: a window of rows, not 10,000 messages, 1,249 editions and 5,000 replay rows.
    let (messages, editions, replay) = (
        count(&browser, "message").await,
        count(&browser, "edition").await,
        count(&browser, "replay-row").await,
    );
    assert!(
        (1..100).contains(&messages),
        "{messages} message rows in the page"
    );
    assert!(
        (1..40).contains(&editions),
        "{editions} edition rows in the page"
    );
    assert!(
        (1..100).contains(&replay),
        "{replay} replay rows in the page"
    );
    assert_eq!(
        browser
            .wait_testid("message")
            .await
            .attr("data-turn")
            .await
            .unwrap()
            .as_deref(),
        Some("1")
    );

    // The archive's scroll box takes the keyboard: End goes to the bottom, where the last
    // turn's reply is rendered and in view.
    let archive = browser
        .client
        .find(fantoccini::Locator::Css(".vlist.archive"))
        .await
        .unwrap();
    archive.click().await.unwrap();
    let last = "document.querySelector(\"[data-testid='message'][data-turn='5000'][data-role='assistant']\")";
    let in_view = format!(
        "(() => {{ const box = document.querySelector('.vlist.archive').getBoundingClientRect();
            const row = {last}; if (!row) return false;
            const r = row.getBoundingClientRect();
            return r.bottom > box.top && r.top < box.bottom; }})()"
    );
    let end = String::from(char::from(fantoccini::key::Key::End));
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    loop {
        archive.send_keys(&end).await.unwrap();
        tokio::time::sleep(Duration::from_millis(150)).await;
        let shown = browser
            .client
            .execute(&format!("return !!({in_view})"), vec![])
            .await
            .unwrap();
        if shown == Value::Bool(true) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the last turn never came into view"
        );
    }
    let text = browser
        .client
        .execute(&format!("return {last}.textContent"), vec![])
        .await
        .unwrap();
    assert!(text.as_str().unwrap().contains("For turn 5000:"), "{text}");
    let messages = count(&browser, "message").await;
    assert!(messages < 100, "{messages} message rows after scrolling");
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "{errors:?}");
    browser.close().await;
}

/// True when nothing listens at `url` any more.
fn nothing_listens_at(url: &str) -> bool {
    let addr = url.trim_start_matches("http://").trim_end_matches('/');
    std::net::TcpStream::connect(addr).is_err()
}
