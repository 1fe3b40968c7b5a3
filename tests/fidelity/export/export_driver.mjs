#!/usr/bin/env node
// Runs every exported JavaScript snippet (tests/fidelity/export/snippets/<target>/<case>.mjs),
// imported as it is, in the real library with the tier's fakes, on every fidelity conversation,
// and writes export-traces/<target>/<case>-<shape>.json in the tier's trace format (the one
// ../common.py writes: each request message is the system prompt, a summary `S<k>`, a
// conversation message by index, or text the library adds).
//
// Node.js resolves a snippet's bare imports ("langchain") from the snippet's own folder, so
// each snippet is copied byte for byte next to the pinned node_modules and imported from there.
// The snippet's factory takes the models and the counter: the driver hands it a recording chat
// model that answers from the script, a fake summariser that writes `S<k>` and 19 `w`, and the
// contract's word counter (a message is the words of its content and of each tool call's name
// and arguments as the conversation file writes them).
//
// Usage: node export_driver.mjs <out_dir> <node_modules dir> [<target-slug>...]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(process.argv[2] ?? path.join(here, '..', 'export-traces'));
const modules = process.argv[3];
if (!modules || !fs.existsSync(path.join(modules, 'langchain', 'package.json'))) {
  console.error(`export_driver: the second argument must be the node_modules directory holding langchain (got ${modules}); run scripts/tools.sh --fidelity`);
  process.exit(2);
}
const load = (spec) => import(pathToFileURL(path.join(modules, spec)).href);
const { BaseChatModel } = await load('@langchain/core/dist/language_models/chat_models.js');
const { AIMessage, HumanMessage } = await load('@langchain/core/dist/messages/index.js');
const { tool } = await load('@langchain/core/dist/tools/index.js');
const { z } = await load('zod/index.js');
const langchainVersion = JSON.parse(fs.readFileSync(path.join(modules, 'langchain', 'package.json'), 'utf8')).version;

const conversationsDir = path.join(here, '..', 'conversations');
const words = (text) => (text.trim() === '' ? 0 : text.trim().split(/\s+/).length);
const SUMMARY_MARK = /\bS(\d+)(?: w){19}\b/g;

function textOf(message) {
  const content = message.content;
  if (typeof content === 'string') return content;
  return content.map((b) => (typeof b === 'string' ? b : b.text ?? '')).join('');
}

const ROLES = { system: 'system', human: 'user', ai: 'assistant', tool: 'tool' };

/** The tier's description of one request message, as ../common.py's Trace.entry writes it. */
function entry(conversation, byContent, role, text) {
  if (role === 'system' && text === conversation.system) return { kind: 'system' };
  const marks = [...text.matchAll(SUMMARY_MARK)].map((m) => Number(m[1]));
  if (marks.length) return { kind: 'summary', summary: Math.max(...marks), role, text };
  const index = byContent.get(text);
  if (index !== undefined && conversation.messages[index].role === role) return { kind: 'verbatim', index };
  for (const [i, m] of conversation.messages.entries()) {
    if (m.role === role && m.content && text && (text.includes(m.content) || m.content.includes(text))) return { kind: 'altered', index: i, text };
  }
  return { kind: 'fixed', role, text };
}

class RecordingChat extends BaseChatModel {
  constructor(script) {
    super({});
    this.script = script;
    this.requests = [];
  }
  _llmType() {
    return 'fidelity-fake';
  }
  bindTools() {
    // The agent binds its tools; the script already says which calls the model makes.
    return this;
  }
  async _generate(messages) {
    this.requests.push([...messages]);
    const next = this.script.shift();
    if (!next) throw new Error('the chat model was called more often than the conversation has assistant messages');
    const tool_calls = (next.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.arguments), type: 'tool_call' }));
    const message = new AIMessage({ content: next.content, tool_calls });
    return { generations: [{ text: next.content, message }] };
  }
}

class FakeSummariser extends BaseChatModel {
  constructor(maxInputTokens) {
    super({});
    this.calls = 0;
    this.seen = [];
    this.maxInputTokens = maxInputTokens;
  }
  // The window a fraction is taken of, where the snippet's own model carries it (the base
  // class's profile is a getter).
  get profile() {
    return { maxInputTokens: this.maxInputTokens };
  }
  _llmType() {
    return 'fidelity-fake-summariser';
  }
  async _generate(messages) {
    // Each request must carry the snippet's prompt and word limit (checked after the run).
    this.seen.push(messages.map(textOf).join('\n'));
    this.calls += 1;
    const text = [`S${this.calls}`, ...Array(19).fill('w')].join(' ');
    return { generations: [{ text, message: new AIMessage(text) }] };
  }
}

async function run(slug, file, shape, snippet) {
  const conversation = JSON.parse(fs.readFileSync(path.join(conversationsDir, `${shape}.json`), 'ascii'));
  const byContent = new Map(conversation.messages.map((m, i) => [m.content, i]));
  const argsOf = new Map(conversation.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => [c.id, c.arguments])));
  const results = new Map(conversation.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]));
  const counter = (messages) =>
    messages.reduce((sum, m) => sum + words(textOf(m)) + (m.tool_calls ?? []).reduce((s, c) => s + words(c.name) + words(argsOf.get(c.id) ?? JSON.stringify(c.args)), 0), 0);
  const lookup = tool(async (_input, config) => results.get(config.toolCall.id), {
    name: 'lookup',
    description: 'Looks something up.',
    schema: z.object({ query: z.string() }),
  });
  const chat = new RecordingChat(conversation.messages.filter((m) => m.role === 'assistant'));
  const summariser = new FakeSummariser(snippet.MAX_INPUT_TOKENS);
  const agent = await snippet.makeAgent({ model: chat, summariser, tokenCounter: counter, tools: [lookup], systemPrompt: conversation.system });
  const config = { configurable: { thread_id: shape } };
  for (const message of conversation.messages) {
    if (message.role === 'user') await agent.invoke({ messages: [new HumanMessage(message.content)] }, config);
  }
  if (chat.script.length) throw new Error(`${shape}: ${chat.script.length} scripted assistant messages were never asked for`);
  for (const text of summariser.seen) {
    if (!text.includes(snippet.SUMMARY_PROMPT) || !text.includes(`under ${snippet.WORD_LIMIT} words`)) {
      throw new Error(`${file} on ${shape}: a summariser request lacks the snippet's prompt or word limit: ${text.slice(0, 200)}`);
    }
  }
  const requests = chat.requests.map((request, i) => {
    const messages = request.map((m) => entry(conversation, byContent, ROLES[m._getType()], textOf(m)));
    let answers = null;
    for (const e of messages) if (e.kind === 'verbatim' && ['user', 'tool'].includes(conversation.messages[e.index].role)) answers = e.index;
    if (answers === null) throw new Error(`${shape}: request ${i + 1} holds no user or tool message of the conversation`);
    return { request: i + 1, answers, messages };
  });
  const caseName = path.basename(file, '.mjs').replaceAll('_', '-');
  const body = {
    library: 'langchain',
    version: langchainVersion,
    source: 'dist/agents/middleware/summarization.js',
    params: { target: slug, case: caseName },
    shape,
    summariser_calls: summariser.calls,
    requests,
    notes: ['The snippet is imported unmodified (copied byte for byte next to node_modules); the driver passes the fake summariser, the recording chat model and the contract\'s word counter to its factory.'],
  };
  const target = path.join(out, slug, `${caseName}-${shape}.json`);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, JSON.stringify(body, null, 1) + '\n', 'ascii');
  return target;
}

// Each JavaScript target; a new one is one entry (and its snippets in snippets/<slug>/).
const TARGETS = ['langchain-middleware-js'];
const wanted = process.argv.slice(4).length ? process.argv.slice(4) : TARGETS;
const shapes = fs.readdirSync(conversationsDir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
const scratch = fs.mkdtempSync(path.join(path.dirname(modules), 'snippets-'));
try {
  for (const slug of wanted) {
    const dir = path.join(here, 'snippets', slug);
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.mjs')).sort()) {
      const copy = path.join(scratch, `${slug}-${file}`);
      fs.copyFileSync(path.join(dir, file), copy);
      const snippet = await import(pathToFileURL(copy).href);
      for (const shape of shapes) console.log(await run(slug, file, shape, snippet));
    }
  }
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
