//! What every end-to-end test stands on: the release dist served on loopback, one chromedriver,
//! and a fresh headless Chromium per test; the generic readers and waits the page objects
//! (`pages/`) are built from (texts, attributes, counts, the address bar, storage, the
//! keyboard); and the loopback server's side of a chat (`posts`, `text`, `check_failure`).
//! The scripts that read the page live here and in the page objects, never in a test body.

use std::future::IntoFuture;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::elements::Element;
use fantoccini::key::Key;
use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

use crate::openai_server::{Reply, TestServer};
use crate::pages::chat::{ChatPage, Setup};

/// How long a test waits for something a person would see. Generous, because two cores are
/// shared by the build, the browser and the servers.
pub const PATIENCE: Duration = Duration::from_secs(20);

struct Shared {
    app_url: String,
    driver_url: String,
    _driver: Option<Child>,
}

static SHARED: OnceLock<Shared> = OnceLock::new();

fn shared() -> &'static Shared {
    SHARED.get_or_init(|| {
        let dist = std::env::var("SM_DIST").map(PathBuf::from).unwrap_or_else(|_| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("dist")
        });
        assert!(
            dist.join("index.html").is_file(),
            "no release build in {}: run `trunk build --release --offline` first (scripts/test.sh does)",
            dist.display()
        );
        let app_url = format!("http://{}/", serve_dist(dist));
        let (driver_url, driver) = match std::env::var("SM_WEBDRIVER") {
            Ok(url) => (url, None),
            Err(_) => {
                let (url, child) = start_chromedriver();
                (url, Some(child))
            }
        };
        Shared {
            app_url,
            driver_url,
            _driver: driver,
        }
    })
}

/// Serves the dist folder on a loopback port from a thread of its own, for the whole test run.
fn serve_dist(dist: PathBuf) -> SocketAddr {
    serve_dist_until(dist, std::future::pending(), RequestLog::default()).0
}

/// The paths a server was asked for, in order.
pub type RequestLog = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

/// The release dist the tests run against: `SM_DIST`, or `dist/` in the repository.
pub fn dist_dir() -> PathBuf {
    std::env::var("SM_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("dist"))
}

/// A second copy of the app on its own port, which a test can stop to take the network away.
pub struct StoppableApp {
    pub url: String,
    /// Every path requested from this copy, in order.
    pub requests: RequestLog,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StoppableApp {
    pub fn start() -> StoppableApp {
        StoppableApp::start_with(dist_dir())
    }

    /// Serves another folder than the release dist (a copy with files taken out, say).
    pub fn start_with(dist: PathBuf) -> StoppableApp {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let requests = RequestLog::default();
        let (addr, thread) = serve_dist_until(
            dist,
            async move {
                let _ = stopped.await;
            },
            requests.clone(),
        );
        StoppableApp {
            url: format!("http://{addr}/"),
            requests,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Stops serving and closes every open connection: the app's origin is gone.
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
    }
}

impl Drop for StoppableApp {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Serves `dist` until `until` completes; then the server's runtime, and with it every
/// connection, is dropped.
fn serve_dist_until(
    dist: PathBuf,
    until: impl std::future::Future<Output = ()> + Send + 'static,
    log: RequestLog,
) -> (SocketAddr, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let index = dist.join("index.html");
            // The build's brotli and gzip copies, as a server that serves precompressed files
            // sends them (scripts/precompress.mjs).
            let files = tower_http::services::ServeDir::new(&dist)
                .precompressed_br()
                .precompressed_gzip()
                .fallback(tower_http::services::ServeFile::new(index));
            let app = axum::Router::new()
                .fallback_service(files)
                .layer(axum::middleware::from_fn(
                    move |request: axum::extract::Request, next: axum::middleware::Next| {
                        log.lock().unwrap().push(request.uri().path().to_owned());
                        next.run(request)
                    },
                ));
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            tokio::select! {
                served = axum::serve(listener, app).into_future() => served.unwrap(),
                () = until => {}
            }
        });
    });
    (addr, thread)
}

fn start_chromedriver() -> (String, Child) {
    let port = free_port();
    // Statics are never dropped, so the driver cannot be stopped from here when the tests end.
    // A shell watches this process instead and stops the driver (and with it its browsers) once
    // this process is gone. Its output is dropped: a driver holding the test's stdout open would
    // keep CI waiting.
    let watch = r#"chromedriver --port="$1" & driver=$!
        while kill -0 "$2" 2>/dev/null; do sleep 1; done
        kill "$driver""#;
    let child = Command::new("sh")
        .args([
            "-c",
            watch,
            "sh",
            &port.to_string(),
            &std::process::id().to_string(),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot run sh");
    let deadline = Instant::now() + PATIENCE;
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "chromedriver did not start: is it installed? (scripts/tools.sh --browser)"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    (format!("http://127.0.0.1:{port}"), child)
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The pause between two looks at the page while a test waits. It first checks that every
/// server this test started is still alive ([`crate::third_party::servers_alive`]): a test
/// waiting for a reply from a server that died fails at once, naming it, how it ended and the
/// end of its log, instead of at the end of its patience.
pub async fn pause(millis: u64) {
    if let Err(dead) = crate::third_party::servers_alive() {
        panic!("{dead}");
    }
    tokio::time::sleep(Duration::from_millis(millis)).await;
}

/// One headless Chromium with a fresh profile, pointed at the app.
pub struct Browser {
    pub client: Client,
    /// The profile's folder, and the profile itself when this browser owns it (a crash test's
    /// [`Profile`] outlives the browsers opened on it).
    profile_dir: PathBuf,
    _profile: Option<TempDir>,
    /// A traced browser's trace as read so far from chromedriver's performance log.
    trace: Option<std::sync::Mutex<TraceLog>>,
}

/// What the performance log held so far: every trace event, and chromedriver's warnings that
/// its buffer filled.
#[derive(Default)]
struct TraceLog {
    events: Vec<Value>,
    lost: Vec<String>,
}

/// Reads the performance log once into `log`; false when the browser is gone.
async fn drain_trace(client: &Client, log: &std::sync::Mutex<TraceLog>) -> bool {
    let Ok(entries) = client.issue_cmd(Log("performance")).await else {
        return false;
    };
    let mut log = log.lock().unwrap();
    for entry in entries.as_array().into_iter().flatten() {
        let Some(m) = entry["message"]
            .as_str()
            .and_then(|m| serde_json::from_str::<Value>(m).ok())
        else {
            continue;
        };
        let m = &m["message"];
        if m["method"] == "Tracing.dataCollected" {
            log.events.push(m["params"].clone());
        } else if m["method"] == "Tracing.bufferUsage"
            && (m["params"]["error"].is_string()
                || m["params"]["percentFull"]
                    .as_f64()
                    .is_some_and(|p| p >= 0.999))
        {
            log.lost.push(m["params"].to_string());
        }
    }
    true
}

/// A browser profile that outlives the browsers opened on it: the crash tier kills a browser
/// ([`Browser::crash`]) and opens another on the same profile.
pub struct Profile(TempDir);

impl Profile {
    pub fn new() -> Profile {
        Profile(TempDir::new())
    }
}

impl Browser {
    pub async fn new() -> Browser {
        Browser::on_fresh_profile(false).await
    }

    /// A Chromium whose every task is traced with its thread time (Chromium's `toplevel`
    /// category, and the page's User Timing marks, collected by chromedriver into its
    /// `performance` log), for [`Browser::main_thread_tasks_between`].
    pub async fn traced() -> Browser {
        Browser::on_fresh_profile(true).await
    }

    /// A Chromium on a profile of its own, removed with it.
    async fn on_fresh_profile(traced: bool) -> Browser {
        let profile = TempDir::new();
        let mut browser = Browser::launch(&profile.0, traced).await;
        browser._profile = Some(profile);
        browser
    }

    /// A Chromium on `profile`, which keeps what earlier browsers on it stored.
    pub async fn on_profile(profile: &Profile) -> Browser {
        Browser::launch(&profile.0.0, false).await
    }

    async fn launch(profile: &Path, traced: bool) -> Browser {
        let shared = shared();
        let mut caps = json!({
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--window-size=1280,900",
                    format!("--user-data-dir={}", profile.display()),
                ]
            },
            "goog:loggingPrefs": { "browser": "ALL" }
        });
        if traced {
            caps["goog:loggingPrefs"]["performance"] = json!("ALL");
            caps["goog:chromeOptions"]["perfLoggingPrefs"] = json!({
                "enableNetwork": false,
                "enablePage": false,
                // The renderers' tasks as DevTools shows them (`RunTask`, with thread time),
                // not `toplevel` (every thread of every process): chromedriver's trace buffer
                // is of fixed size, and `toplevel` filled it in the first seconds of a large
                // import (see `main_thread_tasks_between`).
                "traceCategories": "-*,disabled-by-default-devtools.timeline,blink.user_timing",
            });
        }
        let Value::Object(caps) = caps else {
            unreachable!()
        };
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&shared.driver_url)
            .await
            .expect("could not start a Chromium session through chromedriver");
        let trace = traced.then(std::sync::Mutex::default);
        Browser {
            client,
            profile_dir: profile.to_owned(),
            _profile: None,
            trace,
        }
    }

    /// Kills this browser's whole process tree with SIGKILL, as a crash, an OOM kill or a power
    /// cut ends it: no unload handler runs and nothing is flushed that the browser had not
    /// written already (localStorage, which Chromium writes lazily, loses its last changes).
    /// Returns once every process of it is gone.
    pub async fn crash(self) {
        let flag = format!("--user-data-dir={}", self.profile_dir.display());
        let tree = process_tree(&flag);
        assert!(!tree.is_empty(), "no Chromium process runs with {flag}");
        for pid in &tree {
            // A process that ended meanwhile is no error here.
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
        }
        let deadline = Instant::now() + PATIENCE;
        while tree.iter().any(|pid| alive(*pid)) {
            assert!(Instant::now() < deadline, "Chromium outlived SIGKILL");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // The WebDriver session died with the browser; dropping the client lets it go.
        drop(self.client);
    }

    /// The app's URL with a query string, e.g. `?tab=tuner`.
    pub fn app_url(query: &str) -> String {
        format!("{}{query}", shared().app_url)
    }

    /// Opens the app and waits until it has mounted.
    pub async fn open(&self, query: &str) {
        self.client.goto(&Browser::app_url(query)).await.unwrap();
        self.wait_testid("tab-chat").await;
    }

    pub async fn wait_testid(&self, id: &str) -> Element {
        self.client
            .wait()
            .at_most(PATIENCE)
            .for_element(Locator::Css(&format!("[data-testid='{id}']")))
            .await
            .unwrap_or_else(|e| panic!("nothing with data-testid={id} appeared: {e}"))
    }

    /// Waits for the element with `data-testid=id` and clicks it.
    pub async fn click_testid(&self, id: &str) {
        self.wait_testid(id)
            .await
            .click()
            .await
            .unwrap_or_else(|e| panic!("could not click data-testid={id}: {e}"));
    }

    pub async fn all_testid(&self, id: &str) -> Vec<Element> {
        self.client
            .find_all(Locator::Css(&format!("[data-testid='{id}']")))
            .await
            .unwrap()
    }

    /// Sets an input's whole value the way pasting it would: the value, then one `input` event.
    pub async fn set_field(&self, id: &str, value: &str) {
        self.wait_testid(id).await;
        self.client
            .execute(
                "const input = document.querySelector(`[data-testid='${arguments[0]}']`); \
                 input.value = arguments[1]; \
                 input.dispatchEvent(new Event('input', { bubbles: true }));",
                vec![serde_json::json!(id), serde_json::json!(value)],
            )
            .await
            .unwrap();
    }

    /// Clears the field with `data-testid=id` and types `text` into it, as a person would.
    pub async fn type_into(&self, id: &str, text: &str) {
        let input = self.wait_testid(id).await;
        input.clear().await.unwrap();
        input.send_keys(text).await.unwrap();
    }

    /// How many elements carry `data-testid=id` now.
    pub async fn count_testid(&self, id: &str) -> usize {
        self.all_testid(id).await.len()
    }

    /// Waits until `script` (a JS expression) is truthy, or fails with `what`.
    pub async fn wait_until(&self, script: &str, what: &str) {
        self.wait_until_within(script, what, PATIENCE).await
    }

    /// [`Browser::wait_until`] with its own patience, for a real model's reply on a busy machine.
    pub async fn wait_until_within(&self, script: &str, what: &str, patience: Duration) {
        let deadline = Instant::now() + patience;
        loop {
            let value = self
                .client
                .execute(&format!("return !!({script})"), vec![])
                .await
                .unwrap();
            if value == Value::Bool(true) {
                return;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            pause(50).await;
        }
    }

    /// What `expression` (a JavaScript expression) evaluates to, read in ONE WebDriver call.
    /// A list of virtualised rows must be read this way: the rows may be rebuilt between two
    /// calls (the vocabulary arriving recounts the session).
    pub async fn read<T: serde::de::DeserializeOwned>(&self, expression: &str) -> T {
        let value = self
            .client
            .execute(&format!("return {expression};"), vec![])
            .await
            .unwrap();
        serde_json::from_value(value).unwrap()
    }

    /// The visible text of the element with `data-testid=id`, once it is there.
    pub async fn text_of(&self, id: &str) -> String {
        self.wait_testid(id).await.text().await.unwrap()
    }

    /// The value of the field or select with `data-testid=id`, once it is there.
    pub async fn value_of(&self, id: &str) -> String {
        let field = self.wait_testid(id).await;
        field.prop("value").await.unwrap().unwrap_or_default()
    }

    /// Whether the control with `data-testid=id` is enabled, once it is there.
    pub async fn is_enabled(&self, id: &str) -> bool {
        self.wait_testid(id).await.is_enabled().await.unwrap()
    }

    /// Waits until the field or select with `data-testid=id` holds `value`.
    pub async fn wait_value(&self, id: &str, value: &str, what: &str) {
        self.wait_until(
            &format!(
                "document.querySelector('[data-testid={id}]').value === {}",
                json!(value)
            ),
            what,
        )
        .await;
    }

    /// Waits until nothing carries any of the `data-testid`s in `ids`, all at once.
    pub async fn wait_all_gone(&self, ids: &[&str], what: &str) {
        let none = ids
            .iter()
            .map(|id| format!("!document.querySelector('[data-testid={id}]')"))
            .collect::<Vec<_>>()
            .join(" && ");
        self.wait_until(&none, what).await;
    }

    /// Waits until the texts of the elements with `data-testid=id`, joined, include `part`.
    pub async fn wait_texts_include(&self, id: &str, part: &str, what: &str) {
        self.wait_until(
            &format!(
                "[...document.querySelectorAll(\"[data-testid='{id}']\")].map(e => e.textContent).join('|').includes({})",
                json!(part)
            ),
            what,
        )
        .await;
    }

    /// Every input and select inside the panel `data-testid=panel` without a visible
    /// `<label for>` (or a label around it), by id or markup.
    pub async fn unlabelled_fields(&self, panel: &str) -> Vec<String> {
        self.read(&format!(
            "[...document.querySelectorAll('[data-testid={panel}] input, [data-testid={panel}] select')] \
             .filter(e => {{ const l = e.labels && e.labels[0]; \
                            return !l || !l.textContent.trim() || l.getBoundingClientRect().width === 0; }}) \
             .map(e => e.id || e.outerHTML)"
        ))
        .await
    }

    /// The legends of the Settings form's groups, in order.
    pub async fn settings_legends(&self) -> Vec<String> {
        self.read("[...document.querySelectorAll('.settings .form-group > legend')].map(l => l.textContent)")
            .await
    }

    /// Where the field `data-testid=field` and its problem `field-error` stand: [on the same
    /// row, the problem right of the field, the problem's top above the field's bottom, the
    /// field's `aria-invalid`, whether the field's `aria-describedby` names the problem].
    pub async fn problem_beside(&self, field: &str) -> Value {
        self.client
            .execute(
                "const input = document.querySelector(`[data-testid='${arguments[0]}']`); \
                 const error = document.querySelector(`[data-testid='${arguments[0]}-error']`); \
                 const a = input.getBoundingClientRect(), b = error.getBoundingClientRect(); \
                 return [input.closest('.field-row') === error.closest('.field-row'), \
                         b.left >= a.right, b.top < a.bottom, \
                         input.getAttribute('aria-invalid'), \
                         (input.getAttribute('aria-describedby') || '').includes(error.id)]",
                vec![json!(field)],
            )
            .await
            .unwrap()
    }

    /// Whether nothing carries `data-testid=id` now.
    pub async fn is_absent(&self, id: &str) -> bool {
        self.client
            .find(Locator::Css(&format!("[data-testid='{id}']")))
            .await
            .is_err()
    }

    /// Waits until exactly `n` elements carry `data-testid=id`.
    pub async fn wait_count(&self, id: &str, n: usize, what: &str) {
        self.wait_until(
            &format!("document.querySelectorAll(\"[data-testid='{id}']\").length === {n}"),
            what,
        )
        .await;
    }

    /// Waits until nothing carries `data-testid=id`.
    pub async fn wait_gone(&self, id: &str, what: &str) {
        self.wait_until(
            &format!("!document.querySelector(\"[data-testid='{id}']\")"),
            what,
        )
        .await;
    }

    /// Waits until the element with `data-testid=id` is there and its text includes `text`.
    pub async fn wait_text_contains(&self, id: &str, text: &str, what: &str) {
        self.wait_until(
            &format!(
                "document.querySelector(\"[data-testid='{id}']\")?.textContent.includes({})",
                json!(text)
            ),
            what,
        )
        .await;
    }

    /// The text of the element with `data-testid=id` exactly as the page holds it, hidden or
    /// not (WebDriver's own text is what is rendered, whitespace folded).
    pub async fn text_content(&self, id: &str) -> String {
        self.read(&format!(
            "document.querySelector(\"[data-testid='{id}']\").textContent"
        ))
        .await
    }

    /// The address bar's query string, `?` included ("" when there is none).
    pub async fn search(&self) -> String {
        self.read("location.search").await
    }

    /// Waits until the address bar's query string includes `part`.
    pub async fn wait_search_includes(&self, part: &str, what: &str) {
        self.wait_until(&format!("location.search.includes({})", json!(part)), what)
            .await;
    }

    /// Waits until the address bar's query string no longer includes `part`.
    pub async fn wait_search_excludes(&self, part: &str, what: &str) {
        self.wait_until(&format!("!location.search.includes({})", json!(part)), what)
            .await;
    }

    /// Waits until the address bar's query string is `query` exactly.
    pub async fn wait_search_is(&self, query: &str, what: &str) {
        self.wait_until(&format!("location.search === {}", json!(query)), what)
            .await;
    }

    /// Waits until the o200k_base vocabulary has loaded (the app marks it with a performance
    /// entry). Counts are exact from then on, and a session shown before is recounted then.
    pub async fn wait_vocabulary(&self) {
        self.wait_until(
            "performance.getEntriesByName('sm-vocab-loaded-o200k_base').length > 0",
            "the o200k_base vocabulary to load",
        )
        .await;
    }

    /// Presses one key on whatever has the focus, as a keyboard would.
    pub async fn press(&self, key: Key) {
        let key = char::from(key);
        let actions = KeyActions::new("keyboard".to_owned())
            .then(KeyAction::Down { value: key })
            .then(KeyAction::Up { value: key });
        self.client.perform_actions(actions).await.unwrap();
    }

    /// Waits until the element with `data-testid=id` has the focus (the app moves it after a
    /// redraw, on a timer).
    pub async fn wait_focus(&self, id: &str, what: &str) {
        self.wait_until(
            &format!("document.activeElement?.dataset?.testid === '{id}'"),
            what,
        )
        .await;
    }

    /// The `data-testid` of the focused element, or "" when it has none.
    pub async fn focused(&self) -> String {
        self.read("document.activeElement?.dataset?.testid ?? ''")
            .await
    }

    /// Presses Tab until the element with `data-testid=id` has the focus, and checks that the
    /// focus can be seen there: a solid outline at least 2 px wide, drawn because the keyboard
    /// moved it.
    pub async fn tab_to(&self, id: &str) {
        for _ in 0..80 {
            self.press(Key::Tab).await;
            if self.focused().await == id {
                let outline: Value = self
                    .read(
                        "(() => { const e = document.activeElement, s = getComputedStyle(e); \
                         return [e.matches(':focus-visible'), s.outlineStyle, parseFloat(s.outlineWidth)]; })()",
                    )
                    .await;
                assert_eq!(outline[0], true, "{id} is focused but not :focus-visible");
                assert_eq!(
                    outline[1], "solid",
                    "{id} has no visible focus ring: {outline}"
                );
                assert!(outline[2].as_f64().unwrap() >= 2.0, "{id}: {outline}");
                return;
            }
        }
        panic!("Tab never reached data-testid={id}");
    }

    /// Chooses the file at `path` in the file input with `data-testid=id`, as the file dialog
    /// would.
    pub async fn upload(&self, id: &str, path: &str) {
        self.wait_testid(id).await.send_keys(path).await.unwrap();
    }

    /// Sends a Chrome DevTools Protocol command through chromedriver and returns its result.
    pub async fn devtools(&self, cmd: &str, params: Value) -> Value {
        self.client
            .issue_cmd(DevTools(json!({ "cmd": cmd, "params": params })))
            .await
            .unwrap_or_else(|e| panic!("{cmd} failed: {e}"))
    }

    /// Makes the browser refuse every request whose URL matches one of `patterns` (Chromium's
    /// request blocking, `*` a wildcard), as it is refused to a visitor offline before the file
    /// was ever fetched; an empty list lets everything through again.
    pub async fn block_urls(&self, patterns: &[&str]) {
        self.devtools("Network.enable", json!({})).await;
        self.devtools("Network.setBlockedURLs", json!({ "urls": patterns }))
            .await;
    }

    /// Runs `source` in every page this browser loads from now on, before the page's own
    /// scripts.
    pub async fn before_every_page(&self, source: &str) {
        self.devtools(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": source }),
        )
        .await;
    }

    /// Makes localStorage refuse `key` both ways (reading and writing it throw
    /// `QuotaExceededError`), in every page this browser loads from now on, as a blocked or full
    /// storage does.
    pub async fn storage_refuses(&self, key: &str) {
        self.before_every_page(&format!(
            "for (const name of ['getItem', 'setItem']) {{
                 const real = Storage.prototype[name];
                 Storage.prototype[name] = function (key, ...rest) {{
                     if (key === {}) {{
                         throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
                     }}
                     return real.call(this, key, ...rest);
                 }};
             }}",
            json!(key)
        ))
        .await;
    }

    /// Stores `value` under `key` in the page's localStorage, as the app itself would have.
    pub async fn store_item(&self, key: &str, value: &str) {
        self.client
            .execute(
                "localStorage.setItem(arguments[0], arguments[1]); return true;",
                vec![json!(key), json!(value)],
            )
            .await
            .unwrap();
        self.keep_durably(key, Some(value)).await;
    }
    pub async fn forget_item(&self, key: &str) {
        self.client
            .execute(
                "try { localStorage.removeItem(arguments[0]) } catch (e) {}",
                vec![json!(key)],
            )
            .await
            .unwrap();
        self.keep_durably(key, None).await;
    }
    pub async fn forget_view(&self) {
        self.forget_item("summary-memory.view").await;
    }
    /// The copy of `key` the app keeps in IndexedDB (`store::durable`), if it holds one.
    pub async fn durable_item(&self, key: &str) -> Option<String> {
        let script = "const [key, done] = arguments;
            const open = indexedDB.open('summary-memory');
            open.onerror = () => done(null);
            open.onsuccess = () => {
                const db = open.result;
                if (!db.objectStoreNames.contains('state')) { db.close(); done(null); return; }
                const get = db.transaction('state').objectStore('state').get(key);
                get.onsuccess = () => { db.close(); done(get.result ? get.result.value : null); };
                get.onerror = () => { db.close(); done(null); };
            };";
        let value = self
            .client
            .execute_async(script, vec![json!(key)])
            .await
            .unwrap();
        value.as_str().map(str::to_owned)
    }

    /// Waits until IndexedDB's copy of `key` passes `test`.
    pub async fn wait_durable(&self, key: &str, test: impl Fn(&str) -> bool, what: &str) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if self.durable_item(key).await.is_some_and(|v| test(&v)) {
                return;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            pause(50).await;
        }
    }

    /// Writes (or, with `None`, removes) the copy of `key` the app keeps in IndexedDB beside
    /// localStorage's (`store::durable`), whose copy wins at start: a test that plants or forgets
    /// a stored value does it to both, as the app itself writes both.
    async fn keep_durably(&self, key: &str, value: Option<&str>) {
        let script = "const [key, value, done] = arguments;
            const open = indexedDB.open('summary-memory');
            open.onerror = () => done(false);
            open.onsuccess = () => {
                const db = open.result;
                if (!db.objectStoreNames.contains('state')) { db.close(); done(true); return; }
                const tx = db.transaction('state', 'readwrite');
                const store = tx.objectStore('state');
                if (value === null) store.delete(key); else store.put({ key, value });
                tx.oncomplete = () => { db.close(); done(true); };
                tx.onabort = () => { db.close(); done(false); };
            };";
        let written = self
            .client
            .execute_async(script, vec![json!(key), json!(value)])
            .await
            .unwrap();
        assert_eq!(written, json!(true), "could not write {key} to IndexedDB");
    }
    pub async fn store_theme(&self, theme: &str) {
        self.client
            .execute(
                "localStorage.setItem('summary-memory.theme', arguments[0]); \
                 document.documentElement.setAttribute('data-theme', arguments[0]);",
                vec![json!(theme)],
            )
            .await
            .unwrap();
    }

    /// Waits until the root element's `data-theme` is `theme` (`None`: the attribute is gone,
    /// the system's theme applies).
    pub async fn wait_theme(&self, theme: Option<&str>, what: &str) {
        let want = theme.map_or("null".to_owned(), |t| json!(t).to_string());
        self.wait_until(
            &format!("document.documentElement.getAttribute('data-theme') === {want}"),
            what,
        )
        .await;
    }

    /// The body's computed background colour, e.g. `rgb(23, 25, 28)`.
    pub async fn body_background(&self) -> String {
        self.read("getComputedStyle(document.body).backgroundColor")
            .await
    }

    /// Waits until the window is at most `width` CSS pixels wide.
    pub async fn wait_window_width_at_most(&self, width: u32) {
        self.wait_until(
            &format!("window.innerWidth <= {width}"),
            "a phone-sized window",
        )
        .await;
    }

    /// Waits until the page is no wider than the window: nothing to scroll sideways.
    pub async fn wait_fits_width(&self, what: &str) {
        self.wait_until(
            "document.documentElement.scrollWidth <= window.innerWidth",
            what,
        )
        .await;
    }

    /// Scrolls the element with `data-testid=id` to the middle of the window.
    pub async fn scroll_into_view(&self, id: &str) {
        self.wait_testid(id).await;
        self.client
            .execute(
                &format!(
                    "document.querySelector(\"[data-testid='{id}']\").scrollIntoView({{block: 'center'}})"
                ),
                vec![],
            )
            .await
            .unwrap();
    }

    /// Waits until the page stands still for a picture: its fonts loaded and no animation
    /// running.
    pub async fn wait_still(&self) {
        self.wait_until(
            "document.fonts.status === 'loaded' && \
             document.getAnimations().every(a => a.playState !== 'running')",
            "the page to stand still",
        )
        .await;
    }

    /// Every session record IndexedDB holds, or `None` while the app's database or its store
    /// cannot be read yet.
    pub async fn stored_records(&self) -> Option<Vec<Value>> {
        let script = "const done = arguments[arguments.length - 1];
            const open = indexedDB.open('summary-memory');
            open.onerror = () => done(null);
            open.onsuccess = () => {
                try {
                    const all = open.result.transaction('sessions').objectStore('sessions').getAll();
                    all.onsuccess = () => { open.result.close(); done(all.result); };
                    all.onerror = () => done(null);
                } catch (e) { done(null); }
            };";
        let value = self.client.execute_async(script, vec![]).await.unwrap();
        serde_json::from_value(value).unwrap()
    }

    /// Polls the stored session records until `pick` finds what it looks for, and returns it;
    /// fails with `never` after the harness's patience.
    pub async fn wait_stored<T>(&self, never: &str, pick: impl Fn(&[Value]) -> Option<T>) -> T {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(found) = self.stored_records().await.as_deref().and_then(&pick) {
                return found;
            }
            assert!(Instant::now() < deadline, "{never}");
            pause(50).await;
        }
    }

    /// Adds an icon-only button with `data-testid=id` and no name to the page: a planted
    /// violation, to show that an accessibility check catches one.
    pub async fn plant_unnamed_button(&self, id: &str) {
        self.client
            .execute(
                "const b = document.createElement('button'); b.dataset.testid = arguments[0]; \
                 b.innerHTML = '<svg width=10 height=10></svg>'; document.body.append(b);",
                vec![json!(id)],
            )
            .await
            .unwrap();
    }

    /// Adds a paragraph saying `text` in the colour of the rules, on the paper, to the page's
    /// main part: a planted violation, to show that the contrast check catches one.
    pub async fn plant_faint_text(&self, text: &str) {
        self.client
            .execute(
                "const p = document.createElement('p'); p.textContent = arguments[0]; \
                 p.style.color = 'var(--rule)'; document.querySelector('main').append(p);",
                vec![json!(text)],
            )
            .await
            .unwrap();
    }

    /// Adds an inline script and an image with an inline error handler to the page, as markup
    /// that got into the DOM (say, through a rendered reply) would. Either would set
    /// `window.__pwned` if it ran.
    pub async fn plant_inline_scripts(&self) {
        self.client
            .execute(
                "const s = document.createElement('script'); s.textContent = 'window.__pwned = 1'; \
                 document.body.appendChild(s); \
                 const i = document.createElement('img'); i.setAttribute('onerror', 'window.__pwned = 2'); \
                 i.src = 'data:,x'; document.body.appendChild(i);",
                vec![],
            )
            .await
            .unwrap();
    }

    /// Whether nothing planted in the page has run, after giving it the time to: there is no
    /// state to poll for here, since what is waited for is that nothing happens.
    pub async fn nothing_ran(&self) -> bool {
        pause(300).await;
        self.read("window.__pwned === undefined").await
    }

    /// The ids of the models `base_url` lists, fetched by the page itself (so under its CSP),
    /// joined with commas; or `failed: ...`.
    pub async fn fetch_models_in_page(&self, base_url: &str) -> String {
        let models = self
            .client
            .execute_async(
                "const done = arguments[arguments.length - 1]; \
                 fetch(arguments[0] + '/models').then(r => r.json()).then(j => done(j.data.map(m => m.id).join(','))) \
                 .catch(e => done('failed: ' + e));",
                vec![json!(base_url)],
            )
            .await
            .unwrap();
        models.as_str().unwrap_or_default().to_owned()
    }

    /// The browser console's messages at level SEVERE since the last call.
    pub async fn console_errors(&self) -> Vec<String> {
        let log = self.client.issue_cmd(Log("browser")).await.unwrap();
        log.as_array()
            .into_iter()
            .flatten()
            .filter(|entry| entry["level"] == "SEVERE")
            .map(|entry| entry["message"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    /// Reads what chromedriver's performance log gathered so far into the trace kept for
    /// [`Browser::main_thread_tasks_between`], emptying chromedriver's fixed trace buffer: a
    /// test waiting out a long busy stretch calls it every second or so, or the buffer fills
    /// and the tasks after are lost (the window check then fails).
    pub async fn keep_trace(&self) {
        let trace = self
            .trace
            .as_ref()
            .expect("keep_trace needs a Browser::traced()");
        assert!(
            drain_trace(&self.client, trace).await,
            "chromedriver's performance log could not be read"
        );
    }

    /// Puts a User Timing mark called `name` in the page, and so in a [`Browser::traced`]
    /// browser's trace, for [`Browser::main_thread_tasks_between`].
    pub async fn mark(&self, name: &str) {
        let _: Value = self
            .read(&format!("(performance.mark({name:?}), null)"))
            .await;
    }

    /// Every task the page's main thread (Chromium's `CrRendererMain`, in the renderer that
    /// holds the mark `from`) ran from that mark on, in the order they started, on a
    /// [`Browser::traced`] browser. A task's thread time is the CPU time the thread itself
    /// spent in it; unlike its wall time, it does not grow while the machine's other processes
    /// hold the cores. Each call reads what chromedriver's performance log gathered since the
    /// last (kept, so a later call sees the earlier events too); it fails when chromedriver
    /// said its trace buffer filled.
    ///
    /// The tasks run from `from` up to a mark `to` made now, and it fails
    /// unless the trace holds `to`: chromedriver's trace buffer has a fixed size, and a busy
    /// page fills it (Chromium then records nothing more until the log is read, and said
    /// nothing of it here: a 20,000-session import kept its first seconds only), so a check
    /// of the tasks since a mark alone could pass on a trace that stopped early. With the end
    /// in the trace, every task between is in it.
    pub async fn main_thread_tasks_between(&self, from: &str, to: &str) -> Vec<Task> {
        self.mark(to).await;
        self.main_thread_tasks(from, to).await
    }

    async fn main_thread_tasks(&self, mark: &str, to: &str) -> Vec<Task> {
        let trace = self
            .trace
            .as_ref()
            .expect("main_thread_tasks_between needs a Browser::traced()");
        let events = {
            // The end mark reaches the log once Chromium has flushed it: a few reads at most.
            let deadline = Instant::now() + PATIENCE;
            loop {
                assert!(
                    drain_trace(&self.client, trace).await,
                    "the browser is gone"
                );
                let read = {
                    let log = trace.lock().unwrap();
                    assert!(
                        log.lost.is_empty(),
                        "chromedriver's trace buffer filled, so some main-thread tasks went unseen: {:?}",
                        log.lost
                    );
                    let ended = log.events.iter().any(|e| is_mark(e, to));
                    assert!(
                        ended || Instant::now() < deadline,
                        "the trace ({} events) stops before the mark {to:?}: chromedriver's trace buffer filled, and the tasks after went unseen",
                        log.events.len()
                    );
                    ended.then(|| log.events.clone())
                };
                if let Some(events) = read {
                    break events;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        };
        let end = events
            .iter()
            .find(|e| is_mark(e, to))
            .and_then(|e| e["ts"].as_f64())
            .unwrap_or(f64::INFINITY);
        let Some(marked) = events.iter().find(|e| is_mark(e, mark)) else {
            panic!(
                "the trace ({} events) holds no mark {mark:?}: was the browser traced, and the mark made before its log was read?",
                events.len()
            );
        };
        let (pid, from) = (
            marked["pid"].as_u64(),
            marked["ts"].as_f64().unwrap_or_default(),
        );
        let main: std::collections::HashSet<Option<u64>> = events
            .iter()
            .filter(|e| {
                e["ph"] == "M"
                    && e["name"] == "thread_name"
                    && e["args"]["name"] == "CrRendererMain"
                    && e["pid"].as_u64() == pid
            })
            .map(|e| e["tid"].as_u64())
            .collect();
        let mut tasks: Vec<Task> = events
            .iter()
            .filter(|e| {
                // `ThreadControllerImpl::RunTask` in Chromium 148, `RunTask` in older ones.
                let name = e["name"].as_str().unwrap_or_default();
                e["ph"] == "X"
                    && (name == "RunTask" || name.ends_with("::RunTask"))
                    && e["pid"].as_u64() == pid
                    && main.contains(&e["tid"].as_u64())
                    && e["ts"].as_f64().is_some_and(|ts| ts >= from && ts < end)
            })
            .map(|e| Task {
                at_ms: (e["ts"].as_f64().unwrap_or_default() - from) / 1000.0,
                wall_ms: e["dur"].as_f64().unwrap_or_default() / 1000.0,
                thread_ms: e["tdur"].as_f64().map(|us| us / 1000.0),
            })
            .collect();
        tasks.sort_by(|a, b| a.at_ms.total_cmp(&b.at_ms));
        tasks
    }

    pub async fn close(self) {
        self.client.close().await.unwrap();
    }
}

/// Whether trace event `e` is the User Timing mark `name`.
fn is_mark(e: &Value, name: &str) -> bool {
    e["name"] == name && e["cat"].as_str().is_some_and(|c| c.contains("user_timing"))
}

/// One task of a page's main thread, from Chromium's trace (`RunTask`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Task {
    /// When it started, after the mark it was asked from.
    pub at_ms: f64,
    /// Its wall time.
    pub wall_ms: f64,
    /// The thread's own CPU time in it, where the platform reports one.
    pub thread_ms: Option<f64>,
}

/// The request bodies of every POST `server` received, in order.
pub fn posts(server: &TestServer) -> Vec<Value> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST")
        .map(|r| r.body)
        .collect()
}

/// A scripted reply of `s`, whole.
pub fn text(s: &str) -> Reply {
    Reply::Text(s.to_owned())
}

/// Text with every run of whitespace made one space, as the page renders it.
pub fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How a failure case is set up and what the page must say.
pub struct Failure<'a> {
    pub name: &'a str,
    pub script: Vec<Reply>,
    pub stream: bool,
    pub timeout: Option<&'a str>,
    pub max_tokens: Option<&'a str>,
    pub expect: &'a [&'a str],
    /// How many POSTs the client makes before it gives up.
    pub attempts: usize,
}

/// A failure case with the defaults: streamed, no timeout or token limit, one attempt.
pub fn failure<'a>(name: &'a str, script: Vec<Reply>, expect: &'a [&'a str]) -> Failure<'a> {
    Failure {
        name,
        script,
        stream: true,
        timeout: None,
        max_tokens: None,
        expect,
        attempts: 1,
    }
}

/// Sends one message into the failure, then checks the error, that the user's message stayed,
/// that Retry is offered, and that Retry succeeds once the server behaves (its script is empty
/// then, so it echoes).
pub async fn check_failure(case: Failure<'_>) {
    let server = TestServer::start().await;
    server.script(case.script);
    let browser = Browser::new().await;
    let chat = ChatPage::connect(
        &browser,
        Setup {
            base_url: &server.base_url,
            stream: case.stream,
            timeout: case.timeout,
            max_tokens: case.max_tokens,
        },
    )
    .await;
    chat.send("please answer").await;
    let error = chat.error_text().await;
    for phrase in case.expect {
        assert!(error.contains(phrase), "{}: {error}", case.name);
    }
    chat.wait_settled(1).await;
    assert_eq!(
        chat.messages().await,
        [(
            "user".to_owned(),
            "verbatim".to_owned(),
            "please answer".to_owned()
        )],
        "{}",
        case.name
    );
    assert_eq!(posts(&server).len(), case.attempts, "{}", case.name);
    browser.click_testid("retry").await;
    chat.wait_settled(2).await;
    let shown = chat.messages().await;
    assert_eq!(
        (shown[1].1.as_str(), shown[1].2.as_str()),
        ("verbatim", "You said: please answer"),
        "{}",
        case.name
    );
    assert!(browser.is_absent("error").await, "{}", case.name);
    assert!(browser.is_absent("retry").await, "{}", case.name);
    browser.close().await;
}

/// The attribute `name` of `element`, or "" when it has none.
pub async fn attr(element: &Element, name: &str) -> String {
    element.attr(name).await.unwrap().unwrap_or_default()
}

/// chromedriver's log endpoint, which fantoccini has no method for: the log of that type
/// since the last call.
#[derive(Debug)]
struct Log(&'static str);

impl WebDriverCompatibleCommand for Log {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/se/log", session.unwrap_or_default()))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({ "type": self.0 }).to_string()),
        )
    }
}

/// chromedriver's DevTools passthrough (`goog/cdp/execute`), which fantoccini has no method for.
#[derive(Debug)]
struct DevTools(Value);

impl WebDriverCompatibleCommand for DevTools {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!(
            "session/{}/goog/cdp/execute",
            session.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.0.to_string()))
    }
}

/// A directory removed when dropped, for the browser profile.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new() -> TempDir {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("sm-e2e-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    /// Writes `text` into a file `name` in this directory, and returns the file's path.
    pub fn write(&self, name: &str, text: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }
}

/// A copy of the release dist in a folder of its own, which a test may change (files taken out
/// or put back) and serve with [`StoppableApp::start_with`].
pub fn copy_of_dist() -> TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let path = entry.unwrap().path();
            let target = to.join(path.file_name().unwrap());
            if path.is_dir() {
                copy(&path, &target);
            } else {
                std::fs::copy(&path, &target).unwrap();
            }
        }
    }
    let dir = TempDir::new();
    copy(&dist_dir(), &dir.0);
    dir
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The processes whose command line holds `flag`, and all their descendants.
fn process_tree(flag: &str) -> Vec<u32> {
    let mut parents = Vec::new();
    let mut roots = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if cmdline.split(|b| *b == 0).any(|arg| arg == flag.as_bytes()) {
            roots.push(pid);
        }
        if let Some(ppid) = parent_of(pid) {
            parents.push((pid, ppid));
        }
    }
    let mut tree = roots;
    let mut grew = true;
    while grew {
        grew = false;
        for (pid, ppid) in &parents {
            if tree.contains(ppid) && !tree.contains(pid) {
                tree.push(*pid);
                grew = true;
            }
        }
    }
    tree
}

/// The parent of `pid`, from `/proc/PID/stat` (its fourth field, after the command in brackets).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

/// Whether `pid` still runs (a zombie, killed but not yet reaped, does not).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let after = &stat[stat.rfind(')')? + 1..];
            after.split_whitespace().next().map(|state| state != "Z")
        })
        .unwrap_or(false)
}
