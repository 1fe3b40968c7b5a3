#!/usr/bin/env python3
"""Runs every exported seed-class snippet (the lesson's `SummaryMemory`, as the app writes it) on
every fidelity conversation and writes tests/fidelity/export-traces/seed-class/<policy>-<shape>.json.

The snippet's summariser gets a fake OpenAI client that answers as the contract's fake
summariser, and its counter the contract's word counter. Each request is what
`get_messages_for_api()` returns when a user message, or the last of a run of tool results,
waits for its answer, which is when the snippet's `chat()` sends it.
"""

from types import SimpleNamespace

from written_common import check_summariser_requests, snippets, write  # first: it puts ../ on the path

from common import Summariser, Trace, count_words, load, shapes

TARGET = "seed-class"
NOTES = ["The chat requests are the snippet's get_messages_for_api() at each answer; tool calls go in as OpenAI's tool_calls entries."]


class FakeClient:
    """An OpenAI client whose chat completions answer as the contract's fake summariser, keeping
    each request's (system, user) texts."""

    def __init__(self, summariser):
        self.seen = []

        def create(messages, **_):
            self.seen.append((messages[0]["content"], messages[-1]["content"]))
            return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=summariser()))])

        self.chat = SimpleNamespace(completions=SimpleNamespace(create=create))


def openai_calls(message):
    return [{"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}} for c in message.get("tool_calls", [])]


def run(policy, snippet, shape):
    conversation = load(shape)
    summariser = Summariser()
    client = FakeClient(summariser)
    memory = snippet.make_memory(client=client, count_tokens=count_words, system_prompt=conversation["system"])
    trace = Trace(conversation, "summary-memory seed class", "1", "src/engine/export/templates/seed_class.py", {"case": policy}, NOTES)
    messages = conversation["messages"]
    for i, m in enumerate(messages):
        fields = {}
        if m.get("tool_calls"):
            fields["tool_calls"] = openai_calls(m)
        if m.get("tool_call_id"):
            fields["tool_call_id"] = m["tool_call_id"]
        memory.add_message(m["role"], m["content"], **fields)
        if m["role"] in ("user", "tool") and (i + 1 == len(messages) or messages[i + 1]["role"] == "assistant"):
            trace.request(i, [trace.entry(r["role"], r["content"]) for r in memory.get_messages_for_api()])
    path = write(trace, TARGET, policy, summariser.calls)
    check_manual_cycle(snippet, policy, summariser, memory.summarise_now, lambda: memory.recent_turns)
    check_summariser_requests(snippet, client.seen, conversation, f"{policy} on {shape}")
    return path


def check_manual_cycle(snippet, case, summariser, summarise_now, verbatim):
    """A manual case's cycle, asked for after the conversation: one summariser call, and the
    newest KEEP_TURNS turns left verbatim (the trace is already written)."""
    if not case.startswith("manual"):
        return
    calls = summariser.calls
    summarise_now()
    left = len(snippet.split_turns(verbatim()))
    if summariser.calls != calls + 1 or left != snippet.KEEP_TURNS:
        raise SystemExit(f"{case}: summarise_now made {summariser.calls - calls} calls and left {left} turns, not 1 and {snippet.KEEP_TURNS}")


if __name__ == "__main__":
    for policy, snippet in snippets(TARGET):
        for shape in shapes():
            print(run(policy, snippet, shape))
