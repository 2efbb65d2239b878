#!/usr/bin/env bash
# Long fuzzing runs (make fuzz). `make test` runs only the seed corpora and a
# bounded number of property-test inputs; this runs every fuzzer for longer and
# writes each one's log and a summary (executions / inputs) to $RESULTS/fuzz/.
#
#   FUZZ_TIME=10m make fuzz            # each fuzzer 10 minutes (default)
#   FUZZ_ONLY=engine-rpcs,node make fuzz
#
# Fuzzers: engine-rpcs (every Gateway RPC, go test -fuzz FuzzGatewayRPCs),
# engine-bpmn (FuzzParseBPMN), engine-vars (FuzzMergeVariables),
# node (fast-check, lossless JSON), python (Hypothesis, variables),
# java (jqwik, variables: a number of tries, FUZZ_JAVA_TRIES, default 200000).
# Go's new interesting inputs stay in its cache ($(go env GOCACHE)/fuzz); a
# crasher is written to engine-reference/internal/*/testdata/fuzz/ (commit it).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
OUT="$RESULTS/fuzz"
mkdir -p "$OUT"
FUZZ_TIME="${FUZZ_TIME:-10m}"
FUZZ_ONLY="${FUZZ_ONLY:-engine-rpcs,engine-bpmn,engine-vars,node,python,java}"
secs() { local t="$1"; case "$t" in *h) echo $(( ${t%h} * 3600 ));; *m) echo $(( ${t%m} * 60 ));; *s) echo "${t%s}";; *) echo "$t";; esac; }
SECONDS_EACH=$(secs "$FUZZ_TIME")
want() { [[ ",$FUZZ_ONLY," == *",$1,"* ]]; }
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
fail=0

gofuzz() { # name package target
  local name="$1" pkg="$2" target="$3" log="$OUT/$1.log"
  echo "fuzz: $name ($target, $FUZZ_TIME)"
  (cd "$ROOT/engine-reference" && go test "$pkg" -run '^$' -fuzz "^$target\$" -fuzztime "$FUZZ_TIME" -parallel "${FUZZ_PARALLEL:-1}") > "$log" 2>&1
  local rc=$?
  local last; last=$(grep -E '^fuzz: elapsed' "$log" | tail -1)
  echo "$name: rc=$rc ${last:-no progress line}" | tee -a "$SUMMARY"
  [ $rc = 0 ] || fail=1
}

want engine-rpcs && gofuzz engine-rpcs ./internal/engine FuzzGatewayRPCs
want engine-bpmn && gofuzz engine-bpmn ./internal/bpmn FuzzParseBPMN
want engine-vars && gofuzz engine-vars ./internal/vars FuzzMergeVariables

if want node; then
  per=$(( SECONDS_EACH / 6 )); [ $per -lt 1 ] && per=1
  echo "fuzz: node (6 properties x ${per}s)"
  (cd "$ROOT/sdk-node" && { [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error; } &&
    JOBWIRE_FUZZ_SECONDS=$per npx jest test/unit/json.property --testTimeout=$(( (per + 60) * 1000 ))) > "$OUT/node.log" 2>&1
  rc=$?
  echo "node: rc=$rc $(grep -oE 'fuzz [a-z-]+: [0-9]+ inputs' "$OUT/node.log" | sort -u | tr '\n' ';')" | tee -a "$SUMMARY"
  [ $rc = 0 ] || fail=1
fi

if want python; then
  per=$(( SECONDS_EACH / 6 )); [ $per -lt 1 ] && per=1
  echo "fuzz: python (6 properties x ${per}s)"
  PYV="$ROOT/sdk-python/.venv/bin/python"
  [ -x "$PYV" ] || (cd "$ROOT/sdk-python" && scripts/test.sh --co -q >/dev/null 2>&1)
  (cd "$ROOT/sdk-python" && JOBWIRE_FUZZ_SECONDS=$per "$PYV" -m pytest -q -s -p no:cacheprovider tests/test_json_properties.py) > "$OUT/python.log" 2>&1
  rc=$?
  echo "python: rc=$rc $(grep -oE 'fuzz [a-z0-9_]+: about [0-9]+ examples' "$OUT/python.log" | tr '\n' ';')" | tee -a "$SUMMARY"
  [ $rc = 0 ] || fail=1
fi

if want java; then
  tries="${FUZZ_JAVA_TRIES:-200000}"
  echo "fuzz: java (jqwik, $tries tries per property)"
  start=$(date +%s)
  (cd "$ROOT/sdk-java" && mvn -B -q test -Dtest=JsonPropertiesTest -Dsurefire.failIfNoSpecifiedTests=false \
    -Djqwik.tries.default="$tries" -Djobwire.reportsDirectory="$OUT/java-reports") > "$OUT/java.log" 2>&1
  rc=$?
  echo "java: rc=$rc $tries tries per property (4 properties) in $(( $(date +%s) - start )) s" | tee -a "$SUMMARY"
  [ $rc = 0 ] || fail=1
fi
echo "summary: $SUMMARY"
exit $fail
