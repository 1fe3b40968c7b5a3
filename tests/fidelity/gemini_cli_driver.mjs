#!/usr/bin/env node
// Drives Gemini CLI's real ChatCompressionService (@google/gemini-cli-core, dist/src/context/
// chatCompressionService.js) through every fidelity conversation and writes
// traces/gemini-cli/<shape>.json.
//
// The service is called as the CLI's client calls it (dist/src/core/client.js, 0.61.0:
// `sendMessageStream` runs `tryCompressChat` before every request, the user's and each
// tool-result continuation; a COMPRESSED result starts a new chat from the new history through
// `getInitialChatHistory`, which puts the environment context first; an inflated result sets
// `hasFailedCompressionAttempt`). The chat is a small stand-in for GeminiChat holding the
// history as Content objects and the previous request's prompt token count as a server reports
// it; the content generator is a fake that reports, as the prompt's tokens, the contract's word
// count of the whole request. Both compression model calls go to the fake summariser.
//
// Then again with the CLI's own counter (traces/gemini-cli/default-counter/<shape>.json): the
// CLI fires on the usage its server reports, which no offline run has; here the fake server
// reports the CLI's own character estimate (estimateTokenCountSync, what the CLI itself counts
// a history with before the first reply after a compression, and in its inflation check) of
// each message of the request, and the summariser writes the contract's fixed summary.
//
// Usage: node tests/fidelity/gemini_cli_driver.mjs <out_dir> <node_modules dir holding the package>
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { InputSummariser, INPUT_MARK, geminiTokens } from './inputs.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(process.argv[2] ?? path.join(here, 'traces'));
const modules = process.argv[3];
if (!modules) {
  console.error('gemini_cli_driver: the second argument must be the node_modules directory holding @google/gemini-cli-core');
  process.exit(2);
}
const pkgDir = path.join(modules, '@google', 'gemini-cli-core');
if (!fs.existsSync(path.join(pkgDir, 'package.json'))) {
  console.error(`gemini_cli_driver: ${pkgDir} is missing; install it with scripts/tools.sh --fidelity`);
  process.exit(2);
}
// The telemetry attributes read (and on first use write) an installation id under ~/.gemini; a
// scratch home keeps the user's own one out of it, and is removed when the driver ends (done,
// failed or interrupted).
const scratchHome = fs.mkdtempSync(path.join(os.tmpdir(), 'gemini-fidelity-home-'));
process.env.HOME = scratchHome;
process.on('exit', () => fs.rmSync(scratchHome, { recursive: true, force: true }));
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) process.on(signal, () => process.exit(code));
const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
const load = (file) => import(pathToFileURL(path.join(pkgDir, 'dist', 'src', file)).href);
const { ChatCompressionService } = await load('context/chatCompressionService.js');
const { CompressionStatus } = await load('core/turn.js');
const { getInitialChatHistory } = await load('utils/environmentContext.js');
const { estimateTokenCountSync } = await load('utils/tokenCalculation.js');

// The environment context names today's date; a fixed date keeps the traces (and the history's
// character counts, which decide the split) the same from day to day.
const FIXED_DATE = 'Tuesday, December 1, 2026';
Date.prototype.toLocaleDateString = () => FIXED_DATE;

const MODEL = 'gemini-2.5-pro';
const TOKEN_LIMIT = 1_048_576; // tokenLimit('gemini-2.5-pro') in dist/src/core/tokenLimits.js.
const THRESHOLD_TOKENS = 300;
// A threshold that is exactly 300 tokens of the model's limit (300 / 2^20 is exact in binary).
const PARAMS = { model: MODEL, compressionThreshold: THRESHOLD_TOKENS / TOKEN_LIMIT, tokenLimit: TOKEN_LIMIT };
// The Tuner's parameters for the preset in its smallest window (8,192 tokens): the CLI's default
// compressionThreshold 0.5 of that window, 4,096 tokens, as a fraction of the model's limit (exact
// in binary); run with the estimate as the usage into traces/gemini-cli/tuner/.
const TUNER_PARAMS = { model: MODEL, compressionThreshold: 4096 / TOKEN_LIMIT, tokenLimit: TOKEN_LIMIT, tuner_window: 8192 };
const NOTES = [
  'The split point is decided by the real findCompressSplitPoint on JSON.stringify(content).length of each history Content (characters, not the counter); the contents are {"role":"user"|"model","parts":[{"text":...}]} with tool calls as {"functionCall":{"id","name","args"}} parts and results as one user Content of {"functionResponse":{"id","name","response":{"output":...}}} parts.',
  'The history starts with the environment context the real getInitialChatHistory writes (directory tree off, empty session memory, temp dir /tmp/fidelity-gemini, the date fixed to ' + FIXED_DATE + '); it is the fixed user entry first in each request and is compressed with the oldest history.',
  'The previous request\'s prompt token count is the contract\'s word count of that whole request (system instruction, environment context and history), as a server reports usage; the compression compares it with compressionThreshold x tokenLimit and fires at >=.',
  'The service\'s inflation check compares its own character estimate (calculateRequestTokenCount) of the new history with that word count; a compression that would grow it fails and is not retried (hasFailedCompressionAttempt), which the counter cannot replace.',
  'Both model calls of a compression (the snapshot and the verification) go to the fake summariser; the kept summary is the second call\'s text.',
];
const DEFAULT_COUNTER_NOTES = [
  NOTES[0],
  NOTES[1],
  'The previous request\'s prompt token count is the CLI\'s own estimate (estimateTokenCountSync) of that whole request, rounded down per conversation message (a tool-result Content per result): the fake server reports what the CLI itself counts, since a real server\'s usage cannot run offline; the compression compares it with compressionThreshold x tokenLimit and fires at >=.',
  'The service\'s inflation check compares its estimate of the new history with that count. The summariser writes the contract\'s fixed summary (S<k> and 19 w); the kept summary is the second call\'s text.',
];

const words = (text) => (text.trim() === '' ? 0 : text.trim().split(/\s+/).length);


function partTokens(part) {
  if (typeof part.text === 'string') return words(part.text);
  if (part.functionCall) return words(part.functionCall.name) + words(JSON.stringify(part.functionCall.args));
  if (part.functionResponse) return words(part.functionResponse.response.output);
  throw new Error(`gemini_cli_driver: a part the counter does not know: ${JSON.stringify(part)}`);
}

// The CLI's estimate, rounded down per conversation message (each result of a tool-result
// Content on its own), as the engine's Counter::GeminiEstimate sizes a message.
function estimatedTokens(systemInstruction, contents) {
  let total = estimateTokenCountSync([{ text: systemInstruction }]);
  for (const c of contents) {
    if (c.parts.some((p) => p.functionResponse)) {
      for (const part of c.parts) total += estimateTokenCountSync([part]);
    } else {
      total += estimateTokenCountSync(c.parts);
    }
  }
  return total;
}

// The contract's fixed summariser for the default-counter runs: call k writes S<k> and 19 w.
const FIXED_MARK = /\bS(\d+)(?: w){19}\b/g;
class FixedSummariser {
  constructor() {
    this.calls = 0;
    this.inputs = [];
  }

  next() {
    this.calls += 1;
    return [`S${this.calls}`, ...Array(19).fill('w')].join(' ');
  }
}

function fakeConfig(summariser, params) {
  const config = {
    storage: { getProjectTempDir: () => '/tmp/fidelity-gemini' },
    getCompressionThreshold: async () => params.compressionThreshold,
    getHookSystem: () => undefined,
    getNextCompressionTruncationId: () => 0,
    getTruncateToolOutputThreshold: () => 4_000_000,
    getIncludeDirectoryTree: () => false,
    getSessionMemory: () => '',
    getUsageStatisticsEnabled: () => false,
    getActiveModel: () => MODEL,
    // Read by the telemetry the service logs each compression to (nothing is sent: usage
    // statistics are off and no metrics exporter is initialised).
    getExperiments: () => undefined,
    getContentGeneratorConfig: () => undefined,
    getSessionId: () => 'fidelity',
    isInteractive: () => false,
    getApprovedPlanPath: () => undefined,
    getContentGenerator: () => ({ countTokens: async () => ({ totalTokens: 0 }) }),
    getBaseLlmClient: () => ({
      generateContent: async ({ contents }) => ({ candidates: [{ content: { role: 'model', parts: [{ text: summariser.next(InputSummariser.textOf(contents)) }] } }] }),
    }),
  };
  // A method this object lacks fails with "config.<name> is not a function": a change in the
  // package the driver must learn about, not something to answer with a guess. The optional ones
  // (called as `?.()`) are left out on purpose, so the package takes its own defaults.
  // The prompt provider reads the configuration through an agent context's `config`.
  config.config = config;
  return config;
}

function toContents(message) {
  if (message.role === 'user') return { role: 'user', parts: [{ text: message.content }] };
  if (message.role === 'assistant') {
    const parts = [{ text: message.content }];
    for (const call of message.tool_calls ?? []) {
      parts.push({ functionCall: { id: call.id, name: call.name, args: JSON.parse(call.arguments) } });
    }
    return { role: 'model', parts };
  }
  throw new Error(`gemini_cli_driver: no Content for role ${message.role}`);
}

async function run(shape, defaultCounter = false, params = PARAMS, under = undefined) {
  const conversation = JSON.parse(fs.readFileSync(path.join(here, 'conversations', `${shape}.json`), 'utf8'));
  const messages = conversation.messages;
  const byContent = new Map(messages.map((m, i) => [m.content, i]));
  const resultIndex = new Map(messages.flatMap((m, i) => (m.role === 'tool' ? [[m.tool_call_id, i]] : [])));
  const summariser = defaultCounter ? new FixedSummariser() : new InputSummariser(conversation, geminiTokens(conversation));
  const config = fakeConfig(summariser, params);
  const service = new ChatCompressionService();
  const unwrap = (entry) => ('content' in entry ? entry.content : entry);
  const chat = {
    history: (await getInitialChatHistory(config, [])).map(unwrap),
    lastPromptTokenCount: 0,
    getHistory() { return structuredClone(this.history); },
    getLastPromptTokenCount() { return this.lastPromptTokenCount; },
  };
  let hasFailedCompressionAttempt = false;
  const envText = chat.history[0].parts[0].text;
  const requests = [];
  const statuses = [];
  // The chat model: a fake content generator that reports, as the request's prompt tokens, the
  // contract's word count of the whole request (system instruction and every history part).
  const chatModel = defaultCounter ? {
    generateContent: async ({ systemInstruction, contents }) => ({
      candidates: [],
      usageMetadata: { promptTokenCount: estimatedTokens(systemInstruction, contents) },
    }),
  } : {
    generateContent: async ({ systemInstruction, contents }) => ({
      candidates: [],
      usageMetadata: {
        promptTokenCount: words(systemInstruction) + contents.reduce((n, c) => n + c.parts.reduce((m, p) => m + partTokens(p), 0), 0),
      },
    }),
  };
  // The summariser calls each compression made, by the request it came before.
  const compressions = [];

  const entry = (role, part) => {
    if (typeof part.text === 'string') {
      const marks = [...part.text.matchAll(defaultCounter ? FIXED_MARK : INPUT_MARK)].map((m) => Number(m[1]));
      if (marks.length) return { kind: 'summary', summary: Math.max(...marks), role, text: part.text };
      const index = byContent.get(part.text);
      const expected = role === 'model' ? 'assistant' : 'user';
      if (index !== undefined && messages[index].role === expected) return { kind: 'verbatim', index };
      return { kind: 'fixed', role: role === 'model' ? 'assistant' : role, text: part.text };
    }
    if (part.functionResponse) return { kind: 'verbatim', index: resultIndex.get(part.functionResponse.id) };
    return null; // A functionCall part belongs to the model Content's text entry.
  };

  // One request, as GeminiChat sends it: the system instruction, the history and the new content.
  const send = async (content, answers) => {
    const callsBefore = summariser.calls;
    const compressed = await service.compress(chat, `fidelity-${shape}`, false, MODEL, config, hasFailedCompressionAttempt);
    statuses.push(CompressionStatus[compressed.info.compressionStatus] ?? compressed.info.compressionStatus);
    if (summariser.calls > callsBefore) {
      const calls = Array.from({ length: summariser.calls - callsBefore }, (_, i) => `S${callsBefore + i + 1}`);
      compressions.push(`before request ${requests.length + 1}: ${calls.join(' then ')}`);
    }
    if (compressed.info.compressionStatus === CompressionStatus.COMPRESSION_FAILED_INFLATED_TOKEN_COUNT) {
      hasFailedCompressionAttempt = true;
    } else if (compressed.info.compressionStatus === CompressionStatus.COMPRESSED && compressed.newHistory) {
      chat.history = (await getInitialChatHistory(config, compressed.newHistory)).map(unwrap);
      hasFailedCompressionAttempt = false;
    } else if (compressed.info.compressionStatus === CompressionStatus.CONTENT_TRUNCATED && compressed.newHistory) {
      chat.history = compressed.newHistory.map(unwrap);
    }
    chat.history.push(content);
    const listed = [{ kind: 'system' }];
    for (const c of chat.history) {
      for (const part of c.parts) {
        const e = entry(c.role, part);
        if (e) listed.push(e);
      }
    }
    requests.push({ request: requests.length + 1, answers, messages: listed });
    // The model's answer comes from the script (the driver appends it); what matters here is
    // the usage it reports, which GeminiChat keeps as the last prompt token count.
    const response = await chatModel.generateContent({ systemInstruction: conversation.system, contents: chat.history });
    chat.lastPromptTokenCount = response.usageMetadata.promptTokenCount;
  };

  let pendingResults = null;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message.role === 'user') {
      await send(toContents(message), i);
    } else if (message.role === 'assistant') {
      chat.history.push(toContents(message));
      pendingResults = message.tool_calls?.length ? { role: 'user', parts: [] } : null;
    } else {
      pendingResults.parts.push({ functionResponse: { id: message.tool_call_id, name: 'lookup', response: { output: message.content } } });
      if (messages[i + 1]?.role !== 'tool') await send(pendingResults, i);
    }
  }
  const envEntry = { kind: 'fixed', role: 'user', text: envText };
  if (!requests.every((r) => JSON.stringify(r.messages[1]) === JSON.stringify(envEntry) || r.messages[1].kind === 'summary')) {
    throw new Error(`gemini_cli_driver: ${shape}: a request does not start with the environment context`);
  }
  const trace = {
    library: '@google/gemini-cli-core',
    version: pkg.version,
    source: 'dist/src/context/chatCompressionService.js',
    params,
    shape,
    summariser_calls: summariser.calls,
    requests,
    ...(defaultCounter ? {} : { summariser_inputs: summariser.inputs }),
    notes: [
      ...(defaultCounter ? DEFAULT_COUNTER_NOTES : NOTES),
      `compression status before each request: ${statuses.join(' ')}`,
      `the model calls of each compression (snapshot then verification): ${compressions.join('; ') || 'none'}`,
    ],
  };
  const folder = path.join('gemini-cli', under ?? (defaultCounter ? 'default-counter' : ''));
  const file = path.join(out, folder, `${shape}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(trace, null, 1) + '\n');
  // A second directory to copy each trace to, when SM_FIDELITY_SHARE names one.
  const share = process.env.SM_FIDELITY_SHARE;
  if (share) {
    fs.mkdirSync(path.join(share, folder), { recursive: true });
    fs.copyFileSync(file, path.join(share, folder, `${shape}.json`));
  }
  return file;
}

const shapes = fs.readdirSync(path.join(here, 'conversations')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
for (const shape of shapes) console.log(await run(shape));
for (const shape of shapes) console.log(await run(shape, true));
for (const shape of shapes) console.log(await run(shape, true, TUNER_PARAMS, 'tuner'));
