//! What the tiers against servers we did not write share: finding the virtual environment that
//! `scripts/tools.sh --servers` installed, running a server from it on a loopback port (stopped
//! when the test ends, pass or fail), plain HTTP to it from the test, and driving the page the way
//! `live.rs` does. A server that dies is found by the next wait's pause (`harness::pause`, through
//! [`servers_alive`]), which fails the test at once with how it ended and the end of its log.

use std::cell::RefCell;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::harness::{Browser, TempDir, free_port};

/// The virtual environment `scripts/tools.sh --venv NAME` names (`litellm` or `llama`), or the
/// one in `env_var` when set. A missing one fails the test: the set-up installs it, so a missing
/// environment is a broken set-up, never a reason to skip.
pub fn venv(name: &str, env_var: &str) -> PathBuf {
    let dir = match std::env::var(env_var) {
        Ok(dir) => PathBuf::from(dir),
        Err(_) => {
            let root = Path::new(env!("CARGO_MANIFEST_DIR"));
            let out = Command::new("bash")
                .arg(root.join("scripts/tools.sh"))
                .args(["--venv", name])
                .output()
                .expect("cannot run bash scripts/tools.sh --venv");
            assert!(
                out.status.success(),
                "scripts/tools.sh --venv {name} failed"
            );
            PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
        }
    };
    assert!(
        dir.join("bin/python").is_file(),
        "the {name} virtual environment is missing at {}: run `bash scripts/tools.sh --servers` \
         (scripts/test.sh does), or point {env_var} at one",
        dir.display()
    );
    dir
}

/// A server process on a loopback port, in a process group of its own. Dropping it (also when a
/// test panics) kills the group; a watching shell kills the server if this test process dies
/// without dropping it.
///
/// While it runs, every wait of this test's thread checks that it is alive
/// ([`servers_alive`]): a server that dies (a crash on its first completion, say) fails the
/// test at once, by name, with its exit status or signal and the last lines of its log, instead
/// of the test waiting out its patience for a reply that will never come.
pub struct ServerProcess {
    pub name: &'static str,
    pub port: u16,
    child: Rc<RefCell<Child>>,
    log: PathBuf,
    _dir: TempDir,
}

/// A server this thread's test started, as [`servers_alive`] checks it.
struct Watched {
    name: &'static str,
    child: Rc<RefCell<Child>>,
    log: PathBuf,
}

thread_local! {
    /// The servers the test on this thread is running (each `#[tokio::test]` has a thread and
    /// a current-thread runtime of its own, so one test never sees another's).
    static WATCHED: RefCell<Vec<Watched>> = const { RefCell::new(Vec::new()) };
}

/// `Err` naming the first server of this test that has exited, how, and how its log ends.
pub fn servers_alive() -> Result<(), String> {
    WATCHED.with(|watched| {
        for server in watched.borrow().iter() {
            let status = server.child.borrow_mut().try_wait();
            if let Ok(Some(status)) = status {
                return Err(format!(
                    "the {} server died during the test ({}); its log ends:\n{}",
                    server.name,
                    how_it_ended(status),
                    log_tail(&server.log)
                ));
            }
        }
        Ok(())
    })
}

/// "exit status 1" or "killed by signal 11 (SIGSEGV)". The server runs under a watching shell
/// (see [`ServerProcess::start`]), which exits with the server's status: 128 + N for signal N.
pub fn how_it_ended(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    let signal = status
        .signal()
        .or_else(|| status.code().filter(|c| *c > 128).map(|c| c - 128));
    match (signal, status.code()) {
        (Some(signal), _) => {
            let name = match signal {
                4 => "SIGILL",
                6 => "SIGABRT",
                7 => "SIGBUS",
                8 => "SIGFPE",
                9 => "SIGKILL",
                11 => "SIGSEGV",
                15 => "SIGTERM",
                _ => "a signal",
            };
            format!("killed by signal {signal} ({name})")
        }
        (None, Some(code)) => format!("exit status {code}"),
        (None, None) => "ended".to_owned(),
    }
}

fn log_tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

impl ServerProcess {
    /// Starts `program args` with `env` added, its output in a log file inside `dir`.
    pub fn start(
        name: &'static str,
        program: &Path,
        args: &[String],
        env: &[(&str, String)],
        port: u16,
        dir: TempDir,
    ) -> ServerProcess {
        use std::os::unix::process::CommandExt;
        let log = dir.0.join(format!("{name}.log"));
        let out = std::fs::File::create(&log).unwrap();
        let watch = r#"parent=$1; shift
            "$@" & server=$!
            while kill -0 "$parent" 2>/dev/null && kill -0 "$server" 2>/dev/null; do sleep 1; done
            kill -9 "$server" 2>/dev/null
            wait "$server""#;
        let mut command = Command::new("sh");
        command
            .args(["-c", watch, "sh", &std::process::id().to_string()])
            .arg(program)
            .args(args)
            .current_dir(&dir.0)
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .process_group(0);
        for (key, value) in env {
            command.env(key, value);
        }
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        let child = Rc::new(RefCell::new(child));
        WATCHED.with(|w| {
            w.borrow_mut().push(Watched {
                name,
                child: child.clone(),
                log: log.clone(),
            })
        });
        ServerProcess {
            name,
            port,
            child,
            log,
            _dir: dir,
        }
    }

    /// Waits until `GET path` answers 200, or fails with the server's log when it exits first or
    /// `patience` runs out.
    pub async fn wait_ready(&mut self, path: &str, patience: Duration) {
        let deadline = Instant::now() + patience;
        loop {
            if let Some(status) = self.child.borrow_mut().try_wait().unwrap() {
                panic!(
                    "{} exited ({}) before it was ready:\n{}",
                    self.name,
                    how_it_ended(status),
                    self.log_tail()
                );
            }
            let port = self.port;
            let request = format!("GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
            if let Ok(reply) = http(port, &request)
                && reply.status == 200
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{} was not ready within {patience:?}:\n{}",
                self.name,
                self.log_tail()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// The last lines of the server's output.
    pub fn log_tail(&self) -> String {
        log_tail(&self.log)
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let pid = self.child.borrow().id();
        WATCHED.with(|w| w.borrow_mut().retain(|s| s.child.borrow().id() != pid));
        // A test that failed on a page error ("could not reach the server") says why here.
        if let Ok(Some(status)) = self.child.borrow_mut().try_wait() {
            eprintln!(
                "note: the {} server had died ({}); its log ends:\n{}",
                self.name,
                how_it_ended(status),
                self.log_tail()
            );
        }
        let group = format!("-{pid}");
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.borrow_mut().wait();
    }
}

/// A free loopback port and a scratch folder for a server.
pub fn port_and_dir() -> (u16, TempDir) {
    (free_port(), TempDir::new())
}

/// A reply read whole from a plain HTTP/1.0 exchange (so the body is never chunked).
#[derive(Debug)]
pub struct RawReply {
    pub status: u16,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RawReply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `request` (a whole HTTP/1.0 request) to the loopback port and reads the reply to its end.
pub fn http(port: u16, request: &str) -> std::io::Result<RawReply> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    stream.write_all(request.as_bytes())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("not an HTTP reply: {head:?}")))?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Ok(RawReply {
        status,
        headers,
        body: body.to_owned(),
    })
}

/// A CORS preflight for a POST with the headers the page sends, from `origin`.
pub fn preflight(port: u16, path: &str, origin: &str) -> RawReply {
    http(
        port,
        &format!(
            "OPTIONS {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nOrigin: {origin}\r\n\
             Access-Control-Request-Method: POST\r\n\
             Access-Control-Request-Headers: authorization,content-type\r\n\r\n"
        ),
    )
    .unwrap()
}

/// POSTs a JSON body, as the page would, and returns the reply.
pub fn post_json(port: u16, path: &str, key: Option<&str>, body: &str) -> RawReply {
    let auth = key.map_or_else(String::new, |k| format!("Authorization: Bearer {k}\r\n"));
    http(
        port,
        &format!(
            "POST {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n{auth}\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    )
    .unwrap()
}

/// The `usage` object of a reply: the JSON body's, or the last one in a server-sent event stream.
pub fn usage_of(reply: &RawReply) -> Option<Value> {
    if let Ok(body) = serde_json::from_str::<Value>(&reply.body) {
        return body.get("usage").cloned();
    }
    reply
        .body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .filter_map(|event| event.get("usage").filter(|u| !u.is_null()).cloned())
        .next_back()
}

/// The page's origin, as the servers see it in `Origin`.
pub fn page_origin() -> String {
    Browser::app_url("").trim_end_matches('/').to_owned()
}

/// Wraps the page's `fetch` so the test can read what each request carried and what came back
/// (`window.__smFetches`: url, method, body, status, content type, and the reply's text unless it
/// is an event stream). It changes nothing the page sees. It lasts until the page is reloaded.
pub async fn record_fetches(browser: &Browser) {
    browser
        .client
        .execute(
            "if (!window.__smFetches) {
                window.__smFetches = [];
                const original = window.fetch.bind(window);
                window.fetch = async (input, init) => {
                    const request = new Request(input, init);
                    const entry = { url: request.url, method: request.method,
                                    body: await request.clone().text() };
                    window.__smFetches.push(entry);
                    const response = await original(request);
                    entry.status = response.status;
                    entry.contentType = response.headers.get('content-type');
                    if (!(entry.contentType || '').startsWith('text/event-stream')) {
                        entry.reply = await response.clone().text();
                    }
                    return response;
                };
            }",
            vec![],
        )
        .await
        .unwrap();
}

/// One request the page made, as [`record_fetches`] saw it.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fetched {
    pub url: String,
    pub method: String,
    pub body: String,
    pub status: Option<u16>,
    pub content_type: Option<String>,
    /// The reply's body, when it was not an event stream.
    pub reply: Option<String>,
}

impl Fetched {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The assistant's text in a (not streamed) chat completion reply.
    pub fn reply_content(&self) -> String {
        let reply: Value = serde_json::from_str(self.reply.as_deref().unwrap_or_default())
            .unwrap_or_else(|e| panic!("not a JSON reply ({e}): {self:?}"));
        reply["choices"][0]["message"]["content"]
            .as_str()
            .unwrap_or_else(|| panic!("no message content in {reply}"))
            .to_owned()
    }
}

/// The requests the page made to `path_end` (e.g. `/chat/completions`), in order.
pub async fn fetched(browser: &Browser, path_end: &str) -> Vec<Fetched> {
    let value = browser
        .client
        .execute("return window.__smFetches || []", vec![])
        .await
        .unwrap();
    let all: Vec<Fetched> = serde_json::from_value(value).unwrap();
    all.into_iter()
        .filter(|f| f.url.ends_with(path_end))
        .collect()
}

/// The real-model test once waited out its whole 600 s for a reply from a llama.cpp server that
/// had crashed (SIGSEGV) on its first completion, and the test before it blamed the network.
/// A server that dies is now named within seconds, with how it ended and its log.
#[tokio::test]
async fn a_server_that_dies_is_reported_by_name_within_seconds() {
    let (port, dir) = port_and_dir();
    let script = "echo loading the model; sleep 0.5; kill -SEGV $$".to_owned();
    let server = ServerProcess::start(
        "crashing",
        Path::new("sh"),
        &["-c".to_owned(), script],
        &[],
        port,
        dir,
    );
    assert_eq!(servers_alive(), Ok(()), "alive at first");
    let started = Instant::now();
    let error = loop {
        if let Err(error) = servers_alive() {
            break error;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the dead server was not noticed"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "noticed after {:?}",
        started.elapsed()
    );
    for part in ["crashing", "signal 11 (SIGSEGV)", "loading the model"] {
        assert!(error.contains(part), "{part:?} missing from: {error}");
    }
    drop(server);
    assert_eq!(
        servers_alive(),
        Ok(()),
        "a stopped server is no longer watched"
    );
}
