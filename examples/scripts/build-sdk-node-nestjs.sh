#!/usr/bin/env bash
# Makes sdk-node-nestjs usable by examples/node/nestjs (which installs it, and sdk-node, from
# "file:" folders as copies): builds sdk-node (build-sdk-node.sh), installs sdk-node-nestjs's
# locked dependencies when missing and compiles its lib/ when missing or older than src/.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
"$HERE/build-sdk-node.sh"
PKG="$(cd "$HERE/../../sdk-node-nestjs" && pwd)"
cd "$PKG"
if [ ! -d node_modules/@nestjs/core ] || [ ! -x node_modules/.bin/tsc ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "examples: installing sdk-node-nestjs dependencies (npm ci)" >&2
  npm ci --no-audit --no-fund --loglevel=error
fi
if [ ! -f lib/index.js ] || [ -n "$(find src package.json -newer lib/index.js -print -quit)" ]; then
  echo "examples: building sdk-node-nestjs (npm run build)" >&2
  npm run --silent build >&2
fi
