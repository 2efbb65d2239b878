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
# Writes JUnit XML to $RESULTS/conformance/ (two lanes run side by side: go,python and
# node,java; CONFORMANCE_LANES=1 or any pytest argument runs one lane into conformance.xml;
# conformance-zeebe.xml with --zeebe)
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
RUNNER_TESTS=(test_scenarios_lint.py test_proxy.py test_selftest.py test_peer_smoke.py)
LANES="${CONFORMANCE_LANES:-2}"
if [ "${#ARGS[@]}" -gt 0 ] || [ "$LANES" = 1 ]; then
  exec "$PY" -m pytest -q -rs "${RUNNER_TESTS[@]}" test_conformance.py \
    --junitxml="$RESULTS/conformance.xml" ${ARGS[@]+"${ARGS[@]}"}
fi

# The whole matrix in two lanes side by side. Most scenarios wait (idle windows, time-outs,
# restarts) rather than compute, so two lanes take a little over half the time of one.
# Each lane has its own shared engine, work dir, JUnit file and report part; the parts are
# merged into report/matrix.md at the end. CONFORMANCE_LANES=1 runs one lane.
PARTS="$RESULTS/conformance-parts"
rm -rf "$PARTS" "$RESULTS/conformance"; mkdir -p "$PARTS" "$RESULTS/conformance"
lane() {  # lane NAME SDKS [extra test files...]
  local name="$1" sdks="$2"; shift 2
  "$PY" -m pytest -q -rs "$@" test_conformance.py --sdk "$sdks" --report-dir "$PARTS/$name" \
    --work-dir "$PARTS/$name-work" --junitxml="$RESULTS/conformance/$name.xml" 2>&1 \
    | sed -u "s/^/[$sdks] /"
  return "${PIPESTATUS[0]}"
}
LANE_A="go,python"; LANE_B=""   # every other driver under drivers/ goes to lane b
for d in "$HERE"/drivers/*/; do
  n="$(basename "$d")"
  [ -x "$d/run" ] && [[ ",$LANE_A," != *",$n,"* ]] && LANE_B="${LANE_B:+$LANE_B,}$n"
done
lane a "$LANE_A" "${RUNNER_TESTS[@]}" & PA=$!
lane b "$LANE_B" & PB=$!
wait "$PA"; RA=$?
wait "$PB"; RB=$?
"$PY" report.py merge "$HERE/report" "$PARTS/a" "$PARTS/b" || RA=1
echo "conformance lanes: $LANE_A exit $RA; $LANE_B exit $RB; matrix: conformance-tests/report/matrix.md"
[ "$RA" -eq 0 ] && [ "$RB" -eq 0 ]
