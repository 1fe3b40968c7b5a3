// Browser benchmark: the corpus worker pool. In one headless Chromium on the built dist:
//   - scaling: the same corpus measured on 1, 2, ... navigator.hardwareConcurrency workers
//     (the core-only wasm of src/bin/corpus_worker.rs, started from the loader the page names),
//     as conversations per second and as a ratio against one worker; the issue wants at least
//     0.7 x the core count on a machine of 4 or more cores;
//   - the hand-over: what the main thread spends posting a corpus to a worker as JavaScript
//     strings (structured clone) against the length-prefixed bytes the pool sends, transferred
//     (app::corpus::wire), framing the conversations' lean forms included (the page writes
//     those in Rust: cli/benches/corpus.rs times that natively);
//   - the page's counts kept against counted: one worker's time per conversation given the
//     conversations with their counts vouched for in o200k_base (it keeps them) and not (it
//     counts every message), each on a worker warmed on other texts, so its cache holds none of
//     these, as a real run's does not;
//   - the serial fraction: in the one-worker run, the main thread's own time per batch (framing
//     and posting it, reading its answer), which no number of workers overlaps, against the
//     worker's, and the speed-up Amdahl's law predicts from it at 4, 8 and 16 cores.
//
// The conversations are generated here and written in the lean form the pool sends
// (app::corpus::lean: postcard, written by `lean` below), so no page code is needed for the
// bench and nothing large is committed. The counts a vouched form carries are the bench's own
// (a token per 4 bytes), so only the times compare, not the rows; the worker answering every
// conversation checks that the form reads.
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
  const enc = new TextEncoder();
  const generate = (from) => Array.from({ length: conversations }, (_, n) => {
    const i = from + n;
    const m = [];
    for (let t = 0; t < turns; t++) {
      m.push({ role: 'user', content: 'Conversation ' + i + ', question ' + t + ': my budget is $' + (1000 + i + t) + ' a month; I must never spend over $' + (400 + t) + ' on rent. What should I do about the ' + (t % 7) + ' bills I listed?' });
      m.push({ role: 'assistant', content: 'At step ' + t + ' keep ' + (10 + t % 5) + '% for savings, pay the rent first, and review the ' + (3 + i % 9) + ' items you listed before the end of the month.' });
    }
    return m;
  });
  // postcard, as serde writes app::corpus::lean::Lean: unsigned numbers and lengths as
  // LEB128 varints, a string as its byte length then its bytes, an Option as 0, or 1 then the
  // value, a Vec as its length then its items, Role as its variant's index.
  const lean = (name, messages, countedIn) => {
    const out = [];
    const varint = (n) => { while (n >= 0x80) { out.push((n % 0x80) | 0x80); n = Math.floor(n / 0x80); } out.push(n); };
    const str = (s) => { const b = enc.encode(s); varint(b.length); for (const x of b) out.push(x); };
    const role = { system: 0, user: 1, assistant: 2, tool: 3 };
    str(name);
    str('You are a careful budgeting coach.');
    if (countedIn) { out.push(1); str(countedIn); } else out.push(0);
    varint(0); // pinned facts
    varint(messages.length);
    messages.forEach((m, k) => {
      varint(role[m.role]);
      str(m.content);
      varint(Math.ceil(enc.encode(m.content).length / 4)); // tokens
      varint(k * 1000); // at_ms
      varint(0); // calls
      out.push(0); // call_id
      out.push(0); // tool_name
      varint(0); // placeholders
    });
    return new Uint8Array(out);
  };
  const messages = generate(0);
  const texts = messages.map((m) => JSON.stringify(m));
  const counted = messages.map((m, i) => lean('Conversation ' + i, m, null));
  const kept = messages.map((m, i) => lean('Conversation ' + i, m, 'o200k_base'));
  // Other texts, to warm a worker on without filling its cache with the timed ones.
  const warm = generate(1000000).map((m, i) => lean('Warm-up ' + i, m, null));
  // The pool's batch format: a count, then per conversation its index, source and lean form,
  // each number a little-endian u32 and each string or form its byte length then its bytes.
  const frame = (first, parts) => {
    const size = 4 + parts.reduce((n, p) => n + 12 + 6 + p.length, 0);
    const buf = new ArrayBuffer(size);
    const view = new DataView(buf);
    const bytes = new Uint8Array(buf);
    let at = 0;
    view.setUint32(at, parts.length, true); at += 4;
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
  const run = async (workers, forms = counted) => {
    const batch = 8;
    let next = 0, rows = 0, batches = 0;
    // The main thread's own time: framing and posting each batch (the hand-over), and reading
    // each answer. No two of these overlap, whatever the number of workers: the serial part.
    let handMs = 0, readMs = 0;
    const t = performance.now();
    await Promise.all(workers.map((w) => new Promise((ok, no) => {
      const give = () => {
        if (next >= forms.length) return ok();
        const h = performance.now();
        const first = next; next = Math.min(next + batch, forms.length);
        const buf = frame(first, forms.slice(first, next));
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
  // The page's counts kept against counted by the worker, one worker each, warmed on other
  // texts; five times, alternating, so both see the same machine.
  const keptMs = [], countedMs = [];
  for (let k = 0; k < 5; k++) {
    for (const [forms, into] of [[kept, keptMs], [counted, countedMs]]) {
      const [w] = await start(1);
      await run([w], warm);
      into.push((await run([w], forms)).ms);
      w.terminate();
    }
  }
  // The hand-over on the main thread: strings (structured clone) against transferred bytes.
  const sink = new Worker(URL.createObjectURL(new Blob(['onmessage = () => {}'], { type: 'text/javascript' })));
  const time = (f) => { const t = performance.now(); for (let k = 0; k < 5; k++) f(); return (performance.now() - t) / 5; };
  const stringsMs = time(() => sink.postMessage(texts));
  const bytesMs = time(() => { const b = frame(0, counted); sink.postMessage(b, [b]); });
  sink.terminate();
  const mb = texts.reduce((n, t) => n + t.length, 0) / 1e6;
  return { cores, scaling, stringsMs, bytesMs, mb, keptMs, countedMs };
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
  console.log(`    as the lean forms framed, transferred      ${r.bytesMs.toFixed(1).padStart(7)} ms, ${per(r.bytesMs)} (the forms written beforehand)`)
  console.log(`    ratio strings / bytes                      ${(r.stringsMs / r.bytesMs).toFixed(2)}`)
  console.log(`    a worker's time per conversation (1 worker) ${per(one)}: the hand-over is ${((100 * r.bytesMs) / one).toFixed(2)}% of it as bytes`)

  // The page's counts kept against counted, per conversation, every run.
  console.log(`\n  a worker's time per conversation (1 worker, warmed on other texts), the page's counts:`)
  console.log(`    kept (vouched for in o200k_base)            ${r.keptMs.map(per).join(', ')}`)
  console.log(`    counted by the worker (vouched for in none) ${r.countedMs.map(per).join(', ')}`)
  const ratios = r.keptMs.map((k, n) => k / r.countedMs[n])
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  console.log(`    kept / counted ${ratios.map((x) => x.toFixed(2)).join(', ')}; medians ${per(median(r.keptMs))} against ${per(median(r.countedMs))}, ratio of the medians ${(median(r.keptMs) / median(r.countedMs)).toFixed(2)}`)

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
