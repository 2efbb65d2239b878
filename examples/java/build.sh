#!/usr/bin/env bash
# Builds the Java examples: installs io.jobwire:jobwire-sdk from ../../sdk-java, and the test kit
# (io.jobwire:jobwire-engine's API from ../../packaging/engine/java, io.jobwire:jobwire-test from
# ../../sdk-java-test) the tests need, into ~/.m2 and packages this project without its tests,
# only when a source is newer than the last build (idempotent, quick). `mvn test` runs the tests.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SDK="$(cd "$HERE/../../sdk-java" && pwd)"
ENGINE_API="$(cd "$HERE/../../packaging/engine/java" && pwd)"
KIT="$(cd "$HERE/../../sdk-java-test" && pwd)"
STAMP="$HERE/target/classpath.txt"
JAR="$HERE/target/jobwire-java-examples-0.1.0.jar"
if [ ! -f "$STAMP" ] || [ ! -f "$JAR" ] \
   || [ -n "$(find "$SDK/src/main" "$SDK/pom.xml" "$SDK/../proto/gateway.proto" \
     "$ENGINE_API/src/main" "$ENGINE_API/pom.xml" "$KIT/src/main" "$KIT/pom.xml" "$HERE/src" "$HERE/pom.xml" -newer "$STAMP" -print -quit)" ]; then
  (cd "$SDK" && mvn -B -q install -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true)
  (cd "$ENGINE_API" && mvn -B -q install -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true)
  (cd "$KIT" && mvn -B -q install -DskipTests -Dmaven.javadoc.skip=true -Dmaven.source.skip=true)
  (cd "$HERE" && mvn -B -q package -Dmaven.test.skip=true dependency:build-classpath -DincludeScope=runtime -Dmdep.outputFile="$STAMP.tmp" && mv "$STAMP.tmp" "$STAMP")
fi
