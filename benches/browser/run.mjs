// Browser benchmark: our tokenizer (the release wasm in dist/) against two peers, gpt-tokenizer
// 4.0.0 (pure JavaScript) and the `tiktoken` npm package 1.0.22 (OpenAI's tiktoken compiled to
// wasm, its lite build), in ONE headless Chromium run and one page, on
//   - the five bench corpora (benches/corpora/corpora.json: English prose, code, CJK, Hindi,
//     emoji), one ratio per corpus and peer, every peer warm (its caches kept between rounds),
//   - the exactness corpus (tests/tokenizer-oracle), cold and warm against gpt-tokenizer, as
//     before, so older figures stay comparable;
// and, from the page load: when the tab bar was mounted, when the o200k_base vocabulary was
// fetched and ready, the longest main-thread task between the mount and the first exact count
// (the Long Tasks API, which reports tasks over 50 ms), and the transfer sizes.
//
// Usage (from the repository root, after `trunk build --release --offline`):
//   npm ci --prefix benches/browser && node benches/browser/run.mjs
// Environment: SM_DIST (default dist), SM_BENCH_SECONDS (time per throughput run, default 2).

import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs'
import { join, normalize, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync, brotliCompressSync, constants } from 'node:zlib'
import { dist, fail, root, serve, sleep, withChromium } from './chromium.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const gptDir = join(here, 'node_modules', 'gpt-tokenizer')
const tiktokenDir = join(here, 'node_modules', 'tiktoken')
const corpusPath = join(root, 'tests', 'tokenizer-oracle', 'corpus.json')
const corporaPath = join(root, 'benches', 'corpora', 'corpora.json')
const seconds = Number(process.env.SM_BENCH_SECONDS ?? 2)

if (!existsSync(gptDir) || !existsSync(tiktokenDir)) fail('gpt-tokenizer or tiktoken is missing: run `npm ci --prefix benches/browser`')

// Besides the app, the page's origin serves /bench/gpt/ and /bench/tiktoken/ (the npm packages)
// and the corpora, so the peers load under the app's own CSP (script-src 'self'). tiktoken's
// modules import "./tiktoken_bg" without an extension, as a bundler would resolve it.
function inside(dir, path) {
  const file = join(dir, normalize(path))
  if (!file.startsWith(dir)) return null
  return existsSync(file) ? file : existsSync(`${file}.js`) ? `${file}.js` : file
}
function route(path) {
  if (path === '/bench/corpus.json') return corpusPath
  if (path === '/bench/corpora.json') return corporaPath
  if (path.startsWith('/bench/gpt/')) return inside(gptDir, path.slice('/bench/gpt/'.length))
  if (path.startsWith('/bench/tiktoken/')) return inside(tiktokenDir, path.slice('/bench/tiktoken/'.length))
  return null
}

// Runs in every new document before the page's own scripts: records long tasks, and the moment
// the Tokens tab's count first shows an exact value.
const observe = `
window.__smLongTasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__smLongTasks.push({ start: e.startTime, duration: e.duration });
}).observe({ type: 'longtask', buffered: true });
new MutationObserver((_, obs) => {
  const c = document.querySelector("[data-testid='token-count']");
  if (c && c.dataset.state === 'exact') { window.__smFirstExact = performance.now(); obs.disconnect(); }
}).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state'] });
`

// Runs in the page (an async WebDriver script): times the tokenizers.
const inPage = `
const done = arguments[arguments.length - 1];
(async (seconds) => {
  const texts = (await (await fetch('/bench/corpus.json')).json()).map((e) => e.text);
  const corpora = await (await fetch('/bench/corpora.json')).json();
  const utf8 = (t) => new TextEncoder().encode(t).length;
  const bytes = texts.reduce((n, t) => n + utf8(t), 0);
  const ours = window.wasmBindings;
  // Our init: parsing the compact vocabulary file, fetched first (like the peers' files below)
  // so that the timing is the parse, not the loopback transfer.
  const vocabUrl = ours.bench_tokens_vocabulary_url('o200k_base');
  const vocab = new Uint8Array(await (await fetch(vocabUrl)).arrayBuffer());
  // The counter's code is a module of its own (docs/size.md), fetched before the timing.
  await ours.bench_tokens_module();
  const oursLoadMs = ours.bench_tokens_load('o200k_base', vocab);
  // Seconds per call of round, after one warm-up call, over about 'budget' seconds.
  const timeOf = (round, budget) => {
    round();
    let rounds = 0;
    const start = performance.now();
    while (performance.now() - start < budget * 1000) { round(); rounds++; }
    return (performance.now() - start) / 1000 / Math.max(rounds, 1);
  };
  const rate = (round) => bytes / timeOf(round, seconds);
  let oursTokens = 0;
  // Cold: our per-piece cache emptied every round; warm: kept, like gpt-tokenizer's merge cache.
  const oursRateCold = rate(() => { oursTokens = ours.bench_tokens_count(texts, 1, true); });
  const oursRateWarm = rate(() => { ours.bench_tokens_count(texts, 1, false); });

  // gpt-tokenizer's init: importing the module (its 2.4 MB rank table) and the first encode, which
  // builds the encoder. The file is fetched once first, so the timing is parse and build, not
  // the loopback transfer.
  await (await fetch('/bench/gpt/esm/bpeRanks/o200k_base.js')).text();
  let t0 = performance.now();
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

  // tiktoken's init: instantiating its lite wasm and building the encoder from the rank file,
  // both fetched first.
  const tkWasm = await (await fetch('/bench/tiktoken/lite/tiktoken_bg.wasm')).arrayBuffer();
  const tkModelText = await (await fetch('/bench/tiktoken/encoders/o200k_base.json')).text();
  t0 = performance.now();
  const tk = await import('/bench/tiktoken/lite/init.js');
  await tk.init((imports) => WebAssembly.instantiate(tkWasm, imports));
  const model = JSON.parse(tkModelText);
  const tiktoken = new tk.Tiktoken(model.bpe_ranks, model.special_tokens, model.pat_str);
  tiktoken.encode_ordinary('warm up');
  const tkLoadMs = performance.now() - t0;

  // Per corpus, every tokenizer warm, interleaved three times; the median time of each.
  const perCorpus = [];
  for (const { name, text } of corpora) {
    const ways = {
      ours: () => ours.bench_tokens_count_one(text),
      oursHeld: () => ours.bench_tokens_count_held(),
      gpt: () => gpt.encode(text, ordinary).length,
      tiktoken: () => tiktoken.encode_ordinary(text).length,
    };
    ours.bench_tokens_hold([text]);
    const counts = Object.fromEntries(Object.entries(ways).map(([k, f]) => [k, f()]));
    const times = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
    for (let i = 0; i < 3; i++) for (const [k, f] of Object.entries(ways)) times[k].push(timeOf(f, seconds / 4));
    const median = Object.fromEntries(Object.entries(times).map(([k, t]) => [k, t.sort((a, b) => a - b)[1]]));
    perCorpus.push({ name, bytes: utf8(text), counts, median });
  }
  tiktoken.free();

  // A session record crossing the wasm boundary (to IndexedDB or another tab and back): as the
  // export text, what the store keeps, or as a JS object serde-wasm-bindgen builds and reads.
  // Each way: the round trip into the wasm's wire type, and the browser's structured clone of
  // the value (what IndexedDB's put and postMessage do). Medians of three interleaved timings.
  const records = [];
  for (const turns of ours.bench_record_roundtrip ? [500, 5000] : []) {
    const kinds = ['json', 'serde-wasm-bindgen'];
    const values = Object.fromEntries(kinds.map((k) => [k, ours.bench_record_value(turns, k)]));
    const times = Object.fromEntries(kinds.flatMap((k) => [[k, []], [k + ' clone', []]]));
    for (let i = 0; i < 3; i++) {
      for (const k of kinds) {
        times[k].push(ours.bench_record_roundtrip(turns, k, 3));
        times[k + ' clone'].push(timeOf(() => structuredClone(values[k]), seconds / 8) * 1000);
      }
    }
    const median = Object.fromEntries(Object.entries(times).map(([k, t]) => [k, t.sort((a, b) => a - b)[1]]));
    records.push({ turns, chars: values.json.length, median });
  }
  return { texts: texts.length, bytes, oursLoadMs, oursRateCold, oursRateWarm, oursTokens, gptLoadMs, gptRateCold, gptRateWarm, gptTokens, tkLoadMs, perCorpus, records };
})(arguments[0]).then(done, (e) => done({ error: String(e && e.stack || e) }));
`

const marks = `
const m = (n) => { const e = performance.getEntriesByName(n)[0]; return e ? e.startTime : null };
const paint = performance.getEntriesByName('first-contentful-paint')[0];
const first = performance.getEntriesByName('first-paint')[0];
return { firstPaint: first ? first.startTime : null, mounted: m('sm-mounted'), vocabStart: m('sm-vocab-start-o200k_base'), vocabFetched: m('sm-vocab-fetched-o200k_base'), vocabLoaded: m('sm-vocab-loaded-o200k_base'), fcp: paint ? paint.startTime : null, firstExact: window.__smFirstExact ?? null, longTasks: window.__smLongTasks ?? null };
`

await withChromium(await serve(route), async (page) => {
  await page.cdp('Page.addScriptToEvaluateOnNewDocument', { source: observe })
  await page.goto(`${page.app}?tab=tokens`)
  let t = null
  for (let i = 0; i < 600 && !(t && t.vocabLoaded && t.firstExact); i++) {
    t = await page.sync(marks)
    if (!t.vocabLoaded || !t.firstExact) await sleep(50)
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
  const br = (buf) => brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: buf.length } }).length
  const files = readdirSync(dist).filter((f) => statSync(join(dist, f)).isFile() && !/\.(br|gz)$/.test(f))
  const size = (f) => {
    const raw = readFileSync(join(dist, f))
    return { raw: raw.length, gzip: gz(raw), brotli: br(raw) }
  }
  console.log(`Chromium, o200k_base; load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}\n`)
  for (const f of files.filter((f) => f.endsWith('.wasm') || f.endsWith('.smv'))) {
    const { raw, gzip, brotli } = size(f)
    console.log(`${f.endsWith('.wasm') ? 'wasm ' : 'vocab'} ${f}: ${raw} bytes raw (${kb(raw)}), ${gzip} gzip -9 (${kb(gzip)}), ${brotli} brotli -11 (${kb(brotli)})`)
  }
  // What a first visit transfers (as a compressing server sends it): the page, the loader, the
  // CSS, the wasm, the service worker and the o200k_base vocabulary. cl100k_base is fetched only
  // when chosen.
  const firstVisit = files.filter((f) => /\.(html|js|css|wasm)$/.test(f) || /^o200k_base-.*\.smv$/.test(f))
  const sum = (k) => firstVisit.reduce((n, f) => n + size(f)[k], 0)
  console.log(`first-visit transfer (${firstVisit.length} files): ${sum('raw')} bytes raw (${kb(sum('raw'))}), ${sum('gzip')} gzip -9 (${kb(sum('gzip'))}), ${sum('brotli')} brotli -11 (${kb(sum('brotli'))})`)
  const window = (t.longTasks ?? []).filter((l) => l.start + l.duration > t.mounted && l.start < t.firstExact)
  const longest = window.reduce((m, l) => Math.max(m, l.duration), 0)
  console.log(`\npage (ms since navigation start):`)
  console.log(`  first paint (presented)        ${fmt(t.firstPaint ?? NaN)}`)
  console.log(`  first contentful paint        ${fmt(t.fcp ?? NaN)}`)
  console.log(`  time to interactive (tab bar mounted) ${fmt(t.mounted)}`)
  console.log(`  vocabulary fetch started       ${fmt(t.vocabStart)}`)
  console.log(`  vocabulary fetched             ${fmt(t.vocabFetched)}  (${fmt(t.vocabFetched - t.vocabStart)} ms, the main thread free meanwhile)`)
  console.log(`  vocabulary ready               ${fmt(t.vocabLoaded)}  (${fmt(t.vocabLoaded - t.vocabFetched)} ms, built in slices between which the page runs)`)
  console.log(`  first exact count on screen    ${fmt(t.firstExact ?? NaN)}`)
  console.log(`  longest main-thread task from mount to first exact count: ${longest > 0 ? `${fmt(longest)} ms` : 'none over 50 ms'} (${window.length} long tasks${t.longTasks === null ? '; the Long Tasks observer did not run' : ''})`)
  for (const l of window) console.log(`    a long task at ${fmt(l.start)} ms for ${fmt(l.duration)} ms`)
  console.log(`\ninit (o200k_base):`)
  console.log(`  ours (parse the compact vocabulary, in one go) ${fmt(r.oursLoadMs)} ms`)
  console.log(`  gpt-tokenizer (import + first use)  ${fmt(r.gptLoadMs)} ms`)
  console.log(`  tiktoken (wasm + rank file + first use) ${fmt(r.tkLoadMs)} ms`)
  console.log(`  ratio ours / gpt-tokenizer ${(r.oursLoadMs / r.gptLoadMs).toFixed(2)}, ours / tiktoken ${(r.oursLoadMs / r.tkLoadMs).toFixed(2)}`)
  console.log(`\ncounting time per corpus, every tokenizer warm (median of 3 interleaved runs); ratio below 1.0 means ours is faster:`)
  console.log(`  ${'corpus'.padEnd(14)} ${'bytes'.padStart(6)}  ${'ours'.padStart(9)} ${'ours held'.padStart(9)} ${'gpt-tok'.padStart(9)} ${'tiktoken'.padStart(9)}   ours/gpt ours/tiktoken (held: /gpt /tiktoken)`)
  const mismatches = []
  for (const c of r.perCorpus) {
    const us = (s) => `${(s * 1e6).toFixed(0)} µs`.padStart(9)
    const m = c.median
    const same = new Set(Object.values(c.counts)).size === 1
    if (!same) mismatches.push(`${c.name}: ${JSON.stringify(c.counts)}`)
    console.log(`  ${c.name.padEnd(14)} ${String(c.bytes).padStart(6)}  ${us(m.ours)} ${us(m.oursHeld)} ${us(m.gpt)} ${us(m.tiktoken)}   ${(m.ours / m.gpt).toFixed(2).padStart(8)} ${(m.ours / m.tiktoken).toFixed(2).padStart(13)}  (${(m.oursHeld / m.gpt).toFixed(2)} ${(m.oursHeld / m.tiktoken).toFixed(2)})${same ? '' : `  COUNTS DIFFER ${JSON.stringify(c.counts)}`}`)
  }
  console.log(`\na session record across the wasm boundary and back, ms (median of 3); ratio above 1.0 means serde-wasm-bindgen is slower:`)
  if (r.records.length === 0) console.log('  not measured: this wasm was built without the record-bench feature (trunk build --release --offline --features record-bench)')
  for (const { turns, chars, median: m } of r.records) {
    const json = m.json + m['json clone']
    const swb = m['serde-wasm-bindgen'] + m['serde-wasm-bindgen clone']
    console.log(`  ${String(turns).padStart(5)} turns (${(chars / 1e6).toFixed(2)} MB as text): export text ${fmt(m.json)} + clone ${fmt(m['json clone'])}; serde-wasm-bindgen object ${fmt(m['serde-wasm-bindgen'])} + clone ${fmt(m['serde-wasm-bindgen clone'])}; ratio ${(swb / json).toFixed(2)}`)
  }
  console.log(`\nexactness corpus (${r.texts} texts, ${r.bytes} bytes), no text-level cache:`)
  console.log(`  ours, piece cache emptied every round ${fmt(r.oursRateCold / 1e6)} MB/s  (${r.oursTokens} tokens a round)`)
  console.log(`  ours, piece cache warm               ${fmt(r.oursRateWarm / 1e6)} MB/s`)
  console.log(`  gpt-tokenizer, merge cache cleared   ${fmt(r.gptRateCold / 1e6)} MB/s  (${r.gptTokens} tokens a round)`)
  console.log(`  gpt-tokenizer, merge cache warm      ${fmt(r.gptRateWarm / 1e6)} MB/s`)
  // Time per corpus, ours / theirs, like the init ratio: below 1.0 means we count faster.
  console.log(`  time ratio ours / gpt-tokenizer      ${(r.gptRateCold / r.oursRateCold).toFixed(2)} (cold), ${(r.gptRateWarm / r.oursRateWarm).toFixed(2)} (warm)`)
  if (r.oursTokens !== r.gptTokens) mismatches.push(`exactness corpus: ours ${r.oursTokens} tokens, gpt-tokenizer ${r.gptTokens} (tests/tokens_exact.rs says where)`)
  // Every figure is printed first; then a count that differs fails the run (a non-zero exit
  // through the rejected promise), since a tokenizer that counts differently is a bug, not a figure.
  if (mismatches.length > 0) throw new Error(`token counts differ:\n  ${mismatches.join('\n  ')}`)
})
