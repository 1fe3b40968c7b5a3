"""Summary memory as a LangGraph graph, exported from Summary Memory.

The graph answers in a `chat` node; after a reply that calls no tool, a `check` node asks the
policy, and the router sends the turn to the `summarise` node, which folds the oldest turns
into the summary and removes them from the state, or ends it. The policy is the one you tuned:
summarise when asked, keep 1 turns; the summary appended to the system prompt; folds:
progressive: the old summary plus the new turns; tokens counted with o200k_base (exact).

Run it with `pip install langgraph langchain langchain-openai tiktoken` and OPENAI_API_KEY set:
`python summary_memory_langgraph.py`.
"""

import json
import sys
from typing import Annotated, Any

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph, add_messages
from typing_extensions import TypedDict

BASE_URL = "https://api.openai.com/v1"
CHAT_MODEL = "gpt-4o-mini"
SUMMARY_MODEL = "gpt-4o-mini"
SYSTEM_PROMPT = "You are a helpful assistant."  # Put your assistant's own instructions here.

# What the summariser is told. The facts listed must survive every summary.
SUMMARY_PROMPT = "Summarise the conversation so far {briefly}, keeping \"every figure\"."
MUST_KEEP = []
WORD_LIMIT = 150
# What the summariser is told about topic sections, when the summary is kept as sections.
SUMMARY_SECTIONS = None
# Pinned facts ("label: text"): after each cycle, the ones the new summary lost are reported.
PINNED = []
# "progressive" folds the old summary and the new turns; "rebuild" summarises every folded
# message again, so no summary is a summary of a summary.
FOLD_MODE = "progressive"
# Where the summary goes: "second_system", "append_to_system" or "user_ack".
PLACEMENT = "append_to_system"
SUMMARY_HEADER = "CONVERSATION SUMMARY (earlier turns):\n"
SUMMARY_ACK = "Understood. I will use this summary of our earlier conversation."

# When to summarise: only when you ask (summarise_now); the cycle keeps the newest 1 turns.
KEEP_TURNS = 1


def turns_to_fold(turn_tokens, verbatim_messages, messages_before, messages_now, fixed_tokens):
    """A manual policy never folds by itself."""
    return 0


def turns_to_fold_on_request(turn_tokens):
    """All turns but the newest KEEP_TURNS."""
    return max(0, len(turn_tokens) - KEEP_TURNS)


class State(TypedDict):
    messages: Annotated[list[Any], add_messages]  # the verbatim turns
    summary: str  # empty until the first cycle
    folded: list  # the messages summarised so far
    checked: int  # messages at the previous check, folded ones included
    fold: int  # turns the check decided to fold


def tiktoken_counter():
    """The default token counter: tiktoken's o200k_base, the encoding of the GPT-4o family."""
    import tiktoken

    encoding = tiktoken.get_encoding("o200k_base")
    return lambda text: len(encoding.encode(text))


def fold_request(existing, turns_text):
    """The summariser's request: the turns, folded into the existing summary when there is one
    (the app's own layout)."""
    if existing:
        return (
            f"EXISTING SUMMARY (from previous turns):\n{existing}\n\n"
            f"NEW TURNS TO ADD TO THE SUMMARY:\n{turns_text}\n\n"
            "Produce an updated summary that incorporates both."
        )
    return f"CONVERSATION TURNS TO SUMMARISE:\n{turns_text}\n\nProduce a summary of these turns."


def summariser_system():
    """The summariser's instructions: the prompt, the facts to keep and the word limit."""
    text = SUMMARY_PROMPT.strip()
    if MUST_KEEP:
        text += "\nPreserve these facts if they are mentioned:" + "".join("\n- " + f for f in MUST_KEEP)
    if WORD_LIMIT:
        text += f"\nWrite at most {WORD_LIMIT} words."
    if SUMMARY_SECTIONS:
        text += "\n" + SUMMARY_SECTIONS
    return text


def text_of(message):
    content = message.content
    return content if isinstance(content, str) else "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)


def message_tokens(message, count):
    """A message's tokens: its content, and each tool call's name and arguments."""
    calls = getattr(message, "tool_calls", None) or []
    return count(text_of(message)) + sum(count(c["name"]) + count(json.dumps(c["args"])) for c in calls)


def split_turns(messages):
    """The messages as turns: a turn starts at a user message after a reply or a tool result."""
    turns = []
    for m in messages:
        if not turns or (m.type == "human" and turns[-1][-1].type != "human"):
            turns.append([])
        turns[-1].append(m)
    return turns


def head(system_prompt, summary):
    """The messages before the verbatim turns: the system prompt, the summary where PLACEMENT puts it."""
    if not summary:
        return [SystemMessage(system_prompt)]
    text = SUMMARY_HEADER + summary
    if PLACEMENT == "append_to_system":
        return [SystemMessage(system_prompt + "\n\n" + text)]
    if PLACEMENT == "user_ack":
        return [SystemMessage(system_prompt), HumanMessage(text), AIMessage(SUMMARY_ACK)]
    return [SystemMessage(system_prompt), SystemMessage(text)]


def build_graph(model=None, summary_model=None, count_tokens=None, tools=(), system_prompt=SYSTEM_PROMPT):
    """The compiled graph, with an in-memory checkpointer: `model` answers and `summary_model`
    summarises (LangChain chat models; default: CHAT_MODEL and SUMMARY_MODEL at BASE_URL),
    `count_tokens(text)` counts (default: tiktoken's o200k_base), `tools` the model may call."""
    if model is None or summary_model is None:
        from langchain.chat_models import init_chat_model

        model = model or init_chat_model(CHAT_MODEL, model_provider="openai", base_url=BASE_URL)
        summary_model = summary_model or init_chat_model(SUMMARY_MODEL, model_provider="openai", base_url=BASE_URL)
    count = count_tokens or tiktoken_counter()
    answering = model.bind_tools(list(tools)) if tools else model

    def tokens(message):
        return message_tokens(message, count)

    def chat(state: State) -> dict:
        reply = answering.invoke(head(system_prompt, state.get("summary")) + state["messages"])
        return {"messages": [reply]}

    def check(state: State) -> dict:
        verbatim = state["messages"]
        sizes = [sum(map(tokens, turn)) for turn in split_turns(verbatim)]
        fixed = sum(map(tokens, head(system_prompt, state.get("summary"))))
        seen = len(state.get("folded", [])) + len(verbatim)
        fold = turns_to_fold(sizes, len(verbatim), state.get("checked", 0), seen, fixed)
        return {"checked": seen, "fold": fold}

    def summarise(state: State) -> dict:
        old = [m for turn in split_turns(state["messages"])[: state["fold"]] for m in turn]
        folded = state.get("folded", []) + old
        progressive = FOLD_MODE == "progressive"
        new = "\n".join(f"{'USER' if m.type == 'human' else m.type.upper()}: {text_of(m)}" for m in (old if progressive else folded))
        user = fold_request(state.get("summary") if progressive else None, new)
        summary = text_of(summary_model.invoke([SystemMessage(summariser_system()), HumanMessage(user)])).strip()
        for pin in PINNED:
            label, _, text = pin.partition(": ")
            if (text or label).lower() not in summary.lower():
                print(f"[pinned fact lost] {pin}", file=sys.stderr)
        return {"summary": summary, "folded": folded, "fold": 0, "messages": [RemoveMessage(id=m.id) for m in old]}

    def after_chat(state: State) -> str:
        calls = getattr(state["messages"][-1], "tool_calls", None)
        return "tools" if calls and tools else "check"

    def router(state: State) -> str:
        return "summarise" if state["fold"] > 0 else END

    builder = StateGraph(State)
    builder.add_node("chat", chat)
    builder.add_node("check", check)
    builder.add_node("summarise", summarise)
    builder.add_edge(START, "chat")
    if tools:
        from langgraph.prebuilt import ToolNode

        builder.add_node("tools", ToolNode(list(tools)))
        builder.add_edge("tools", "chat")
    builder.add_conditional_edges("chat", after_chat, ["tools", "check"] if tools else ["check"])
    builder.add_conditional_edges("check", router, ["summarise", END])
    builder.add_edge("summarise", END)
    return builder.compile(checkpointer=InMemorySaver())


def summarise_now(graph, config, count_tokens=None):
    """Runs a cycle now on the thread `config` names, as the policy's manual cycle folds."""
    count = count_tokens or tiktoken_counter()
    turns = split_turns(graph.get_state(config).values["messages"])
    fold = turns_to_fold_on_request([sum(message_tokens(m, count) for m in turn) for turn in turns])
    graph.update_state(config, {"fold": fold}, as_node="check")
    graph.invoke(None, config)


if __name__ == "__main__":
    graph = build_graph()
    config = {"configurable": {"thread_id": "summary-memory"}}
    for line in sys.stdin:
        state = graph.invoke({"messages": [HumanMessage(line.strip())]}, config)
        print(text_of(state["messages"][-1]))
