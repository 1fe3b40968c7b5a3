#!/usr/bin/env python3
"""Drives langchain-classic's real ConversationSummaryBufferMemory through every fidelity
conversation and writes traces/langchain-summary-buffer/<shape>.json; then again with the
memory's default counter, its model's own `get_num_tokens_from_messages` (ChatOpenAI's, on
gpt-4o: tiktoken's o200k_base with the chat format's overhead), into
traces/langchain-summary-buffer/default-counter/<shape>.json.

The memory is used as a chain uses it: before each exchange its messages (return_messages=True)
fill the prompt's history slot, after it `save_context` stores the input and the final reply
and prunes. In a tool turn the assistant's tool calls and the tool results are the agent's
scratchpad of that turn only, as langchain_classic's AgentExecutor keeps them: its memory saves
the input and the output, never the intermediate steps (langchain_classic/chains/base.py,
`prep_outputs`).
"""

import warnings

from langchain_classic.memory import ConversationSummaryBufferMemory
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage
from importlib.metadata import version

from common import Summariser, Trace, load, shapes, turns
from inputs import InputSummariser, contract_tokens
from lc_fakes import FakeSummariser, ReadingSummariser, RecordingChat, lc_role, lc_text, to_ai_message

# The class is deprecated; the warning says so on every run and is not what the tier checks.
warnings.filterwarnings("ignore", message=".*ConversationSummaryBufferMemory.*")

SLUG = "langchain-summary-buffer"
PARAMS = {"max_token_limit": 120, "return_messages": True}
# The parameters the Tuner shows for the preset (the class's default max_token_limit), run with
# the word counter into traces/<slug>/tuner/ (its default counter runs at PARAMS, into
# traces/<slug>/default-counter/).
TUNER_PARAMS = {"max_token_limit": 2000, "return_messages": True, "tuner_window": 8192}
NOTES = [
    "The counter is the contract's word counter, plugged in by overriding the summariser model's get_num_tokens_from_messages; LangChain's default would add a 'Human: '/'AI: ' prefix per message.",
    "Tool turns: the assistant's tool calls and the tool results are only in that turn's requests (the agent scratchpad); memory stores the user input and the final reply, as AgentExecutor does.",
    "The summariser's own prompt (SUMMARY_PROMPT) is not recorded: only what it folds (the summary so far and the pruned messages, under summariser_inputs) and the summary it returns.",
]

DEFAULT_COUNTER_NOTES = [
    "No counter is overridden: the memory prunes with its model's get_num_tokens_from_messages, langchain-openai's ChatOpenAI on gpt-4o (tiktoken's o200k_base with the chat format's overhead, from tiktoken-rs's copy of the vocabulary; downloads refused). The model's replies are the contract's fake summariser's.",
    NOTES[1],
    NOTES[2],
]
# The model whose counter the memory uses by default, as people run the class.
MODEL = "gpt-4o"


class OpenAICounted(FakeSummariser):
    """The contract's fake summariser, counting as ChatOpenAI on MODEL counts: its own
    get_num_tokens_from_messages (no request is made: it only encodes)."""

    counter: object

    def get_num_tokens_from_messages(self, messages, tools=None) -> int:
        return self.counter.get_num_tokens_from_messages(messages, tools)

    def get_num_tokens(self, text: str) -> int:
        return self.counter.get_num_tokens(text)


def openai_counter():
    """ChatOpenAI on MODEL, its tiktoken vocabulary placed in tiktoken's cache, never fetched."""
    from counters import offline_tiktoken
    from langchain_openai import ChatOpenAI

    offline_tiktoken()
    return ChatOpenAI(model=MODEL, api_key="fidelity-offline", base_url="http://127.0.0.1:9/v1")


def run(shape, params=PARAMS, under=None, counter=None):
    conversation = load(shape)
    library_params = {k: v for k, v in params.items() if k != "tuner_window"}
    if counter is None:
        summariser = InputSummariser(conversation, contract_tokens(conversation))
        llm = ReadingSummariser(summariser=summariser)
        notes = NOTES
    else:
        # With the default counter the summary is the contract's fixed one, as LlamaIndex's.
        summariser = Summariser()
        llm = OpenAICounted(summariser=summariser, counter=counter)
        notes = DEFAULT_COUNTER_NOTES
    memory = ConversationSummaryBufferMemory(llm=llm, **library_params)
    trace = Trace(conversation, "langchain-classic", version("langchain-classic"), "langchain_classic/memory/summary_buffer.py", params, notes)
    script = [m for m in conversation["messages"] if m["role"] == "assistant"]
    chat = RecordingChat(script=script, requests=[])
    for user_index, replies in turns(conversation):
        user_text = conversation["messages"][user_index]["content"]
        history = memory.load_memory_variables({})["history"]
        scratchpad = []
        answers = user_index
        reply_text = None
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
    if counter is None:
        summariser.attach(trace)
    return trace.write(SLUG, summariser.calls, under or (None if counter is None else "default-counter"))


if __name__ == "__main__":
    for shape in shapes():
        print(run(shape))
    for shape in shapes():
        print(run(shape, params=TUNER_PARAMS, under="tuner"))
    counter = openai_counter()
    for shape in shapes():
        print(run(shape, counter=counter))
