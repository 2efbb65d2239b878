#!/usr/bin/env bash
# Makes sdk-node usable by the Node examples (they depend on it with
# "file:../../../sdk-node"): installs its locked dependencies when missing and
# compiles lib/ when missing or older than src/. Quick when nothing changed.
set -euo pipefail
SDK="$(cd "$(dirname "$0")/../../sdk-node" && pwd)"
cd "$SDK"
if [ ! -d node_modules/@grpc/grpc-js ] || [ ! -x node_modules/.bin/tsc ]; then
  echo "examples: installing sdk-node dependencies (npm ci)" >&2
  npm ci --no-audit --no-fund --loglevel=error
fi
if [ ! -f lib/cjs/index.js ] || [ ! -f lib/esm/index.js ] || [ -n "$(find src package.json -newer lib/cjs/index.js -print -quit)" ]; then
  echo "examples: building sdk-node (npm run build)" >&2
  npm run --silent build >&2
fi
