// Browser benchmark: importing a Claude.ai data export of 1,000 conversations (about 5 MB)
// through Inspect's file input, in headless Chromium, against the browser's own JSON.parse of
// the same file, measured in the same page and the same run.
//
// The export is generated in the page, shaped as a real `conversations.json` is (checked
// against yaleman/anthropic-data `tests/data/conversations.json`): each conversation has a
// `name`, an `account`, and `chat_messages` linked by `parent_message_uuid`, each with `content`
// blocks (`text` with `citations`, and a `thinking` block on every reply, which the import
// drops), a `text` that runs them together, `attachments` and `files`, plus one retried reply
// per conversation, an abandoned branch that the import has to leave out by following the
// newest leaf. So no large fixture is committed. The import is timed from the change event
// until the page says it read all 1,000 (`import-format`, `data-count`): reading, choosing each
// branch, checking and exactly counting every message, and adding each session to the library.
//
// Usage (from the repository root, after `trunk build --release --offline`):
//   node benches/browser/claude_export.mjs
// Environment: SM_DIST (default dist; a debug dist is slower, and says so in the output),
// SM_BENCH_CONVERSATIONS (default 1000), SM_BENCH_BYTES (target size, default 5000000),
// SM_BENCH_RUNS (default 3).

import { serve, sleep, withChromium, dist } from './chromium.mjs'

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
  const words = 'the ferry leaves at seven and the hostel by the harbour costs thirty euros while the museum pass covers four days of the trip we planned last winter'.split(' ');
  let seed = 11;
  const prose = (n) => {
    const out = [];
    for (let i = 0; i < n; i++) { seed = (seed * 1103515245 + 12345) % 2147483648; out.push(words[seed % words.length]); }
    return out.join(' ') + '.';
  };
  const perConversation = bytes / conversations;
  // About 5.8 bytes a word; eight messages share what a conversation's JSON has beside its text,
  // and a reply's text is written twice (its block and its \`text\`), its thinking once more.
  const wordsPerMessage = Math.max(8, Math.round((perConversation - 5200) / 18 / 5.8));
  const root = '00000000-0000-4000-8000-000000000000';
  const stamp = (c, m) => new Date(Date.UTC(2025, 0, 1) + c * 3600000 + m * 60000).toISOString().replace('Z', '000Z');
  const message = (c, m, uuid, parent, sender, answer) => {
    const thinking = sender === 'assistant' ? prose(Math.round(wordsPerMessage / 3)) : '';
    const content = [];
    if (thinking) content.push({ start_timestamp: stamp(c, m), stop_timestamp: stamp(c, m), flags: null, type: 'thinking', thinking, summaries: [{ summary: 'Thinking about it' }], cut_off: false });
    content.push({ start_timestamp: stamp(c, m), stop_timestamp: stamp(c, m), flags: null, type: 'text', text: answer, citations: [] });
    return { uuid, text: thinking + answer, content, sender, created_at: stamp(c, m), updated_at: stamp(c, m), attachments: m === 0 ? [{ file_name: 'notes.txt', file_size: 120, file_type: 'txt', extracted_content: prose(12) }] : [], files: [], parent_message_uuid: parent };
  };
  const list = [];
  for (let c = 0; c < conversations; c++) {
    const chat = [];
    let parent = root;
    for (let m = 0; m < 8; m++) {
      const uuid = 'c' + c + '-m' + m;
      chat.push(message(c, m, uuid, parent, m % 2 === 0 ? 'human' : 'assistant', prose(wordsPerMessage)));
      parent = uuid;
    }
    // A retried first reply, older than the one the conversation went on from.
    chat.splice(2, 0, message(c, 0, 'c' + c + '-retry', 'c' + c + '-m0', 'assistant', prose(20)));
    list.push({ uuid: 'conv-' + c, name: 'Conversation ' + (c + 1), summary: '', created_at: stamp(c, 0), updated_at: stamp(c, 9), account: { uuid: 'acc-1' }, chat_messages: chat });
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
  const note = q("[data-testid='import-format']");
  return { bytes: text.length, conversations: parsed.length, parseMs, importMs, format: note.getAttribute('data-format'), note: note.textContent };
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
    if (r.format !== 'claude-export') throw new Error(`read as ${r.format}, not claude-export`)
    results.push(r)
  }
  const median = (key) => {
    const v = results.map((r) => r[key]).sort((a, b) => a - b)
    return v[Math.floor(v.length / 2)]
  }
  const r = results[0]
  const fmt = (n) => n.toFixed(0).padStart(6)
  console.log(`Chromium, a Claude.ai export: ${r.conversations} conversations, ${(r.bytes / 1e6).toFixed(2)} MB of JSON; median of ${runs} runs; dist ${dist}`)
  console.log(`  page says: ${r.note}\n`)
  console.log(`  JSON.parse of the file (peer)                     ${fmt(median('parseMs'))} ms`)
  console.log(`  import until the page names the ${conversations} read       ${fmt(median('importMs'))} ms`)
  console.log(`\n  ratio import / JSON.parse                          ${(median('importMs') / median('parseMs')).toFixed(1)}`)
  console.log(`  under 2 s (issue 24)                              ${median('importMs') < 2000 ? 'yes' : 'NO'}`)
})
