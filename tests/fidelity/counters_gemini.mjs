// Gemini CLI's own token estimate (estimateTokenCountSync, what its compression check reads
// after a compression and before the first reported usage) over the counter corpus, for
// counters.py. Each message becomes the Content the CLI holds, as gemini_cli_driver.mjs builds
// it: a text part (an assistant's even when empty), a functionCall part per call with its
// arguments parsed (kept as the string when they do not parse), and a tool's result as a
// functionResponse part {id, name, response: {output}}.
//
// Usage: node counters_gemini.mjs <conversations.json> <node_modules>; prints JSON.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [corpusPath, modules] = process.argv.slice(2);
if (!corpusPath || !modules) {
  console.error('counters_gemini: usage: node counters_gemini.mjs <conversations.json> <node_modules>');
  process.exit(2);
}
const pkgDir = path.join(modules, '@google', 'gemini-cli-core');
if (!fs.existsSync(path.join(pkgDir, 'package.json'))) {
  console.error(`counters_gemini: ${pkgDir} is missing; install it with scripts/tools.sh --fidelity`);
  process.exit(2);
}
const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
const { estimateTokenCountSync } = await import(
  pathToFileURL(path.join(pkgDir, 'dist', 'src', 'utils', 'tokenCalculation.js')).href
);

function parts(message) {
  if (message.role === 'tool') {
    return [{
      functionResponse: {
        id: message.tool_call_id ?? '',
        name: message.name ?? '',
        response: { output: message.content },
      },
    }];
  }
  const out = [{ text: message.content }];
  for (const call of message.tool_calls ?? []) {
    let args;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      args = call.arguments;
    }
    out.push({ functionCall: { id: call.id, name: call.name, args } });
  }
  return out;
}

const corpus = JSON.parse(fs.readFileSync(corpusPath, 'utf8')).conversations;
const counts = {};
for (const conversation of corpus) {
  const each = conversation.messages.map(parts);
  counts[conversation.name] = {
    messages: each.map((p) => estimateTokenCountSync(p)),
    total: estimateTokenCountSync(each.flat()),
  };
}
process.stdout.write(JSON.stringify({ version: pkg.version, counts }));
