#!/usr/bin/env bash
# How examples/run.sh (`make run`) and examples/scripts/test.sh build and start
# this SDK's order-worker. Every examples/<sdk>/order-worker.sh takes part:
#   order-worker.sh build   create examples/python/.venv (pinned requirements.txt + the
#                           SDK from ../../sdk-python) and byte-compile the examples (idempotent)
#   order-worker.sh start   run the worker in the foreground (exec); env: ZEEBE_ADDRESS,
#                           JOB_TYPES, STATS_INTERVAL_MS
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SDK="$(cd "$HERE/../../sdk-python" && pwd)"
VENV="$HERE/.venv"
case "${1:-}" in
  build)
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    WANT="$(cat "$HERE/requirements.txt" "$SDK/pyproject.toml" | sha256sum | cut -d' ' -f1)"
    if [ "$(cat "$VENV/.stamp" 2>/dev/null)" != "$WANT" ]; then
      "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$HERE/requirements.txt"
      "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps -e "$SDK"
      "$VENV/bin/python" -m pip check >/dev/null
      echo "$WANT" > "$VENV/.stamp"
    fi
    "$VENV/bin/python" -m py_compile "$HERE"/*/main.py "$HERE"/order-worker/stats.py "$HERE"/fastapi/app.py ;;
  start) cd "$HERE/order-worker" && exec "$VENV/bin/python" -u main.py ;;
  *) echo "usage: $0 build|start" >&2; exit 2 ;;
esac
