//! Generic page readers (texts, attributes) shared by the page objects.
//!
//! Each reader is one WebDriver script over a CSS selector passed as an argument, so that what it
//! reads comes from one moment: the app may rebuild a list (a virtualised row, a session recounted
//! when the vocabulary arrives) between two separate WebDriver calls. The waits poll one such
//! script until it holds.

use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::harness::{Browser, PATIENCE};

/// The CSS selector of the elements with `data-testid=id`.
pub fn testid(id: &str) -> String {
    format!("[data-testid='{id}']")
}

/// One thing read from an element, or from the first element inside it that matches `within`.
#[derive(Clone, Copy, Debug)]
pub struct Field<'a> {
    kind: &'static str,
    name: &'a str,
    within: Option<&'a str>,
}

impl<'a> Field<'a> {
    /// Its `textContent`: every text inside it, shown or not.
    pub const fn text() -> Field<'a> {
        Field::of("text", "")
    }

    /// Its `innerText`: the text as rendered.
    pub const fn inner_text() -> Field<'a> {
        Field::of("inner", "")
    }

    /// Its `data-*` attribute, named as in `dataset` (`summarisedTo` for `data-summarised-to`).
    pub const fn data(name: &'a str) -> Field<'a> {
        Field::of("data", name)
    }

    /// One of its attributes (`null` when it has none).
    pub const fn attr(name: &'a str) -> Field<'a> {
        Field::of("attr", name)
    }

    /// One of its DOM properties (`value`, `open`, `disabled`, ...).
    pub const fn prop(name: &'a str) -> Field<'a> {
        Field::of("prop", name)
    }

    /// Whether it carries the class `name`.
    pub const fn has_class(name: &'a str) -> Field<'a> {
        Field::of("class", name)
    }

    /// Whether it matches the selector `css` (`:disabled`, say).
    pub const fn matches(css: &'a str) -> Field<'a> {
        Field::of("matches", css)
    }

    /// The same field, read from the first element inside that matches `css` (`null` when none).
    pub const fn within(self, css: &'a str) -> Field<'a> {
        Field {
            within: Some(css),
            ..self
        }
    }

    const fn of(kind: &'static str, name: &'a str) -> Field<'a> {
        Field {
            kind,
            name,
            within: None,
        }
    }

    fn json(&self) -> Value {
        json!([self.kind, self.name, self.within])
    }
}

/// The JavaScript function `read(element, [kind, name, within])` behind [`Field`].
const READ: &str = "const read = (el, [kind, name, within]) => {
        const t = within ? el.querySelector(within) : el;
        if (!t) return null;
        switch (kind) {
            case 'text': return t.textContent;
            case 'inner': return t.innerText;
            case 'data': return t.dataset[name] ?? null;
            case 'attr': return t.getAttribute(name);
            case 'prop': return t[name] ?? null;
            case 'class': return t.classList.contains(name);
            case 'matches': return t.matches(name);
        }
        throw new Error(`unknown field ${kind}`);
    };";

/// What the JavaScript `expression` evaluates to, read in one WebDriver call.
pub async fn value<T: DeserializeOwned>(browser: &Browser, expression: &str) -> T {
    let value = browser
        .client
        .execute(&format!("return {expression};"), vec![])
        .await
        .unwrap();
    serde_json::from_value(value).unwrap()
}

/// For every element matching `css`, the `fields` read from it, in one script: a row per
/// element, deserialised as `T` (a `Vec` of tuples, say).
pub async fn rows<T: DeserializeOwned>(browser: &Browser, css: &str, fields: &[Field<'_>]) -> T {
    let fields: Vec<Value> = fields.iter().map(Field::json).collect();
    let script = format!(
        "{READ} const [css, fields] = arguments;
         return [...document.querySelectorAll(css)].map((el) => fields.map((f) => read(el, f)));"
    );
    let value = browser
        .client
        .execute(&script, vec![json!(css), json!(fields)])
        .await
        .unwrap();
    serde_json::from_value(value).unwrap_or_else(|e| panic!("reading {css}: {e}"))
}

/// `field` of every element matching `css`, in one script.
pub async fn all<T: DeserializeOwned>(browser: &Browser, css: &str, field: Field<'_>) -> Vec<T> {
    let script = format!(
        "{READ} const [css, field] = arguments;
         return [...document.querySelectorAll(css)].map((el) => read(el, field));"
    );
    let value = browser
        .client
        .execute(&script, vec![json!(css), field.json()])
        .await
        .unwrap();
    serde_json::from_value(value).unwrap_or_else(|e| panic!("reading {css}: {e}"))
}

/// `field` of the first element matching `css` (`null`, so `None` for an `Option`, when none).
pub async fn one<T: DeserializeOwned>(browser: &Browser, css: &str, field: Field<'_>) -> T {
    let script = format!(
        "{READ} const [css, field] = arguments;
         const el = document.querySelector(css);
         return el ? read(el, field) : null;"
    );
    let value = browser
        .client
        .execute(&script, vec![json!(css), field.json()])
        .await
        .unwrap();
    serde_json::from_value(value).unwrap_or_else(|e| panic!("reading {css}: {e}"))
}

/// The `textContent` of the first element matching `css`.
pub async fn text(browser: &Browser, css: &str) -> String {
    one::<Option<String>>(browser, css, Field::text())
        .await
        .unwrap_or_else(|| panic!("nothing matches {css}"))
}

/// How many elements match `css` now.
pub async fn count(browser: &Browser, css: &str) -> usize {
    let value = browser
        .client
        .execute(
            "return document.querySelectorAll(arguments[0]).length;",
            vec![json!(css)],
        )
        .await
        .unwrap();
    serde_json::from_value(value).unwrap()
}

/// What a wait waits for, tested in the page by one script.
#[derive(Clone, Copy, Debug)]
pub enum Until<'a> {
    /// Exactly `n` elements match the selector.
    Count(usize),
    /// Some element matches it.
    Present,
    /// None does.
    Absent,
    /// The first match's field equals the value (the comparison is JavaScript's `===`).
    Is(Field<'a>, &'a Value),
    /// The first match's field is a text that holds the given text.
    Contains(Field<'a>, &'a str),
    /// The first match's field is a text that is not empty.
    NotEmpty(Field<'a>),
    /// The first match's field is a text longer than so many UTF-16 units (JavaScript's
    /// `length`).
    LongerThan(Field<'a>, usize),
    /// Every match's field equals the value (true when nothing matches, as `every` is).
    Every(Field<'a>, &'a Value),
}

impl Until<'_> {
    fn json(&self) -> Value {
        match *self {
            Until::Count(n) => json!(["count", null, n]),
            Until::Present => json!(["present", null, null]),
            Until::Absent => json!(["absent", null, null]),
            Until::Is(f, v) => json!(["is", f.json(), v]),
            Until::Contains(f, s) => json!(["contains", f.json(), s]),
            Until::NotEmpty(f) => json!(["nonempty", f.json(), null]),
            Until::LongerThan(f, n) => json!(["longer", f.json(), n]),
            Until::Every(f, v) => json!(["every", f.json(), v]),
        }
    }
}

/// Waits until `until` holds for the elements matching `css`, or fails with `what`.
pub async fn wait(browser: &Browser, css: &str, until: Until<'_>, what: &str) {
    wait_patiently(browser, css, until, what, PATIENCE).await;
}

/// [`wait`] with a patience of its own, for a real model that may take longer than the usual.
pub async fn wait_patiently(
    browser: &Browser,
    css: &str,
    until: Until<'_>,
    what: &str,
    patience: Duration,
) {
    let script = format!(
        "{READ} const [css, [test, field, value]] = arguments;
         switch (test) {{
             case 'count': return document.querySelectorAll(css).length === value;
             case 'absent': return !document.querySelector(css);
             case 'every': return [...document.querySelectorAll(css)].every((el) => read(el, field) === value);
         }}
         const el = document.querySelector(css);
         if (!el) return false;
         if (test === 'present') return true;
         const got = read(el, field);
         switch (test) {{
             case 'is': return got === value;
             case 'contains': return typeof got === 'string' && got.includes(value);
             case 'nonempty': return typeof got === 'string' && got.length > 0;
             case 'longer': return typeof got === 'string' && got.length > value;
         }}
         throw new Error(`unknown test ${{test}}`);"
    );
    let args = vec![json!(css), until.json()];
    poll(browser, &script, args, what, patience).await;
}

/// Waits until `n` elements carry `data-testid=id`.
pub async fn wait_count(browser: &Browser, id: &str, n: usize) {
    wait(
        browser,
        &testid(id),
        Until::Count(n),
        &format!("{n} × {id}"),
    )
    .await;
}

/// Waits until the app marks the `encoding` vocabulary loaded (a performance mark).
pub async fn wait_vocabulary(browser: &Browser, encoding: &str) {
    wait_marks(
        browser,
        &format!("sm-vocab-loaded-{encoding}"),
        1,
        &format!("the {encoding} vocabulary to load"),
    )
    .await;
}

/// How many performance marks (or other entries) named `name` the page holds.
pub async fn marks(browser: &Browser, name: &str) -> usize {
    let value = browser
        .client
        .execute(
            "return performance.getEntriesByName(arguments[0]).length;",
            vec![json!(name)],
        )
        .await
        .unwrap();
    serde_json::from_value(value).unwrap()
}

/// Waits until the page holds at least `n` performance entries named `name`.
pub async fn wait_marks(browser: &Browser, name: &str, n: usize, what: &str) {
    poll(
        browser,
        "return performance.getEntriesByName(arguments[0]).length >= arguments[1];",
        vec![json!(name), json!(n)],
        what,
        PATIENCE,
    )
    .await;
}

/// Waits until a service worker controls the page.
pub async fn wait_controlled(browser: &Browser) {
    poll(
        browser,
        "return !!(navigator.serviceWorker && navigator.serviceWorker.controller);",
        vec![],
        "the service worker to take control",
        PATIENCE,
    )
    .await;
}

/// Waits until the page's link (its query string) holds every one of `parts`.
pub async fn wait_link_has(browser: &Browser, parts: &[&str], what: &str) {
    poll(
        browser,
        "return arguments[0].every((part) => location.search.includes(part));",
        vec![json!(parts)],
        what,
        PATIENCE,
    )
    .await;
}

/// The whole page's HTML as it is now.
pub async fn page_html(browser: &Browser) -> String {
    let value = browser
        .client
        .execute("return document.documentElement.outerHTML", vec![])
        .await
        .unwrap();
    value.as_str().unwrap().to_owned()
}

/// Clicks the first element matching `css` from inside the page (as a script would, whether or
/// not WebDriver finds it clickable: the summary of a `<details>`, say).
pub async fn click(browser: &Browser, css: &str) {
    browser
        .client
        .execute(
            "document.querySelector(arguments[0]).click()",
            vec![json!(css)],
        )
        .await
        .unwrap();
}

/// Fires a bubbling `event` (`change`, say) at the first element matching `css`.
pub async fn dispatch(browser: &Browser, css: &str, event: &str) {
    browser
        .client
        .execute(
            "document.querySelector(arguments[0]).dispatchEvent(new Event(arguments[1], { bubbles: true }));",
            vec![json!(css), json!(event)],
        )
        .await
        .unwrap();
}

/// The item `key` of `storage` (`localStorage` or `sessionStorage`), if it is set.
pub async fn storage_item(browser: &Browser, storage: &str, key: &str) -> Option<String> {
    let value = browser
        .client
        .execute(
            "return window[arguments[0]].getItem(arguments[1]);",
            vec![json!(storage), json!(key)],
        )
        .await
        .unwrap();
    serde_json::from_value(value).unwrap()
}

/// Sets the item `key` of `storage` (`localStorage` or `sessionStorage`) to `value`.
pub async fn set_storage_item(browser: &Browser, storage: &str, key: &str, value: &str) {
    browser
        .client
        .execute(
            "window[arguments[0]].setItem(arguments[1], arguments[2]);",
            vec![json!(storage), json!(key), json!(value)],
        )
        .await
        .unwrap();
}

/// Waits until some item of the `storages` (`localStorage`, `sessionStorage`) does (or, with
/// `present` false, no item of any does) hold `needle`.
pub async fn wait_storage_holds(
    browser: &Browser,
    storages: &[&str],
    needle: &str,
    present: bool,
    what: &str,
) {
    poll(
        browser,
        "return arguments[0].map((name) => window[name])
             .some((s) => Object.keys(s).some((k) => s.getItem(k).includes(arguments[1]))) === arguments[2];",
        vec![json!(storages), json!(needle), json!(present)],
        what,
        PATIENCE,
    )
    .await;
}

/// Waits until the item `key` of `storage` is set and holds `needle`.
pub async fn wait_item_holds(
    browser: &Browser,
    storage: &str,
    key: &str,
    needle: &str,
    what: &str,
) {
    poll(
        browser,
        "return (window[arguments[0]].getItem(arguments[1]) || '').includes(arguments[2]);",
        vec![json!(storage), json!(key), json!(needle)],
        what,
        PATIENCE,
    )
    .await;
}

/// Waits until the item `key` of `storage` is no longer `value` (it was rewritten, or removed).
pub async fn wait_item_changed(
    browser: &Browser,
    storage: &str,
    key: &str,
    value: &str,
    what: &str,
) {
    poll(
        browser,
        "return window[arguments[0]].getItem(arguments[1]) !== arguments[2];",
        vec![json!(storage), json!(key), json!(value)],
        what,
        PATIENCE,
    )
    .await;
}

/// Runs `script` (a function body that returns a value) with `args` until it returns true.
async fn poll(browser: &Browser, script: &str, args: Vec<Value>, what: &str, patience: Duration) {
    let deadline = Instant::now() + patience;
    loop {
        let value = browser.client.execute(script, args.clone()).await.unwrap();
        if value == Value::Bool(true) {
            return;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        crate::harness::pause(50).await;
    }
}

/// What the download link `testid` saves when clicked: its file name and the file's text. The
/// link makes its file as a Blob on click (`ui::widgets::download`); the script clicks it with
/// the browser's download cancelled, catches the Blob the page hands `URL.createObjectURL`, and
/// reads its text (a Blob's own reader: the page's CSP lets no fetch of a `blob:` URL). The
/// link must then point at that Blob's URL.
pub async fn download(browser: &Browser, testid_: &str) -> (String, String) {
    browser.wait_testid(testid_).await;
    let script = "const done = arguments[arguments.length - 1];
        const a = document.querySelector(arguments[0]);
        const make = URL.createObjectURL;
        let blob = null, url = null;
        URL.createObjectURL = (b) => { blob = b; url = make.call(URL, b); return url; };
        const cancel = (e) => e.preventDefault();
        a.addEventListener('click', cancel);
        try { a.click(); } finally {
            a.removeEventListener('click', cancel);
            URL.createObjectURL = make;
        }
        if (!blob) { done(['', 'no Blob was made on click']); return; }
        if (a.getAttribute('href') !== url) { done(['', 'the link does not point at its Blob']); return; }
        blob.text().then((t) => done([a.getAttribute('download'), t]),
            (e) => done(['', 'the Blob does not read: ' + e]));";
    let value = browser
        .client
        .execute_async(script, vec![json!(testid(testid_))])
        .await
        .unwrap();
    let (name, text): (String, String) = serde_json::from_value(value).unwrap();
    assert!(!name.is_empty(), "{testid_}: {text}");
    (name, text)
}
