#!/usr/bin/env bash
# `make test-engine`: build, vet, go test -race (JSON results), fuzz seeds,
# and the pyzeebe interop test (JUnit XML). Exits non-zero on any failure.
set -uo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
OUT="$RESULTS/engine"
mkdir -p "$OUT"
cd "$HERE"
fail=0
step() { echo "== engine: $*"; }

step "build"
make -s -C "$ROOT" --no-print-directory engine || { echo "build failed"; exit 1; }

step "go vet"
go vet ./... || fail=1

step "go test -race (results: $OUT/go.gojson)"
# The normal run executes the fuzz targets' committed seed corpora too.
# The cluster load test runs on its own below (without -race).
# The corpus (./corpus: dev and cluster against its golden files) is its own suite: make test-corpus.
go test -race -count=1 -timeout 5m -json -skip 'TestClusterTenThousandWithFaults' $(go list ./... | grep -v '/corpus$') > "$OUT/go.gojson"
rc=$?
# Show failures in the log, not only in the JSON.
grep -E '"Action":"fail"' "$OUT/go.gojson" | grep -o '"Test":"[^"]*"' | sort -u || true
[ $rc -eq 0 ] || { echo "go test failed"; fail=1; }

# Hang hunter numbers (in-process dev and cluster under -race, real binaries).
grep -o '"Output":"[^"]*stress ([^"]*"' "$OUT/go.gojson" | sed 's/^"Output":"[ ]*//; s/\\n"$//' || true

step "hang hunter with race-enabled binaries, dev and cluster (results: $OUT/stress-race.gojson)"
JOBWIRE_STRESS_RACE=1 go test -count=1 -timeout 4m -json -run '^TestStressBinary' ./cmd/jobwire-engine > "$OUT/stress-race.gojson"
rc=$?
grep -o '"Output":"[^"]*\(stress (\|exited \)[^"]*"' "$OUT/stress-race.gojson" | sed 's/^"Output":"[ ]*//; s/\\n"$//' || true
grep -E '"Action":"fail"' "$OUT/stress-race.gojson" | grep -o '"Test":"[^"]*"' | sort -u || true
[ $rc -eq 0 ] || { echo "race stress test failed"; fail=1; }

step "cluster load: 10,000 instances, broker SIGKILL + gateway restart (results: $OUT/cluster-load.gojson)"
JOBWIRE_CLUSTER_LOAD=1 go test -count=1 -timeout 3m -json -run '^TestClusterTenThousandWithFaults$' ./internal/supervisor > "$OUT/cluster-load.gojson"
rc=$?
grep -o '"Output":"[^"]*\(startup\|killed\|open streams\)[^"]*"' "$OUT/cluster-load.gojson" | sed 's/^"Output":"//; s/\\n"$//' || true
grep -E '"Action":"fail"' "$OUT/cluster-load.gojson" | grep -o '"Test":"[^"]*"' | sort -u || true
[ $rc -eq 0 ] || { echo "cluster load test failed"; fail=1; }

step "pyzeebe 4.7.0 interop and pyzeebe's own integration suite, dev and cluster (results: $OUT/pyzeebe.xml)"
VENV="$HERE/.venv-interop"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV" || { echo "cannot create $VENV"; exit 1; }
fi
"$VENV/bin/pip" install -q --disable-pip-version-check -r interop/requirements.lock || { echo "pip install failed"; exit 1; }
PROTOC_PY="$ROOT/.tools/venv/bin/python"
if ! "$PROTOC_PY" -c 'import grpc_tools' 2>/dev/null; then
  echo "grpc_tools missing in $ROOT/.tools/venv (run tools/bootstrap.sh)"; fail=1
fi
JOBWIRE_PROTOC_PYTHON="$PROTOC_PY" JOBWIRE_ENGINE_BIN="$HERE/bin/jobwire-engine" \
  "$VENV/bin/python" -m pytest -q -p no:cacheprovider interop --junitxml="$OUT/pyzeebe.xml" || fail=1

if [ $fail -ne 0 ]; then
  echo "engine: FAILED"
  exit 1
fi
echo "engine: ok"
