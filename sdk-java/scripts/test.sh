#!/usr/bin/env bash
# sdk-java test suite: mvn test with the default JDK (17) — unit tests, fake-gateway tests and
# integration tests against jobwire-engine dev (build it with `make engine`), then the packaging
# test (scripts/package-test.sh: mvn install, a throwaway project runs a worker). The first run
# downloads the pinned dependencies and protoc from Maven Central into ~/.m2; later runs work offline.
# Surefire XML reports go to $RESULTS/sdk-java/ (RESULTS defaults to <repo>/.test-results).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
REPORTS="$RESULTS/sdk-java"
rm -rf "$REPORTS"
mkdir -p "$REPORTS"
cd "$HERE"
mvn -B -q test -Djobwire.reportsDirectory="$REPORTS" "$@"
if [ "${JOBWIRE_SKIP_PACKAGE_TEST:-}" != "1" ]; then
  "$HERE/scripts/package-test.sh"
fi
