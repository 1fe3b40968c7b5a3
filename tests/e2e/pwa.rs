//! The installable app: the web manifest and its icons as served, Chromium's own verdict on
//! installability, a start offline from the manifest's `start_url`, and the service worker's
//! promises (www/sw.js): a response the cache refuses still reaches the page, an install that
//! could not keep every file says so, and a new build's worker deletes the old build's cache.

use std::future::IntoFuture;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::{Browser, PATIENCE, StoppableApp, copy_of_dist, dist_dir};
use crate::pages::query::{self, Field, Until, testid};
use crate::pages::tokens::TokensPage;

#[test]
fn the_build_names_every_file_and_its_id_in_the_worker() {
    let build = build_of(&dist_dir());
    let id = build["id"].as_str().unwrap();
    assert!(
        id.len() == 16 && id.chars().all(|c| c.is_ascii_hexdigit()),
        "not a build hash: {id}"
    );
    let files: Vec<&str> = build["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    let lazy: Vec<&str> = build["lazy"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    // Every file of the dist but the worker itself, each named once.
    let mut on_disk = Vec::new();
    walk(&dist_dir(), &dist_dir(), &mut on_disk);
    // The precompressed copies are the server's business: the worker keeps the originals.
    let (copies, mut on_disk): (Vec<String>, Vec<String>) = on_disk
        .into_iter()
        .partition(|p| p.ends_with(".br") || p.ends_with(".gz"));
    for copy in &copies {
        let original = copy.trim_end_matches(".br").trim_end_matches(".gz");
        assert!(
            on_disk.iter().any(|p| p == original),
            "{copy} has no original"
        );
    }
    on_disk.retain(|p| p != "sw.js");
    let mut named: Vec<&str> = files.iter().chain(&lazy).copied().collect();
    named.sort_unstable();
    on_disk.sort_unstable();
    assert_eq!(named, on_disk);
    for needed in [
        "index.html",
        "manifest.webmanifest",
        "icons/icon-192.png",
        "icons/icon-512.png",
        "icons/icon-maskable-512.png",
    ] {
        assert!(files.contains(&needed), "{needed} is not kept: {files:?}");
    }
    assert!(files.iter().any(|f| f.ends_with(".wasm")), "{files:?}");
    assert!(files.iter().any(|f| f.ends_with(".css")), "{files:?}");
    // The default vocabulary is fetched by the install, so an installed app counts exactly
    // offline; cl100k_base is kept once a page has used it.
    assert!(
        files
            .iter()
            .any(|f| f.starts_with("o200k_base-") && f.ends_with(".smv")),
        "{files:?}"
    );
    assert!(
        lazy.len() == 1 && lazy[0].starts_with("cl100k_base-") && lazy[0].ends_with(".smv"),
        "{lazy:?}"
    );
}

/// The build writes a brotli and a gzip copy beside the wasm, the vocabularies and the page
/// (scripts/precompress.mjs), and a server that serves precompressed files sends the one the
/// client accepts, byte for byte, and the original to a client that accepts neither.
#[tokio::test]
async fn the_build_ships_brotli_and_gzip_copies_that_a_precompressing_server_sends() {
    let dist = dist_dir();
    let build = build_of(&dist);
    let named = |key: &str| -> Vec<String> {
        build[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_owned())
            .collect()
    };
    let (files, lazy) = (named("files"), named("lazy"));
    let wasm = files.iter().find(|f| f.ends_with(".wasm")).unwrap().clone();
    let app = StoppableApp::start();
    let (mut raw, mut brotli) = (0, 0);
    for path in std::iter::once(wasm)
        .chain(lazy)
        .chain(["index.html".to_owned()])
    {
        let read = |suffix: &str| std::fs::read(dist.join(format!("{path}{suffix}"))).unwrap();
        let (original, br, gz) = (read(""), read(".br"), read(".gz"));
        assert!(
            br.len() < gz.len() && gz.len() < original.len(),
            "{path}: {} brotli, {} gzip, {} raw",
            br.len(),
            gz.len(),
            original.len()
        );
        raw += original.len();
        brotli += br.len();
        let plain = get(&app.url, &path);
        assert_eq!(plain.header("content-encoding"), None, "{path}");
        assert!(plain.body == original, "{path} is served as built");
        let served = get_with(&app.url, &path, "Accept-Encoding: gzip, br\r\n");
        assert_eq!(
            served.header("content-encoding").as_deref(),
            Some("br"),
            "{path}"
        );
        assert!(served.body == br, "{path}: the brotli copy is sent");
        let served = get_with(&app.url, &path, "Accept-Encoding: gzip\r\n");
        assert_eq!(
            served.header("content-encoding").as_deref(),
            Some("gzip"),
            "{path}"
        );
        assert!(served.body == gz, "{path}: the gzip copy is sent");
    }
    println!("the wasm, both vocabularies and the page: {raw} bytes raw, {brotli} brotli");
}

#[tokio::test]
async fn the_manifest_is_served_with_its_type_and_every_field_an_install_needs() {
    let app = StoppableApp::start();
    let html = String::from_utf8(get(&app.url, "index.html").body).unwrap();
    assert!(
        html.contains(r#"<link rel="manifest" href="manifest.webmanifest">"#),
        "index.html does not link the manifest"
    );
    // One theme colour per colour scheme, since the manifest holds only one.
    for scheme in ["light", "dark"] {
        assert!(
            html.contains(&format!(
                r#"<meta name="theme-color" media="(prefers-color-scheme: {scheme})""#
            )),
            "no {scheme} theme-color"
        );
    }
    assert!(
        html.contains("manifest-src 'self'"),
        "the CSP names no manifest-src"
    );

    let served = get(&app.url, "manifest.webmanifest");
    assert_eq!(served.status, 200);
    assert_eq!(
        served.header("content-type").as_deref(),
        Some("application/manifest+json")
    );
    let manifest: Value = serde_json::from_slice(&served.body).expect("the manifest is not JSON");
    assert_eq!(manifest["name"], "Summary Memory");
    let short = manifest["short_name"].as_str().unwrap();
    assert!(!short.is_empty() && short.chars().count() <= 12, "{short}");
    assert!(!manifest["description"].as_str().unwrap().is_empty());
    assert_eq!(manifest["display"], "standalone");
    for field in ["start_url", "scope", "id"] {
        assert!(manifest[field].is_string(), "no {field}");
    }
    // The start URL lies inside the scope, both on the app's own origin.
    let base = url::Url::parse(&app.url)
        .unwrap()
        .join("manifest.webmanifest")
        .unwrap();
    let start = base.join(manifest["start_url"].as_str().unwrap()).unwrap();
    let scope = base.join(manifest["scope"].as_str().unwrap()).unwrap();
    assert_eq!(start.origin(), base.origin());
    assert!(
        start.as_str().starts_with(scope.as_str()),
        "{start} outside {scope}"
    );
    for colour in ["theme_color", "background_color"] {
        let value = manifest[colour].as_str().unwrap();
        assert!(
            value.len() == 7 && value.starts_with('#'),
            "{colour} is {value}"
        );
    }

    // Icons: 192 and 512 px for any use, and a maskable one; each declared size is the PNG's.
    let mut any = Vec::new();
    let mut maskable = 0;
    for icon in manifest["icons"].as_array().unwrap() {
        let src = icon["src"].as_str().unwrap();
        let served = get(
            &app.url,
            base.join(src).unwrap().path().trim_start_matches('/'),
        );
        assert_eq!(served.status, 200, "{src}");
        assert_eq!(icon["type"], "image/png", "{src}");
        assert_eq!(served.header("content-type").as_deref(), Some("image/png"));
        let (width, height) =
            png_size(&served.body).unwrap_or_else(|| panic!("{src} is not a PNG"));
        assert_eq!(icon["sizes"], format!("{width}x{height}"), "{src}");
        assert_eq!(width, height, "{src} is not square");
        match icon["purpose"].as_str().unwrap_or("any") {
            "any" => any.push(width),
            "maskable" => {
                maskable += 1;
                assert!(width >= 512, "the maskable icon is {width} px");
            }
            other => panic!("{src} has purpose {other}"),
        }
    }
    any.sort_unstable();
    assert_eq!(any, [192, 512]);
    assert_eq!(maskable, 1);
}

#[tokio::test]
async fn chromium_finds_the_app_installable_and_the_maskable_icon_keeps_to_its_safe_zone() {
    let browser = Browser::new().await;
    browser.open("?tab=tuner").await;
    query::wait_controlled(&browser).await;
    // Chromium's own check, as its install prompt uses it: manifest, icons, worker, scope.
    let deadline = Instant::now() + PATIENCE;
    loop {
        let verdict = browser
            .devtools("Page.getInstallabilityErrors", json!({}))
            .await;
        let errors = verdict["installabilityErrors"]
            .as_array()
            .unwrap_or_else(|| {
                panic!("no installabilityErrors in {verdict}");
            });
        if errors.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "Chromium says the app is not installable: {errors:#?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let manifest = browser.devtools("Page.getAppManifest", json!({})).await;
    assert!(
        manifest["url"]
            .as_str()
            .unwrap()
            .ends_with("/manifest.webmanifest"),
        "{manifest}"
    );
    assert_eq!(
        manifest["errors"],
        json!([]),
        "the manifest has errors: {manifest}"
    );

    // Decoded by the browser: the maskable icon's paper reaches every edge, and everything
    // outside the safe zone (the central circle of radius 40%) is plain paper, so a launcher's
    // mask of any shape cuts nothing off. The "any" icon has transparent corners instead.
    let pixels = icon_pixels(&browser).await;
    assert_eq!(
        pixels["paper"][3], 255,
        "the maskable icon is not opaque: {pixels}"
    );
    assert!(pixels["outside"].as_u64().unwrap() > 50_000, "{pixels}");
    assert_eq!(
        pixels["differing"], 0,
        "drawing outside the safe zone: {pixels}"
    );
    // Something is drawn inside it (a blank icon would pass the check above).
    assert!(pixels["ink"].as_u64().unwrap() > 10_000, "{pixels}");
    assert_eq!(pixels["anyCorner"], 0, "{pixels}");
    let errors = browser.console_errors().await;
    assert!(errors.is_empty(), "console errors: {errors:#?}");
    browser.close().await;
}

#[tokio::test]
async fn the_installed_app_starts_offline_from_its_start_url() {
    let browser = Browser::new().await;
    let mut app = StoppableApp::start();
    browser.client.goto(&app.url).await.unwrap();
    browser.wait_testid("tab-chat").await;
    query::wait_controlled(&browser).await;
    let manifest: Value =
        serde_json::from_slice(&get(&app.url, "manifest.webmanifest").body).unwrap();
    let start = url::Url::parse(&app.url)
        .unwrap()
        .join("manifest.webmanifest")
        .unwrap()
        .join(manifest["start_url"].as_str().unwrap())
        .unwrap();

    app.stop();
    assert!(
        TcpStream::connect(app.url.trim_start_matches("http://").trim_end_matches('/')).is_err(),
        "the server still answers"
    );
    browser.client.goto(start.as_str()).await.unwrap();
    browser.wait_testid("tab-chat").await;
    // The app runs, not just its page: a tab opens and the tuner computes a schedule.
    browser.click_testid("tab-tuner").await;
    browser.wait_testid("summariser-calls").await;
    // The parts this visit never opened while online come from the cache the install filled:
    // the exporters, every tab loaded on first use, and the vocabulary Tokens asks for.
    browser.click_testid("export-policy").await;
    browser.wait_testid("export-code").await;
    for tab in ["tokens", "inspect", "settings"] {
        browser.click_testid(&format!("tab-{tab}")).await;
        browser.wait_testid(&format!("panel-{tab}")).await;
        assert!(browser.is_absent("module-failed").await, "{tab} offline");
        if tab == "tokens" {
            browser.wait_vocabulary().await;
        }
    }
    // What an installed window shows (its manifest and icons) comes from the cache too.
    let offline = installed_window_statuses(&browser).await;
    for (path, status) in offline.as_object().unwrap() {
        assert_eq!(status, 200, "{path} offline: {offline}");
    }
    browser.close().await;
}

#[tokio::test]
async fn a_response_the_cache_refuses_still_reaches_the_page() {
    // The worker used to await `cache.put` inside the same try as the fetch: when the cache
    // refused the response (a `Vary: *` header makes `put` reject, by the Cache API's rules),
    // it answered from the cache instead, or failed the request, though the network had
    // answered. A copy of the dist is served, first as usual, then with `Vary: *` on every
    // response and a page the cache has never seen.
    let copy = copy_of_dist();
    let server = HeaderServer::start(copy.0.clone());
    let browser = Browser::new().await;
    browser.client.goto(&server.url).await.unwrap();
    browser.wait_testid("tab-chat").await;
    query::wait_controlled(&browser).await;

    let index = copy.0.join("index.html");
    let html = std::fs::read_to_string(&index).unwrap();
    std::fs::write(
        &index,
        html.replacen(
            "</head>",
            r#"<meta name="sm-served" content="second"></head>"#,
            1,
        ),
    )
    .unwrap();
    server.refuse_caching_under("/");
    // Every file is asked of the server again, not of the HTTP cache, so each answer through
    // the worker carries the header.
    browser
        .devtools("Network.clearBrowserCache", json!({}))
        .await;
    browser
        .client
        .goto(&format!("{}?tab=tokens", server.url))
        .await
        .unwrap();
    browser.wait_testid("tab-chat").await;
    let served: Option<String> =
        query::one(&browser, "meta[name=sm-served]", Field::prop("content")).await;
    assert_eq!(
        served.as_deref(),
        Some("second"),
        "the page came from the cache, not the network"
    );
    // The worker did control this load, so the answers did go through it.
    query::wait_controlled(&browser).await;
    // The vocabulary, fetched through the worker with `Vary: *`, loads too.
    TokensPage::new(&browser)
        .wait_state("exact", "the vocabulary to load through the worker")
        .await;
    let refused = server.refused.lock().unwrap().clone();
    assert!(
        refused.iter().any(|p| p.ends_with(".smv")) && refused.iter().any(|p| p == "/"),
        "the server did not refuse caching: {refused:?}"
    );
    browser.close().await;
}

#[tokio::test]
async fn an_install_that_could_not_keep_every_file_says_so() {
    let copy = copy_of_dist();
    let server = HeaderServer::start(copy.0.clone());
    server.refuse_caching_under("/icons/");
    let browser = Browser::new().await;
    browser.client.goto(&server.url).await.unwrap();
    browser.wait_testid("tab-chat").await;
    let notice = browser.wait_testid("offline-notice").await;
    assert_eq!(
        notice.attr("role").await.unwrap().as_deref(),
        Some("status")
    );
    let text = notice.text().await.unwrap();
    assert!(
        text.contains("Offline use is incomplete: 3 files"),
        "{text}"
    );
    for icon in [
        "icons/icon-192.png",
        "icons/icon-512.png",
        "icons/icon-maskable-512.png",
    ] {
        assert!(text.contains(icon), "{icon} not named: {text}");
    }
    // The notice blocks nothing: the install went on, and the app is usable under it.
    query::wait_controlled(&browser).await;
    browser.click_testid("tab-tuner").await;
    browser.wait_testid("summariser-calls").await;
    browser.click_testid("offline-notice-dismiss").await;
    query::wait(
        &browser,
        &testid("offline-notice"),
        Until::Absent,
        "the notice to go",
    )
    .await;
    browser.close().await;
}

#[tokio::test]
async fn a_complete_install_says_nothing() {
    let app = StoppableApp::start();
    let browser = Browser::new().await;
    browser.client.goto(&app.url).await.unwrap();
    browser.wait_testid("tab-chat").await;
    query::wait_controlled(&browser).await;
    let build = build_of(&dist_dir());
    let kept = kept_paths(&browser).await;
    for file in build["files"].as_array().unwrap() {
        assert!(
            kept.as_array().unwrap().contains(file),
            "{file} not kept: {kept}"
        );
    }
    assert!(browser.all_testid("offline-notice").await.is_empty());
    browser.close().await;
}

#[tokio::test]
async fn a_new_builds_worker_deletes_the_old_builds_cache_and_only_it() {
    let copy = copy_of_dist();
    let server = HeaderServer::start(copy.0.clone());
    let browser = Browser::new().await;
    browser.client.goto(&server.url).await.unwrap();
    browser.wait_testid("tab-chat").await;
    query::wait_controlled(&browser).await;
    let old = build_of(&copy.0)["id"].as_str().unwrap().to_owned();
    let keys = cache_keys(&browser).await;
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert!(
        keys[0].starts_with("summary-memory:") && keys[0].ends_with(&format!(":{old}")),
        "{keys:?}"
    );
    // A cache of the workers before per-build names, and one of another app on this origin.
    open_caches(&browser, &["summary-memory-v2", "another-app"]).await;

    // The next build: same files, a worker with another id (what precache.py writes).
    let new: String = old.chars().rev().collect();
    assert_ne!(new, old);
    let worker = copy.0.join("sw.js");
    let text = std::fs::read_to_string(&worker).unwrap();
    std::fs::write(&worker, text.replace(&old, &new)).unwrap();
    update_worker(&browser).await;
    let deadline = Instant::now() + PATIENCE;
    let keys = loop {
        let keys = cache_keys(&browser).await;
        // The new worker deletes the old build's cache and the legacy one, one after the other:
        // both gone, or the look came between the two deletions (a CI rehearsal saw that).
        if !keys
            .iter()
            .any(|k| k.ends_with(&format!(":{old}")) || k == "summary-memory-v2")
        {
            break keys;
        }
        assert!(
            Instant::now() < deadline,
            "the old build's or the legacy cache is still there: {keys:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let mut keys = keys;
    keys.sort();
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert_eq!(keys[0], "another-app");
    assert!(keys[1].ends_with(&format!(":{new}")), "{keys:?}");
    // The new build's cache holds the app, and the new worker controls the page.
    let kept = kept_count(&browser).await;
    let files = build_of(&copy.0)["files"].as_array().unwrap().len();
    assert!(
        kept.as_u64().unwrap() >= files as u64,
        "{kept} entries, {files} files"
    );
    wait_activated_worker(&browser, "the new worker to control the page").await;
    browser.close().await;
}

/// The `BUILD` value scripts/precache.py wrote into a dist's sw.js.
fn build_of(dist: &Path) -> Value {
    let worker = std::fs::read_to_string(dist.join("sw.js")).unwrap();
    let line = worker
        .lines()
        .find(|l| {
            l.starts_with("const BUILD = ") && l.ends_with("; // written by scripts/precache.py")
        })
        .expect("sw.js has no BUILD line");
    let json = line
        .trim_start_matches("const BUILD = ")
        .trim_end_matches("; // written by scripts/precache.py");
    serde_json::from_str(json)
        .unwrap_or_else(|e| panic!("the BUILD line is not JSON ({e}): {line}"))
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(root, &path, out);
        } else {
            let relative = path.strip_prefix(root).unwrap();
            out.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The maskable icon as the browser decodes it: its corner colour (the paper), how many pixels
/// lie outside and inside the safe zone (the central circle of radius 40%), how many of those
/// differ from the paper, and the alpha of the "any" icon's corner.
async fn icon_pixels(browser: &Browser) -> Value {
    script(
        browser,
        "const read = async (src) => {
            const bitmap = await createImageBitmap(await (await fetch(src)).blob());
            const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
            const context = canvas.getContext('2d');
            context.drawImage(bitmap, 0, 0);
            return { size: bitmap.width, data: context.getImageData(0, 0, bitmap.width, bitmap.height).data };
        };
        const mask = await read('icons/icon-maskable-512.png');
        const paper = Array.from(mask.data.slice(0, 4));
        let outside = 0, differing = 0, inside = 0, ink = 0;
        const centre = mask.size / 2, radius = 0.4 * mask.size;
        for (let y = 0; y < mask.size; y++) for (let x = 0; x < mask.size; x++) {
            const i = 4 * (y * mask.size + x);
            const same = [0, 1, 2, 3].every((k) => Math.abs(mask.data[i + k] - paper[k]) <= 2);
            if (Math.hypot(x + 0.5 - centre, y + 0.5 - centre) > radius) {
                outside++;
                if (!same) differing++;
            } else {
                inside++;
                if (!same) ink++;
            }
        }
        const any = await read('icons/icon-512.png');
        return { paper, outside, differing, inside, ink, anyCorner: any.data[3] };",
    )
    .await
}

/// The status of each file an installed window shows (its manifest and icons), fetched by the
/// page (through its service worker), or the error as text.
async fn installed_window_statuses(browser: &Browser) -> Value {
    script(
        browser,
        "const out = {};
        for (const path of ['manifest.webmanifest', 'icons/icon-192.png', 'icons/icon-512.png', 'icons/icon-maskable-512.png']) {
            try { out[path] = (await fetch(path)).status; } catch (e) { out[path] = String(e); }
        }
        return out;",
    )
    .await
}

/// The paths (without the leading slash) the app's cache keeps.
async fn kept_paths(browser: &Browser) -> Value {
    script(
        browser,
        "const cache = await caches.open((await caches.keys()).find((k) => k.startsWith('summary-memory:')));
        return (await cache.keys()).map((r) => new URL(r.url).pathname.slice(1));",
    )
    .await
}

/// How many entries the app's cache holds.
async fn kept_count(browser: &Browser) -> Value {
    script(
        browser,
        "const cache = await caches.open((await caches.keys()).find((k) => k.startsWith('summary-memory:')));
        return (await cache.keys()).length;",
    )
    .await
}

/// Opens the caches named `names` on the page's origin (empty, if they were not there).
async fn open_caches(browser: &Browser, names: &[&str]) {
    let opens: Vec<String> = names
        .iter()
        .map(|n| format!("await caches.open({});", json!(n)))
        .collect();
    script(browser, &format!("{} return true;", opens.join(" "))).await;
}

/// Asks the browser to check for a new service worker now.
async fn update_worker(browser: &Browser) {
    script(
        browser,
        "await (await navigator.serviceWorker.getRegistration()).update(); return true;",
    )
    .await;
}

/// Waits until an activated worker controls the page.
async fn wait_activated_worker(browser: &Browser, what: &str) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let state = script(
            browser,
            "return navigator.serviceWorker.controller ? navigator.serviceWorker.controller.state : null;",
        )
        .await;
        if state == "activated" {
            return;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The cache names of the page's origin.
async fn cache_keys(browser: &Browser) -> Vec<String> {
    let keys = script(browser, "return await caches.keys();").await;
    keys.as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap().to_owned())
        .collect()
}

/// Runs `body` (the body of an async function) in the page and returns what it returns; a
/// throw fails the test.
async fn script(browser: &Browser, body: &str) -> Value {
    let wrapped = format!(
        "const done = arguments[arguments.length - 1];
        (async () => {{ {body} }})().then((value) => done({{ value }}), (error) => done({{ error: String(error) }}));"
    );
    let result = browser
        .client
        .execute_async(&wrapped, vec![])
        .await
        .unwrap();
    if let Some(error) = result.get("error") {
        panic!("the page script threw {error}");
    }
    result["value"].clone()
}

/// The width and height in a PNG's IHDR chunk, which the format puts first.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if bytes.len() < 24 || &bytes[..8] != SIGNATURE || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let word = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    Some((word(16), word(20)))
}

/// An HTTP response read whole.
struct Fetched {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Fetched {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then(|| value.trim().to_owned())
        })
    }
}

/// A plain HTTP/1.1 GET of `path` under `base`, as any client would send it.
fn get(base: &str, path: &str) -> Fetched {
    get_with(base, path, "")
}

/// [`get`] with extra header lines (each ending in `\r\n`).
fn get_with(base: &str, path: &str, headers: &str) -> Fetched {
    let addr = base.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET /{path} HTTP/1.1\r\nHost: {addr}\r\n{headers}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("no end of headers");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    Fetched {
        status,
        head,
        body: raw[split + 4..].to_vec(),
    }
}

/// Serves a folder like the dist server, and adds `Vary: *` (which makes the Cache API refuse
/// a response) to every response under a path prefix, once asked to.
struct HeaderServer {
    url: String,
    refuse_under: Arc<Mutex<Option<String>>>,
    /// The paths whose responses carried `Vary: *`.
    refused: Arc<Mutex<Vec<String>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl HeaderServer {
    fn start(dir: PathBuf) -> HeaderServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        listener.set_nonblocking(true).unwrap();
        let refuse_under = Arc::new(Mutex::new(None::<String>));
        let refused = Arc::new(Mutex::new(Vec::new()));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (prefix, log) = (refuse_under.clone(), refused.clone());
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let files = tower_http::services::ServeDir::new(&dir)
                    .fallback(tower_http::services::ServeFile::new(dir.join("index.html")));
                let app =
                    axum::Router::new()
                        .fallback_service(files)
                        .layer(axum::middleware::from_fn(
                            move |request: axum::extract::Request, next: axum::middleware::Next| {
                                let path = request.uri().path().to_owned();
                                let refuse = prefix
                                    .lock()
                                    .unwrap()
                                    .as_deref()
                                    .is_some_and(|p| path.starts_with(p));
                                let log = log.clone();
                                async move {
                                    let mut response = next.run(request).await;
                                    if refuse {
                                        response.headers_mut().insert(
                                            http::header::VARY,
                                            http::HeaderValue::from_static("*"),
                                        );
                                        log.lock().unwrap().push(path);
                                    }
                                    response
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
        HeaderServer {
            url: format!("http://{addr}/"),
            refuse_under,
            refused,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// From now on, every response under `prefix` carries `Vary: *`.
    fn refuse_caching_under(&self, prefix: &str) {
        *self.refuse_under.lock().unwrap() = Some(prefix.to_owned());
    }
}

impl Drop for HeaderServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
