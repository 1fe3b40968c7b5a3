#!/usr/bin/env python3
"""Drives the OpenAI cookbook's SummarizingSession under the real openai-agents Runner through
every fidelity conversation, and writes traces/openai-cookbook-session/<shape>.json.

The session class is not a package: the cookbook defines it in a notebook
(openai/openai-cookbook examples/agents_sdk/session_memory.ipynb, read at commit
12e0c9224d47dee8955edd55883866a05dfe0b72). `SummarizingSession` below is written here from that
notebook's documented behaviour, not copied:
- a turn starts at a real user message (role "user", not marked synthetic); when there are more
  than `context_limit` turns, everything before the start of the last `keep_last_n_turns` turns
  is summarised and replaced by a synthetic pair, user "Summarize the conversation we had so
  far." then the summary as the assistant message;
- items are stored as the model sees them: only `role`, `content` and `name` are kept, a
  missing role becomes "user" and a missing content the item's `str()` (so the Runner's
  function-call and function-call-output items come back as user messages, and count as turn
  starts: the notebook's own output shows a reasoning item stored that way).
The model is the SDK's own `agents.testing.ScriptedModel`, which records every call; the tool
`lookup` answers each call with its scripted result.
"""

import asyncio
import re
from importlib.metadata import version
from typing import Any

from agents import Agent, Runner, function_tool, set_tracing_disabled
from agents.memory.session import SessionABC
from agents.testing.model import ModelStep, ScriptedModel, assistant_message, function_call
from agents.tool_context import ToolContext

from common import Trace, load, shapes
from inputs import InputSummariser, contract_tokens

SLUG = "openai-cookbook-session"
PARAMS = {"keep_last_n_turns": 2, "context_limit": 4}
NOTES = [
    "SummarizingSession is written from the cookbook notebook's behaviour (it is not a package); the notebook's re-check after the asynchronous summary call is left out, since nothing runs concurrently here.",
    "The Runner's function_call and function_call_output items lose their type when stored (only role, content and name are kept), so on later turns they are user messages holding the item's str() and each counts as a turn start; they appear as 'altered' entries.",
    "The summariser ignores the notebook's LLMSummarizer prompt and its 200-word limit; what it is given (the items before the kept turns) is recorded under summariser_inputs, and the pair it returns.",
]
SHADOW = "Summarize the conversation we had so far."


class SummarizingSession(SessionABC):
    """The cookbook's session, from its documented behaviour (see the module comment)."""

    KEPT_KEYS = ("role", "content", "name")

    def __init__(self, keep_last_n_turns, context_limit, summarise, session_id="fidelity"):
        if not (0 <= keep_last_n_turns <= context_limit and context_limit >= 1):
            raise ValueError(f"SummarizingSession: keep_last_n_turns ({keep_last_n_turns}) must be within 0..context_limit ({context_limit})")
        self.session_id = session_id
        self.session_settings = None
        self.keep_last_n_turns = keep_last_n_turns
        self.context_limit = context_limit
        self.summarise = summarise
        self.records = []  # (message as the model sees it, synthetic?)

    async def get_items(self, limit=None):
        messages = [dict(message) for message, _ in self.records]
        return messages[-limit:] if limit else messages

    async def add_items(self, items):
        for item in items:
            item = item if isinstance(item, dict) else item.model_dump(exclude_unset=True)
            message = {k: item[k] for k in self.KEPT_KEYS if k in item}
            message.setdefault("role", "user")
            message.setdefault("content", str(item))
            self.records.append((message, bool(item.get("synthetic", False))))
        boundary = self.boundary()
        if boundary is None:
            return
        summary = self.summarise([m for m, _ in self.records[:boundary]])
        self.records[:boundary] = [({"role": "user", "content": SHADOW}, True), ({"role": "assistant", "content": summary}, True)]

    def boundary(self):
        """Where the kept turns start when the session must summarise, else None."""
        starts = [i for i, (m, synthetic) in enumerate(self.records) if m["role"] == "user" and not synthetic]
        if len(starts) <= self.context_limit:
            return None
        if self.keep_last_n_turns == 0:
            return len(self.records)
        boundary = starts[-self.keep_last_n_turns]
        return boundary if boundary > 0 else None

    async def pop_item(self):
        return dict(self.records.pop()[0]) if self.records else None

    async def clear_session(self):
        self.records.clear()


def item_text(item):
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [])


CALL_ID = re.compile(r"'call_id': '([^']+)'")


def entries_for(trace, conversation, items):
    """The contract's entries for one model input (the Runner's list of items)."""
    messages = conversation["messages"]
    call_owner = {c["id"]: i for i, m in enumerate(messages) for c in m.get("tool_calls", [])}
    result_of = {m["tool_call_id"]: i for i, m in enumerate(messages) if m["role"] == "tool"}
    out = []
    for item in items:
        item = item if isinstance(item, dict) else item.model_dump(exclude_unset=True)
        kind = item.get("type")
        if kind == "function_call":
            # Part of the assistant message just listed, which the conversation holds as one
            # message with its tool calls.
            if not (out and out[-1].get("index") == call_owner[item["call_id"]]):
                raise SystemExit(f"{conversation['shape']}: a function call {item['call_id']} without its assistant message")
            continue
        if kind == "function_call_output":
            out.append({"kind": "verbatim", "index": result_of[item["call_id"]]})
            continue
        text = item_text(item)
        found = CALL_ID.search(text) if item.get("role") == "user" else None
        if found:
            owner = call_owner[found.group(1)] if "'function_call'" in text else result_of[found.group(1)]
            out.append({"kind": "altered", "index": owner, "text": text})
            continue
        out.append(trace.entry(item.get("role", "user"), text))
    return out


async def run(shape):
    conversation = load(shape)
    summariser = InputSummariser(conversation, contract_tokens(conversation))
    results = {m["tool_call_id"]: m["content"] for m in conversation["messages"] if m["role"] == "tool"}

    @function_tool
    def lookup(ctx: ToolContext[Any], query: str) -> str:
        """Looks something up."""
        return results[ctx.tool_call_id]

    steps = []
    for message in conversation["messages"]:
        if message["role"] != "assistant":
            continue
        output = [assistant_message(message["content"])]
        output += [function_call(c["name"], c["arguments"], call_id=c["id"]) for c in message.get("tool_calls", [])]
        steps.append(ModelStep(output=output))
    model = ScriptedModel(steps)
    agent = Agent(name="fidelity", instructions=conversation["system"], model=model, tools=[lookup])
    session = SummarizingSession(summarise=lambda records: summariser("\n".join(item_text(m) for m in records)), **PARAMS)
    for message in conversation["messages"]:
        if message["role"] == "user":
            await Runner.run(agent, message["content"], session=session)
    model.assert_complete()
    trace = Trace(conversation, "openai-agents", version("openai-agents"), "examples/agents_sdk/session_memory.ipynb (openai/openai-cookbook), run by agents/run.py", PARAMS, NOTES)
    for call in model.calls:
        entries = [{"kind": "system"}] if call.system_instructions == conversation["system"] else []
        items = call.input if isinstance(call.input, list) else [{"role": "user", "content": call.input}]
        trace.request_auto(entries + entries_for(trace, conversation, items))
    summariser.attach(trace)
    return trace.write(SLUG, summariser.calls)


if __name__ == "__main__":
    set_tracing_disabled(True)
    for shape in shapes():
        print(asyncio.run(run(shape)))
