#!/usr/bin/env bash
# sdk-node API reference (make docs): TypeDoc over the package's public entry
# point (package.json "exports" ".": src/index.ts), HTML into $DOCS_OUT
# (default: ../build/docs/node). Fails on any TypeDoc warning: a broken
# {@link}, a public type that is referenced but not exported, a public member
# without a doc comment.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
OUT="${DOCS_OUT:-$ROOT/build/docs/node}"
cd "$HERE"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --loglevel=error
fi
rm -rf "$OUT"
exec node_modules/.bin/typedoc \
  --tsconfig tsconfig.cjs.json \
  --entryPoints src/index.ts --entryPoints src/testing/index.ts \
  --out "$OUT" \
  --name "@jobwire/sdk" \
  --readme none \
  --excludePrivate --excludeInternal \
  --validation.invalidLink --validation.notExported --validation.notDocumented \
  --requiredToBeDocumented Class --requiredToBeDocumented Interface --requiredToBeDocumented Function \
  --requiredToBeDocumented Method --requiredToBeDocumented Property --requiredToBeDocumented Accessor \
  --requiredToBeDocumented Constructor --requiredToBeDocumented TypeAlias --requiredToBeDocumented Enum \
  --requiredToBeDocumented EnumMember --requiredToBeDocumented Variable \
  --treatWarningsAsErrors \
  --logLevel Warn \
  "$@"
