#!/usr/bin/env bash
# The live view's browser test (`make test-ui`) and latency benchmark
# (`make bench-ui`, `run.sh bench`).
#
# Installs what it needs when missing: Debian's chromium package (apt-get, as
# root; the browser playwright would download is never used) and the pinned
# playwright-core from package-lock.json (npm ci). Builds the engine and the
# test worker, then runs the test with node's test runner: spec output on
# stdout, JUnit XML in $RESULTS/ui.xml, screenshots in $RESULTS/ui/.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ENGINE="$(cd "$HERE/.." && pwd)"
ROOT="$(cd "$ENGINE/.." && pwd)"
export RESULTS="${RESULTS:-$ROOT/.test-results}"
mkdir -p "$RESULTS/ui"
MODE="${1:-test}"

if ! command -v chromium >/dev/null 2>&1 && [ -z "${CHROMIUM:-}" ]; then
  echo "ui-test: installing Debian's chromium package"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo -n"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
export CHROMIUM="${CHROMIUM:-$(command -v chromium)}"
"$CHROMIUM" --version 2>/dev/null || true

make -s -C "$ROOT" --no-print-directory engine
(cd "$ENGINE" && go build -o bin/uiworker ./cmd/uiworker)
cd "$HERE"
npm ci --no-audit --no-fund --loglevel=error

case "$MODE" in
  test)
    exec node --test --test-timeout=60000 \
      --test-reporter=spec --test-reporter-destination=stdout \
      --test-reporter=junit --test-reporter-destination="$RESULTS/ui.xml" \
      live-view.test.mjs ;;
  bench)
    shift || true
    exec node bench.mjs "$@" ;;
  *) echo "usage: run.sh [test|bench]" >&2; exit 2 ;;
esac
