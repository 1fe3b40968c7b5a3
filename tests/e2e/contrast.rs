//! Every piece of text on every tab, in the light and the dark theme, meets WCAG AA contrast
//! against what is behind it: 4.5:1, or 3:1 for large text (24 px, or 18.66 px bold). The ratio
//! is computed in the page from computed styles: the text's colour (faded by any opacity above
//! it) over the backgrounds of its ancestors composited from the root down. Disabled controls
//! are exempt, as WCAG exempts them; SVG chart labels are drawn with `fill` and not checked here;
//! a word in the middle of a fade (the Editions rewrite) is skipped until it has arrived.

use summary_memory::engine::session::{export, synthetic};

use crate::harness::{Browser, TempDir};
use crate::pages::inspect::InspectPage;

/// The page-side check: every text node that fails, with what it says and its ratio.
const FAILURES: &str = r#"
const parse = c => { const m = c && c.match(/rgba?\(([^)]+)\)/); if (!m) return null;
  const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
const over = (top, under) => { const a = top[3]; return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat([1]); };
const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
const backdrop = el => { const chain = []; for (let e = el; e; e = e.parentElement) chain.unshift(e);
  let bg = [255, 255, 255, 1]; for (const e of chain) { const c = parse(getComputedStyle(e).backgroundColor); if (c && c[3] > 0) bg = over(c, bg); } return bg; };
const faded = el => { let o = 1; for (let e = el; e; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity); return o; };
const out = []; let checked = 0;
const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let n = walk.nextNode(); n; n = walk.nextNode()) {
  if (!n.textContent.trim()) continue;
  const el = n.parentElement;
  if (!el || el.closest('svg, option, script, style, [disabled], :disabled')) continue;
  const s = getComputedStyle(el);
  if (s.visibility !== 'visible' || el.getClientRects().length === 0) continue;
  // A word fading in or out (the Editions rewrite) is checked once it has arrived.
  let moving = false; for (let e = el; e; e = e.parentElement) if (e.getAnimations().some(a => a.playState === 'running')) moving = true;
  if (moving) { continue; }
  const fg = parse(s.color); const bg = backdrop(el);
  const text = over([fg[0], fg[1], fg[2], fg[3] * faded(el)], bg);
  const size = parseFloat(s.fontSize), bold = parseInt(s.fontWeight, 10) >= 700;
  const need = (size >= 24 || (size >= 18.66 && bold)) ? 3 : 4.5;
  const r = ratio(text, bg); checked++;
  if (r < need) out.push(`${r.toFixed(2)} < ${need}: "${n.textContent.trim().slice(0, 40)}" in <${el.tagName.toLowerCase()} class="${el.className}"> (${s.color} on rgb(${bg.slice(0, 3).map(Math.round)}))`);
}
return [checked, out];
"#;

/// The text that fails where the page stands now, and still fails once it stands still: a
/// state on its way out (a tab's module arriving, a word fading, a count pending under a loaded
/// machine) is not the page's colours, and low contrast that stays is found both times.
async fn failures(browser: &Browser, place: &str) -> Vec<String> {
    let first = failures_now(browser, place).await;
    if first.is_empty() {
        return first;
    }
    browser.wait_still().await;
    crate::harness::pause(500).await;
    let second = failures_now(browser, place).await;
    if second != first {
        eprintln!(
            "{place}: text below contrast while the page moved, gone once it stood still: {first:?}"
        );
    }
    second
}

async fn failures_now(browser: &Browser, place: &str) -> Vec<String> {
    let value = browser.client.execute(FAILURES, vec![]).await.unwrap();
    let checked = value[0].as_u64().unwrap();
    assert!(checked > 10, "{place}: only {checked} text nodes found");
    value[1]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{place}: {}", f.as_str().unwrap()))
        .collect()
}

#[tokio::test]
async fn text_meets_wcag_aa_contrast_on_every_tab_in_both_themes() {
    let browser = Browser::new().await;
    let mut problems = Vec::new();
    for theme in ["light", "dark"] {
        // The first visit's welcome: the view stored by the previous round is forgotten first
        // (a later visit to the bare address would resume it).
        browser.forget_view().await;
        browser.open("").await;
        browser.store_theme(theme).await;
        browser.wait_testid("welcome").await;
        problems.extend(failures(&browser, &format!("{theme} welcome")).await);
        // A demo played to its end, so folded messages, editions and checks are on screen, with
        // the lesson's bar and its highlight.
        browser.open("?lesson=8").await;
        browser.wait_testid("lesson").await;
        browser.wait_testid("overrun-note").await;
        for tab in ["editions", "chat", "tuner", "tokens", "inspect", "settings"] {
            browser.click_testid(&format!("tab-{tab}")).await;
            browser.wait_testid(&format!("panel-{tab}")).await;
            if tab == "settings" {
                // A problem beside its field, in the error colour.
                browser.set_field("temperature", "5").await;
                browser.wait_testid("temperature-error").await;
            }
            problems.extend(failures(&browser, &format!("{theme} {tab}")).await);
        }
    }
    assert!(
        problems.is_empty(),
        "text below WCAG AA contrast:\n{}",
        problems.join("\n")
    );
    // The check itself catches low contrast: text in the colour of the rules, on the paper.
    browser.plant_faint_text("faint words").await;
    let found = failures(&browser, "planted").await;
    assert!(found.iter().any(|f| f.contains("faint words")), "{found:?}");
    browser.close().await;
}

// In the dark theme the paste box, the rename fields and the Settings "Summariser generation"
// fields stayed white: those fields had no style of their own in either theme.
#[tokio::test]
async fn every_field_takes_the_theme_s_colours() {
    let browser = Browser::new().await;
    let script = "Array.from(document.querySelectorAll('input, textarea, select'))
        .filter(f => !['checkbox', 'radio', 'range', 'file', 'hidden'].includes(f.type) && f.offsetParent !== null)
        .map(f => [f.dataset.testid || f.id || f.name || f.outerHTML.slice(0, 60), getComputedStyle(f).backgroundColor, getComputedStyle(f).color])";
    for theme in ["light", "dark"] {
        browser.open("").await;
        browser.store_theme(theme).await;
        let paper = browser.body_background().await;
        let mut wrong = Vec::new();
        for tab in ["inspect", "settings", "chat", "tuner", "tokens"] {
            browser.click_testid(&format!("tab-{tab}")).await;
            browser.wait_testid(&format!("panel-{tab}")).await;
            let fields: Vec<(String, String, String)> = browser.read(script).await;
            assert!(!fields.is_empty(), "{theme} {tab}: no field");
            for (name, background, ink) in fields {
                // A field's ground is the page's paper or a card's, never the browser's white
                // in the dark theme; its text is never the browser's black there.
                let white = background == "rgb(255, 255, 255)";
                let black = ink == "rgb(0, 0, 0)";
                if (theme == "dark" && (white || black)) || (theme == "light" && black) {
                    wrong.push(format!(
                        "{theme} {tab} {name}: {background} / {ink} on {paper}"
                    ));
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "fields in the browser's colours:\n{}",
            wrong.join("\n")
        );
    }
    browser.close().await;
}

// In the dark theme the library's rename fields stayed white; the walk over every field above
// never saw them, as they exist only once the library holds a session.
#[tokio::test]
async fn the_rename_fields_take_the_theme_s_colours_in_both_themes() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let path = dir.write("named.json", &export(&synthetic(3), 5, "0.1.0"));
    let inspect = InspectPage::open(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(1).await;
    inspect.library().await;
    let read = "(() => { const f = document.querySelector('[data-testid=session-rename]'); \
        const s = getComputedStyle(f), b = getComputedStyle(document.body); \
        return [s.backgroundColor, s.color, b.backgroundColor, b.color]; })()";
    let mut seen = Vec::new();
    for theme in ["light", "dark"] {
        browser.store_theme(theme).await;
        browser.wait_theme(Some(theme), "the theme to apply").await;
        let (background, ink, paper, body_ink): (String, String, String, String) =
            browser.read(read).await;
        // The field is the page's paper and ink, not the browser's white and black.
        assert_eq!(background, paper, "{theme}: the field's ground");
        assert_eq!(ink, body_ink, "{theme}: the field's text");
        if theme == "dark" {
            assert_ne!(background, "rgb(255, 255, 255)");
            assert_ne!(ink, "rgb(0, 0, 0)");
        }
        seen.push(background);
    }
    assert_ne!(seen[0], seen[1], "the two themes differ");
    browser.close().await;
}

// At 390 px the charts' labels shrank to about 4 px (a 960-wide drawing scaled down), the charts
// had no turn numbers, the Tuner's "After the reply" and the Tokens "Total" columns were cut
// off, and the Chat archive was a 590 px inner scroller on an 844 px screen.
#[tokio::test]
async fn on_a_phone_charts_read_at_their_size_tables_scroll_on_purpose_and_the_archive_leaves_room()
{
    let browser = Browser::new().await;
    browser.client.set_window_size(390, 844).await.unwrap();
    browser.open("?tab=tuner").await;
    browser.wait_window_width_at_most(390).await;
    browser.wait_testid("summariser-calls").await;
    // Every chart label is drawn at least 9 px tall, and the x axis numbers the turns.
    let ticks: Vec<(String, f64)> = browser
        .read("Array.from(document.querySelectorAll('.chart svg text')).map(t => [t.textContent, t.getBoundingClientRect().height])")
        .await;
    assert!(ticks.iter().any(|(t, _)| t == "turn"), "{ticks:?}");
    assert!(ticks.iter().any(|(t, _)| t == "10"), "{ticks:?}");
    assert!(ticks.iter().all(|(_, h)| *h >= 9.0), "{ticks:?}");
    // A table wider than the screen scrolls in its own frame, which the keyboard can reach.
    for tab in ["tuner", "tokens"] {
        browser.click_testid(&format!("tab-{tab}")).await;
        browser.wait_testid(&format!("panel-{tab}")).await;
        browser
            .wait_fits_width("the page no wider than the phone")
            .await;
        let frames: Vec<(bool, bool)> = browser
            .read("Array.from(document.querySelectorAll('table')).filter(t => t.offsetParent).map(t => { const f = t.closest('.table-wrap'); return [!!f && getComputedStyle(f).overflowX === 'auto' && f.tabIndex === 0, t.getBoundingClientRect().width <= (f || document.body).getBoundingClientRect().width + 1 || !!f]; })")
            .await;
        assert!(!frames.is_empty(), "{tab}: no table");
        assert!(
            frames.iter().all(|(framed, _)| *framed),
            "{tab}: {frames:?}"
        );
    }
    // The Chat archive is at most half the screen tall.
    browser.open("?tab=chat&demo=fincoach").await;
    browser.click_testid("play-all").await;
    browser
        .wait_text_contains("progress", "finished", "the demo to finish")
        .await;
    let (archive, screen): (f64, f64) = browser
        .read(
            "[document.querySelector('.chat-archive').getBoundingClientRect().height, innerHeight]",
        )
        .await;
    assert!(archive <= screen * 0.5, "archive {archive} px of {screen}");
    browser.close().await;
}
