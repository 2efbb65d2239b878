#!/usr/bin/env bash
# Builds the Java examples: installs io.jobwire:jobwire-sdk from ../../sdk-java into ~/.m2 and
# packages this project, only when a source is newer than the last build (idempotent, quick).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SDK="$(cd "$HERE/../../sdk-java" && pwd)"
STAMP="$HERE/target/classpath.txt"
JAR="$HERE/target/jobwire-java-examples-0.1.0.jar"
if [ ! -f "$STAMP" ] || [ ! -f "$JAR" ] \
   || [ -n "$(find "$SDK/src/main" "$SDK/pom.xml" "$SDK/../proto/gateway.proto" "$HERE/src" "$HERE/pom.xml" -newer "$STAMP" -print -quit)" ]; then
  (cd "$SDK" && mvn -B -q install -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true)
  (cd "$HERE" && mvn -B -q package dependency:build-classpath -Dmdep.outputFile="$STAMP.tmp" && mv "$STAMP.tmp" "$STAMP")
fi
