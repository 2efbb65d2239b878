#!/usr/bin/env bash
# sdk-java test suite: mvn test with the default JDK (17) — unit tests, fake-gateway tests and
# integration tests against jobwire-engine dev (build it with `make engine`), all at the lowest
# supported protobuf-java / grpc-java (the versions pom.xml declares), then the unit and engine
# tests at the newest ones (scripts/min-deps.sh newest), then the packaging test (scripts/package-test.sh: mvn install, a
# throwaway project runs a worker). The first run
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
status=0
mvn -B -q test -Djobwire.reportsDirectory="$REPORTS" "$@" || status=$?
# The suite above ran at the declared (lowest supported) protobuf-java / grpc-java; the unit and
# engine tests again at the newest (`scripts/min-deps.sh` alone runs both ends).
"$HERE/scripts/min-deps.sh" newest || status=1
if [ "${JOBWIRE_SKIP_PACKAGE_TEST:-}" != "1" ]; then
  "$HERE/scripts/package-test.sh" || status=1
fi
exit $status
