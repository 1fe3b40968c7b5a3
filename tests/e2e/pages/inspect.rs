//! Page object: inspect. The session list, importing by file or by paste, the open session's
//! level and its view bar (each view's own page object: `archive`, `replay`, `probes`, `ab`,
//! `export`), its export; and
//! [`StoredSessions`], the library's IndexedDB records as the tests read them back.

use std::time::Instant;

use fantoccini::key::Key;
use serde_json::{Value, json};
use summary_memory::engine::session::{export, synthetic};

use super::archive::{ArchiveView, SessionEditionsView};
use super::query::{self, Field, Until, testid};
use super::replay::ReplayView;
use crate::harness::{Browser, PATIENCE, TempDir};

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
            // The list is virtualised: it says how many it holds, and draws those in view.
            query::wait(
                self.browser,
                &testid("session-list"),
                Until::Is(Field::data("count"), &json!(n.to_string())),
                &what,
            )
            .await;
        }
    }

    /// The listed sessions' names, sorted (from the library, which it goes back to): those in
    /// view, as the list is virtualised (a few dozen).
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

    /// The open session's Replay view, shown (`pages::replay`).
    pub async fn replay(&self) -> ReplayView<'a> {
        self.show("replay").await;
        ReplayView::new(self.browser)
    }

    /// The open session's Archive view, shown (`pages::archive`).
    pub async fn archive(&self) -> ArchiveView<'a> {
        self.show("archive").await;
        ArchiveView::new(self.browser)
    }

    /// The open session's "Editions and checks" view, shown (`pages::archive`).
    pub async fn editions(&self) -> SessionEditionsView<'a> {
        self.show("editions").await;
        SessionEditionsView::new(self.browser)
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

    /// Opens the app on Inspect (`counted`: and waits for the vocabulary), imports the
    /// twelve-turn session and shows its Replay view.
    pub async fn twelve_turns_on_replay(
        browser: &'a Browser,
        dir: &TempDir,
        counted: bool,
    ) -> InspectPage<'a> {
        let page = if counted {
            InspectPage::open_counted(browser).await
        } else {
            InspectPage::open(browser).await
        };
        let path = dir.write("twelve.json", &export(&synthetic(12), 5, "0.1.0"));
        page.import(&path).await;
        page.wait_sessions(1).await;
        page.show("replay").await;
        page
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
        page.replay()
            .await
            .wait_calls(5, "five summariser calls in the dry run at 4/2")
            .await;
        5
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
