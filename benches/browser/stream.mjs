// Browser benchmark: what one streamed chunk of a reply costs the main thread in a live chat of
// 2,000 turns against the same in a live chat of 10 turns, in the release build, in headless
// Chromium, in one run (issue 16: the ratio should be at most 1.5).
//
// Each chat is a session written by the app's own engine (`bench_chat_file`, the
// `engine::session::fixture::verbatim` chat, every turn verbatim, so the list the reply streams
// into is the long one; the e2e test `long_chat.rs` resumes the same chat), imported through Inspect's file input and resumed
// as the live chat (the library's live-session id in localStorage, then a reload), exactly as a
// reload resumes a long chat. The endpoint is the page's own `fetch`, replaced before the app's
// scripts run (DevTools Protocol) for `/chat/completions` only: it answers with an SSE body whose
// chunks this script enqueues one at a time, so everything after the bytes arrive is the app's
// real path (the stream reader, the SSE decoder, the live chat, the streaming row, the list that
// follows it, the saves as it streams).
//
// Two measures per size, each over the same chunks:
//   - per chunk (median): one task enqueues a chunk; the time until a task queued behind it runs
//     (the app's reading, decoding and reactive updates, all run as microtasks of that chunk),
//     plus the time spent in the page's animation-frame callbacks until the next chunk (the
//     virtual list measuring its rows and following the bottom);
//   - main thread over the whole stream, per chunk (mean): Chromium's own TaskDuration metric
//     (every task: script, style, layout, paint, the throttled saves of the chat as it streams,
//     garbage collection) across the stream, divided by the chunks.
// Chunks are 25 ms apart, so each is done before the next arrives.
//
// Usage (from the repository root, after `trunk build --release --offline`):
//   node benches/browser/stream.mjs
// Environment: SM_DIST (default dist), SM_BENCH_CHUNKS (default 200), SM_BENCH_RUNS (default 3),
// SM_BENCH_LONG (default 2000), SM_BENCH_SHORT (default 10).

import { mkdtempSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { serve, sleep, withChromium } from './chromium.mjs'

const chunks = Number(process.env.SM_BENCH_CHUNKS ?? 200)
const runs = Number(process.env.SM_BENCH_RUNS ?? 3)
const long = Number(process.env.SM_BENCH_LONG ?? 2000)
const short = Number(process.env.SM_BENCH_SHORT ?? 10)

// Before the app's scripts: `fetch` of a chat completion answers with a stream this bench feeds,
// and animation-frame callbacks are timed.
const beforeApp = `
(() => {
  const bench = { frameMs: 0, requests: 0, controller: null };
  window.__bench = bench;
  const realFetch = window.fetch.bind(window);
  window.fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input.url;
    if (!url.endsWith('/chat/completions')) return realFetch(input, init);
    bench.requests++;
    const body = new ReadableStream({ start(c) { bench.controller = c; } });
    return Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
  };
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (callback) => raf((ts) => {
    const t = performance.now();
    try { callback(ts); } finally { bench.frameMs += performance.now() - t; }
  });
})();
`

// Run on a page of the app's origin where the app is not running (`/blank.html`), so nothing
// holds the database open and the deletion is never blocked.
const clearStorage = `
const done = arguments[arguments.length - 1];
localStorage.clear();
const r = indexedDB.deleteDatabase('summary-memory');
r.onsuccess = () => done(true);
r.onerror = r.onblocked = () => done(false);
`

// On the Inspect tab: imports the made-up session of `turns` turns and returns its id once the
// library has stored it.
const importSession = `
const done = arguments[arguments.length - 1];
(async (turns) => {
  const until = async (test) => {
    const end = performance.now() + 60000;
    for (;;) { const v = await test(); if (v) return v; if (performance.now() > end) throw new Error('the session was never stored: ' + (document.querySelector('[role=alert]') || {}).textContent); await new Promise((ok) => setTimeout(ok, 20)); }
  };
  // The app creates its database once the vocabulary has loaded; opening it before would
  // create an empty one.
  await until(async () => (await indexedDB.databases()).some((d) => d.name === 'summary-memory'));
  const text = window.wasmBindings.bench_chat_file(turns);
  const input = document.querySelector("[data-testid='import-file']");
  const files = new DataTransfer();
  files.items.add(new File([text], 'long.json', { type: 'application/json' }));
  input.files = files.files;
  input.dispatchEvent(new Event('change', { bubbles: true }));
  const ids = () => new Promise((ok) => {
    const open = indexedDB.open('summary-memory');
    open.onerror = () => ok(null);
    open.onsuccess = () => {
      try {
        const all = open.result.transaction('sessions').objectStore('sessions').getAll();
        all.onsuccess = () => { open.result.close(); const r = all.result.find((r) => r.name === 'Long chat, ' + turns + ' turns'); ok(r ? [r.id, all.result.length] : null); };
        all.onerror = () => ok(null);
      } catch (e) { ok(null); }
    };
  });
  const found = await until(ids);
  if (found[1] !== 1) throw new Error(found[1] + ' stored sessions, not one');
  return found[0];
})(arguments[0]).then(done, (e) => done({ error: String(e && e.stack || e) }));
`

// Fills the Settings form (the fetch above answers whatever endpoint it names).
const settings = `
const set = (id, value) => {
  const el = document.querySelector("[data-testid='" + id + "']");
  el.value = value;
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
};
set('base-url', 'http://127.0.0.1:9/v1');
set('api-key', 'sk-bench');
set('chat-model', 'bench-chat');
set('summary-model', 'bench-summary');
return true;
`

// On the Chat tab with the live chat resumed: sends a message, then streams `chunks` chunks of a
// reply into it, each 25 ms after the last, and returns the measures.
const stream = `
const done = arguments[arguments.length - 1];
(async (chunks) => {
  const b = window.__bench;
  const wait = (ms) => new Promise((ok) => setTimeout(ok, ms));
  const until = async (test, what) => {
    const end = performance.now() + 60000;
    while (!test()) { if (performance.now() > end) throw new Error('never: ' + what); await wait(10); }
  };
  // A task queued behind everything the current task set off (a message, never clamped).
  const nextTask = () => new Promise((ok) => { const ch = new MessageChannel(); ch.port1.onmessage = () => ok(); ch.port2.postMessage(0); });
  const box = document.querySelector("[data-testid='chat-input']");
  box.value = 'Plan the next month, please.';
  box.dispatchEvent(new Event('input', { bubbles: true }));
  await until(() => !document.querySelector("[data-testid='send']").disabled, 'Send enabled');
  document.querySelector("[data-testid='send']").click();
  await until(() => b.controller, 'the chat request');
  await until(() => document.querySelector("[data-testid='message'][data-state='streaming']"), 'the streaming row');
  await wait(300);
  const encoder = new TextEncoder();
  const sse = (piece) => encoder.encode('data: ' + JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] }) + '\\n\\n');
  const words = ['Save', ' a', ' fixed', ' share', ' of', ' each', ' salary,', ' 20%', ' of', ' ₹1,20,000,', ' and', ' **review**', ' it', ' yearly.\\n\\n', '- keep', ' three', ' months', ' aside\\n'];
  const perChunk = [];
  let frames = 0;
  for (let i = 0; i < chunks; i++) {
    const piece = words[i % words.length] + (i % 17 === 16 ? '\\n' : '');
    const bytes = sse(piece);
    const frameBefore = b.frameMs;
    await nextTask();
    const t = performance.now();
    b.controller.enqueue(bytes);
    await nextTask();
    const js = performance.now() - t;
    await wait(25);
    frames = b.frameMs - frameBefore;
    perChunk.push(js + frames);
  }
  b.controller.enqueue(encoder.encode('data: [DONE]\\n\\n'));
  b.controller.close();
  await until(() => !document.querySelector("[data-testid='message'][data-state='streaming']"), 'the reply archived');
  // The archived reply is measured in the next frames, and followed.
  for (let i = 0; i < 5; i++) await new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
  const vlist = document.querySelector('.vlist.verbatim');
  const atBottom = vlist.scrollTop + vlist.clientHeight + 8 >= vlist.scrollHeight;
  const rows = document.querySelectorAll("[data-testid='message']").length;
  perChunk.sort((a, b) => a - b);
  return { median: perChunk[Math.floor(perChunk.length / 2)], p90: perChunk[Math.floor(perChunk.length * 0.9)], rows, atBottom };
})(arguments[0]).then(done, (e) => done({ error: String(e && e.stack || e) }));
`

async function metric(page, name) {
  const { metrics } = await page.cdp('Performance.getMetrics')
  return metrics.find((m) => m.name === name).value
}

const stage = (what) => { if (process.env.SM_BENCH_VERBOSE) console.error(`stream.mjs: ${what}`) }

async function measure(page, turns) {
  stage(`${turns} turns: clearing storage`)
  await page.goto(`${page.app}blank.html`)
  if (!(await page.async(clearStorage))) throw new Error('the stored sessions could not be deleted')
  await page.goto(`${page.app}?tab=inspect`)
  for (let j = 0; j < 400; j++) {
    if (await page.sync("return !!(window.wasmBindings && document.querySelector(\"[data-testid='import-file']\"))")) break
    await sleep(50)
  }
  stage('importing')
  const id = await page.async(importSession, [turns])
  if (id.error) throw new Error(id.error)
  await page.goto(`${page.app}?tab=settings`)
  for (let j = 0; j < 400; j++) {
    if (await page.sync("return !!document.querySelector(\"[data-testid='base-url']\")")) break
    await sleep(50)
  }
  await page.sync(settings)
  await page.sync('localStorage.setItem("summary-memory.live-session", arguments[0]); return true', [id])
  await sleep(300)
  stage(`resuming ${id}`)
  await page.goto(`${page.app}?tab=chat`)
  // The resumed chat is on screen once its last turn's reply is (the list opens at its end) and
  // the vocabulary has loaded (Send waits for it).
  for (let j = 0; j < 600; j++) {
    const ready = await page.sync(`return !!document.querySelector("[data-testid='message'][data-turn='${turns}'][data-role='assistant']") && !document.querySelector("[data-testid='chat-input']").disabled`)
    if (ready) break
    if (j === 599) throw new Error(`the ${turns}-turn chat was never resumed`)
    await sleep(50)
  }
  await sleep(500)
  stage('streaming')
  const before = await metric(page, 'TaskDuration')
  const r = await page.async(stream, [chunks])
  if (r.error) throw new Error(r.error)
  const after = await metric(page, 'TaskDuration')
  return { ...r, mainPerChunk: ((after - before) * 1000) / chunks }
}

// An empty page of the app's origin, for clearing its storage with the app not running.
const blank = join(mkdtempSync(join(tmpdir(), 'sm-stream-')), 'blank.html')
writeFileSync(blank, '')

await withChromium(await serve((path) => (path === '/blank.html' ? blank : null)), async (page) => {
  await page.cdp('Page.addScriptToEvaluateOnNewDocument', { source: beforeApp })
  await page.cdp('Performance.enable')
  const results = { [short]: [], [long]: [] }
  for (let i = 0; i < runs; i++) {
    for (const turns of [short, long]) results[turns].push(await measure(page, turns))
  }
  const median = (list, key) => {
    const v = list.map((r) => r[key]).sort((a, b) => a - b)
    return v[Math.floor(v.length / 2)]
  }
  const fmt = (n) => n.toFixed(2).padStart(7)
  const load = loadavg().map((l) => l.toFixed(2)).join(' ')
  console.log(`Chromium, a reply streamed in ${chunks} chunks into a live chat; median of ${runs} runs; load average ${load}\n`)
  for (const turns of [short, long]) {
    const list = results[turns]
    console.log(`  ${String(turns).padStart(5)} turns: per chunk ${fmt(median(list, 'median'))} ms (p90 ${fmt(median(list, 'p90'))} ms), main thread over the stream ${fmt(median(list, 'mainPerChunk'))} ms a chunk; ${list[0].rows} message rows in the page, followed to the bottom: ${list.every((r) => r.atBottom)}`)
  }
  console.log(`\n  ratio per chunk ${long} / ${short} turns                     ${(median(results[long], 'median') / median(results[short], 'median')).toFixed(2)}`)
  console.log(`  ratio main thread over the stream ${long} / ${short} turns   ${(median(results[long], 'mainPerChunk') / median(results[short], 'mainPerChunk')).toFixed(2)}`)
})
