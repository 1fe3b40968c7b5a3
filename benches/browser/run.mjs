// Browser benchmark: our tokenizer (the release wasm in dist/) against gpt-tokenizer 4.0.0, in
// ONE headless Chromium run, on the corpus of the exactness test (tests/tokenizer-oracle).
//
// It serves dist/ plus gpt-tokenizer and the corpus on loopback, drives Chromium through
// chromedriver's plain HTTP API (no client library), opens the app on the Tokens tab, reads the
// app's User Timing marks (mounted, vocabulary fetched and parsed), then runs both tokenizers in
// that page.
//
// Usage (from the repository root, after `trunk build --release --offline`):
//   npm ci --prefix benches/browser && node benches/browser/run.mjs
// Environment: SM_DIST (default dist), SM_BENCH_SECONDS (time per throughput run, default 2).

import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs'
import { join, normalize, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { dist, fail, root, serve, sleep, withChromium } from './chromium.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const gptDir = join(here, 'node_modules', 'gpt-tokenizer')
const corpusPath = join(root, 'tests', 'tokenizer-oracle', 'corpus.json')
const seconds = Number(process.env.SM_BENCH_SECONDS ?? 2)

if (!existsSync(gptDir)) fail('gpt-tokenizer is missing: run `npm ci --prefix benches/browser`')

// Besides the app, the page's origin serves /bench/gpt/ (the npm package) and
// /bench/corpus.json, so gpt-tokenizer loads under the app's own CSP (script-src 'self').
function route(path) {
  if (path === '/bench/corpus.json') return corpusPath
  if (path.startsWith('/bench/gpt/')) {
    const file = join(gptDir, normalize(path.slice('/bench/gpt/'.length)))
    return file.startsWith(gptDir) ? file : null
  }
  return null
}

// Runs in the page (an async WebDriver script): times both tokenizers on the corpus.
const inPage = `
const done = arguments[arguments.length - 1];
(async (seconds) => {
  const texts = (await (await fetch('/bench/corpus.json')).json()).map((e) => e.text);
  const bytes = texts.reduce((n, t) => n + new TextEncoder().encode(t).length, 0);
  const ours = window.wasmBindings;
  // Our init: parsing the compact vocabulary file, fetched first (like gpt-tokenizer's module
  // below) so that the timing is the parse, not the loopback transfer.
  const vocabUrl = ours.bench_tokens_vocabulary_url('o200k_base');
  const vocab = new Uint8Array(await (await fetch(vocabUrl)).arrayBuffer());
  const oursLoadMs = ours.bench_tokens_load('o200k_base', vocab);
  // Throughput: whole corpus rounds until 'seconds' have passed, after one warm-up round.
  const rate = (round) => {
    round();
    let rounds = 0;
    const start = performance.now();
    while (performance.now() - start < seconds * 1000) { round(); rounds++; }
    return (rounds * bytes) / ((performance.now() - start) / 1000);
  };
  let oursTokens = 0;
  // Cold: our per-piece cache emptied every round; warm: kept, like gpt-tokenizer's merge cache.
  const oursRateCold = rate(() => { oursTokens = ours.bench_tokens_count(texts, 1, true); });
  const oursRateWarm = rate(() => { ours.bench_tokens_count(texts, 1, false); });

  // gpt-tokenizer's init: importing the module (its 2.4 MB rank table) and the first encode, which
  // builds the encoder. The file is fetched once first, so the timing is parse and build, not
  // the loopback transfer.
  await (await fetch('/bench/gpt/esm/bpeRanks/o200k_base.js')).text();
  const t0 = performance.now();
  const gpt = await import('/bench/gpt/esm/encoding/o200k_base.js');
  gpt.encode('warm up');
  const gptLoadMs = performance.now() - t0;
  const ordinary = { allowedSpecial: new Set(), disallowedSpecial: new Set() };
  let gptTokens = 0;
  const gptRateCold = rate(() => {
    gpt.clearMergeCache();
    gptTokens = texts.reduce((n, t) => n + gpt.encode(t, ordinary).length, 0);
  });
  const gptRateWarm = rate(() => { texts.forEach((t) => gpt.encode(t, ordinary)); });
  return { texts: texts.length, bytes, oursLoadMs, oursRateCold, oursRateWarm, oursTokens, gptLoadMs, gptRateCold, gptRateWarm, gptTokens };
})(arguments[0]).then(done, (e) => done({ error: String(e && e.stack || e) }));
`

const marks = `
const m = (n) => { const e = performance.getEntriesByName(n)[0]; return e ? e.startTime : null };
const paint = performance.getEntriesByName('first-contentful-paint')[0];
const first = performance.getEntriesByName('first-paint')[0];
return { firstPaint: first ? first.startTime : null, mounted: m('sm-mounted'), vocabStart: m('sm-vocab-start-o200k_base'), vocabFetched: m('sm-vocab-fetched-o200k_base'), vocabLoaded: m('sm-vocab-loaded-o200k_base'), fcp: paint ? paint.startTime : null };
`

await withChromium(await serve(route), async (page) => {
  await page.goto(`${page.app}?tab=tokens`)
  let t = null
  for (let i = 0; i < 600 && !(t && t.vocabLoaded); i++) {
    t = await page.sync(marks)
    if (!t.vocabLoaded) await sleep(50)
  }
  if (!t.vocabLoaded) throw new Error('the app never marked the o200k_base vocabulary as loaded')
  // The tab bar answers a click once the vocabulary has loaded at the latest; clicking now proves
  // it is a working button (the e2e tier checks clicks during the load).
  await page.click("[data-testid='tab-tuner']")

  const r = await page.async(inPage, [seconds])
  if (r.error) throw new Error(r.error)

  const kb = (n) => `${(n / 1024).toFixed(0)} KiB`
  const fmt = (n) => n.toFixed(1)
  const gz = (buf) => gzipSync(buf, { level: 9 }).length
  const files = readdirSync(dist).filter((f) => statSync(join(dist, f)).isFile())
  const size = (f) => {
    const raw = readFileSync(join(dist, f))
    return { raw: raw.length, gzip: gz(raw) }
  }
  console.log(`Chromium, ${r.texts} corpus texts (${r.bytes} bytes), o200k_base\n`)
  for (const f of files.filter((f) => f.endsWith('.wasm') || f.endsWith('.smv'))) {
    const { raw, gzip } = size(f)
    console.log(`${f.endsWith('.wasm') ? 'wasm ' : 'vocab'} ${f}: ${raw} bytes raw (${kb(raw)}), ${gzip} bytes gzip -9 (${kb(gzip)})`)
  }
  // What a first visit transfers (gzip -9, as a compressing server sends it): the page, the
  // loader, the CSS, the wasm, the service worker and the o200k_base vocabulary. cl100k_base is
  // fetched only when chosen.
  const firstVisit = files.filter((f) => /\.(html|js|css|wasm)$/.test(f) || /^o200k_base-.*\.smv$/.test(f))
  const total = firstVisit.reduce((n, f) => n + size(f).gzip, 0)
  const totalRaw = firstVisit.reduce((n, f) => n + size(f).raw, 0)
  console.log(`first-visit transfer (${firstVisit.length} files): ${totalRaw} bytes raw (${kb(totalRaw)}), ${total} bytes gzip -9 (${kb(total)})`)
  console.log(`\npage (ms since navigation start):`)
  console.log(`  first paint (presented)        ${fmt(t.firstPaint ?? NaN)}`)
  console.log(`  first contentful paint        ${fmt(t.fcp ?? NaN)}`)
  console.log(`  time to interactive (tab bar mounted) ${fmt(t.mounted)}`)
  console.log(`  vocabulary fetch started       ${fmt(t.vocabStart)}`)
  console.log(`  vocabulary fetched             ${fmt(t.vocabFetched)}  (${fmt(t.vocabFetched - t.vocabStart)} ms, the main thread free meanwhile)`)
  console.log(`  vocabulary parsed (exact counts) ${fmt(t.vocabLoaded)}  (main thread blocked ${fmt(t.vocabLoaded - t.vocabFetched)} ms)`)
  console.log(`\ninit (o200k_base):`)
  console.log(`  ours (parse the compact vocabulary) ${fmt(r.oursLoadMs)} ms`)
  console.log(`  gpt-tokenizer (import + first use)  ${fmt(r.gptLoadMs)} ms`)
  console.log(`  ratio ours / gpt-tokenizer          ${(r.oursLoadMs / r.gptLoadMs).toFixed(2)}`)
  console.log(`\ncounting throughput (corpus, no text-level cache):`)
  console.log(`  ours, piece cache emptied every round ${fmt(r.oursRateCold / 1e6)} MB/s  (${r.oursTokens} tokens a round)`)
  console.log(`  ours, piece cache warm               ${fmt(r.oursRateWarm / 1e6)} MB/s`)
  console.log(`  gpt-tokenizer, merge cache cleared   ${fmt(r.gptRateCold / 1e6)} MB/s  (${r.gptTokens} tokens a round)`)
  console.log(`  gpt-tokenizer, merge cache warm      ${fmt(r.gptRateWarm / 1e6)} MB/s`)
  // Time per corpus, ours / theirs, like the init ratio: below 1.0 means we count faster.
  console.log(`  time ratio ours / gpt-tokenizer      ${(r.gptRateCold / r.oursRateCold).toFixed(2)} (cold), ${(r.gptRateWarm / r.oursRateWarm).toFixed(2)} (warm)`)
  if (r.oursTokens !== r.gptTokens) console.log(`\nnote: token totals differ (${r.oursTokens} vs ${r.gptTokens}); tests/tokens_exact.rs says where`)
})
