"""Summary memory as an OpenAI Agents SDK session, exported from Summary Memory.

`SummarizingSession` is a session in the style of the OpenAI cookbook's (agents_sdk/
session_memory.ipynb): the Runner reads the history from it before each run and stores what the
run adds, and the session replaces the oldest turns with a summary. Its policy is the one you
tuned:
summarise over 250 tokens of verbatim turns, keep 100; the summary appended to the system
prompt; folds: progressive: the old summary plus the new turns; tokens counted with o200k_base
(exact).

Run it with `pip install openai-agents tiktoken` and OPENAI_API_KEY set: `python summary_memory_agents_session.py`.
"""

import asyncio
import sys

from agents import Agent, Runner, set_tracing_disabled
from agents.memory.session import SessionABC

BASE_URL = "https://api.openai.com/v1"
CHAT_MODEL = "gpt-4o-mini"
SUMMARY_MODEL = "gpt-4o-mini"
SYSTEM_PROMPT = "You are a helpful assistant."  # Put your agent's own instructions here.

# What the summariser is told. The facts listed must survive every summary.
SUMMARY_PROMPT = "Summarise the conversation so far {briefly}, keeping \"every figure\"."
MUST_KEEP = []
WORD_LIMIT = 150
# What the summariser is told about topic sections, when the summary is kept as sections.
SUMMARY_SECTIONS = None
# Pinned facts ("label: text"): after each cycle, the ones the new summary lost are reported.
PINNED = []
# "progressive" folds the old summary and the new turns; "rebuild" summarises every folded
# item again, so no summary is a summary of a summary.
FOLD_MODE = "progressive"
# Where the summary goes: "second_system", "append_to_system" (the agent's instructions, through
# `session.instructions`) or "user_ack".
PLACEMENT = "append_to_system"
SUMMARY_HEADER = "CONVERSATION SUMMARY (earlier turns):\n"
SUMMARY_ACK = "Understood. I will use this summary of our earlier conversation."

# When to summarise: once the verbatim turns hold more than 250 tokens, the oldest whole
# turns are folded until the rest fits in 100. The newest turn always stays, even
# when it alone is larger than the budget. The system prompt and the summary come on top.
BUDGET = 250
KEEP_TOKENS = 100


def turns_to_fold(turn_tokens, verbatim_messages, messages_before, messages_now, fixed_tokens):
    """How many of the oldest verbatim turns to fold after a reply (0: none)."""
    return turns_to_fold_on_request(turn_tokens) if sum(turn_tokens) > BUDGET else 0


def turns_to_fold_on_request(turn_tokens):
    """Folds the oldest turns until the rest fits KEEP_TOKENS, never the newest one."""
    left, folded = sum(turn_tokens), 0
    while left > KEEP_TOKENS and folded + 1 < len(turn_tokens):
        left -= turn_tokens[folded]
        folded += 1
    return folded


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


def role_of(item):
    """The conversation role of a stored item: a function call belongs to the reply before it."""
    kind = item.get("type")
    if kind == "function_call":
        return "call"
    if kind == "function_call_output":
        return "tool"
    return item.get("role", "user")


def text_of(item):
    """The text an item carries (a message's content, a call's name and arguments, a result)."""
    if item.get("type") == "function_call":
        return item["name"] + " " + item["arguments"]
    if item.get("type") == "function_call_output":
        return str(item["output"])
    content = item.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or [])


def split_turns(items):
    """The items as turns: a turn starts at a user message after a reply or a tool result."""
    turns = []
    for item in items:
        if not turns or (role_of(item) == "user" and role_of(turns[-1][-1]) != "user"):
            turns.append([])
        turns[-1].append(item)
    return turns


class SummarizingSession(SessionABC):
    """A session that keeps the newest turns word for word and the rest as one summary."""

    def __init__(self, summarise, count_tokens=None, instructions=SYSTEM_PROMPT, session_id="summary-memory"):
        self.session_id = session_id
        self.base = instructions  # the agent's own instructions
        self.session_settings = None
        self.summarise = summarise  # async: summariser messages -> text
        self.count_tokens = count_tokens or tiktoken_counter()
        self.summary = None
        self.items = []  # the verbatim items
        self.folded = []  # the items summarised so far
        self.seen = 0  # messages stored, folded ones included
        self.checked = 0  # `seen` at the previous check

    def instructions(self, context=None, agent=None):
        """The agent's instructions (the Agent calls this before each request), with the summary
        appended when PLACEMENT says so."""
        if PLACEMENT == "append_to_system" and self.summary is not None:
            return self.base + "\n\n" + SUMMARY_HEADER + self.summary
        return self.base

    def head(self):
        """The items before the verbatim ones: the summary, unless it is in the instructions."""
        if self.summary is None or PLACEMENT == "append_to_system":
            return []
        text = SUMMARY_HEADER + self.summary
        if PLACEMENT == "user_ack":
            return [{"role": "user", "content": text}, {"role": "assistant", "content": SUMMARY_ACK}]
        return [{"role": "system", "content": text}]

    async def get_items(self, limit=None):
        items = self.head() + [dict(item) for item in self.items]
        return items[-limit:] if limit else items

    async def add_items(self, items):
        for item in items:
            item = item if isinstance(item, dict) else item.model_dump(exclude_unset=True)
            self.items.append(item)
            self.seen += role_of(item) != "call"
        # A reply with no tool call after it ends the turn: that is when the policy is checked.
        if self.items and role_of(self.items[-1]) == "assistant":
            await self.check()

    async def check(self):
        sizes = [sum(map(self.tokens, turn)) for turn in split_turns(self.items)]
        messages = sum(role_of(item) != "call" for item in self.items)
        fixed = self.count_tokens(self.instructions()) + sum(map(self.tokens, self.head()))
        fold = turns_to_fold(sizes, messages, self.checked, self.seen, fixed)
        self.checked = self.seen
        await self.fold(fold)

    async def summarise_now(self):
        """Runs a cycle now, as the policy's manual cycle folds."""
        await self.fold(turns_to_fold_on_request([sum(map(self.tokens, t)) for t in split_turns(self.items)]))

    def tokens(self, item):
        if role_of(item) == "call":
            return self.count_tokens(item["name"]) + self.count_tokens(item["arguments"])
        return self.count_tokens(text_of(item))

    async def fold(self, turns):
        """Summarises the oldest `turns` verbatim turns and drops them from the history."""
        if turns <= 0:
            return
        old = [item for turn in split_turns(self.items)[:turns] for item in turn]
        self.items = self.items[len(old):]
        self.folded += old
        progressive = FOLD_MODE == "progressive"
        new = "\n".join(f"{role_of(i).upper()}: {text_of(i)}" for i in (old if progressive else self.folded))
        user = fold_request(self.summary if progressive else None, new)
        self.summary = await self.summarise(summariser_system(), user)
        for pin in PINNED:
            label, _, text = pin.partition(": ")
            if (text or label).lower() not in self.summary.lower():
                print(f"[pinned fact lost] {pin}", file=sys.stderr)

    async def pop_item(self):
        return self.items.pop() if self.items else None

    async def clear_session(self):
        self.items, self.folded, self.summary, self.seen, self.checked = [], [], None, 0, 0


def openai_model(name):
    """A chat-completions model at BASE_URL (any OpenAI-compatible server)."""
    from agents import OpenAIChatCompletionsModel
    from openai import AsyncOpenAI

    return OpenAIChatCompletionsModel(model=name, openai_client=AsyncOpenAI(base_url=BASE_URL))


def make_agent(model=None, summary_model=None, count_tokens=None, tools=(), instructions=SYSTEM_PROMPT):
    """The agent and its session: `model` answers, `summary_model` summarises (both Agents SDK
    models, default: CHAT_MODEL and SUMMARY_MODEL at BASE_URL), `count_tokens(text)` counts
    (default: tiktoken's o200k_base)."""
    summariser = Agent(name="summariser", instructions="", model=summary_model or openai_model(SUMMARY_MODEL))

    async def summarise(system, user):
        result = await Runner.run(summariser.clone(instructions=system), user)
        return str(result.final_output).strip()

    session = SummarizingSession(summarise, count_tokens, instructions)
    agent = Agent(name="assistant", instructions=session.instructions, model=model or openai_model(CHAT_MODEL), tools=list(tools))
    return agent, session


async def main():
    # The SDK sends traces to OpenAI with the key; another provider's key would be refused there.
    set_tracing_disabled(not BASE_URL.startswith("https://api.openai.com/"))
    agent, session = make_agent()
    for line in sys.stdin:
        result = await Runner.run(agent, line.strip(), session=session)
        print(result.final_output)


if __name__ == "__main__":
    asyncio.run(main())
