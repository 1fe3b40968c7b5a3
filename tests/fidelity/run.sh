#!/usr/bin/env bash
# The fidelity tier's first half: runs every driver against the real libraries into a scratch
# directory and fails if any regenerated trace differs from the committed one
# (tests/fidelity/traces/). scripts/test.sh then runs `cargo test --test fidelity` on the fresh
# traces. It fails loudly, naming the fix, when an environment is missing.
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
command -v node >/dev/null || { echo "fidelity: node is not on PATH; run scripts/tools.sh --fidelity" >&2; exit 1; }

cd tests/fidelity
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
