#!/usr/bin/env bash
# jobwire-test (the Java test kit) suite: installs this commit's jobwire-sdk and jobwire-engine API
# into ~/.m2 (no tests: sdk-java/scripts/test.sh runs those), then `mvn test` here: the extension,
# the shared test-kit cases (conformance-tests/vectors/testkit.json) and the clock against the
# reference engine (engine-reference/bin/jobwire-engine, `make engine`; JOBWIRE_ENGINE overrides).
# JOBWIRE_MEASURE=1 also prints the start-to-ready and reset measurements (50 engine starts).
# Surefire XML reports go to $RESULTS/sdk-java-test/ (RESULTS defaults to <repo>/.test-results).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
REPORTS="$RESULTS/sdk-java-test"
ENGINE="${JOBWIRE_ENGINE:-$ROOT/engine-reference/bin/jobwire-engine}"
[ -x "$ENGINE" ] || { echo "sdk-java-test: reference engine not found at $ENGINE (run \`make engine\`)" >&2; exit 1; }
# the generated admin classes run on jobwire-sdk's protobuf and grpc: the same versions in both poms
for prop in grpc.version protobuf.version protoc.version grpc.gencode.version junit.version; do
  a="$(sed -n "s|.*<$prop>\(.*\)</$prop>.*|\1|p" "$ROOT/sdk-java/pom.xml" | head -1)"
  b="$(sed -n "s|.*<$prop>\(.*\)</$prop>.*|\1|p" "$HERE/pom.xml" | head -1)"
  [ "$a" = "$b" ] || { echo "sdk-java-test: $prop is $b in sdk-java-test/pom.xml but $a in sdk-java/pom.xml" >&2; exit 1; }
done
rm -rf "$REPORTS"
mkdir -p "$REPORTS"
(cd "$ROOT/sdk-java" && mvn -B -q install -DskipTests)
(cd "$ROOT/packaging/engine/java" && mvn -B -q install -DskipTests)
cd "$HERE"
t0=$(date +%s%N)
mvn -B -q test -Djobwire.reportsDirectory="$REPORTS" -Djobwire.engine="$ENGINE" \
  ${JOBWIRE_MEASURE:+-Djobwire.measure=true} "$@"
echo "sdk-java-test: suite wall time $(( ($(date +%s%N) - t0) / 1000000 )) ms (mvn test)"
