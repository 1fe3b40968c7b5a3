//! Page object: inspect. The session list, importing by file or by paste, the open session's
//! detail (archive, editions, facts), its export, the replay form and the live replay; and
//! [`StoredSessions`], the library's IndexedDB records as the tests read them back.

use std::time::{Duration, Instant};

use fantoccini::key::Key;
use serde_json::{Value, json};
use summary_memory::engine::session::{export, synthetic};

use super::query::{self, Field, Until, testid};
use crate::harness::{Browser, PATIENCE, TempDir};

/// One edition as the open session's detail lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveEdition {
    /// `data-summariser`: `claude-code`, `codex`, `model`, `extractive`, ...
    pub summariser: String,
    /// The line naming who wrote it; empty when the row has none.
    pub writer: String,
    /// The figures its checks mark as in no archived message.
    pub unsourced: Vec<String>,
    /// Whether it shows what its folded turns said that it still holds.
    pub survival: bool,
    /// The words its diff against the summary before marks added, and dropped, run together.
    pub added: String,
    pub removed: String,
}

/// The Inspect tab of one browser.
#[derive(Clone, Copy)]
pub struct InspectPage<'a> {
    browser: &'a Browser,
}

impl<'a> InspectPage<'a> {
    /// The Inspect tab of a page already open (as after a click on its tab).
    pub fn new(browser: &'a Browser) -> InspectPage<'a> {
        InspectPage { browser }
    }

    /// Opens the app on the Inspect tab (a reload when it is already open).
    pub async fn open(browser: &'a Browser) -> InspectPage<'a> {
        InspectPage::open_with(browser, "").await
    }

    /// Opens the app on the Inspect tab with more of a query string (`&trigger=turns...`).
    pub async fn open_with(browser: &'a Browser, query: &str) -> InspectPage<'a> {
        browser.open(&format!("?tab=inspect{query}")).await;
        InspectPage { browser }
    }

    /// Opens the Inspect tab and waits until the o200k_base vocabulary has loaded: imported
    /// sessions are counted with it, so once it is in, no recount redraws the open session while
    /// a test reads it.
    pub async fn open_counted(browser: &'a Browser) -> InspectPage<'a> {
        let page = InspectPage::open(browser).await;
        page.wait_vocabulary().await;
        page
    }

    /// Clicks the Inspect tab (in the same page, so the settings stay).
    pub async fn click_tab(browser: &'a Browser) -> InspectPage<'a> {
        browser.click_testid("tab-inspect").await;
        InspectPage { browser }
    }

    /// Waits until the o200k_base vocabulary has loaded.
    pub async fn wait_vocabulary(&self) {
        query::wait_vocabulary(self.browser, "o200k_base").await;
    }

    /// Imports the file at `path` through the file input.
    pub async fn import(&self, path: &str) {
        self.library().await;
        self.browser
            .wait_testid("import-file")
            .await
            .send_keys(path)
            .await
            .unwrap();
    }

    /// Opens "Paste a transcript instead", pastes `text` into its box and presses Import.
    pub async fn paste(&self, text: &str) {
        self.library().await;
        let open: Option<bool> = query::one(self.browser, ".paste-fold", Field::prop("open")).await;
        if open != Some(true) {
            self.browser.click_testid("paste-open").await;
        }
        self.browser.set_field("paste-transcript", text).await;
        self.browser.click_testid("paste-import").await;
    }

    /// What is left in the transcript box (in the library, which it goes back to).
    pub async fn pasted(&self) -> Option<String> {
        self.library().await;
        self.browser
            .wait_testid("paste-transcript")
            .await
            .prop("value")
            .await
            .unwrap()
    }

    /// Back to the library from an open session ("All sessions"), as a person does to see the
    /// list; nothing when no session is open.
    pub async fn library(&self) {
        if query::count(self.browser, &testid("session-close")).await > 0 {
            self.browser.click_testid("session-close").await;
        }
        query::wait(
            self.browser,
            &testid("session-close"),
            Until::Absent,
            "the library",
        )
        .await;
    }

    /// Shows the open session's view `slug` (`archive`, `editions`, `probes`, `replay`, `ab`,
    /// `export`), as a person clicks its button; nothing when it is shown already.
    pub async fn show(&self, slug: &str) {
        show_view(self.browser, slug).await;
    }

    /// Waits until the library holds `n` sessions: the list's rows, or with a session open the
    /// count on the way back to them.
    pub async fn wait_sessions(&self, n: usize) {
        query::wait(
            self.browser,
            &format!("{}, {}", testid("session-close"), testid("panel-inspect")),
            Until::Present,
            "the Inspect tab",
        )
        .await;
        let what = format!("{n} sessions in the library");
        let shown: Value = query::value(
            self.browser,
            "document.querySelector(\"[data-testid='session-close']\") ? 'session' : 'library'",
        )
        .await;
        if shown == json!("session") {
            query::wait(
                self.browser,
                &testid("session-close"),
                Until::Is(Field::data("count"), &json!(n.to_string())),
                &what,
            )
            .await;
        } else {
            query::wait(
                self.browser,
                &testid("session-item"),
                Until::Count(n),
                &what,
            )
            .await;
        }
    }

    /// The listed sessions' names, sorted (from the library, which it goes back to).
    pub async fn names(&self) -> Vec<String> {
        self.library().await;
        let mut out = Vec::new();
        for e in self.browser.all_testid("session-name").await {
            out.push(e.text().await.unwrap());
        }
        out.sort();
        out
    }

    /// Waits until the listed names, sorted, are `want`.
    pub async fn wait_names(&self, want: &[&str]) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let got = self.names().await;
            if got == want {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "sessions listed: {got:?}, wanted {want:?}"
            );
            crate::harness::pause(50).await;
        }
    }

    /// Every listed session's text, joined by " | ", in one script (from the library, which it
    /// goes back to).
    pub async fn listed(&self) -> String {
        self.library().await;
        let items: Vec<String> =
            query::all(self.browser, &testid("session-item"), Field::text()).await;
        items.join(" | ")
    }

    /// Renames the only listed session, as a user would: type, then leave the field (in the
    /// library, which it goes back to).
    pub async fn rename(&self, name: &str) {
        self.library().await;
        let input = self.browser.wait_testid("session-rename").await;
        input.clear().await.unwrap();
        let tab = String::from(char::from(Key::Tab));
        input.send_keys(&format!("{name}{tab}")).await.unwrap();
    }

    /// Renames the only listed session by setting the field and firing its `change`, with no
    /// focus moved (in the library, which it goes back to).
    pub async fn rename_in_place(&self, name: &str) {
        self.library().await;
        self.browser.set_field("session-rename", name).await;
        query::dispatch(self.browser, &testid("session-rename"), "change").await;
    }

    /// Every archive row's `data-state`, in one script (the virtualised rows may be rebuilt
    /// between two WebDriver calls).
    pub async fn message_states(&self) -> Vec<String> {
        self.show("archive").await;
        query::all(self.browser, &testid("message"), Field::data("state")).await
    }

    /// Every edition's summary as rendered, in one script.
    pub async fn edition_summaries(&self) -> Vec<String> {
        self.show("editions").await;
        query::all(self.browser, &testid("edition-after"), Field::inner_text()).await
    }

    /// Waits until the open session lists `n` editions, then reads each as its row shows it:
    /// its `data-summariser`, who wrote it (empty when the row does not say), the figures its
    /// checks mark unsourced, and whether it shows its survival table.
    pub async fn wait_archive_editions(&self, n: usize) -> Vec<ArchiveEdition> {
        self.show("editions").await;
        let rows = format!("{} {}", testid("session-detail"), testid("edition"));
        query::wait(
            self.browser,
            &rows,
            Until::Count(n),
            &format!("{n} editions listed"),
        )
        .await;
        let script = format!(
            "[...document.querySelectorAll({rows:?})].map((e) => [
                e.dataset.summariser ?? '',
                e.querySelector(\"[data-testid='edition-writer']\")?.innerText ?? '',
                [...e.querySelectorAll(\"[data-testid='unsourced-figure']\")].map((m) => m.textContent),
                !!e.querySelector(\"[data-testid='survival']\"),
                [...e.querySelectorAll(\"[data-testid='edition-diff'] ins\")].map((m) => m.textContent).join(''),
                [...e.querySelectorAll(\"[data-testid='edition-diff'] del\")].map((m) => m.textContent).join(''),
            ])"
        );
        let read: Vec<(String, String, Vec<String>, bool, String, String)> =
            query::value(self.browser, &script).await;
        read.into_iter()
            .map(
                |(summariser, writer, unsourced, survival, added, removed)| ArchiveEdition {
                    summariser,
                    writer,
                    unsourced,
                    survival,
                    added,
                    removed,
                },
            )
            .collect()
    }

    /// Presses Export and returns the text of the export (read from the hidden preview the tab
    /// keeps): the open session's, from its Export view, or with none open every session's.
    pub async fn export(&self) -> String {
        if query::count(self.browser, &testid("session-views")).await > 0 {
            self.show("export").await;
        }
        self.browser.click_testid("export").await;
        self.exported().await
    }

    /// The text of the last export, from the hidden preview the tab keeps.
    pub async fn exported(&self) -> String {
        let preview = testid("export-preview");
        query::wait(
            self.browser,
            &preview,
            Until::NotEmpty(Field::text()),
            "the export",
        )
        .await;
        query::text(self.browser, &preview).await
    }

    /// Closes the open session, if one is, and exports every session in one file.
    pub async fn export_all(&self) -> String {
        self.library().await;
        query::wait(
            self.browser,
            &testid("export"),
            Until::Is(Field::text(), &json!("Export all sessions")),
            "nothing open",
        )
        .await;
        self.export().await
    }

    /// Presses the export of an unreadable stored record and returns it as stored.
    pub async fn export_unreadable(&self) -> String {
        self.browser.click_testid("export-unreadable").await;
        let preview = testid("unreadable-preview");
        query::wait(
            self.browser,
            &preview,
            Until::NotEmpty(Field::text()),
            "the raw export",
        )
        .await;
        query::text(self.browser, &preview).await
    }

    /// Waits for the import note naming `format` (its `data-format`), and returns its text and
    /// its `data-count`.
    pub async fn wait_import_note(&self, format: &str) -> (String, String) {
        query::wait(
            self.browser,
            &format!("{}[data-format='{format}']", testid("import-format")),
            Until::Present,
            &format!("the note that {format} was read"),
        )
        .await;
        let note = self.browser.wait_testid("import-format").await;
        (
            note.text().await.unwrap(),
            note.attr("data-count").await.unwrap().unwrap_or_default(),
        )
    }

    /// Waits until the tab's error holds `needle`.
    pub async fn wait_error_contains(&self, needle: &str, what: &str) {
        query::wait(
            self.browser,
            &testid("error"),
            Until::Contains(Field::text(), needle),
            what,
        )
        .await;
    }

    /// Waits until the open session's detail holds `needle`.
    pub async fn wait_detail_contains(&self, needle: &str, what: &str) {
        query::wait(
            self.browser,
            &testid("session-detail"),
            Until::Contains(Field::text(), needle),
            what,
        )
        .await;
    }

    /// Waits until `n` tool results are shown as rows of their own.
    pub async fn wait_tool_results(&self, n: usize, what: &str) {
        self.show("archive").await;
        query::wait(
            self.browser,
            "[data-testid='message'][data-role='tool'][data-tool-call='result']",
            Until::Count(n),
            what,
        )
        .await;
    }

    /// Presses End in the archive's scroll box until the row of turn `turn`'s reply is in view,
    /// and returns that row's text.
    pub async fn scroll_archive_to_end(&self, turn: u32) -> String {
        self.show("archive").await;
        let archive = self
            .browser
            .client
            .find(fantoccini::Locator::Css(".vlist.archive"))
            .await
            .unwrap();
        archive.click().await.unwrap();
        let row = format!("[data-testid='message'][data-turn='{turn}'][data-role='assistant']");
        let end = String::from(char::from(Key::End));
        let deadline = Instant::now() + PATIENCE;
        loop {
            archive.send_keys(&end).await.unwrap();
            crate::harness::pause(150).await;
            let shown = self
                .browser
                .client
                .execute(
                    "const box = document.querySelector('.vlist.archive').getBoundingClientRect();
                     const row = document.querySelector(arguments[0]); if (!row) return false;
                     const r = row.getBoundingClientRect();
                     return r.bottom > box.top && r.top < box.bottom;",
                    vec![json!(row)],
                )
                .await
                .unwrap();
            if shown == Value::Bool(true) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the last turn never came into view"
            );
        }
        query::text(self.browser, &row).await
    }

    /// Waits until the replay's chart draws `n` lines.
    pub async fn wait_replay_lines(&self, n: usize) {
        self.show("replay").await;
        query::wait(
            self.browser,
            "[data-testid='view-replay'] figure.chart polyline",
            Until::Count(n),
            &format!("the replay's {n} lines"),
        )
        .await;
    }

    /// Types `turn` into the replay's turn field, whose stacked bar then follows.
    pub async fn choose_replay_turn(&self, turn: u32) {
        self.show("replay").await;
        let input = self.browser.wait_testid("replay-turn").await;
        input.clear().await.unwrap();
        input.send_keys(&turn.to_string()).await.unwrap();
    }

    /// Waits until the stacked bar of one request shows turn `turn`.
    pub async fn wait_last_request_turn(&self, turn: u32) {
        query::wait(
            self.browser,
            &testid("last-request"),
            Until::Is(Field::data("turn"), &json!(turn.to_string())),
            "the stacked bar of the chosen turn",
        )
        .await;
    }

    /// The replay form's trigger kind (its select's value).
    pub async fn replay_trigger(&self) -> Option<String> {
        self.show("replay").await;
        query::one(
            self.browser,
            &testid("replay-trigger"),
            Field::prop("value"),
        )
        .await
    }

    /// Every replay row's `data-summarised-to`, in one script.
    pub async fn replay_summarised_to(&self) -> Vec<String> {
        self.show("replay").await;
        query::all(
            self.browser,
            &testid("replay-row"),
            Field::data("summarisedTo"),
        )
        .await
    }

    /// Waits until the dry run counts `calls` summariser calls.
    pub async fn wait_replay_calls(&self, calls: usize, what: &str) {
        self.show("replay").await;
        query::wait(
            self.browser,
            &testid("replay-calls"),
            Until::Is(Field::text(), &json!(calls.to_string())),
            what,
        )
        .await;
    }

    /// Waits until the replay form's error holds `needle`.
    pub async fn wait_replay_error(&self, needle: &str, what: &str) {
        self.show("replay").await;
        query::wait(
            self.browser,
            &testid("replay-error"),
            Until::Contains(Field::text(), needle),
            what,
        )
        .await;
    }

    /// Whether every replayed edition says it was rebuilt from the archive.
    pub async fn every_replay_edition_rebuilt(&self) -> bool {
        let rebuilt: Vec<Option<String>> = query::all(
            self.browser,
            &testid("replay-edition"),
            Field::data("rebuilt"),
        )
        .await;
        rebuilt.iter().all(|r| r.as_deref() == Some("true"))
    }

    /// Every replayed edition's text, read in one script.
    pub async fn replay_editions(&self) -> Vec<String> {
        query::all(self.browser, &testid("replay-edition"), Field::text()).await
    }

    /// Saves the replay and checks that the list now holds it, under a name ending in `suffix`.
    pub async fn save_replay(&self, suffix: &str) {
        self.browser.click_testid("replay-save").await;
        self.browser.wait_testid("replay-saved").await;
        self.wait_sessions(2).await;
        let names = self.listed().await;
        assert!(names.contains(suffix), "the new session is listed: {names}");
    }

    /// Opens Inspect (in the same page, so the settings stay), imports the twelve-turn session
    /// and sets the replay to "summarise at 4 turns, keep 2". Returns the dry run's summariser
    /// calls.
    pub async fn twelve_turns_at_four_two(browser: &'a Browser, dir: &TempDir) -> usize {
        let page = InspectPage::click_tab(browser).await;
        page.wait_vocabulary().await;
        let path = dir.write("twelve.json", &export(&synthetic(12), 5, "0.1.0"));
        page.import(&path).await;
        page.wait_sessions(1).await;
        page.show("replay").await;
        browser.set_field("replay-a", "4").await;
        browser.set_field("replay-b", "2").await;
        page.wait_replay_calls(5, "five summariser calls in the dry run at 4/2")
            .await;
        5
    }

    /// Waits until the live replay's progress is `status` (running, stopped, failed, done).
    pub async fn wait_live_status(&self, status: &str) {
        self.wait_live_status_patiently(status, PATIENCE).await;
    }

    /// [`InspectPage::wait_live_status`] with a patience of its own, for a real model.
    pub async fn wait_live_status_patiently(&self, status: &str, patience: Duration) {
        self.show("replay").await;
        query::wait_patiently(
            self.browser,
            &testid("replay-live-progress"),
            Until::Is(Field::data("status"), &json!(status)),
            &format!("the live replay to be {status}"),
            patience,
        )
        .await;
    }

    /// Whether the replay form is locked (its fields disabled).
    pub async fn replay_form_locked(&self) -> bool {
        self.show("replay").await;
        query::one::<Option<bool>>(
            self.browser,
            &testid("replay-a"),
            Field::matches(":disabled"),
        )
        .await
        .unwrap_or_else(|| panic!("no replay form"))
    }

    /// The note that says the live replay needs an endpoint, read in one script.
    pub async fn live_unavailable_note(&self) -> String {
        self.show("replay").await;
        query::text(self.browser, &testid("replay-live-unavailable")).await
    }
}

/// Shows the open session's view `slug`, as a person clicks its button in the view bar; nothing
/// when it is shown already. The view's panel (`view-{slug}`) is drawn when first opened and
/// hidden, not dropped, when another is shown.
pub async fn show_view(browser: &Browser, slug: &str) {
    let panel = testid(&format!("view-{slug}"));
    let shown: bool = query::value(
        browser,
        &format!(
            "(() => {{ const p = document.querySelector({panel:?}); return !!p && !p.hidden; }})()"
        ),
    )
    .await;
    if !shown {
        browser.click_testid(&format!("session-view-{slug}")).await;
        query::wait(
            browser,
            &panel,
            Until::Is(Field::prop("hidden"), &json!(false)),
            &format!("the session's {slug} view"),
        )
        .await;
    }
}

/// The library's records in IndexedDB, as the page's own origin reads them.
#[derive(Clone, Copy)]
pub struct StoredSessions<'a> {
    browser: &'a Browser,
}

/// One stored record: its name, whether it is marked deleted, its file.
pub type Record = (String, bool, String);

impl<'a> StoredSessions<'a> {
    pub fn new(browser: &'a Browser) -> StoredSessions<'a> {
        StoredSessions { browser }
    }

    /// Every stored record (none when the database cannot be read).
    pub async fn records(&self) -> Vec<Record> {
        let script = "const done = arguments[arguments.length - 1];
            const open = indexedDB.open('summary-memory');
            open.onerror = () => done([]);
            open.onsuccess = () => {
                try {
                    const all = open.result.transaction('sessions').objectStore('sessions').getAll();
                    all.onsuccess = () => {
                        open.result.close();
                        done(all.result.map((r) => [r.name, r.deleted_ms !== undefined, r.file]));
                    };
                    all.onerror = () => done([]);
                } catch (e) { done([]); }
            };";
        let value = self
            .browser
            .client
            .execute_async(script, vec![])
            .await
            .unwrap();
        serde_json::from_value(value).unwrap()
    }

    /// How many records are stored, or -1 when the database cannot be read.
    pub async fn count(&self) -> Value {
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
        self.browser
            .client
            .execute_async(script, vec![])
            .await
            .unwrap()
    }

    /// Waits until IndexedDB holds `n` session records (the app has opened the database by
    /// then).
    pub async fn wait_count(&self, n: u64) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let stored = self.count().await;
            if stored.as_u64() == Some(n) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "IndexedDB never held {n} sessions: {stored}"
            );
            crate::harness::pause(50).await;
        }
    }

    /// Waits until IndexedDB holds exactly one record and it is (or is not) marked deleted.
    pub async fn wait_one(&self, deleted: bool) {
        self.wait_for(
            |records| records.len() == 1 && records[0].1 == deleted,
            &format!("one record with deleted={deleted}"),
        )
        .await;
    }

    /// Waits until `n` records are stored, and returns them.
    pub async fn wait_records(&self, n: usize) -> Vec<Record> {
        self.wait_for(|records| records.len() == n, &format!("{n} records"))
            .await
    }

    /// Waits until the stored records satisfy `test`, and returns them.
    pub async fn wait_for(&self, test: impl Fn(&[Record]) -> bool, what: &str) -> Vec<Record> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let got = self.records().await;
            if test(&got) {
                return got;
            }
            assert!(
                Instant::now() < deadline,
                "IndexedDB never held {what}: {:?}",
                got.iter().map(|r| (&r.0, r.1)).collect::<Vec<_>>()
            );
            crate::harness::pause(50).await;
        }
    }

    /// Changes the first stored record behind the app's back, as another tab whose message was
    /// lost would: its revision goes up by `by`, and its name becomes `name` if one is given.
    /// Returns whether the write succeeded.
    pub async fn bump(&self, by: u64, name: Option<&str>) -> bool {
        let script = "const done = arguments[arguments.length - 1];
            const [by, name] = arguments;
            const open = indexedDB.open('summary-memory');
            open.onsuccess = () => {
                const store = open.result.transaction('sessions', 'readwrite').objectStore('sessions');
                const all = store.getAll();
                all.onsuccess = () => {
                    const r = all.result[0];
                    r.revision += by;
                    if (name !== null) r.name = name;
                    const put = store.put(r);
                    put.onsuccess = () => { open.result.close(); done(true); };
                    put.onerror = () => done(false);
                };
            };
            open.onerror = () => done(false);";
        let done = self
            .browser
            .client
            .execute_async(script, vec![json!(by), json!(name)])
            .await
            .unwrap();
        done == Value::Bool(true)
    }

    /// Stores a record with the id `id`, the name `name` and `file` as its file, as if this app
    /// had written it (damaged or of another version). Returns whether the write succeeded.
    pub async fn plant(&self, id: &str, name: &str, file: &str) -> bool {
        let script = "const done = arguments[arguments.length - 1];
            const [id, name, file] = arguments;
            const open = indexedDB.open('summary-memory');
            open.onsuccess = () => {
                const store = open.result.transaction('sessions', 'readwrite').objectStore('sessions');
                const put = store.put({ id, name, updated_ms: 1, revision: 1, file });
                put.onsuccess = () => { open.result.close(); done(true); };
                put.onerror = () => done(false);
            };
            open.onerror = () => done(false);";
        let done = self
            .browser
            .client
            .execute_async(script, vec![json!(id), json!(name), json!(file)])
            .await
            .unwrap();
        done == Value::Bool(true)
    }
}
