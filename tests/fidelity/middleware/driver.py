#!/usr/bin/env python3
"""Drives summary_memory.langchain.SummaryMemoryMiddleware (the Python package's middleware,
whose fold decisions are the engine's) inside a real `create_agent` through every fidelity
conversation, under each policy of policies.json (written by tests/fidelity_middleware.rs from
the engine's policies, as the page exports them), the middleware built by the export panel's
snippet for that policy (snippets/<policy>.py, unmodified), and writes
<out>/<policy>/<shape>.json (default: tests/fidelity/middleware-traces/).

As langchain_v1_driver.py runs the library's own middleware: the chat model is the tier's
RecordingChat, the tool `lookup` answers each scripted call, the summariser is the tier's
ReadingSummariser (its text follows what it is given), and the middleware counts with the
contract's word counter. tests/fidelity_middleware.rs compares each trace with the app's dry
run of the same policy JSON.

Usage: PYTHONPATH=<the unpacked wheel> python driver.py [out_dir] [--plant]
(--plant: a fault planted once, to see the comparison fail: the middleware is handed a policy
whose trigger fires one token later.)
"""

import asyncio
import importlib.util
import json
import sys
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
PLANT = "--plant" in sys.argv
if PLANT:
    sys.argv.remove("--plant")
if len(sys.argv) == 1:
    sys.argv.append(str(HERE.parent / "middleware-traces"))

from langchain.agents import create_agent  # noqa: E402
from langchain_core.messages import HumanMessage  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402

import summary_memory  # noqa: E402
from summary_memory.langchain import SummaryMemoryMiddleware  # noqa: E402

from common import Trace, load, shapes  # noqa: E402
from inputs import InputSummariser, contract_tokens  # noqa: E402
from lc_fakes import ReadingSummariser, RecordingChat, lc_role, lc_text, lc_tokens, scripted_lookup  # noqa: E402

NOTES = [
    "summary_memory.langchain.SummaryMemoryMiddleware, the package's middleware: every fold decision is the engine's Policy::decide through the binding.",
    "token_counter is the contract's word counter; the system prompt is create_agent's system_prompt.",
]


def word_counter(messages):
    return sum(lc_tokens(m) for m in messages)


def planted(policy_json):
    """The policy with its trigger one token (or turn, or message) later."""
    policy = json.loads(policy_json)
    trigger = policy["trigger"]
    for key in ("budget", "max_turns", "max_messages", "n", "every", "fire_pct"):
        if key in trigger:
            trigger[key] += 1
            return json.dumps(policy)
    raise SystemExit(f"--plant: no trigger number in {trigger}")


def snippet(name):
    """The export panel's snippet for policy `name` (snippets/<name>.py), imported as it is."""
    path = HERE / "snippets" / f"{name.replace('-', '_')}.py"
    spec = importlib.util.spec_from_file_location(f"snippet_{name.replace('-', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(name, policy_json, shape, asynchronous=False):
    conversation = load(shape)
    summariser = InputSummariser(conversation, contract_tokens(conversation))
    summarising = ReadingSummariser(summariser=summariser)
    lookup = scripted_lookup(conversation)

    if PLANT:
        middleware = SummaryMemoryMiddleware(planted(policy_json), model=summarising, token_counter=word_counter)
    else:
        # The export panel's snippet, unmodified, builds the middleware from the policy it holds.
        exported = snippet(name)
        if json.loads(exported.POLICY) != json.loads(policy_json):
            raise SystemExit(f"{name}: the snippet's policy is not policies.json's")
        middleware = exported.make_middleware(summarising, word_counter)
    script = [m for m in conversation["messages"] if m["role"] == "assistant"]
    chat = RecordingChat(script=script, requests=[])
    agent = create_agent(model=chat, tools=[lookup], system_prompt=conversation["system"], middleware=[middleware], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": shape}}
    trace = Trace(conversation, "summary-memory", version("summary-memory"), "py/python/summary_memory/langchain.py", {"policy": name}, NOTES)
    for message in conversation["messages"]:
        if message["role"] == "user":
            turn = {"messages": [HumanMessage(content=message["content"])]}
            if asynchronous:
                asyncio.run(agent.ainvoke(turn, config))
            else:
                agent.invoke(turn, config)
    for request in chat.requests:
        trace.request_auto([trace.entry(lc_role(m), lc_text(m)) for m in request])
    if chat.script:
        raise SystemExit(f"{name} on {shape}: {len(chat.script)} scripted assistant messages were never asked for")
    # Nothing is lost: the agent's state still holds every message of the conversation.
    kept = agent.get_state(config).values["messages"]
    if len(kept) != len(conversation["messages"]):
        raise SystemExit(f"{name} on {shape}: the agent's state holds {len(kept)} messages, the conversation {len(conversation['messages'])}")
    summariser.attach(trace)
    if asynchronous:
        return trace.body, summariser.calls
    return trace.write(name, summariser.calls)


def same_when_awaited(policies, written):
    """The middleware's async hook (`awrap_model_call`, an agent run with `ainvoke`) makes the
    requests its sync one made, under every policy, on the shape with tool calls."""
    for name, policy in policies.items():
        body, calls = run(name, json.dumps(policy), "tool-calls", asynchronous=True)
        synced = json.loads(written[name].read_text(encoding="ascii"))
        for key in ("requests", "summariser_inputs"):
            if body[key] != synced[key]:
                raise SystemExit(f"{name} on tool-calls: the awaited run's {key} differ from the sync run's")
        if calls != synced["summariser_calls"]:
            raise SystemExit(f"{name} on tool-calls: {calls} summariser calls awaited, {synced['summariser_calls']} in sync")


def bad_policies_are_refused(policies):
    """A policy that cannot be read, or that needs what the middleware does not run, is
    refused with the app's message, before any agent runs."""
    for bad, says in [("{", "not valid JSON"), ('{"version": 4}', "at policy")]:
        try:
            SummaryMemoryMiddleware(bad, model=ReadingSummariser(summariser=None))
        except summary_memory.PolicyError as e:
            assert says in str(e), f"{bad!r}: {e}"
        else:
            raise SystemExit(f"the middleware took the policy {bad!r}")
    budgeted = dict(policies["tokens-300-keep-150"], summary_budget=400)
    try:
        SummaryMemoryMiddleware(budgeted, model=ReadingSummariser(summariser=None))
    except summary_memory.PolicyError as e:
        assert "summary_budget" in str(e), str(e)
    else:
        raise SystemExit("the middleware took a policy with a summary budget it does not run")


if __name__ == "__main__":
    policies = json.loads((HERE / "policies.json").read_text(encoding="utf-8"))
    bad_policies_are_refused(policies)
    written = {}
    for name, policy in policies.items():
        for shape in shapes():
            path = run(name, json.dumps(policy), shape)
            if shape == "tool-calls":
                written[name] = path
            print(path)
    same_when_awaited(policies, written)
