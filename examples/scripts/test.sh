#!/usr/bin/env bash
# `make test-examples`: builds every example (Go: vet + build, Node: npm ci +
# node --check), runs `examples/run.sh` (the body of `make run`) in CI mode with
# the order-workers of every SDK and of each SDK alone, and runs the
# long-running, otel-console and camunda-saas examples against a real
# reference engine. JUnit XML: $RESULTS/examples.xml. Exit status != 0 on failure.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
RESULTS="${RESULTS:-$ROOT/.test-results}"
mkdir -p "$RESULTS"
PY="$ROOT/.tools/venv/bin/python"
[ -x "$PY" ] || tools/bootstrap.sh
make -s -C "$ROOT" --no-print-directory engine
exec "$PY" -m pytest -q -p no:cacheprovider examples/tests --junitxml="$RESULTS/examples.xml" "$@"
