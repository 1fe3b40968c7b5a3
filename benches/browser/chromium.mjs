// What both browser benchmarks stand on: the release dist served on loopback (plus any extra
// routes a bench needs), one chromedriver driven over its plain HTTP API (no client library),
// and one headless Chromium with a fresh profile, stopped however the bench ends.

import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { mkdtempSync, readFileSync, statSync, existsSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { extname, join, normalize, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const dist = resolve(root, process.env.SM_DIST ?? 'dist')

const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json' }

export const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms))

export function fail(message) {
  console.error(`bench: ${message}`)
  process.exit(1)
}

// Serves `dist` on a loopback port. `route(path)` may name a file outside it for a path (or
// return null); anything unknown gets index.html, as a single-page host would answer.
// Responses are `no-cache` (revalidate on use), not `no-store`: the app's service worker copies
// what the page fetched from the HTTP cache instead of downloading it again, as with a real
// server.
export function serve(route = () => null) {
  if (!existsSync(join(dist, 'index.html'))) fail(`no release build in ${dist}: run \`trunk build --release --offline\``)
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname)
    let file = route(path)
    if (!file) {
      file = join(dist, normalize(path))
      if (!file.startsWith(dist)) file = null
    }
    if (!file || !existsSync(file) || statSync(file).isDirectory()) file = join(dist, 'index.html')
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' })
    res.end(readFileSync(file))
  })
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)))
}

async function startDriver() {
  const probe = await serve()
  const port = probe.address().port + 1
  probe.close()
  const child = spawn('chromedriver', [`--port=${port}`], { stdio: 'ignore' })
  child.on('error', () => fail('chromedriver is not installed: run scripts/tools.sh --browser'))
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(`${url}/status`)
      return { url, child }
    } catch {
      await sleep(50)
    }
  }
  fail('chromedriver did not start')
}

async function wd(driver, method, path, body) {
  const res = await fetch(`${driver}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = await res.json()
  if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json.value)}`)
  return json.value
}

// Runs `bench(page)` against one headless Chromium with a fresh profile, then stops the browser,
// the driver and the server. `page` has `app` (the served app's URL) and the WebDriver calls
// the benches use: `goto`, `sync` and `async` (scripts, with their arguments), `click` and `cdp`.
export async function withChromium(server, bench) {
  const app = `http://127.0.0.1:${server.address().port}/`
  const { url: driver, child } = await startDriver()
  const profile = mkdtempSync(join(tmpdir(), 'sm-bench-'))
  let session
  try {
    const caps = {
      capabilities: {
        alwaysMatch: {
          'goog:chromeOptions': {
            binary: '/usr/bin/chromium',
            args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
              '--disable-background-networking', '--disable-component-update', '--disable-sync',
              '--disable-dev-shm-usage', '--window-size=1280,900', `--user-data-dir=${profile}`],
          },
        },
      },
    }
    session = (await wd(driver, 'POST', '/session', caps)).sessionId
    const s = `/session/${session}`
    await wd(driver, 'POST', `${s}/timeouts`, { script: 600000, pageLoad: 60000 })
    return await bench({
      app,
      goto: (url) => wd(driver, 'POST', `${s}/url`, { url }),
      // A DevTools Protocol command through chromedriver's own endpoint (e.g. a script that
      // runs in every new document before the page's own, which the page's CSP cannot refuse).
      cdp: (cmd, params = {}) => wd(driver, 'POST', `${s}/goog/cdp/execute`, { cmd, params }),
      sync: (script, args = []) => wd(driver, 'POST', `${s}/execute/sync`, { script, args }),
      async: (script, args = []) => wd(driver, 'POST', `${s}/execute/async`, { script, args }),
      click: async (css) => {
        const element = await wd(driver, 'POST', `${s}/element`, { using: 'css selector', value: css })
        await wd(driver, 'POST', `${s}/element/${Object.values(element)[0]}/click`, {})
      },
    })
  } finally {
    if (session) await wd(driver, 'DELETE', `/session/${session}`).catch(() => {})
    child.kill()
    server.close()
    rmSync(profile, { recursive: true, force: true })
  }
}
