#!/usr/bin/env bash
# The engine for pip: one platform wheel of the `jobwire-engine` distribution per
# engine binary in DIST/engine/ (as ruff ships its binary): the executable in
# jobwire_engine-V.data/scripts/ (pip installs it as the `jobwire-engine`
# command) and the package jobwire_engine (find_engine(), start()).
# Packed by PyPA `wheel pack` (RECORD, the name from the WHEEL tags; zip times
# from SOURCE_DATE_EPOCH), so two runs give the same bytes.
#   usage: engine-pypi.sh DIST VERSION  ->  DIST/engine-python/jobwire_engine-V-py3-none-<platform>.whl
set -euo pipefail
DIST="$1"; V="$2"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY="$ROOT/.tools/venv/bin/python"
SRC="$ROOT/packaging/engine/python"
: "${SOURCE_DATE_EPOCH:=$(git -C "$ROOT" log -1 --format=%ct)}"; export SOURCE_DATE_EPOCH
OUT="$DIST/engine-python"; mkdir -p "$OUT"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
umask 022

# GOOS/GOARCH -> wheel platform tags (the binary is static, CGO off: any glibc or musl)
tags() {
  case "$1" in
    linux/amd64)   echo "manylinux_2_17_x86_64 manylinux2014_x86_64 musllinux_1_2_x86_64" ;;
    linux/arm64)   echo "manylinux_2_17_aarch64 manylinux2014_aarch64 musllinux_1_2_aarch64" ;;
    darwin/amd64)  echo "macosx_10_12_x86_64" ;;
    darwin/arm64)  echo "macosx_11_0_arm64" ;;
    windows/amd64) echo "win_amd64" ;;
    windows/arm64) echo "win_arm64" ;;
    *) return 1 ;;
  esac
}

n=0
for p in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
  os="${p%/*}"; arch="${p#*/}"; ext=""; [ "$os" = windows ] && ext=".exe"
  bin="$DIST/engine/jobwire-engine-$V-$os-$arch$ext"
  [ -f "$bin" ] || continue
  d="$WORK/$os-$arch/jobwire_engine-$V"
  mkdir -p "$d/jobwire_engine" "$d/jobwire_engine-$V.data/scripts" "$d/jobwire_engine-$V.dist-info/licenses"
  install -m 644 "$SRC/jobwire_engine/__init__.py" "$SRC/jobwire_engine/py.typed" "$d/jobwire_engine/"
  install -m 755 "$bin" "$d/jobwire_engine-$V.data/scripts/jobwire-engine$ext"
  install -m 644 "$ROOT/LICENSE" "$ROOT/NOTICE" "$d/jobwire_engine-$V.dist-info/licenses/"
  {
    printf 'Metadata-Version: 2.4\nName: jobwire-engine\nVersion: %s\n' "$V"
    printf 'Summary: The jobwire reference engine (a Zeebe-protocol gateway for development and tests), as a pip-installable executable\n'
    printf 'License-Expression: Apache-2.0\nLicense-File: LICENSE\nLicense-File: NOTICE\n'
    printf 'Requires-Python: >=3.8\nDescription-Content-Type: text/markdown\n\n'
    cat "$SRC/README.md"
  } > "$d/jobwire_engine-$V.dist-info/METADATA"
  {
    printf 'Wheel-Version: 1.0\nGenerator: jobwire engine-pypi.sh\nRoot-Is-Purelib: false\n'
    for t in $(tags "$p"); do printf 'Tag: py3-none-%s\n' "$t"; done
  } > "$d/jobwire_engine-$V.dist-info/WHEEL"
  chmod 644 "$d/jobwire_engine-$V.dist-info/"{METADATA,WHEEL}
  find "$d" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  "$PY" -m wheel pack --dest-dir "$OUT" "$d" >/dev/null
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "engine-pypi: no engine binary in $DIST/engine" >&2; exit 1; }
