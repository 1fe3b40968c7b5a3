#!/usr/bin/env python3
"""Drives langchain 1.x's real SummarizationMiddleware inside a real `create_agent` (a LangGraph
agent with an in-memory checkpointer, one thread per conversation) through every fidelity
conversation, and writes traces/langchain-v1-middleware/<shape>.json; then again with the
middleware's default counter (count_tokens_approximately, none passed) into
traces/langchain-v1-middleware/default-counter/<shape>.json.

The chat model is a fake that records every request and answers with the next scripted
assistant message; a tool `lookup` returns the scripted result of each call, so the agent's own
loop runs the tool-call shape. The middleware gets the contract's counter as its
`token_counter` and a fake summariser model.
"""

from importlib.metadata import version

from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from common import Summariser, Trace, load, shapes
from inputs import InputSummariser, contract_tokens
from lc_fakes import FakeSummariser, ReadingSummariser, RecordingChat, lc_role, lc_text, lc_tokens, scripted_lookup

SLUG = "langchain-v1-middleware"
PARAMS = {"trigger": ["tokens", 300], "keep": ["messages", 6]}
# The parameters the Tuner shows for the preset (the docs' example), with the window the tie in
# tests/fidelity.rs plays it at; run with the default counter into traces/<slug>/tuner/.
TUNER_PARAMS = {"trigger": ["tokens", 4000], "keep": ["messages", 20], "tuner_window": 8192}
NOTES = [
    "token_counter is the contract's word counter; the fake chat model reports no usage_metadata, so the middleware's second test (the last reply's reported total_tokens) never fires.",
    "The system prompt is passed as create_agent's system_prompt; the agent prepends it to each request and the middleware does not count it.",
]


def word_counter(messages):
    return sum(lc_tokens(m) for m in messages)


DEFAULT_COUNTER_NOTES = [
    "No token_counter is passed: the middleware counts with its default, langchain-core's count_tokens_approximately; the fake chat model reports no usage_metadata.",
    NOTES[1],
]


def run(shape, default_counter=False, params=PARAMS, under=None):
    conversation = load(shape)
    # With the library's default counter the summary is the contract's fixed one: its input is
    # compared on the runs with the contract's counter, whose tokens the summary's length follows.
    if default_counter:
        summariser = Summariser()
        summarising = FakeSummariser(summariser=summariser)
    else:
        summariser = InputSummariser(conversation, contract_tokens(conversation))
        summarising = ReadingSummariser(summariser=summariser)
    lookup = scripted_lookup(conversation)

    middleware = SummarizationMiddleware(
        model=summarising,
        trigger=tuple(params["trigger"]),
        keep=tuple(params["keep"]),
        **({} if default_counter else {"token_counter": word_counter}),
    )
    script = [m for m in conversation["messages"] if m["role"] == "assistant"]
    chat = RecordingChat(script=script, requests=[])
    agent = create_agent(model=chat, tools=[lookup], system_prompt=conversation["system"], middleware=[middleware], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": shape}}
    notes = DEFAULT_COUNTER_NOTES if default_counter else NOTES
    trace = Trace(conversation, "langchain", version("langchain"), "langchain/agents/middleware/summarization.py", params, notes)
    for message in conversation["messages"]:
        if message["role"] != "user":
            continue
        agent.invoke({"messages": [HumanMessage(content=message["content"])]}, config)
    for request in chat.requests:
        trace.request_auto([trace.entry(lc_role(m), lc_text(m)) for m in request])
    if chat.script:
        raise SystemExit(f"{shape}: {len(chat.script)} scripted assistant messages were never asked for")
    if not default_counter:
        summariser.attach(trace)
    return trace.write(SLUG, summariser.calls, under or ("default-counter" if default_counter else None))


if __name__ == "__main__":
    for shape in shapes():
        print(run(shape))
    for shape in shapes():
        print(run(shape, default_counter=True))
    for shape in shapes():
        print(run(shape, default_counter=True, params=TUNER_PARAMS, under="tuner"))
