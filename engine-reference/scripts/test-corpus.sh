#!/usr/bin/env bash
# `make test-corpus`: every case of engine-reference/corpus/ on jobwire-engine
# dev and on one jobwire-engine cluster (2 gateways, 3 brokers, 6 partitions),
# each run compared with the case's golden observation lines (expected.txt,
# recorded from Zeebe 8.8.21: corpus/README.md) and its case.json
# expectations. Results: $RESULTS/corpus.gojson. CORPUS_TARGETS=dev|cluster
# runs on one of them; CORPUS_CASES=a,b runs some cases.
set -uo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
mkdir -p "$RESULTS"
cd "$HERE"
make -s -C "$ROOT" --no-print-directory engine || { echo "corpus: engine build failed"; exit 1; }
export JOBWIRE_ENGINE_BIN="$HERE/bin/jobwire-engine"
go test -count=1 -timeout 10m -json ./corpus/ > "$RESULTS/corpus.gojson"
rc=$?
grep -E '"Action":"(pass|fail)"' "$RESULTS/corpus.gojson" | grep -o '"Test":"TestCorpus/[^"]*","Elapsed":[0-9.]*' | sed 's/"Test":"TestCorpus\///; s/","Elapsed":/ /' | sort || true
grep -E '"Action":"fail"' "$RESULTS/corpus.gojson" | grep -o '"Test":"[^"]*"' | sort -u || true
if [ $rc -ne 0 ]; then
  # Show the failing cases' output (diffs and observations) in the log.
  grep -o '"Output":"[^"]*"' "$RESULTS/corpus.gojson" | sed 's/^"Output":"//; s/"$//; s/\\n$//; s/\\t/\t/g; s/\\"/"/g' | grep -v '^=== \|^--- PASS' || true
  echo "corpus: FAILED"; exit 1
fi
echo "corpus: ok"
