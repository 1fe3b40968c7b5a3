#!/usr/bin/env bash
# Rehearses scripts/tools.sh on a machine that lacks its tools, in seconds: each run sees a scratch
# PATH (links to every command on the real PATH except the hidden ones) and installs into a scratch
# folder (SM_CACHE, SM_BIN, npm_config_prefix), so the real machine is left as it was.
#
#   1. Node.js and wasm-opt hidden: a real run installs both into the scratch folder, and they are
#      then found there at the right versions; a second run installs nothing.
#   2. Every tool hidden at once (trunk, wasm-bindgen-cli, wasm-opt, Node.js, chromium,
#      chromedriver, the LiteLLM and llama-cpp-python virtual environments, and the fidelity tier's
#      Python and npm libraries): --plan lists each,
#      installs nothing, and exits 0.
#   3. Every tool present at a wrong version (stand-in scripts): --plan lists each as found.
#
# It fails if tools.sh exits non-zero or leaves a tool missing: a check that ends the script
# when its command is absent (the `have=$(wasm-opt --version | sed …)` bug) fails runs 1 and 2.
# Scripts/test.sh runs it right after the real tools.sh, so the tools not hidden are present.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
start=$SECONDS

root=$(mktemp -d "${TMPDIR:-/tmp}/sm-rehearse.XXXXXX")
trap 'rm -rf "$root"' EXIT

fail() {
  printf 'rehearse: FAIL: %s\n' "$*" >&2
  exit 1
}
ok() { printf 'rehearse: ok: %s\n' "$*" >&2; }

# Hidden in one run or another (Node.js with the commands it ships, binaryen, the cargo-installed
# tools, the browser).
hidden=(node npm npx corepack wasm-opt trunk wasm-bindgen chromium chromium-browser chromedriver)

# $root/base: a link to the first command of each name on PATH, as PATH would find it, except the
# hidden ones. Each run puts its own few links or stand-ins in front of it.
declare -A hide=()
for name in "${hidden[@]}"; do hide[$name]=1; done
mkdir -p "$root/base"
IFS=: read -r -a path_dirs <<<"$PATH"
for dir in "${path_dirs[@]}"; do
  [ -d "$dir" ] || continue
  for file in "$dir"/*; do
    name=${file##*/}
    if [ -n "${hide[$name]:-}" ] || [ -e "$root/base/$name" ] || [ -L "$root/base/$name" ]; then
      continue
    fi
    if [ -x "$file" ] && [ ! -d "$file" ]; then ln -s "$file" "$root/base/$name"; fi
  done
done

# Links the real commands named into $1, so a run sees them although the base hides them.
reveal() {
  local into=$1 name found
  shift
  mkdir -p "$into"
  for name in "$@"; do
    found=$(command -v "$name") || fail "$name is not installed on this machine; run scripts/tools.sh --browser first"
    ln -s "$found" "$into/$name"
  done
}

# Runs tools.sh with the scratch environment of run $1 and PATH $2; its output goes to $root/$1.log
# (and is shown indented), its exit status is returned. A run named "Nw" is run N again, warm: it
# logs to its own file but uses run N's folders, so whatever run N installed counts as present
# (the highlighter, for one, lives only in SM_CACHE, not on PATH).
run_tools() {
  local run=$1 path=$2
  local folder=${run%w}
  shift 2
  local status=0
  env PATH="$path" SM_CACHE="$root/$folder/cache" SM_BIN="$root/$folder/cache/bin" \
    npm_config_prefix="$root/$folder/npm" CARGO_INSTALL_ROOT="$root/$folder/cargo" \
    bash "$repo/scripts/tools.sh" "$@" >"$root/$run.log" 2>&1 || status=$?
  sed 's/^/    /' "$root/$run.log" >&2
  return "$status"
}

# The log of run $1 must hold a line matching the extended regex $2.
expect_line() {
  grep -Eq -- "$2" "$root/$1.log" || fail "run $1: no line matching /$2/ in its output (above)"
}

# Where command $2 is found on PATH $1 (a fresh shell, so nothing hashed here interferes).
which_in() { env PATH="$1" sh -c 'command -v "$1"' sh "$2"; }

# --- 1. Node.js and wasm-opt hidden, installed for real ------------------------------------------
reveal "$root/1/shown" trunk wasm-bindgen chromium chromedriver
# The wasm splitter lives in SM_CACHE, which is scratch here: run 1 is lent the real one (compiling
# it is a minute that this rehearsal of Node.js and wasm-opt does not need); run 2 lists it.
real_cache=${SM_CACHE:-$HOME/.cache/summary-memory}
mkdir -p "$root/1/cache"
ln -s "$real_cache"/wasm-split-* "$root/1/cache/" || fail "the wasm splitter is not installed; run scripts/tools.sh first"
path1="$root/1/cache/bin:$root/1/shown:$root/base"
which_in "$path1" node >/dev/null && fail "run 1: node is still visible on the scratch PATH"
which_in "$path1" wasm-opt >/dev/null && fail "run 1: wasm-opt is still visible on the scratch PATH"
run_tools 1 "$path1" --browser || fail "run 1: tools.sh --browser exited with status $? with Node.js and wasm-opt missing"
expect_line 1 'installing Node\.js'
expect_line 1 'installing wasm-opt'
for tool in node npm wasm-opt; do
  found=$(which_in "$path1" "$tool") || fail "run 1: $tool is still missing after tools.sh"
  case "$found" in "$root"/*) ;; *) fail "run 1: $tool was found at $found, outside the scratch folder" ;; esac
done
node_version=$(env PATH="$path1" node --version) || fail "run 1: the installed node does not run"
[[ $node_version =~ ^v([0-9]+)\. ]] && [ "${BASH_REMATCH[1]}" -ge 18 ] ||
  fail "run 1: node --version says '$node_version'"
wasm_opt=$(env PATH="$path1" wasm-opt --version) || fail "run 1: the installed wasm-opt does not run"
[[ $wasm_opt =~ ^wasm-opt\ version\ ([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 123 ] ||
  fail "run 1: wasm-opt --version says '$wasm_opt'"
[ -d "$root/1/npm/lib/node_modules/binaryen" ] || fail "run 1: binaryen did not go to npm_config_prefix"
ok "Node.js ($node_version) and wasm-opt ($wasm_opt) hidden: installed into the scratch folder and found"

run_tools 1w "$path1" --browser || fail "run 1 again: tools.sh --browser exited with status $?"
# The warm run uses run 1's folders.
grep -q 'installing' "$root/1w.log" && fail "run 1 again: a warm run installed something"
expect_line 1w '^tools: all tools present, nothing installed$'
ok "a warm run installs nothing"

# --- 2. every tool hidden: --plan lists each -----------------------------------------------------
run_tools 2 "$root/base" --plan --browser --servers --fidelity --python --ray || fail "run 2: tools.sh --plan exited with status $?"
for tool in 'trunk' 'wasm-bindgen-cli' 'wasm-split-cli' 'wasm-opt' 'Node\.js' 'chromium' 'chromium-driver' \
  'litellm\[proxy\]' 'llama-cpp-python\[server\]' "the fidelity tier's Python libraries" \
  '@google/gemini-cli-core' "the Python package tier's maturin and pytest" "the Ray tier's Ray Data and pyarrow"; do
  expect_line 2 "^tools: plan: would install (.* )?$tool .*\(missing"
done
expect_line 2 'nothing was installed$'
for made in cache npm cargo; do
  [ ! -e "$root/2/$made" ] || fail "run 2: --plan created $root/2/$made"
done
ok "every tool hidden: --plan lists each, installs nothing, exits 0"

# --- 3. every tool at a wrong version: --plan lists each -----------------------------------------
stand_in() {
  mkdir -p "$root/3/old"
  printf '#!/bin/sh\necho "%s"\n' "$2" >"$root/3/old/$1"
  chmod +x "$root/3/old/$1"
}
stand_in trunk 'trunk 0.20.0'
stand_in wasm-bindgen 'wasm-bindgen 0.2.80'
stand_in wasm-opt 'wasm-opt version 108'
stand_in node 'v16.20.2'
stand_in npm '8.19.4'
stand_in chromium 'Chromium 120.0.6099.224 built on Debian 12.4'
stand_in chromedriver 'ChromeDriver 119.0.6045.105 (38c72552c5e15ba9b3117c0967a0fd105072d7c6)'
run_tools 3 "$root/3/old:$root/base" --plan --browser || fail "run 3: tools.sh --plan exited with status $?"
expect_line 3 '^tools: plan: would install trunk .*\(found trunk 0\.20\.0'
expect_line 3 '^tools: plan: would install wasm-bindgen-cli .*\(found wasm-bindgen 0\.2\.80'
expect_line 3 '^tools: plan: would install wasm-opt .*\(found version 108'
expect_line 3 '^tools: plan: would install Node\.js .*\(found Node\.js 16'
expect_line 3 '^tools: plan: would install chromium and chromium-driver .*chromium 120\.0\.6099\.224 and chromedriver 119'
ok "every tool at a wrong version: --plan lists each"

printf 'rehearse: the fresh-machine rehearsal passed in %ss\n' "$((SECONDS - start))" >&2
