#!/usr/bin/env bash
# sdk-java at both ends of the dependency range it supports. pom.xml declares the LOWEST
# supported protobuf-java and grpc-java (Maven's nearest-wins makes a declared version the floor
# that a user's build may raise); this runs the unit tests and the engine tests
# (EngineIntegrationTest, RunWorkersTest) twice: at those declared versions, and at the newest
# versions (PROTOBUF_NEWEST / GRPC_NEWEST, overridable). The classes are compiled once, against the
# floor, as the published jar is; the second run puts the newest jars under them. Each run checks
# that Maven resolved the versions asked for. Reports: $RESULTS/sdk-java-deps-{lowest,newest}/.
# Usage: min-deps.sh [lowest] [newest] (default: both). scripts/test.sh runs `newest` only: its
# full suite just ran at the declared, lowest versions.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
PROTOBUF_NEWEST="${PROTOBUF_NEWEST:-4.36.2}"
GRPC_NEWEST="${GRPC_NEWEST:-1.85.1}"
cd "$HERE"
prop() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" pom.xml | head -1; }
PROTOBUF_LOWEST="$(prop protobuf.version)"
GRPC_LOWEST="$(prop grpc.version)"
# unit tests (not the coverage-guided fuzz seeds or the import-cycle scan: no protobuf or gRPC in
# them) and the engine tests that exercise the generated code and the transport end to end
TESTS='*Test,!JsonPropertiesTest,!DependencyCycleTest,!TlsIntegrationTest,!ParkedJobsTest'
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT

run() { # label protobuf grpc
  local label=$1 pb=$2 grpc=$3 t0=$SECONDS
  local reports="$RESULTS/sdk-java-deps-$label"
  rm -rf "$reports"; mkdir -p "$reports"
  echo "min-deps ($label): protobuf-java $pb, grpc-java $grpc"
  mvn -B -q test -Dprotobuf.version="$pb" -Dgrpc.version="$grpc" -Dtest="$TESTS" \
    -Djobwire.reportsDirectory="$reports" || { echo "min-deps ($label): tests failed"; return 1; }
  mvn -B -q -o dependency:list -Dprotobuf.version="$pb" -Dgrpc.version="$grpc" -DincludeScope=runtime \
    -DoutputFile="$TMP/deps.txt" >/dev/null
  for want in "com.google.protobuf:protobuf-java:jar:$pb" "io.grpc:grpc-core:jar:$grpc" "io.grpc:grpc-netty-shaded:jar:$grpc"; do
    grep -q "$want" "$TMP/deps.txt" || { echo "min-deps ($label): $want not resolved:"; cat "$TMP/deps.txt"; return 1; }
  done
  echo "min-deps ($label): green in $((SECONDS - t0)) s"
}

status=0
for which in "${@:-lowest newest}"; do
  for w in $which; do
    case "$w" in
      lowest) run lowest "$PROTOBUF_LOWEST" "$GRPC_LOWEST" || status=1 ;;
      newest) run newest "$PROTOBUF_NEWEST" "$GRPC_NEWEST" || status=1 ;;
      *) echo "min-deps: unknown run '$w' (lowest, newest)"; exit 2 ;;
    esac
  done
done
exit $status
