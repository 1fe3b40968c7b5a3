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
