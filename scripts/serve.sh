#!/usr/bin/env bash
# Installs whatever is missing, then serves the app on http://127.0.0.1:8080 (README command 1).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/tools.sh
exec trunk serve --release --offline "$@"
