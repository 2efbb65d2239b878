#!/usr/bin/env bash
# Runs every test suite of the monorepo (the body of `make test`), keeps going
# after a failing suite, and ends with one summary line:
#   N passed, N failed, N skipped
# Suites write machine-readable results into .test-results/ (see testsum.py).
# A suite whose command fails without recording a failing test (a build
# error, a crash) counts as one failure. Select suites with SUITES="a b".
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
export RESULTS="$ROOT/.test-results"
rm -rf "$RESULTS"; mkdir -p "$RESULTS"

ALL_SUITES="proto engine corpus sdk-go sdk-node sdk-python sdk-java conformance mutation-smoke vector-mutants conformance-external examples ui bench soak licences release docs tree"
SUITES="${SUITES:-$ALL_SUITES}"
TP=0; TF=0; TS=0; LINES=()
START_ALL=$(date +%s)
for s in $SUITES; do
  echo "::: suite $s"
  t0=$(date +%s)
  make --no-print-directory "test-$s"; rc=$?
  read -r p f k < <(.tools/venv/bin/python tools/testsum.py "$RESULTS" "$s")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ "$rc" -eq 0 ] && [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
    echo "suite $s ran no test: counted as a failure"; f=1
  fi
  TP=$((TP+p)); TF=$((TF+f)); TS=$((TS+k))
  LINES+=("$(printf '  %-12s %5d passed %4d failed %4d skipped  %4ds' "$s" "$p" "$f" "$k" $(( $(date +%s)-t0 )))")
done
echo
echo "=== test summary ($(( $(date +%s)-START_ALL ))s)"
for l in "${LINES[@]}"; do echo "$l"; done
echo "$TP passed, $TF failed, $TS skipped"
[ "$TF" -eq 0 ]
