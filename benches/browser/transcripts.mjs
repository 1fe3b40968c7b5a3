// Browser benchmark: importing a ChatGPT data export of 1,000 conversations (about 5 MB) through
// Inspect's file input in the release build, in headless Chromium, against the browser's own
// JSON.parse of the same file, measured in the same page and the same run.
//
// The export is generated in the page: each conversation is a `mapping` tree as a real
// `conversations.json` holds it (a null root, an empty system node, then user and assistant
// nodes, with one abandoned branch per conversation so the import has to follow `current_node`),
// so no large fixture is committed. The import is timed from the change event until the page
// says it read all 1,000 conversations (`import-format`, `data-count`): reading, following every
// tree, checking and exactly counting every message, and adding each session to the library.
//
// Usage (from the repository root, after `trunk build --release --offline`):
//   node benches/browser/transcripts.mjs
// Environment: SM_DIST (default dist), SM_BENCH_CONVERSATIONS (default 1000),
// SM_BENCH_BYTES (target size, default 5000000), SM_BENCH_RUNS (default 3).

import { serve, sleep, withChromium } from './chromium.mjs'

const conversations = Number(process.env.SM_BENCH_CONVERSATIONS ?? 1000)
const bytes = Number(process.env.SM_BENCH_BYTES ?? 5_000_000)
const runs = Number(process.env.SM_BENCH_RUNS ?? 3)

const clearStorage = `
const done = arguments[arguments.length - 1];
const r = indexedDB.deleteDatabase('summary-memory');
r.onsuccess = r.onerror = r.onblocked = () => done(true);
`

const inPage = `
const done = arguments[arguments.length - 1];
(async (conversations, bytes) => {
  const until = async (test) => { while (!test()) await new Promise((ok) => setTimeout(ok, 0)); };
  const q = (s) => document.querySelector(s);
  // Prose of ordinary words, varied so the token cache does not see one text a thousand times.
  const words = 'the route along the river takes four days and the campsites cost eighteen euros a night while food and repairs need the rest of the budget we planned in spring'.split(' ');
  let seed = 7;
  const prose = (n) => {
    const out = [];
    for (let i = 0; i < n; i++) { seed = (seed * 1103515245 + 12345) % 2147483648; out.push(words[seed % words.length]); }
    return out.join(' ') + '.';
  };
  const perConversation = bytes / conversations;
  // About 5.8 bytes a word; eight messages share what a conversation's JSON has beside its text.
  const wordsPerMessage = Math.max(8, Math.round((perConversation - 3200) / 8 / 5.8));
  const node = (id, parent, children, role, text, t) => ({
    id, parent, children,
    message: role === null ? null : {
      id, author: { role, name: null, metadata: {} }, create_time: t, update_time: null,
      content: { content_type: 'text', parts: [text] }, status: 'finished_successfully',
      end_turn: role === 'assistant', weight: 1, metadata: {}, recipient: 'all',
    },
  });
  const list = [];
  for (let c = 0; c < conversations; c++) {
    const mapping = {};
    const ids = ['root', 'sys'];
    mapping.root = node('root', null, ['sys'], null, '', 0);
    mapping.sys = node('sys', 'root', ['m0'], 'system', '', null);
    let parent = 'sys';
    for (let m = 0; m < 8; m++) {
      const id = 'm' + m;
      mapping[id] = node(id, parent, m < 7 ? ['m' + (m + 1)] : [], m % 2 === 0 ? 'user' : 'assistant', prose(wordsPerMessage), 1714000000 + c * 100 + m);
      mapping[parent].children = mapping[parent].children.filter((x) => x !== id).concat(id);
      parent = id;
    }
    // An abandoned regeneration of the first reply.
    mapping.alt = node('alt', 'm0', [], 'assistant', prose(20), 1714000000 + c * 100);
    mapping.m0.children.unshift('alt');
    list.push({ title: 'Conversation ' + (c + 1), create_time: 1714000000 + c * 100, update_time: 1714000000 + c * 100 + 9, mapping, current_node: 'm7', conversation_id: 'c-' + c });
  }
  const text = JSON.stringify(list);

  let t = performance.now();
  const parsed = JSON.parse(text);
  const parseMs = performance.now() - t;

  const input = q("[data-testid='import-file']");
  const files = new DataTransfer();
  files.items.add(new File([text], 'conversations.json', { type: 'application/json' }));
  input.files = files.files;
  t = performance.now();
  input.dispatchEvent(new Event('change', { bubbles: true }));
  await until(() => q("[data-testid='import-format'][data-count='" + conversations + "']") || q("[data-testid='error']"));
  const importMs = performance.now() - t;
  const error = q("[data-testid='error']");
  if (error) return { error: error.textContent };
  return { bytes: text.length, conversations: parsed.length, parseMs, importMs, note: q("[data-testid='import-format']").textContent };
})(arguments[0], arguments[1]).then(done, (e) => done({ error: String(e && e.stack || e) }));
`

await withChromium(await serve(), async (page) => {
  const results = []
  for (let i = 0; i < runs; i++) {
    await page.goto(`${page.app}?tab=inspect`)
    await page.async(clearStorage)
    await page.goto(`${page.app}?tab=inspect`)
    for (let j = 0; j < 400; j++) {
      // The vocabulary first: the import counts every message exactly.
      const ready = await page.sync("return !!(document.querySelector(\"[data-testid='import-file']\") && performance.getEntriesByName('sm-vocab-loaded-o200k_base').length > 0)")
      if (ready) break
      await sleep(50)
    }
    const r = await page.async(inPage, [conversations, bytes])
    if (r.error) throw new Error(r.error)
    results.push(r)
  }
  const median = (key) => {
    const v = results.map((r) => r[key]).sort((a, b) => a - b)
    return v[Math.floor(v.length / 2)]
  }
  const r = results[0]
  const fmt = (n) => n.toFixed(0).padStart(6)
  console.log(`Chromium, a ChatGPT export: ${r.conversations} conversations, ${(r.bytes / 1e6).toFixed(2)} MB of JSON; median of ${runs} runs`)
  console.log(`  page says: ${r.note}\n`)
  console.log(`  JSON.parse of the file (peer)                     ${fmt(median('parseMs'))} ms`)
  console.log(`  import until the page names the 1,000 read        ${fmt(median('importMs'))} ms`)
  console.log(`\n  ratio import / JSON.parse                          ${(median('importMs') / median('parseMs')).toFixed(1)}`)
})
