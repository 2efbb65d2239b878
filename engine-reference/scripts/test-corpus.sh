#!/usr/bin/env bash
# `make test-corpus`: every case of engine-reference/corpus/ on jobwire-engine
# dev and on the real in-memory Zeebe engine (tools/zeebe-engine, built on
# first use), compared with each other and with the golden expectations.
# Results: $RESULTS/corpus.gojson. CORPUS_ENGINES=jobwire runs without Zeebe;
# CORPUS_CASES=a,b runs some cases.
set -uo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
mkdir -p "$RESULTS"
cd "$HERE"
go test -count=1 -timeout 10m -json ./corpus/ > "$RESULTS/corpus.gojson"
rc=$?
grep -E '"Action":"(pass|fail)"' "$RESULTS/corpus.gojson" | grep -o '"Test":"TestCorpus/[^"]*","Elapsed":[0-9.]*' | sed 's/"Test":"TestCorpus\///; s/","Elapsed":/ /' | sort || true
grep -E '"Action":"fail"' "$RESULTS/corpus.gojson" | grep -o '"Test":"[^"]*"' | sort -u || true
if [ $rc -ne 0 ]; then
  # Show the failing cases' output (both engines' observations) in the log.
  grep -o '"Output":"[^"]*"' "$RESULTS/corpus.gojson" | sed 's/^"Output":"//; s/"$//; s/\\n$//; s/\\t/\t/g; s/\\"/"/g' | grep -v '^=== \|^--- PASS' || true
  echo "corpus: FAILED"; exit 1
fi
echo "corpus: ok"
