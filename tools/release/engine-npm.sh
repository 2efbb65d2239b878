#!/usr/bin/env bash
# The engine for npm, as esbuild ships its binary: @jobwire/engine (a launcher
# bin `jobwire-engine` and start()) with one optional dependency per platform,
# @jobwire/engine-<platform>-<arch> (os/cpu fields and the executable), for the
# platforms whose binary is in DIST/engine/. Tarballs by `npm pack` (fixed
# times and modes: the same bytes on every run).
#   usage: engine-npm.sh DIST VERSION  ->  DIST/engine-npm/jobwire-engine{,-<platform>-<arch>}-V.tgz
set -euo pipefail
DIST="$1"; V="$2"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SRC="$ROOT/packaging/engine/npm"
OUT="$DIST/engine-npm"; mkdir -p "$OUT"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
umask 022

pack() { (cd "$1" && npm pack --silent --pack-destination "$OUT" >/dev/null); }

optional=()
for p in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
  os="${p%/*}"; arch="${p#*/}"; ext=""; [ "$os" = windows ] && ext=".exe"
  bin="$DIST/engine/jobwire-engine-$V-$os-$arch$ext"
  [ -f "$bin" ] || continue
  nos="$os"; [ "$os" = windows ] && nos=win32
  ncpu="$arch"; [ "$arch" = amd64 ] && ncpu=x64
  name="@jobwire/engine-$nos-$ncpu"
  d="$WORK/engine-$nos-$ncpu"; mkdir -p "$d/bin"
  install -m 755 "$bin" "$d/bin/jobwire-engine$ext"
  install -m 644 "$ROOT/LICENSE" "$d/LICENSE"
  NAME="$name" V="$V" OS="$nos" CPU="$ncpu" node -e '
    const e = process.env
    const pkg = { name: e.NAME, version: e.V,
      description: `The jobwire-engine executable for ${e.OS} ${e.CPU} (installed by @jobwire/engine)`,
      license: "Apache-2.0", os: [e.OS], cpu: [e.CPU], files: ["bin/"], preferUnplugged: true }
    process.stdout.write(JSON.stringify(pkg, null, 2) + "\n")' > "$d/package.json"
  printf '# %s\n\nThe `jobwire-engine` executable for %s %s, installed by [@jobwire/engine](https://www.npmjs.com/package/@jobwire/engine) as an optional dependency; use that package.\n' \
    "$name" "$nos" "$ncpu" > "$d/README.md"
  pack "$d"
  optional+=("$name")
done
[ "${#optional[@]}" -gt 0 ] || { echo "engine-npm: no engine binary in $DIST/engine" >&2; exit 1; }

d="$WORK/engine"; mkdir -p "$d"
cp -r "$SRC/engine/lib" "$SRC/engine/README.md" "$d/"
install -m 644 "$ROOT/LICENSE" "$d/LICENSE"
install -D -m 755 "$SRC/engine/launcher.js" "$d/bin/jobwire-engine.js"
V="$V" OPTIONAL="${optional[*]}" node -e '
  const fs = require("fs")
  const pkg = JSON.parse(fs.readFileSync(process.argv[1], "utf8"))
  pkg.version = process.env.V
  pkg.optionalDependencies = Object.fromEntries(process.env.OPTIONAL.split(" ").map((n) => [n, process.env.V]))
  process.stdout.write(JSON.stringify(pkg, null, 2) + "\n")' "$SRC/engine/package.json" > "$d/package.json"
pack "$d"
