// Browser benchmark: importing and first rendering a 5,000-turn session in the release build, in
// headless Chromium, against two peers measured in the same page and the same run:
//   - the browser's own JSON.parse of the same file (the least any import must do), and
//   - a naive page without virtualisation: JSON.parse, then 10,000 rows of the same markup built
//     with plain DOM calls, laid out and painted (what drawing every row costs, with no framework).
//
// The session file is generated in the page by the app's own engine (`bench_session_file`, the
// same `engine::session::synthetic` the e2e test imports), so no large fixture is committed.
//
// Usage (from the repository root, after `trunk build --release --offline`):
//   node benches/browser/sessions.mjs
// Environment: SM_DIST (default dist), SM_BENCH_TURNS (default 5000), SM_BENCH_RUNS (default 3).
// No npm packages are needed: chromedriver is driven over its plain HTTP API.

import { serve, sleep, withChromium } from './chromium.mjs'

const turns = Number(process.env.SM_BENCH_TURNS ?? 5000)
const runs = Number(process.env.SM_BENCH_RUNS ?? 3)

// Starts from an empty library, so every run imports into the same state.
const clearStorage = `
const done = arguments[arguments.length - 1];
const r = indexedDB.deleteDatabase('summary-memory');
r.onsuccess = r.onerror = r.onblocked = () => done(true);
`

// Runs in the page (an async WebDriver script) on the Inspect tab.
const inPage = `
const done = arguments[arguments.length - 1];
(async (turns) => {
  const until = async (test) => { while (!test()) await new Promise((ok) => setTimeout(ok, 0)); };
  // After the next frame has been produced: the work before it is on screen.
  const painted = () => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
  const q = (s) => document.querySelector(s);
  const n = (s) => document.querySelectorAll(s).length;
  const text = window.wasmBindings.bench_session_file(turns);

  let t = performance.now();
  const parsed = JSON.parse(text);
  const parseMs = performance.now() - t;

  // Ours: the file input's change event until the archive's first row is in the page and painted.
  const input = q("[data-testid='import-file']");
  const files = new DataTransfer();
  files.items.add(new File([text], 'long.json', { type: 'application/json' }));
  input.files = files.files;
  t = performance.now();
  input.dispatchEvent(new Event('change', { bubbles: true }));
  await until(() => q("[data-testid='session-detail'] [data-testid='message']"));
  const shownMs = performance.now() - t;
  await painted();
  const paintedMs = performance.now() - t;
  const rows = { message: n("[data-testid='message']"), edition: n("[data-testid='edition']"), replay: n("[data-testid='replay-row']") };

  // Scrolling the archive to its end until the last reply is rendered and painted.
  const box = q('.vlist.archive');
  t = performance.now();
  box.scrollTop = box.scrollHeight;
  await until(() => q("[data-testid='message'][data-turn='" + turns + "'][data-role='assistant']"));
  await painted();
  const scrollMs = performance.now() - t;

  // Peer: a naive page, parsing the file and drawing every archive row at once, with the same
  // classes and text, plain DOM, laid out and painted.
  const host = q("[data-testid='session-detail']");
  t = performance.now();
  const naive = JSON.parse(text);
  const list = document.createElement('div');
  list.className = 'archive';
  let turn = 0;
  for (const m of naive.session.archive) {
    if (m.role === 'user') turn++;
    const row = document.createElement('div');
    row.className = 'message ' + m.role;
    const meta = document.createElement('span');
    meta.className = 'meta';
    meta.textContent = 'turn ' + turn + ' · ' + m.role;
    const p = document.createElement('p');
    p.textContent = m.content;
    row.append(meta, p);
    list.append(row);
  }
  host.append(list);
  void list.offsetHeight;
  await painted();
  const fullMs = performance.now() - t;
  list.remove();
  return { bytes: text.length, messages: parsed.session.archive.length, editions: parsed.session.editions.length, parseMs, shownMs, paintedMs, scrollMs, fullMs, rows };
})(arguments[0]).then(done, (e) => done({ error: String(e && e.stack || e) }));
`

await withChromium(await serve(), async (page) => {
  const results = []
  for (let i = 0; i < runs; i++) {
    await page.goto(`${page.app}?tab=inspect`)
    await page.async(clearStorage)
    await page.goto(`${page.app}?tab=inspect`)
    for (let j = 0; j < 400; j++) {
      const ready = await page.sync("return !!(window.wasmBindings && document.querySelector(\"[data-testid='import-file']\"))")
      if (ready) break
      await sleep(50)
    }
    const r = await page.async(inPage, [turns])
    if (r.error) throw new Error(r.error)
    results.push(r)
  }
  const median = (key) => {
    const v = results.map((r) => r[key]).sort((a, b) => a - b)
    return v[Math.floor(v.length / 2)]
  }
  const r = results[0]
  const fmt = (n) => n.toFixed(0).padStart(6)
  console.log(`Chromium, one ${turns}-turn session: ${r.messages} messages, ${r.editions} editions, ${(r.bytes / 1e6).toFixed(1)} MB of JSON; median of ${runs} runs\n`)
  console.log(`  JSON.parse of the file (peer)                       ${fmt(median('parseMs'))} ms`)
  console.log(`  import until the first archive row is in the page   ${fmt(median('shownMs'))} ms`)
  console.log(`  import until that is painted                        ${fmt(median('paintedMs'))} ms`)
  console.log(`  parse + every archive row drawn, plain DOM (peer)   ${fmt(median('fullMs'))} ms`)
  console.log(`  archive scrolled to the last turn, painted          ${fmt(median('scrollMs'))} ms`)
  console.log(`  rows in the page: ${r.rows.message} messages, ${r.rows.edition} editions, ${r.rows.replay} replay rows`)
  console.log(`\n  ratio import+paint / JSON.parse                      ${(median('paintedMs') / median('parseMs')).toFixed(1)}`)
  console.log(`  ratio import+paint / parse + all rows drawn          ${(median('paintedMs') / median('fullMs')).toFixed(2)}`)
})
