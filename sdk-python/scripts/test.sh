#!/usr/bin/env bash
# sdk-python test suite: pinned venv in sdk-python/.venv, editable install, pytest.
# Writes JUnit XML to $RESULTS/sdk-python.xml (RESULTS defaults to <repo>/.test-results).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
mkdir -p "$RESULTS"
cd "$HERE"

. "$HERE/scripts/venv.sh"

exec "$VENV/bin/python" -m pytest -q --junitxml="$RESULTS/sdk-python.xml" "$@"
