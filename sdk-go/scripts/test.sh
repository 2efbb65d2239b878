#!/usr/bin/env bash
# sdk-go suite (`make test-sdk-go`): gofmt + go vet, then `go test -race` with
# unit tests (in-process fake gateway) and integration tests against the
# reference engine. (Against a real Camunda 8 cluster: `make conformance-external`.)
# Results: $RESULTS/sdk-go.gojson and $RESULTS/sdk-go/*.gojson.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
RESULTS="${RESULTS:-$root/.test-results}"
mkdir -p "$RESULTS/sdk-go"
rc=0

# The integration tests need the engine binary; they fail (not skip) without it.
make -s -C "$root" engine >&2 || { echo "sdk-go: building the reference engine failed" >&2; rc=1; }

cd "$here"
unformatted="$(gofmt -l $(git ls-files -co --exclude-standard '*.go' 2>/dev/null || find . -name '*.go') | grep -v '^internal/pb/' || true)"
if [[ -n "$unformatted" ]]; then
  echo "sdk-go: gofmt needed on: $unformatted" >&2; rc=1
fi
go vet ./... || rc=1
(cd "$root/conformance-tests/drivers/go" && go vet ./... && go build -o bin/jobwire-driver-go .) || rc=1

go test -race -json -count=1 -timeout 300s ./... > "$RESULTS/sdk-go.gojson"
test_rc=$?
if [[ $test_rc -ne 0 ]]; then
  rc=1
  grep -E '"Action":"fail"' "$RESULTS/sdk-go.gojson" | grep -o '"Test":"[^"]*"' | sort -u >&2 || true
fi

# The test kit (nested module jobwiretest: it needs the engine, which the SDK's
# own module must not depend on), in the workspace like the tests above.
(cd jobwiretest && go vet ./... && go test -race -json -count=1 -timeout 300s ./... > "$RESULTS/sdk-go/jobwiretest.gojson") || {
  rc=1
  grep -E '"Action":"fail"' "$RESULTS/sdk-go/jobwiretest.gojson" | grep -o '"Test":"[^"]*"' | sort -u >&2 || true
}

# The same tests at the floors of go.mod, outside the workspace (a library takes ranges).
scripts/min-deps.sh >&2 || rc=1

python3 "$root/tools/testsum.py" "$RESULTS" sdk-go 2>/dev/null | awk '{print "sdk-go: " $1 " passed, " $2 " failed, " $3 " skipped"}' >&2 || true
exit $rc
