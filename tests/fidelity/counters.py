"""Each library's own token count over the counter corpus, computed by the library itself.

Reads tests/fidelity/counters/conversations.json (written by `tests/counters.rs` from the wild
fixtures, the multilingual texts and the two counter conversations, as the engine reads them)
and writes, for every conversation, each message's count and the whole list's by:

- langchain-approx: langchain_core.messages.utils.count_tokens_approximately, at its defaults,
  over LangChain messages built as an agent holds them (an AI message's tool calls parsed from
  their JSON arguments, an unparsable or non-object one kept as an invalid call; a tool message
  with its tool_call_id and name);
- o200k, cl100k: tiktoken's encode_ordinary of the content and of each call's name and
  arguments; o200k-chat, cl100k-chat: the same plus OpenAI's cookbook overhead (3 per message
  and the role's tokens, 3 per list). Offline: cl100k_base comes from the cache llama-index-core
  ships, o200k_base from tiktoken-rs's copy, the vocabulary this project builds its own from;
  tiktoken checks both files' published hashes, and any download is refused;
- gemini-estimate: @google/gemini-cli-core's estimateTokenCountSync, run by
  counters_gemini.mjs in Node.

Usage: <fidelity venv>/bin/python tests/fidelity/counters.py [out.json] [node_modules]
(defaults: tests/fidelity/counters/expected.json, and `scripts/tools.sh --venv fidelity-node`).
"""

import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS = HERE / "counters" / "conversations.json"
O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


def tiktoken_rs_o200k():
    """tiktoken-rs's o200k_base.tiktoken, at the version Cargo.lock pins, in cargo's registry."""
    lock = (ROOT / "Cargo.lock").read_text()
    match = re.search(r'name = "tiktoken-rs"\nversion = "([^"]+)"', lock)
    if not match:
        raise SystemExit("counters.py: Cargo.lock pins no tiktoken-rs")
    cargo_home = pathlib.Path(os.environ.get("CARGO_HOME", pathlib.Path.home() / ".cargo"))
    found = sorted(cargo_home.glob(f"registry/src/*/tiktoken-rs-{match.group(1)}/assets/o200k_base.tiktoken"))
    if not found:
        raise SystemExit(f"counters.py: tiktoken-rs {match.group(1)} is not in {cargo_home}/registry; run cargo fetch")
    return found[0]


def offline_tiktoken():
    """tiktoken with both vocabularies in a scratch cache, and downloads refused."""
    import llama_index.core
    import tiktoken
    import tiktoken.load

    cache = pathlib.Path(tempfile.mkdtemp(prefix="sm-tiktoken-"))
    shipped = pathlib.Path(llama_index.core.__file__).parent / "_static" / "tiktoken_cache"
    for f in shipped.iterdir():
        shutil.copy(f, cache / f.name)
    shutil.copy(tiktoken_rs_o200k(), cache / hashlib.sha1(O200K_URL.encode()).hexdigest())
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)

    def refuse(path):
        raise SystemExit(f"counters.py: tiktoken tried to download {path}; the vocabularies must come from the cache")

    tiktoken.load.read_file = refuse
    encodings = {"o200k": tiktoken.get_encoding("o200k_base"), "cl100k": tiktoken.get_encoding("cl100k_base")}
    shutil.rmtree(cache)
    return encodings


def tiktoken_counts(encoding, messages, chat):
    """The content and each call's name and arguments; with the cookbook's chat overhead."""
    tokens = lambda text: len(encoding.encode_ordinary(text))
    each = []
    for m in messages:
        n = tokens(m["content"])
        for call in m.get("tool_calls", []):
            n += tokens(call["name"]) + tokens(call["arguments"])
        if chat:
            n += 3 + tokens(m["role"])
        each.append(n)
    return {"messages": each, "total": sum(each) + (3 if chat else 0)}


def langchain_message(m):
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    if m["role"] == "system":
        return SystemMessage(m["content"])
    if m["role"] == "user":
        return HumanMessage(m["content"])
    if m["role"] == "tool":
        return ToolMessage(m["content"], tool_call_id=m.get("tool_call_id", ""), name=m.get("name"))
    calls, invalid = [], []
    for call in m.get("tool_calls", []):
        try:
            args = json.loads(call["arguments"])
        except ValueError:
            args = None
        if isinstance(args, dict):
            calls.append({"name": call["name"], "args": args, "id": call["id"], "type": "tool_call"})
        else:
            invalid.append({"name": call["name"], "args": call["arguments"], "id": call["id"], "error": None, "type": "invalid_tool_call"})
    return AIMessage(m["content"], tool_calls=calls, invalid_tool_calls=invalid)


def langchain_counts(messages):
    from langchain_core.messages.utils import count_tokens_approximately

    converted = [langchain_message(m) for m in messages]
    return {
        "messages": [count_tokens_approximately([m]) for m in converted],
        "total": count_tokens_approximately(converted),
    }


def gemini_counts(modules):
    node = shutil.which("node")
    if not node:
        raise SystemExit("counters.py: node is not on PATH; run scripts/tools.sh --fidelity")
    run = subprocess.run(
        [node, str(HERE / "counters_gemini.mjs"), str(CORPUS), str(modules)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(run.stdout)


def default_modules():
    run = subprocess.run([str(ROOT / "scripts/tools.sh"), "--venv", "fidelity-node"], check=True, capture_output=True, text=True)
    return run.stdout.strip()


def main():
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "counters" / "expected.json"
    modules = sys.argv[2] if len(sys.argv) > 2 else default_modules()
    import langchain_core
    import tiktoken

    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))["conversations"]
    encodings = offline_tiktoken()
    gemini = gemini_counts(modules)
    counts = {}
    for conversation in corpus:
        messages = conversation["messages"]
        counts[conversation["name"]] = {
            "langchain-approx": langchain_counts(messages),
            "gemini-estimate": gemini["counts"][conversation["name"]],
            "o200k": tiktoken_counts(encodings["o200k"], messages, chat=False),
            "o200k-chat": tiktoken_counts(encodings["o200k"], messages, chat=True),
            "cl100k": tiktoken_counts(encodings["cl100k"], messages, chat=False),
            "cl100k-chat": tiktoken_counts(encodings["cl100k"], messages, chat=True),
        }
    expected = {
        "libraries": {
            "langchain-core": langchain_core.__version__,
            "tiktoken": tiktoken.__version__,
            "@google/gemini-cli-core": gemini["version"],
        },
        "counts": counts,
    }
    out.write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
