"""What the export drivers share: importing each exported snippet as it is, and writing its
trace to <out>/<target>/<policy>-<shape>.json.

A driver's arguments are the output folder and the folder of snippets the app wrote
(`<snippets>/<target>/<policy>.py`); each snippet is imported from its file, unmodified.
"""

import importlib.util
import json
import sys
from pathlib import Path

from common import HERE

OUT = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else HERE / "export-traces"
SNIPPETS = Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else HERE / "export-snippets"


def snippets(target):
    """(policy id, imported module) for every snippet of `target`, in a stable order."""
    folder = SNIPPETS / target
    paths = sorted(folder.glob("*.py"))
    if not paths:
        raise SystemExit(f"{folder}: no exported snippets; write them with the app's export generator first")
    for path in paths:
        spec = importlib.util.spec_from_file_location(f"snippet_{target}_{path.stem}".replace("-", "_"), path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield path.stem, module


def write(trace, target, policy, summariser_calls):
    """Writes `trace` (a common.Trace) for `policy` of `target`."""
    trace.body["summariser_calls"] = summariser_calls
    path = OUT / target / f"{policy}-{trace.body['shape']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(trace.body, indent=1) + "\n", encoding="ascii")
    return path
