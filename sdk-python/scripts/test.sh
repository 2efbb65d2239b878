#!/usr/bin/env bash
# sdk-python test suite: pinned venv in sdk-python/.venv, editable install, pytest; then
# scripts/min-deps.sh (the same tests at the lowest versions of the dependency ranges).
# Writes JUnit XML to $RESULTS/sdk-python.xml (RESULTS defaults to <repo>/.test-results).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
mkdir -p "$RESULTS"
cd "$HERE"

. "$HERE/scripts/venv.sh"

status=0
"$VENV/bin/python" -m pytest -q --junitxml="$RESULTS/sdk-python.xml" "$@" || status=$?
# The same tests at the lowest dependency versions pyproject.toml allows (a library takes ranges).
scripts/min-deps.sh || status=$?
exit $status
