#!/usr/bin/env bash
# sdk-node at the lowest versions its package.json allows: copies the package
# into a temp folder, installs the lock file, then replaces each runtime
# dependency by the lowest version of its range (^X.Y.Z -> X.Y.Z), builds and
# runs the whole jest suite against the reference engine. Writes
# $RESULTS/sdk-node/min-deps.jest.json.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
# the package and what its tests read above it (the shared vectors, the API table, the contract and its golden encodings)
(cd "$ROOT" && tar --exclude=node_modules --exclude=lib -cf - sdk-node docs/api.md conformance-tests/vectors proto) \
  | tar -xf - -C "$TMP"
cd "$TMP/sdk-node"
npm ci --no-audit --no-fund --loglevel=error
MINS=$(node -e '
  const d = require("./package.json").dependencies
  console.log(Object.entries(d).map(([n, r]) => {
    const m = /^[\^~]?(\d+\.\d+\.\d+)$/.exec(r)
    if (!m) { console.error(`min-deps: ${n}: range ${r} is not ^X.Y.Z`); process.exit(1) }
    return `${n}@${m[1]}`
  }).join(" "))')
echo "min-deps: $MINS"
# shellcheck disable=SC2086
npm install --no-save --no-audit --no-fund --loglevel=error $MINS
for spec in $MINS; do
  name="${spec%@*}"; want="${spec##*@}"
  got=$(node -p "require('./node_modules/$name/package.json').version" 2>/dev/null \
        || grep -m1 '"version"' "node_modules/$name/package.json" | sed 's/.*: "\(.*\)".*/\1/')
  [ "$got" = "$want" ] || { echo "min-deps: $name is $got, want $want"; exit 1; }
done
npm run --silent build
mkdir -p "$RESULTS/sdk-node"
JOBWIRE_ENGINE_BIN="$ROOT/engine-reference/bin/jobwire-engine" \
  npx jest --ci --json --outputFile="$RESULTS/sdk-node/min-deps.jest.json" "$@"
