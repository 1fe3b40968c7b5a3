// Browser benchmark: the corpus worker pool. In one headless Chromium on the built dist:
//   - scaling: the same corpus measured on 1, 2, ... navigator.hardwareConcurrency workers
//     (the core-only wasm of src/bin/corpus_worker.rs, started from the loader the page names),
//     as conversations per second and as a ratio against one worker; the issue wants at least
//     0.7 x the core count on a machine of 4 or more cores;
//   - the hand-over: what the main thread spends posting a corpus to a worker as JavaScript
//     strings (structured clone) against the length-prefixed bytes the pool sends, transferred
//     (app::corpus::wire), the encoding into bytes included;
//   - the serial fraction: in the one-worker run, the main thread's own time per batch (framing
//     and posting it, reading its answer), which no number of workers overlaps, against the
//     worker's, and the speed-up Amdahl's law predicts from it at 4, 8 and 16 cores.
//
// The conversations are generated here as plain `[{role, content}]` arrays, which the worker's
// import reads like any transcript, so no page code is needed for the bench and nothing large
// is committed.
//
// Usage (from the repository root, after a trunk build):
//   node benches/browser/corpus.mjs
// Environment: SM_DIST (default dist), SM_BENCH_CONVERSATIONS (default 400),
// SM_BENCH_TURNS (exchanges per conversation, default 25), SM_BENCH_REPLAY (1: the extractive
// replay and its checks too; default 0, the dry run only).

import { serve, withChromium } from './chromium.mjs'

const conversations = Number(process.env.SM_BENCH_CONVERSATIONS ?? 400)
const turns = Number(process.env.SM_BENCH_TURNS ?? 25)
const replay = process.env.SM_BENCH_REPLAY === '1'

const inPage = `
const done = arguments[arguments.length - 1];
(async (conversations, turns, replay) => {
  const meta = (n) => document.querySelector("meta[name='" + n + "']").content;
  const loader = meta('sm-corpus-worker');
  const vocab = meta('sm-vocab-o200k_base');
  const texts = [];
  for (let i = 0; i < conversations; i++) {
    const m = [];
    for (let t = 0; t < turns; t++) {
      m.push({ role: 'user', content: 'Conversation ' + i + ', question ' + t + ': my budget is $' + (1000 + i + t) + ' a month; I must never spend over $' + (400 + t) + ' on rent. What should I do about the ' + (t % 7) + ' bills I listed?' });
      m.push({ role: 'assistant', content: 'At step ' + t + ' keep ' + (10 + t % 5) + '% for savings, pay the rent first, and review the ' + (3 + i % 9) + ' items you listed before the end of the month.' });
    }
    texts.push(JSON.stringify(m));
  }
  const enc = new TextEncoder();
  // The pool's batch format: a count, then per conversation its index, source and text, each
  // number a little-endian u32 and each string its byte length then its bytes.
  const frame = (first, items) => {
    const parts = items.map((t) => enc.encode(t));
    const size = 4 + parts.reduce((n, p) => n + 12 + 6 + p.length, 0);
    const buf = new ArrayBuffer(size);
    const view = new DataView(buf);
    const bytes = new Uint8Array(buf);
    let at = 0;
    view.setUint32(at, items.length, true); at += 4;
    parts.forEach((p, n) => {
      view.setUint32(at, first + n, true); at += 4;
      view.setUint32(at, 6, true); at += 4; bytes.set(enc.encode('corpus'), at); at += 6;
      view.setUint32(at, p.length, true); at += 4; bytes.set(p, at); at += p.length;
    });
    return buf;
  };
  const init = JSON.stringify({
    vocab_url: vocab, encoding: 'o200k_base',
    columns: ['langchain-summary-buffer', 'langchain-v1-middleware', 'openai-cookbook-session', 'claude-code']
      .map((slug) => ({ kind: 'preset', slug })),
    settings: { window: 128000, summary_tokens: 150, replay },
  });
  const start = (n) => Promise.all(Array.from({ length: n }, () => new Promise((ok, no) => {
    const w = new Worker(loader);
    w.onerror = () => no(new Error('the corpus worker did not load'));
    w.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.kind === 'started') w.postMessage(init);
      else if (m.kind === 'ready') ok(w);
      else no(new Error(m.reason));
    };
  })));
  // Every conversation on n workers, 8 to a batch, each worker taking the next batch when done.
  const run = async (workers) => {
    const batch = 8;
    let next = 0, rows = 0, batches = 0;
    // The main thread's own time: framing and posting each batch (the hand-over), and reading
    // each answer. No two of these overlap, whatever the number of workers: the serial part.
    let handMs = 0, readMs = 0;
    const t = performance.now();
    await Promise.all(workers.map((w) => new Promise((ok, no) => {
      const give = () => {
        if (next >= texts.length) return ok();
        const h = performance.now();
        const first = next; next = Math.min(next + batch, texts.length);
        const buf = frame(first, texts.slice(first, next));
        w.postMessage(buf, [buf]);
        batches += 1;
        handMs += performance.now() - h;
      };
      w.onmessage = (e) => {
        const r0 = performance.now();
        const m = JSON.parse(e.data);
        if (m.kind !== 'answers') return no(new Error(m.reason));
        for (const a of m.answers) { if (a.Err) return no(new Error(a.Err)); rows += a.Ok.length; }
        readMs += performance.now() - r0;
        give();
      };
      give();
    })));
    return { ms: performance.now() - t, rows, handMs, readMs, batches };
  };
  const cores = navigator.hardwareConcurrency || 1;
  const scaling = [];
  for (let n = 1; n <= cores; n++) {
    const workers = await start(n);
    await run(workers); // warm: the wasm compiled, the caches filled
    const r = await run(workers);
    workers.forEach((w) => w.terminate());
    scaling.push({ workers: n, ms: r.ms, rows: r.rows, handMs: r.handMs, readMs: r.readMs, batches: r.batches });
  }
  // The hand-over on the main thread: strings (structured clone) against transferred bytes.
  const sink = new Worker(URL.createObjectURL(new Blob(['onmessage = () => {}'], { type: 'text/javascript' })));
  const time = (f) => { const t = performance.now(); for (let k = 0; k < 5; k++) f(); return (performance.now() - t) / 5; };
  const stringsMs = time(() => sink.postMessage(texts));
  const bytesMs = time(() => { const b = frame(0, texts); sink.postMessage(b, [b]); });
  sink.terminate();
  const mb = texts.reduce((n, t) => n + t.length, 0) / 1e6;
  return { cores, scaling, stringsMs, bytesMs, mb };
})(...arguments).then(done, (e) => done({ error: String(e) }));
`

await withChromium(await serve(), async (page) => {
  await page.goto(`${page.app}?tab=inspect`)
  const r = await page.async(inPage, [conversations, turns, replay])
  if (r.error) throw new Error(r.error)
  const one = r.scaling[0].ms
  console.log(`Chromium, corpus worker pool: ${conversations} conversations of ${turns} exchanges under 4 policies, ${replay ? 'dry run + extractive replay + checks' : 'dry run only'}; navigator.hardwareConcurrency = ${r.cores}\n`)
  for (const s of r.scaling) {
    const perSec = (conversations / s.ms) * 1000
    console.log(`  ${String(s.workers).padStart(2)} worker(s): ${s.ms.toFixed(0).padStart(7)} ms, ${perSec.toFixed(0).padStart(6)} conversations/s, ${(perSec / s.workers).toFixed(0).padStart(6)} per worker, speed-up ${(one / s.ms).toFixed(2)} (${s.rows} rows)`)
  }
  const last = r.scaling[r.scaling.length - 1]
  console.log(`\n  scaling 1 -> ${last.workers}: ${(one / last.ms).toFixed(2)} = ${((one / last.ms) / last.workers).toFixed(2)} x the core count`)
  const per = (ms) => `${((ms * 1000) / conversations).toFixed(1).padStart(7)} µs a conversation`
  console.log(`\n  hand-over of ${r.mb.toFixed(1)} MB of text (${conversations} conversations) to a worker, main thread:`)
  console.log(`    as JavaScript strings (structured clone)   ${r.stringsMs.toFixed(1).padStart(7)} ms, ${per(r.stringsMs)}`)
  console.log(`    as length-prefixed bytes, transferred      ${r.bytesMs.toFixed(1).padStart(7)} ms, ${per(r.bytesMs)} (TextEncoder included)`)
  console.log(`    ratio strings / bytes                      ${(r.stringsMs / r.bytesMs).toFixed(2)}`)
  console.log(`    a worker's time per conversation (1 worker) ${per(one)}: the hand-over is ${((100 * r.bytesMs) / one).toFixed(2)}% of it as bytes`)

  // The pool's serial fraction, from the one-worker run: the main thread's own time (framing
  // and posting each batch, reading each answer), which no number of workers overlaps, against
  // the run's whole time; the rest is the worker's (its measuring and the messages' transit).
  // Amdahl's law then predicts the speed-up at core counts this machine does not have.
  const s1 = r.scaling[0]
  const serialMs = s1.handMs + s1.readMs
  const f = serialMs / s1.ms
  const perBatch = (ms) => `${((ms * 1000) / s1.batches).toFixed(1).padStart(8)} µs a batch`
  console.log(`\n  the pool's serial part (1 worker, ${s1.batches} batches of 8):`)
  console.log(`    main thread, hand-over (frame + post)     ${perBatch(s1.handMs)}`)
  console.log(`    main thread, reading the answers          ${perBatch(s1.readMs)}`)
  console.log(`    the worker (measuring, messages' transit) ${perBatch(s1.ms - serialMs)}`)
  console.log(`    serial fraction ${(100 * f).toFixed(3)}%; Amdahl's speed-up at ${[4, 8, 16].map((n) => `${n} cores ${(1 / (f + (1 - f) / n)).toFixed(2)}`).join(', ')}`)
})
