"""The peer drivers' summariser: what each call is given, recorded, and a text that depends on it.

The contract's first summariser (`common.Summariser`, still the export tier's) wrote `S<k>` and
19 `w` whatever it was asked, so a library that folded the wrong messages, or the whole
conversation where it should fold only the new part, made the same requests. This one reads what
the library hands it, finds in it the summaries (by their marks) and the conversation's messages
(by their content, every one unique), records that as the call's input under `summariser_inputs`
in the trace, and writes

    S<k> d<digest> d<digest> ...   (1 + tokens // SPREAD words after S<k>)

where the digest is FNV-1a (32 bits, as 8 hex digits) of the input's canonical form (`S<j>` for
a summary, the index for a message, space-separated, in the order the library gave them) and
`tokens` is the input's size as the library counts (its summaries' words and its messages'
tokens). So both the summary's length and its words depend on the input, and every later request
that carries it compares the input too. `tests/fidelity/inputs.rs` writes the same text on the
engine's side, from `engine::schedule::SummaryInput`.

Text the library adds around the input (its prompt, a summary prefix, the cookbook's shadow
question, Gemini CLI's environment context) is neither recorded nor counted.
"""

import re
from xml.sax.saxutils import escape

from common import count_words

# A summary the input-dependent summariser wrote: `S<k>` then its digest words.
INPUT_MARK = re.compile(r"\bS(\d+)((?: d[0-9a-f]{8})+)(?![0-9a-zA-Z])")
# Words per input token past the first: the summary grows with what it folds.
SPREAD = 16


def fnv1a32(text):
    """FNV-1a, 32 bits, of `text`'s ASCII bytes."""
    h = 0x811C9DC5
    for byte in text.encode("ascii"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def summary_text(call, canonical, tokens):
    """What summariser call `call` writes for an input of canonical form `canonical` and size
    `tokens`."""
    digest = f"d{fnv1a32(canonical):08x}"
    return " ".join([f"S{call}"] + [digest] * (1 + tokens // SPREAD))


class InputSummariser:
    """Called with the text a library's summariser was given (its messages' texts joined);
    returns the next summary and records the call's input."""

    def __init__(self, conversation, tokens_of):
        """`tokens_of(index)`: the library's count of conversation message `index`."""
        self.conversation = conversation
        self.tokens_of = tokens_of
        self.calls = 0
        self.inputs = []

    def entries(self, text):
        """The summaries and conversation messages in `text`, in the order they appear."""
        found = []
        for m in INPUT_MARK.finditer(text):
            found.append((m.start(), m.end(), {"kind": "summary", "summary": int(m.group(1))}, count_words(m.group(0))))
        for index, message in enumerate(self.conversation["messages"]):
            content = message["content"]
            at = text.find(content) if content else -1
            if at < 0 and content:
                # LangChain v1's middleware hands the summariser its messages as XML
                # (`get_buffer_string(format="xml")`), each content escaped: `&`, `<`, `>`.
                content = escape(content)
                at = text.find(content)
            if at >= 0:
                found.append((at, at + len(content), {"kind": "verbatim", "index": index}, self.tokens_of(index)))
        # A message whose content lies inside another's (or inside a summary) is not its own entry.
        kept = [f for f in found if not any(o is not f and o[0] <= f[0] and f[1] <= o[1] and (o[1] - o[0]) > (f[1] - f[0]) for o in found)]
        kept.sort(key=lambda f: (f[0], -f[1]))
        return kept

    def __call__(self, text):
        self.calls += 1
        entries = self.entries(text)
        tokens = sum(f[3] for f in entries)
        canonical = " ".join(f"S{e['summary']}" if e["kind"] == "summary" else str(e["index"]) for _, _, e, _ in entries)
        self.inputs.append({"call": self.calls, "folds": [e for _, _, e, _ in entries], "tokens": tokens})
        return summary_text(self.calls, canonical, tokens)

    def attach(self, trace):
        """Puts the recorded inputs into `trace` (before it is written)."""
        trace.body["summariser_inputs"] = self.inputs


def contract_tokens(conversation):
    """The contract's count of a conversation message, by index: the words of its content and
    of each tool call's name and arguments (as the engine plays it, tests/fidelity/common.rs)."""
    messages = conversation["messages"]

    def tokens_of(index):
        m = messages[index]
        return count_words(m["content"]) + sum(count_words(c["name"]) + count_words(c["arguments"]) for c in m.get("tool_calls", []))

    return tokens_of


def content_tokens(conversation):
    """LlamaIndex's count of a conversation message, by index: the words of its content only."""
    return lambda index: count_words(conversation["messages"][index]["content"])
