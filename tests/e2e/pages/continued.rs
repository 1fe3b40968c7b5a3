//! Page object: "Continue in a new session". The button on an edition (a card of the Editions
//! tab, or a row of Inspect's Editions and checks), then what the new chat shows in Chat (its
//! note, what it needs, its first request in the context window) and how Inspect links it to
//! its source both ways.

use serde_json::json;

use crate::harness::Browser;
use crate::pages::query::{self, Field, Until, testid};

/// The continued chat and its links, in one browser.
pub struct ContinuedPage<'a> {
    browser: &'a Browser,
}

/// The request shown before anything is sent: `data-turn`, and each segment's `data-kind`.
#[derive(Debug, PartialEq)]
pub struct FirstRequest {
    pub turn: String,
    pub kinds: Vec<String>,
}

impl<'a> ContinuedPage<'a> {
    pub fn new(browser: &'a Browser) -> Self {
        ContinuedPage { browser }
    }

    /// Presses "Continue in a new session" on edition `cycle` (of the Editions tab's cards, or
    /// of the open session's rows in Inspect), and waits for the Chat tab's note.
    pub async fn continue_from(&self, cycle: u32) {
        let button = format!(
            "[data-testid='edition'][data-cycle='{cycle}'] {}",
            testid("edition-continue")
        );
        query::wait(
            self.browser,
            &button,
            Until::Present,
            &format!("edition {cycle}'s Continue button"),
        )
        .await;
        query::click(self.browser, &button).await;
        self.browser.wait_testid("continued-note").await;
    }

    /// The span each listed edition covers (`edition-span`), in order.
    pub async fn spans(&self) -> Vec<String> {
        query::value(
            self.browser,
            "[...document.querySelectorAll(\"[data-testid='edition'] [data-testid='edition-span']\")].map((e) => e.textContent)",
        )
        .await
    }

    /// The note over the continued chat.
    pub async fn note(&self) -> String {
        self.browser.text_of("continued-note").await
    }

    /// What the chat needs before it can send (`data-needs`), if it says so.
    pub async fn needs(&self) -> Option<String> {
        if self.browser.is_absent("continued-needs").await {
            return None;
        }
        Some(
            query::one(
                self.browser,
                &testid("continued-needs"),
                Field::attr("data-needs"),
            )
            .await,
        )
    }

    /// Waits until the context window shows the first request, and reads it.
    pub async fn first_request(&self) -> FirstRequest {
        query::wait(
            self.browser,
            &testid("last-request"),
            Until::Is(Field::attr("data-turn"), &json!("1")),
            "the continued chat's first request in the context window",
        )
        .await;
        let (turn, kinds): (String, Vec<String>) = query::value(
            self.browser,
            "[document.querySelector(\"[data-testid='last-request']\").dataset.turn,
              [...document.querySelectorAll(\"[data-testid='last-request'] [data-testid='context-segment']\")].map((e) => e.dataset.kind)]",
        )
        .await;
        FirstRequest { turn, kinds }
    }

    /// Inspect's heading of the open session: where it was continued from (`data-edition`, its
    /// words) once it shows.
    pub async fn wait_continued_from(&self) -> (String, String) {
        query::wait(
            self.browser,
            &testid("continued-from"),
            Until::Present,
            "the link to the session it was continued from",
        )
        .await;
        query::value(
            self.browser,
            "((e) => [e.dataset.edition, e.innerText])(document.querySelector(\"[data-testid='continued-from']\"))",
        )
        .await
    }

    /// Opens, from Inspect's list, the session whose name starts with `prefix`.
    pub async fn open_named(&self, prefix: &str) {
        let script = format!(
            "(() => {{ const e = [...document.querySelectorAll(\"[data-testid='session-name']\")].find((e) => e.textContent.startsWith({prefix:?})); e?.click(); return !!e; }})()"
        );
        let found: bool = query::value(self.browser, &script).await;
        assert!(found, "no session named {prefix}…");
    }

    /// Opens the session this one was continued from, by the heading's link.
    pub async fn open_source(&self) {
        query::click(
            self.browser,
            &format!("{} button", testid("continued-from")),
        )
        .await;
    }

    /// The sessions continued from the open one: (`data-edition`, words) each, once one shows.
    pub async fn wait_continued_in(&self) -> Vec<(String, String)> {
        query::wait(
            self.browser,
            &testid("continued-in"),
            Until::Present,
            "the sessions continued from this one",
        )
        .await;
        query::value(
            self.browser,
            "[...document.querySelectorAll(\"[data-testid='continued-in']\")].map((e) => [e.dataset.edition, e.innerText])",
        )
        .await
    }
}
