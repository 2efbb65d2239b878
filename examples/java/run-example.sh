#!/usr/bin/env bash
# Runs one Java example by name (builds first when needed):
#   run-example.sh order-worker | long-running | otel-console | camunda-saas | prometheus
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
"$HERE/build.sh" 1>&2
case "${1:-}" in
  order-worker) MAIN=io.jobwire.examples.OrderWorker ;;
  long-running) MAIN=io.jobwire.examples.LongRunning ;;
  otel-console) MAIN=io.jobwire.examples.OtelConsole ;;
  camunda-saas) MAIN=io.jobwire.examples.CamundaSaas ;;
  prometheus) MAIN=io.jobwire.examples.Prometheus ;;
  *) echo "usage: $0 order-worker|long-running|otel-console|camunda-saas|prometheus" >&2; exit 2 ;;
esac
CP="$HERE/target/jobwire-java-examples-0.1.0.jar:$(cat "$HERE/target/classpath.txt")"
exec java -XX:+UseSerialGC -Dorg.slf4j.simpleLogger.defaultLogLevel="${JOBWIRE_LOG:-warn}" -cp "$CP" "$MAIN"
