"""What every Python driver of the fidelity tier shares: the conversations, the contract's
word counter and fake summariser, and the trace writer (see tests/fidelity/README.md).

The drivers describe each chat-model request in the library's own message objects; this module
turns each message back into what it is in the contract's terms (the system prompt, a summary,
a conversation message kept verbatim, or text the library adds) by its content alone. That
works because every conversation message is unique (checked on load) and every summary carries
the marker `S<k>` the fake summariser writes.
"""

import json
import os
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONVERSATIONS = HERE / "conversations"
# Where the traces go: the first argument of a driver, else the committed traces.
OUT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else HERE / "traces"
# A second directory each trace is copied to, when SM_FIDELITY_SHARE names one (a colleague
# reading fresh traces while they are made); unset, nothing is copied.
SHARE = Path(os.environ["SM_FIDELITY_SHARE"]) if os.environ.get("SM_FIDELITY_SHARE") else None

SUMMARY_MARK = re.compile(r"\bS(\d+)(?: w){19}\b")


def shapes():
    """The conversation shapes, in a stable order."""
    return sorted(p.stem for p in CONVERSATIONS.glob("*.json"))


def load(shape):
    """The conversation `shape`, after checking that no two messages share a content."""
    path = CONVERSATIONS / f"{shape}.json"
    conversation = json.loads(path.read_text(encoding="ascii"))
    seen = {}
    for index, message in enumerate(conversation["messages"]):
        key = message["content"]
        if key in seen:
            raise SystemExit(f"{path}: messages {seen[key]} and {index} have the same content, so a trace could not tell them apart")
        seen[key] = index
    return conversation


def count_words(text):
    """The contract's counter for one text: whitespace-separated words."""
    return len(text.split())


def message_tokens(content, tool_calls=()):
    """The contract's counter for one message: the words of its content and, for each tool call,
    of its name and its arguments."""
    total = count_words(content)
    for name, arguments in tool_calls:
        total += count_words(name) + count_words(arguments)
    return total


class Summariser:
    """The contract's fake summariser: the k-th call returns `S<k>` and 19 words `w`."""

    def __init__(self):
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return " ".join([f"S{self.calls}"] + ["w"] * 19)


def summary_number(text):
    """The newest summariser call whose text `text` carries, or None (either summariser's
    marks: this module's, or inputs.py's, whose text depends on its input)."""
    from inputs import INPUT_MARK

    found = [int(m.group(1)) for mark in (SUMMARY_MARK, INPUT_MARK) for m in mark.finditer(text)]
    return max(found) if found else None


class Trace:
    """One library's trace on one conversation."""

    def __init__(self, conversation, library, version, source, params, notes):
        self.conversation = conversation
        self.by_content = {m["content"]: i for i, m in enumerate(conversation["messages"])}
        self.body = {
            "library": library,
            "version": version,
            "source": source,
            "params": params,
            "shape": conversation["shape"],
            "summariser_calls": 0,
            "requests": [],
        }
        if notes:
            self.body["notes"] = list(notes)

    def entry(self, role, text):
        """The contract's description of one request message with `role` and content `text`."""
        if role == "system" and text == self.conversation["system"]:
            return {"kind": "system"}
        k = summary_number(text)
        if k is not None:
            return {"kind": "summary", "summary": k, "role": role, "text": text}
        index = self.by_content.get(text)
        if index is not None and self.conversation["messages"][index]["role"] == role:
            return {"kind": "verbatim", "index": index}
        for index, message in enumerate(self.conversation["messages"]):
            if message["role"] == role and message["content"] and text and (text in message["content"] or message["content"] in text):
                return {"kind": "altered", "index": index, "text": text}
        return {"kind": "fixed", "role": role, "text": text}

    def request(self, answers, entries):
        """Records one chat-model request, answering conversation message `answers`."""
        requests = self.body["requests"]
        requests.append({"request": len(requests) + 1, "answers": answers, "messages": entries})

    def request_auto(self, entries):
        """Records one request that answers its newest user or tool message kept verbatim."""
        answers = None
        for entry in entries:
            if entry["kind"] == "verbatim" and self.conversation["messages"][entry["index"]]["role"] in ("user", "tool"):
                answers = entry["index"]
        if answers is None:
            raise SystemExit(f"{self.body['shape']}: request {len(self.body['requests']) + 1} holds no user or tool message of the conversation: {entries}")
        self.request(answers, entries)

    def write(self, slug, summariser_calls, under=None):
        """Writes the trace to OUT/<slug>/<shape>.json, or OUT/<slug>/<under>/<shape>.json (and
        to SHARE when it exists)."""
        self.body["summariser_calls"] = summariser_calls
        path = OUT / slug / (under or "") / f"{self.body['shape']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.body, indent=1) + "\n", encoding="ascii")
        if SHARE is not None:
            (SHARE / slug / (under or "")).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, SHARE / slug / (under or "") / path.name)
        return path


def turns(conversation):
    """The conversation as turns: (index of the user message, [the messages the model's side
    adds, with their indices]) where the model's side is the assistant messages and the tool
    results that follow them until the next user message."""
    out = []
    for index, message in enumerate(conversation["messages"]):
        if message["role"] == "user":
            out.append((index, []))
        else:
            out[-1][1].append((index, message))
    return out
