#!/usr/bin/env bash
# Installs whatever is missing, then serves the app on http://127.0.0.1:8080 (README command 1).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${SM_BIN:-${SM_CACHE:-$HOME/.cache/summary-memory}/bin}:$PATH"
scripts/tools.sh
exec trunk serve --release --offline "$@"
