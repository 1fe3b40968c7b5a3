#!/usr/bin/env python3
"""Drives langchain-classic's real ConversationSummaryBufferMemory through every fidelity
conversation and writes traces/langchain-summary-buffer/<shape>.json.

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

from common import Trace, load, shapes, turns
from inputs import InputSummariser, contract_tokens
from lc_fakes import ReadingSummariser, RecordingChat, lc_role, lc_text, to_ai_message

# The class is deprecated; the warning says so on every run and is not what the tier checks.
warnings.filterwarnings("ignore", message=".*ConversationSummaryBufferMemory.*")

SLUG = "langchain-summary-buffer"
PARAMS = {"max_token_limit": 120, "return_messages": True}
# The parameters the Tuner shows for the preset (the class's default max_token_limit), run with
# the word counter into traces/<slug>/tuner/ (its default counter, ChatOpenAI's tiktoken count,
# is not run here).
TUNER_PARAMS = {"max_token_limit": 2000, "return_messages": True, "tuner_window": 8192}
NOTES = [
    "The counter is the contract's word counter, plugged in by overriding the summariser model's get_num_tokens_from_messages; LangChain's default would add a 'Human: '/'AI: ' prefix per message.",
    "Tool turns: the assistant's tool calls and the tool results are only in that turn's requests (the agent scratchpad); memory stores the user input and the final reply, as AgentExecutor does.",
    "The summariser's own prompt (SUMMARY_PROMPT) is not recorded: only what it folds (the summary so far and the pruned messages, under summariser_inputs) and the summary it returns.",
]


def run(shape, params=PARAMS, under=None):
    conversation = load(shape)
    summariser = InputSummariser(conversation, contract_tokens(conversation))
    library_params = {k: v for k, v in params.items() if k != "tuner_window"}
    memory = ConversationSummaryBufferMemory(llm=ReadingSummariser(summariser=summariser), **library_params)
    trace = Trace(conversation, "langchain-classic", version("langchain-classic"), "langchain_classic/memory/summary_buffer.py", params, NOTES)
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
    summariser.attach(trace)
    return trace.write(SLUG, summariser.calls, under)


if __name__ == "__main__":
    for shape in shapes():
        print(run(shape))
    for shape in shapes():
        print(run(shape, params=TUNER_PARAMS, under="tuner"))
