#!/usr/bin/env bash
# The conformance suite (body of `make conformance`, `make test-conformance`,
# `make conformance-external` and `make conformance-report`).
#
#   conformance-tests/scripts/run.sh            reference engine: runner lint + proxy tests +
#                                               runner self-test + the SDK x scenario matrix
#   conformance-tests/scripts/run.sh --external the external-gateway lane: every scenario needing neither
#                                               the admin API nor the fault proxy, every SDK, against the
#                                               gateway of ZEEBE_ADDRESS (+ ZEEBE_CLIENT_ID/SECRET,
#                                               ZEEBE_AUTHORIZATION_SERVER_URL, ZEEBE_TOKEN_AUDIENCE,
#                                               ZEEBE_CA_CERTIFICATE_PATH); report in
#                                               $RESULTS/conformance-external/report.md
#   conformance-tests/scripts/run.sh --external --local-engine
#                                               the same against a `jobwire-engine dev --no-admin` with TLS
#                                               and OAuth started here (`make test-conformance-external`)
#   conformance-tests/scripts/run.sh --publish  the whole matrix, then (only if it ran to the end) copies
#                                               its report to conformance-tests/report/ (`make conformance-report`)
#   conformance-tests/scripts/run.sh --peers    the official clients' reference columns (peers/*/run,
#                                               expectations/official-*.yaml) on the reference engine,
#                                               report in report/peers/ beside the jobwire matrix
#   any other arguments go to pytest, e.g. --sdk go --scenario streaming/ -x
#
# Writes JUnit XML to $RESULTS/conformance/ (two lanes per SDK side by side: go-1of2.xml, ...;
# CONFORMANCE_LANES=1 or any pytest argument runs one lane into conformance.xml)
# and the matrix to $RESULTS/conformance-report/ (test runs never write into the tree).
set -uo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
mkdir -p "$RESULTS"
PY="$ROOT/.tools/venv/bin/python"
[ -x "$PY" ] || "$ROOT/tools/bootstrap.sh"

EXTERNAL=0; PEERS=0; PUBLISH=0; ARGS=()
for a in "$@"; do
  case "$a" in
    --external) EXTERNAL=1 ;;
    --peers) PEERS=1 ;;
    --publish) PUBLISH=1 ;;
    *) ARGS+=("$a") ;;
  esac
done

cd "$HERE/runner"
if [ ! -x "$ROOT/engine-reference/bin/jobwire-engine" ] || { [ "$EXTERNAL" = 1 ] && \
    ! "$ROOT/engine-reference/bin/jobwire-engine" dev --help 2>&1 | grep -q -- -no-admin; }; then
  make -s -C "$ROOT" --no-print-directory engine || exit 1
fi
if [ "$EXTERNAL" = 1 ]; then
  exec "$PY" external.py ${ARGS[@]+"${ARGS[@]}"}
fi
REPORT="$RESULTS/conformance-report"
if [ "$PEERS" = 1 ]; then
  # the pinned installs of bench/ (Go module, npm lockfile, venv, Maven) serve these drivers too
  "$ROOT/bench/drivers/node/run" --build-only >&2 && "$ROOT/bench/drivers/java/run" --build-only >&2 \
    && "$ROOT/bench/go/run" --build-only >&2 && "$ROOT/bench/bootstrap.sh" >&2 || exit 1
  exec "$PY" -m pytest -q -rs test_conformance.py --sdk peers --report-dir "$HERE/report/peers" \
    --compare-report "$([ -f "$REPORT/matrix.md" ] && echo "$REPORT/matrix.md" || echo "$HERE/report/matrix.md")" \
    --junitxml="$RESULTS/conformance-peers.xml" \
    --work-dir "$RESULTS/conformance-peers" ${ARGS[@]+"${ARGS[@]}"}
fi
# (runner/test_external.py, the external lane's own tests, runs with the lane: run.sh --external --local-engine)
RUNNER_TESTS=(test_scenarios_lint.py test_imports.py test_mutants_apply.py test_proxy.py test_selftest.py test_peer_smoke.py)
LANES="${CONFORMANCE_LANES:-8}"
if [ "${#ARGS[@]}" -gt 0 ] || [ "$LANES" = 1 ]; then
  exec "$PY" -m pytest -q -rs "${RUNNER_TESTS[@]}" test_conformance.py --report-dir "$REPORT" \
    --junitxml="$RESULTS/conformance.xml" ${ARGS[@]+"${ARGS[@]}"}
fi

# The whole matrix in lanes side by side. Most scenarios wait (idle windows, time-outs, restarts)
# rather than compute: four lanes (one per SDK) used 0.7 of the 2 cores on average. So by default
# each SDK's scenarios are split over two lanes (`--shard 1/2`, `2/2`): 8 lanes.
# CONFORMANCE_LANES=N: N >= the number of SDKs gives each SDK N / (number of SDKs) lanes; fewer deals
# the SDKs round-robin into N lanes. CONFORMANCE_LANES=1 runs one lane.
# Each lane has its own shared engine, work dir, JUnit file and report part; the parts are
# merged into $RESULTS/conformance-report/matrix.md at the end.
PARTS="$RESULTS/conformance-parts"
rm -rf "$PARTS" "$RESULTS/conformance"; mkdir -p "$PARTS" "$RESULTS/conformance"
lane() {  # lane NAME SDKS SHARD [extra test files...]
  local name="$1" sdks="$2" shard="$3"; shift 3
  "$PY" -m pytest -q -rs "$@" test_conformance.py --sdk "$sdks" ${shard:+--shard "$shard"} --report-dir "$PARTS/$name" \
    --work-dir "$PARTS/$name-work" --junitxml="$RESULTS/conformance/$name.xml" 2>&1 \
    | sed -u "s|^|[$name] |"
  return "${PIPESTATUS[0]}"
}
ALL=()
for d in "$HERE"/drivers/*/; do
  [ -x "$d/run" ] && ALL+=("$(basename "$d")")
done
SDKS=(); SHARDS=()
if [ "$LANES" -ge "${#ALL[@]}" ]; then
  per=$(( LANES / ${#ALL[@]} ))
  for n in "${ALL[@]}"; do
    for ((k = 1; k <= per; k++)); do SDKS+=("$n"); SHARDS+=("$([ "$per" -gt 1 ] && echo "$k/$per")"); done
  done
else
  for i in "${!ALL[@]}"; do
    k=$(( i % LANES )); SDKS[k]="${SDKS[k]:+${SDKS[k]},}${ALL[i]}"; SHARDS[k]=""
  done
fi
# Two lanes of one SDK would start its driver's first build at the same moment (go build, npm ci,
# a venv): each driver is built once before the lanes start, side by side.
# The fault proxy too (faultproxy.build_proxy finds it up to date).
(cd "$HERE/proxy" && go build -o bin/jwproxy .) > "$PARTS/build-proxy.log" 2>&1 &
for n in "${ALL[@]}"; do
  "$HERE/drivers/$n/run" --build-only > "$PARTS/build-$n.log" 2>&1 &
done
for n in proxy "${ALL[@]}"; do
  wait -n || { echo "a conformance driver failed to build:"; tail -n 30 "$PARTS"/build-*.log; exit 1; }
done
PIDS=(); PARTDIRS=(); NAMES=()
for k in "${!SDKS[@]}"; do
  # a lane is named by its SDKs and shard: go, go-2of2, or go+python with CONFORMANCE_LANES=2
  name="${SDKS[k]//,/+}"; [ -n "${SHARDS[k]}" ] && name="$name-${SHARDS[k]/\//of}"
  if [ "$k" = 0 ]; then lane "$name" "${SDKS[k]}" "${SHARDS[k]}" "${RUNNER_TESTS[@]}" &
  else lane "$name" "${SDKS[k]}" "${SHARDS[k]}" & fi
  PIDS+=($!); PARTDIRS+=("$PARTS/$name"); NAMES+=("$name")
done
RA=0; SUMMARY=""
for k in "${!PIDS[@]}"; do
  wait "${PIDS[k]}"; r=$?; [ "$r" -eq 0 ] || RA=1
  SUMMARY="$SUMMARY ${NAMES[k]} exit $r;"
done
"$PY" report.py merge "$REPORT" "${PARTDIRS[@]}" || RA=1
echo "conformance lanes:$SUMMARY matrix: $REPORT/matrix.md"
if [ "$PUBLISH" = 1 ] && [ -f "$REPORT/matrix.md" ]; then
  # the published matrix: a whole run (every SDK, every scenario), failures included
  "$PY" report.py publish "$REPORT" "$HERE/report" || RA=1
  echo "published: conformance-tests/report/matrix.md"
fi
[ "$RA" -eq 0 ]
