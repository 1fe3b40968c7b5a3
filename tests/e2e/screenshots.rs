//! Takes the README's screenshots of every tab, and of each view of an Inspect session, from the
//! release build: `cargo test --features e2e --test e2e screenshots -- --ignored`. Each is shot
//! wide (1400 px, light), narrow (390 px, `<tab>-narrow.png`) and dark (1400 px,
//! `<tab>-dark.png`). The Inspect views (`inspect-<view>.png`) show the committed Claude Code
//! log, imported once, with its own compactions as editions.
//! It is ignored in the normal run because it writes into docs/ (or into `SM_SHOTS`, to look at
//! the page without touching the README's pictures); it still fails if a tab does not render.

use std::path::PathBuf;

use crate::harness::{Browser, TempDir};
use crate::pages::inspect::InspectPage;

/// The session every Inspect view is shot on: a real coding agent's log with its compactions.
const CLAUDE_CODE: &str = include_str!("../fixtures/transcripts/claude_code_session.jsonl");

/// The views of one Inspect session, each shot from its own link.
const VIEWS: [&str; 6] = ["archive", "editions", "probes", "replay", "ab", "export"];

/// One shot: its file name, the page to open, buttons to press in order (the demo's state
/// survives tab switches) and an element to scroll into view.
struct Shot {
    name: &'static str,
    query: &'static str,
    clicks: &'static [&'static str],
    scroll: Option<&'static str>,
}

const SHOTS: [Shot; 7] = [
    Shot {
        name: "welcome",
        query: "",
        clicks: &[],
        scroll: None,
    },
    Shot {
        name: "chat",
        query: "?tab=chat&demo=fincoach",
        clicks: &["play-all"],
        scroll: Some("summary"),
    },
    Shot {
        name: "editions",
        query: "?tab=chat&demo=fincoach",
        clicks: &["play-all", "tab-editions"],
        scroll: None,
    },
    Shot {
        name: "tuner",
        query: "?tab=tuner&trigger=turns&max_turns=4&keep=2&turns=10",
        clicks: &[],
        scroll: None,
    },
    Shot {
        name: "tokens",
        query: "?tab=tokens",
        clicks: &[],
        scroll: None,
    },
    Shot {
        name: "inspect",
        query: "?tab=inspect",
        clicks: &[],
        scroll: None,
    },
    Shot {
        name: "settings",
        query: "?tab=settings",
        clicks: &[],
        scroll: None,
    },
];

/// The variants of every shot: a file-name suffix, the window's width and the theme.
const VARIANTS: [(&str, u32, &str); 3] = [
    ("", 1400, "light"),
    ("-narrow", 390, "light"),
    ("-dark", 1400, "dark"),
];

#[tokio::test]
#[ignore = "writes docs/*.png; run by hand when the UI changes"]
async fn screenshots() {
    let out = std::env::var("SM_SHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs"));
    std::fs::create_dir_all(&out).unwrap();
    let browser = Browser::new().await;
    // One session in the library for the Inspect views, found by its id in the link.
    let dir = TempDir::new();
    let inspect = InspectPage::open_counted(&browser).await;
    inspect
        .import(&dir.write("0b6f6a4e-session.jsonl", CLAUDE_CODE))
        .await;
    inspect.wait_sessions(1).await;
    browser
        .wait_search_includes("session=", "the imported session open")
        .await;
    let search = browser.search().await;
    let id = search
        .split('&')
        .find_map(|p| p.strip_prefix("session="))
        .expect("the link names the open session")
        .to_owned();
    for (suffix, width, theme) in VARIANTS {
        // `SM_SHOT_HEIGHT` takes taller pictures, to look over a whole tab at once.
        let height = std::env::var("SM_SHOT_HEIGHT")
            .ok()
            .and_then(|h| h.parse().ok())
            .unwrap_or(if width < 600 { 844 } else { 900 });
        browser.client.set_window_size(width, height).await.unwrap();
        for shot in &SHOTS {
            // The bare address reopens the last view; each shot opens its own.
            browser.forget_view().await;
            browser.open(shot.query).await;
            // The theme is the one the masthead's toggle stores; set before the app reads it.
            browser.store_theme(theme).await;
            for id in shot.clicks {
                browser.click_testid(id).await;
                // Play all steps the demo on a timer: the picture waits for its last step.
                if *id == "play-all" {
                    browser
                        .wait_until(
                            "document.querySelector('[data-testid=step]').disabled",
                            "the demo played to its end",
                        )
                        .await;
                }
            }
            let panel = shot.name.replace("welcome", "chat");
            browser.wait_testid(&format!("panel-{panel}")).await;
            if let Some(id) = shot.scroll {
                browser.scroll_into_view(id).await;
            }
            browser.wait_still().await;
            let png = browser.client.screenshot().await.unwrap();
            std::fs::write(out.join(format!("{}{suffix}.png", shot.name)), png).unwrap();
        }
        for view in VIEWS {
            browser.forget_view().await;
            browser
                .open(&format!("?tab=inspect&session={id}&view={view}"))
                .await;
            browser.store_theme(theme).await;
            browser
                .wait_until(
                    &format!(
                        "document.querySelector(\"[data-testid='view-{view}']\")?.hidden === false"
                    ),
                    &format!("the {view} view"),
                )
                .await;
            browser.wait_still().await;
            let png = browser.client.screenshot().await.unwrap();
            std::fs::write(out.join(format!("inspect-{view}{suffix}.png")), png).unwrap();
        }
    }
    browser.close().await;
}
