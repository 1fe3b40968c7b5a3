"""Summary memory as a plain Python class, exported from Summary Memory.

The interface is the summary memory lesson's `SummaryMemory`: `add_message(role, content)`
stores a message (and runs a summary cycle when the policy says so, right after a reply),
`get_messages_for_api()` is the request to send, `current_summary`, `recent_turns` (the verbatim
part) and `archive` (every message, never sent). The policy is the one you tuned:
summarise over 10 verbatim messages; the summary as a second system message, after the system
prompt; folds: progressive: the old summary plus the new turns; tokens counted with o200k_base
(exact).

Run it with `pip install openai tiktoken` and OPENAI_API_KEY set: `python summary_memory_class.py`.
"""

import sys

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
# message again from the archive, so no summary is a summary of a summary.
FOLD_MODE = "progressive"
# Where the summary goes: "second_system", "append_to_system" or "user_ack".
PLACEMENT = "second_system"
SUMMARY_HEADER = "CONVERSATION SUMMARY (earlier turns):\n"
SUMMARY_ACK = "Understood. I will use this summary of our earlier conversation."

# When to summarise: once the verbatim turns hold more than 10 messages; every
# verbatim turn but the newest is folded.
MAX_MESSAGES = 10


def turns_to_fold(turn_tokens, verbatim_messages, messages_before, messages_now, fixed_tokens):
    """How many of the oldest verbatim turns to fold after a reply (0: none)."""
    return turns_to_fold_on_request(turn_tokens) if verbatim_messages > MAX_MESSAGES else 0


def turns_to_fold_on_request(turn_tokens):
    """Every turn but the newest."""
    return max(0, len(turn_tokens) - 1)


def tiktoken_counter():
    """The default token counter: tiktoken's o200k_base, the encoding of the GPT-4o family."""
    import tiktoken

    encoding = tiktoken.get_encoding("o200k_base")
    return lambda text: len(encoding.encode(text))


def openai_summariser(client):
    """Summarises with SUMMARY_MODEL through an OpenAI-compatible `client`."""

    def summarise(messages):
        reply = client.chat.completions.create(model=SUMMARY_MODEL, temperature=0, messages=messages)
        return reply.choices[0].message.content.strip()

    return summarise


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


def render_turns(messages):
    """The folded messages as the summariser reads them, one `ROLE: text` line each."""
    lines = []
    for m in messages:
        calls = "".join(f" [calls {c['function']['name']}({c['function']['arguments']})]" for c in m.get("tool_calls") or [])
        lines.append(f"{m['role'].upper()}: {m['content']}{calls}")
    return "\n".join(lines)


def split_turns(messages):
    """The messages as turns: a turn starts at a user message after a reply or a tool result."""
    turns = []
    for m in messages:
        if not turns or (m["role"] == "user" and turns[-1][-1]["role"] != "user"):
            turns.append([])
        turns[-1].append(m)
    return turns


class SummaryMemory:
    """The lesson's summary memory under the policy above."""

    def __init__(self, system_prompt=SYSTEM_PROMPT, summarise=None, count_tokens=None):
        self.system_prompt = system_prompt
        self.summarise = summarise or openai_summariser(default_client())
        self.count_tokens = count_tokens or tiktoken_counter()
        self.current_summary = None
        self.recent_turns = []  # verbatim messages, sent with every request
        self.archive = []  # every message, never sent
        self.folded = []  # the messages summarised so far
        self.checked = 0  # messages in the archive at the previous check

    def add_message(self, role, content, **fields):
        """Stores a message (`fields`: tool_calls, tool_call_id); a reply that ends a turn
        (no tool calls) is when the policy is checked."""
        message = {"role": role, "content": content, **fields}
        self.recent_turns.append(message)
        self.archive.append(message)
        if role == "assistant" and not fields.get("tool_calls"):
            turns = split_turns(self.recent_turns)
            sizes = [sum(map(self.tokens, turn)) for turn in turns]
            fixed = sum(map(self.tokens, self.head()))
            fold = turns_to_fold(sizes, len(self.recent_turns), self.checked, len(self.archive), fixed)
            self.checked = len(self.archive)
            self.fold(fold)

    def summarise_now(self):
        """Runs a cycle now, as the policy's manual cycle folds."""
        self.fold(turns_to_fold_on_request([sum(map(self.tokens, t)) for t in split_turns(self.recent_turns)]))

    def get_messages_for_api(self):
        """The request: the system prompt, the summary where PLACEMENT puts it, the verbatim turns."""
        return self.head() + self.recent_turns

    def head(self):
        if self.current_summary is None:
            return [{"role": "system", "content": self.system_prompt}]
        text = SUMMARY_HEADER + self.current_summary
        if PLACEMENT == "append_to_system":
            return [{"role": "system", "content": self.system_prompt + "\n\n" + text}]
        if PLACEMENT == "user_ack":
            return [{"role": "system", "content": self.system_prompt}, {"role": "user", "content": text}, {"role": "assistant", "content": SUMMARY_ACK}]
        return [{"role": "system", "content": self.system_prompt}, {"role": "system", "content": text}]

    def tokens(self, message):
        """A message's tokens: its content, and each tool call's name and arguments."""
        calls = message.get("tool_calls") or []
        return self.count_tokens(message["content"] or "") + sum(self.count_tokens(c["function"]["name"]) + self.count_tokens(c["function"]["arguments"]) for c in calls)

    def fold(self, turns):
        """Summarises the oldest `turns` verbatim turns and drops them from the request."""
        if turns <= 0:
            return
        old = [m for turn in split_turns(self.recent_turns)[:turns] for m in turn]
        self.recent_turns = self.recent_turns[len(old):]
        self.folded += old
        existing = self.current_summary if FOLD_MODE == "progressive" else None
        new = render_turns(old if FOLD_MODE == "progressive" else self.folded)
        user = fold_request(existing, new)
        self.current_summary = self.summarise([{"role": "system", "content": summariser_system()}, {"role": "user", "content": user}])
        for pin in PINNED:
            label, _, text = pin.partition(": ")
            if (text or label).lower() not in self.current_summary.lower():
                print(f"[pinned fact lost] {pin}", file=sys.stderr)


def default_client():
    from openai import OpenAI

    # The client reads OPENAI_API_KEY itself, and says so when it is not set.
    return OpenAI(base_url=BASE_URL)


def make_memory(client=None, count_tokens=None, system_prompt=SYSTEM_PROMPT, summarise=None):
    """The memory: `client` is an OpenAI-compatible client for the summariser (default: BASE_URL),
    `count_tokens(text)` the counter (default: tiktoken's o200k_base)."""
    summarise = summarise or openai_summariser(client or default_client())
    return SummaryMemory(system_prompt, summarise=summarise, count_tokens=count_tokens)


def chat(memory, client, user_message):
    """One turn: the message in, the request out, the reply stored."""
    memory.add_message("user", user_message)
    reply = client.chat.completions.create(model=CHAT_MODEL, messages=memory.get_messages_for_api())
    text = reply.choices[0].message.content
    memory.add_message("assistant", text)
    return text


if __name__ == "__main__":
    client = default_client()
    memory = make_memory(client)
    for line in sys.stdin:
        print(chat(memory, client, line.strip()))
        print(f"[{len(memory.archive)} messages, summary: {memory.current_summary is not None}]", file=sys.stderr)
