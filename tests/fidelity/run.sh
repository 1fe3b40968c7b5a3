#!/usr/bin/env bash
# The fidelity tier's first half: runs every driver against the real libraries into a scratch
# directory and fails if any regenerated trace differs from the committed one
# (tests/fidelity/traces/). scripts/test.sh then runs `cargo test --test fidelity` on the fresh
# traces. It fails loudly, naming the fix, when an environment is missing.
#
# The export tier (tests/fidelity/export/) runs the same way: every exported snippet, unmodified,
# into <out_dir>.export, diffed against tests/fidelity/export-traces/; scripts/test.sh then runs
# `cargo test --test fidelity_export` on them.
#
# Usage: tests/fidelity/run.sh <out_dir>
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: tests/fidelity/run.sh <out_dir>}
mkdir -p "$out"
out=$(cd "$out" && pwd)

venv=$(scripts/tools.sh --venv fidelity)
modules=$(scripts/tools.sh --venv fidelity-node)
[ -f "$venv/.pins" ] || { echo "fidelity: the Python environment $venv is missing or unfinished; run scripts/tools.sh --fidelity" >&2; exit 1; }
[ -f "$modules/../.pins" ] || { echo "fidelity: the npm package directory $modules is missing or unfinished; run scripts/tools.sh --fidelity" >&2; exit 1; }
# scripts/tools.sh links a new enough Node.js into SM_BIN when the system's is older.
export PATH="${SM_BIN:-${SM_CACHE:-$HOME/.cache/summary-memory}/bin}:$PATH"
node_major=$(node --version 2>/dev/null | sed -n 's/^v\([0-9]*\)\..*/\1/p') || true
[ "${node_major:-0}" -ge 20 ] || { echo "fidelity: @google/gemini-cli-core needs Node.js >= 20, found '${node_major:-none}'; run scripts/tools.sh --fidelity" >&2; exit 1; }

cd tests/fidelity
# The drivers' bytecode would land beside them, in the working tree.
export PYTHONDONTWRITEBYTECODE=1
for driver in langchain_classic_driver.py langchain_v1_driver.py llamaindex_driver.py openai_agents_driver.py; do
  echo "fidelity: $driver"
  "$venv/bin/python" "$driver" "$out" >/dev/null
done
echo "fidelity: gemini_cli_driver.mjs"
node gemini_cli_driver.mjs "$out" "$modules" >/dev/null

# Every committed trace must come out again, byte for byte, and no driver may write one that is
# not committed.
if ! diff -r traces "$out" >"$out.diff"; then
  echo "fidelity: regenerated traces differ from tests/fidelity/traces (the first lines of $out.diff):" >&2
  head -n 40 "$out.diff" >&2
  exit 1
fi
rm -f "$out.diff"
echo "fidelity: $(find "$out" -name '*.json' | wc -l) traces regenerated, identical to the committed ones"

# The export tier: each exported snippet as the app writes it (tests/fidelity_export.rs fails
# when the committed snippets are stale), run in the real libraries.
export_out="$out.export"
mkdir -p "$export_out"
echo "fidelity: export/export_driver.py"
"$venv/bin/python" export/export_driver.py "$export_out" >/dev/null
# The snippets whose summary logic the app writes itself, each in its own library.
for driver in langgraph_driver.py agents_session_driver.py seed_class_driver.py; do
  echo "fidelity: export/$driver"
  "$venv/bin/python" "export/$driver" "$export_out" >/dev/null
done
echo "fidelity: export/export_driver.mjs"
node export/export_driver.mjs "$export_out" "$modules" >/dev/null
if ! diff -r export-traces "$export_out" >"$export_out.diff"; then
  echo "fidelity: regenerated export traces differ from tests/fidelity/export-traces (the first lines of $export_out.diff):" >&2
  head -n 40 "$export_out.diff" >&2
  exit 1
fi
rm -f "$export_out.diff"
echo "fidelity: $(find "$export_out" -name '*.json' | wc -l) export traces regenerated, identical to the committed ones"
