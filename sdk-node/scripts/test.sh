#!/usr/bin/env bash
# sdk-node test suite (make test-sdk-node): install (npm ci when the lock file
# changed), build both module formats, type-check, fail on any import cycle (madge), run Jest (unit: fake gateway; integration:
# the reference engine), check `npm pack`. Against a real Camunda 8 cluster:
# `make conformance-external`.
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
[ -x "$ENGINE" ] || make -s -C "$ROOT" --no-print-directory engine >/dev/null

npm run --silent build
# ts-jest only transpiles: type-check sources, tests and bench here.
npm run --silent typecheck
# No import cycle between source files (madge, type-only imports included): fails on any cycle.
npm run --silent cycles

status=0
npx jest --ci --json --outputFile="$RESULTS/sdk-node.jest.json" || status=$?
# The test kit (@jobwire/sdk/testing) under node:test too, from the build through the package's exports.
JOBWIRE_ENGINE="$ENGINE" node --test test/node/ || status=$?

# The package must pack (files list, both builds, the proto).
PACK_OUT="$(npm pack --dry-run --json 2>/dev/null)" || { echo "npm pack failed"; status=1; }
for f in lib/cjs/index.js lib/esm/index.js lib/cjs/index.d.ts lib/cjs/testing/index.js lib/esm/testing/index.js proto/gateway.proto proto/admin.proto LICENSE NOTICE; do
  grep -q "\"$f\"" <<<"$PACK_OUT" || { echo "npm pack: $f missing from the package"; status=1; }
done
# The same suite at the lowest dependency versions package.json allows (a library takes ranges).
scripts/min-deps.sh || status=$?
exit $status
