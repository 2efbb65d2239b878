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

PYTHON="${PYTHON:-python3}"
VENV="$HERE/.venv"
STAMP="$VENV/.jobwire-stamp"
WANT="$(cat requirements-dev.txt pyproject.toml | sha256sum | cut -d' ' -f1)"

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r requirements-dev.txt
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps -e .
  "$VENV/bin/python" -m pip check
  echo "$WANT" > "$STAMP"
fi

status=0
"$VENV/bin/python" -m pytest -q --junitxml="$RESULTS/sdk-python.xml" "$@" || status=$?
# The same tests at the lowest dependency versions pyproject.toml allows (a library takes ranges).
scripts/min-deps.sh || status=$?
exit $status
