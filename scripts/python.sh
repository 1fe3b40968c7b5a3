#!/usr/bin/env bash
# The Python package's tiers (py): builds the abi3 wheel with maturin (debug: the tests run
# in seconds on it), unpacks it into the target directory, and runs its pytest tests against the
# real CLI (SM_CLI, built here when unset); --ray then runs the Ray tier too (py/tests/ray,
# a local two-node cluster) in its own venv. The venvs are scripts/tools.sh --python / --ray's.
# --middleware then runs the LangChain middleware (summary_memory.langchain) in the fidelity
# tier's venv (scripts/tools.sh --fidelity's, which has langchain 1.x): a real create_agent on the
# eight shapes under each policy of tests/fidelity/middleware/policies.json, the traces diffed
# against the committed ones and compared with the app's dry run (tests/fidelity_middleware.rs).
# Arguments after the options go to pytest (both runs).
#
# Usage: scripts/python.sh [--ray] [--middleware] [pytest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
ray=0 middleware=0
while [ $# -gt 0 ]; do
  case $1 in
    --ray) ray=1 ;;
    --middleware) middleware=1 ;;
    *) break ;;
  esac
  shift
done
target=${CARGO_TARGET_DIR:-$PWD/target}
mkdir -p "$target"
target=$(cd "$target" && pwd)
py=$(scripts/tools.sh --venv python)
[ -x "$py/bin/maturin" ] || { echo "python: $py has no maturin; run scripts/tools.sh --python" >&2; exit 1; }
if [ -z "${SM_CLI:-}" ]; then
  cargo build -q -p summary-memory-cli
  SM_CLI=$target/debug/summary-memory-cli
fi
export SM_CLI

# The wheel, and the package unpacked from it where both venvs import it (PYTHONPATH: Ray's
# workers inherit it).
rm -rf "$target/wheels/py" "$target/python"
(cd py && "$py/bin/maturin" build -q -o "$target/wheels/py")
"$py/bin/python" -m pip install -q --disable-pip-version-check --no-deps --target "$target/python" "$target"/wheels/py/*.whl
export PYTHONPATH=$target/python

cd py
"$py/bin/python" -m pytest -q -p no:cacheprovider "$@"
if [ "$ray" = 1 ]; then
  venv=$(cd .. && scripts/tools.sh --venv ray)
  [ -x "$venv/bin/python" ] || { echo "python: no Ray venv at $venv; run scripts/tools.sh --ray" >&2; exit 1; }
  # py/tests holds the shared conftest; the package tier leaves the Ray tier's folder out
  # (pyproject.toml's norecursedirs), so it is named here.
  "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/ray "$@"
fi
if [ "$middleware" = 1 ]; then
  cd ..
  venv=$(scripts/tools.sh --venv fidelity)
  [ -f "$venv/.pins" ] || { echo "python: no fidelity venv at $venv; run scripts/tools.sh --fidelity" >&2; exit 1; }
  out=$(mktemp -d)
  echo "python: tests/fidelity/middleware/driver.py"
  PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" tests/fidelity/middleware/driver.py "$out" >/dev/null
  if ! diff -r tests/fidelity/middleware-traces "$out" >"$out.diff"; then
    echo "python: the middleware's traces differ from tests/fidelity/middleware-traces (the first lines of $out.diff):" >&2
    head -n 40 "$out.diff" >&2
    exit 1
  fi
  rm -f "$out.diff"
  SM_MIDDLEWARE_TRACES=$out cargo test -q --test fidelity_middleware
  rm -rf "$out"
fi
