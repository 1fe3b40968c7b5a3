//! Every `data-testid` the end-to-end tests (`tests/e2e/`) use is documented: in the "End-to-end
//! hooks" table of ARCHITECTURE.md, or in the shared list, `../shared/e2e-hooks.md` beside the
//! repository. A hook the tests rely on and no page says is kept stable is a hook a refactor may
//! rename without knowing a test breaks.
//!
//! The names a test uses are read from its sources, natively (no browser): the string literals
//! passed as the hook to the harness's and the page objects' helpers (every function whose first
//! argument is named `id`, `testid`, `field` or `panel`, as `click_testid`, `wait_testid`,
//! `set_field` or `query::testid` take it; not a `plant_…` helper's, which plants an element of
//! the test's own), and the `[data-testid=…]` selectors written out in
//! scripts and CSS. A name a test builds with `format!` is read as a pattern (`policy-{name}` as
//! `policy-*`) and must match a documented name or pattern. A name built in JavaScript
//! (`ab-card-${l}`), or passed through a variable, is not resolved and is left out. The tables
//! may write alternatives (`ab-{a,b}-model`) and `*` (`replay-exact_*`); the shared list's
//! `panel-<tab>` is `panel-*`.
//!
//! Self-tested on a planted hook that no table documents.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use regex::Regex;

/// Where the shared list of hooks is, relative to the repository's root.
const SHARED_HOOKS: &str = "../shared/e2e-hooks.md";

#[test]
fn every_hook_the_end_to_end_tests_use_is_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = shared_hooks(root).unwrap_or_else(|message| panic!("{message}"));
    let architecture = fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let sources = e2e_sources(&root.join("tests/e2e"));
    let used = used_hooks(&sources);
    assert!(
        used.len() > 200,
        "found only {} hooks in tests/e2e: the reader of the test sources is broken",
        used.len()
    );
    let missing = undocumented(&used, &documented(&architecture, &shared));
    assert!(
        missing.is_empty(),
        "these data-testids are used by tests/e2e but documented neither in ARCHITECTURE.md's \
         \"End-to-end hooks\" table nor in {SHARED_HOOKS}; add each to the table's row of its \
         area:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_hook_check_fails_on_a_planted_undocumented_hook() {
    let harness = "\
impl Browser {
    pub async fn click_testid(&self, id: &str) {}
    pub async fn wait_testid(&self, id: &str) -> Element {}
    pub async fn set_field(&self, id: &str, value: &str) {}
    pub async fn wait_all_gone(&self, ids: &[&str], what: &str) {}
    pub async fn read<T: DeserializeOwned>(&self, expression: &str) -> T {}
}
pub async fn wait_count(browser: &Browser, id: &str, n: usize) {}
pub async fn count(browser: &Browser, css: &str) -> usize {}
";
    let page = "\
impl Page {
    /// Reads `data-testid=testid` in the card.
    pub async fn part(&self, testid: &str) -> String {
        query::text(&self.browser, &testid_in(testid)).await
    }
    pub async fn choose(&self, encoding: &str) {}
}
";
    let test = "\
async fn planted(browser: &Browser, page: &Page, field: &str, name: &str) {
    browser.click_testid(\"ab-run\").await;
    browser.wait_testid(\"never-documented\").await;
    // browser.click_testid(\"in-a-comment\").await;
    page.part(\"edition-writer\").await;
    query::wait_count(browser, \"probe-cell\", 3).await;
    browser.wait_all_gone(&[\"ab-a-model\", \"ab-stop\"], \"gone\").await;
    browser.set_field(field, \"70\").await;
    page.choose(\"cl100k_base\").await;
    browser.click_testid(&format!(\"policy-exact_{name}\")).await;
    browser.click_testid(&format!(\"unknown-{name}\")).await;
    query::count(browser, \"[data-testid='ab-pair'] [data-testid=\\\"ab-diff\\\"]\").await;
    browser.read::<bool>(\"!!document.querySelector(`[data-testid='ab-card-${{l}}']`)\").await;
    browser.read::<bool>(&format!(\"!document.querySelector('[data-testid={id}]')\")).await;
}
";
    let sources = vec![
        (PathBuf::from("harness.rs"), harness.to_owned()),
        (PathBuf::from("pages/page.rs"), page.to_owned()),
        (PathBuf::from("planted.rs"), test.to_owned()),
    ];
    let used = used_hooks(&sources);
    assert_eq!(
        used,
        BTreeSet::from(
            [
                "ab-a-model",
                "ab-diff",
                "ab-pair",
                "ab-run",
                "ab-stop",
                "edition-writer",
                "never-documented",
                "policy-exact_*",
                "probe-cell",
                "unknown-*",
            ]
            .map(str::to_owned)
        )
    );
    let architecture = "\
## End-to-end hooks

| area | hooks |
| --- | --- |
| inspect, A/B | `ab-run`, `ab-stop`, `ab-{a,b}-model`, `ab-pair` with `ab-diff` |
| chat, policy panel | `policy-exact_{counted,compare}` |

## Elsewhere

`never-documented` is outside the table, so not documented by it.
";
    let shared = "- `probe-cell` per probe and edition; `edition-writer`; `panel-<tab>`, a \
                  `<details>`\n";
    let patterns = documented(architecture, shared);
    assert!(patterns.contains(&"ab-b-model".to_owned()));
    assert!(patterns.contains(&"panel-*".to_owned()));
    assert_eq!(
        undocumented(&used, &patterns),
        vec!["never-documented".to_owned(), "unknown-*".to_owned()]
    );

    // Without the shared list the check cannot say, and fails saying where it looked.
    let empty = std::env::temp_dir().join(format!("sm-hooks-{}/repo", std::process::id()));
    let message = shared_hooks(&empty).unwrap_err();
    assert!(
        message.contains("e2e-hooks.md") && message.contains("missing"),
        "{message}"
    );
}

/// The shared list of hooks, or why it cannot be read.
fn shared_hooks(root: &Path) -> Result<String, String> {
    let path = root.join(SHARED_HOOKS);
    fs::read_to_string(&path).map_err(|e| {
        format!(
            "the shared list of end-to-end hooks is missing: {} ({e}); it is {SHARED_HOOKS} \
             beside the repository, and the hooks the tests use are checked against it",
            path.display()
        )
    })
}

/// Every `.rs` file under `dir`, with its text, in path order.
fn e2e_sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path).unwrap();
            (path, text)
        })
        .collect()
}

/// The hooks `sources` use: names, and the patterns (`policy-*`) of names built with `format!`.
fn used_hooks(sources: &[(PathBuf, String)]) -> BTreeSet<String> {
    let sources: Vec<String> = sources
        .iter()
        .map(|(_, text)| without_comments(text))
        .collect();
    let helpers = hook_helpers(&sources);
    let mut used = BTreeSet::new();
    if !helpers.is_empty() {
        let names: Vec<&str> = helpers.iter().map(String::as_str).collect();
        // The hook is the first argument, or the second after the browser (`query::testid`'s
        // free functions): a literal, a `format!`, or a slice of literals.
        let call = Regex::new(&format!(
            r#"\b(?:{})\(\s*(?:&?(?:self\.)?browser,\s*)?(&?format!\(\s*"[^"]*"|&?\[[^\]]*\]|"[^"]*")"#,
            names.join("|")
        ))
        .unwrap();
        let literal = Regex::new(r#""([^"]*)""#).unwrap();
        for text in &sources {
            for argument in call.captures_iter(text) {
                let argument = &argument[1];
                let built = argument.contains("format!");
                for name in literal.captures_iter(argument) {
                    used.insert(if built {
                        pattern_of_format(&name[1])
                    } else {
                        name[1].to_owned()
                    });
                }
            }
        }
    }
    // Selectors written out: `[data-testid='x']`, `[data-testid="x"]`, `[data-testid=x]`. A name
    // that goes on into a placeholder (`{id}`, JavaScript's `${l}`) is built, and left out.
    let selector = Regex::new(r#"data-testid=\\?['"]?([A-Za-z0-9_-]+)([^A-Za-z0-9_-])?"#).unwrap();
    for text in &sources {
        for found in selector.captures_iter(text) {
            if !found
                .get(2)
                .is_some_and(|next| matches!(next.as_str(), "$" | "{"))
            {
                used.insert(found[1].to_owned());
            }
        }
    }
    used
}

/// The helpers whose first argument (after `&self`, or the `browser`) is a hook: every
/// definition of that name takes `id`, `testid`, `field`, `panel` or `ids`. A name that another
/// helper defines with another first argument (the Tokens page's `choose(encoding)` beside the
/// Chat page's `choose(testid, value)`) cannot be told apart at a call, and is left out.
fn hook_helpers(sources: &[String]) -> BTreeSet<String> {
    let definition = Regex::new(
        r"fn (\w+)(?:<[^>]*>)?\(\s*(?:&(?:mut )?self\s*,\s*|browser: &Browser\s*,\s*)?(\w+):",
    )
    .unwrap();
    let mut takes: std::collections::BTreeMap<String, bool> = Default::default();
    for text in sources {
        for found in definition.captures_iter(text) {
            // A helper that plants an element of the test's own (a11y's unnamed button) names
            // no hook of the app.
            if found[1].starts_with("plant_") {
                continue;
            }
            let hook = matches!(
                &found[2],
                "id" | "testid" | "testid_" | "field" | "panel" | "ids"
            );
            *takes.entry(found[1].to_owned()).or_insert(true) &= hook;
        }
    }
    takes
        .into_iter()
        .filter_map(|(name, hook)| hook.then_some(name))
        .collect()
}

/// `text` without its comment lines (doc comments name hooks as prose: `data-testid=id`).
fn without_comments(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A `format!` string's pattern: each placeholder (`{name}`, `{}`) as `*`.
fn pattern_of_format(format: &str) -> String {
    Regex::new(r"\{[^{}]*\}")
        .unwrap()
        .replace_all(format, "*")
        .into_owned()
}

/// The names and patterns the documents write: every `code span` of ARCHITECTURE.md's
/// "End-to-end hooks" section (up to the next `## ` heading) and of the shared list, each
/// alternation (`ab-{a,b}-model`) expanded, and `<tab>` in a name read as `*`.
fn documented(architecture: &str, shared: &str) -> Vec<String> {
    let architecture = format!("\n{architecture}");
    let section = architecture
        .split("\n## ")
        .find(|part| part.starts_with("End-to-end hooks"))
        .unwrap_or("");
    let span = Regex::new(r"`([^`]+)`").unwrap();
    let placeholder = Regex::new(r"<[^<>]*>").unwrap();
    let mut patterns = BTreeSet::new();
    for text in [section, shared] {
        for found in span.captures_iter(text) {
            let token = placeholder.replace_all(found[1].trim(), "*");
            // An element named alone (`<details>`) is no pattern of names.
            if token.chars().any(|c| c != '*') {
                patterns.extend(alternatives(&token));
            }
        }
    }
    patterns.into_iter().collect()
}

/// `a-{b,c}-d` as `a-b-d` and `a-c-d` (each brace group in turn).
fn alternatives(token: &str) -> Vec<String> {
    let Some(open) = token.find('{') else {
        return vec![token.to_owned()];
    };
    let Some(close) = token[open..].find('}').map(|c| open + c) else {
        return vec![token.to_owned()];
    };
    token[open + 1..close]
        .split(',')
        .flat_map(|choice| {
            alternatives(&format!(
                "{}{}{}",
                &token[..open],
                choice.trim(),
                &token[close + 1..]
            ))
        })
        .collect()
}

/// The used names and patterns that nothing documented covers, in order: a name is covered by a
/// documented name or a pattern it matches, a test's pattern by a documented pattern equal to it
/// or a documented name it matches.
fn undocumented(used: &BTreeSet<String>, documented: &[String]) -> Vec<String> {
    used.iter()
        .filter(|name| {
            !documented
                .iter()
                .any(|doc| *name == doc || glob_matches(doc, name) || glob_matches(name, doc))
        })
        .cloned()
        .collect()
}

/// Whether `text` matches `pattern`, where `*` stands for any run of characters (a pattern
/// without one matches only itself).
fn glob_matches(pattern: &str, text: &str) -> bool {
    let Some((head, rest)) = pattern.split_once('*') else {
        return pattern == text;
    };
    let Some(after) = text.strip_prefix(head) else {
        return false;
    };
    (0..=after.len())
        .filter(|&i| after.is_char_boundary(i))
        .any(|i| glob_matches(rest, &after[i..]))
}
