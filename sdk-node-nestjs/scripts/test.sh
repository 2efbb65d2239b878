#!/usr/bin/env bash
# @jobwire/nestjs test suite (run by `make test-sdk-node`): builds the monorepo's sdk-node (the
# package's @jobwire/sdk, a file: dev dependency), installs (npm ci when the lock file changed),
# builds, type-checks, runs Jest against the reference engine, checks `npm pack`, then runs the
# suite again at the lowest Nest versions the peer ranges allow.
# Writes $RESULTS/sdk-node-nestjs.jest.json; exits non-zero on any failure.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
mkdir -p "$RESULTS"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

ENGINE="$ROOT/engine-reference/bin/jobwire-engine"
[ -x "$ENGINE" ] || make -s -C "$ROOT" --no-print-directory engine >/dev/null
export JOBWIRE_ENGINE="$ENGINE"
# @jobwire/sdk from ../sdk-node: its dependencies and lib/ (quick when up to date).
"$ROOT/examples/scripts/build-sdk-node.sh"

cd "$HERE"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --loglevel=error
fi
npm run --silent build
npm run --silent typecheck

status=0
npx jest --ci --json --outputFile="$RESULTS/sdk-node-nestjs.jest.json" || status=$?

# The package must pack: the build, its types, README and licence; no tests, no sources.
PACK_OUT="$(npm pack --dry-run --json 2>/dev/null)" || { echo "npm pack failed"; status=1; }
for f in lib/index.js lib/index.d.ts lib/jobwire.module.js lib/lifecycle.js README.md LICENSE NOTICE package.json; do
  grep -q "\"$f\"" <<<"$PACK_OUT" || { echo "npm pack: $f missing from the package"; status=1; }
done
if grep -q '"test/\|"src/' <<<"$PACK_OUT"; then echo "npm pack: tests or sources in the package"; status=1; fi

# The lowest versions of the peer ranges (^10.0.0 of Nest, reflect-metadata 0.1.13, rxjs 7.1.0).
scripts/min-peers.sh || status=$?
exit $status
