#!/usr/bin/env python3
"""Runs every exported LangGraph snippet (its graph, as the app writes it) in the real `langgraph`
on every fidelity conversation and writes tests/fidelity/export-traces/langgraph/<policy>-<shape>.json.

The graph's chat model is the tier's recording fake (lc_fakes.RecordingChat), its summariser the
fake summariser model, its counter the contract's word counter, and a tool `lookup` returns the
scripted result of each call, so the graph's own tool loop runs the tool-call shape. One thread
per conversation, one `invoke` per user message.
"""

from importlib.metadata import version
from typing import Annotated

from langchain_core.messages import HumanMessage
from langchain_core.tools import InjectedToolCallId, tool

from written_common import check_summariser_requests, snippets, write  # first: it puts ../ on the path

from common import Summariser, Trace, count_words, load, shapes
from seed_class_driver import check_manual_cycle
from lc_fakes import FakeSummariser, RecordingChat, lc_role, lc_text

TARGET = "langgraph"
NOTES = ["A tool call's arguments are counted as json.dumps writes the parsed arguments, which for these conversations is the text they hold."]


class PromptSeeing(FakeSummariser):
    """The fake summariser, keeping each request's (system, user) texts."""

    # Typed object so that pydantic keeps the very list rather than a copy.
    seen: object

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append((lc_text(messages[0]), lc_text(messages[-1])))
        return super()._generate(messages, stop, run_manager, **kwargs)


def run(policy, snippet, shape):
    conversation = load(shape)
    summariser = Summariser()
    results = {m["tool_call_id"]: m["content"] for m in conversation["messages"] if m["role"] == "tool"}

    @tool
    def lookup(query: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Looks something up."""
        return results[tool_call_id]

    script = [m for m in conversation["messages"] if m["role"] == "assistant"]
    seen = []
    chat = RecordingChat(script=script, requests=[])
    graph = snippet.build_graph(model=chat, summary_model=PromptSeeing(summariser=summariser, seen=seen), count_tokens=count_words, tools=[lookup], system_prompt=conversation["system"])
    config = {"configurable": {"thread_id": shape}}
    for message in conversation["messages"]:
        if message["role"] == "user":
            graph.invoke({"messages": [HumanMessage(content=message["content"])]}, config)
    if chat.script:
        raise SystemExit(f"{policy} on {shape}: {len(chat.script)} scripted assistant messages were never asked for")
    trace = Trace(conversation, "langgraph", version("langgraph"), "src/engine/export/templates/langgraph.py", {"case": policy}, NOTES)
    for request in chat.requests:
        trace.request_auto([trace.entry(lc_role(m), lc_text(m)) for m in request])
    path = write(trace, TARGET, policy, summariser.calls)
    now = lambda: snippet.summarise_now(graph, config, count_words)
    check_manual_cycle(snippet, policy, summariser, now, lambda: graph.get_state(config).values["messages"])
    check_summariser_requests(snippet, seen, conversation, f"{policy} on {shape}")
    return path


if __name__ == "__main__":
    for policy, snippet in snippets(TARGET):
        for shape in shapes():
            print(run(policy, snippet, shape))
