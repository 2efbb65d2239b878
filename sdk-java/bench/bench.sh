#!/usr/bin/env bash
# No-op worker benchmark (not part of `make test`): jobwire push/poll beside the official
# io.camunda:camunda-client-java push/poll on one `jobwire-engine dev` (127.0.0.1, a free port,
# always stopped), same run. Env: N (5000), WARMUP (1000), IN_FLIGHT (64), ROUNDS (1), VARIANTS.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
ENGINE="${JOBWIRE_ENGINE:-$ROOT/engine-reference/bin/jobwire-engine}"
[ -x "$ENGINE" ] || make -s -C "$ROOT" --no-print-directory engine
(cd "$HERE/.." && mvn -B -q install -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true)
(cd "$HERE" && mvn -B -q package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt)
WORK="$(mktemp -d "${TMPDIR:-/tmp}/jobwire-bench.XXXXXX")"
ENGINE_PID=""
cleanup() { [ -n "$ENGINE_PID" ] && kill "$ENGINE_PID" 2>/dev/null && wait "$ENGINE_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
"$ENGINE" dev --port 0 --data-dir "$WORK/data" --no-fsync > "$WORK/engine.log" 2>&1 &
ENGINE_PID=$!
for _ in $(seq 1 150); do
  ADDR="$(grep -o 'listening on 127\.0\.0\.1:[0-9]*' "$WORK/engine.log" | head -1 | sed 's/listening on //')" || true
  [ -n "${ADDR:-}" ] && break
  sleep 0.1
done
[ -n "${ADDR:-}" ] || { echo "bench: engine did not start" >&2; cat "$WORK/engine.log" >&2; exit 1; }
ZEEBE_ADDRESS="$ADDR" java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$HERE/target/jobwire-sdk-bench-0.1.0-SNAPSHOT.jar:$(cat "$HERE/target/classpath.txt")" io.jobwire.bench.Bench
