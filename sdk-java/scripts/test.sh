#!/usr/bin/env bash
# sdk-java test suite: mvn test with the default JDK (17). The first run downloads the
# pinned dependencies and protoc from Maven Central into ~/.m2.
# Surefire XML reports go to $RESULTS/sdk-java/ (RESULTS defaults to <repo>/.test-results).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
REPORTS="$RESULTS/sdk-java"
rm -rf "$REPORTS"
mkdir -p "$REPORTS"
cd "$HERE"
exec mvn -B -q test -Djobwire.reportsDirectory="$REPORTS" "$@"
