//! `summary_memory._core`, the binding: Python values in, the core's and the CLI library's
//! functions called, their values out. It decides nothing: reading is the CLI's reader
//! (`summary_memory_cli::read`, the core's streaming reader on a thread), counting the app's
//! counter, policies the CLI's `--policy` and the core's `import_policy`, rows the core's
//! `measure` named as the CLI names them, the CSV the core's `rows_csv`, replays the core's
//! `replay_offline` written as the CLI writes them. Errors are Python exceptions carrying the
//! app's own messages (naming the file and place).

mod middleware;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use summary_memory::engine::corpus::{self, Column, CorpusSettings};
use summary_memory::engine::library_session::Session;
use summary_memory::engine::replay::replay_offline;
use summary_memory::engine::session::{export, export_policy, import_policy};
use summary_memory_cli::input::{Problem, sources};
use summary_memory_cli::read::Conversations;
use summary_memory_cli::run::Counting;
use summary_memory_cli::{measure_named, policies, pool, write_replayed};

create_exception!(
    _core,
    SummaryMemoryError,
    PyValueError,
    "Every error of the package: the app's own message."
);
create_exception!(
    _core,
    ReadError,
    SummaryMemoryError,
    "Something could not be read: `place` names the file (and the line or entry), `reason` says why."
);
create_exception!(
    _core,
    PolicyError,
    SummaryMemoryError,
    "A policy that cannot be used: no such preset or file, a file that is no policy, an invalid policy."
);
create_exception!(
    _core,
    MeasureError,
    SummaryMemoryError,
    "A conversation that could not be measured or replayed under a policy."
);

/// The counting of `encoding` (o200k_base, cl100k_base or words), its vocabularies built once
/// per process.
fn counting(encoding: &str) -> PyResult<Counting> {
    static BUILT: OnceLock<Mutex<HashMap<String, Counting>>> = OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    let mut built = built
        .lock()
        .expect("no thread panics holding the countings");
    if let Some(c) = built.get(encoding) {
        return Ok(c.clone());
    }
    let c = Counting::named(encoding)
        .map_err(|e| SummaryMemoryError::new_err(e.replace("--encoding ", "encoding ")))?;
    built.insert(encoding.to_owned(), c.clone());
    Ok(c)
}

fn read_error(py: Python<'_>, p: &Problem) -> PyErr {
    let err = ReadError::new_err(p.to_string());
    let value = err.value(py);
    let _ = value.setattr("place", &p.place);
    let _ = value.setattr("reason", &p.reason);
    err
}

/// Counts `text`'s tokens as the app counts them (o200k_base, cl100k_base, or words).
#[pyfunction]
#[pyo3(signature = (text, encoding = "o200k_base"))]
fn count_tokens(text: &str, encoding: &str) -> PyResult<u32> {
    Ok(counting(encoding)?.with(|counter| counter.count(text)))
}

/// One conversation read, as the app holds it.
#[pyclass(frozen, module = "summary_memory")]
struct Conversation {
    /// The file it came from, as a row's `source` names it.
    #[pyo3(get)]
    source: String,
    /// Its place among its file's conversations, from 0.
    #[pyo3(get)]
    index: u32,
    #[pyo3(get)]
    encoding: String,
    session: Arc<Session>,
}

#[pymethods]
impl Conversation {
    /// Its name as the page gives it (its title, or "Imported conversation N").
    #[getter]
    fn name(&self) -> &str {
        &self.session.name
    }

    /// Every message: a dict of `role`, `content` and `tokens` (as the encoding counts it).
    fn messages<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.session
            .memory
            .archive()
            .iter()
            .map(|m| {
                let d = PyDict::new(py);
                d.set_item("role", m.role.as_str())?;
                d.set_item("content", &m.content)?;
                d.set_item("tokens", m.tokens)?;
                Ok(d)
            })
            .collect()
    }

    /// The conversation as a session file Inspect opens.
    fn to_json(&self) -> String {
        export(&self.session, 0, env!("CARGO_PKG_VERSION"))
    }

    fn __repr__(&self) -> String {
        format!(
            "Conversation(source={:?}, index={}, name={:?}, messages={})",
            self.source,
            self.index,
            self.session.name,
            self.session.memory.archive().len()
        )
    }
}

/// The conversations of a file, a directory or bytes, read lazily (see `read`).
#[pyclass(module = "summary_memory")]
struct Reader {
    inner: Mutex<Conversations>,
    /// Problems met before reading (paths that cannot be listed), handed out first.
    listed: Mutex<Vec<Problem>>,
    raise: bool,
    problems: Mutex<Vec<(String, String)>>,
}

#[pymethods]
impl Reader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Conversation>> {
        loop {
            let listed = self.listed.lock().expect("unpoisoned").pop();
            let next = match listed {
                Some(p) => Some(Err(p)),
                None => py.detach(|| self.inner.lock().expect("unpoisoned").next()),
            };
            match next {
                None => return Ok(None),
                Some(Ok(named)) => {
                    let encoding = self.inner.lock().expect("unpoisoned").counting().name();
                    return Ok(Some(Conversation {
                        source: named.source,
                        index: named.index,
                        encoding: encoding.to_owned(),
                        session: Arc::new(named.session),
                    }));
                }
                Some(Err(p)) => {
                    self.problems
                        .lock()
                        .expect("unpoisoned")
                        .push((p.place.clone(), p.reason.clone()));
                    if self.raise {
                        return Err(read_error(py, &p));
                    }
                }
            }
        }
    }

    /// What could not be read so far: (place, reason) pairs, in the order met.
    #[getter]
    fn problems(&self) -> Vec<(String, String)> {
        self.problems.lock().expect("unpoisoned").clone()
    }
}

/// Reads conversations, lazily, as the CLI and the page read them.
#[pyfunction]
#[pyo3(signature = (source, *, encoding = "o200k_base", name = None, on_problem = "raise"))]
fn read(
    source: &Bound<'_, PyAny>,
    encoding: &str,
    name: Option<String>,
    on_problem: &str,
) -> PyResult<Reader> {
    let raise = match on_problem {
        "raise" => true,
        "collect" => false,
        other => {
            return Err(SummaryMemoryError::new_err(format!(
                "on_problem {other:?}: expected \"raise\" or \"collect\""
            )));
        }
    };
    let counting = counting(encoding)?;
    let (inner, mut listed) = if let Ok(bytes) = source.cast::<PyBytes>() {
        let name = name.unwrap_or_else(|| "<bytes>".to_owned());
        let data = bytes.as_bytes().to_vec();
        (Conversations::of_bytes(name, data, counting), Vec::new())
    } else {
        let paths: Vec<PathBuf> = match source.extract::<PathBuf>() {
            Ok(path) => vec![path],
            Err(_) => source.extract()?,
        };
        let (mut found, problems) = sources(&paths);
        if let (Some(name), [only]) = (name, found.as_mut_slice()) {
            only.name = name;
        }
        (Conversations::of_sources(found, counting), problems)
    };
    listed.reverse();
    Ok(Reader {
        inner: Mutex::new(inner),
        listed: Mutex::new(listed),
        raise,
        problems: Mutex::new(Vec::new()),
    })
}

/// The files `read` and the CLI read under `paths`: (name, path) pairs, in order.
#[pyfunction]
fn files(py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<Vec<(String, PathBuf)>> {
    let (found, problems) = sources(&paths);
    if let Some(p) = problems.first() {
        return Err(read_error(py, p));
    }
    Ok(found.into_iter().map(|s| (s.name, s.path)).collect())
}

/// A policy compared: a column of the CSV.
#[pyclass(frozen, module = "summary_memory")]
#[derive(Clone)]
struct Policy {
    column: Column,
}

#[pymethods]
impl Policy {
    /// As the CLI's `--policy` names one: "yours", a peer preset's slug, or a JSON file.
    #[staticmethod]
    #[pyo3(signature = (spec, window = CorpusSettings::default().window))]
    fn load(spec: &str, window: u32) -> PyResult<Policy> {
        let mut columns =
            policies::columns(&[spec.to_owned()], window).map_err(PolicyError::new_err)?;
        Ok(Policy {
            column: columns.remove(0),
        })
    }

    /// From the JSON the page exports (or a session file, or a bare policy), as column `id`.
    #[staticmethod]
    #[pyo3(signature = (data, id, label = None))]
    fn from_json(data: &Bound<'_, PyAny>, id: String, label: Option<String>) -> PyResult<Policy> {
        let bytes: Vec<u8> = match data.cast::<PyBytes>() {
            Ok(b) => b.as_bytes().to_vec(),
            Err(_) => data.extract::<String>()?.into_bytes(),
        };
        let policy = import_policy(&bytes).map_err(|e| PolicyError::new_err(e.to_string()))?;
        let label = label.unwrap_or_else(|| id.clone());
        let column =
            Column::new(id, label, policy).map_err(|e| PolicyError::new_err(e.to_string()))?;
        Ok(Policy { column })
    }

    /// Every peer preset's slug, in the page's order.
    #[staticmethod]
    fn presets() -> Vec<String> {
        Column::presets(CorpusSettings::default().window)
            .into_iter()
            .map(|c| c.id)
            .collect()
    }

    #[getter]
    fn id(&self) -> &str {
        &self.column.id
    }

    #[getter]
    fn label(&self) -> &str {
        &self.column.label
    }

    /// The policy as the page exports it.
    fn to_json(&self) -> String {
        export_policy(&self.column.policy)
    }

    fn __repr__(&self) -> String {
        format!(
            "Policy(id={:?}, label={:?})",
            self.column.id, self.column.label
        )
    }
}

/// One conversation under one policy: the CLI's row, field for field.
#[pyclass(frozen, eq, get_all, module = "summary_memory")]
#[derive(Clone, PartialEq)]
struct Row {
    source: String,
    index: u32,
    conversation: String,
    policy: String,
    turns: u32,
    summariser_calls: u32,
    chat_tokens: u64,
    summariser_tokens_in: u64,
    summariser_tokens_out: u64,
    largest_request: u64,
    over_window: u32,
    facts_lost: u32,
    rules_lost: u32,
    unsourced_figures: u32,
}

impl From<corpus::Row> for Row {
    fn from(r: corpus::Row) -> Row {
        Row {
            source: r.source,
            index: r.index,
            conversation: r.conversation,
            policy: r.policy,
            turns: r.turns,
            summariser_calls: r.summariser_calls,
            chat_tokens: r.chat_tokens,
            summariser_tokens_in: r.summariser_tokens_in,
            summariser_tokens_out: r.summariser_tokens_out,
            largest_request: r.largest_request,
            over_window: r.over_window,
            facts_lost: r.facts_lost,
            rules_lost: r.rules_lost,
            unsourced_figures: r.unsourced_figures,
        }
    }
}

impl From<Row> for corpus::Row {
    fn from(r: Row) -> corpus::Row {
        corpus::Row {
            source: r.source,
            index: r.index,
            conversation: r.conversation,
            policy: r.policy,
            turns: r.turns,
            summariser_calls: r.summariser_calls,
            chat_tokens: r.chat_tokens,
            summariser_tokens_in: r.summariser_tokens_in,
            summariser_tokens_out: r.summariser_tokens_out,
            largest_request: r.largest_request,
            over_window: r.over_window,
            facts_lost: r.facts_lost,
            rules_lost: r.rules_lost,
            unsourced_figures: r.unsourced_figures,
        }
    }
}

#[pymethods]
impl Row {
    #[new]
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (*, source, index, conversation, policy, turns, summariser_calls, chat_tokens, summariser_tokens_in, summariser_tokens_out, largest_request, over_window, facts_lost, rules_lost, unsourced_figures))]
    fn new(
        source: String,
        index: u32,
        conversation: String,
        policy: String,
        turns: u32,
        summariser_calls: u32,
        chat_tokens: u64,
        summariser_tokens_in: u64,
        summariser_tokens_out: u64,
        largest_request: u64,
        over_window: u32,
        facts_lost: u32,
        rules_lost: u32,
        unsourced_figures: u32,
    ) -> Row {
        Row {
            source,
            index,
            conversation,
            policy,
            turns,
            summariser_calls,
            chat_tokens,
            summariser_tokens_in,
            summariser_tokens_out,
            largest_request,
            over_window,
            facts_lost,
            rules_lost,
            unsourced_figures,
        }
    }

    /// The row as a dict, its keys the CSV's header.
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("source", &self.source)?;
        d.set_item("index", self.index)?;
        d.set_item("conversation", &self.conversation)?;
        d.set_item("policy", &self.policy)?;
        d.set_item("turns", self.turns)?;
        d.set_item("summariser_calls", self.summariser_calls)?;
        d.set_item("chat_tokens", self.chat_tokens)?;
        d.set_item("summariser_tokens_in", self.summariser_tokens_in)?;
        d.set_item("summariser_tokens_out", self.summariser_tokens_out)?;
        d.set_item("largest_request", self.largest_request)?;
        d.set_item("over_window", self.over_window)?;
        d.set_item("facts_lost", self.facts_lost)?;
        d.set_item("rules_lost", self.rules_lost)?;
        d.set_item("unsourced_figures", self.unsourced_figures)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "Row(source={:?}, index={}, conversation={:?}, policy={:?}, turns={}, summariser_calls={}, chat_tokens={})",
            self.source,
            self.index,
            self.conversation,
            self.policy,
            self.turns,
            self.summariser_calls,
            self.chat_tokens
        )
    }
}

/// The columns of `policies` (Policy objects, or specs as `Policy.load` takes them), each id once.
fn columns(policies: &Bound<'_, PyAny>, window: u32) -> PyResult<Vec<Column>> {
    let mut columns: Vec<Column> = Vec::new();
    for item in policies.try_iter()? {
        let item = item?;
        let column = match item.extract::<Policy>() {
            Ok(p) => p.column,
            Err(_) => Policy::load(&item.extract::<String>()?, window)?.column,
        };
        if columns.iter().any(|c| c.id == column.id) {
            return Err(PolicyError::new_err(format!(
                "the policy {:?} is named twice; each column needs its own id",
                column.id
            )));
        }
        columns.push(column);
    }
    Ok(columns)
}

/// The conversations of `conversations` (an iterable of `Conversation`), `CHUNK` at a time.
const CHUNK: usize = 512;

/// Pulls up to `CHUNK` conversations as (source, index, session), checking each was read with
/// `encoding` (the first's when `None`).
fn chunk(
    items: &Bound<'_, PyAny>,
    encoding: &mut Option<String>,
) -> PyResult<Vec<(String, u32, Arc<Session>)>> {
    let mut out = Vec::new();
    while out.len() < CHUNK {
        let Some(item) = items.call_method0("__next__").map(Some).or_else(|e| {
            if e.is_instance_of::<pyo3::exceptions::PyStopIteration>(items.py()) {
                Ok(None)
            } else {
                Err(e)
            }
        })?
        else {
            break;
        };
        let c = item.cast::<Conversation>()?.get();
        match encoding {
            Some(e) if *e != c.encoding => {
                return Err(SummaryMemoryError::new_err(format!(
                    "{} [{}] {:?} was read with {}, not {e}: read and measure with one encoding",
                    c.source, c.index, c.session.name, c.encoding
                )));
            }
            Some(_) => {}
            None => *encoding = Some(c.encoding.clone()),
        }
        out.push((c.source.clone(), c.index, Arc::clone(&c.session)));
    }
    Ok(out)
}

fn jobs(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Every policy on every conversation: the CLI's rows, in the CLI's order.
#[pyfunction]
#[pyo3(signature = (conversations, policies, *, window = CorpusSettings::default().window, summary_tokens = CorpusSettings::default().summary_tokens, replay = true, encoding = None, jobs = None))]
#[allow(clippy::too_many_arguments)]
fn measure(
    py: Python<'_>,
    conversations: &Bound<'_, PyAny>,
    policies: &Bound<'_, PyAny>,
    window: u32,
    summary_tokens: u32,
    replay: bool,
    encoding: Option<String>,
    jobs: Option<usize>,
) -> PyResult<Vec<Row>> {
    let columns = columns(policies, window)?;
    let settings = CorpusSettings {
        window,
        summary_tokens,
        replay,
    };
    let pool = pool(self::jobs(jobs)).map_err(SummaryMemoryError::new_err)?;
    let items = conversations.try_iter()?;
    let mut encoding = encoding;
    let mut rows = Vec::new();
    loop {
        let named = chunk(items.as_any(), &mut encoding)?;
        if named.is_empty() {
            break;
        }
        let counting = counting(encoding.as_deref().unwrap_or("o200k_base"))?;
        let named: Vec<(&str, u32, &Session)> = named
            .iter()
            .map(|(source, index, session)| (source.as_str(), *index, &**session))
            .collect();
        let measured = py
            .detach(|| measure_named(&named, &columns, &settings, &counting, &pool))
            .map_err(|e| MeasureError::new_err(e.to_string()))?;
        rows.extend(measured);
    }
    corpus::sort_rows(&mut rows, &columns);
    Ok(rows.into_iter().map(Row::from).collect())
}

/// The rows as the CLI's `--rows` CSV; sorted as the CLI sorts them when `policies` are given.
#[pyfunction]
#[pyo3(signature = (rows, policies = None))]
fn rows_csv(rows: Vec<Row>, policies: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    let mut rows: Vec<corpus::Row> = rows.into_iter().map(Into::into).collect();
    if let Some(policies) = policies {
        let columns = columns(policies, CorpusSettings::default().window)?;
        corpus::sort_rows(&mut rows, &columns);
    }
    Ok(corpus::rows_csv(&rows))
}

/// Every conversation replayed under every policy with the built-in extractive summariser,
/// written into `out` as session files Inspect opens (as the CLI's `replay` names them).
#[pyfunction]
#[pyo3(signature = (conversations, policies, out, *, window = CorpusSettings::default().window))]
fn replay(
    py: Python<'_>,
    conversations: &Bound<'_, PyAny>,
    policies: &Bound<'_, PyAny>,
    out: PathBuf,
    window: u32,
) -> PyResult<Vec<PathBuf>> {
    let columns = columns(policies, window)?;
    std::fs::create_dir_all(&out).map_err(|e| {
        pyo3::exceptions::PyOSError::new_err(format!("{}: cannot be created: {e}", out.display()))
    })?;
    let created_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let mut written = Vec::new();
    for item in conversations.try_iter()? {
        let item = item?;
        let c = item.cast::<Conversation>()?.get();
        let counting = counting(&c.encoding)?;
        for column in &columns {
            let replayed = py.detach(|| {
                counting
                    .with(|counter| replay_offline(&c.session, column.policy.clone(), counter, ""))
            });
            let mut session = replayed.map_err(|e| {
                MeasureError::new_err(format!(
                    "{} [{}] {:?} under {}: {e}",
                    c.source, c.index, c.session.name, column.id
                ))
            })?;
            let file = write_replayed(
                &out,
                &c.source,
                c.index,
                &c.session.name,
                column,
                &mut session,
                created_ms,
            )
            .map_err(pyo3::exceptions::PyOSError::new_err)?;
            written.push(file);
        }
    }
    Ok(written)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("SummaryMemoryError", py.get_type::<SummaryMemoryError>())?;
    m.add("ReadError", py.get_type::<ReadError>())?;
    m.add("PolicyError", py.get_type::<PolicyError>())?;
    m.add("MeasureError", py.get_type::<MeasureError>())?;
    m.add_class::<Conversation>()?;
    m.add_class::<Reader>()?;
    m.add_class::<Policy>()?;
    m.add_class::<Row>()?;
    m.add_function(wrap_pyfunction!(count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(files, m)?)?;
    m.add_function(wrap_pyfunction!(measure, m)?)?;
    m.add_function(wrap_pyfunction!(rows_csv, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(middleware::decide, m)?)?;
    m.add_function(wrap_pyfunction!(middleware::request_head_of, m)?)?;
    m.add_function(wrap_pyfunction!(middleware::fold_request, m)?)?;
    m.add_function(wrap_pyfunction!(middleware::rebuilds, m)?)?;
    m.add_function(wrap_pyfunction!(middleware::unsupported, m)?)?;
    m.add_function(wrap_pyfunction!(middleware::count_message, m)?)?;
    Ok(())
}
