#!/usr/bin/env bash
# The conformance suite (body of `make conformance`, `make test-conformance`
# and, with --zeebe, `make conformance-zeebe`).
#
#   conformance-tests/scripts/run.sh            reference engine: runner lint + proxy tests +
#                                               runner self-test + the SDK x scenario matrix
#   conformance-tests/scripts/run.sh --zeebe    the matrix against the real in-memory Zeebe engine
#                                               (tools/zeebe-engine), scenarios needing admin/faults skipped
#   conformance-tests/scripts/run.sh --peers    the official clients' reference columns (peers/*/run,
#                                               expectations/official-*.yaml) on the reference engine,
#                                               report in report/peers/ beside the jobwire matrix
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

ZEEBE=0; PEERS=0; ARGS=()
for a in "$@"; do
  if [ "$a" = "--zeebe" ]; then ZEEBE=1; elif [ "$a" = "--peers" ]; then PEERS=1; else ARGS+=("$a"); fi
done

cd "$HERE/runner"
if [ "$ZEEBE" = 1 ]; then
  exec "$PY" -m pytest -q -rs test_conformance.py --zeebe --report-dir "$HERE/report/zeebe" \
    --junitxml="$RESULTS/conformance-zeebe.xml" --work-dir "$RESULTS/conformance-zeebe" ${ARGS[@]+"${ARGS[@]}"}
fi
if [ ! -x "$ROOT/engine-reference/bin/jobwire-engine" ]; then
  (cd "$ROOT/engine-reference" && go build -o bin/jobwire-engine ./cmd/jobwire-engine) || exit 1
fi
if [ "$PEERS" = 1 ]; then
  # the pinned installs of bench/ (Go module, npm lockfile, venv, Maven) serve these drivers too
  "$ROOT/bench/drivers/node/run" --build-only >&2 && "$ROOT/bench/drivers/java/run" --build-only >&2 \
    && "$ROOT/bench/go/run" --build-only >&2 && "$ROOT/bench/bootstrap.sh" >&2 || exit 1
  exec "$PY" -m pytest -q -rs test_conformance.py --sdk peers --report-dir "$HERE/report/peers" \
    --compare-report "$HERE/report/matrix.md" --junitxml="$RESULTS/conformance-peers.xml" \
    --work-dir "$RESULTS/conformance-peers" ${ARGS[@]+"${ARGS[@]}"}
fi
exec "$PY" -m pytest -q -rs test_scenarios_lint.py test_proxy.py test_selftest.py test_peer_smoke.py test_conformance.py \
  --junitxml="$RESULTS/conformance.xml" ${ARGS[@]+"${ARGS[@]}"}
