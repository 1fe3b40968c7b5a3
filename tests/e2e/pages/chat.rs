//! Page object: the Chat tab. The composer (message box, Send, Stop, Retry), the messages and
//! the summary above them, the policy panel beside them, the demo bar (picker, Step, Play all,
//! Reset, Run live) and the welcome a first visit shows. Its readers of the message list read
//! in one script, since the list's rows are virtualised and may be rebuilt between two calls.

use std::time::{Duration, Instant};

use fantoccini::Locator;
use fantoccini::elements::Element;
use serde_json::{Value, json};

use super::query::{self, Field, Until, testid};
use crate::harness::{Browser, PATIENCE};

/// The API key every live chat against the test server is set up with.
pub const KEY: &str = "sk-live-test";

/// What the Settings form gets before a live chat.
pub struct Setup<'a> {
    pub base_url: &'a str,
    pub stream: bool,
    pub timeout: Option<&'a str>,
    pub max_tokens: Option<&'a str>,
}

impl<'a> Setup<'a> {
    pub fn new(base_url: &'a str) -> Self {
        Setup {
            base_url,
            stream: true,
            timeout: None,
            max_tokens: None,
        }
    }
}

/// (data-role, data-state, text) of one message.
pub type Shown = (String, String, String);

/// One row of the model calls table, as the third-party servers' tests read it.
#[derive(Debug, PartialEq, serde::Deserialize)]
pub struct CallUsage {
    pub kind: String,
    /// The prompt tokens this page counted.
    pub client: String,
    /// What the API reported, or "—" when it reported nothing.
    pub api_prompt: String,
    pub api_completion: String,
}

/// The Chat tab of one browser.
pub struct ChatPage<'a> {
    browser: &'a Browser,
}

impl<'a> ChatPage<'a> {
    pub fn new(browser: &'a Browser) -> Self {
        ChatPage { browser }
    }

    /// Fills Settings the way typing would (value plus an input event), then opens the Chat
    /// tab in the same page so nothing but the form's own storage is involved, and waits until
    /// the message box takes a message.
    pub async fn connect(browser: &'a Browser, setup: Setup<'_>) -> Self {
        browser.open("?tab=settings").await;
        let mut fields = vec![
            ("base-url", setup.base_url),
            ("api-key", KEY),
            ("chat-model", "test-chat"),
            ("summary-model", "test-summary"),
        ];
        fields.extend(setup.timeout.map(|t| ("timeout", t)));
        fields.extend(setup.max_tokens.map(|m| ("max-tokens", m)));
        for (testid, value) in fields {
            browser.set_field(testid, value).await;
        }
        if !setup.stream {
            browser.click_testid("stream").await;
        }
        browser.click_testid("tab-chat").await;
        let chat = ChatPage::new(browser);
        chat.wait_enabled("the message box to be enabled").await;
        chat
    }

    /// Opens the Chat tab in the same page (Settings already filled) and waits until the
    /// message box can be used.
    pub async fn open_tab(browser: &'a Browser) -> Self {
        browser.click_testid("tab-chat").await;
        query::wait(
            browser,
            &testid("chat-input"),
            Until::Is(Field::prop("disabled"), &json!(false)),
            "the message box to be enabled",
        )
        .await;
        ChatPage::new(browser)
    }

    /// Sets a small trigger: summarise once 2 turns are verbatim, keep the last 1, so the second
    /// reply starts a cycle. `keep` is set first, so each step is valid.
    pub async fn summarise_every_two_turns(&self) {
        for (id, value) in [("policy-keep", "1"), ("policy-max_turns", "2")] {
            let input = self.browser.wait_testid(id).await;
            input.clear().await.unwrap();
            input.send_keys(value).await.unwrap();
        }
        query::wait(
            self.browser,
            &testid("param-error"),
            Until::Absent,
            "the new trigger to apply",
        )
        .await;
    }

    /// Pins a word or phrase, as typing it and pressing Pin would.
    pub async fn pin_fact(&self, phrase: &str) {
        let before = self.browser.all_testid("pinned-fact").await.len();
        self.browser
            .wait_testid("fact-input")
            .await
            .send_keys(phrase)
            .await
            .unwrap();
        self.browser.click_testid("fact-add").await;
        query::wait(
            self.browser,
            &testid("pinned-fact"),
            Until::Count(before + 1),
            "the fact pinned",
        )
        .await;
    }

    /// Waits until the message box is enabled: an endpoint and a chat model are set.
    pub async fn wait_enabled(&self, what: &str) {
        self.browser
            .wait_until(
                "!document.querySelector(\"[data-testid='chat-input']\").disabled",
                what,
            )
            .await;
    }

    /// Waits until the message box is enabled and nothing carries `data-testid=error_id`.
    pub async fn wait_enabled_without(&self, error_id: &str, what: &str) {
        self.browser
            .wait_until(
                &format!(
                    "!document.querySelector('[data-testid={error_id}]') && \
                     !document.querySelector(\"[data-testid='chat-input']\").disabled"
                ),
                what,
            )
            .await;
    }

    /// The message box.
    pub async fn input(&self) -> Element {
        self.browser.wait_testid("chat-input").await
    }

    /// Types a message and presses Send.
    pub async fn send(&self, text: &str) {
        self.input().await.send_keys(text).await.unwrap();
        self.browser.click_testid("send").await;
    }

    /// (data-role, data-state, text) of every message on the page, the text as the page holds
    /// it (`textContent`).
    pub async fn messages(&self) -> Vec<Shown> {
        self.browser
            .read(
                "[...document.querySelectorAll(\"[data-testid='message']\")].map(m => \
                 [m.dataset.role, m.dataset.state, m.querySelector('.content').textContent])",
            )
            .await
    }

    /// (data-role, data-state, text) of every message on the page, the text as it is rendered
    /// (`innerText`: a Markdown reply's blocks on lines of their own).
    pub async fn rendered_messages(&self) -> Vec<Shown> {
        self.browser
            .read(
                "[...document.querySelectorAll(\"[data-testid='message']\")].map(m => \
                 [m.dataset.role ?? '', m.dataset.state ?? '', m.querySelector('.content').innerText])",
            )
            .await
    }

    /// How many message rows the page holds now (the list is virtualised: rows out of view are
    /// not in the page).
    pub async fn row_count(&self) -> u64 {
        self.browser
            .read("document.querySelectorAll(\"[data-testid='message']\").length")
            .await
    }

    /// Waits until `n` messages are shown and none is streaming.
    pub async fn wait_settled(&self, n: usize) {
        self.browser
            .wait_until(
                &format!(
                    "document.querySelectorAll(\"[data-testid='message']\").length === {n} && \
                     !document.querySelector(\"[data-state='streaming']\") && \
                     !document.querySelector(\"[data-testid='stop']\")"
                ),
                &format!("{n} settled messages"),
            )
            .await;
    }

    /// [`ChatPage::wait_settled`] with a patience of its own, for a real server and model that
    /// may take longer than the usual; an error shown meanwhile fails it at once.
    pub async fn wait_settled_within(&self, n: usize, patience: Duration) {
        let deadline = Instant::now() + patience;
        loop {
            let settled = query::count(self.browser, &testid("message")).await == n
                && query::count(
                    self.browser,
                    "[data-state='streaming'], [data-testid='stop']",
                )
                .await
                    == 0;
            if settled {
                return;
            }
            if let Ok(error) = self
                .browser
                .client
                .find(Locator::Css("[data-testid='error']"))
                .await
            {
                panic!(
                    "the page shows an error while waiting for {n} messages: {}",
                    error.text().await.unwrap_or_default()
                );
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {n} settled messages"
            );
            crate::harness::pause(100).await;
        }
    }

    /// Waits up to `patience` until a summary is shown and `folded` messages are folded under it.
    pub async fn wait_folded_within(&self, folded: usize, what: &str, patience: Duration) {
        query::wait_patiently(
            self.browser,
            &testid("summary"),
            Until::Present,
            what,
            patience,
        )
        .await;
        query::wait_patiently(
            self.browser,
            "[data-state='folded']",
            Until::Count(folded),
            what,
            patience,
        )
        .await;
    }

    /// Waits until `n` messages are shown and none is streaming, whether or not a summary is
    /// still being written (Stop may still be offered, for the summary).
    pub async fn wait_replied(&self, n: usize, what: &str) {
        self.browser
            .wait_until(
                &format!(
                    "document.querySelectorAll(\"[data-testid='message']\").length === {n} && \
                     !document.querySelector(\"[data-state='streaming']\")"
                ),
                what,
            )
            .await;
    }

    /// Waits until exactly `n` messages are shown.
    pub async fn wait_messages(&self, n: usize, what: &str) {
        self.browser.wait_count("message", n, what).await;
    }

    /// Waits until exactly `n` messages are in `state` (`folded`, `incomplete`, ...).
    pub async fn wait_in_state(&self, state: &str, n: usize, what: &str) {
        self.browser
            .wait_until(
                &format!(
                    "document.querySelectorAll(\"[data-testid='message'][data-state='{state}']\").length === {n}"
                ),
                what,
            )
            .await;
    }

    /// Waits until `n` messages are shown, `folded` of them folded, both at once.
    pub async fn wait_messages_folded(&self, n: usize, folded: usize, what: &str) {
        self.browser
            .wait_until(
                &format!(
                    "document.querySelectorAll(\"[data-testid='message']\").length === {n} && \
                     document.querySelectorAll(\"[data-state='folded']\").length === {folded}"
                ),
                what,
            )
            .await;
    }

    /// Waits until the conversation is empty: no summary and no message.
    pub async fn wait_empty(&self, what: &str) {
        self.browser
            .wait_until(
                "!document.querySelector('[data-testid=summary]') && !document.querySelector('[data-testid=message]')",
                what,
            )
            .await;
    }

    /// Waits until the reply streaming in holds more than `chars` characters.
    pub async fn wait_streaming_longer_than(&self, chars: usize, what: &str) {
        self.browser
            .wait_until(
                &format!(
                    "document.querySelector(\"[data-state='streaming'] .content\")?.textContent.length > {chars}"
                ),
                what,
            )
            .await;
    }

    /// Whether a verbatim message (one sent word for word) holds `text`.
    pub async fn verbatim_mentions(&self, text: &str) -> bool {
        self.browser
            .read(&format!(
                "[...document.querySelectorAll(\"[data-testid='message'][data-state='verbatim']\")] \
                 .some(m => m.textContent.includes({}))",
                json!(text)
            ))
            .await
    }

    /// The visible error, checked to be announced (`role=alert`).
    pub async fn error_text(&self) -> String {
        let error = self.browser.wait_testid("error").await;
        assert_eq!(error.attr("role").await.unwrap().as_deref(), Some("alert"));
        error.text().await.unwrap()
    }

    /// The summary's text, once there is one.
    pub async fn summary(&self) -> String {
        self.browser
            .wait_testid("summary")
            .await
            .text()
            .await
            .unwrap()
    }

    /// The text of the policy in use, as the panel states it.
    pub async fn policy(&self) -> String {
        self.browser
            .wait_testid("policy")
            .await
            .text()
            .await
            .unwrap()
    }

    /// The demo bar's progress line, e.g. "Turn 1 of 6".
    pub async fn progress(&self) -> String {
        self.browser
            .wait_testid("progress")
            .await
            .text()
            .await
            .unwrap()
    }

    /// Waits until the demo has played to its end.
    pub async fn wait_demo_finished(&self) {
        self.browser
            .wait_text_contains("progress", "finished", "the demo to finish")
            .await;
    }

    /// The demo picker.
    pub async fn demo_picker(&self) -> Element {
        self.browser.wait_testid("demo-picker").await
    }

    /// Picks the demo `slug` in the demo picker.
    pub async fn pick_demo(&self, slug: &str) {
        self.demo_picker()
            .await
            .select_by_value(slug)
            .await
            .unwrap();
    }

    /// Picks the demo's summariser (`scripted`, `extractive`, ...).
    pub async fn pick_summariser(&self, value: &str) {
        self.browser
            .wait_testid("demo-summariser")
            .await
            .select_by_value(value)
            .await
            .unwrap();
    }

    /// The text of the demo summariser's option `value`.
    pub async fn summariser_option(&self, value: &str) -> String {
        self.browser
            .client
            .find(Locator::Css(&format!(
                "[data-testid=demo-summariser] option[value={value}]"
            )))
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// Presses Step `times` times.
    pub async fn step(&self, times: usize) {
        for _ in 0..times {
            self.browser.click_testid("step").await;
        }
    }

    /// Picks `value` in the policy panel's select `testid` (`policy-fold`, `policy-trigger`...).
    pub async fn choose(&self, testid: &str, value: &str) {
        self.browser
            .wait_testid(testid)
            .await
            .select_by_value(value)
            .await
            .unwrap();
    }

    /// Opens the policy panel's "exact policy" section and its fold of the fields at their
    /// defaults, so every field can be picked or typed in.
    pub async fn open_exact(&self) {
        open_exact(self.browser, "policy").await;
    }

    /// How the policy panel's exact field `name` (`exact_check`...) is marked: its row's
    /// `data-changed`, its class `changed`, and the visible "changed" mark with its Reset.
    pub async fn exact_marks(&self, name: &str) -> (bool, bool, bool) {
        let marks: Vec<bool> = self
            .browser
            .read(&format!(
                "(() => {{ const row = document.querySelector(\"[data-testid='policy-{name}-field']\"); \
                 return [row.dataset.changed === 'true', row.classList.contains('changed'), \
                 !!row.querySelector('.changed-mark') && !!row.querySelector(\"[data-testid='policy-{name}-reset']\")]; }})()"
            ))
            .await;
        (marks[0], marks[1], marks[2])
    }

    /// Waits until the last request shown is the one of turn `turn`.
    pub async fn wait_last_request_turn(&self, turn: u32) {
        self.browser
            .wait_until(
                &format!(
                    "document.querySelector('[data-testid=last-request]')?.dataset.turn === '{turn}'"
                ),
                &format!("the request of turn {turn}"),
            )
            .await;
    }

    /// (data-kind, data-client, data-api-prompt, data-api-completion) of every model call
    /// listed.
    pub async fn call_usage(&self) -> Vec<Vec<String>> {
        self.browser
            .read(
                "[...document.querySelectorAll(\"[data-testid='call-usage']\")].map(c => \
                 [c.dataset.kind, c.dataset.client, c.dataset.apiPrompt, c.dataset.apiCompletion])",
            )
            .await
    }

    /// Every row of the model calls table, field by field.
    pub async fn call_usages(&self) -> Vec<CallUsage> {
        let rows: Vec<(String, String, String, String)> = query::rows(
            self.browser,
            &testid("call-usage"),
            &[
                Field::data("kind"),
                Field::data("client"),
                Field::data("apiPrompt"),
                Field::data("apiCompletion"),
            ],
        )
        .await;
        rows.into_iter()
            .map(|(kind, client, api_prompt, api_completion)| CallUsage {
                kind,
                client,
                api_prompt,
                api_completion,
            })
            .collect()
    }

    /// Waits until the retry's countdown no longer says `seconds`: it moves.
    pub async fn wait_countdown_past(&self, seconds: u64) {
        self.browser
            .wait_until(
                &format!(
                    "(document.querySelector(\"[data-testid='retry-status']\") || {{}}).textContent \
                     && !document.querySelector(\"[data-testid='retry-status']\").textContent.includes('Retrying in {seconds} s')"
                ),
                "the countdown to move",
            )
            .await;
    }

    /// Waits until the library's record of the live chat holds the stopped reply: turn
    /// `incomplete` marked incomplete, and `calls` model calls recorded.
    pub async fn wait_saved(&self, incomplete: u64, calls: usize) {
        self.browser
            .wait_stored(
                "the live chat was never saved with its stopped reply",
                |records| {
                    records
                        .iter()
                        .any(|r| {
                            let file: Value =
                                serde_json::from_str(r["file"].as_str().unwrap_or("null"))
                                    .unwrap_or(Value::Null);
                            let live = &file["session"]["live"];
                            live["incomplete"]
                                .as_array()
                                .is_some_and(|turns| turns.contains(&json!(incomplete)))
                                && live["calls"].as_array().map(Vec::len) == Some(calls)
                        })
                        .then_some(())
                },
            )
            .await;
    }

    /// What the last reply's rendered content holds: its HTML and text, whether it is rendered
    /// as Markdown, and the text of each kind of element in it.
    pub async fn last_reply(&self) -> Value {
        self.browser
            .read(
                "(() => { const m = [...document.querySelectorAll(\"[data-testid='message'][data-role='assistant']\")].pop(); \
                 const c = m.querySelector('.content'); \
                 const all = sel => [...c.querySelectorAll(sel)].map(e => e.textContent); \
                 return { html: c.innerHTML, text: c.textContent, markdown: c.classList.contains('markdown'), \
                          h: all('h5'), strong: all('strong'), em: all('em'), ol: all('ol > li'), ul: all('ul > li'), \
                          code: all('ul > li code'), pre: all('pre > code'), th: all('table th'), td: all('table td'), \
                          links: [...c.querySelectorAll('a')].map(a => [a.textContent, a.getAttribute('href'), a.rel]), \
                          img: c.querySelectorAll('img').length, script: c.querySelectorAll('script').length }; })()",
            )
            .await
    }

    /// The tag name of the first user message's content (`P`: plain text, never Markdown).
    pub async fn user_content_tag(&self) -> String {
        self.browser
            .read("document.querySelector(\"[data-role='user'] .content\").tagName")
            .await
    }

    /// Clicks every span inside the replies, where a link that was refused would have been.
    pub async fn click_reply_spans(&self) {
        self.browser
            .client
            .execute(
                "[...document.querySelectorAll(\"[data-role='assistant'] .content span\")].forEach(s => s.click())",
                vec![],
            )
            .await
            .unwrap();
    }

    /// Whether `row` is in the page and inside the verbatim list's scroll box, in view.
    pub async fn in_view(&self, row: &Row) -> bool {
        self.browser
            .read(&format!("!!({})", in_view(&row.selector())))
            .await
    }

    /// Does `step` (a scroll) until `row` is in view, or fails naming `what`.
    pub async fn scroll_until_in_view(&self, row: &Row, what: &str, step: impl AsyncFn()) {
        let deadline = std::time::Instant::now() + PATIENCE;
        loop {
            step().await;
            // The list lays out the rows of the new scroll position in the next frames.
            crate::harness::pause(150).await;
            if self.in_view(row).await {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{what} never came into view"
            );
        }
    }

    /// Waits until `row` is in view.
    pub async fn wait_in_view(&self, row: &Row, what: &str) {
        self.browser
            .wait_until(&in_view(&row.selector()), what)
            .await;
    }

    /// Waits until `row` is in the page, holds `text`, and is in view.
    pub async fn wait_in_view_holding(&self, row: &Row, text: &str, what: &str) {
        let selector = row.selector();
        self.browser
            .wait_until(
                &format!(
                    "(() => {{ const m = document.querySelector(\"{selector}\");
                        return m && m.textContent.includes({}) && {}; }})()",
                    json!(text),
                    in_view(&selector)
                ),
                what,
            )
            .await;
    }

    /// The text of `row`, which must be in the page.
    pub async fn row_text(&self, row: &Row) -> String {
        self.browser
            .read(&format!(
                "document.querySelector(\"{}\").textContent",
                row.selector()
            ))
            .await
    }

    /// Scrolls the verbatim list to its top.
    pub async fn scroll_to_top(&self) {
        self.browser
            .client
            .execute(
                "document.querySelector('.vlist.verbatim').scrollTop = 0; return true;",
                vec![],
            )
            .await
            .unwrap();
    }

    /// Presses End in the verbatim list, as the keyboard would.
    pub async fn press_end_in_list(&self) {
        let end = String::from(char::from(fantoccini::key::Key::End));
        self.browser
            .client
            .find(Locator::Css(".vlist.verbatim"))
            .await
            .unwrap()
            .send_keys(&end)
            .await
            .unwrap();
    }

    /// Waits until the verbatim list is scrolled to its bottom.
    pub async fn wait_list_at_bottom(&self, what: &str) {
        self.browser
            .wait_until(
                "(() => { const b = document.querySelector('.vlist.verbatim');
                    return b.scrollTop + b.clientHeight + 8 >= b.scrollHeight; })()",
                what,
            )
            .await;
    }
}

/// Which message row a reader looks for: any message, narrowed by turn, role and state.
#[derive(Default)]
pub struct Row {
    turn: Option<u32>,
    role: Option<&'static str>,
    state: Option<&'static str>,
}

impl Row {
    /// The message of `role` (`user` or `assistant`) in turn `turn`.
    pub fn of(turn: u32, role: &'static str) -> Row {
        Row {
            turn: Some(turn),
            role: Some(role),
            state: None,
        }
    }

    /// Any message in `state` (`streaming`, `verbatim`, ...).
    pub fn in_state(state: &'static str) -> Row {
        Row {
            state: Some(state),
            ..Row::default()
        }
    }

    /// This row, in `state` too.
    pub fn and_state(self, state: &'static str) -> Row {
        Row {
            state: Some(state),
            ..self
        }
    }

    fn selector(&self) -> String {
        let mut selector = "[data-testid='message']".to_owned();
        if let Some(turn) = self.turn {
            selector.push_str(&format!("[data-turn='{turn}']"));
        }
        if let Some(role) = self.role {
            selector.push_str(&format!("[data-role='{role}']"));
        }
        if let Some(state) = self.state {
            selector.push_str(&format!("[data-state='{state}']"));
        }
        selector
    }
}

/// A script: whether the element `selector` names is inside the verbatim list's scroll box, in
/// view.
fn in_view(selector: &str) -> String {
    format!(
        "(() => {{ const box = document.querySelector('.vlist.verbatim').getBoundingClientRect();
            const row = document.querySelector(\"{selector}\"); if (!row) return false;
            const r = row.getBoundingClientRect();
            return r.bottom > box.top && r.top < box.bottom; }})()"
    )
}

/// Opens the "exact policy" section `{prefix}-exact` (`policy` or `replay`) and its fold of the
/// fields at their defaults (`{prefix}-exact-defaults`), each by clicking its summary as a user
/// would, and waits until both are open: a field at its default is inside the fold.
pub async fn open_exact(browser: &Browser, prefix: &str) {
    browser.wait_testid(&format!("{prefix}-exact")).await;
    for id in [
        format!("{prefix}-exact"),
        format!("{prefix}-exact-defaults"),
    ] {
        let details = format!("document.querySelector(\"[data-testid='{id}']\")");
        let _: Value = browser
            .read(&format!(
                "(() => {{ const d = {details}; \
                 if (d && !d.open) d.querySelector(':scope > summary').click(); return null; }})()"
            ))
            .await;
        browser
            .wait_until(
                &format!("({details} || {{ open: true }}).open"),
                &format!("{id} open"),
            )
            .await;
    }
}
