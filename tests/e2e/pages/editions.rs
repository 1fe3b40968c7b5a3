//! Page object: the Editions tab. One card per edition (its badges, its parts before, folded and
//! after, its Restore and Edit), the timeline that steps through the cycles, and the rewrite
//! it plays.

use fantoccini::Locator;
use fantoccini::elements::Element;

use crate::harness::{Browser, attr};

/// The Editions tab of one browser.
pub struct EditionsPage<'a> {
    browser: &'a Browser,
}

impl<'a> EditionsPage<'a> {
    pub fn new(browser: &'a Browser) -> Self {
        EditionsPage { browser }
    }

    /// Opens the tab.
    pub async fn open(&self) {
        self.browser.click_testid("tab-editions").await;
    }

    /// Presses this tab's own Play all, which plays the demo to its end.
    pub async fn play_all(&self) {
        self.browser.click_testid("play-all-editions").await;
    }

    /// Every edition's card, in order.
    pub async fn cards(&self) -> Vec<Card> {
        self.browser
            .all_testid("edition")
            .await
            .into_iter()
            .map(Card)
            .collect()
    }

    /// The "Today" part (`edition-after`) of every edition, in order.
    pub async fn after_texts(&self) -> Vec<String> {
        let mut out = Vec::new();
        for card in self.cards().await {
            out.push(card.part("edition-after").await);
        }
        out
    }

    /// Waits until exactly `n` editions are shown.
    pub async fn wait_count(&self, n: usize, what: &str) {
        self.browser.wait_count("edition", n, what).await;
    }

    /// Waits until exactly one edition of cycle `cycle` is shown.
    pub async fn wait_cycle(&self, cycle: u32, what: &str) {
        self.browser
            .wait_until(
                &format!(
                    "document.querySelectorAll(\"[data-testid='edition'][data-cycle='{cycle}']\").length === 1"
                ),
                what,
            )
            .await;
    }

    /// Waits until every edition shown was written by `summariser` (`scripted`, `extractive`,
    /// ...), and, given `count`, exactly that many are shown.
    pub async fn wait_written_by(&self, summariser: &str, count: Option<usize>, what: &str) {
        let every = format!(
            "[...document.querySelectorAll('[data-testid=edition]')].every(e => e.dataset.summariser === '{summariser}')"
        );
        let script = match count {
            Some(n) => format!(
                "document.querySelectorAll('[data-testid=edition]').length === {n} && {every}"
            ),
            None => every,
        };
        self.browser.wait_until(&script, what).await;
    }

    /// Waits until some edition is compressed to `level` or higher.
    pub async fn wait_level_at_least(&self, level: u8, what: &str) {
        self.browser
            .wait_until(
                &format!(
                    "[...document.querySelectorAll('[data-testid=edition]')].some(e => Number(e.dataset.level) >= {level})"
                ),
                what,
            )
            .await;
    }

    /// Waits until some edition's headline includes `text`.
    pub async fn wait_headline_contains(&self, text: &str, what: &str) {
        self.browser
            .wait_until(
                &format!(
                    "[...document.querySelectorAll('[data-testid=edition] .headline')].some(h => h.textContent.includes({}))",
                    serde_json::json!(text)
                ),
                what,
            )
            .await;
    }

    /// Waits until no fact badge says lost or weakened.
    pub async fn wait_every_fact_kept(&self, what: &str) {
        self.browser
            .wait_until(
                "!document.querySelector('[data-testid=fact][data-kept=false]') && !document.querySelector('[data-testid=fact][data-weakened=true]')",
                what,
            )
            .await;
    }

    /// Presses Edit on `card` and returns the editor that opens.
    pub async fn open_editor(&self, card: &Card) -> Element {
        card.0
            .find(Locator::Css("[data-testid=edition-edit]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        self.browser.wait_testid("edition-editor").await
    }

    /// Rewrites `card`'s summary as `text` and saves it as a new edition.
    pub async fn edit(&self, card: &Card, text: &str) {
        let editor = self.open_editor(card).await;
        editor.clear().await.unwrap();
        editor.send_keys(text).await.unwrap();
        self.browser.click_testid("edition-save").await;
    }

    /// How many cycles the timeline links to.
    pub async fn timeline_links(&self) -> usize {
        self.browser
            .client
            .find_all(Locator::Css(".timeline a"))
            .await
            .unwrap()
            .len()
    }

    /// How many cycles the timeline marks as overrun.
    pub async fn timeline_overruns(&self) -> usize {
        self.browser
            .client
            .find_all(Locator::Css(".timeline li[data-overrun=true]"))
            .await
            .unwrap()
            .len()
    }

    /// The timeline's position line, e.g. "1 of 1: Edition 1 · turn 1 folded".
    pub async fn timeline_position(&self) -> String {
        self.browser
            .wait_testid("timeline-position")
            .await
            .text()
            .await
            .unwrap()
    }

    /// Waits until the timeline stands on cycle `cycle`.
    pub async fn wait_timeline_cycle(&self, cycle: u32, what: &str) {
        self.browser
            .wait_until(
                &format!(
                    "document.querySelector('[data-testid=timeline]').dataset.cycle === '{cycle}'"
                ),
                what,
            )
            .await;
    }

    /// Waits until the rewrite's animation has started: it is short of its last step.
    pub async fn wait_rewrite_started(&self) {
        self.browser
            .wait_until(
                &format!("+{REWRITE}.dataset.step < +{REWRITE}.dataset.steps"),
                "the animation to start",
            )
            .await;
    }

    /// Waits until the rewrite strikes words out or adds them.
    pub async fn wait_rewrite_moving(&self) {
        self.browser
            .wait_until(
                &format!("{REWRITE}.querySelector('del.leaving, ins.arriving')"),
                "words being struck or added",
            )
            .await;
    }

    /// Waits until the rewrite's animation is at its last step.
    pub async fn wait_rewrite_done(&self) {
        self.browser
            .wait_until(
                &format!("{REWRITE}.dataset.step === {REWRITE}.dataset.steps"),
                "the animation to finish",
            )
            .await;
    }

    /// The rewrite's text.
    pub async fn rewrite_text(&self) -> String {
        self.browser
            .wait_testid("rewrite")
            .await
            .text()
            .await
            .unwrap()
    }
}

/// One edition's card.
pub struct Card(pub Element);

impl Card {
    /// The card's attribute `name` (`data-cycle`, `data-level`, ...), or "".
    pub async fn attr(&self, name: &str) -> String {
        attr(&self.0, name).await
    }

    /// The text of the card's part with `data-testid=testid` (`edition-after`,
    /// `edition-writer`, ...).
    pub async fn part(&self, testid: &str) -> String {
        self.0
            .find(Locator::Css(&format!("[data-testid={testid}]")))
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// Everything inside the card with `data-testid=testid` (`fact`, `edition-section`, ...).
    pub async fn inside(&self, testid: &str) -> Vec<Element> {
        self.0
            .find_all(Locator::Css(&format!("[data-testid={testid}]")))
            .await
            .unwrap()
    }

    /// The card's pinned-fact badges.
    pub async fn facts(&self) -> Vec<Element> {
        self.inside("fact").await
    }

    /// The `data-fact` phrase of every badge on the card.
    pub async fn fact_phrases(&self) -> Vec<String> {
        let mut out = Vec::new();
        for badge in self.facts().await {
            out.push(attr(&badge, "data-fact").await);
        }
        out
    }

    /// The text of every figure on the card that no archived message holds.
    pub async fn unsourced_figures(&self) -> Vec<String> {
        let mut out = Vec::new();
        for figure in self.inside("unsourced-figure").await {
            out.push(figure.text().await.unwrap());
        }
        out
    }

    /// The card's title, e.g. "Edition 2 · turns 3–4 folded".
    pub async fn heading(&self) -> String {
        self.css_text("h3").await
    }

    /// The card's headline.
    pub async fn headline(&self) -> String {
        self.css_text(".headline").await
    }

    /// The card's dateline, which starts with its compression level.
    pub async fn dateline(&self) -> String {
        self.css_text(".dateline").await
    }

    /// Whether the "Today" part marks words added since the edition before.
    pub async fn marks_added_words(&self) -> bool {
        !self
            .0
            .find(Locator::Css("[data-testid=edition-after]"))
            .await
            .unwrap()
            .find_all(Locator::Css("ins.added"))
            .await
            .unwrap()
            .is_empty()
    }

    /// Whether the "Today" part marks words dropped from the edition before.
    pub async fn marks_removed_words(&self) -> bool {
        !self
            .0
            .find_all(Locator::Css("[data-testid=edition-after] del.removed"))
            .await
            .unwrap()
            .is_empty()
    }

    /// Presses the card's Restore.
    pub async fn restore(&self) {
        self.0
            .find(Locator::Css("[data-testid=edition-restore]"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
    }

    async fn css_text(&self, css: &str) -> String {
        self.0
            .find(Locator::Css(css))
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }
}

/// The rewrite the timeline plays, in a script.
const REWRITE: &str = "document.querySelector('[data-testid=rewrite]')";
