//! What every end-to-end test stands on: the release dist served on loopback, one chromedriver,
//! and a fresh headless Chromium per test.

use std::future::IntoFuture;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

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

/// One headless Chromium with a fresh profile, pointed at the app.
pub struct Browser {
    pub client: Client,
    _profile: TempDir,
}

impl Browser {
    pub async fn new() -> Browser {
        let shared = shared();
        let profile = TempDir::new();
        let caps = json!({
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--window-size=1280,900",
                    format!("--user-data-dir={}", profile.0.display()),
                ]
            },
            "goog:loggingPrefs": { "browser": "ALL" }
        });
        let Value::Object(caps) = caps else {
            unreachable!()
        };
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&shared.driver_url)
            .await
            .expect("could not start a Chromium session through chromedriver");
        Browser {
            client,
            _profile: profile,
        }
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

    pub async fn wait_testid(&self, id: &str) -> fantoccini::elements::Element {
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

    pub async fn all_testid(&self, id: &str) -> Vec<fantoccini::elements::Element> {
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

    /// Presses Edit on `edition` (an element with `data-testid=edition`) and returns the
    /// editor that opens.
    pub async fn open_edition_editor(
        &self,
        edition: &fantoccini::elements::Element,
    ) -> fantoccini::elements::Element {
        edition
            .find(Locator::Css("[data-testid=edition-edit]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        self.wait_testid("edition-editor").await
    }

    /// Rewrites `edition`'s summary as `text` and saves it as a new edition.
    pub async fn edit_edition(&self, edition: &fantoccini::elements::Element, text: &str) {
        let editor = self.open_edition_editor(edition).await;
        editor.clear().await.unwrap();
        editor.send_keys(text).await.unwrap();
        self.click_testid("edition-save").await;
    }

    /// Waits until `script` (a JS expression) is truthy, or fails with `what`.
    pub async fn wait_until(&self, script: &str, what: &str) {
        let deadline = Instant::now() + PATIENCE;
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
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The browser console's messages at level SEVERE since the last call.
    pub async fn console_errors(&self) -> Vec<String> {
        let log = self.client.issue_cmd(BrowserLog).await.unwrap();
        log.as_array()
            .into_iter()
            .flatten()
            .filter(|entry| entry["level"] == "SEVERE")
            .map(|entry| entry["message"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    pub async fn close(self) {
        self.client.close().await.unwrap();
    }
}

/// chromedriver's log endpoint, which fantoccini has no method for.
#[derive(Debug)]
struct BrowserLog;

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/se/log", session.unwrap_or_default()))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(r#"{"type":"browser"}"#.to_owned()))
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
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
