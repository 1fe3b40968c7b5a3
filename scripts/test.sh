#!/usr/bin/env bash
# Installs whatever is missing, rehearses that on a machine without the tools, then runs every
# check and every test tier (tier c starts and stops the LiteLLM proxy and the llama.cpp server
# itself). Exits non-zero on the first failure. This is README command 2, and .ci/run calls it and
# nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
# Each step's time, printed at the end beside its budget; a step over its budget fails the run
# there, loudly, after every test has run (docs/testing.md: the budgets and the cold-run figures).
# The budgets are for a cold run on the 2-core machine (a warm one takes a fraction): together
# they are a ceiling, and CI's own limit is 90 minutes for the whole run.
declare -A budget=(
  [tools]=1800 [rehearsal]=300 [format]=120 [clippy-native]=1200 [clippy-wasm]=900
  [tier-a]=900 [fidelity]=900 [tier-b]=600 [release]=1200 [cli]=600 [python]=600 [tier-c]=1800
)
steps=() took=()
current="" current_start=$SECONDS
end_step() {
  if [ -n "$current" ]; then
    steps+=("$current")
    took+=("$((SECONDS - current_start))")
  fi
}
# step KEY WORDS...: ends the step before, prints the heading of this one.
step() {
  end_step
  current=$1 current_start=$SECONDS
  shift
  printf '\n==> %s\n' "$*"
}
# The table of steps, their times and budgets; exits 1 naming every step over its budget.
report() {
  end_step
  current=""
  local over=() i
  printf '\n%-14s %8s %8s\n' step seconds budget
  for i in "${!steps[@]}"; do
    printf '%-14s %8s %8s\n' "${steps[$i]}" "${took[$i]}" "${budget[${steps[$i]}]}"
    if [ "${took[$i]}" -gt "${budget[${steps[$i]}]}" ]; then
      over+=("${steps[$i]} (${took[$i]} s, budget ${budget[${steps[$i]}]} s)")
    fi
  done
  if [ "${#over[@]}" -gt 0 ]; then
    printf '\nOVER BUDGET: %s. Find what grew before it reaches CI'"'"'s 90 minutes.\n' "${over[*]}" >&2
    exit 1
  fi
}

# What tools.sh installs off the system PATH (Node.js from PyPI, wasm-opt) is linked here.
export PATH="${SM_BIN:-${SM_CACHE:-$HOME/.cache/summary-memory}/bin}:$PATH"

step tools "tools"
scripts/tools.sh --browser --servers --fidelity --python --ray

step rehearsal "rehearsal: tools.sh on a machine without its tools (scratch PATH and folders)"
scripts/rehearse.sh

step format "format"
cargo fmt --all --check

step clippy-native "clippy, native (core, the sm-bpe crate, tests, benches)"
cargo clippy --workspace --all-targets --features e2e -- -D warnings

step clippy-wasm "clippy, wasm32 (shell and browser tests)"
cargo clippy --target wasm32-unknown-unknown --lib --bins --test browser -- -D warnings
cargo clippy --target wasm32-unknown-unknown -p sm-bpe -- -D warnings

step tier-a "tier a: native tests of the pure core"
cargo test --workspace

step fidelity "fidelity tier: the real libraries (LangChain, LlamaIndex, openai-agents, Gemini CLI) against the committed traces, then the engine's presets against them"
fidelity_out=$(mktemp -d)
tests/fidelity/run.sh "$fidelity_out/traces"
[ -f tests/fidelity.rs ] || { echo "fidelity: tests/fidelity.rs, the engine's side of the comparison, is missing" >&2; exit 1; }
# tests/fidelity.rs also re-runs tests/fidelity/counters.py live (LangChain's, tiktoken's and
# Gemini CLI's own token counts) and fails when tests/fidelity/counters/expected.json, which
# tests/counters.rs holds every counter to, is stale.
SM_FIDELITY_TRACES="$fidelity_out/traces" cargo test --test fidelity
SM_FIDELITY_EXPORT_TRACES="$fidelity_out/traces.export" cargo test --test fidelity_export
rm -rf "$fidelity_out"

step tier-b "tier b: browser-only modules in headless Chromium (wasm-bindgen-test)"
CHROMEDRIVER=$(command -v chromedriver) WASM_BINDGEN_TEST_TIMEOUT=120 \
  cargo test --target wasm32-unknown-unknown --test browser

step release "release build (trunk --offline), and its size guard's own test"
python3 tests/split_guard.py
trunk build --release --offline

step cli "the command-line tool, whose CSV the corpus e2e test compares the page's with"
cargo build -p summary-memory-cli
SM_CLI="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/debug/summary-memory-cli"
export SM_CLI

step python "the Python package (py): the abi3 wheel by maturin, pytest against the CLI, Ray Data on a local two-node cluster, the LangChain middleware against the dry run"
scripts/python.sh --ray --middleware

step tier-c "tier c: end-to-end in headless Chromium against the release build (our test server, the LiteLLM proxy, a real model)"
# One chromedriver for the whole tier, in a process group of its own, so that it and any browser
# a failed test left open are stopped when this script ends, however it ends.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
setsid chromedriver --port="$port" >/dev/null 2>&1 &
driver=$!
trap 'kill -- "-$driver" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
# No backtraces here: a failing end-to-end test's message (what the page showed) is what a reader
# of CI's output needs, and a backtrace of the async runtime would push it out of the tail.
RUST_BACKTRACE=0 SM_WEBDRIVER="http://127.0.0.1:$port" cargo test --features e2e --test e2e -- --test-threads=2 \
  --skip big_import:: --skip big_library::
# The large-file tests (a 300 MB export, a library of 20,000 sessions) hold both cores for
# minutes: they run after the rest, one at a time, so that no other test's patience runs out
# beside them and their 50 ms check measures the page, not its neighbours.
RUST_BACKTRACE=0 SM_WEBDRIVER="http://127.0.0.1:$port" cargo test --features e2e --test e2e -- --test-threads=1 \
  big_import:: big_library::

report
printf '\nAll checks and tests passed in %ss.\n' "$((SECONDS - start))"
