#!/usr/bin/env python3
"""Drives llama-index-core's real ChatSummaryMemoryBuffer through every fidelity conversation
and writes traces/llamaindex-summary-buffer/<shape>.json; then again with the buffer's default
tokenizer (tiktoken's cl100k_base, from the cache llama-index-core ships; none passed) into
traces/llamaindex-summary-buffer/default-counter/<shape>.json.

The memory is used the way llama-index-core's FunctionAgent uses its memory
(llama_index/core/agent/workflow/base_agent.py `init_run`, function_agent.py `take_step` and
`finalize`, 0.14.25): the user message is put into the memory, `get()` is called once per user
turn (this is where the buffer summarises), the agent's system prompt is put in front, the
turn's tool calls and results are a scratchpad appended to later requests of the same turn, and
at the end of the turn the scratchpad and the reply are put into the memory. The summariser is a
fake LLM (a CustomLLM) answering as the contract's fake summariser.
"""

from importlib.metadata import version
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, CompletionResponse, LLMMetadata, MessageRole
from llama_index.core.llms import CustomLLM
from llama_index.core.memory import ChatSummaryMemoryBuffer

from common import Summariser, Trace, load, shapes, turns
from inputs import InputSummariser, content_tokens

SLUG = "llamaindex-summary-buffer"
PARAMS = {"token_limit": 250, "count_initial_tokens": False}
# The parameters the Tuner shows for the preset in its smallest window (8,192 tokens): the
# library's default token_limit, int(0.75 x the window); run with the default tokenizer into
# traces/<slug>/tuner/.
TUNER_PARAMS = {"token_limit": 6144, "count_initial_tokens": False, "tuner_window": 8192}
NOTES = [
    "tokenizer_fn is str.split, so a message counts the words of its content; the buffer's counter sees only content, so the words of a tool call's name and arguments are not counted (the contract's counter would count them).",
    "get() runs once per user turn, before the turn's first request, as FunctionAgent calls it; later requests of a tool turn reuse that history plus the scratchpad.",
]


class FakeSummariserLLM(CustomLLM):
    """The contract's fake summariser as a LlamaIndex LLM."""

    summariser: Any = None

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="fidelity-fake-summariser")

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self.summariser())

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any):
        yield self.complete(prompt)


class ReadingSummariserLLM(FakeSummariserLLM):
    """The summariser of inputs.py as a LlamaIndex LLM: it is handed the prompt it gets."""

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self.summariser(prompt))


ROLES = {MessageRole.SYSTEM: "system", MessageRole.USER: "user", MessageRole.ASSISTANT: "assistant", MessageRole.TOOL: "tool"}


def to_chat_message(message):
    kwargs = {}
    if message.get("tool_calls"):
        kwargs["tool_calls"] = [{"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}} for c in message["tool_calls"]]
    if message.get("tool_call_id"):
        kwargs["tool_call_id"] = message["tool_call_id"]
    role = {"user": MessageRole.USER, "assistant": MessageRole.ASSISTANT, "tool": MessageRole.TOOL}[message["role"]]
    return ChatMessage(role=role, content=message["content"], additional_kwargs=kwargs)


DEFAULT_COUNTER_NOTES = [
    "No tokenizer_fn is passed: the buffer counts a message's content with its default tokenizer, tiktoken's cl100k_base (the cache llama-index-core ships; downloads refused).",
    NOTES[1],
]


def run(shape, default_counter=False, params=PARAMS, under=None):
    conversation = load(shape)
    # With the library's default counter the summary is the contract's fixed one: its input is
    # compared on the runs with the contract's counter, whose tokens the summary's length follows.
    if default_counter:
        summariser = Summariser()
        llm = FakeSummariserLLM(summariser=summariser)
    else:
        summariser = InputSummariser(conversation, content_tokens(conversation))
        llm = ReadingSummariserLLM(summariser=summariser)
    tokenizer = {} if default_counter else {"tokenizer_fn": str.split}
    library_params = {k: v for k, v in params.items() if k != "tuner_window"}
    memory = ChatSummaryMemoryBuffer.from_defaults(llm=llm, **tokenizer, **library_params)
    notes = DEFAULT_COUNTER_NOTES if default_counter else NOTES
    trace = Trace(conversation, "llama-index-core", version("llama-index-core"), "llama_index/core/memory/chat_summary_memory_buffer.py", params, notes)
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
    if not default_counter:
        summariser.attach(trace)
    return trace.write(SLUG, summariser.calls, under or ("default-counter" if default_counter else None))


def refuse_downloads():
    """The default tokenizer must come from the cache llama-index-core ships."""
    import tiktoken.load

    def refuse(path):
        raise SystemExit(f"llamaindex_driver.py: tiktoken tried to download {path}; the vocabulary must come from llama-index-core's cache")

    tiktoken.load.read_file = refuse


if __name__ == "__main__":
    for shape in shapes():
        print(run(shape))
    refuse_downloads()
    for shape in shapes():
        print(run(shape, default_counter=True))
    for shape in shapes():
        print(run(shape, default_counter=True, params=TUNER_PARAMS, under="tuner"))
