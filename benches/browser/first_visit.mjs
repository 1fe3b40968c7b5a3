// A learner's first visit, before and after: the bytes the page downloads until the lesson's
// first step can be used, and how long that takes on a slow line (Chromium's network throttling,
// 1.6 Mbit/s down, 750 kbit/s up, 150 ms latency), for two release builds served the same way
// (brotli where the build wrote a .br copy and the browser accepts it, as a precompressing server
// sends). Each run is a fresh Chromium profile (an empty cache); the builds alternate, and the
// medians and the ratios after / before are printed. Nothing here is asserted: it is a benchmark.
//
//   SM_DIST_BEFORE=/path/to/older/dist node benches/browser/first_visit.mjs
//
// SM_DIST (default dist/) is the build measured; SM_DIST_BEFORE the one it is compared with
// (docs/size.md says how to build an older commit's dist); SM_BENCH_RUNS runs of each (3).

import { createServer } from 'node:http'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { extname, join, normalize, resolve } from 'node:path'

import { dist, fail, withChromium } from './chromium.mjs'

const before = process.env.SM_DIST_BEFORE && resolve(process.env.SM_DIST_BEFORE)
if (!before || !existsSync(join(before, 'index.html'))) {
  fail('set SM_DIST_BEFORE to the release dist of the build to compare with')
}
const runs = Number(process.env.SM_BENCH_RUNS ?? 3)
const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json', '.webmanifest': 'application/manifest+json' }

// Serves `root` on loopback, the .br copy of a file where there is one and the browser accepts it.
function serve(root) {
  const server = createServer((req, res) => {
    let file = join(root, normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)))
    if (!file.startsWith(root) || !existsSync(file) || statSync(file).isDirectory()) file = join(root, 'index.html')
    const headers = { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' }
    const brotli = `${file}.br`
    if (/\bbr\b/.test(req.headers['accept-encoding'] ?? '') && existsSync(brotli)) {
      headers['content-encoding'] = 'br'
      file = brotli
    }
    res.writeHead(200, headers)
    res.end(readFileSync(file))
  })
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)))
}

// Records when the lesson's Next button first exists (the lesson can be used from then on) and
// what had arrived by then, in every page, before the page's own scripts run.
const WATCH = `
  new MutationObserver((_, observer) => {
    if (document.querySelector('[data-testid=lesson-next]')) {
      const at = performance.now();
      const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
        .filter((e) => e.responseEnd <= at);
      window.__smFirstStep = { at, bytes: entries.reduce((sum, e) => sum + e.transferSize, 0), files: entries.length };
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
`

async function once(root) {
  const server = await serve(root)
  return withChromium(server, async (page) => {
    await page.cdp('Network.enable')
    await page.cdp('Network.emulateNetworkConditions', {
      offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8,
    })
    await page.cdp('Page.addScriptToEvaluateOnNewDocument', { source: WATCH })
    await page.goto(`${page.app}?lesson=1`)
    const found = await page.async(`const done = arguments[0];
      const look = () => window.__smFirstStep ? done(window.__smFirstStep) : setTimeout(look, 50);
      look();`)
    return found
  })
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const results = { before: [], after: [] }
for (let i = 0; i < runs; i++) {
  for (const [name, root] of [['before', before], ['after', dist]]) {
    const r = await once(root)
    results[name].push(r)
    console.log(`${name} run ${i + 1}: the lesson's first step after ${r.at.toFixed(0)} ms, ${r.bytes} bytes in ${r.files} files`)
  }
}
const summary = (name) => ({ ms: median(results[name].map((r) => r.at)), bytes: median(results[name].map((r) => r.bytes)) })
const [b, a] = [summary('before'), summary('after')]
console.log(`\nfirst visit to the lesson's first step, 1.6 Mbit/s and 150 ms, medians of ${runs}:`)
console.log(`  before (${before}): ${b.ms.toFixed(0)} ms, ${b.bytes} bytes`)
console.log(`  after  (${dist}): ${a.ms.toFixed(0)} ms, ${a.bytes} bytes`)
console.log(`  after / before: time ${(a.ms / b.ms).toFixed(2)}, bytes ${(a.bytes / b.bytes).toFixed(2)}`)
