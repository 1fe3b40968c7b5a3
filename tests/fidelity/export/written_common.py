"""What the drivers of the snippets whose logic the app writes (LangGraph, the Agents session,
the seed class) share: importing each exported snippet as it is, and writing its trace to
<out>/<target>/<case>-<shape>.json.

A driver's one argument is the output folder (by default the committed
tests/fidelity/export-traces/); the snippets are the generator's
(tests/fidelity/export/snippets/<target>/<case>.py, written by
`cargo run --example export_snippets`), each imported from its file, unmodified.
"""

import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The tier's shared modules (common.py, lc_fakes.py, the cookbook driver) are one folder up.
sys.path.insert(0, str(HERE.parent))

OUT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else HERE.parent / "export-traces"
SNIPPETS = HERE / "snippets"


def snippets(target):
    """(case name, imported module) for every snippet of `target`, in a stable order."""
    folder = SNIPPETS / target
    paths = sorted(folder.glob("*.py"))
    if not paths:
        raise SystemExit(f"{folder}: no exported snippets; write them with the app's export generator first")
    for path in paths:
        spec = importlib.util.spec_from_file_location(f"snippet_{target}_{path.stem}".replace("-", "_"), path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield path.stem.replace("_", "-"), module


def write(trace, target, case, summariser_calls):
    """Writes `trace` (a common.Trace) for `case` of `target`."""
    trace.body["summariser_calls"] = summariser_calls
    path = OUT / target / f"{case}-{trace.body['shape']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(trace.body, indent=1) + "\n", encoding="ascii")
    return path


def check_summariser_requests(snippet, requests, conversation, where):
    """Each summariser request (system text, user text), in call order, is told the snippet's
    prompt, word limit and topic instruction, and folds as FOLD_MODE says: progressively, from
    the second call on, the summary the call before wrote; rebuilt, every folded message again
    from the conversation's first."""
    first = conversation["messages"][0]["content"]
    for call, (system, user) in enumerate(requests, start=1):
        problems = []
        if snippet.SUMMARY_PROMPT.strip() not in system or f"Write at most {snippet.WORD_LIMIT} words." not in system:
            problems.append("the prompt or the word limit is missing")
        if snippet.SUMMARY_SECTIONS and snippet.SUMMARY_SECTIONS not in system:
            problems.append("the topic instruction is missing")
        if snippet.FOLD_MODE == "progressive" and call > 1:
            if not user.startswith(f"EXISTING SUMMARY (from previous turns):\nS{call - 1} "):
                problems.append(f"it does not fold summary {call - 1}")
        elif not user.startswith("CONVERSATION TURNS TO SUMMARISE:\n") or first not in user:
            problems.append("it does not summarise from the conversation's first message")
        if problems:
            raise SystemExit(f"{where}, summariser call {call}: {'; '.join(problems)}: {user[:160]!r}")
