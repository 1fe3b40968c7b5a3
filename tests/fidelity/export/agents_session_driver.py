#!/usr/bin/env python3
"""Runs every exported Agents SDK snippet (its SummarizingSession, as the app writes it) under the
real `openai-agents` Runner on every fidelity conversation and writes
tests/fidelity/export-traces/agents-session/<policy>-<shape>.json.

The chat model is the SDK's own `agents.testing.ScriptedModel`, which records every call; the
summariser is a second ScriptedModel whose k-th answer is the contract's k-th summary; the tool
`lookup` answers each call with its scripted result; the counter is the contract's word counter.
The model inputs are read back as openai_agents_driver.py reads the cookbook session's.
"""

import asyncio
from importlib.metadata import version
from typing import Any

from agents import Runner, function_tool, set_tracing_disabled
from agents.testing.model import ModelStep, ScriptedModel, assistant_message, function_call
from agents.tool_context import ToolContext

from written_common import check_summariser_requests, snippets, write  # first: it puts ../ on the path

from common import Summariser, Trace, count_words, load, shapes
from openai_agents_driver import entries_for

TARGET = "agents-session"
NOTES = [
    "The summariser is an Agents SDK model too (a ScriptedModel answering the contract's summaries in order); its calls are the summariser calls.",
    "The session stores the Runner's items whole, so function calls and their outputs come back as the items they were.",
]
# More summaries than any conversation needs; the unused ones are never asked for.
SUMMARIES = 200


async def run(policy, snippet, shape):
    conversation = load(shape)
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
    summaries = Summariser()
    summary_model = ScriptedModel([ModelStep(output=[assistant_message(summaries())]) for _ in range(SUMMARIES)])
    agent, session = snippet.make_agent(model=model, summary_model=summary_model, count_tokens=count_words, tools=[lookup], instructions=conversation["system"])
    for message in conversation["messages"]:
        if message["role"] == "user":
            await Runner.run(agent, message["content"], session=session)
    model.assert_complete()
    trace = Trace(conversation, "openai-agents", version("openai-agents"), "src/engine/export/templates/agents_session.py, run by agents/run.py", {"case": policy}, NOTES)
    for call in model.calls:
        system = call.system_instructions
        entries = [trace.entry("system", system)] if system else []
        items = call.input if isinstance(call.input, list) else [{"role": "user", "content": call.input}]
        trace.request_auto(entries + entries_for(trace, conversation, items))
    path = write(trace, TARGET, policy, len(summary_model.calls))
    if policy.startswith("manual"):
        calls = len(summary_model.calls)
        await session.summarise_now()
        left = len(snippet.split_turns(session.items))
        if len(summary_model.calls) != calls + 1 or left != snippet.KEEP_TURNS:
            raise SystemExit(f"{policy}: summarise_now made {len(summary_model.calls) - calls} calls and left {left} turns, not 1 and {snippet.KEEP_TURNS}")
    # The summariser's input is the user text, or one user item holding it.
    seen = [(c.system_instructions or "", c.input if isinstance(c.input, str) else c.input[-1]["content"]) for c in summary_model.calls]
    check_summariser_requests(snippet, seen, conversation, f"{policy} on {shape}")
    return path


if __name__ == "__main__":
    set_tracing_disabled(True)
    for policy, snippet in snippets(TARGET):
        for shape in shapes():
            print(asyncio.run(run(policy, snippet, shape)))
