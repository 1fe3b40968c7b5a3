// Summary memory for a LangChain.js v1 agent, exported from Summary Memory.
//
// LangChain.js's summarizationMiddleware runs before each model call: once the stored messages
// reach TRIGGER it replaces the older ones with one summary message and keeps KEEP of the
// newest. Run it with `npm install langchain@1.5.14 @langchain/core @langchain/langgraph
// @langchain/openai` and OPENAI_API_KEY set (the key is read from the environment and never
// written here): `node summary_memory_langchain.mjs`.
import { createAgent, summarizationMiddleware } from "langchain";
import { MemorySaver } from "@langchain/langgraph";

export const BASE_URL = "https://api.openai.com/v1";
export const CHAT_MODEL = "gpt-4o-mini";
export const SUMMARY_MODEL = "gpt-4o-mini";
// The window a fraction is taken of: the middleware reads it from the model's profile.
export const MAX_INPUT_TOKENS = 128000;
// When to summarise and what stays verbatim, in the middleware's own terms. One thing the app's
// dry run leaves out: a cut by tokens keeps the newest message even when it alone is larger.
export const TRIGGER = { messages: 12 };
export const KEEP = { messages: 4 };
// The counter TRIGGER and KEEP are measured with, as your policy is: null is the library's own
// default, countTokensApproximately (the one modelled); ["o200k_base", false] is exact tiktoken
// counts of each message's text and tool calls, as if you passed a tiktoken counter (true adds
// the chat format's 3 tokens and role a message, and 3 a request).
export const COUNTER = ["o200k_base", false];

// What the summariser is told: your prompt, word limit, must-keep list and pinned facts.
export const SUMMARY_PROMPT = "Summarise the conversation so far {briefly}, keeping \"every figure\".";
export const WORD_LIMIT = 150;
export const MUST_KEEP = [];
export const PINNED = [];

/** The summariser's instructions, joined from the parts above. */
export function summaryInstructions() {
  const parts = [SUMMARY_PROMPT];
  if (WORD_LIMIT) parts.push(`Keep the summary under ${WORD_LIMIT} words.`);
  if (MUST_KEEP.length) parts.push(`Always keep: ${MUST_KEEP.join("; ")}.`);
  if (PINNED.length) parts.push(`These facts must survive word for word: ${PINNED.join("; ")}.`);
  return parts.join("\n\n");
}

/** The middleware's summaryPrompt: it puts the messages in place of the first "{messages}"
 * (a plain replace, so no other brace needs escaping). */
export function summaryPrompt() {
  return `${summaryInstructions()}\n\nThe messages to summarise:\n{messages}`;
}

/** An OpenAI-compatible chat model at BASE_URL, with the window in its profile. */
export async function openaiModel(name) {
  const { ChatOpenAI } = await import("@langchain/openai");
  const model = new ChatOpenAI({ model: name, configuration: { baseURL: BASE_URL } });
  Object.defineProperty(model, "profile", { value: { ...(model.profile ?? {}), maxInputTokens: MAX_INPUT_TOKENS } });
  return model;
}

/** A tokenCounter of exact tiktoken counts (js-tiktoken, which @langchain/core brings): each
 * message's text, and each tool call's name and arguments (as JSON); with chat, 3 tokens and
 * the role's a message and 3 a request. */
export async function tiktokenCounter(encodingName, chat) {
  const { getEncoding } = await import("js-tiktoken");
  const encoding = getEncoding(encodingName);
  const roles = { human: "user", ai: "assistant", system: "system", tool: "tool" };
  const tokens = (text) => encoding.encode(text).length;
  return (messages) => {
    let total = chat ? 3 : 0;
    for (const message of messages) {
      total += tokens(typeof message.content === "string" ? message.content : message.text);
      for (const call of message.tool_calls ?? []) total += tokens(call.name) + tokens(JSON.stringify(call.args));
      if (chat) {
        const type = message.getType();
        total += 3 + tokens(roles[type] ?? type);
      }
    }
    return total;
  };
}

/** The middleware, counting with COUNTER's counter; pass any function of a message list to
 * count otherwise. */
export async function makeMiddleware({ summariser, tokenCounter } = {}) {
  const counter = tokenCounter ?? (COUNTER ? await tiktokenCounter(...COUNTER) : undefined);
  return summarizationMiddleware({
    model: summariser ?? (await openaiModel(SUMMARY_MODEL)),
    trigger: TRIGGER,
    keep: KEEP,
    summaryPrompt: summaryPrompt(),
    ...(counter ? { tokenCounter: counter } : {}),
  });
}

/** An agent with the middleware. The checkpointer keeps each thread's messages, which is where
 * the summary lives. */
export async function makeAgent({ model, summariser, tokenCounter, tools = [], systemPrompt, checkpointer } = {}) {
  return createAgent({
    model: model ?? (await openaiModel(CHAT_MODEL)),
    tools,
    systemPrompt,
    middleware: [await makeMiddleware({ summariser, tokenCounter })],
    checkpointer: checkpointer ?? new MemorySaver(),
  });
}

// Run as a program: a chat on the command line, one thread.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { createInterface } = await import("node:readline/promises");
  const agent = await makeAgent({ systemPrompt: "You are a helpful assistant." });
  const config = { configurable: { thread_id: "summary-memory" } };
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  for (let line; (line = (await rl.question("you> ")).trim()); ) {
    const reply = await agent.invoke({ messages: [{ role: "user", content: line }] }, config);
    console.log("assistant>", reply.messages.at(-1).content);
  }
  rl.close();
}
