//! The Tokens tab counts exactly what gpt-tokenizer counts, never shows 0 while the vocabulary
//! loads, survives a megabyte paste, and never keeps the tab bar waiting.
//!
//! The expected counts come from gpt-tokenizer itself (tests/tokenizer-oracle, pinned by its
//! package-lock.json), asked at test time, not from numbers written here.

use std::path::{Path, PathBuf};
use std::process::Command;

use std::future::IntoFuture;
use std::sync::Arc;

use fantoccini::Locator;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use crate::harness::{Browser, StoppableApp, TempDir, dist_dir};
use crate::pages::tokens::TokensPage;

/// Counts of `texts` by gpt-tokenizer: (o200k_base, cl100k_base) per text.
fn oracle_counts(texts: &[&str]) -> Vec<(usize, usize)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tokenizer-oracle");
    // Installed by scripts/tools.sh (README command 2 runs it first): no test installs anything.
    assert!(
        dir.join("node_modules/gpt-tokenizer").is_dir(),
        "the pinned gpt-tokenizer is not installed in tests/tokenizer-oracle/node_modules: run \
         scripts/tools.sh, which installs it"
    );
    let tmp = TempDir::new();
    let corpus: PathBuf = tmp.0.join("corpus.json");
    let entries: Vec<Value> = texts
        .iter()
        .map(|t| json!({ "name": "e2e", "text": t }))
        .collect();
    std::fs::write(&corpus, serde_json::to_vec(&entries).unwrap()).unwrap();
    let out = run(&dir, "node", &["oracle.mjs", corpus.to_str().unwrap()]);
    let ids: Value = serde_json::from_slice(&out).expect("the oracle prints JSON");
    let lens = |encoding: &str| -> Vec<usize> {
        ids[encoding]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_array().unwrap().len())
            .collect()
    };
    lens("o200k_base")
        .into_iter()
        .zip(lens("cl100k_base"))
        .collect()
}

fn run(dir: &Path, program: &str, args: &[&str]) -> Vec<u8> {
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{program}` ({e}): run scripts/tools.sh --browser, which installs Node.js"));
    assert!(
        output.status.success(),
        "`{program} {}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// The release dist on a port of its own, with every request for a vocabulary file held until
/// [`HeldVocabulary::release`]: a test sees the loading state for as long as it needs to, instead
/// of hoping to be faster than the download.
pub(crate) struct HeldVocabulary {
    pub(crate) url: String,
    /// Closed to let the held requests through: a semaphore with no permits, whose waiters all
    /// wake once it is closed.
    gate: Arc<Semaphore>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl HeldVocabulary {
    pub(crate) fn start() -> HeldVocabulary {
        let gate = Arc::new(Semaphore::new(0));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        listener.set_nonblocking(true).unwrap();
        let held = gate.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let dist = dist_dir();
                let files = tower_http::services::ServeDir::new(&dist)
                    .precompressed_br()
                    .precompressed_gzip()
                    .fallback(tower_http::services::ServeFile::new(
                        dist.join("index.html"),
                    ));
                let app =
                    axum::Router::new()
                        .fallback_service(files)
                        .layer(axum::middleware::from_fn(
                            move |request: axum::extract::Request, next: axum::middleware::Next| {
                                let held = held.clone();
                                async move {
                                    if request.uri().path().ends_with(".smv") {
                                        // Err once the gate is closed: that is the release.
                                        let _ = held.acquire().await;
                                    }
                                    next.run(request).await
                                }
                            },
                        ));
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                tokio::select! {
                    served = axum::serve(listener, app).into_future() => served.unwrap(),
                    _ = stopped => {}
                }
            });
        });
        HeldVocabulary {
            url: format!("http://{addr}/"),
            gate,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Lets every held request for a vocabulary, and every later one, through.
    pub(crate) fn release(&self) {
        self.gate.close();
    }
}

impl Drop for HeldVocabulary {
    fn drop(&mut self) {
        self.release();
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[tokio::test]
async fn counts_match_gpt_tokenizer_and_switching_encoding_recounts() {
    // A Latin line both encodings split alike, and Hindi, which cl100k_base splits far finer.
    let texts = ["Hello, world!", "नमस्ते दुनिया"];
    let expect = oracle_counts(&texts);
    assert_ne!(
        expect[1].0, expect[1].1,
        "the Hindi line must tell the encodings apart"
    );

    let browser = Browser::new().await;
    let tokens = TokensPage::open(&browser).await;
    browser.type_into("tokenizer-input", texts[0]).await;
    tokens
        .wait_exact(expect[0].0, "the o200k_base count of Hello, world!")
        .await;
    let chars = browser
        .wait_testid("char-count")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(chars, texts[0].chars().count().to_string());
    let pieces = browser.all_testid("token-pieces").await;
    let spans = pieces[0]
        .find_all(Locator::Css("span.tok"))
        .await
        .unwrap()
        .len();
    assert_eq!(spans, expect[0].0, "one coloured span per token");

    browser.type_into("tokenizer-input", texts[1]).await;
    tokens
        .wait_exact(expect[1].0, "the o200k_base count of the Hindi line")
        .await;
    tokens.choose("cl100k_base").await;
    tokens
        .wait_exact(expect[1].1, "the cl100k_base recount after switching")
        .await;
    tokens.choose("o200k_base").await;
    tokens
        .wait_exact(expect[1].0, "the o200k_base count after switching back")
        .await;

    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn before_the_vocabulary_loads_the_count_is_pending_never_zero() {
    // The server holds the vocabulary file until the loading state has been seen, so the test
    // never races the download (which, on loopback, a fast machine could win every time).
    let server = HeldVocabulary::start();
    let browser = Browser::new().await;
    browser
        .client
        .goto(&format!("{}?tab=tokens", server.url))
        .await
        .unwrap();
    let tokens = TokensPage::new(&browser);
    // The very first reading, taken as soon as the count exists, while the vocabulary is held:
    // the count is pending, shown as "…", never "0"; and the status says it is loading.
    let (text, state) = tokens.count().await;
    assert_eq!(
        (state.as_str(), text.as_str()),
        ("pending", "…"),
        "the first reading while the vocabulary loads"
    );
    let status = tokens.status().await;
    assert!(
        status.contains("Loading the o200k_base vocabulary"),
        "{status}"
    );
    server.release();
    tokens.wait_state("exact", "the vocabulary to load").await;
    let (text, _) = tokens.count().await;
    assert!(
        text.parse::<u32>().unwrap() > 0,
        "the starter text has tokens"
    );
    // The vocabulary came as a file of its own, content-hashed, and the wasm is code only.
    let fetched = tokens.fetched().await;
    let vocab: Vec<&(String, u64)> = fetched
        .iter()
        .filter(|(path, _)| path.ends_with(".smv"))
        .collect();
    assert_eq!(vocab.len(), 1, "one vocabulary fetched: {fetched:?}");
    let name = vocab[0].0.trim_start_matches('/');
    let hash = name
        .strip_prefix("o200k_base-")
        .and_then(|rest| rest.strip_suffix(".smv"))
        .unwrap_or_else(|| panic!("not a hashed o200k_base file: {name}"));
    assert!(hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()));
    for (path, _) in fetched.iter().filter(|(path, _)| path.ends_with(".wasm")) {
        let size = std::fs::metadata(dist_dir().join(path.trim_start_matches('/')))
            .unwrap()
            .len();
        // No wasm of the release build comes near 2.75 MiB (scripts/vocab.py: the page's first
        // load is under 2 MiB, the corpus worker about 1.3 MB); one embedded vocabulary would
        // add 0.7 MB or more.
        assert!(size < 2816 * 1024, "{path} is {size} bytes");
    }
    browser.close().await;
}

#[tokio::test]
async fn without_its_vocabulary_file_the_tab_says_so_and_counts_are_estimates() {
    // A copy of the dist with the vocabulary files taken out, their precompressed copies too: the
    // server answers their URLs with index.html, as a misconfigured host would, so the download
    // "succeeds" with the wrong bytes.
    let copy = TempDir::new();
    for entry in std::fs::read_dir(dist_dir()).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if entry.path().is_file() && !name.to_string_lossy().contains(".smv") {
            std::fs::copy(entry.path(), copy.0.join(&name)).unwrap();
        }
    }
    let app = StoppableApp::start_with(copy.0.clone());
    let browser = Browser::new().await;
    browser
        .client
        .goto(&format!("{}?tab=tokens", app.url))
        .await
        .unwrap();
    // The page is loaded, but the app may not have mounted yet.
    browser.wait_testid("token-count").await;
    let tokens = TokensPage::new(&browser);
    tokens
        .wait_estimate("the count to become an estimate")
        .await;
    let message = tokens.failure().await;
    assert!(
        message.contains("could not load the o200k_base vocabulary"),
        "{message}"
    );
    // Trying again loads the file again (the app marks a second start), fails the same way,
    // and the page keeps working.
    tokens.wait_failures("o200k_base", 1).await;
    assert_eq!(tokens.loads("start", "o200k_base").await, 1);
    browser.click_testid("vocab-retry").await;
    tokens.wait_failures("o200k_base", 2).await;
    assert_eq!(
        tokens.loads("start", "o200k_base").await,
        2,
        "one more load"
    );
    tokens.wait_estimate("the count to stay an estimate").await;
    let again = tokens.failure().await;
    assert!(
        again.contains("could not load the o200k_base vocabulary"),
        "{again}"
    );
    browser.wait_testid("vocab-retry").await;
    browser.click_testid("tab-tuner").await;
    browser.wait_testid("panel-tuner").await;
    browser.close().await;
}

#[tokio::test]
async fn a_megabyte_paste_is_estimated_and_the_page_stays_responsive() {
    let browser = Browser::new().await;
    let tokens = TokensPage::open(&browser).await;
    tokens.wait_state("exact", "the vocabulary to load").await;
    tokens.paste_repeated("a", 1 << 20).await;
    tokens
        .wait_state("estimate", "the megabyte of 'a' to be estimated")
        .await;
    let (text, _) = tokens.count().await;
    let value: u32 = text
        .strip_prefix('≈')
        .unwrap_or_else(|| panic!("an estimate is marked with ≈, got {text:?}"))
        .parse()
        .unwrap();
    assert!(value > 0);
    let chars = browser
        .wait_testid("char-count")
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(chars, (1 << 20).to_string());

    // Still responsive: another tab opens on click.
    browser.click_testid("tab-tuner").await;
    browser.wait_testid("panel-tuner").await;
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn the_tab_bar_is_clickable_while_the_vocabulary_may_still_load() {
    // The vocabulary is held at the server until the tabs have been clicked, so the clicks
    // happen while it loads, whatever the machine's speed.
    let server = HeldVocabulary::start();
    let browser = Browser::new().await;
    browser
        .client
        .goto(&format!("{}?tab=tokens", server.url))
        .await
        .unwrap();
    browser.wait_testid("tab-chat").await;
    let tokens = TokensPage::new(&browser);
    // Straight after mounting, before waiting for any count.
    browser.click_testid("tab-tuner").await;
    browser.wait_testid("panel-tuner").await;
    browser.click_testid("tab-tokens").await;
    let (text, state) = tokens.count().await;
    assert_eq!(
        (state.as_str(), text.as_str()),
        ("pending", "…"),
        "the vocabulary was still loading through the clicks"
    );
    server.release();
    tokens
        .wait_state("exact", "the count to become exact after coming back")
        .await;
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn the_first_visit_downloads_the_wasm_and_the_vocabulary_once() {
    // The service worker used to precache the wasm at install, a second multi-megabyte download
    // on the first visit. It now copies what the page fetched from the HTTP cache.
    let app = StoppableApp::start();
    let browser = Browser::new().await;
    browser
        .client
        .goto(&format!("{}?tab=tokens", app.url))
        .await
        .unwrap();
    TokensPage::new(&browser)
        .wait_state("exact", "the vocabulary to load")
        .await;
    // The worker controls the page once its install, which caches the files, has finished.
    crate::pages::query::wait_controlled(&browser).await;
    let requests = app.requests.lock().unwrap().clone();
    // Each file once: the page's wasm and the vocabulary it counts with, and the corpus
    // worker's wasm, which only the service worker's install fetches, so Inspect's corpus
    // comparison works offline too.
    for suffix in [".wasm", ".smv"] {
        let mut asked: Vec<&String> = requests.iter().filter(|p| p.ends_with(suffix)).collect();
        assert!(!asked.is_empty(), "no {suffix} requested: {requests:#?}");
        let all = asked.len();
        asked.sort();
        asked.dedup();
        assert_eq!(
            all,
            asked.len(),
            "a {suffix} file requested twice: {requests:#?}"
        );
    }
    let page_wasm = requests
        .iter()
        .filter(|p| p.ends_with(".wasm") && p.contains("summary-memory-"))
        .count();
    assert_eq!(page_wasm, 1, "the page's wasm: {requests:#?}");
    browser.close().await;
}
