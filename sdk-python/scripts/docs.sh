#!/usr/bin/env bash
# sdk-python API reference (make docs): pdoc over the public jobwire package into $DOCS_OUT
# (default: ../build/docs/python), from the pinned venv in sdk-python/.venv. Fails on any pdoc
# warning, a public member without a docstring, or a broken link in the pages (scripts/docs.py).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
OUT="${DOCS_OUT:-$ROOT/build/docs/python}"
cd "$HERE"
. "$HERE/scripts/venv.sh"
rm -rf "$OUT"
exec "$VENV/bin/python" scripts/docs.py "$OUT"
