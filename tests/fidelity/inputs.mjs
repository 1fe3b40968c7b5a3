// The Gemini CLI driver's summariser: what each call is given, recorded, and a text that
// depends on it. The same contract as inputs.py (read it there): the summaries (by their marks)
// and the conversation messages (by their content) found in what the call is given, in order;
// `S<k>` then 1 + tokens / SPREAD words `d<FNV-1a of the canonical form, 8 hex digits>`.

export const INPUT_MARK = /\bS(\d+)((?: d[0-9a-f]{8})+)(?![0-9a-zA-Z])/g;
const SPREAD = 16;

const words = (text) => (text.trim() === '' ? 0 : text.trim().split(/\s+/).length);

function fnv1a32(text) {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'ascii')) {
    h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function summaryText(call, canonical, tokens) {
  const digest = `d${fnv1a32(canonical).toString(16).padStart(8, '0')}`;
  return [`S${call}`, ...Array(1 + Math.floor(tokens / SPREAD)).fill(digest)].join(' ');
}

// Gemini CLI's count of conversation message `index`, as the driver's partTokens counts it:
// the words of its content and of each call's name and compact JSON arguments.
export function geminiTokens(conversation) {
  return (index) => {
    const m = conversation.messages[index];
    return words(m.content) + (m.tool_calls ?? []).reduce((n, c) => n + words(c.name) + words(JSON.stringify(JSON.parse(c.arguments))), 0);
  };
}

export class InputSummariser {
  calls = 0;
  inputs = [];

  constructor(conversation, tokensOf) {
    this.conversation = conversation;
    this.tokensOf = tokensOf;
  }

  // The texts a model call is given (`contents`): text parts and tool results, in order.
  static textOf(contents) {
    return contents
      .flatMap((c) => c.parts ?? [])
      .map((p) => (typeof p.text === 'string' ? p.text : p.functionResponse ? String(p.functionResponse.response?.output ?? '') : ''))
      .join('\n');
  }

  next(text) {
    this.calls += 1;
    const found = [];
    for (const m of text.matchAll(INPUT_MARK)) {
      found.push({ from: m.index, to: m.index + m[0].length, entry: { kind: 'summary', summary: Number(m[1]) }, tokens: words(m[0]) });
    }
    this.conversation.messages.forEach((message, index) => {
      const at = message.content ? text.indexOf(message.content) : -1;
      if (at >= 0) found.push({ from: at, to: at + message.content.length, entry: { kind: 'verbatim', index }, tokens: this.tokensOf(index) });
    });
    const kept = found.filter((f) => !found.some((o) => o !== f && o.from <= f.from && f.to <= o.to && o.to - o.from > f.to - f.from));
    kept.sort((a, b) => a.from - b.from || b.to - a.to);
    const tokens = kept.reduce((n, f) => n + f.tokens, 0);
    const canonical = kept.map((f) => (f.entry.kind === 'summary' ? `S${f.entry.summary}` : String(f.entry.index))).join(' ');
    this.inputs.push({ call: this.calls, folds: kept.map((f) => f.entry), tokens });
    return summaryText(this.calls, canonical, tokens);
  }
}
