#!/usr/bin/env bash
# Runs one Python example with the examples' venv (built on first use):
#   examples/python/example.sh long-running|otel-console|camunda-saas|order-worker
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
name="${1:?usage: $0 <example>}"
[ -f "$HERE/$name/main.py" ] || { echo "example.sh: no example $name" >&2; exit 2; }
"$HERE/order-worker.sh" build >&2
cd "$HERE/$name" && exec "$HERE/.venv/bin/python" -u main.py
