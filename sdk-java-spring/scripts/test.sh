#!/usr/bin/env bash
# jobwire-spring-boot-starter suite: installs this commit's jobwire-sdk (unless
# JOBWIRE_SDK_INSTALLED=1: `make test-sdk-java` has just installed it) and the jobwire-test kit
# into ~/.m2 (no tests: their own scripts run those), then `mvn test` here: properties binding
# (incl. camunda.client.*), @JobWorker beans, graceful close, Micrometer vs OpenTelemetry names, a
# throwing registry, Actuator health during an outage, all against the reference engine
# (engine-reference/bin/jobwire-engine, `make engine`; JOBWIRE_ENGINE overrides).
# Surefire XML reports go to $RESULTS/sdk-java-spring/ (RESULTS defaults to <repo>/.test-results).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
RESULTS="${RESULTS:-$ROOT/.test-results}"
REPORTS="$RESULTS/sdk-java-spring"
ENGINE="${JOBWIRE_ENGINE:-$ROOT/engine-reference/bin/jobwire-engine}"
[ -x "$ENGINE" ] || { echo "sdk-java-spring: reference engine not found at $ENGINE (run \`make engine\`)" >&2; exit 1; }
rm -rf "$REPORTS"
mkdir -p "$REPORTS"
quick=(-DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true)
if [ "${JOBWIRE_SDK_INSTALLED:-}" != "1" ]; then
  (cd "$ROOT/sdk-java" && mvn -B -q install "${quick[@]}")
  (cd "$ROOT/packaging/engine/java" && mvn -B -q install "${quick[@]}")
fi
(cd "$ROOT/sdk-java-test" && mvn -B -q install "${quick[@]}")
cd "$HERE"
t0=$(date +%s%N)
mvn -B -q test -Djobwire.reportsDirectory="$REPORTS" -Djobwire.engine="$ENGINE" "$@"
echo "sdk-java-spring: suite wall time $(( ($(date +%s%N) - t0) / 1000000 )) ms (mvn test)"
