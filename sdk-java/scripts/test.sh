#!/usr/bin/env bash
# sdk-java test suite: mvn test with the default JDK (17) — unit tests, fake-gateway tests and
# integration tests against jobwire-engine dev (build it with `make engine`), the real-Zeebe test, then the packaging
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
# The real-Zeebe test (-Pzeebe: 500 instances through the in-memory Zeebe engine that
# tools/zeebe-engine/start.sh launches), as the Go, Node and Python suites run theirs.
if [ -x "$ROOT/tools/zeebe-engine/start.sh" ] && [ "${JOBWIRE_SKIP_ZEEBE:-}" != "1" ]; then
  mvn -B -q test -Pzeebe -Djobwire.reportsDirectory="$REPORTS/zeebe" "$@"
else
  echo "sdk-java: tools/zeebe-engine/start.sh not found (or JOBWIRE_SKIP_ZEEBE=1); Zeebe test not run" >&2
fi
if [ "${JOBWIRE_SKIP_PACKAGE_TEST:-}" != "1" ]; then
  "$HERE/scripts/package-test.sh"
fi
