#!/usr/bin/env python3
"""Runs every exported Python snippet (tests/fidelity/export/snippets/<target>/<case>.py),
imported as it is, in the real library with the tier's fakes, on every fidelity conversation,
and writes export-traces/<target>/<case>-<shape>.json in the tier's trace format.

Each snippet exposes a factory that takes the models (and, where the library takes one, the
counter) as arguments; the driver hands it the fake summariser, the recording chat model and
the contract's word counter (../common.py, ../lc_fakes.py), then plays the conversation as the
tier's own driver for that library does (../langchain_v1_driver.py,
../langchain_classic_driver.py, ../llamaindex_driver.py).

Usage: export_driver.py [<out_dir> [<target-slug>...]]; with no out_dir, the committed traces.
"""

import importlib.util
import json
import sys
import warnings
from importlib.metadata import version
from pathlib import Path
from typing import Annotated

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from common import Summariser, Trace, load, shapes, turns  # noqa: E402
from lc_fakes import FakeSummariser, RecordingChat, lc_role, lc_text, lc_tokens, to_ai_message  # noqa: E402

OUT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else HERE.parent / "export-traces"
SNIPPETS = HERE / "snippets"


def import_snippet(path):
    """The snippet at `path` as a module, exactly as written."""
    spec = importlib.util.spec_from_file_location(f"snippet_{path.parent.name.replace('-', '_')}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def word_counter(messages):
    return sum(lc_tokens(m) for m in messages)


class PromptSeeing(FakeSummariser):
    """The fake summariser, keeping the text of each request it gets (to check that the
    snippet's prompt reaches the library's summariser call)."""

    # Typed object so that pydantic keeps the very list rather than a copy.
    seen: object

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append("\n".join(lc_text(m) for m in messages))
        return super()._generate(messages, stop, run_manager, **kwargs)


def check_prompt(snippet, seen, where):
    """Each summariser request carries the snippet's prompt and word limit."""
    for text in seen:
        if snippet.SUMMARY_PROMPT not in text or f"under {snippet.WORD_LIMIT} words" not in text:
            raise SystemExit(f"{where}: a summariser request lacks the snippet's prompt or word limit: {text[:200]!r}")


def run_middleware(snippet, conversation, summariser, trace, seen, own_counter=False):
    """LangChain v1: the snippet's agent, as ../langchain_v1_driver.py runs the middleware; with
    `own_counter`, counting with the snippet's own COUNTER rather than the contract's."""
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import InjectedToolCallId, tool

    results = {m["tool_call_id"]: m["content"] for m in conversation["messages"] if m["role"] == "tool"}

    @tool
    def lookup(query: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Looks something up."""
        return results[tool_call_id]

    script = [m for m in conversation["messages"] if m["role"] == "assistant"]
    chat = RecordingChat(script=script, requests=[])
    # The summariser carries the window in its profile, as the snippet's own model does.
    fake = PromptSeeing(summariser=summariser, seen=seen, profile={"max_input_tokens": snippet.MAX_INPUT_TOKENS})
    counter = None if own_counter else word_counter
    agent = snippet.make_agent(model=chat, summariser=fake, token_counter=counter, tools=[lookup], system_prompt=conversation["system"])
    config = {"configurable": {"thread_id": conversation["shape"]}}
    for message in conversation["messages"]:
        if message["role"] == "user":
            agent.invoke({"messages": [HumanMessage(content=message["content"])]}, config)
    for request in chat.requests:
        trace.request_auto([trace.entry(lc_role(m), lc_text(m)) for m in request])
    if chat.script:
        raise SystemExit(f"{conversation['shape']}: {len(chat.script)} scripted assistant messages were never asked for")


def run_buffer(snippet, conversation, summariser, trace, seen):
    """LangChain classic: the snippet's memory, as ../langchain_classic_driver.py uses it."""
    from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage

    memory = snippet.make_memory(summariser=PromptSeeing(summariser=summariser, seen=seen))
    script = [m for m in conversation["messages"] if m["role"] == "assistant"]
    chat = RecordingChat(script=script, requests=[])
    for user_index, replies in turns(conversation):
        user_text = conversation["messages"][user_index]["content"]
        history = memory.load_memory_variables({})["history"]
        scratchpad = []
        answers = user_index
        pending = list(replies)
        while True:
            request = [SystemMessage(content=conversation["system"])] + history + [HumanMessage(content=user_text)] + scratchpad
            answer = chat.invoke(request)
            trace.request(answers, [trace.entry(lc_role(m), lc_text(m)) for m in request])
            _, scripted = pending.pop(0)
            if not scripted.get("tool_calls"):
                reply_text = answer.content
                break
            scratchpad.append(to_ai_message(scripted))
            while pending and pending[0][1]["role"] == "tool":
                index, result = pending.pop(0)
                scratchpad.append(ToolMessage(content=result["content"], tool_call_id=result["tool_call_id"]))
                answers = index
        memory.save_context({"input": user_text}, {"output": reply_text})


def run_llamaindex(snippet, conversation, summariser, trace, seen):
    """LlamaIndex: the snippet's memory, as ../llamaindex_driver.py uses it (FunctionAgent's
    way: put, get once a turn, the turn's scratchpad put at its end)."""
    from llama_index.core.base.llms.types import ChatMessage, MessageRole

    from llamaindex_driver import ROLES, FakeSummariserLLM, to_chat_message

    class Seeing(FakeSummariserLLM):
        def complete(self, prompt, formatted=False, **kwargs):
            seen.append(prompt)
            return super().complete(prompt, formatted, **kwargs)

    memory = snippet.make_memory(summariser=Seeing(summariser=summariser), tokenizer_fn=str.split)
    system = ChatMessage(role=MessageRole.SYSTEM, content=conversation["system"])
    for user_index, replies in turns(conversation):
        memory.put(to_chat_message(conversation["messages"][user_index]))
        history = memory.get()
        scratchpad = []
        answers = user_index
        for index, message in replies:
            if message["role"] == "assistant":
                request = [system, *history, *scratchpad]
                trace.request(answers, [trace.entry(ROLES[m.role], m.content) for m in request])
            scratchpad.append(to_chat_message(message))
            answers = index
        memory.put_messages(scratchpad)


# Each Python target: how its snippet is run, and the library it runs in. A new target is one
# row (and its snippets in snippets/<slug>/).
TARGETS = {
    "langchain-middleware-py": (run_middleware, "langchain", "langchain/agents/middleware/summarization.py"),
    "langchain-buffer": (run_buffer, "langchain-classic", "langchain_classic/memory/summary_buffer.py"),
    "llamaindex": (run_llamaindex, "llama-index-core", "llama_index/core/memory/chat_summary_memory_buffer.py"),
}

NOTES = ["The snippet is imported unmodified; the driver passes the fake summariser, the recording chat model and the contract's word counter to its factory."]

# The cases also run with the snippet's own counter (its COUNTER, a tiktoken counter), into
# <target>/own-counter/; tests/fidelity_export.rs plays them with the engine's counter.
OWN_COUNTER = {"langchain-middleware-py": ["tokens-300-keep-150"]}
OWN_COUNTER_NOTES = ["The snippet is imported unmodified; the driver passes the fake summariser and the recording chat model, and the snippet counts with its own COUNTER (tiktoken, offline from this project's vocabularies)."]


def run(slug, path, shape, own_counter=False):
    runner, library, source = TARGETS[slug]
    conversation = load(shape)
    summariser = Summariser()
    case = path.stem.replace("_", "-")
    notes = OWN_COUNTER_NOTES if own_counter else NOTES
    trace = Trace(conversation, library, version(library), source, {"target": slug, "case": case}, notes)
    seen = []
    snippet = import_snippet(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if own_counter:
            runner(snippet, conversation, summariser, trace, seen, own_counter=True)
        else:
            runner(snippet, conversation, summariser, trace, seen)
    if len(seen) != summariser.calls:
        raise SystemExit(f"{path} on {shape}: {summariser.calls} summaries but {len(seen)} summariser requests seen")
    check_prompt(snippet, seen, f"{path} on {shape}")
    trace.body["summariser_calls"] = summariser.calls
    out = OUT / slug / ("own-counter" if own_counter else "") / f"{case}-{shape}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(trace.body, indent=1) + "\n", encoding="ascii")
    return out


if __name__ == "__main__":
    wanted = sys.argv[2:] or sorted(TARGETS)
    if any(OWN_COUNTER.get(slug) for slug in wanted):
        # tiktoken's vocabularies from this project's, downloads refused (../counters.py).
        from counters import offline_tiktoken

        offline_tiktoken()
    for slug in wanted:
        for path in sorted((SNIPPETS / slug).glob("*.py")):
            for shape in shapes():
                print(run(slug, path, shape))
        for case in OWN_COUNTER.get(slug, []):
            for shape in shapes():
                print(run(slug, SNIPPETS / slug / f"{case.replace('-', '_')}.py", shape, own_counter=True))
