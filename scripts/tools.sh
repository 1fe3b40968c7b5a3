#!/usr/bin/env bash
# Installs the tools the build and the tests need, each only when it is missing or at the wrong
# version, so a warm run installs nothing. Usage: scripts/tools.sh [--browser]
#   --browser  also chromium + chromedriver and Node.js (for the test tiers).
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14      # 0.22 needs rustc 1.96; this machine has 1.95.
BINARYEN_NPM_VERSION=132.0.0  # Debian's binaryen 108 is too old for Rust >= 1.87 output.
WASM_OPT_MIN=123

say() { printf 'tools: %s\n' "$*" >&2; }
installed=0

# The wasm-bindgen CLI must equal the library version that Cargo.lock resolved.
wasm_bindgen_locked() {
  awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock
}

ensure_wasm_target() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
    installed=1
  fi
}

ensure_trunk() {
  if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
    say "installing trunk $TRUNK_VERSION (about 9 minutes on 2 cores)"
    cargo install --locked trunk --version "$TRUNK_VERSION"
    installed=1
  fi
}

ensure_wasm_bindgen() {
  local want
  want=$(wasm_bindgen_locked)
  [ -n "$want" ] || { say "Cargo.lock names no wasm-bindgen; run cargo generate-lockfile"; exit 1; }
  if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $want" ]; then
    say "installing wasm-bindgen-cli $want (about 3 minutes)"
    # Not --locked: one of its locked dependencies is no longer on the registry.
    cargo install wasm-bindgen-cli --version "$want" --force
    installed=1
  fi
}

ensure_wasm_opt() {
  local have=""
  # A missing wasm-opt must not end the script: under `set -euo pipefail` a failing pipeline in an
  # assignment exits, so ask only once the command exists, and let sed's empty answer mean "old".
  if command -v wasm-opt >/dev/null 2>&1; then
    have=$(wasm-opt --version 2>/dev/null | sed -n 's/^wasm-opt version \([0-9]*\).*/\1/p') || have=""
  fi
  if [ -z "$have" ] || [ "$have" -lt "$WASM_OPT_MIN" ]; then
    ensure_node
    say "installing wasm-opt from the npm package binaryen@$BINARYEN_NPM_VERSION"
    npm install -g "binaryen@$BINARYEN_NPM_VERSION"
    installed=1
  fi
}

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
  installed=1
}

ensure_node() {
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    say "installing Node.js and npm"
    apt_install nodejs npm
  fi
}

ensure_chromium() {
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    say "installing chromium and chromium-driver"
    apt_install chromium chromium-driver
  fi
  # The browser and its driver must come from the same build.
  local browser driver
  browser=$(chromium --version 2>/dev/null | grep -o '[0-9]\+\.[0-9.]\+' | head -n1) || browser=""
  driver=$(chromedriver --version 2>/dev/null | grep -o '[0-9]\+\.[0-9.]\+' | head -n1) || driver=""
  if [ "${browser%%.*}" != "${driver%%.*}" ]; then
    say "chromium $browser and chromedriver $driver differ; upgrading both"
    apt_install --only-upgrade chromium chromium-driver
  fi
}

ensure_wasm_target
ensure_trunk
ensure_wasm_bindgen
ensure_wasm_opt
if [ "${1:-}" = "--browser" ]; then
  ensure_chromium
  ensure_node
fi
if [ "$installed" = 0 ]; then say "all tools present, nothing installed"; fi
