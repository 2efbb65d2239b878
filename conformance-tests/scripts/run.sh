#!/usr/bin/env bash
# The conformance suite (body of `make conformance`, `make test-conformance`
# and, with --zeebe, `make conformance-zeebe`).
#
#   conformance-tests/scripts/run.sh            reference engine: runner lint + proxy tests +
#                                               runner self-test + the SDK x scenario matrix
#   conformance-tests/scripts/run.sh --zeebe    the matrix against the real in-memory Zeebe engine
#                                               (tools/zeebe-engine), scenarios needing admin/faults skipped
#   any other arguments go to pytest, e.g. --sdk go --scenario streaming/ -x
#
# Writes JUnit XML to $RESULTS/conformance.xml (conformance-zeebe.xml with --zeebe)
# and the matrix to conformance-tests/report/ (report/zeebe/ with --zeebe).
set -uo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
mkdir -p "$RESULTS"
PY="$ROOT/.tools/venv/bin/python"
[ -x "$PY" ] || "$ROOT/tools/bootstrap.sh"

ZEEBE=0; ARGS=()
for a in "$@"; do
  if [ "$a" = "--zeebe" ]; then ZEEBE=1; else ARGS+=("$a"); fi
done

cd "$HERE/runner"
if [ "$ZEEBE" = 1 ]; then
  exec "$PY" -m pytest -q -rs test_conformance.py --zeebe --report-dir "$HERE/report/zeebe" \
    --junitxml="$RESULTS/conformance-zeebe.xml" --work-dir "$RESULTS/conformance-zeebe" ${ARGS[@]+"${ARGS[@]}"}
fi
if [ ! -x "$ROOT/engine-reference/bin/jobwire-engine" ]; then
  (cd "$ROOT/engine-reference" && go build -o bin/jobwire-engine ./cmd/jobwire-engine) || exit 1
fi
exec "$PY" -m pytest -q -rs test_scenarios_lint.py test_proxy.py test_selftest.py test_conformance.py \
  --junitxml="$RESULTS/conformance.xml" ${ARGS[@]+"${ARGS[@]}"}
