//! Nothing typed or received is lost: a reload mid-reply or mid-summary, leaving the page, the
//! chat box's draft, storage that fails (a full disk, no IndexedDB at all), deleting to free
//! space, a stored record that does not read, two tabs on one live chat, and an unreadable
//! settings record. Storage failures are simulated in the page, injected before the app's
//! scripts run through the DevTools Protocol.

use std::time::Duration;

use serde_json::{Value, json};
use summary_memory::engine::session::{export, export_all};

use crate::harness::text;
use crate::harness::{Browser, TempDir};
use crate::openai_server::{Reply, TestServer};
use crate::pages::chat::{ChatPage, Setup};
use crate::pages::inspect::{InspectPage, StoredSessions};
use crate::pages::query::{self, Field, Until, testid};
use crate::pages::settings::SettingsPage;
use crate::sessions::played;

/// `IDBObjectStore.prototype.put` throws `QuotaExceededError` while `window.__diskFull` is
/// true (from the start when `full`), as a browser whose storage quota is used up does.
fn full_disk(full: bool) -> String {
    format!(
        "window.__diskFull = {full};
         const realPut = IDBObjectStore.prototype.put;
         IDBObjectStore.prototype.put = function (...args) {{
             if (window.__diskFull) {{
                 throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
             }}
             return realPut.apply(this, args);
         }};"
    )
}

/// Takes IndexedDB away, as a browser that has none (or a private window that refuses it).
const NO_INDEXEDDB: &str =
    "Object.defineProperty(window, 'indexedDB', { value: undefined, configurable: true });";

/// Reloads the page as a crash or a closed tab would lose it: without the "leave the page?"
/// prompt the app asks for while something is unsaved (a capturing listener on the window runs
/// before the app's and stops it).
async fn reload_regardless(browser: &Browser) {
    browser
        .client
        .execute(
            "window.addEventListener('beforeunload', (e) => e.stopImmediatePropagation(), true);",
            vec![],
        )
        .await
        .unwrap();
    browser.client.refresh().await.unwrap();
    browser.wait_testid("tab-chat").await;
}

/// Turns the simulated full disk of [`full_disk`] on or off.
async fn set_disk_full(browser: &Browser, full: bool) {
    browser
        .client
        .execute("window.__diskFull = arguments[0];", vec![json!(full)])
        .await
        .unwrap();
}

/// Waits until the app no longer asks to warn before the page is left: everything it holds is
/// stored.
async fn wait_nothing_unsaved(browser: &Browser, what: &str) {
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    while warns_on_leave(browser).await {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The chat box's draft.
async fn draft(browser: &Browser) -> Option<String> {
    query::one(browser, &testid("chat-input"), Field::prop("value")).await
}

/// Whether the app asks to warn before the page is left now.
async fn warns_on_leave(browser: &Browser) -> bool {
    let value = browser
        .client
        .execute(
            "const e = new Event('beforeunload', { cancelable: true }); \
             window.dispatchEvent(e); return e.defaultPrevented;",
            vec![],
        )
        .await
        .unwrap();
    value == Value::Bool(true)
}

/// The app-wide storage alert's text, checked to be an alert.
async fn store_alert(browser: &Browser) -> String {
    let alert = browser.wait_testid("store-error").await;
    assert_eq!(alert.attr("role").await.unwrap().as_deref(), Some("alert"));
    alert.text().await.unwrap()
}

const REPLY: &str = "Start with an emergency fund of three months of spending, then pay off the \
    card with the highest rate, then put a fixed share of each salary into a broad index fund, \
    and look at the plan again once a year or whenever your income changes.";

#[tokio::test]
async fn a_reload_mid_reply_keeps_the_message_and_what_had_arrived_and_offers_retry() {
    let server = TestServer::start().await;
    server.chunk_delay(Duration::from_millis(120));
    server.script([text(REPLY), text("A short answer.")]);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("plan my savings").await;
    query::wait(
        &browser,
        "[data-state='streaming'] .content",
        Until::LongerThan(Field::text(), 30),
        "part of the reply",
    )
    .await;
    assert!(
        warns_on_leave(&browser).await,
        "a reply arriving is unsaved"
    );
    // The reply is saved as it arrives, at most every half second: wait until one save with
    // part of it has landed.
    StoredSessions::new(&browser)
        .wait_for(
            |records| records.len() == 1 && records[0].2.contains(&REPLY[..30]),
            "part of the reply stored",
        )
        .await;
    let before = chat.messages().await[1].2.clone();
    reload_regardless(&browser).await;
    server.chunk_delay(Duration::ZERO);

    query::wait_count(&browser, "message", 2).await;
    let shown = chat.messages().await;
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
    assert!(partial.len() >= 30, "{partial:?}");
    assert!(REPLY.starts_with(partial), "{partial:?}");
    assert!(before.trim().starts_with(partial) || partial.starts_with(before.trim()));
    let error = chat.error_text().await;
    assert!(error.contains("Retry"), "{error}");
    browser.click_testid("retry").await;
    chat.wait_settled(3).await;
    let shown = chat.messages().await;
    assert_eq!(shown[2].2, "A short answer.");
    // The retried request did not send the cut reply.
    let last = server
        .requests()
        .into_iter()
        .rev()
        .find(|r| r.method == "POST")
        .unwrap();
    assert!(
        !last.body.to_string().contains("emergency"),
        "{}",
        last.body
    );
    assert!(browser.console_errors().await.is_empty());
    browser.close().await;
}

#[tokio::test]
async fn the_users_message_is_stored_before_its_request_is_sent() {
    let server = TestServer::start().await;
    server.script([Reply::Hang, text("Here it is.")]);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("are you there?").await;
    // The request reaches the server (and hangs there): the message must already be stored.
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    while server.requests().iter().all(|r| r.method != "POST") {
        assert!(std::time::Instant::now() < deadline, "no request");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let stored = StoredSessions::new(&browser).records().await;
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert!(stored[0].2.contains("are you there?"), "{}", stored[0].2);
    reload_regardless(&browser).await;
    query::wait_count(&browser, "message", 1).await;
    assert_eq!(chat.messages().await[0].2, "are you there?");
    browser.click_testid("retry").await;
    chat.wait_settled(2).await;
    assert_eq!(chat.messages().await[1].2, "Here it is.");
    browser.close().await;
}

#[tokio::test]
async fn a_summary_cut_off_by_a_reload_is_offered_again_and_committed_once() {
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
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    for (n, q) in ["q1", "q2", "q3", "q4"].into_iter().enumerate() {
        chat.send(q).await;
        chat.wait_settled(2 * (n + 1)).await;
    }
    let deadline = std::time::Instant::now() + crate::harness::PATIENCE;
    while server
        .requests()
        .iter()
        .filter(|r| r.method == "POST")
        .count()
        < 5
    {
        assert!(std::time::Instant::now() < deadline, "no summary request");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    reload_regardless(&browser).await;
    query::wait_count(&browser, "message", 8).await;
    let error = chat.error_text().await;
    assert!(error.contains("summary"), "{error}");
    assert!(browser.is_absent("summary").await);
    browser.click_testid("retry").await;
    let summary = browser.wait_testid("summary").await.text().await.unwrap();
    assert!(summary.contains("four questions"), "{summary}");
    // Reloaded again once the edition is stored: nothing is offered, nothing runs twice.
    StoredSessions::new(&browser)
        .wait_for(
            |records| records.len() == 1 && records[0].2.contains("four questions"),
            "the edition stored",
        )
        .await;
    wait_nothing_unsaved(&browser, "the summary's cycle to be stored").await;
    reload_regardless(&browser).await;
    browser.wait_testid("summary").await;
    query::wait_count(&browser, "message", 8).await;
    assert!(browser.is_absent("retry").await);
    browser.click_testid("tab-editions").await;
    browser.wait_testid("edition").await;
    assert_eq!(browser.count_testid("edition").await, 1);
    assert_eq!(
        server
            .requests()
            .iter()
            .filter(|r| r.method == "POST")
            .count(),
        6,
        "no request after the reload"
    );
    browser.close().await;
}

#[tokio::test]
async fn leaving_the_page_warns_only_while_something_is_unsaved() {
    let server = TestServer::start().await;
    server.chunk_delay(Duration::from_millis(100));
    server.script([text(REPLY)]);
    let browser = Browser::new().await;
    browser.before_every_page(&full_disk(false)).await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    assert!(!warns_on_leave(&browser).await, "nothing to lose");
    chat.send("plan my savings").await;
    browser.wait_testid("stop").await;
    assert!(warns_on_leave(&browser).await, "a reply is arriving");
    chat.wait_settled(2).await;
    wait_nothing_unsaved(&browser, "the finished reply to be stored").await;
    // A change the full disk refuses is unsaved, and leaving warns again.
    set_disk_full(&browser, true).await;
    browser.click_testid("tab-chat").await;
    browser.set_field("fact-input", "savings").await;
    browser.click_testid("fact-add").await;
    store_alert(&browser).await;
    assert!(warns_on_leave(&browser).await, "a refused write");
    browser.close().await;
}

#[tokio::test]
async fn the_draft_survives_a_tab_switch_and_a_reload() {
    let server = TestServer::start().await;
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    browser
        .wait_testid("chat-input")
        .await
        .send_keys("half a thought")
        .await
        .unwrap();
    browser.click_testid("tab-tuner").await;
    browser.click_testid("tab-chat").await;
    browser.wait_testid("chat-input").await;
    assert_eq!(draft(&browser).await.as_deref(), Some("half a thought"));
    browser.client.refresh().await.unwrap();
    browser.wait_testid("chat-input").await;
    assert_eq!(draft(&browser).await.as_deref(), Some("half a thought"));
    // Sending takes the draft.
    query::wait(
        &browser,
        &testid("send"),
        Until::Is(Field::prop("disabled"), &json!(false)),
        "Send to be enabled",
    )
    .await;
    browser.click_testid("send").await;
    chat.wait_settled(2).await;
    browser.client.refresh().await.unwrap();
    query::wait_count(&browser, "message", 2).await;
    assert_eq!(draft(&browser).await.as_deref(), Some(""));
    browser.close().await;
}

#[tokio::test]
async fn a_full_disk_is_an_alert_on_every_tab_the_app_goes_on_and_export_still_works() {
    let browser = Browser::new().await;
    browser.before_every_page(&full_disk(true)).await;
    let dir = TempDir::new();
    let path = dir.write("aarav.json", &export(&played(), 5, "0.1.0"));
    let inspect = InspectPage::open(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(1).await;
    let alert = store_alert(&browser).await;
    assert!(alert.contains("storage is full"), "{alert}");
    assert!(alert.contains("xport"), "says to export: {alert}");
    assert!(
        browser.is_absent("error").await,
        "shown once, not again in Inspect"
    );
    for tab in ["tab-chat", "tab-editions", "tab-settings"] {
        browser.click_testid(tab).await;
        assert!(store_alert(&browser).await.contains("storage is full"));
    }
    browser.wait_testid("store-export").await;
    // Export works from memory.
    let inspect = InspectPage::click_tab(&browser).await;
    assert!(inspect.export().await.contains("Aarav's plan"));
    // Room again: the next change writes, and the alert goes.
    set_disk_full(&browser, false).await;
    inspect.rename_in_place("Kept").await;
    let stored = StoredSessions::new(&browser);
    stored.wait_count(1).await;
    query::wait(
        &browser,
        &testid("store-error"),
        Until::Absent,
        "the alert to go",
    )
    .await;
    assert_eq!(stored.records().await[0].0, "Kept");
    browser.close().await;
}

#[tokio::test]
async fn with_no_indexeddb_the_alert_shows_at_start_and_the_live_chat_works_in_memory() {
    let server = TestServer::start().await;
    let browser = Browser::new().await;
    browser.before_every_page(NO_INDEXEDDB).await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    let alert = store_alert(&browser).await;
    assert!(alert.contains("cannot be kept"), "{alert}");
    chat.send("hello there").await;
    chat.wait_settled(2).await;
    assert!(store_alert(&browser).await.contains("cannot be kept"));
    let inspect = InspectPage::click_tab(&browser).await;
    inspect.wait_sessions(1).await;
    assert!(inspect.export().await.contains("hello there"));
    browser.close().await;
}

#[tokio::test]
async fn on_a_full_disk_deleting_frees_space_and_a_held_undo_can_be_dismissed() {
    let browser = Browser::new().await;
    browser.before_every_page(&full_disk(false)).await;
    let dir = TempDir::new();
    let mut second = played();
    second.name = "Second".into();
    let path = dir.write("two.json", &export_all(&[played(), second], 5, "0.1.0"));
    let inspect = InspectPage::open(&browser).await;
    let stored = StoredSessions::new(&browser);
    inspect.import(&path).await;
    inspect.wait_sessions(2).await;
    stored.wait_count(2).await;
    // A deletion keeps the record, marked deleted, for its undo across reloads.
    inspect.library().await;
    browser.click_testid("session-delete").await;
    browser.wait_testid("undo-delete").await;
    stored
        .wait_for(|records| records.iter().any(|r| r.1), "a tombstone")
        .await;
    // The disk fills up: a change is refused, and the alert offers to free the undo's space.
    set_disk_full(&browser, true).await;
    inspect.rename_in_place("Renamed").await;
    let alert = store_alert(&browser).await;
    assert!(alert.contains("until its undo is dismissed"), "{alert}");
    browser.click_testid("store-dismiss-undo").await;
    let left = stored.wait_records(1).await;
    assert!(!left[0].1, "the tombstone is gone");
    // Deleting now removes the record at once; the undo stays offered in this tab.
    browser.click_testid("session-delete").await;
    stored.wait_records(0).await;
    browser.wait_testid("undo-delete").await;
    browser.close().await;
}

#[tokio::test]
async fn a_stored_session_is_compact_and_one_that_does_not_read_can_be_exported_as_stored() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let path = dir.write("aarav.json", &export(&played(), 5, "0.1.0"));
    let inspect = InspectPage::open(&browser).await;
    inspect.import(&path).await;
    let stored = StoredSessions::new(&browser).wait_records(1).await;
    assert!(
        !stored[0].2.contains('\n'),
        "compact, not the indented export"
    );
    // A record that this app cannot read (as if damaged) is skipped, named, and offered as is.
    let broken = "{\"format\": \"summary-memory-session\", \"version\": 99, \"note\": \"kept\"}";
    let planted = StoredSessions::new(&browser)
        .plant("broken", "Damaged", broken)
        .await;
    assert!(planted);
    browser.client.refresh().await.unwrap();
    browser.wait_testid("tab-chat").await;
    let error = browser.wait_testid("error").await.text().await.unwrap();
    assert!(error.contains("Damaged"), "{error}");
    let raw = inspect.export_unreadable().await;
    assert_eq!(raw, broken);
    inspect.wait_sessions(1).await;
    browser.close().await;
}

#[tokio::test]
async fn a_refused_write_of_the_live_chat_offers_the_choice_in_chat() {
    let server = TestServer::start().await;
    let browser = Browser::new().await;
    let chat = ChatPage::connect(&browser, Setup::new(&server.base_url)).await;
    chat.send("one").await;
    chat.wait_settled(2).await;
    let stored = StoredSessions::new(&browser);
    stored.wait_count(1).await;
    // The write of the reply lands first: the stored record holds it, and nothing is unsaved.
    stored
        .wait_for(
            |records| records.len() == 1 && records[0].2.contains("You said: one"),
            "the reply stored",
        )
        .await;
    wait_nothing_unsaved(&browser, "the reply's write to land").await;
    // Another tab saves the live chat behind this one's back (its broadcast lost).
    assert!(stored.bump(5, None).await);
    chat.send("two").await;
    chat.wait_settled(4).await;
    let notice = browser
        .wait_testid("remote-notice")
        .await
        .text()
        .await
        .unwrap();
    assert!(notice.contains("another tab"), "{notice}");
    browser.wait_testid("remote-reload").await;
    browser.click_testid("remote-keep-copy").await;
    query::wait(
        &browser,
        &testid("remote-notice"),
        Until::Absent,
        "the notice to go",
    )
    .await;
    // The chat goes on in the copy: one more message makes no third session.
    chat.send("three").await;
    chat.wait_settled(6).await;
    stored.wait_count(2).await;
    // Every write of the third turn has landed (the copy holds it and nothing is unsaved), so a
    // third session, had one been made, would be stored by now.
    stored
        .wait_for(
            |records| {
                records
                    .iter()
                    .any(|r| r.0.ends_with("(copy)") && r.2.contains("three"))
            },
            "the copy with the third turn",
        )
        .await;
    wait_nothing_unsaved(&browser, "the third turn's writes to land").await;
    let stored = stored.records().await;
    assert_eq!(
        stored.len(),
        2,
        "{:?}",
        stored.iter().map(|r| &r.0).collect::<Vec<_>>()
    );
    let copy = stored.iter().find(|r| r.0.ends_with("(copy)")).unwrap();
    assert!(copy.2.contains("three"), "the copy has the chat on screen");
    browser.close().await;
}

#[tokio::test]
async fn an_unreadable_settings_record_is_said_and_the_remembered_key_is_kept() {
    let browser = Browser::new().await;
    let settings = SettingsPage::open(&browser).await;
    let unreadable = r#"{"version":2,"base_url":"https://api.openai.com/v1","chat_model":42}"#;
    settings.plant(unreadable, "sk-remembered").await;
    browser.client.refresh().await.unwrap();
    let alert = browser.wait_testid("settings-unreadable").await;
    assert_eq!(alert.attr("role").await.unwrap().as_deref(), Some("alert"));
    let text = alert.text().await.unwrap();
    assert!(text.contains("could not be read"), "{text}");
    assert!(text.contains("key is kept"), "{text}");
    assert_eq!(
        settings.field_value("api-key").await.as_deref(),
        Some("sk-remembered")
    );
    assert_eq!(
        settings.field_value("base-url").await.as_deref(),
        Some("https://api.openai.com/v1")
    );
    // The form's save after the load keeps the key where it was, so the next visit has it:
    // wait until that save has replaced the unreadable record.
    settings
        .wait_saved_settings_differ(unreadable, "the form's save after the load")
        .await;
    browser.client.refresh().await.unwrap();
    browser.wait_testid("api-key").await;
    assert_eq!(
        settings.remembered_key().await.as_deref(),
        Some("sk-remembered")
    );
    assert_eq!(
        settings.field_value("api-key").await.as_deref(),
        Some("sk-remembered")
    );
    assert!(
        browser.is_absent("settings-unreadable").await,
        "read whole now"
    );
    browser.close().await;
}
