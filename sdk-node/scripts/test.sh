#!/usr/bin/env bash
# sdk-node test suite (make test-sdk-node): install (npm ci when the lock file
# changed), build both module formats, run Jest (unit: fake gateway; integration:
# the reference engine; Zeebe: when tools/zeebe-engine exists), check `npm pack`.
# Writes $RESULTS/sdk-node.jest.json; exits non-zero on any failure.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
mkdir -p "$RESULTS"
cd "$HERE"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# npm ci only when node_modules is missing or older than the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --loglevel=error
fi

# The engine-backed tests need the binary; `make test-sdk-node` builds it first.
ENGINE="$ROOT/engine-reference/bin/jobwire-engine"
[ -x "$ENGINE" ] || (cd "$ROOT" && make engine >/dev/null)

npm run --silent build
# ts-jest only transpiles: type-check sources, tests and bench here.
npm run --silent typecheck

# Real Zeebe (optional): start the launcher when it exists, run the gated test against it.
ZEEBE_PID=""
cleanup() { if [ -n "$ZEEBE_PID" ]; then kill "$ZEEBE_PID" 2>/dev/null || true; wait "$ZEEBE_PID" 2>/dev/null || true; fi; }
trap cleanup EXIT
LAUNCHER="$ROOT/tools/zeebe-engine/start.sh"
if [ -z "${JOBWIRE_ZEEBE_ADDRESS:-}" ] && [ -x "$LAUNCHER" ] && [ "${JOBWIRE_SKIP_ZEEBE:-}" != "1" ]; then
  ZLOG="$(mktemp)"
  # start.sh execs the JVM, so $! is the engine itself; stdin is /dev/null here, hence IGNORE_STDIN
  ZEEBE_ENGINE_IGNORE_STDIN=1 "$LAUNCHER" --port 0 >"$ZLOG" 2>"$ZLOG.err" &
  ZEEBE_PID=$!
  for _ in $(seq 1 120); do
    if addr=$(grep -oE 'listening on 127\.0\.0\.1:[0-9]+' "$ZLOG" | head -1); [ -n "$addr" ]; then
      export JOBWIRE_ZEEBE_ADDRESS="${addr#listening on }"; break
    fi
    kill -0 "$ZEEBE_PID" 2>/dev/null || { echo "zeebe launcher exited:"; tail -20 "$ZLOG.err"; break; }
    sleep 1
  done
  [ -n "${JOBWIRE_ZEEBE_ADDRESS:-}" ] || echo "note: Zeebe launcher did not come up; the Zeebe test is skipped"
fi

status=0
npx jest --ci --json --outputFile="$RESULTS/sdk-node.jest.json" || status=$?

# The package must pack (files list, both builds, the proto).
PACK_OUT="$(npm pack --dry-run --json 2>/dev/null)" || { echo "npm pack failed"; status=1; }
for f in lib/cjs/index.js lib/esm/index.js lib/cjs/index.d.ts proto/gateway.proto; do
  grep -q "\"$f\"" <<<"$PACK_OUT" || { echo "npm pack: $f missing from the package"; status=1; }
done
exit $status
