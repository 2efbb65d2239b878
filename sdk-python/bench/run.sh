#!/usr/bin/env bash
# Benchmarks of the Python SDK (not part of `make test`): no-op worker throughput beside
# pyzeebe, and the jobs a paused worker parks. Needs engine-reference/bin/jobwire-engine.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
VENV="$HERE/.venv"
if [ ! -x "$VENV/bin/python" ]; then python3 -m venv "$VENV"; fi
WANT="$(cat "$HERE/requirements.txt" | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$VENV/.stamp" 2>/dev/null)" != "$WANT" ]; then
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$HERE/requirements.txt"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps -e "$HERE/.."
  echo "$WANT" > "$VENV/.stamp"
fi
cd "$HERE"
"$VENV/bin/python" throughput.py "$@"
"$VENV/bin/python" parked.py
