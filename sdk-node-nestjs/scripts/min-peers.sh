#!/usr/bin/env bash
# @jobwire/nestjs at the lowest versions its peer ranges allow: copies the package into a temp
# folder (next to a link to the monorepo's sdk-node), installs the lock file, replaces Nest,
# reflect-metadata and rxjs by the lowest version of each peer range and runs the Jest suite
# against the reference engine. Writes $RESULTS/sdk-node-nestjs/min-peers.jest.json.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
# The tests read ../engine-reference/bin and ../proto; the package links ../sdk-node.
(cd "$ROOT" && tar --exclude=node_modules --exclude=lib -cf - sdk-node-nestjs) | tar -xf - -C "$TMP"
ln -s "$ROOT/sdk-node" "$TMP/sdk-node"
ln -s "$ROOT/proto" "$TMP/proto"
ln -s "$ROOT/engine-reference" "$TMP/engine-reference"
cd "$TMP/sdk-node-nestjs"
# The locked tree: a copy of the package's own (test.sh installed it), else npm ci.
if [ -f "$HERE/node_modules/.package-lock.json" ] && ! [ "$HERE/package-lock.json" -nt "$HERE/node_modules/.package-lock.json" ]; then
  cp -a "$HERE/node_modules" node_modules
else
  npm ci --no-audit --no-fund --loglevel=error
fi
MINS=$(node -e '
  const p = require("./package.json").peerDependencies
  const out = []
  for (const [n, r] of Object.entries(p)) {
    if (n === "@jobwire/sdk") continue
    const m = /^[\^~]?(\d+\.\d+\.\d+)/.exec(r)
    if (!m) { console.error(`min-peers: ${n}: range ${r} does not start with ^X.Y.Z`); process.exit(1) }
    out.push(`${n}@${m[1]}`)
    if (n === "@nestjs/common") out.push(`@nestjs/testing@${m[1]}`)
  }
  console.log(out.join(" "))')
echo "min-peers: $MINS"
# shellcheck disable=SC2086
npm install --no-save --no-audit --no-fund --loglevel=error $MINS
for spec in $MINS; do
  name="${spec%@*}"; want="${spec##*@}"
  got=$(node -p "require('./node_modules/$name/package.json').version")
  [ "$got" = "$want" ] || { echo "min-peers: $name is $got, want $want"; exit 1; }
done
mkdir -p "$RESULTS/sdk-node-nestjs"
npx jest --ci --json --outputFile="$RESULTS/sdk-node-nestjs/min-peers.jest.json"
