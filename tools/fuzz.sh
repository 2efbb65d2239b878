#!/usr/bin/env bash
# Long fuzzing runs (make fuzz). `make test` runs only the seed corpora and a
# bounded number of property-test inputs; this runs every fuzzer for longer and
# writes each one's log and a summary (executions / inputs) to $RESULTS/fuzz/.
#
#   FUZZ_TIME=10m make fuzz            # each fuzzer 10 minutes (default)
#   FUZZ_ONLY=engine-rpcs,node make fuzz
#
# Fuzzers: engine-rpcs (every Gateway RPC, go test -fuzz FuzzGatewayRPCs),
# engine-bpmn (FuzzParseBPMN), engine-vars (FuzzMergeVariables), engine-dmn (FuzzParseDMN),
# engine-feel (FuzzUnaryTests: input entries and expressions),
# node (fast-check, lossless JSON), python (Hypothesis, variables),
# java (Jazzer, variables: 4 fuzz tests x FUZZ_TIME/4, each in its own JVM, or
# FUZZ_JAVA_TARGETS="method ..." for some;
# JDK 17 works, JAVA_HOME may point at another JDK; a failing input is written
# to sdk-java/src/test/resources/io/jobwire/internal/JsonPropertiesTestInputs/).
# Go's new interesting inputs stay in its cache ($(go env GOCACHE)/fuzz); a
# crasher is written to engine-reference/internal/*/testdata/fuzz/ (commit it).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
OUT="$RESULTS/fuzz"
mkdir -p "$OUT"
FUZZ_TIME="${FUZZ_TIME:-10m}"
FUZZ_ONLY="${FUZZ_ONLY:-engine-rpcs,engine-bpmn,engine-vars,engine-dmn,engine-feel,node,python,java}"
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
want engine-dmn && gofuzz engine-dmn ./internal/dmn FuzzParseDMN
want engine-feel && gofuzz engine-feel ./internal/feel FuzzUnaryTests

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
  # Jazzer fuzzes one @FuzzTest per JVM (JAZZER_FUZZ=1), so each property gets its own run.
  # -max_total_time goes to libFuzzer (it overrides the tests' @FuzzTest(maxDuration = "30s"));
  # jazzer.instrument adds Jackson to the coverage-instrumented classes (by default only the
  # classes in target/ are). New inputs collect in sdk-java/.cifuzz-corpus (not committed).
  # FUZZ_JAVA_TARGETS (space-separated method names) fuzzes only those, sharing FUZZ_TIME.
  targets="${FUZZ_JAVA_TARGETS:-everyInt64AndUint64StaysExact roundTripKeepsEveryValueExact anyTextIsAMapOrATypedError deepNestingIsATypedError}"
  ntargets=$(echo $targets | wc -w)
  per=$(( SECONDS_EACH / ntargets )); [ $per -lt 1 ] && per=1
  echo "fuzz: java (Jazzer, $ntargets fuzz tests x ${per}s)"
  jrc=0; jsum=""
  for t in $targets; do
    log="$OUT/java-$t.log"
    (cd "$ROOT/sdk-java" && JAZZER_FUZZ=1 mvn -B -q test -Dtest="JsonPropertiesTest#$t" -Dsurefire.failIfNoSpecifiedTests=false \
      -Djazzer.internal.arg.0=jazzer -Djazzer.internal.arg.1=-max_total_time="$per" \
      '-Djazzer.instrument=io.jobwire.**,com.fasterxml.jackson.**' \
      -Djobwire.reportsDirectory="$OUT/java-reports") > "$log" 2>&1
    rc=$?
    done_line=$(grep -oE '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1)
    runs=$(echo "$done_line" | awk '{print $2}'); secs_run=$(echo "$done_line" | awk '{print $5}')
    jsum="$jsum fuzz $t: ${runs:-?} executions in ${secs_run:-?} s (rc=$rc);"
    [ $rc = 0 ] && [ -n "$done_line" ] || jrc=1
  done
  echo "java: rc=$jrc$jsum" | tee -a "$SUMMARY"
  [ $jrc = 0 ] || fail=1
fi
echo "summary: $SUMMARY"
exit $fail
