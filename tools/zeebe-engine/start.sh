#!/usr/bin/env bash
# Starts the real Zeebe engine (io.camunda:zeebe-process-test-engine, in memory,
# one partition) serving the Zeebe gateway gRPC API on 127.0.0.1.
#
#   tools/zeebe-engine/start.sh [--port N] [--warmup N]
#
#   --port N     port to bind on 127.0.0.1 (default 26500; 0 = a free port)
#   --warmup N   drive N one-task instances through the engine before announcing
#                the port (JIT warm-up for benchmarks; default 0)
#
# Prints exactly one line on stdout once the gateway accepts calls:
#   zeebe-engine listening on 127.0.0.1:<port>
# Everything else (build output, engine logs, timings) goes to stderr.
# The engine exits when its stdin reaches end of file (so a harness that dies
# leaves no orphan) and on SIGTERM/SIGINT. Set ZEEBE_ENGINE_IGNORE_STDIN=1 to
# keep it running with stdin closed (e.g. `start.sh &` in a script).
#
# The first call builds the launcher with Maven (downloads dependencies; later
# calls reuse target/ until pom.xml or src/ change) and records a class-data
# archive that cuts the JVM start to about half a second.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
JDK="${ZEEBE_ENGINE_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
export JAVA_HOME="$JDK"
JAVA="$JDK/bin/java"

die() { echo "zeebe-engine: $*" >&2; exit 2; }

[ -x "$JAVA" ] || die "no Java 21+ at $JDK (set ZEEBE_ENGINE_JAVA_HOME)"

ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --port|--warmup)
      [ $# -ge 2 ] || die "$1 needs a value"
      [[ "$2" =~ ^[0-9]+$ ]] || die "$1 needs a number, got '$2'"
      ARGS+=("$1" "$2"); shift 2 ;;
    --port=*|--warmup=*)
      v="${1#*=}"; [[ "$v" =~ ^[0-9]+$ ]] || die "${1%%=*} needs a number, got '$v'"
      ARGS+=("${1%%=*}" "$v"); shift ;;
    -h|--help)
      sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (usage: start.sh [--port N] [--warmup N])" ;;
  esac
done
if [ "${ZEEBE_ENGINE_IGNORE_STDIN:-0}" = "1" ]; then ARGS+=("--ignore-stdin"); fi

TARGET="$HERE/target"
JAR="$TARGET/zeebe-engine.jar"
CDS="$TARGET/zeebe-engine.jsa"
JVM_OPTS=(
  -Djava.net.preferIPv4Stack=true
  --sun-misc-unsafe-memory-access=allow
  -XX:+UseParallelGC
  -Xlog:cds=off -Xlog:aot=off
)

needs_build() {
  [ -f "$JAR" ] && [ -d "$TARGET/lib" ] || return 0
  [ -n "$(find "$HERE/pom.xml" "$HERE/src" -newer "$JAR" -print -quit)" ]
}

# Build once; concurrent starts wait for the one that builds.
mkdir -p "$TARGET"
exec 9>"$TARGET/.build.lock"
flock 9
if needs_build; then
  echo "zeebe-engine: building the launcher (first run downloads dependencies)..." >&2
  rm -f "$CDS"
  ( cd "$HERE" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
      mvn -q -B package 1>&2 ) || die "maven build failed"
  touch "$JAR"
fi
if [ ! -f "$CDS" ]; then
  # One short training run (engine start + 50 instances) records the classes the
  # engine loads into a class-data archive; later starts map it instead of parsing jars.
  echo "zeebe-engine: recording the class-data archive..." >&2
  if ! echo | "$JAVA" "${JVM_OPTS[@]}" -XX:ArchiveClassesAtExit="$CDS.tmp" \
        -jar "$JAR" --port 0 --warmup 50 >/dev/null 2>&1; then
    echo "zeebe-engine: class-data archive not recorded (startup will be slower)" >&2
  fi
  if [ -f "$CDS.tmp" ]; then mv -f "$CDS.tmp" "$CDS"; fi
fi
flock -u 9
exec 9>&-

if [ -f "$CDS" ]; then JVM_OPTS+=("-XX:SharedArchiveFile=$CDS"); fi
# shellcheck disable=SC2086
exec "$JAVA" "${JVM_OPTS[@]}" ${ZEEBE_ENGINE_JAVA_OPTS:-} -jar "$JAR" "${ARGS[@]}"
